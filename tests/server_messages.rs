//! Anthropic's Messages API (`POST /v1/messages`) on the server, over real
//! HTTP on loopback with the bundled model: forced calls, streamed answers
//! in Anthropic's event order that add up to the whole answer, a tool
//! result answered from, stop sequences and limits, and errors in
//! Anthropic's shape.

#[path = "common/http.rs"]
mod http;

use http::{bundled, client, named_events, start};
use serde_json::{json, Value};
use tool_use::wire::messages::{MessageAccumulator, MessageResponse, MessagesEvent};

const KEY: &str = "sk-messages-test";

/// Serves the bundled model with an API key; returns `http://…/v1`.
async fn serve() -> String {
    start(bundled().api_key(KEY)).await
}

/// The demo tools, in Anthropic's form.
fn tools() -> Value {
    let tools: Vec<Value> = tool_use::demo::definitions()
        .iter()
        .map(|t| {
            let f = &t["function"];
            json!({"name": f["name"], "description": f["description"], "input_schema": f["parameters"]})
        })
        .collect();
    json!(tools)
}

fn ask(prompt: &str, tool_choice: Value) -> Value {
    json!({
        "model": "tool-use-mini", "max_tokens": 256,
        "messages": [{"role": "user", "content": prompt}],
        "tools": tools(), "tool_choice": tool_choice,
    })
}

