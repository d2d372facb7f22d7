//! Round trip through the real chat templates (the shared fixtures and
//! llama.cpp's `models/templates/`): render an assistant message with tool
//! calls, cut out the assistant's part of the prompt, detect the parser from
//! the template source, and get the same calls back; offered other tools,
//! the parser reports the same calls as invalid.

#[path = "common/fixtures.rs"]
mod fixtures;
#[path = "../tool-models/tests/common/turns.rs"]
mod turns;

use serde_json::{json, Value};
use tool_use::parse::{Format, ParseOptions, ReasoningStart};
use tool_use::ToolDefinition;

const LLAMA_CPP_TEMPLATES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tool-models/tests/data/llama-cpp-templates"
);

#[test]
fn calls_rendered_by_each_template_parse_back() {
    let mut checked = Vec::new();
    let Some(shared) = fixtures::dir("chat-templates") else {
        return;
    };
    let shared = shared.join("templates").display().to_string();
    let (turns, mut failures) = turns::turns(&[&shared, LLAMA_CPP_TEMPLATES]);
    for turns::Turn {
        name,
        format,
        prefix,
        part,
        extends,
        ..
    } in turns
    {
        let part = part.as_str();
        let options = ParseOptions {
            tools: ToolDefinition::list_from_json(turns::tools().as_array().into_iter().flatten())
                .unwrap(),
            // Only where the rendered turn keeps the block the prompt opened.
            reasoning: if extends && prefix.trim_end().ends_with("<think>") {
                ReasoningStart::Open
            } else {
                ReasoningStart::Closed
            },
        };
        let r = format.parse(part, &options);
        let got: Vec<(String, Value)> = r
            .tool_calls
            .iter()
            .map(|c| (c.name.clone(), c.arguments.clone()))
            .collect();
        let want = turns::calls();
        // Some templates render only the first call (one call per turn).
        if got != want && got != want[..1] {
            failures.push(format!("{name} ({format}): got {got:?} from {part:?}"));
        }
        // Offered another tool, the same text calls nothing that exists.
        let other = ParseOptions {
            tools: ToolDefinition::list_from_json(&[
                json!({"type": "function", "function": {"name": "get_time",
                "parameters": {"type": "object", "properties": {}}}}),
            ])
            .unwrap(),
            ..options
        };
        let r = format.parse(part, &other);
        let invalid: Vec<_> = r
            .invalid_tool_calls
            .iter()
            .filter(|c| c.name.as_deref() == Some("get_weather"))
            .collect();
        if !r.tool_calls.is_empty() || invalid.len() != got.len() {
            failures.push(format!(
                "{name} ({format}): offered other tools, got {:?} and invalid {:?}",
                r.tool_calls, r.invalid_tool_calls
            ));
        }
        checked.push((name, format));
    }
    let formats: std::collections::BTreeSet<&str> = checked.iter().map(|c| c.1.id()).collect();
    for f in [
        "minimax_m2",
        "nemotron_v2",
        "functionary_v31",
        "functionary_v32",
        "glm45",
        "seed_oss",
        "apertus",
        "lfm2",
    ] {
        assert!(
            formats.contains(f),
            "no template of {f} was checked: {formats:?}"
        );
    }
    assert!(checked.len() >= 30, "only {checked:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = Format::Hermes;
}
