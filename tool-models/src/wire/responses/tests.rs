use proptest::prelude::*;
use serde_json::{json, Value};
use tool_runtime::{Message, ToolCall, ToolChoice};

use super::*;

fn read(body: Value) -> Result<CreateResponse, FieldError> {
    read_request(body.to_string().as_bytes())
}

fn weather() -> Value {
    json!({"type": "function", "name": "get_weather", "description": "Weather.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "strict": true})
}

#[test]
fn reads_a_full_request() {
    let r = read(json!({
        "model": "m", "instructions": "Be brief.",
        "input": [
            {"role": "developer", "content": "Use celsius."},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather in "}, {"type": "input_text", "text": "Paris?"}]},
            {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}", "id": "fc_1"},
            {"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_text", "text": "22"}]},
        ],
        "tools": [weather()], "tool_choice": {"type": "function", "name": "get_weather"},
        "parallel_tool_calls": false, "max_output_tokens": 7, "temperature": 0.5, "top_p": 0.9,
        "stream": true, "store": false, "metadata": {"k": "v"}, "user": "u", "reasoning": {"effort": "low"},
        "text": {"format": {"type": "json_schema", "name": "w", "schema": {"type": "object"}}},
        "truncation": "disabled", "include": null
    }))
    .unwrap();
    assert_eq!(r.stream, Some(true));
    assert_eq!(r.store, Some(false));
    let asked = r.asked(&[], &[]).unwrap();
    assert_eq!(asked.instructions, 1);
    assert_eq!(
        asked.messages,
        vec![
            Message::system("Be brief."),
            Message::system("Use celsius."),
            Message::user("Weather in Paris?"),
            Message::assistant_calls(
                None,
                vec![ToolCall::new("c1", "get_weather", json!({"city": "Paris"}))]
            ),
            Message::tool("c1", "get_weather", "22"),
        ]
    );
    assert_eq!(asked.tool_choice, ToolChoice::Named("get_weather".into()));
    assert_eq!(asked.tools[0].name(), "get_weather");
    assert_eq!(asked.tools[0]["function"]["strict"], true);
    assert_eq!(asked.answer_schema, Some(json!({"type": "object"})));
}

#[test]
fn allowed_tools_read_checked_and_written_back() {
    let wind = json!({"type": "function", "name": "get_wind", "parameters": {"type": "object"}});
    let choice = json!({"type": "allowed_tools", "mode": "required",
        "tools": [{"type": "function", "name": "get_wind"}]});
    let r =
        read(json!({"input": "Hi", "tools": [weather(), wind], "tool_choice": choice})).unwrap();
    let asked = r.asked(&[], &[]).unwrap();
    let allowed = ToolChoice::Allowed {
        tools: vec!["get_wind".into()],
        required: true,
    };
    assert_eq!(asked.tool_choice, allowed);
    // Every tool stays offered, the list goes back in the API's own form.
    let written = CreateResponse::from_turn("m", &asked.messages, &asked.tools, &allowed);
    let body = serde_json::to_value(&written).unwrap();
    assert_eq!(body["tools"].as_array().unwrap().len(), 2);
    assert_eq!(body["tool_choice"], choice);

    let unknown = json!({"type": "allowed_tools", "mode": "auto",
        "tools": [{"type": "function", "name": "get_rain"}]});
    let r = read(json!({"input": "Hi", "tools": [weather()], "tool_choice": unknown})).unwrap();
    let e = r.asked(&[], &[]).unwrap_err();
    assert_eq!(e.path, "tool_choice");
    assert!(
        e.message
            .starts_with("tool_choice: unknown tool `get_rain`"),
        "the field is named once: {}",
        e.message
    );
}

#[test]
fn a_string_input_is_a_user_message_and_null_is_absent() {
    let r = read(json!({"input": "Hi", "tools": null, "tool_choice": null, "text": null})).unwrap();
    let asked = r.asked(&[], &[]).unwrap();
    assert_eq!(asked.messages, vec![Message::user("Hi")]);
    assert_eq!(asked.tool_choice, ToolChoice::Auto);
    assert!(asked.tools.is_empty());
}

