use proptest::prelude::*;
use serde_json::{json, Value};
use tool_runtime::{Message, Role as MessageRole, ToolCall, ToolChoice, ToolDefinition};

use super::*;

fn read(body: Value) -> Result<MessagesRequest, crate::wire::FieldError> {
    MessagesRequest::read(body.to_string().as_bytes())
}

fn weather() -> Value {
    json!({"name": "get_weather", "description": "Weather in a city.", "input_schema": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}})
}

#[test]
fn reads_a_whole_conversation_into_the_crates_terms() {
    let r = read(json!({
        "model": "m", "max_tokens": 64, "metadata": {"user_id": "u"}, "service_tier": "auto",
        "system": [{"type": "text", "text": "Be "}, {"type": "text", "text": "brief."}],
        "messages": [
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Two cities.", "signature": "sig"},
                {"type": "redacted_thinking", "data": "xyz"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {"city": "Oslo"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "22"},
                {"type": "tool_result", "tool_use_id": "toolu_b", "is_error": true,
                 "content": [{"type": "text", "text": "no such city"}]},
                {"type": "text", "text": "Thanks."}]}],
        "tools": [weather()],
        "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": true},
        "stop_sequences": ["END"], "temperature": 0.5, "top_p": 0.9, "top_k": 40, "stream": true
    }))
    .unwrap();
    assert!(r.stream);
    assert_eq!(r.stop_sequences, ["END"]);
    assert_eq!(r.top_k, Some(40));
    let c = r.conversation().unwrap();
    assert_eq!(c.messages[0], Message::system("Be brief."));
    assert_eq!(c.messages[1], Message::user("Weather in Paris and Oslo?"));
    let mut assistant = Message::assistant_calls(
        Some("Checking.".into()),
        vec![
            ToolCall::new("toolu_a", "get_weather", json!({"city": "Paris"})),
            ToolCall::new("toolu_b", "get_weather", json!({"city": "Oslo"})),
        ],
    );
    assistant.reasoning = Some("Two cities.".into());
    assert_eq!(c.messages[2], assistant);
    assert_eq!(c.messages[3], Message::tool("toolu_a", "get_weather", "22"));
    assert_eq!(
        c.messages[4],
        Message::tool("toolu_b", "get_weather", "Error: no such city")
    );
    assert_eq!(c.messages[5], Message::user("Thanks."));
    assert_eq!(c.messages.len(), 6);
    assert_eq!(c.tools[0].name(), "get_weather");
    assert_eq!(c.tools[0].description(), Some("Weather in a city."));
    assert_eq!(c.tool_choice, ToolChoice::Named("get_weather".into()));
    assert!(!c.parallel_tool_calls);
}

#[test]
fn tool_choices_map_to_the_crates() {
    for (choice, expected, parallel) in [
        (json!({"type": "auto"}), ToolChoice::Auto, true),
        (
            json!({"type": "auto", "disable_parallel_tool_use": true}),
            ToolChoice::Auto,
            false,
        ),
        (json!({"type": "any"}), ToolChoice::Required, true),
        (json!({"type": "none"}), ToolChoice::None, true),
        (json!(null), ToolChoice::Auto, true),
    ] {
        let c = read(
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": "x"}],
            "tools": [weather()], "tool_choice": choice}),
        )
        .unwrap()
        .conversation()
        .unwrap();
        assert_eq!((c.tool_choice, c.parallel_tool_calls), (expected, parallel));
    }
}

