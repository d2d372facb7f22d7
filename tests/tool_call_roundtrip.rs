//! Round trip through the real chat templates (the shared fixtures and
//! llama.cpp's `models/templates/`): render an assistant message with tool
//! calls, cut out the assistant's part of the prompt, detect the parser from
//! the template source, and get the same calls back; offered other tools,
//! the parser reports the same calls as invalid.

use serde_json::{json, Value};
use tool_use::models::parse::{detect_format, Format, ParseOptions, ReasoningStart};
use tool_use::models::template::ChatTemplate;

const DIRS: &[&str] = &[
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/chat-templates/templates"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tool-models/tests/data/llama-cpp-templates"
    ),
];

fn kwargs(messages: Value, generation: bool) -> Value {
    json!({
        "messages": messages,
        "tools": [{"type": "function", "function": {"name": "get_weather",
            "description": "Get the weather.",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"]}}}],
        "add_generation_prompt": generation,
        "bos_token": "<s>",
        "eos_token": "</s>",
    })
}

#[test]
fn calls_rendered_by_each_template_parse_back() {
    let user = json!({"role": "user", "content": "Weather in Paris?"});
    let calls = json!([
        {"id": "abc123def", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}},
        {"id": "xyz789uvw", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Lyon", "days": 1}}},
    ]);
    let assistant = json!({"role": "assistant", "content": "", "tool_calls": calls});
    // Templates that take one call per turn refuse two.
    let single = json!({"role": "assistant", "content": "", "tool_calls": [calls[0]]});
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    let mut entries: Vec<_> = DIRS
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("templates").flatten())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".jinja"))
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(entry.path()).expect("template");
        let Ok(format) = detect_format(&source) else {
            continue;
        };
        let t = match ChatTemplate::new(&source) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: does not compile: {e}"));
                continue;
            }
        };
        let prefix = t.render_json(&kwargs(json!([user]), true));
        // Templates that concatenate the arguments want them as JSON text,
        // as OpenAI's API sends them.
        let mut as_text = assistant.clone();
        for c in as_text["tool_calls"].as_array_mut().into_iter().flatten() {
            let args = c["function"]["arguments"].to_string();
            c["function"]["arguments"] = Value::String(args);
        }
        let full = t
            .render_json(&kwargs(json!([user, assistant]), false))
            .or_else(|_| t.render_json(&kwargs(json!([user, single]), false)))
            .or_else(|_| t.render_json(&kwargs(json!([user, as_text]), false)));
        let (Ok(prefix), Ok(full)) = (prefix, full) else {
            // These refuse this conversation in transformers too: Command R+
            // and Kimi K2 (`list.append` in a sandbox that forbids it),
            // FireFunction v2 (wants a `functions` variable).
            let refused = [
                "CohereForAI-c4ai-command-r-plus-tool_use.jinja",
                "Kimi-K2-Instruct.jinja",
                "Kimi-K2-Thinking.jinja",
                "fireworks-ai-llama-3-firefunction-v2.jinja",
            ];
            if !refused.contains(&name.as_str()) {
                failures.push(format!("{name}: does not render"));
            }
            continue;
        };
        // Templates that rewrite history (dropping reasoning) do not extend
        // the prompt; cut at the longest common prefix instead, and not
        // inside a tag (`<|assistant|><think>` against `<|assistant|></think>`).
        let mut common = prefix
            .char_indices()
            .zip(full.chars())
            .find(|((_, a), b)| a != b)
            .map_or(prefix.len(), |((i, _), _)| i);
        let extends = common == prefix.len();
        if let Some(open) = full[..common].rfind(['<', '[']) {
            if !full[open..common].contains(['>', ']']) {
                common = open;
            }
        }
        let part = &full[common..];
        if !part.contains("Paris") {
            // The template does not write an assistant's calls at all.
            continue;
        }
        let options = ParseOptions {
            tools: kwargs(json!([]), false)["tools"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
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
        let want = vec![
            (
                "get_weather".to_owned(),
                json!({"city": "Paris", "days": 3}),
            ),
            ("get_weather".to_owned(), json!({"city": "Lyon", "days": 1})),
        ];
        // Some templates render only the first call (one call per turn).
        if got != want && got != want[..1] {
            failures.push(format!("{name} ({format}): got {got:?} from {part:?}"));
        }
        // Offered another tool, the same text calls nothing that exists.
        let other = ParseOptions {
            tools: vec![json!({"type": "function", "function": {"name": "get_time",
                "parameters": {"type": "object", "properties": {}}}})],
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