/// Posts `body` with `headers` (the API key as the Anthropic SDK sends it
/// unless given).
async fn send(url: &str, body: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = client()
        .post(format!("{url}/messages"))
        .header("content-type", "application/json")
        .header("anthropic-version", "2023-06-01")
        .body(body.to_owned());
    if headers.is_empty() {
        request = request.header("x-api-key", KEY);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let response = send(url, &body.to_string(), &[]).await;
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

/// A whole answer, read as the `message` type.
async fn message(url: &str, body: &Value) -> MessageResponse {
    let (status, answer) = post(url, body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["type"], "message", "{answer}");
    serde_json::from_value(answer).unwrap()
}

/// A streamed answer: its events, each checked to carry its type as its
/// SSE `event:` name.
async fn events(url: &str, body: &Value) -> Vec<MessagesEvent> {
    let mut body = body.clone();
    body["stream"] = json!(true);
    let response = send(url, &body.to_string(), &[]).await;
    named_events(response)
        .await
        .into_iter()
        .map(|data| serde_json::from_value(data).unwrap())
        .collect()
}

/// Checks Anthropic's order (`message_start`; per block start, deltas,
/// stop, indices from 0; `message_delta`; `message_stop`) and adds the
/// events up as the SDKs do.
fn added_up(events: &[MessagesEvent]) -> MessageResponse {
    assert!(
        matches!(events.first(), Some(MessagesEvent::MessageStart { .. })),
        "{events:?}"
    );
    assert_eq!(
        events.last(),
        Some(&MessagesEvent::MessageStop),
        "{events:?}"
    );
    assert!(matches!(
        events[events.len() - 2],
        MessagesEvent::MessageDelta { .. }
    ));
    let mut open: Option<usize> = None;
    let mut next = 0;
    for event in &events[1..events.len() - 2] {
        match event {
            MessagesEvent::ContentBlockStart { index, .. } => {
                assert_eq!(open, None, "a block starts before the last stopped");
                assert_eq!(*index, next);
                open = Some(next);
                next += 1;
            }
            MessagesEvent::ContentBlockDelta { index, .. } => assert_eq!(open, Some(*index)),
            MessagesEvent::ContentBlockStop { index } => {
                assert_eq!(open.take(), Some(*index));
            }
            other => panic!("{other:?} between the blocks"),
        }
    }
    assert_eq!(open, None, "a block is left open");
    let mut acc = MessageAccumulator::new();
    for event in events {
        acc.apply(event).unwrap();
    }
    acc.finish().unwrap()
}

/// Ids differ between answers; everything else must not.
fn without_ids(message: &MessageResponse) -> Value {
    let mut value = serde_json::to_value(message).unwrap();
    assert!(message.id.starts_with("msg_"), "{}", message.id);
    value["id"] = json!("-");
    for block in value["content"].as_array_mut().unwrap() {
        if let Some(id) = block.get("id").and_then(Value::as_str) {
            assert!(id.starts_with("toolu_"), "{id}");
            block["id"] = json!("-");
        }
    }
    value
}

fn calls(message: &MessageResponse) -> Vec<(String, Value)> {
    serde_json::to_value(&message.content)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| (b["name"].as_str().unwrap().to_owned(), b["input"].clone()))
        .collect()
}

fn text(message: &MessageResponse) -> String {
    serde_json::to_value(&message.content)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn forced_calls_stream_as_they_answer_whole() {
    let url = serve().await;
    let weather = "What's the temperature in Paris right now?";

    let body = ask(weather, json!({"type": "any"}));
    let whole = message(&url, &body).await;
    assert_eq!(whole.stop_reason.as_ref().unwrap().as_str(), "tool_use");
    let made = calls(&whole);
    assert_eq!(made.len(), 1, "{whole:?}");
    assert_eq!(made[0].0, "get_current_temperature");
    assert_eq!(made[0].1["unit"], "celsius", "{whole:?}");
    assert!(
        made[0].1["location"].as_str().unwrap().contains("Paris"),
        "{whole:?}"
    );
    assert!(whole.usage.input_tokens + whole.usage.cache_read_input_tokens.unwrap_or(0) > 100);
    assert!(whole.usage.output_tokens > 0);

    // Streamed: the same message, the input in pieces.
    let streamed = events(&url, &body).await;
    let pieces = streamed
        .iter()
        .filter(|e| matches!(e, MessagesEvent::ContentBlockDelta { .. }))
        .count();
    assert!(pieces > 5, "the input in {pieces} pieces: {streamed:?}");
    let summed = added_up(&streamed);
    assert_eq!(
        without_ids(&summed)["content"],
        without_ids(&whole)["content"]
    );
    assert_eq!(summed.stop_reason, whole.stop_reason);
    // The same prompt again is read from the cache; the totals agree.
    let total =
        |m: &MessageResponse| m.usage.input_tokens + m.usage.cache_read_input_tokens.unwrap_or(0);
    assert_eq!(total(&summed), total(&whole));
    assert!(
        summed.usage.cache_read_input_tokens.unwrap() > 100,
        "{:?}",
        summed.usage
    );

    // A named tool.
    let named = ask(
        weather,
        json!({"type": "tool", "name": "get_current_wind_speed"}),
    );
    let whole = message(&url, &named).await;
    let made = calls(&whole);
    assert_eq!(made.len(), 1, "{whole:?}");
    assert_eq!(made[0].0, "get_current_wind_speed");
    let summed = added_up(&events(&url, &named).await);
    assert_eq!(without_ids(&summed), {
        let mut w = without_ids(&whole);
        w["usage"] = without_ids(&summed)["usage"].clone();
        w
    });

    // Two cities: two calls, or one with disable_parallel_tool_use.
    let two = "What's the temperature in Paris and in Tokyo, in celsius?";
    let both = calls(&message(&url, &ask(two, json!({"type": "any"}))).await);
    assert_eq!(both.len(), 2, "{both:?}");
    let one = message(
        &url,
        &ask(
            two,
            json!({"type": "any", "disable_parallel_tool_use": true}),
        ),
    )
    .await;
    assert_eq!(calls(&one), both[..1], "{one:?}");
    assert_eq!(one.stop_reason.as_ref().unwrap().as_str(), "tool_use");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_result_is_answered_from() {
    let url = serve().await;
    let mut body = ask(
        "What's the temperature in Paris right now?",
        json!({"type": "any"}),
    );
    let first = message(&url, &body).await;
    let content = serde_json::to_value(&first.content).unwrap();
    let id = content[0]["id"].as_str().unwrap().to_owned();
    let turns = body["messages"].as_array_mut().unwrap();
    turns.push(json!({"role": "assistant", "content": content}));
    turns.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": id, "content": [{"type": "text", "text": "22.0"}]}]}));
    body["tool_choice"] = json!({"type": "auto"});
    let answer = message(&url, &body).await;
    assert_eq!(answer.stop_reason.as_ref().unwrap().as_str(), "end_turn");
    assert!(text(&answer).contains("22"), "{answer:?}");
    assert!(calls(&answer).is_empty());
    assert!(
        answer.usage.cache_read_input_tokens.unwrap() > 100,
        "the conversation's prefix is reused: {:?}",
        answer.usage
    );
    // Streamed, the same text.
    let streamed = added_up(&events(&url, &body).await);
    assert_eq!(text(&streamed), text(&answer));
    assert_eq!(streamed.stop_reason, answer.stop_reason);
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_sequences_and_max_tokens_say_why_the_answer_ended() {
    let url = serve().await;
    let body = ask(
        "What's the temperature in Paris in celsius?",
        json!({"type": "none"}),
    );
    let whole = message(&url, &body).await;
    let said = text(&whole);
    assert_eq!(whole.stop_reason.as_ref().unwrap().as_str(), "end_turn");
    assert!(calls(&whole).is_empty());
    // A word from the middle of the answer ends it there.
    let words: Vec<&str> = said.split_whitespace().collect();
    assert!(words.len() >= 3, "{said}");
    let stop = words[words.len() / 2];
    let mut stopped = body.clone();
    stopped["stop_sequences"] = json!([stop]);
    for answer in [
        message(&url, &stopped).await,
        added_up(&events(&url, &stopped).await),
    ] {
        assert_eq!(
            answer.stop_reason.as_ref().unwrap().as_str(),
            "stop_sequence"
        );
        assert_eq!(answer.stop_sequence.as_deref(), Some(stop));
        assert!(
            said.starts_with(text(&answer).trim_end()),
            "{said:?} {answer:?}"
        );
        assert!(!text(&answer).contains(stop));
    }
    let mut short = body;
    short["max_tokens"] = json!(2);
    let answer = message(&url, &short).await;
    assert_eq!(answer.stop_reason.as_ref().unwrap().as_str(), "max_tokens");
    assert_eq!(answer.usage.output_tokens, 2);
}

/// Headers to send instead of the right key.
type Headers = &'static [(&'static str, &'static str)];

#[tokio::test(flavor = "multi_thread")]
async fn errors_come_in_anthropics_shape() {
    let url = serve().await;
    let user = json!([{"role": "user", "content": "Hi"}]);
    let call = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_current_wind_speed", "input": {"location": "Paris"}}]});
    let cases: Vec<(&str, Value, Headers, u16, &str, &str)> = vec![
        (
            "no max_tokens",
            json!({"model": "tool-use-mini", "messages": user}),
            &[],
            400,
            "invalid_request_error",
            "max_tokens",
        ),
        (
            "unknown tool_use_id",
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": "x"}, call,
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "3"}]}],
                "tools": tools()}),
            &[],
            400,
            "invalid_request_error",
            "messages[2].content[0].tool_use_id",
        ),
        (
            "an image",
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}]}]}),
            &[],
            400,
            "invalid_request_error",
            "messages[0].content[0].type: `image`",
        ),
        (
            "unknown model",
            json!({"model": "claude-9", "max_tokens": 8, "messages": user}),
            &[],
            404,
            "not_found_error",
            "claude-9",
        ),
        (
            "wrong x-api-key",
            json!({"max_tokens": 8, "messages": user}),
            &[("x-api-key", "sk-wrong")],
            401,
            "authentication_error",
            "incorrect API key",
        ),
        (
            "wrong bearer key",
            json!({"max_tokens": 8, "messages": user}),
            &[("authorization", "Bearer sk-wrong")],
            401,
            "authentication_error",
            "incorrect API key",
        ),
        (
            "no key",
            json!({"max_tokens": 8, "messages": user}),
            &[("anthropic-version", "2023-06-01")],
            401,
            "authentication_error",
            "x-api-key",
        ),
    ];
    for (what, body, headers, status, kind, needle) in cases {
        for stream in [false, true] {
            let mut body = body.clone();
            body["stream"] = json!(stream);
            let response = send(&url, &body.to_string(), headers).await;
            assert_eq!(response.status().as_u16(), status, "{what}");
            let text = response.text().await.unwrap();
            let json: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}: {text}"));
            assert_eq!(json["type"], "error", "{what}: {json}");
            assert_eq!(json["error"]["type"], kind, "{what}: {json}");
            let message = json["error"]["message"].as_str().unwrap();
            assert!(message.contains(needle), "{what}: {message}");
        }
    }
    // The key is accepted both ways.
    let bearer = format!("Bearer {KEY}");
    for header in [("x-api-key", KEY), ("authorization", bearer.as_str())] {
        let body = json!({"max_tokens": 2, "messages": user});
        let response = send(&url, &body.to_string(), &[header]).await;
        assert_eq!(response.status(), 200, "{header:?}");
    }
    // Unknown paths list this endpoint.
    let response = reqwest::get(format!("{url}/nothing")).await.unwrap();
    assert_eq!(response.status(), 404);
    assert!(response.text().await.unwrap().contains("POST /v1/messages"));
}
