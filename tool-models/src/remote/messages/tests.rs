use serde_json::{json, Value};
use tool_runtime::{Message, ToolCall, ToolChoice, ToolDefinition};

use super::*;
use crate::remote::test_support::{self, read_events};
use crate::remote::{Api, ResponseFormat};
use crate::wire::messages::MessageAccumulator;

fn tools() -> Vec<ToolDefinition> {
    ToolDefinition::list_from_json(&[json!({"type": "function", "function": {
        "name": "get_weather", "description": "Weather.", "strict": true,
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        "return": {"type": "string"}}})])
    .unwrap()
}

#[test]
fn writes_a_turn_as_the_messages_api_takes_it() {
    let messages = [
        Message::system("Be brief."),
        Message::user("Weather in Paris?"),
        Message::assistant_calls(
            None,
            vec![ToolCall::new(
                "toolu_1",
                "get_weather",
                json!({"city": "Paris"}),
            )],
        ),
        Message::tool("toolu_1", "get_weather", "22"),
    ];
    let tools = tools();
    let choice = ToolChoice::Named("get_weather".into());
    let turn = TurnRequest::new(&messages, &tools, &choice);
    let mut options = RequestOptions {
        temperature: Some(0.5),
        seed: Some(7),
        stop: vec!["END".into(), String::new()],
        parallel_tool_calls: Some(false),
        ..RequestOptions::default()
    };
    options.extra.insert("top_k".into(), json!(20));
    let body = messages_request("claude-x", &turn, &options, true).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "claude-x", "max_tokens": DEFAULT_MAX_TOKENS, "system": "Be brief.",
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
                    "name": "get_weather", "input": {"city": "Paris"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                    "content": "22"}]}],
            "tools": [{"name": "get_weather", "description": "Weather.", "input_schema":
                {"type": "object", "properties": {"city": {"type": "string"}}}}],
            "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": true},
            "stop_sequences": ["END"], "temperature": 0.5, "stream": true, "top_k": 20,
        })
    );
    // What the server reads back is the conversation sent.
    let read = MessagesRequest::read(body.to_string().as_bytes())
        .unwrap()
        .conversation()
        .unwrap();
    assert_eq!(read.messages, messages);

    options.max_tokens = Some(64);
    options.response_format = Some(ResponseFormat::JsonObject);
    let e = messages_request("claude-x", &turn, &options, false).unwrap_err();
    assert!(matches!(e, RemoteError::Unsupported(_)), "{e}");
    assert!(e.to_string().contains("response_format"), "{e}");
    options.response_format = None;
    let body = messages_request("claude-x", &turn, &options, false).unwrap();
    assert_eq!(body["max_tokens"], 64);
    assert!(body.get("stream").is_none() && body.get("seed").is_none());
}

/// A streamed answer as Anthropic sends it: reasoning, text, two calls
/// with their input in pieces, and what a reader must skip.
const STREAM: &[(&str, &str)] = &[
    (
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":30,"cache_read_input_tokens":70,"cache_creation_input_tokens":0,"output_tokens":1}}}"#,
    ),
    ("ping", r#"{"type": "ping"}"#),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Two cities."}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#,
    ),
    (
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    ),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking "}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"both."}}"#,
    ),
    (
        "content_block_stop",
        r#"{"type":"content_block_stop","index":1}"#,
    ),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Pa"}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"ris\"}"}}"#,
    ),
    (
        "content_block_stop",
        r#"{"type":"content_block_stop","index":2}"#,
    ),
    ("future_event", r#"{"type":"future_event","anything":[1]}"#),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_b","name":"get_weather","input":{}}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Oslo\"}"}}"#,
    ),
    (
        "content_block_stop",
        r#"{"type":"content_block_stop","index":3}"#,
    ),
    (
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":41}}"#,
    ),
    ("message_stop", r#"{"type":"message_stop"}"#),
];

fn streamed(events: &[(&str, &str)]) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
    read_events(Api::Messages.reader(), events.iter().copied())
}

/// The events with the pieces of each text and each call's input joined,
/// which is all that differs between a streamed and a whole answer (a
/// call's input is compared as JSON, which the pieces may space apart).
fn joined(events: Vec<StreamEvent>) -> Vec<StreamEvent> {
    let mut out = test_support::joined(events);
    for event in &mut out {
        if let StreamEvent::ToolCallArguments { delta, .. } = event {
            *delta = serde_json::from_str::<Value>(delta).unwrap().to_string();
        }
    }
    out
}

