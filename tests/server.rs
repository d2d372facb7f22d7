//! The OpenAI-compatible server (`tool_use::server`) over real
//! HTTP on loopback: the answers and stream invariants clients rely on,
//! the errors they get for bad input, a queue under 16 concurrent clients,
//! cancellation when a client leaves, and the project's own remote client
//! getting the in-process agent's transcript.

#[path = "common/http.rs"]
mod http;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use http::{bundled, client, data_lines, merge, start, without_ids};
use serde_json::{json, Value};
use tool_use::generate::GenerateOptions;
use tool_use::model::tiny::{write_tiny_model, TinySpec};
use tool_use::model::Model;
use tool_use::remote::{Api, RemoteChat, RequestOptions};
use tool_use::server::Server;
use tool_use::Message;
use tool_use::{agent::Agent, local::LocalChat};

/// Sends a raw body to `/chat/completions`.
async fn send(url: &str, body: String) -> reqwest::Response {
    client()
        .post(format!("{url}/chat/completions"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
}

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let response = send(url, body.to_string()).await;
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, json)
}

/// The `data:` payloads of a streamed answer, `[DONE]` included.
async fn post_stream(url: &str, body: &Value) -> Vec<String> {
    let mut body = body.clone();
    body["stream"] = json!(true);
    let response = send(url, body.to_string()).await;
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    data_lines(&response.text().await.unwrap())
}

fn ask(prompt: &str) -> Value {
    json!({
        "model": "tool-use-mini",
        "messages": [{"role": "user", "content": prompt}],
        "tools": tool_use::demo::definitions(),
    })
}

/// [`ask`] with this `tool_choice`.
fn ask_with(prompt: &str, tool_choice: Value) -> Value {
    let mut body = ask(prompt);
    body["tool_choice"] = tool_choice;
    body
}