#[test]
fn names_the_field_at_fault() {
    let user = json!({"role": "user", "content": "x"});
    for (body, path, needle) in [
        (json!({"input": 3}), "input", "a string or a list"),
        (
            json!({"input": [user, {"type": "function_call", "name": "f", "arguments": "{}"}]}),
            "input[1].call_id",
            "input[1].call_id: this field is required",
        ),
        (
            json!({"input": [user, {"type": "function_call", "call_id": 5, "name": "f"}]}),
            "input[1].call_id",
            "expected a string",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_text", "text": "a"}, {"type": "input_text"}]}]}),
            "input[0].content[1].text",
            "this field is required",
        ),
        (
            json!({"input": [user, {"type": "item_reference", "id": "x"}]}),
            "input[1].type",
            "unknown variant `item_reference`",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "u"}]}]}),
            "input[0].content[0].type",
            "unknown variant `input_image`",
        ),
        (
            json!({"input": [{"role": "king", "content": "x"}]}),
            "input[0].role",
            "unknown variant `king`",
        ),
        (
            json!({"input": "x", "tool_choice": "sometimes"}),
            "tool_choice",
            "found \"sometimes\"",
        ),
        (
            json!({"input": "x", "tool_choice": {"type": "file_search"}}),
            "tool_choice",
            "found type \"file_search\"",
        ),
        (
            json!({"input": "x", "text": {"format": {"type": "xml"}}}),
            "text.format.type",
            "unknown variant `xml`",
        ),
        (
            json!({"input": "x", "max_output_tokens": -1}),
            "max_output_tokens",
            "invalid value",
        ),
    ] {
        let e = read(body.clone()).unwrap_err();
        assert_eq!(e.path, path, "{body}: {}", e.message);
        assert!(e.message.contains(needle), "{body}: {}", e.message);
    }
}

#[test]
fn conversions_name_the_field_at_fault() {
    let call =
        json!({"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"});
    for (body, path, needle) in [
        (
            json!({"input": [{"role": "user", "content": "x"}, call, {"type": "function_call_output", "call_id": "c1", "output": "1"},
                {"type": "function_call_output", "call_id": "c2", "output": "2"}]}),
            "input[3].call_id",
            "no function_call with call_id \"c2\"",
        ),
        (
            json!({"input": "x", "tools": [weather(), {"type": "web_search"}]}),
            "tools[1].type",
            "found \"web_search\"",
        ),
        (
            json!({"input": "x", "tools": [{"type": "function"}]}),
            "tools[0].name",
            "non-empty name",
        ),
        (
            json!({"input": "x", "tools": [weather(), weather()]}),
            "tools[1]",
            "two tools",
        ),
        (
            json!({"input": "x", "tools": [{"type": "function", "name": "f", "parameters": {"properties": {"a": {"type": 3}}}}]}),
            "tools[0]",
            "property `a`",
        ),
        (
            json!({"input": "x", "tool_choice": "required"}),
            "tool_choice",
            "none was offered",
        ),
        (
            json!({"input": "x", "tools": [weather()], "tool_choice": {"type": "function", "name": "nope"}}),
            "tool_choice",
            "get_weather",
        ),
        (
            json!({"input": "x", "text": {"format": {"type": "json_schema", "name": "s", "schema": {"type": 7}}}}),
            "text.format.schema",
            "not a JSON schema",
        ),
        (json!({"input": []}), "input", "empty"),
        (
            json!({"input": "x", "temperature": -0.5}),
            "temperature",
            ">= 0",
        ),
        (json!({"input": "x", "top_p": 0}), "top_p", "(0, 1]"),
        (
            json!({"input": "x", "max_output_tokens": 0}),
            "max_output_tokens",
            "positive",
        ),
    ] {
        let e = read(body.clone()).unwrap().asked(&[], &[]).unwrap_err();
        assert_eq!(e.path, path, "{body}: {}", e.message);
        assert!(e.message.contains(needle), "{body}: {}", e.message);
        assert!(e.message.starts_with(path), "{}", e.message);
    }
}