#[test]
fn every_mistake_names_its_field() {
    let user = json!([{"role": "user", "content": "Hi"}]);
    let call = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}]});
    for (body, path, needle) in [
        (json!({"messages": user}), "max_tokens", "required"),
        (
            json!({"max_tokens": 0, "messages": user}),
            "max_tokens",
            "at least 1",
        ),
        (
            json!({"max_tokens": "lots", "messages": user}),
            "max_tokens",
            "invalid type",
        ),
        (json!({"max_tokens": 8}), "messages", "required"),
        (
            json!({"max_tokens": 8, "messages": []}),
            "messages",
            "at least one",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "system", "content": "x"}]}),
            "messages[0].role",
            "unknown variant `system`",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image", "source": {"type": "base64", "data": ""}}]}]}),
            "messages[0].content[1].type",
            "`image` blocks are not supported",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": [
                {"type": "text"}]}]}),
            "messages[0].content[0].text",
            "required",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": 7}]}),
            "messages[0].content",
            "a string or a list of content blocks",
        ),
        (
            json!({"max_tokens": 8, "system": [{"type": "document"}], "messages": user}),
            "system[0].type",
            "`document`",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": "x"}, call,
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                    "content": [{"type": "image", "source": {}}]}]}]}),
            "messages[2].content[0].content[0].type",
            "`image`",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": "x"}, call,
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9"}]}]}),
            "messages[2].content[0].tool_use_id",
            "`toolu_9`",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": [
                {"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]}),
            "messages[0].content[0].type",
            "user turn",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": "x"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": [1]}]}]}),
            "messages[1].content[0].input",
            "an array",
        ),
        (
            json!({"max_tokens": 8, "messages": [{"role": "user", "content": "x"}, call,
                {"role": "user", "content": "y"}, call]}),
            "messages[3].content[0].id",
            "already used",
        ),
        (
            json!({"max_tokens": 8, "messages": user,
                "tools": [{"type": "web_search_20250305", "name": "web_search"}]}),
            "tools[0].type",
            "web_search_20250305",
        ),
        (
            json!({"max_tokens": 8, "messages": user, "tools": [{"name": "f"}]}),
            "tools[0].input_schema",
            "required",
        ),
        (
            json!({"max_tokens": 8, "messages": user,
                "tools": [{"name": "f", "input_schema": {"properties": {"a": {"type": 3}}}}]}),
            "tools[0].input_schema",
            "property `a`",
        ),
        (
            json!({"max_tokens": 8, "messages": user, "tools": [weather(), weather()]}),
            "tools[1].name",
            "two tools",
        ),
        (
            json!({"max_tokens": 8, "messages": user, "tools": [weather()],
                "tool_choice": {"type": "tool", "name": "nope"}}),
            "tool_choice.name",
            "get_weather",
        ),
        (
            json!({"max_tokens": 8, "messages": user, "tool_choice": {"type": "any"}}),
            "tool_choice",
            "none was offered",
        ),
        (
            json!({"max_tokens": 8, "messages": user, "tool_choice": {"type": "sometimes"}}),
            "tool_choice.type",
            "unknown variant `sometimes`",
        ),
        (
            json!({"max_tokens": 8, "messages": user, "temperature": 1.5}),
            "temperature",
            "between 0 and 1",
        ),
        (
            json!({"max_tokens": 8, "messages": user, "top_p": 0}),
            "top_p",
            "(0, 1]",
        ),
        (
            json!({"max_tokens": 8, "messages": user, "stop_sequences": ["a", ""]}),
            "stop_sequences[1]",
            "empty",
        ),
    ] {
        let e = read(body.clone())
            .and_then(|r| r.conversation().map(|_| r))
            .unwrap_err();
        assert_eq!(e.path, path, "{body}: {}", e.message);
        assert!(e.message.starts_with(path), "{body}: {}", e.message);
        assert!(e.message.contains(needle), "{body}: {}", e.message);
    }
}

#[test]
fn null_counts_as_absent() {
    let r = read(
        json!({"max_tokens": 8, "messages": [{"role": "user", "content": "x"}],
        "tools": null, "tool_choice": null, "stop_sequences": null, "stream": null,
        "system": null, "temperature": null}),
    )
    .unwrap();
    assert!(r.tools.is_empty() && !r.stream && r.system.is_none());
}

