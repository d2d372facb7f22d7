//! Reading OpenAI-compatible engines' answers: each engine's quirks, the
//! failures a stream can end in, and a property test that however a stream
//! is cut, the calls are the same.

use proptest::prelude::*;
use serde_json::{json, Value};
use tool_models::parse::StreamEvent;
use tool_models::remote::{
    chat_request, ChunkMerger, Completion, RemoteError, RequestOptions, Usage,
};
use tool_runtime::{InvalidToolCall, Message, ToolCall, ToolChoice, ToolDefinition};

/// What a whole stream amounts to.
#[derive(Debug, Default, PartialEq)]
struct Turn {
    content: String,
    reasoning: String,
    calls: Vec<ToolCall>,
    invalid: Vec<InvalidToolCall>,
    /// Per call (by event index): the arguments text streamed before its end.
    streamed_arguments: Vec<String>,
    completion: Completion,
}

fn collect(events: Vec<StreamEvent>, turn: &mut Turn) {
    for event in events {
        match event {
            StreamEvent::Content(s) => turn.content.push_str(&s),
            StreamEvent::Reasoning(s) => turn.reasoning.push_str(&s),
            StreamEvent::ToolCallStart { index, .. } => {
                assert_eq!(index, turn.streamed_arguments.len(), "calls start in order");
                turn.streamed_arguments.push(String::new());
            }
            StreamEvent::ToolCallArguments { index, delta } => {
                turn.streamed_arguments[index].push_str(&delta)
            }
            StreamEvent::ToolCallEnd { call, .. } => turn.calls.push(call),
            StreamEvent::InvalidToolCall(bad) => turn.invalid.push(bad),
        }
    }
}

/// Feeds `payloads` (SSE `data:` texts) and finishes.
fn stream(payloads: &[String]) -> Result<Turn, RemoteError> {
    let mut merger = ChunkMerger::new();
    let mut turn = Turn::default();
    for data in payloads {
        collect(merger.feed(data)?, &mut turn);
    }
    let (rest, completion) = merger.finish()?;
    collect(rest, &mut turn);
    turn.completion = completion;
    Ok(turn)
}

fn chunk(delta: Value) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    .to_string()
}

fn finish(reason: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}).to_string()
}

fn call_fragment(index: Option<u64>, id: Option<&str>, name: Option<&str>, args: Value) -> String {
    let mut function = serde_json::Map::new();
    if let Some(name) = name {
        function.insert("name".into(), json!(name));
    }
    if !args.is_null() {
        function.insert("arguments".into(), args);
    }
    let mut fragment = json!({"type": "function", "function": function});
    if let Some(i) = index {
        fragment["index"] = json!(i);
    }
    if let Some(id) = id {
        fragment["id"] = json!(id);
    }
    chunk(json!({"tool_calls": [fragment]}))
}

/// A call's first fragment: its index, id and name, and the first of its
/// arguments.
fn call_start(index: u64, id: &str, name: &str, args: Value) -> String {
    call_fragment(Some(index), Some(id), Some(name), args)
}

fn done() -> String {
    "[DONE]".into()
}

#[test]
fn vllm_fragments_of_parallel_calls_merge_by_index() {
    let payloads = vec![
        chunk(json!({"role": "assistant", "content": ""})),
        chunk(json!({"content": "Let me check "})),
        chunk(json!({"content": "both."})),
        call_start(0, "call_a", "get_weather", json!("")),
        call_fragment(Some(0), None, None, json!("{\"city\": ")),
        call_start(1, "call_b", "get_time", json!("{\"zone\"")),
        call_fragment(Some(0), None, None, json!("\"Paris\"}")),
        call_fragment(Some(1), None, None, json!(": \"CET\"}")),
        finish("tool_calls"),
        json!({"choices": [], "usage": {"prompt_tokens": 31, "completion_tokens": 12,
               "prompt_tokens_details": {"cached_tokens": 16}}})
        .to_string(),
        done(),
    ];
    let turn = stream(&payloads).unwrap();
    assert_eq!(turn.content, "Let me check both.");
    assert_eq!(
        turn.calls,
        [
            ToolCall::new("call_a", "get_weather", json!({"city": "Paris"})),
            ToolCall::new("call_b", "get_time", json!({"zone": "CET"})),
        ]
    );
    assert_eq!(
        turn.streamed_arguments,
        ["{\"city\": \"Paris\"}", "{\"zone\": \"CET\"}"]
    );
    assert_eq!(turn.completion.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        turn.completion.usage,
        Some(Usage {
            prompt_tokens: 31,
            completion_tokens: 12,
            cached_tokens: Some(16)
        })
    );
    assert_eq!(turn.completion.model.as_deref(), Some("m"));
}

