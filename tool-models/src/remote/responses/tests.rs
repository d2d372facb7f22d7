use super::*;
use crate::remote::test_support::{joined, read_events};
use crate::remote::Api;
use serde_json::json;
use tool_runtime::{Message, ToolChoice, ToolDefinition};

/// The output a stream below builds: reasoning, text, two calls (the
/// second's arguments not JSON).
fn output() -> Value {
    json!([
        {"type": "reasoning", "id": "rs_1", "summary": [], "status": "completed",
            "content": [{"type": "reasoning_text", "text": "Two cities."}]},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Checking both.", "annotations": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "get_weather",
            "arguments": "{\"city\": \"Paris\"}", "status": "completed"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "get_weather",
            "arguments": "{\"city\": Tok", "status": "completed"},
    ])
}

fn response(status: &str, output: Value) -> Value {
    json!({"id": "resp_1", "object": "response", "created_at": 1, "status": status, "model": "m",
        "output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": 40, "input_tokens_details": {"cached_tokens": 32, "cache_write_tokens": 0},
            "output_tokens": 12, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 52}})
}

/// The stream of `output()`, as this crate's server sends it.
fn recorded() -> Vec<Value> {
    let items = output();
    let begun = |i: usize| {
        let mut item = items[i].clone();
        item["status"] = json!("in_progress");
        match item["type"].as_str().unwrap() {
            "function_call" => item["arguments"] = json!(""),
            _ => item["content"] = json!([]),
        }
        item
    };
    let mut events = vec![
        json!({"type": "response.created", "response": response("in_progress", json!([]))}),
        json!({"type": "response.in_progress", "response": response("in_progress", json!([]))}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": begun(0)}),
        json!({"type": "response.content_part.added", "item_id": "rs_1", "output_index": 0, "content_index": 0, "part": {"type": "reasoning_text", "text": ""}}),
        json!({"type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 0, "delta": "Two "}),
        json!({"type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 0, "delta": "cities."}),
        json!({"type": "response.reasoning_text.done", "item_id": "rs_1", "output_index": 0, "content_index": 0, "text": "Two cities."}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": items[0]}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": begun(1)}),
        json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "Checking ", "logprobs": []}),
        json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "both.", "logprobs": []}),
        json!({"type": "response.output_text.done", "item_id": "msg_1", "output_index": 1, "content_index": 0, "text": "Checking both.", "logprobs": []}),
        json!({"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 1}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": items[1]}),
    ];
    for (i, pieces) in [
        (2, ["{\"city\": ", "\"Paris\"}"]),
        (3, ["{\"city\": ", "Tok"]),
    ] {
        events.push(
            json!({"type": "response.output_item.added", "output_index": i, "item": begun(i)}),
        );
        for p in pieces {
            events.push(json!({"type": "response.function_call_arguments.delta", "item_id": items[i]["id"], "output_index": i, "delta": p}));
        }
        events.push(json!({"type": "response.function_call_arguments.done", "item_id": items[i]["id"], "output_index": i, "arguments": items[i]["arguments"]}));
        events.push(
            json!({"type": "response.output_item.done", "output_index": i, "item": items[i]}),
        );
    }
    events.push(json!({"type": "response.completed", "response": response("completed", items)}));
    for (n, e) in events.iter_mut().enumerate() {
        e["sequence_number"] = json!(n);
    }
    events
}

fn read_stream(events: &[Value]) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
    let pairs = events
        .iter()
        .map(|e| (e["type"].as_str().unwrap(), e.to_string()));
    read_events(Api::Responses.reader(), pairs)
}

fn read_whole(body: &Value) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
    let mut reader = ResponsesReader::new();
    let mut out = reader.feed_response(&body.to_string())?;
    let (rest, completion) = reader.finish()?;
    out.extend(rest);
    Ok((out, completion))
}

#[test]
fn streamed_and_whole_give_the_same_events() {
    let (streamed, completion) = read_stream(&recorded()).unwrap();
    let (whole, whole_completion) = read_whole(&response("completed", output())).unwrap();
    assert_eq!(joined(streamed.clone()), joined(whole));
    assert_eq!(completion, whole_completion);
    let streamed = joined(streamed);
    assert_eq!(streamed[0], StreamEvent::Reasoning("Two cities.".into()));
    assert_eq!(streamed[1], StreamEvent::Content("Checking both.".into()));
    assert_eq!(
        streamed[2],
        StreamEvent::ToolCallStart {
            index: 0,
            id: "call_a".into(),
            name: "get_weather".into()
        }
    );
    let StreamEvent::ToolCallEnd { index: 0, call } = &streamed[4] else {
        panic!("{streamed:?}")
    };
    assert_eq!(
        (call.id.as_str(), &call.arguments),
        ("call_a", &json!({"city": "Paris"}))
    );
    // Unreadable arguments are the model's mistake, not the stream's.
    let StreamEvent::InvalidToolCall(invalid) = streamed.last().unwrap() else {
        panic!("{streamed:?}")
    };
    assert_eq!(invalid.raw_arguments.as_deref(), Some("{\"city\": Tok"));
    assert_eq!(completion.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(completion.model.as_deref(), Some("m"));
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 40,
            completion_tokens: 12,
            cached_tokens: Some(32)
        })
    );
}

