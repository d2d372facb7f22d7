//! LFM2's format end to end on a tiny random LFM2 (short convolutions and
//! attention): its tools listed as LFM2's documentation shows them, the
//! format told from the template, calls constrained to
//! `<|tool_call_start|>[name(key=value)]<|tool_call_end|>`, read back with
//! the tool's types, run, and their results rendered between
//! `<|tool_response_start|>` and `<|tool_response_end|>` for the next round.
//!
//! The template (`tests/data/lfm2_format.jinja`) is this project's writing
//! of the documented format; LFM2's own template is not among the shared
//! fixtures.

#[path = "common/own_format.rs"]
mod own_format;

use own_format::{render_sample, OwnFormat};
use serde_json::json;
use tool_use::model::tiny::TinySpec;
use tool_use::parse::Format;

const TEMPLATE: &str = include_str!("data/lfm2_format.jinja");

#[test]
fn the_template_lists_tools_and_writes_calls_as_lfm2s_documentation_shows() {
    let (text, _) = render_sample(
        TEMPLATE,
        Some("Be brief."),
        json!({"city": "Paris", "days": 2, "metric": true}),
    );
    // The tools as transformers' `tojson` writes them (Python's separators).
    let listed = r#"{"type": "function", "function": {"name": "get_weather", "parameters": {}}}"#;
    assert_eq!(
        text,
        format!(
            "<|im_start|>system\nBe brief.\nList of tools: <|tool_list_start|>[{listed}]<|tool_list_end|><|im_end|>\n\
             <|im_start|>user\nWeather in Paris?<|im_end|>\n\
             <|im_start|>assistant\n<|tool_call_start|>[get_weather(city=\"Paris\", days=2, metric=True)]<|tool_call_end|><|im_end|>\n\
             <|im_start|>tool\n<|tool_response_start|>sunny<|tool_response_end|><|im_end|>\n\
             <|im_start|>assistant\n"
        )
    );
}

#[test]
fn the_agent_calls_reads_and_answers_in_lfm2s_format() {
    OwnFormat {
        format: Format::Lfm2,
        template: TEMPLATE,
        spec: TinySpec::lfm2,
        after_result: |result| {
            format!("<|tool_response_start|>{result}<|tool_response_end|><|im_end|>\n<|im_start|>assistant\n")
        },
        written_call: |prompt| {
            let start = prompt.find("<|tool_call_start|>").unwrap();
            let end = prompt.find("<|tool_call_end|>").unwrap() + "<|tool_call_end|>".len();
            prompt[start..end].to_owned()
        },
    }
    .assert_round_trip(0..4);
}