#[tokio::test(flavor = "multi_thread")]
async fn answers_calls_and_streams_as_openai_does() {
    let url = start(bundled()).await;

    let models = get_json(&format!("{url}/models")).await;
    assert_eq!(models["data"][0]["id"], "tool-use-mini");

    let mut body = ask_with(
        "What's the temperature in Paris right now?",
        json!("required"),
    );
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
    // Arguments arrive as they are generated, not in one piece at the end.
    let pieces = events
        .iter()
        .filter(|e| e.contains("\"arguments\":\"") && !e.contains("\"arguments\":\"\""))
        .count();
    assert!(pieces > 5, "arguments in {pieces} pieces: {events:?}");
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

    let (status, answer) = post(&url, &ask_with(prompt, json!("none"))).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop", "{answer}");
    assert!(
        answer["choices"][0]["message"].get("tool_calls").is_none(),
        "{answer}"
    );

    let named = json!({"type": "function", "function": {"name": "get_current_wind_speed"}});
    let (status, answer) = post(&url, &ask_with(prompt, named)).await;
    assert_eq!(status, 200, "{answer}");
    let calls = answer["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap();
    assert_eq!(calls.len(), 1, "{answer}");
    assert_eq!(calls[0]["function"]["name"], "get_current_wind_speed");

    let two = "What's the temperature in Paris and in Tokyo, in celsius?";
    let mut parallel = ask_with(two, json!("required"));
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

/// The JSON a GET of `url` answers, whatever its status.
async fn get_json(url: &str) -> Value {
    client().get(url).send().await.unwrap().json_text().await
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_get_openai_shaped_errors() {
    let url = start(bundled().max_body_bytes(64 << 10)).await;
    let user = json!([{"role": "user", "content": "Hi"}]);
    let bad_schema = json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": "a string"}}}}]);
    let weather = json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]);
    let long = "word ".repeat(5000);
    let cases: Vec<(&str, String, u16, &str)> = vec![
        (
            "malformed JSON",
            "{\"messages\": [".into(),
            400,
            "not valid JSON",
        ),
        ("not an object", "[1, 2]".into(), 400, "found an array"),
        (
            "wrong type",
            json!({"messages": user, "temperature": "warm"}).to_string(),
            400,
            "temperature: invalid type: string \"warm\", expected a number",
        ),
        (
            "bad message",
            json!({"messages": [{"role": "user", "content": 5}]}).to_string(),
            400,
            "messages[0]",
        ),
        (
            "unknown model",
            json!({"model": "gpt-9", "messages": user}).to_string(),
            404,
            "gpt-9",
        ),
        (
            "bad schema",
            json!({"messages": user, "tools": bad_schema}).to_string(),
            400,
            "tool `get_weather`",
        ),
        (
            "unknown tool_choice",
            json!({"messages": user, "tools": weather,
            "tool_choice": {"type": "function", "function": {"name": "get_time"}}})
            .to_string(),
            400,
            "get_time",
        ),
        (
            "required without tools",
            json!({"messages": user, "tool_choice": "required"}).to_string(),
            400,
            "none was offered",
        ),
        (
            "too long",
            json!({"messages": [{"role": "user", "content": long}]}).to_string(),
            400,
            "context of 2048",
        ),
        (
            "too large",
            json!({"messages": [{"role": "user", "content": "x".repeat(70 << 10)}]}).to_string(),
            413,
            "65536 bytes",
        ),
        (
            "template refuses",
            // A few tokens: the case is about the template, and a model
            // may not stop soon after such a conversation.
            json!({"messages": [{"role": "assistant", "content": "Hi"},
            {"role": "tool", "content": "1"}], "max_tokens": 8})
            .to_string(),
            200,
            "",
        ),
    ];
    for (what, body, status, needle) in cases {
        let response = send(&url, body).await;
        let got = response.status().as_u16();
        let json = response.json_text().await;
        if status == 200 {
            // What a template accepts is its business: not a server error.
            assert!(got == 200 || got == 400, "{what}: {got} {json}");
            continue;
        }
        assert_eq!(got, status, "{what}: {json}");
        let error = &json["error"];
        assert!(
            error["message"].as_str().unwrap().contains(needle),
            "{what}: {json}"
        );
        assert!(error["type"].is_string(), "{what}: {json}");
    }
    let json = get_json(&format!("{url}/completions")).await;
    assert_eq!(json["error"]["code"], "unknown_url");
    // The server is still there.
    let (status, _) = post(&url, &json!({"messages": user, "max_tokens": 2})).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_api_key_is_required_when_configured() {
    let url = start(bundled().api_key("sk-test-123")).await;
    let body =
        json!({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}).to_string();
    for (key, status) in [
        (None, 401),
        (Some("sk-test-12"), 401),
        (Some("sk-test-123"), 200),
    ] {
        let mut request = client()
            .post(format!("{url}/chat/completions"))
            .body(body.clone());
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{key:?}");
        let json = response.json_text().await;
        assert!(
            !json.to_string().contains("sk-test-123"),
            "the key leaks: {json}"
        );
        if status == 401 {
            assert_eq!(json["error"]["code"], "invalid_api_key");
        }
    }
    let models = client().get(format!("{url}/models")).send().await.unwrap();
    assert_eq!(models.status(), 401);
    let health = client()
        .get(format!("{}/health", url.trim_end_matches("/v1")))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200, "health needs no key");
}

/// 16 clients at once: every one answered in full, streamed or not; with
/// a queue of 2, the rest are told to retry, and nothing else happens.
#[tokio::test(flavor = "multi_thread")]
async fn sixteen_concurrent_clients() {
    for max_queue in [64, 2] {
        let url = start(bundled().max_queue(max_queue)).await;
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let url = url.clone();
                tokio::spawn(async move {
                    let city = ["Paris", "Tokyo", "Lima", "Oslo"][i % 4];
                    let mut body = ask(&format!("What's the wind speed in {city}?"));
                    body["max_tokens"] = json!(48);
                    body["stream"] = json!(i % 2 == 0);
                    let response = send(&url, body.to_string()).await;
                    let status = response.status().as_u16();
                    let retry = response.headers().get("retry-after").cloned();
                    let text = response.text().await.unwrap();
                    (i, status, retry, text)
                })
            })
            .collect();
        let mut served = 0;
        let mut refused = 0;
        for task in tasks {
            let (i, status, retry, text) = task.await.unwrap();
            match status {
                200 if i % 2 == 0 => {
                    let (message, _, _) = merge(&data_lines(&text));
                    assert!(message["content"].is_string() || message["tool_calls"].is_array());
                    served += 1;
                }
                200 => {
                    let json: Value = serde_json::from_str(&text).unwrap();
                    assert!(json["choices"][0]["finish_reason"].is_string(), "{json}");
                    served += 1;
                }
                503 => {
                    assert!(max_queue < 15, "refused with room in the queue: {text}");
                    assert_eq!(retry.unwrap(), "1");
                    let json: Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(json["error"]["code"], "server_busy");
                    refused += 1;
                }
                other => panic!("client {i}: {other} {text}"),
            }
        }
        assert_eq!(served + refused, 16);
        if max_queue == 64 {
            assert_eq!(served, 16);
        } else {
            // All 16 may arrive before the model thread takes the first.
            assert!(
                served >= max_queue && refused >= 1,
                "served {served}, refused {refused}"
            );
        }
    }
}

