//! Interleaved conversations on one server: each request reuses the KV
//! cache of its own conversation, and answers as a fresh server does.

#[path = "common/http.rs"]
mod http;

use http::{bundled, post_chat, start};
use serde_json::{json, Value};

const QUESTIONS: [&str; 8] = [
    "What's the temperature in Paris right now?",
    "How windy is it in Tokyo?",
    "What's the temperature in Lima in fahrenheit?",
    "Is it windy in Oslo today?",
    "What's the temperature in Cairo?",
    "How strong is the wind in Denver?",
    "What's the temperature in Sydney right now?",
    "What's the wind speed in Nairobi?",
];

const ROUNDS: usize = 3;

async fn post(url: &str, body: &Value) -> Value {
    let response = post_chat(url, body).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

fn request(messages: &[Value]) -> Value {
    json!({
        "model": "tool-use-mini",
        "messages": messages,
        "tools": tool_use::demo::definitions(),
        "tool_choice": "required",
        "max_tokens": 64,
    })
}

/// The answer's message with its calls' ids (random) left out.
fn without_ids(answer: &Value) -> Value {
    let mut message = answer["choices"][0]["message"].clone();
    for call in message["tool_calls"].as_array_mut().into_iter().flatten() {
        call["id"] = json!("-");
    }
    message
}

fn usage(answer: &Value) -> (u64, u64) {
    let usage = &answer["usage"];
    (
        usage["prompt_tokens"].as_u64().unwrap(),
        usage["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .unwrap(),
    )
}

/// Runs the conversations round by round, each round taking them in turn;
/// returns every request with its answer, by conversation.
async fn interleave(url: &str) -> Vec<Vec<(Value, Value)>> {
    let mut histories: Vec<Vec<Value>> = QUESTIONS
        .iter()
        .map(|q| vec![json!({"role": "user", "content": q})])
        .collect();
    let mut exchanges = vec![Vec::new(); QUESTIONS.len()];
    for round in 0..ROUNDS {
        for (c, history) in histories.iter_mut().enumerate() {
            let body = request(history);
            let answer = post(url, &body).await;
            let message = answer["choices"][0]["message"].clone();
            let call = &message["tool_calls"][0];
            assert!(call["id"].is_string(), "a call every round: {answer}");
            let result = format!("{}.{round}", 10 + c);
            history.push(message.clone());
            history.push(json!({"role": "tool", "tool_call_id": call["id"], "content": result}));
            exchanges[c].push((body, answer));
        }
    }
    exchanges
}

#[tokio::test(flavor = "multi_thread")]
async fn interleaved_tool_conversations_reuse_their_own_cache() {
    let url = start(bundled()).await;
    let exchanges = interleave(&url).await;
    for (c, rounds) in exchanges.iter().enumerate() {
        let measured: Vec<(u64, u64)> = rounds.iter().map(|(_, a)| usage(a)).collect();
        eprintln!("conversation {c}: (prompt, cached) tokens by round {measured:?}");
        for round in 1..ROUNDS {
            let (previous_prompt, _) = measured[round - 1];
            let (prompt, cached) = measured[round];
            assert!(prompt > previous_prompt);
            // The request extends the previous one's prompt: all of it is
            // shared, and all of it comes from the cache (the tools' system
            // message alone is 90% of it, shared with every conversation).
            assert!(
                cached >= previous_prompt,
                "conversation {c} round {round}: {cached} cached of {prompt}, \
                 the previous request had {previous_prompt}"
            );
        }
    }

    // The same requests on a server that has seen nothing.
    for (c, rounds) in exchanges.iter().enumerate() {
        for (round, (body, answer)) in rounds.iter().enumerate() {
            let fresh = post(&start(bundled()).await, body).await;
            assert_eq!(usage(&fresh).1, 0, "a fresh server has nothing cached");
            assert_eq!(
                without_ids(answer),
                without_ids(&fresh),
                "conversation {c} round {round}"
            );
            assert_eq!(
                answer["choices"][0]["finish_reason"],
                fresh["choices"][0]["finish_reason"]
            );
        }
    }
}

/// With one cache (a budget of 0), the same interleaving reuses only what
/// a request shares with the other conversation's request before it: the
/// check above could fail.
#[tokio::test(flavor = "multi_thread")]
async fn one_cache_reuses_only_what_consecutive_requests_share() {
    let url = start(bundled().kv_budget(0)).await;
    let exchanges = interleave(&url).await;
    for rounds in &exchanges {
        for pair in rounds.windows(2) {
            let (previous_prompt, _) = usage(&pair[0].1);
            let (_, cached) = usage(&pair[1].1);
            assert!(
                cached < previous_prompt,
                "{cached} cached; the conversation's previous prompt has {previous_prompt} tokens"
            );
        }
    }
}