#[test]
fn ollama_sends_each_call_whole_at_index_0_and_says_stop() {
    let payloads = vec![
        call_start(0, "call_1", "get_weather", json!("{\"city\":\"Paris\"}")),
        call_start(0, "call_2", "get_weather", json!("{\"city\":\"Rome\"}")),
        finish("stop"),
        done(),
    ];
    let turn = stream(&payloads).unwrap();
    assert_eq!(
        turn.calls,
        [
            ToolCall::new("call_1", "get_weather", json!({"city": "Paris"})),
            ToolCall::new("call_2", "get_weather", json!({"city": "Rome"})),
        ]
    );
    // `stop` with calls: the calls count, not the finish reason.
    assert_eq!(turn.completion.finish_reason.as_deref(), Some("stop"));
}

#[test]
fn arguments_as_an_object_or_empty_are_read() {
    let payloads = vec![
        // TGI and some llama.cpp builds: an object, not JSON text.
        call_start(0, "a", "f", json!({"x": [1, 2], "y": null})),
        // "" means no arguments.
        call_start(1, "b", "g", json!("")),
        // No arguments key at all.
        call_start(2, "c", "h", Value::Null),
        // Arguments encoded twice: a JSON string holding the object.
        call_start(3, "d", "k", json!("\"{\\\"z\\\": true}\"")),
        finish("tool_calls"),
    ];
    let turn = stream(&payloads).unwrap();
    assert_eq!(
        turn.calls,
        [
            ToolCall::new("a", "f", json!({"x": [1, 2], "y": null})),
            ToolCall::new("b", "g", json!({})),
            ToolCall::new("c", "h", json!({})),
            ToolCall::new("d", "k", json!({"z": true})),
        ]
    );
    assert!(turn.invalid.is_empty());
}

#[test]
fn fragments_without_an_index_continue_the_last_call_until_a_new_id() {
    let payloads = vec![
        call_fragment(None, Some("a"), Some("f"), json!("{\"x\":")),
        call_fragment(None, None, None, json!(" 1}")),
        call_fragment(None, Some("b"), Some("g"), json!("{}")),
        finish("tool_calls"),
    ];
    let turn = stream(&payloads).unwrap();
    assert_eq!(
        turn.calls,
        [
            ToolCall::new("a", "f", json!({"x": 1})),
            ToolCall::new("b", "g", json!({})),
        ]
    );
}

#[test]
fn malformed_calls_become_invalid_calls_and_the_stream_goes_on() {
    let payloads = vec![
        call_start(0, "a", "f", json!("{\"x\": 1,,}")),
        call_start(1, "b", "g", json!("[1, 2]")),
        call_fragment(Some(2), Some("c"), None, json!("{}")),
        call_start(3, "d", "ok", json!("{\"fine\": true}")),
        chunk(json!({"content": "after"})),
        finish("tool_calls"),
        done(),
    ];
    let turn = stream(&payloads).unwrap();
    assert_eq!(
        turn.calls,
        [ToolCall::new("d", "ok", json!({"fine": true}))]
    );
    assert_eq!(turn.content, "after");
    let errors: Vec<(&str, &str)> = turn
        .invalid
        .iter()
        .map(|i| (i.id.as_deref().unwrap(), i.error.as_str()))
        .collect();
    assert_eq!(errors.len(), 3);
    assert!(errors[0].1.contains("not valid JSON"), "{errors:?}");
    assert_eq!(
        turn.invalid[0].raw_arguments.as_deref(),
        Some("{\"x\": 1,,}")
    );
    assert!(errors[1].1.contains("found an array"), "{errors:?}");
    assert!(errors[2].1.contains("no name"), "{errors:?}");
}

#[test]
fn a_call_cut_off_by_the_token_limit_is_an_invalid_call() {
    let payloads = vec![
        call_start(0, "a", "f", json!("{\"text\": \"a long")),
        finish("length"),
        done(),
    ];
    let turn = stream(&payloads).unwrap();
    assert!(turn.calls.is_empty());
    assert_eq!(turn.invalid.len(), 1);
    assert_eq!(turn.completion.finish_reason.as_deref(), Some("length"));
}

