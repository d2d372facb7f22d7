//! The OpenAI-compatible server (`tool_use::models::server`) over real
//! HTTP on loopback: the answers and stream invariants clients rely on,
//! the errors they get for bad input, a queue under 16 concurrent clients,
//! cancellation when a client leaves, and the project's own remote client
//! getting the in-process agent's transcript.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};
use tool_use::models::agent::{Agent, LocalChat};
use tool_use::models::generate::GenerateOptions;
use tool_use::models::model::tiny::{write_tiny_model, TinySpec};
use tool_use::models::model::Model;
use tool_use::models::remote::{RemoteChat, RequestOptions};
use tool_use::models::server::Server;
use tool_use::Message;

/// Serves `server` on an ephemeral loopback port; returns `http://…/v1`.
async fn start(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(server.serve(listener));
    url
}

fn bundled() -> Server {
    let chat = LocalChat::new(tool_use::bundled::load_embedded().unwrap()).unwrap();
    Server::new(chat, "tool-use-mini")
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let response = client()
        .post(format!("{url}/chat/completions"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, json)
}

/// The `data:` payloads of a streamed answer, `[DONE]` included.
async fn post_stream(url: &str, body: &Value) -> Vec<String> {
    let mut body = body.clone();
    body["stream"] = json!(true);
    let response = client()
        .post(format!("{url}/chat/completions"))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let text = response.text().await.unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(str::to_owned)
        .collect()
}

fn ask(prompt: &str) -> Value {
    json!({
        "model": "tool-use-mini",
        "messages": [{"role": "user", "content": prompt}],
        "tools": tool_use::demo::definitions(),
    })
}

/// Merges a stream's chunks the way a client does, checking on the way
/// what vLLM's own tests check: one role, each call's id and name sent
/// once, exactly one finish reason, the usage chunk last before `[DONE]`.
fn merge(events: &[String]) -> (Value, String, Option<Value>) {
    assert_eq!(
        events.last().map(String::as_str),
        Some("[DONE]"),
        "{events:?}"
    );
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    let first = &chunks[0]["choices"][0]["delta"];
    assert_eq!(first["role"], "assistant", "{first}");
    let mut content: Option<String> = None;
    let mut calls: Vec<Value> = Vec::new();
    let mut finish = None;
    let mut usage = None;
    for (i, chunk) in chunks.iter().enumerate() {
        assert_eq!(chunk["object"], "chat.completion.chunk");
        assert_eq!(chunk["id"], chunks[0]["id"]);
        if let Some(u) = chunk.get("usage").filter(|u| !u.is_null()) {
            assert_eq!(chunk["choices"], json!([]), "{chunk}");
            assert_eq!(i, chunks.len() - 1, "the usage chunk comes last");
            usage = Some(u.clone());
            continue;
        }
        let choice = &chunk["choices"][0];
        if let Some(f) = choice["finish_reason"].as_str() {
            assert!(finish.is_none(), "two finish reasons: {events:?}");
            finish = Some(f.to_owned());
        } else {
            assert!(finish.is_none(), "a delta after the finish reason: {chunk}");
        }
        let delta = &choice["delta"];
        if i > 0 {
            assert!(delta.get("role").is_none(), "role sent twice: {chunk}");
        }
        if let Some(text) = delta["content"].as_str() {
            if !text.is_empty() {
                content.get_or_insert_with(String::new).push_str(text);
            }
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().unwrap() as usize;
            if index == calls.len() {
                let id = call["id"]
                    .as_str()
                    .expect("a call's first fragment has its id");
                assert_eq!(call["type"], "function");
                let name = call["function"]["name"].as_str().unwrap();
                calls.push(json!({"id": id, "type": "function",
                    "function": {"name": name, "arguments": ""}}));
            } else {
                assert!(index < calls.len(), "call {index} skipped one: {chunk}");
                assert!(call.get("id").is_none(), "id sent twice: {chunk}");
                assert!(
                    call["function"].get("name").is_none(),
                    "name sent twice: {chunk}"
                );
            }
            if let Some(args) = call["function"]["arguments"].as_str() {
                let merged = calls[index]["function"]["arguments"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                calls[index]["function"]["arguments"] = json!(merged + args);
            }
        }
    }
    let mut message = json!({"role": "assistant", "content": content});
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    (message, finish.expect("no finish reason"), usage)
}

/// Call ids differ between answers; everything else must not.
fn without_ids(mut message: Value) -> Value {
    for call in message["tool_calls"].as_array_mut().into_iter().flatten() {
        let id = call["id"].as_str().unwrap();
        assert_eq!(id.len(), 9, "{id}");
        assert!(id.chars().all(|c| c.is_ascii_alphanumeric()), "{id}");
        call["id"] = json!("-");
    }
    message
}

#[tokio::test(flavor = "multi_thread")]
async fn answers_calls_and_streams_as_openai_does() {
    let url = start(bundled()).await;

    let models: Value = client()
        .get(format!("{url}/models"))
        .send()
        .await
        .unwrap()
        .json_text()
        .await;
    assert_eq!(models["data"][0]["id"], "tool-use-mini");

    let mut body = ask("What's the temperature in Paris in celsius?");
    body["tool_choice"] = json!("required");
    let (status, answer) = post(&url, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["object"], "chat.completion");
    let choice = &answer["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls", "{answer}");
    let message = &choice["message"];
    let call = &message["tool_calls"][0];
    assert_eq!(
        call["function"]["name"], "get_current_temperature",
        "{answer}"
    );
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments["unit"], "celsius", "{answer}");
    let usage = &answer["usage"];
    assert!(usage["prompt_tokens"].as_u64().unwrap() > 100, "{usage}");
    assert_eq!(
        usage["total_tokens"].as_u64(),
        Some(
            usage["prompt_tokens"].as_u64().unwrap() + usage["completion_tokens"].as_u64().unwrap()
        )
    );

    // Streamed: the same message, fragment by fragment, and the usage
    // chunk; the same prompt again comes from the cache.
    body["stream_options"] = json!({"include_usage": true});
    let events = post_stream(&url, &body).await;
    let (streamed, finish, usage) = merge(&events);
    assert_eq!(finish, "tool_calls");
    assert_eq!(without_ids(streamed), without_ids(message.clone()));
    let usage = usage.expect("include_usage asks for the usage chunk");
    assert_eq!(usage["prompt_tokens"], answer["usage"]["prompt_tokens"]);
    assert_eq!(
        usage["prompt_tokens_details"]["cached_tokens"], usage["prompt_tokens"],
        "the same prompt is served from the KV cache: {usage}"
    );

    // The round trip: the call's result goes back, arguments as OpenAI
    // sends them (a JSON string), and the model answers with it.
    let mut messages = body["messages"].as_array().unwrap().clone();
    messages.push(message.clone());
    messages.push(json!({"role": "tool", "tool_call_id": call["id"], "content": "22.0"}));
    let follow_up = json!({"model": "tool-use-mini", "messages": messages,
        "tools": tool_use::demo::definitions()});
    let (status, answer) = post(&url, &follow_up).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop", "{answer}");
    let text = answer["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(text.contains("22"), "{text}");
    let cached = answer["usage"]["prompt_tokens_details"]["cached_tokens"]
        .as_u64()
        .unwrap();
    assert!(
        cached > 100,
        "the conversation's prefix is reused: {answer}"
    );
    // Streamed, the answer is the same text.
    let (streamed, finish, _) = merge(&post_stream(&url, &follow_up).await);
    assert_eq!(finish, "stop");
    assert_eq!(
        streamed["content"],
        answer["choices"][0]["message"]["content"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_choice_is_obeyed() {
    let url = start(bundled()).await;
    let prompt = "What's the temperature in Paris in celsius?";

    let mut none = ask(prompt);
    none["tool_choice"] = json!("none");
    let (status, answer) = post(&url, &none).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop", "{answer}");
    assert!(
        answer["choices"][0]["message"].get("tool_calls").is_none(),
        "{answer}"
    );

    let mut named = ask(prompt);
    named["tool_choice"] =
        json!({"type": "function", "function": {"name": "get_current_wind_speed"}});
    let (status, answer) = post(&url, &named).await;
    assert_eq!(status, 200, "{answer}");
    let calls = answer["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap();
    assert_eq!(calls.len(), 1, "{answer}");
    assert_eq!(calls[0]["function"]["name"], "get_current_wind_speed");

    let two = "What's the temperature in Paris and in Tokyo, in celsius?";
    let mut parallel = ask(two);
    parallel["tool_choice"] = json!("required");
    let (_, answer) = post(&url, &parallel).await;
    let calls = answer["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(calls.len(), 2, "{answer}");
    parallel["parallel_tool_calls"] = json!(false);
    let (_, answer) = post(&url, &parallel).await;
    let one = answer["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap();
    assert_eq!(one.len(), 1, "{answer}");
    assert_eq!(one[0]["function"], calls[0]["function"]);
    assert_eq!(answer["choices"][0]["finish_reason"], "tool_calls");
}

trait JsonText {
    async fn json_text(self) -> Value;
}

impl JsonText for reqwest::Response {
    async fn json_text(self) -> Value {
        let text = self.text().await.unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }
}