#[test]
fn a_stream_cut_short_is_truncated_and_failures_are_engine_errors() {
    let events = recorded();
    let cut = &events[..events.len() - 3];
    let e = read_stream(cut).unwrap_err();
    assert!(
        matches!(&e, RemoteError::Truncated { received } if received.contains("1 still open")),
        "{e}"
    );

    let mut failing = events[..4].to_vec();
    failing.push(json!({"type": "error", "sequence_number": 4, "code": "server_error", "message": "out of memory", "param": null}));
    let e = read_stream(&failing).unwrap_err();
    assert_eq!(
        e,
        RemoteError::Engine("out of memory (server_error)".into())
    );

    let mut failed = response("failed", json!([]));
    failed["error"] = json!({"code": "server_error", "message": "boom"});
    let e = read_stream(&[
        json!({"type": "response.failed", "sequence_number": 0, "response": failed}),
    ])
    .unwrap_err();
    assert_eq!(e, RemoteError::Engine("boom (server_error)".into()));
    assert_eq!(read_whole(&failed).unwrap_err(), e);

    let e = read_whole(&json!({"error": {"message": "bad key", "type": "authentication_error"}}))
        .unwrap_err();
    assert_eq!(e, RemoteError::Engine("bad key".into()));
    let e = ResponsesReader::new()
        .feed("response.output_item.added", "{nope")
        .unwrap_err();
    assert!(matches!(e, RemoteError::Malformed { .. }), "{e}");
}

#[test]
fn the_limit_the_event_name_and_a_bare_completed_event() {
    let mut cut = response(
        "incomplete",
        json!([{"type": "message", "id": "m", "role": "assistant",
        "status": "incomplete", "content": [{"type": "output_text", "text": "Par", "annotations": []}]}]),
    );
    cut["incomplete_details"] = json!({"reason": "max_output_tokens"});
    // Only the final event: its output is read.
    let mut reader = ResponsesReader::new();
    let data = json!({"sequence_number": 0, "response": cut}).to_string();
    let events = reader.feed("response.incomplete", &data).unwrap();
    assert_eq!(events, [StreamEvent::Content("Par".into())]);
    let (_, completion) = reader.finish().unwrap();
    assert_eq!(completion.finish_reason.as_deref(), Some("length"));
    assert_eq!(
        read_whole(&response("completed", json!([])))
            .unwrap()
            .1
            .finish_reason
            .as_deref(),
        Some("stop")
    );
}

#[test]
fn the_request_body() {
    let tools = ToolDefinition::list_from_json(&[json!({"type": "function", "function": {
        "name": "get_weather", "description": "Weather.", "parameters": {"type": "object"},
        "return": {"type": "string"}}})])
    .unwrap();
    let messages = [Message::user("Weather in Paris?")];
    let choice = ToolChoice::Named("get_weather".into());
    let request = TurnRequest::new(&messages, &tools, &choice);
    let mut extra = Map::new();
    extra.insert("temperature".into(), json!(0.2));
    extra.insert("reasoning".into(), json!({"effort": "low"}));
    let options = RequestOptions {
        temperature: Some(0.7),
        max_tokens: Some(64),
        seed: Some(1),
        stop: vec!["END".into()],
        parallel_tool_calls: Some(false),
        response_format: Some(ResponseFormat::JsonSchema {
            name: "w".into(),
            schema: json!({"type": "object"}),
            strict: true,
        }),
        extra,
        ..RequestOptions::default()
    };
    let body = responses_request("gpt-x", &request, &options, true);
    assert_eq!(
        body,
        json!({
            "model": "gpt-x",
            "input": [{"type": "message", "role": "user", "content": "Weather in Paris?"}],
            "tools": [{"type": "function", "name": "get_weather", "description": "Weather.",
                "parameters": {"type": "object"}}],
            "tool_choice": {"type": "function", "name": "get_weather"},
            "parallel_tool_calls": false,
            "text": {"format": {"type": "json_schema", "name": "w", "schema": {"type": "object"}, "strict": true}},
            "max_output_tokens": 64,
            "temperature": 0.2,
            "stream": true,
            "store": false,
            "reasoning": {"effort": "low"},
        })
    );
    // What the server reads back is the same turn.
    let read = crate::wire::responses::read_request(body.to_string().as_bytes()).unwrap();
    let asked = read.asked(&[], &[]).unwrap();
    assert_eq!(asked.messages, messages);
    assert_eq!(asked.tool_choice, ToolChoice::Named("get_weather".into()));
    let plain = responses_request(
        "m",
        &TurnRequest {
            tools: &[],
            ..request
        },
        &RequestOptions::default(),
        false,
    );
    assert_eq!(
        plain,
        json!({"model": "m", "input": [{"type": "message", "role": "user", "content": "Weather in Paris?"}], "store": false})
    );
}