#[test]
fn reasoning_arrives_under_either_name() {
    let payloads = vec![
        chunk(json!({"reasoning_content": "First, "})),
        chunk(json!({"reasoning": "think."})),
        chunk(json!({"content": "Done.", "reasoning_content": null})),
        finish("stop"),
    ];
    let turn = stream(&payloads).unwrap();
    assert_eq!(turn.reasoning, "First, think.");
    assert_eq!(turn.content, "Done.");
}

#[test]
fn an_error_chunk_under_http_200_is_an_engine_error_with_its_message() {
    let mut merger = ChunkMerger::new();
    merger.feed(&chunk(json!({"content": "Hi"}))).unwrap();
    let err = merger
        .feed(r#"{"error": {"message": "the model crashed", "type": "server_error", "code": 500}}"#)
        .unwrap_err();
    assert_eq!(err, RemoteError::Engine("the model crashed".into()));
    let err = ChunkMerger::new()
        .feed(r#"{"error": "context length exceeded"}"#)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the engine reported an error: context length exceeded"
    );
}

#[test]
fn a_stream_without_done_but_with_a_finish_reason_is_complete() {
    let payloads = vec![chunk(json!({"content": "Hello"})), finish("stop")];
    assert_eq!(stream(&payloads).unwrap().content, "Hello");
}

#[test]
fn a_dropped_connection_is_a_truncated_stream() {
    let payloads = vec![
        chunk(json!({"content": "Hel"})),
        call_start(0, "a", "f", json!("{\"x\"")),
    ];
    let err = stream(&payloads).unwrap_err();
    assert!(matches!(err, RemoteError::Truncated { .. }), "{err}");
    assert!(err.to_string().contains("2 chunks"), "{err}");
    assert!(err.to_string().contains("1 still open"), "{err}");
}

#[test]
fn text_that_is_not_a_chunk_is_a_clear_error() {
    let mut merger = ChunkMerger::new();
    for (data, says) in [
        ("{not json", "stream chunk"),
        ("[1, 2]", "a JSON object"),
        (r#"{"choices": 3}"#, "choices: invalid type: integer `3`"),
        (
            r#"{"choices": [{"index": 0, "delta": "text"}]}"#,
            "choices[0].delta: invalid type: string",
        ),
        (
            r#"{"choices": [{"index": 0, "delta": {"tool_calls": {}}}]}"#,
            "choices[0].delta.tool_calls: invalid type: object, expected a list",
        ),
    ] {
        let err = merger.feed(data).unwrap_err().to_string();
        assert!(err.contains(says), "{data}: {err}");
    }
    // Blank payloads and other choices are ignored.
    assert!(merger.feed("  ").unwrap().is_empty());
    let other = r#"{"choices": [{"index": 1, "delta": {"content": "other"}}]}"#;
    assert!(merger.feed(other).unwrap().is_empty());
}

#[test]
fn a_whole_response_reads_as_its_stream_does() {
    let body = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Checking.", "reasoning_content": "Paris, then Rome.",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                {"id": "b", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Rome"}}},
                {"id": "c", "type": "function", "function": {"name": "get_weather", "arguments": "{"}}
            ]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    });
    let mut merger = ChunkMerger::new();
    let mut turn = Turn::default();
    collect(merger.feed_response(&body.to_string()).unwrap(), &mut turn);
    let (rest, completion) = merger.finish().unwrap();
    assert!(rest.is_empty());
    assert_eq!(turn.content, "Checking.");
    assert_eq!(turn.reasoning, "Paris, then Rome.");
    assert_eq!(
        turn.calls,
        [
            ToolCall::new("a", "get_weather", json!({"city": "Paris"})),
            ToolCall::new("b", "get_weather", json!({"city": "Rome"})),
        ]
    );
    assert_eq!(turn.invalid.len(), 1);
    assert_eq!(completion.usage.unwrap().prompt_tokens, 10);

    let err = ChunkMerger::new()
        .feed_response(r#"{"error": {"message": "no such model"}}"#)
        .unwrap_err();
    assert_eq!(err, RemoteError::Engine("no such model".into()));
}

