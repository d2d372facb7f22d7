//! FunctionGemma's format end to end on a tiny random model: its
//! declarations rendered as FunctionGemma's documentation shows them, the
//! format told from the template, calls constrained to
//! `<start_function_call>call:name{…}<end_function_call>`, read back with
//! the tool's types, run, and their results rendered as
//! `<start_function_response>` blocks the next round continues from.
//!
//! The template (`tests/data/functiongemma_format.jinja`) is this project's
//! writing of the documented format; FunctionGemma's own template is not
//! among the shared fixtures.

#[path = "common/own_format.rs"]
mod own_format;

use own_format::OwnFormat;
use serde_json::json;
use tool_use::model::tiny::TinySpec;
use tool_use::parse::Format;
use tool_use::template::{ChatTemplate, RenderOptions};
use tool_use::Message;

const TEMPLATE: &str = include_str!("data/functiongemma_format.jinja");

#[test]
fn the_template_declares_tools_as_functiongemmas_documentation_shows() {
    // The documentation's example tool, and its rendering there.
    let tool = json!({"type": "function", "function": {
        "name": "get_current_weather",
        "description": "Gets the current weather in a given location.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. \"San Francisco, CA\" or \"Tokyo, JP\""},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "The unit to return the temperature in."}
            },
            "required": ["location"]
        }
    }});
    let documented = "<start_function_declaration>declaration:get_current_weather{description:<escape>Gets the current weather in a given location.<escape>,parameters:{properties:{location:{description:<escape>The city and state, e.g. \"San Francisco, CA\" or \"Tokyo, JP\"<escape>,type:<escape>STRING<escape>},unit:{description:<escape>The unit to return the temperature in.<escape>,enum:[<escape>celsius<escape>,<escape>fahrenheit<escape>],type:<escape>STRING<escape>}},required:[<escape>location<escape>],type:<escape>OBJECT<escape>}}<end_function_declaration>";
    let template = ChatTemplate::new(TEMPLATE).unwrap();
    let messages = [Message::user("What's the weather in Tokyo?")];
    let text = template
        .render(
            &RenderOptions::new(&messages)
                .tools(&[tool])
                .add_generation_prompt(true),
        )
        .unwrap()
        .text;
    assert_eq!(
        text,
        format!(
            "<start_of_turn>developer\nYou are a model that can do function calling with the following functions{documented}<end_of_turn>\n<start_of_turn>user\nWhat's the weather in Tokyo?<end_of_turn>\n<start_of_turn>model\n"
        )
    );
}

#[test]
fn the_agent_calls_reads_and_answers_in_functiongemmas_format() {
    OwnFormat {
        format: Format::FunctionGemma,
        template: TEMPLATE,
        // The tiny writer's Llama.
        spec: TinySpec::llama,
        after_result: |result| {
            format!("<start_function_response>response:convert_currency{{value:<escape>{result}<escape>}}<end_function_response>")
        },
        written_call: |prompt| {
            let body = (prompt.split("<start_function_call>call:convert_currency").nth(1))
                .and_then(|s| s.split("<end_function_call>").next())
                .unwrap();
            format!("<start_function_call>call:convert_currency{body}<end_function_call>")
        },
    }
    .assert_round_trip(0..4);
}
