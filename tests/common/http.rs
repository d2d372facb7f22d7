//! Serving over loopback HTTP for the server's tests: the server started
//! on an ephemeral port, a client with a bound, and streamed answers read
//! as server-sent events.

use std::time::Duration;

use serde_json::{json, Value};
use tool_use::local::LocalChat;
use tool_use::server::Server;

/// Serves `server` on an ephemeral loopback port; returns `http://…/v1`.
pub async fn start(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(server.serve(listener));
    url
}

/// The bundled model, served as `tool-use-mini`.
pub fn bundled() -> Server {
    let chat = LocalChat::new(tool_use::bundled::load_embedded().unwrap()).unwrap();
    Server::new(chat, "tool-use-mini")
}

/// A client that gives up after two minutes.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

/// Posts `body` to `{url}/chat/completions`.
#[allow(dead_code)] // Not every test file posts Chat Completions.
pub async fn post_chat(url: &str, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{url}/chat/completions"))
        .json(body)
        .send()
        .await
        .unwrap()
}

/// The data of each event of a streamed answer, after checking that it is
/// one and that each `event:` name is its data's `type` (as Anthropic's and
/// the Responses API's streams name them).
#[allow(dead_code)] // The Chat Completions tests read `data:` lines only.
pub async fn named_events(response: reqwest::Response) -> Vec<Value> {
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let text = response.text().await.unwrap();
    text.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let field = |name: &str| {
                frame
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .unwrap_or_else(|| panic!("no {name} in {frame:?}"))
            };
            let data: Value = serde_json::from_str(field("data: ")).unwrap();
            assert_eq!(data["type"], field("event: "), "{frame}");
            data
        })
        .collect()
}

/// The `data:` payloads of an SSE body.
#[allow(dead_code)] // Not every test file streams Chat Completions.
pub fn data_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(str::to_owned)
        .collect()
}

/// Merges a stream's chunks the way a client does, checking on the way
/// what vLLM's own tests check: one role, each call's id and name sent
/// once, exactly one finish reason, the usage chunk last before `[DONE]`.
#[allow(dead_code)]
pub fn merge(events: &[String]) -> (Value, String, Option<Value>) {
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
#[allow(dead_code)]
pub fn without_ids(mut message: Value) -> Value {
    for call in message["tool_calls"].as_array_mut().into_iter().flatten() {
        let id = call["id"].as_str().unwrap();
        assert_eq!(id.len(), 9, "{id}");
        assert!(id.chars().all(|c| c.is_ascii_alphanumeric()), "{id}");
        call["id"] = json!("-");
    }
    message
}
