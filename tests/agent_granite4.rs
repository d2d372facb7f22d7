//! Granite 4's format end to end on a tiny random hybrid Granite 4 (Mamba-2
//! layers around an attention layer): its tools listed as IBM's prompt
//! format lists them, the format told from the template (Hermes), calls
//! constrained to `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`,
//! read back with the tool's types, run, and their results rendered in
//! `<tool_response>` user turns for the next round.
//!
//! The template (`tests/data/granite4_format.jinja`) is this project's
//! writing of the documented format; Granite 4's own template is not among
//! the shared fixtures.

#[path = "common/own_format.rs"]
mod own_format;

use own_format::{render_sample, OwnFormat};
use serde_json::json;
use tool_use::model::tiny::TinySpec;
use tool_use::parse::Format;

const TEMPLATE: &str = include_str!("data/granite4_format.jinja");

#[test]
fn the_template_lists_tools_and_writes_calls_as_granite4s_documentation_shows() {
    let (text, _) = render_sample(TEMPLATE, None, json!({"city": "Paris"}));
    let listed = r#"{"type": "function", "function": {"name": "get_weather", "parameters": {}}}"#;
    assert_eq!(
        text,
        format!(
            "<|start_of_role|>system<|end_of_role|>You are a helpful assistant with access to the following tools. You may call one or more tools to assist with the user query.\n\n\
             You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{listed}\n</tools>\n\n\
             For each tool call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n\
             <tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>. \
             If a tool does not exist in the provided list of tools, notify the user that you do not have the ability to fulfill the request.<|end_of_text|>\n\
             <|start_of_role|>user<|end_of_role|>Weather in Paris?<|end_of_text|>\n\
             <|start_of_role|>assistant<|end_of_role|><tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"Paris\"}}}}\n</tool_call><|end_of_text|>\n\
             <|start_of_role|>user<|end_of_role|><tool_response>\nsunny\n</tool_response><|end_of_text|>\n\
             <|start_of_role|>assistant<|end_of_role|>"
        )
    );
}

#[test]
fn the_agent_calls_reads_and_answers_in_granite4s_format() {
    OwnFormat {
        format: Format::Hermes,
        template: TEMPLATE,
        // Mamba-2 layers around an attention layer.
        spec: TinySpec::granite_h,
        after_result: |result| {
            format!("<tool_response>\n{result}\n</tool_response><|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>")
        },
        written_call: |prompt| {
            // The last <tool_call>: the system turn shows one as an example.
            let start = prompt.rfind("<tool_call>").unwrap();
            let end = prompt.rfind("</tool_call>").unwrap() + "</tool_call>".len();
            prompt[start..end].to_owned()
        },
    }
    .assert_round_trip(0..4);
}
