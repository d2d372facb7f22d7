//! The grammars accept calls as the real chat templates write them: each
//! template renders a turn with two calls, and the format's constraint
//! (under `auto`) takes that turn token by token at least up to the end of
//! its calls, so a model trained on its template is never pushed off it.

mod constrain_util;

use constrain_util::{byte_to_char, tokenizer_with};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use tool_models::constrain::{TokenEnv, ToolConstraint};
use tool_models::generate::TokenConstraint;
use tool_models::parse::{detect_format, ParseOptions};
use tool_models::template::ChatTemplate;
use tool_runtime::ToolChoice;

const DIRS: &[&str] = &[
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/chat-templates/templates"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/llama-cpp-templates"
    ),
];

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather",
        "description": "Get the weather.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"]}}}])
}

fn kwargs(messages: Value, generation: bool) -> Value {
    json!({
        "messages": messages,
        "tools": tools(),
        "add_generation_prompt": generation,
        "bos_token": "<s>",
        "eos_token": "</s>",
    })
}

/// Marker-like words of a template (`<|…|>`, `[UPPER]`, DeepSeek's
/// `<｜…｜>`): the special tokens its model's vocabulary would have. XML
/// tags stay text, as most of these vocabularies have them.
fn specials(source: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for (open, close, max) in [("<|", "|>", 40), ("<｜", "｜>", 40), ("[", "]", 20)] {
        let mut from = 0;
        while let Some(i) = source[from..].find(open) {
            let start = from + i;
            let rest = &source[start + open.len()..];
            if let Some(j) = rest.find(close) {
                let inner = &rest[..j];
                let ok = !inner.is_empty()
                    && inner.chars().count() <= max
                    && if open == "[" {
                        inner.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                            && inner.len() >= 3
                    } else {
                        !inner.contains(char::is_whitespace)
                            && !inner.contains(['{', '}', '\'', '"', '<', '>'])
                    };
                if ok {
                    out.insert(format!("{open}{inner}{close}"));
                }
            }
            from = start + open.len();
        }
    }
    out.into_iter().collect()
}

/// The tokens of `text`: special markers as their token, the rest byte by byte.
fn tokens(text: &str, specials: &[String], tok: &tokenizers::Tokenizer) -> Vec<(u32, usize)> {
    let table = byte_to_char();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if let Some(s) = specials.iter().find(|s| text[i..].starts_with(s.as_str())) {
            i += s.len();
            out.push((tok.token_to_id(s).unwrap(), i));
            continue;
        }
        let b = text.as_bytes()[i];
        i += 1;
        out.push((tok.token_to_id(&table[b as usize].to_string()).unwrap(), i));
    }
    out
}

#[test]
fn template_calls_are_accepted() {
    let user = json!({"role": "user", "content": "Weather in Paris?"});
    let calls = json!([
        {"id": "abc123def", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}},
        {"id": "xyz789uvw", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Lyon", "days": 1}}},
    ]);
    let assistant = json!({"role": "assistant", "content": "", "tool_calls": calls});
    let single = json!({"role": "assistant", "content": "", "tool_calls": [calls[0]]});
    let mut as_text = assistant.clone();
    for c in as_text["tool_calls"].as_array_mut().into_iter().flatten() {
        let args = c["function"]["arguments"].to_string();
        c["function"]["arguments"] = Value::String(args);
    }
    let options = ParseOptions {
        tools: tools().as_array().cloned().unwrap_or_default(),
        ..ParseOptions::default()
    };
    let mut checked = BTreeSet::new();
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
        let Ok(t) = ChatTemplate::new(&source) else {
            continue;
        };
        let prefix = t.render_json(&kwargs(json!([user]), true));
        let full = t
            .render_json(&kwargs(json!([user, assistant]), false))
            .or_else(|_| t.render_json(&kwargs(json!([user, single]), false)))
            .or_else(|_| t.render_json(&kwargs(json!([user, as_text]), false)));
        let (Ok(prefix), Ok(full)) = (prefix, full) else {
            continue;
        };
        // Templates that rewrite history (dropping reasoning) do not extend
        // the prompt; cut at the longest common prefix, not inside a tag.
        let mut common = prefix
            .char_indices()
            .zip(full.chars())
            .find(|((_, a), b)| a != b)
            .map_or(prefix.len(), |((i, _), _)| i);
        if let Some(open) = full[..common].rfind(['<', '[']) {
            if !full[open..common].contains(['>', ']']) {
                common = open;
            }
        }
        let part = &full[common..];
        let want = format.parse(part, &options).tool_calls;
        if want.is_empty() {
            continue;
        }
        let specials = specials(&source);
        let mut added: Vec<(&str, bool)> = vec![("<|im_end|>", true)];
        added.extend(
            specials
                .iter()
                .filter(|s| s.as_str() != "<|im_end|>")
                .map(|s| (s.as_str(), true)),
        );
        let tok = tokenizer_with(600, &added, 3);
        let env = TokenEnv::new(&tok, &[tok.token_to_id("<|im_end|>").unwrap()]).unwrap();
        let mut c =
            match ToolConstraint::new(&env, format, tools().as_array().unwrap(), &ToolChoice::Auto)
            {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{name} ({format}): {e}"));
                    continue;
                }
            };
        let mut accepted = 0;
        for (id, end) in tokens(part, &specials, &tok) {
            if !c.allowed().unwrap().is_none_or(|s| s.contains(id)) {
                break;
            }
            c.commit(id).unwrap();
            accepted = end;
        }
        let got = format.parse(&part[..accepted], &options).tool_calls;
        let names = |v: &[tool_runtime::ToolCall]| {
            v.iter()
                .map(|c| (c.name.clone(), c.arguments.clone()))
                .collect::<Vec<_>>()
        };
        if names(&got) != names(&want) {
            failures.push(format!(
                "{name} ({format}): refused at byte {accepted} of {part:?}"
            ));
            continue;
        }
        checked.insert(format.id());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The formats these template collections write calls in.
    for f in [
        "apertus",
        "cohere",
        "deepseek_v3",
        "deepseek_v31",
        "functionary_v31",
        "functionary_v32",
        "glm45",
        "harmony",
        "hermes",
        "kimi_k2",
        "lfm2",
        "llama3_json",
        "minimax_m2",
        "mistral",
        "nemotron_v2",
        "qwen3_xml",
        "seed_oss",
    ] {
        assert!(
            checked.contains(f),
            "no template of {f} was checked: {checked:?}"
        );
    }
}
