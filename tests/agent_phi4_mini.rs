//! Phi-4-mini's format end to end on a tiny random Phi-4-mini (partial
//! rotary, LongRoPE, a sliding window): its tools listed as the documented
//! serving template lists them, the format told from the template, calls
//! constrained to `functools[{"name": …, "arguments": {…}}]`, read back
//! with the tool's types, run, and their results rendered as
//! `{"result": …}` tool turns for the next round.
//!
//! The template (`tests/data/phi4_mini_format.jinja`) is this project's
//! writing of the documented format; Phi-4-mini's own templates are not
//! among the shared fixtures.

#[path = "common/own_format.rs"]
mod own_format;

use own_format::{render_sample, OwnFormat};
use serde_json::json;
use tool_use::model::tiny::TinySpec;
use tool_use::parse::Format;

const TEMPLATE: &str = include_str!("data/phi4_mini_format.jinja");

#[test]
fn the_template_lists_tools_and_writes_calls_as_phi4_minis_documentation_shows() {
    let (text, _) = render_sample(TEMPLATE, None, json!({"city": "Paris"}));
    let listed = "{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"get_weather\",\n        \"parameters\": {}\n    }\n}";
    assert_eq!(
        text,
        format!(
            "<|system|>\nYou are a helpful assistant.\nIn addition to plain text responses, you can choose to call one or more of the provided functions.\n\n\
             If you decide to call functions:\n  * prefix function calls with functools marker (no closing marker required)\n  \
             * all function calls should be generated in a single JSON list formatted as functools[{{\"name\": [function name], \"arguments\": [function arguments as JSON]}}, ...]\n\n\
             {listed}\n\n<|end|><|user|>\nWeather in Paris?<|end|><|assistant|>\nfunctools[{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"Paris\"}}}}]<|end|>\
             <|tool|>\n{{\"result\": \"sunny\"}}<|end|><|assistant|>\n"
        )
    );
}

#[test]
fn the_agent_calls_reads_and_answers_in_phi4_minis_format() {
    OwnFormat {
        format: Format::Phi4Mini,
        template: TEMPLATE,
        spec: TinySpec::phi4_mini,
        after_result: |result| {
            format!(
                "<|tool|>\n{{\"result\": {}}}<|end|><|assistant|>\n",
                json!(result)
            )
        },
        written_call: |prompt| {
            let start = prompt.find("functools[").unwrap();
            let end = start + prompt[start..].find("]<|end|>").unwrap() + 1;
            prompt[start..end].to_owned()
        },
    }
    .assert_round_trip(0..4);
}
