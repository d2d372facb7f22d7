//! The weather conversation of transformers' tool-use guide, end to end
//! without a model: `#[tool]` definitions and a toolbox-dispatched call,
//! rendered through every real chat template in the shared fixtures, must give
//! exactly the prompt transformers renders for the same conversation.

#[path = "common/fixtures.rs"]
mod fixtures;
#[path = "common/weather.rs"]
mod weather;

use serde_json::{json, Value};
use tool_use::template::{ChatTemplate, Clock, DateTime};
use tool_use::{tool, toolbox, DefinitionFormat, Message, ToolCall};
use weather::get_current_temperature;

/// Get the current wind speed in km/h at a given location.
///
/// Args:
///     location: The location to get the wind speed for, in the format "City, Country"
// No return value: the fixtures were made from a Python function without a
// return annotation, so its definition has no `return`.
#[tool]
fn get_current_wind_speed(location: String) {
    let _ = location;
}

#[test]
fn round_trip_renders_as_transformers_does() {
    let Some(fixtures) = fixtures::dir("chat-templates") else {
        return;
    };
    let cases = std::fs::read_to_string(fixtures.join("cases.jsonl"))
        .unwrap_or_else(|e| panic!("chat-template fixtures not found under {fixtures:?}: {e}"));
    let toolbox = toolbox![get_current_temperature, get_current_wind_speed];
    let tools = toolbox.definitions(DefinitionFormat::Transformers);

    // The conversation, built with the runtime's types and dispatched by the toolbox.
    let call = ToolCall::new(
        "call_0001",
        "get_current_temperature",
        json!({"location": "Paris, France", "unit": "celsius"}),
    );
    let mut messages = vec![
        Message::system("You are a bot that responds to weather queries."),
        Message::user("Hey, what's the temperature in Paris right now?"),
        Message::assistant_calls(Some(String::new()), vec![call.clone()]),
    ];
    messages.push(toolbox.call_blocking(&call));
    assert_eq!(messages[3].text(), "22.0");

    let mut checked = 0;
    for line in cases.lines() {
        let case: Value = serde_json::from_str(line).expect("fixture line is JSON");
        if case["case"] != "tool_round_trip" || case.get("expected").is_none() {
            continue;
        }
        let kwargs = &case["kwargs"];
        assert_eq!(
            kwargs["tools"],
            json!(tools),
            "our definitions are the fixture's"
        );
        let mut ours = kwargs.clone();
        ours["messages"] = serde_json::to_value(&messages).unwrap();
        let name = case["template"].as_str().unwrap();
        let source = std::fs::read_to_string(fixtures.join("templates").join(name)).unwrap();
        // The fixtures froze `strftime_now` at this instant.
        let frozen = DateTime::parse("2026-01-15T10:30:00").unwrap();
        let template = ChatTemplate::new(&source)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .with_clock(Clock::Fixed(frozen));
        let prompt = template
            .render_json(&ours)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(prompt, case["expected"].as_str().unwrap(), "{name}");
        checked += 1;
    }
    assert!(
        checked >= 15,
        "only {checked} templates rendered the round trip"
    );
}
