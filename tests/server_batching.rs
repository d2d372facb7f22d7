//! Continuous batching in the server, over real HTTP on loopback: clients
//! decoded together get, greedy, exactly the answers each gets alone; a
//! client that leaves stops only its own sequence; a long prompt runs in
//! chunks beside the answers in flight; the KV budget refuses what can
//! never fit and holds the rest to what fits.

#[path = "common/http.rs"]
mod http;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use http::{bundled, client, data_lines, merge, post_chat, start, without_ids};
use serde_json::{json, Value};

const QUESTIONS: [&str; 8] = [
    "What's the temperature in Paris right now?",
    "How windy is it in Tokyo?",
    "What is 17 times 23?",
    "Convert 12 miles to kilometers.",
    "What's the temperature in Cairo in fahrenheit?",
    "How strong is the wind in Denver?",
    "What time is it in Tokyo?",
    "Tell me a fact about the sea.",
];

/// Request `i` of 16: its own question, tools, `tool_choice` or
/// `response_format`, streamed or not.
fn request(i: usize) -> Value {
    let tools = tool_use::demo::definitions();
    let mut body = json!({
        "model": "tool-use-mini",
        "messages": [{"role": "user", "content": QUESTIONS[i % 8]}],
        "max_tokens": 48,
        "stream": i % 2 == 1,
    });
    match i % 4 {
        0 => body["tools"] = json!(tools),
        1 => {
            body["tools"] = json!(tools[..2]);
            body["tool_choice"] = json!("required");
        }
        2 => {
            body["tools"] = json!(tools);
            body["tool_choice"] = json!({"type": "function", "function": {"name": "calculate"}});
        }
        _ if i < 8 => {
            body["response_format"] = json!({"type": "json_schema", "json_schema": {
                "name": "fact",
                "schema": {"type": "object", "properties": {"fact": {"type": "string"}},
                           "required": ["fact"]},
            }});
        }
        _ => {
            body["tools"] = json!(tools);
            body["tool_choice"] = json!("none");
        }
    }
    body
}

/// The answer to `body`: its message (call ids left out), finish reason
/// and completion tokens, streamed or whole as it asks.
async fn answer(url: &str, body: &Value) -> (Value, String, u64) {
    let response = post_chat(url, body).await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    if body["stream"] == true {
        let (message, finish, usage) = merge(&data_lines(&text));
        assert!(usage.is_none(), "usage only when asked");
        return (without_ids(message), finish, 0);
    }
    let json: Value = serde_json::from_str(&text).unwrap();
    let choice = &json["choices"][0];
    (
        without_ids(choice["message"].clone()),
        choice["finish_reason"].as_str().unwrap().to_owned(),
        json["usage"]["completion_tokens"].as_u64().unwrap(),
    )
}