#[test]
fn reads_a_stream_and_a_whole_answer_alike() {
    let (events, completion) = streamed(STREAM).unwrap();
    assert_eq!(events[0], StreamEvent::Reasoning("Two cities.".into()));
    assert_eq!(events[1], StreamEvent::Content("Checking ".into()));
    assert_eq!(
        events[3],
        StreamEvent::ToolCallStart {
            index: 0,
            id: "toolu_a".into(),
            name: "get_weather".into()
        }
    );
    let arguments: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallArguments { index: 0, delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(arguments, r#"{"city": "Paris"}"#);
    let ends: Vec<&ToolCall> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallEnd { call, .. } => Some(call),
            _ => None,
        })
        .collect();
    assert_eq!(
        ends,
        [
            &ToolCall::new("toolu_a", "get_weather", json!({"city": "Paris"})),
            &ToolCall::new("toolu_b", "get_weather", json!({"city": "Oslo"}))
        ]
    );
    assert_eq!(completion.finish_reason.as_deref(), Some("tool_use"));
    assert_eq!(completion.model.as_deref(), Some("claude-x"));
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 100,
            completion_tokens: 41,
            cached_tokens: Some(70)
        })
    );

    // The same answer whole: the message the stream adds up to.
    let mut acc = MessageAccumulator::new();
    for (_, data) in STREAM {
        acc.apply(&serde_json::from_str(data).unwrap()).unwrap();
    }
    let body = serde_json::to_string(&acc.finish().unwrap()).unwrap();
    let mut reader = MessagesReader::new();
    let mut whole = reader.feed_response(&body).unwrap();
    let (rest, whole_completion) = reader.finish().unwrap();
    whole.extend(rest);
    assert_eq!(joined(whole), joined(events));
    assert_eq!(whole_completion, completion);
}

#[test]
fn unreadable_input_is_an_invalid_call_not_an_error() {
    let mut events: Vec<(&str, &str)> = STREAM[..11].to_vec();
    events.push((
        "content_block_delta",
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": Par"}}"#,
    ));
    events.extend_from_slice(&STREAM[14..15]);
    events.extend_from_slice(&STREAM[19..]);
    let (out, _) = streamed(&events).unwrap();
    let Some(StreamEvent::InvalidToolCall(invalid)) = out.last() else {
        panic!("{out:?}")
    };
    assert_eq!(invalid.name.as_deref(), Some("get_weather"));
    assert_eq!(invalid.raw_arguments.as_deref(), Some("{\"city\": Par"));
}

#[test]
fn a_cut_stream_an_error_event_and_garbage_are_errors() {
    // Cut before message_delta: the open call is not passed off as whole.
    let e = streamed(&STREAM[..14]).unwrap_err();
    assert!(matches!(e, RemoteError::Truncated { .. }), "{e}");
    assert!(e.to_string().contains("1 still open"), "{e}");
    // Without message_stop, message_delta is enough.
    assert!(streamed(&STREAM[..STREAM.len() - 1]).is_ok());

    let mut reader = MessagesReader::new();
    let e = reader
        .feed(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
        .unwrap_err();
    assert_eq!(
        e,
        RemoteError::Engine("overloaded_error: Overloaded".into())
    );
    let e = reader.feed("error", "upstream gone").unwrap_err();
    assert_eq!(e, RemoteError::Engine("upstream gone".into()));
    let e = reader.feed("message_start", "{not json").unwrap_err();
    assert!(e.to_string().contains("Messages stream event"), "{e}");
    let e = reader
        .feed(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"x"}}"#,
        )
        .unwrap_err();
    assert!(e.to_string().contains("block 5"), "{e}");

    let e = MessagesReader::new()
        .feed_response(
            r#"{"type":"error","error":{"type":"not_found_error","message":"no model"}}"#,
        )
        .unwrap_err();
    assert_eq!(e, RemoteError::Engine("no model".into()));
    let e = MessagesReader::new()
        .feed_response(r#"{"content": 3}"#)
        .unwrap_err();
    assert!(e.to_string().contains("Messages response"), "{e}");
}

#[test]
fn blocks_the_crate_has_no_use_for_are_skipped() {
    let body = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
            {"type": "text", "text": "Done."}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 3, "output_tokens": 2}});
    let mut reader = MessagesReader::new();
    let events = reader.feed_response(&body.to_string()).unwrap();
    assert_eq!(events, [StreamEvent::Content("Done.".into())]);
    let (rest, completion) = reader.finish().unwrap();
    assert!(rest.is_empty());
    assert_eq!(completion.finish_reason.as_deref(), Some("end_turn"));
    assert_eq!(completion.usage.unwrap().cached_tokens, None);
}