/// Messages has no `allowed_tools`: only the allowed tools are offered,
/// in the choice's mode.
#[test]
fn an_allowed_choice_offers_its_tools_only() {
    let tools = ToolDefinition::list_from_json(&[
        json!({"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}),
        json!({"type": "function", "function": {"name": "b", "parameters": {"type": "object"}}}),
    ])
    .unwrap();
    let allowed = ToolChoice::Allowed {
        tools: vec!["b".into()],
        required: true,
    };
    let request =
        MessagesRequest::from_conversation(&[Message::user("Go")], &tools, &allowed, true, 16);
    let body = serde_json::to_value(&request).unwrap();
    assert_eq!(body["tools"].as_array().unwrap().len(), 1);
    assert_eq!(body["tools"][0]["name"], "b");
    assert_eq!(body["tool_choice"], json!({"type": "any"}));
}

/// Messages takes JSON Schema proper: transformers' `nullable` (what
/// `#[tool]` writes for an `Option`) goes out as a `null` type, the
/// description kept, as MCP writes it; a tool without a description has
/// none on the wire.
#[test]
fn writes_an_optional_parameter_as_a_null_type() {
    let tools = ToolDefinition::list_from_json(&[json!({"type": "function", "function": {
        "name": "get_current_time", "parameters": {"type": "object", "properties": {
            "timezone": {"type": "string", "nullable": true, "description": "A city"}}}}})])
    .unwrap();
    let request = MessagesRequest::from_conversation(
        &[Message::user("Time?")],
        &tools,
        &ToolChoice::Auto,
        true,
        16,
    );
    let body = serde_json::to_value(&request).unwrap();
    assert_eq!(
        body["tools"],
        json!([{"name": "get_current_time", "input_schema": {"type": "object", "properties": {
            "timezone": {"type": ["string", "null"], "description": "A city"}}}}])
    );
}

#[test]
fn writes_tool_results_as_one_user_turn() {
    let tools = ToolDefinition::list_from_json(&[json!({"type": "function", "function": {
        "name": "get_weather", "parameters": {"type": "object"}, "return": {"type": "string"}}})])
    .unwrap();
    let messages = [
        Message::user("Paris and Oslo?"),
        Message::assistant_calls(
            None,
            vec![
                ToolCall::new("toolu_a", "get_weather", json!({"city": "Paris"})),
                // Kept as the model wrote it: not an object.
                ToolCall::new("toolu_b", "get_weather", json!("{city: Oslo")),
            ],
        ),
        Message::tool("toolu_a", "get_weather", "22"),
        Message::tool("toolu_b", "get_weather", "arguments are not JSON"),
        Message::user("And now?"),
        Message::system("Late instructions."),
    ];
    let r = MessagesRequest::from_conversation(&messages, &tools, &ToolChoice::Required, false, 99);
    let body = serde_json::to_value(&r).unwrap();
    assert_eq!(
        body,
        json!({
            "max_tokens": 99,
            "system": "Late instructions.",
            "messages": [
                {"role": "user", "content": "Paris and Oslo?"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content": "22"},
                    {"type": "tool_result", "tool_use_id": "toolu_b", "content": "arguments are not JSON"},
                    {"type": "text", "text": "And now?"}]}],
            "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "any", "disable_parallel_tool_use": true},
        })
    );
    // Without tools there is no tool_choice either.
    let r = MessagesRequest::from_conversation(&messages[..1], &[], &ToolChoice::Auto, true, 9);
    assert!(r.tool_choice.is_none() && r.tools.is_empty());
}

#[test]
fn stream_events_have_anthropics_shape() {
    let start = MessagesEvent::MessageStart {
        message: MessageResponse::empty(
            "msg_1",
            "m",
            Usage {
                input_tokens: 12,
                ..Usage::default()
            },
        ),
    };
    assert_eq!(start.name(), "message_start");
    assert_eq!(
        serde_json::to_value(&start).unwrap(),
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "model": "m", "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 12, "output_tokens": 0}}})
    );
    for (event, expected) in [
        (
            MessagesEvent::ContentBlockStart {
                index: 1,
                content_block: ContentBlock::ToolUse {
                    id: "toolu_1".into(),
                    name: "f".into(),
                    input: json!({}),
                },
            },
            json!({"type": "content_block_start", "index": 1, "content_block":
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}),
        ),
        (
            MessagesEvent::ContentBlockDelta {
                index: 1,
                delta: BlockDelta::InputJsonDelta {
                    partial_json: "{\"a\"".into(),
                },
            },
            json!({"type": "content_block_delta", "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": "{\"a\""}}),
        ),
        (
            MessagesEvent::MessageDelta {
                delta: MessageDelta {
                    stop_reason: Some(StopReason::StopSequence),
                    stop_sequence: Some("END".into()),
                },
                usage: DeltaUsage {
                    output_tokens: 3,
                    ..DeltaUsage::default()
                },
            },
            json!({"type": "message_delta", "delta": {"stop_reason": "stop_sequence",
                "stop_sequence": "END"}, "usage": {"output_tokens": 3}}),
        ),
        (MessagesEvent::MessageStop, json!({"type": "message_stop"})),
    ] {
        assert_eq!(serde_json::to_value(&event).unwrap(), expected);
        assert_eq!(
            serde_json::from_value::<MessagesEvent>(expected).unwrap(),
            event
        );
    }
    // What a newer API may add is read, and skipped by readers.
    let unknown: MessagesEvent =
        serde_json::from_value(json!({"type": "message_pause", "x": 1})).unwrap();
    assert_eq!(unknown, MessagesEvent::Unknown);
    let block: ContentBlock =
        serde_json::from_value(json!({"type": "server_tool_use", "id": "s"})).unwrap();
    assert_eq!(block, ContentBlock::Unsupported);
    let reason: StopReason = serde_json::from_value(json!("refusal")).unwrap();
    assert_eq!(reason, StopReason::Other("refusal".into()));
    assert_eq!(serde_json::to_value(&reason).unwrap(), "refusal");
}

