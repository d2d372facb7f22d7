//! The weather conversation of transformers' tool-use guide, without a model:
//! the tools' definitions (made at compile time), a hand-written assistant
//! call dispatched through the toolbox, and the transcript. The agent loop on
//! the bundled model lands in a later release.

use serde_json::json;
use tool_use::{tool, toolbox, DefinitionFormat, Message, ToolCall};

/// Get the current temperature at a location.
///
/// Args:
///     location: The location to get the temperature for, in the format "City, Country"
///     unit: The unit to return the temperature in. (choices: ["celsius", "fahrenheit"])
///
/// Returns:
///     The current temperature at the specified location in the specified units, as a float.
#[tool]
fn get_current_temperature(location: String, unit: String) -> f64 {
    let _ = location;
    if unit == "fahrenheit" {
        71.6
    } else {
        22.0
    }
}

/// Get the current wind speed in km/h at a given location.
///
/// # Arguments
///
/// * `location` - The location to get the wind speed for, in the format "City, Country"
///
/// # Returns
///
/// The current wind speed at the given location in km/h, as a float.
#[tool]
fn get_current_wind_speed(location: &str) -> f64 {
    let _ = location;
    6.0
}

fn main() {
    let tools = toolbox![get_current_temperature, get_current_wind_speed];
    for definition in tools.definitions(DefinitionFormat::Transformers) {
        println!(
            "{}\n",
            serde_json::to_string_pretty(&definition).expect("JSON")
        );
    }

    let mut messages = vec![
        Message::system("You are a bot that responds to weather queries."),
        Message::user("Hey, what's the temperature in Paris right now?"),
    ];
    // What a model would answer; `tool-use chat` will generate it.
    let calls = vec![
        ToolCall::new(
            "call_1",
            "get_current_temperature",
            json!({"location": "Paris, France", "unit": "celsius"}),
        ),
        ToolCall::new(
            "call_2",
            "get_current_wind_speed",
            json!({"location": "Paris, France"}),
        ),
        ToolCall::new(
            "call_3",
            "get_current_temprature",
            json!({"location": "Paris, France"}),
        ),
    ];
    messages.push(Message::assistant_calls(None, calls.clone()));
    messages.extend(tools.call_all_blocking(&calls));

    for m in &messages {
        for call in &m.tool_calls {
            println!(
                "{:>9}: call {}({})",
                m.role.as_str(),
                call.name,
                call.arguments
            );
        }
        if let Some(text) = &m.content {
            println!("{:>9}: {text}", m.role.as_str());
        }
    }
}