async fn get_json(url: &str) -> Value {
    client()
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Polls `/health` until `stop`; returns the most sequences it saw decoding.
fn watch_health(url: &str, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<u64> {
    let health = format!("{}/health", url.trim_end_matches("/v1"));
    tokio::spawn(async move {
        let most = AtomicU64::new(0);
        while !stop.load(Ordering::Relaxed) {
            let h = get_json(&health).await;
            most.fetch_max(h["sequences"].as_u64().unwrap(), Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        most.load(Ordering::Relaxed)
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn sixteen_clients_decoded_together_get_the_answers_each_gets_alone() {
    let alone_url = start(bundled().max_batch(1)).await;
    let mut alone = Vec::new();
    for i in 0..16 {
        alone.push(answer(&alone_url, &request(i)).await);
    }
    // Each request's answer is its own: the 16 are not one answer.
    let distinct: std::collections::BTreeSet<String> =
        alone.iter().map(|(m, _, _)| m.to_string()).collect();
    assert!(distinct.len() >= 8, "{alone:?}");

    let url = start(bundled()).await;
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = watch_health(&url, Arc::clone(&stop));
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let url = url.clone();
            tokio::spawn(async move { answer(&url, &request(i)).await })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        let together = task.await.unwrap();
        assert_eq!(together, alone[i], "request {i}: {}", request(i));
    }
    stop.store(true, Ordering::Relaxed);
    let most = watcher.await.unwrap();
    assert!(
        most >= 2,
        "never more than {most} sequence decoding at once"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_leaves_stops_only_its_own_sequence() {
    let url = start(bundled()).await;
    let mut long = request(7);
    long["max_tokens"] = json!(1500);
    long["ignore_eos"] = json!(true);
    long["stream"] = json!(true);
    let short = request(0);
    let alone = answer(&url, &short).await;

    let response = post_chat(&url, &long).await;
    let mut chunks = response.bytes_stream();
    for _ in 0..3 {
        chunks.next().await.unwrap().unwrap();
    }
    // The other client is served beside it, and as alone.
    assert_eq!(answer(&url, &short).await, alone);
    drop(chunks);
    let health = format!("{}/health", url.trim_end_matches("/v1"));
    let gone = Instant::now();
    loop {
        let h = get_json(&health).await;
        if h["sequences"] == 0 && h["queued"] == 0 {
            break;
        }
        assert!(
            gone.elapsed() < Duration::from_secs(30),
            "still decoding for a client that left: {h}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_kv_budget_refuses_what_can_never_fit_and_holds_the_rest_to_what_fits() {
    let model = tool_use::bundled::load_embedded().unwrap();
    let per_position = model.kv_bytes_per_position().unwrap() as u64;
    let url = start(bundled()).await;
    let mut body = request(3);
    body["stream"] = json!(false);
    body["max_tokens"] = json!(1);
    let json: Value = post_chat(&url, &body).await.json().await.unwrap();
    let prompt = json["usage"]["prompt_tokens"].as_u64().unwrap();

    // Room for the prompt and five more tokens: a request for 40 gets 5.
    let url = start(bundled().kv_budget(((prompt + 5) * per_position) as usize)).await;
    body["max_tokens"] = json!(40);
    body["ignore_eos"] = json!(true);
    body["tool_choice"] = json!("none");
    let (_, finish, tokens) = answer(&url, &body).await;
    assert_eq!((finish.as_str(), tokens), ("length", 5));

    // Room for less than the prompt: refused, naming the budget.
    let url = start(bundled().kv_budget((prompt * per_position) as usize)).await;
    let response = post_chat(&url, &body).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("--kv-budget"), "{message}");
    assert_eq!(error["error"]["param"], "messages");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_prompt_runs_a_chunk_a_pass_beside_the_answers_in_flight() {
    // No tools, and over 1,536 tokens: four chunks of 512.
    let words = ["river", "stone", "cloud", "amber", "seven", "lantern"];
    let story: Vec<&str> = (0..255).map(|i| words[(i * 7 + i / 6) % 6]).collect();
    let long = json!({
        "model": "tool-use-mini",
        "messages": [{"role": "user", "content": story.join(" ")}],
        "max_tokens": 8,
        "stream": true,
    });
    let alone_url = start(bundled().max_batch(1)).await;
    let mut whole = long.clone();
    whole["stream"] = json!(false);
    let json: Value = post_chat(&alone_url, &whole).await.json().await.unwrap();
    let prompt = json["usage"]["prompt_tokens"]
        .as_u64()
        .unwrap_or_else(|| panic!("{json}"));
    assert!((1537..2040).contains(&prompt), "{prompt} prompt tokens");
    let alone = answer(&alone_url, &long).await;

    let url = start(bundled()).await;
    let decoding = json!({
        "model": "tool-use-mini",
        "messages": [{"role": "user", "content": "Tell me about the sea."}],
        "max_tokens": 400,
        "ignore_eos": true,
        "stream": true,
    });
    let mut events = post_chat(&url, &decoding).await.bytes_stream();
    for _ in 0..3 {
        events.next().await.unwrap().unwrap();
    }
    // When each of the other answer's events arrives.
    let arrivals = tokio::spawn(async move {
        let mut at = Vec::new();
        while let Some(Ok(bytes)) = events.next().await {
            let count = String::from_utf8_lossy(&bytes).matches("data:").count();
            at.extend(std::iter::repeat_n(Instant::now(), count));
        }
        at
    });

    let sent = Instant::now();
    let response = post_chat(&url, &long).await;
    assert_eq!(response.status(), 200);
    let (mut text, mut first_token) = (String::new(), None);
    let mut body = response.bytes_stream();
    while let Some(bytes) = body.next().await {
        text.push_str(&String::from_utf8_lossy(&bytes.unwrap()));
        let written = data_lines(&text).iter().any(|line| {
            let event: Value = serde_json::from_str(line).unwrap_or(Value::Null);
            event["choices"][0]["delta"]["content"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        });
        if written && first_token.is_none() {
            first_token = Some(Instant::now());
        }
    }
    let first_token = first_token.expect("the long prompt's answer wrote text");
    let (message, finish, _) = merge(&data_lines(&text));
    // Run in chunks beside another answer, it is the answer it gets alone.
    assert_eq!((without_ids(message), finish, 0), alone);

    let at = arrivals.await.unwrap();
    let meanwhile = at
        .iter()
        .filter(|t| **t > sent && **t < first_token)
        .count();
    // A pass runs one chunk of the prompt and a token of the other answer:
    // four chunks, then the first token, give it about five tokens; run
    // whole, the prompt would have held it up until then.
    assert!(
        meanwhile >= 3,
        "the other answer got {meanwhile} tokens while the prompt ran"
    );
}