#[test]
fn a_continued_response_supplies_calls_and_tools() {
    let earlier = vec![
        Message::user("Weather?"),
        Message::assistant_calls(
            None,
            vec![ToolCall::new("c1", "get_weather", json!({"city": "Paris"}))],
        ),
    ];
    let tools = read(json!({"input": "x", "tools": [weather()]}))
        .unwrap()
        .tool_definitions()
        .unwrap();
    let r = read(
        json!({"instructions": "Brief.", "previous_response_id": "resp_1",
        "input": [{"type": "function_call_output", "call_id": "c1", "output": "22"}],
        "tool_choice": "required"}),
    )
    .unwrap();
    let asked = r.asked(&earlier, &tools).unwrap();
    assert_eq!(asked.messages[0], Message::system("Brief."));
    assert_eq!(asked.messages[1..3], earlier[..]);
    assert_eq!(asked.messages[3], Message::tool("c1", "get_weather", "22"));
    assert_eq!(asked.tools, tools);
    let e = r.asked(&earlier[..1], &tools).unwrap_err();
    assert!(e.message.contains("previous response"), "{}", e.message);
}

#[test]
fn text_calls_and_reasoning_make_one_assistant_turn() {
    let items: Vec<Item> = serde_json::from_value(json!([
        {"type": "message", "role": "user", "content": "Weather in Paris and Tokyo?"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "Two cities."}]},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
        {"type": "function_call", "call_id": "a", "name": "w", "arguments": "{\"city\":\"Paris\"}"},
        {"type": "function_call", "call_id": "b", "name": "w", "arguments": "{oops"},
        {"type": "function_call_output", "call_id": "b", "output": "20"},
        {"type": "function_call_output", "call_id": "a", "output": "22"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "dropped"}]},
        {"type": "message", "role": "user", "content": "Thanks"},
    ]))
    .unwrap();
    let messages = messages_from_items(&items, &[], "input").unwrap();
    assert_eq!(messages.len(), 5, "{messages:?}");
    let turn = &messages[1];
    assert_eq!(turn.content.as_deref(), Some("Checking."));
    assert_eq!(turn.reasoning.as_deref(), Some("Two cities."));
    assert_eq!(turn.tool_calls.len(), 2);
    assert_eq!(turn.tool_calls[1].arguments, json!("{oops"));
    assert_eq!(messages[2], Message::tool("b", "w", "20"));
    assert_eq!(messages[4], Message::user("Thanks"));
    // Back to items: the unreadable arguments go back as they were.
    let back = items_from_messages(&messages);
    let Item::FunctionCall(call) = &back[3] else {
        panic!("{back:?}")
    };
    assert_eq!(call.arguments, "{oops");
}

#[test]
fn from_turn_writes_the_api_form() {
    let tools = read(json!({"input": "x", "tools": [weather()]}))
        .unwrap()
        .tool_definitions()
        .unwrap();
    let messages = [
        Message::system("Be brief."),
        Message::user("Weather?"),
        Message::assistant_calls(
            Some("Checking.".into()),
            vec![ToolCall::new("c1", "get_weather", json!({"city": "Paris"}))],
        ),
        Message::tool("c1", "get_weather", "22"),
    ];
    let r = CreateResponse::from_turn(
        "m",
        &messages,
        &tools,
        &ToolChoice::Named("get_weather".into()),
    );
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({
            "model": "m",
            "input": [
                {"type": "message", "role": "system", "content": "Be brief."},
                {"type": "message", "role": "user", "content": "Weather?"},
                {"type": "message", "role": "assistant", "content": "Checking."},
                {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
                {"type": "function_call_output", "call_id": "c1", "output": "22"},
            ],
            "tools": [weather()],
            "tool_choice": {"type": "function", "name": "get_weather"},
        })
    );
}