#[test]
fn the_accumulator_refuses_events_out_of_order() {
    let mut acc = MessageAccumulator::new();
    let stop = MessagesEvent::ContentBlockStop { index: 0 };
    assert_eq!(
        acc.apply(&stop),
        Err(AccumulateError::BeforeStart("content_block_stop"))
    );
    acc.apply(&MessagesEvent::MessageStart {
        message: MessageResponse::empty("msg_1", "m", Usage::default()),
    })
    .unwrap();
    assert!(matches!(
        acc.apply(&stop),
        Err(AccumulateError::NoBlock { index: 0, .. })
    ));
    let error = MessagesEvent::Error {
        error: ErrorObject {
            kind: "overloaded_error".into(),
            message: "busy".into(),
        },
    };
    assert!(acc
        .apply(&error)
        .unwrap_err()
        .to_string()
        .contains("overloaded_error: busy"));
}

const TOOLS: [&str; 3] = ["get_weather", "search", "add"];

/// One assistant turn and the user turn after it.
#[derive(Debug, Clone)]
struct Exchange {
    text: Option<String>,
    calls: Vec<(usize, Value, bool)>,
    reply: Option<String>,
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ,.!?é\"{}]{1,16}"
}

fn input() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<i32>().prop_map(Value::from),
        text().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ];
    prop::collection::btree_map("[a-z]{1,6}", leaf, 0..3)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

fn exchange() -> impl Strategy<Value = Exchange> {
    (
        prop::option::of(text()),
        prop::collection::vec((0..TOOLS.len(), input(), any::<bool>()), 0..3),
        prop::option::of(text()),
    )
        .prop_map(|(text, calls, reply)| Exchange { text, calls, reply })
}