#[test]
fn a_request_carries_the_conversation_as_the_api_wants_it() {
    let call = ToolCall::new("call_1", "get_weather", json!({"city": "Paris"}));
    // An unreadable call stays the text the model wrote.
    let bad = ToolCall::new("call_2", "get_weather", json!("{\"city\": "));
    let messages = [
        Message::system("Be brief."),
        Message::user("Weather in Paris?"),
        Message::assistant_calls(Some("Checking.".into()), vec![call, bad]),
        Message::tool("call_1", "get_weather", "21.3"),
        Message::tool(
            "call_2",
            "get_weather",
            "Error: arguments are not valid JSON",
        ),
    ];
    let options = RequestOptions {
        temperature: Some(0.2),
        max_tokens: Some(64),
        seed: Some(7),
        stop: vec!["\n\n".into()],
        parallel_tool_calls: Some(false),
        ..RequestOptions::default()
    };
    let tools = ToolDefinition::list_from_json(&[
        json!({"type": "function", "function": {"name": "get_weather", "parameters": {}}}),
    ])
    .unwrap();
    let body = chat_request(
        "m",
        &messages,
        &tools,
        &ToolChoice::Required,
        &options,
        false,
    );
    assert_eq!(
        body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": "Checking.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": "}}
                ]},
                {"role": "tool", "content": "21.3", "tool_call_id": "call_1"},
                {"role": "tool", "content": "Error: arguments are not valid JSON", "tool_call_id": "call_2"}
            ],
            "tools": tools,
            "tool_choice": "required",
            "parallel_tool_calls": false,
            "temperature": 0.2,
            "max_tokens": 64,
            "seed": 7,
            "stop": ["\n\n"]
        })
    );
    // Without tools, no tool_choice is sent (engines reject it alone).
    let body = chat_request(
        "m",
        &messages[..2],
        &[],
        &ToolChoice::Auto,
        &RequestOptions::default(),
        false,
    );
    assert!(body.get("tool_choice").is_none() && body.get("tools").is_none());
}

/// A stream of `calls` and `content` the way vLLM or Ollama would send it,
/// cut where `cuts` says.
fn render_stream(
    content: &str,
    calls: &[ToolCall],
    cuts: &[usize],
    ollama: bool,
    object_arguments: bool,
) -> Vec<String> {
    let mut cut = cuts.iter().copied().cycle();
    let mut pieces = |text: &str| -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        let mut at = 0;
        while at < chars.len() {
            let n = cut.next().unwrap_or(1).max(1);
            let end = (at + n).min(chars.len());
            out.push(chars[at..end].iter().collect());
            at = end;
        }
        out
    };
    let mut payloads: Vec<String> = pieces(content)
        .into_iter()
        .map(|p| chunk(json!({"content": p})))
        .collect();
    for (i, call) in calls.iter().enumerate() {
        let index = if ollama { 0 } else { i as u64 };
        if ollama || object_arguments {
            let args = if object_arguments {
                call.arguments.clone()
            } else {
                json!(call.arguments.to_string())
            };
            payloads.push(call_start(index, &call.id, &call.name, args));
            continue;
        }
        payloads.push(call_start(index, &call.id, &call.name, json!("")));
        for piece in pieces(&call.arguments.to_string()) {
            payloads.push(call_fragment(Some(index), None, None, json!(piece)));
        }
    }
    payloads.push(finish(if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }));
    payloads.push(done());
    payloads
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[a-zA-Z0-9 \"\\\\é{}\\[\\],:]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,5}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_calls() -> impl Strategy<Value = Vec<ToolCall>> {
    prop::collection::vec(
        (
            "[a-z_]{1,10}",
            prop::collection::btree_map("[a-z]{1,6}", arb_value(), 0..4),
        ),
        0..4,
    )
    .prop_map(|calls| {
        calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, args))| {
                ToolCall::new(
                    format!("call_{i}x"),
                    name,
                    Value::Object(args.into_iter().collect()),
                )
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn however_a_stream_is_cut_the_calls_are_the_same(
        content in "[a-zA-Z .,!é]{0,40}",
        calls in arb_calls(),
        cuts in prop::collection::vec(1usize..9, 1..6),
        style in 0u8..3,
    ) {
        let payloads = render_stream(&content, &calls, &cuts, style == 1, style == 2);
        let turn = stream(&payloads).unwrap();
        prop_assert_eq!(&turn.content, &content);
        prop_assert_eq!(&turn.calls, &calls);
        prop_assert!(turn.invalid.is_empty());
        // What streamed is what ended.
        for (streamed, call) in turn.streamed_arguments.iter().zip(&calls) {
            let parsed: Value = if streamed.is_empty() {
                json!({})
            } else {
                serde_json::from_str(streamed).unwrap()
            };
            prop_assert_eq!(&parsed, &call.arguments);
        }
    }
}