/// A tiny random-weight model told to ignore its end-of-sequence token
/// would write until its 100k-token context is full (minutes); a client
/// that leaves stops it at once, streamed or not.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_leaves_cancels_its_generation() {
    let dir = tempfile::tempdir().unwrap();
    let spec = TinySpec {
        max_position_embeddings: 100_000,
        ..TinySpec::qwen2(5)
    };
    write_tiny_model(dir.path(), &spec).unwrap();
    let chat = LocalChat::new(Model::load(dir.path()).unwrap()).unwrap();
    let server = Server::new(chat, "tiny").defaults(GenerateOptions {
        ignore_eos: true,
        ..GenerateOptions::greedy(100_000)
    });
    let url = start(server).await;
    let health_url = format!("{}/health", url.trim_end_matches("/v1"));
    let health = || get_json(&health_url);
    let body = json!({"messages": [{"role": "user", "content": "Hi"}]});

    for stream in [true, false] {
        let mut body = body.clone();
        body["stream"] = json!(stream);
        let request = client()
            .post(format!("{url}/chat/completions"))
            .body(body.to_string());
        if stream {
            let response = request.send().await.unwrap();
            let mut chunks = response.bytes_stream();
            for _ in 0..3 {
                chunks.next().await.unwrap().unwrap();
            }
            assert_eq!(health().await["generating"], true);
            drop(chunks);
        } else {
            let left = tokio::time::timeout(Duration::from_millis(500), request.send()).await;
            assert!(left.is_err(), "the answer cannot be complete yet");
        }
        let gone = Instant::now();
        loop {
            let h = health().await;
            if h["generating"] == false && h["queued"] == 0 {
                break;
            }
            assert!(
                gone.elapsed() < Duration::from_secs(30),
                "still generating for a client that left (stream: {stream}): {h}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    // The model serves the next client.
    let (status, answer) = post(
        &url,
        &json!({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 3}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["usage"]["completion_tokens"], 3);
}

/// The remote client driving the served model gives the transcript the
/// in-process agent gives on the same weights, through each of the three
/// APIs, streamed and whole.
#[tokio::test(flavor = "multi_thread")]
async fn the_remote_client_gets_the_in_process_transcript() {
    let prompt = "What's the temperature in Tokyo in fahrenheit?";
    let local = tokio::task::spawn_blocking(move || {
        let chat = LocalChat::new(tool_use::bundled::load_embedded().unwrap())
            .unwrap()
            .options(GenerateOptions::greedy(256));
        Agent::new(chat, tool_use::demo::toolbox())
            .run(vec![Message::user(prompt)])
            .unwrap()
    })
    .await
    .unwrap();
    assert!(local.stats.rounds >= 2, "{:?}", local.messages);

    let url = start(bundled()).await;
    for (api, stream) in Api::ALL
        .into_iter()
        .flat_map(|api| [(api, true), (api, false)])
    {
        let remote = RemoteChat::openai_compatible(&url, "tool-use-mini")
            .api(api)
            .stream(stream)
            .options(RequestOptions {
                temperature: Some(0.0),
                max_tokens: Some(256),
                ..RequestOptions::default()
            });
        let run = Agent::new(remote, tool_use::demo::toolbox())
            .run_async(vec![Message::user(prompt)])
            .await
            .unwrap();
        let ids = |messages: &[Message]| -> Vec<Message> {
            messages
                .iter()
                .cloned()
                .map(|mut m| {
                    for c in &mut m.tool_calls {
                        c.id = "-".into();
                    }
                    if m.tool_call_id.is_some() {
                        m.tool_call_id = Some("-".into());
                    }
                    m
                })
                .collect()
        };
        assert_eq!(
            ids(&run.messages),
            ids(&local.messages),
            "{api}, stream: {stream}"
        );
        assert_eq!(run.answer, local.answer, "{api}, stream: {stream}");
    }
}