/// A request as a client writes one: turns alternate, every call is
/// answered in the next user turn.
fn request(
    system: Option<String>,
    first: String,
    exchanges: Vec<Exchange>,
    choice: usize,
    disable: bool,
) -> Value {
    let mut turns = vec![json!({"role": "user", "content": first})];
    for (i, x) in exchanges.iter().enumerate() {
        let mut said = Vec::new();
        let mut answered = Vec::new();
        if let Some(t) = &x.text {
            said.push(json!({"type": "text", "text": t}));
        }
        for (k, (tool, input, error)) in x.calls.iter().enumerate() {
            let id = format!("toolu_{i}_{k}");
            said.push(json!({"type": "tool_use", "id": id, "name": TOOLS[*tool], "input": input}));
            answered.push(json!({"type": "tool_result", "tool_use_id": id,
                "content": format!("result {k}"), "is_error": error}));
        }
        if said.is_empty() {
            said.push(json!({"type": "text", "text": "…"}));
        }
        if let Some(t) = &x.reply {
            answered.push(json!({"type": "text", "text": t}));
        }
        if answered.is_empty() {
            answered.push(json!({"type": "text", "text": "go on"}));
        }
        turns.push(json!({"role": "assistant", "content": said}));
        turns.push(json!({"role": "user", "content": answered}));
    }
    let tools: Vec<Value> = TOOLS
        .iter()
        .map(|name| {
            json!({"name": name, "description": format!("The {name} tool."),
            "input_schema": {"type": "object", "properties": {}}})
        })
        .collect();
    let choice = match choice {
        0 => json!({"type": "auto", "disable_parallel_tool_use": disable}),
        1 => json!({"type": "any", "disable_parallel_tool_use": disable}),
        2 => json!({"type": "tool", "name": "search", "disable_parallel_tool_use": disable}),
        _ => json!({"type": "none"}),
    };
    let mut body = json!({"model": "m", "max_tokens": 512, "messages": turns,
        "tools": tools, "tool_choice": choice});
    if let Some(system) = system {
        body["system"] = json!(system);
    }
    body
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Request → crate terms → request → crate terms keeps the messages,
    /// the calls with their ids and arguments, the results, the tools and
    /// the choice.
    #[test]
    fn a_request_survives_the_round_trip(
        system in prop::option::of(text()),
        first in text(),
        exchanges in prop::collection::vec(exchange(), 0..4),
        choice in 0usize..4,
        disable in any::<bool>(),
    ) {
        let body = request(system.clone(), first, exchanges.clone(), choice, disable);
        let read_once = read(body).unwrap().conversation().unwrap();

        // What the first reading kept.
        let calls: Vec<&ToolCall> = read_once.messages.iter().flat_map(|m| &m.tool_calls).collect();
        prop_assert_eq!(calls.len(), exchanges.iter().map(|x| x.calls.len()).sum::<usize>());
        let results: Vec<&Message> =
            read_once.messages.iter().filter(|m| m.role == MessageRole::Tool).collect();
        prop_assert_eq!(results.len(), calls.len());
        for (call, result) in calls.iter().zip(&results) {
            prop_assert_eq!(result.tool_call_id.as_deref(), Some(call.id.as_str()));
            prop_assert_eq!(result.name.as_deref(), Some(call.name.as_str()));
        }
        prop_assert_eq!(read_once.messages[0].role, if system.is_some() { MessageRole::System } else { MessageRole::User });
        prop_assert_eq!(read_once.tools.len(), TOOLS.len());

        let written = MessagesRequest::from_conversation(
            &read_once.messages,
            &read_once.tools,
            &read_once.tool_choice,
            read_once.parallel_tool_calls,
            512,
        );
        let wire = serde_json::to_vec(&written).unwrap();
        let read_twice = MessagesRequest::read(&wire).unwrap().conversation().unwrap();
        prop_assert_eq!(read_twice, read_once);
    }
}
