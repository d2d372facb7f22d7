use super::*;
use crate::wire::{read, read_value};
use proptest::prelude::*;
use tool_runtime::{Message, ToolCall};

#[test]
fn requests_read_and_write_the_same_fields() {
    let body = json!({
        "model": "m", "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
        "tool_choice": "required", "parallel_tool_calls": false,
        "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": {"type": "object"}, "strict": true}},
        "max_tokens": 9, "temperature": 0.5, "top_p": 0.9, "seed": 3, "stop": ["a", "b"],
        "stream": true, "stream_options": {"include_usage": true}
    });
    let request: Request = read_value(body.clone()).unwrap();
    assert_eq!(serde_json::to_value(&request).unwrap(), body);
    assert_eq!(request.token_limit(), Some(9));
    assert!(request.include_usage());
}

#[test]
fn null_is_absent_and_unknown_fields_are_ignored() {
    let r: Request = read_value(json!({"messages": [{"role": "user", "content": "x"}],
        "tools": null, "stop": null, "seed": null, "logit_bias": {}, "user": "u"}))
    .unwrap();
    assert!(r.tools.is_empty() && r.stop.is_none() && r.seed.is_none());
}

#[test]
fn mistakes_name_their_field() {
    for (body, path, needle) in [
        (json!({"messages": "hi"}), "messages", "expected a list"),
        (json!({}), "messages", "messages: this field is required"),
        (
            json!({"messages": [{"role": "king"}]}),
            "messages[0].role",
            "king",
        ),
        (
            json!({"messages": [], "max_tokens": 0}),
            "max_tokens",
            "positive integer, found 0",
        ),
        (
            json!({"messages": [], "temperature": "hot"}),
            "temperature",
            "string",
        ),
        (
            json!({"messages": [], "stop": 3}),
            "stop",
            "a string or a list of strings",
        ),
        (
            json!({"messages": [], "seed": 1.5}),
            "seed",
            "an integer, found 1.5",
        ),
        (
            json!({"messages": [], "tools": [{"type": "custom", "function": {"name": "f"}}]}),
            "tools[0].type",
            "unknown variant `custom`",
        ),
        (
            json!({"messages": [], "response_format": {"type": "xml"}}),
            "response_format",
            "json_schema",
        ),
        (
            json!({"messages": [{"role": "user", "content": 3}]}),
            "messages[0].content",
            "found an integer",
        ),
    ] {
        let e = read_value::<Request>(body.clone()).unwrap_err();
        assert_eq!(e.path, path, "{body}: {}", e.message);
        assert!(e.message.contains(needle), "{body}: {}", e.message);
    }
    assert!(read::<Request>(b"[1]").is_err());
}

#[test]
fn definitions_are_checked() {
    let tool = |name: &str, parameters: Value| json!({"type": "function", "function": {"name": name, "parameters": parameters}});
    let r: Request = read_value(json!({"messages": [], "tools": [
        tool("f", json!({"type": "object"})), tool("f", json!({"type": "object"}))]}))
    .unwrap();
    let e = r.definitions().unwrap_err();
    assert_eq!(e.path, "tools[1]");
    assert!(e.message.contains("two tools"), "{}", e.message);
}

#[test]
fn answers_read_back_what_the_server_writes() {
    let message = WireMessage::from(&Message::assistant_calls(
        Some("Checking.".into()),
        vec![ToolCall::new("c1", "f", json!({"a": [1, 2]}))],
    ));
    let completion = Completion {
        id: "chatcmpl-1".into(),
        object: "chat.completion".into(),
        created: 1,
        model: "m".into(),
        choices: vec![Choice {
            index: 0,
            message,
            logprobs: None,
            finish_reason: Some("tool_calls".into()),
        }],
        usage: Some(Usage::from(crate::chat::Usage {
            prompt_tokens: 10,
            completion_tokens: 2,
            cached_tokens: Some(4),
        })),
    };
    let text = serde_json::to_string(&completion).unwrap();
    let back: Completion = serde_json::from_str(&text).unwrap();
    assert_eq!(back, completion);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["choices"][0]["logprobs"], Value::Null);
    assert_eq!(v["usage"]["total_tokens"], 12);
    assert_eq!(v["usage"]["prompt_tokens_details"]["cached_tokens"], 4);
    let message: Message = serde_json::from_value(v["choices"][0]["message"].clone()).unwrap();
    assert_eq!(
        message.tool_calls,
        vec![ToolCall::new("c1", "f", json!({"a": [1, 2]}))]
    );
}

#[test]
fn engines_quirks_are_read() {
    let chunk: Chunk = serde_json::from_value(json!({"choices": [{"delta": {
        "reasoning": "hm", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}}]}))
    .unwrap();
    let delta = &chunk.choices[0].delta;
    assert_eq!(delta.reasoning_content.as_deref(), Some("hm"));
    assert_eq!(delta.tool_calls[0].index, None);
    let f = delta.tool_calls[0].function.as_ref().unwrap();
    assert_eq!(f.arguments.as_deref(), Some(r#"{"a":1}"#));
}

fn text() -> impl Strategy<Value = String> {
    "[ -~é\n\"\\\\]{0,12}"
}

proptest! {
    /// What the client writes, the server reads back the same.
    #[test]
    fn conversations_survive_the_wire(
        user in text(),
        said in proptest::option::of(text()),
        args in proptest::collection::btree_map("[a-z]{1,5}", any::<i64>(), 0..4),
        result in text(),
    ) {
        let call = ToolCall::new("c1", "f", json!(args));
        let conversation = vec![
            Message::system("s"),
            Message::user(user),
            Message::assistant_calls(said, vec![call]),
            Message::tool("c1", "f", result),
        ];
        let request = Request {
            messages: conversation.clone(),
            ..Request::default()
        };
        let text = serde_json::to_vec(&request).unwrap();
        let back: Request = read(&text).unwrap();
        let mut expected = conversation;
        // The tool's name is not part of the wire form.
        expected[3].name = None;
        prop_assert_eq!(back.messages, expected);
    }
}
