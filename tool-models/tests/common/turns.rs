//! An assistant turn with two tool calls, as each real chat template renders
//! it after the prompt: the text a model trained on that template writes.
//! Shared by the parser round trip (`tests/tool_call_roundtrip.rs` in the
//! root package) and the constraint's template test.

// Each test uses part of it.
#![allow(dead_code)]

use serde_json::{json, Value};
use tool_models::parse::{detect_format, Format};
use tool_models::template::ChatTemplate;

/// The one tool offered.
pub fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather",
        "description": "Get the weather.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"]}}}])
}

/// The template's variables for `messages`.
pub fn kwargs(messages: Value, generation: bool) -> Value {
    json!({
        "messages": messages,
        "tools": tools(),
        "add_generation_prompt": generation,
        "bos_token": "<s>",
        "eos_token": "</s>",
    })
}

/// The calls the turn holds: (name, arguments).
pub fn calls() -> Vec<(String, Value)> {
    vec![
        (
            "get_weather".to_owned(),
            json!({"city": "Paris", "days": 3}),
        ),
        ("get_weather".to_owned(), json!({"city": "Lyon", "days": 1})),
    ]
}

/// One template's rendered turn.
pub struct Turn {
    /// The template's file name.
    pub name: String,
    /// Its parser, detected from its source.
    pub format: Format,
    /// Its source.
    pub source: String,
    /// The prompt, up to the generation prompt.
    pub prefix: String,
    /// The assistant's part: what follows the prompt.
    pub part: String,
    /// Whether the rendered conversation extends the prompt (templates
    /// that rewrite history, dropping reasoning, do not).
    pub extends: bool,
}

/// The turn of every template in `dirs` whose format is detected and that
/// writes the calls; and what went wrong with the others.
pub fn turns(dirs: &[&str]) -> (Vec<Turn>, Vec<String>) {
    let user = json!({"role": "user", "content": "Weather in Paris?"});
    let tool_calls: Vec<Value> = calls()
        .into_iter()
        .zip(["abc123def", "xyz789uvw"])
        .map(|((name, args), id)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
        })
        .collect();
    let assistant = json!({"role": "assistant", "content": "", "tool_calls": tool_calls});
    // Templates that take one call per turn refuse two.
    let single = json!({"role": "assistant", "content": "", "tool_calls": [tool_calls[0]]});
    // Templates that concatenate the arguments want them as JSON text, as
    // OpenAI's API sends them.
    let mut as_text = assistant.clone();
    for c in as_text["tool_calls"].as_array_mut().into_iter().flatten() {
        let args = c["function"]["arguments"].to_string();
        c["function"]["arguments"] = Value::String(args);
    }
    let mut entries: Vec<_> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("templates").flatten())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".jinja"))
        .collect();
    entries.sort_by_key(|e| e.file_name());
    let (mut turns, mut failures) = (Vec::new(), Vec::new());
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
        let (common, extends) = tool_models::template::turn_start(&prefix, &full);
        let part = full[common..].to_owned();
        if !part.contains("Paris") {
            // The template does not write an assistant's calls at all.
            continue;
        }
        turns.push(Turn {
            name,
            format,
            source,
            prefix,
            part,
            extends,
        });
    }
    (turns, failures)
}