#[test]
fn responses_and_events_carry_what_clients_require() {
    let response: Response = serde_json::from_value(json!({"id": "resp_1", "output": [
        {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "22", "annotations": []}]}]}))
    .unwrap();
    assert_eq!(response.output_text(), "22");
    let json = serde_json::to_value(&response).unwrap();
    for field in [
        "id",
        "object",
        "created_at",
        "model",
        "output",
        "parallel_tool_calls",
        "tool_choice",
        "tools",
        "text",
        "error",
        "incomplete_details",
        "metadata",
    ] {
        assert!(json.get(field).is_some(), "{field} missing: {json}");
    }
    assert_eq!(json["object"], "response");
    assert_eq!(json["tool_choice"], "auto");

    let event = Sequenced {
        sequence_number: 3,
        event: ResponseEvent::FunctionCallArgumentsDelta {
            item_id: "fc_1".into(),
            output_index: 0,
            delta: "{".into(),
        },
    };
    let json = serde_json::to_value(&event).unwrap();
    assert_eq!(json["type"], event.event.kind());
    assert_eq!(json["sequence_number"], 3);
    assert_eq!(serde_json::from_value::<Sequenced>(json).unwrap(), event);
    let other: Sequenced = serde_json::from_value(
        json!({"type": "response.output_text.annotation.added", "sequence_number": 9}),
    )
    .unwrap();
    assert_eq!(other.event, ResponseEvent::Other);
}

fn text() -> impl Strategy<Value = String> {
    "[a-z ]{0,8}"
}

/// Items a client may send (reasoning aside: it is not sent back).
fn item(calls: usize) -> impl Strategy<Value = Value> {
    prop_oneof![
        (prop_oneof![Just("user"), Just("system"), Just("developer"), Just("assistant")], text())
            .prop_map(|(role, text)| json!({"role": role, "content": text})),
        text().prop_map(|text| json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]})),
        (0..calls, prop_oneof![Just("{\"a\":1}"), Just(""), Just("{bad")]).prop_map(
            |(n, args)| json!({"type": "function_call", "call_id": format!("c{n}"), "name": format!("f{n}"), "arguments": args})
        ),
    ]
}

proptest! {
    /// Request → messages → request → messages: the same conversation,
    /// tools and choice; outputs answer the calls before them.
    #[test]
    fn round_trips_through_the_crates_terms(
        items in proptest::collection::vec(item(3), 1..8),
        outputs in proptest::collection::vec((0usize..8, text()), 0..4),
        instructions in proptest::option::of(text()),
        choice in prop_oneof![Just(json!("auto")), Just(json!("required")), Just(json!("none")),
            Just(json!({"type": "function", "name": "get_weather"}))],
    ) {
        let mut items = items;
        // An output after its call.
        for (at, result) in outputs {
            let at = at % (items.len() + 1);
            let called = items[..at].iter().rev().find(|i| i["type"] == "function_call").cloned();
            if let Some(call) = called {
                items.insert(at, json!({"type": "function_call_output", "call_id": call["call_id"], "output": result}));
            }
        }
        let body = json!({"model": "m", "input": items, "instructions": instructions,
            "tools": [weather()], "tool_choice": choice});
        let first = read(body).unwrap().asked(&[], &[]).unwrap();
        let again = CreateResponse::from_turn("m", &first.messages, &first.tools, &first.tool_choice);
        let json = serde_json::to_vec(&again).unwrap();
        let second = read_request(&json).unwrap().asked(&[], &[]).unwrap();
        prop_assert_eq!(&second.messages, &first.messages);
        prop_assert_eq!(&second.tools, &first.tools);
        prop_assert_eq!(&second.tool_choice, &first.tool_choice);
        prop_assert_eq!(second.instructions, 0);
    }
}
