//! The grammars accept calls as the real chat templates write them: each
//! template renders a turn with two calls, and the format's constraint
//! (under `auto`) takes that turn token by token at least up to the end of
//! its calls, so a model trained on its template is never pushed off it.

mod constrain_util;
#[path = "../../tests/common/fixtures.rs"]
mod fixtures;
#[path = "common/turns.rs"]
mod turns;

use constrain_util::{byte_to_char, tokenizer_with};
use std::collections::BTreeSet;
use tool_models::constrain::{TokenEnv, ToolConstraint};
use tool_models::generate::TokenConstraint;
use tool_models::parse::ParseOptions;
use tool_runtime::{ToolChoice, ToolDefinition};

const LLAMA_CPP_TEMPLATES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/llama-cpp-templates"
);

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
    let Some(shared) = fixtures::dir("chat-templates") else {
        return;
    };
    let shared = shared.join("templates").display().to_string();
    let tools = turns::tools();
    let options = ParseOptions {
        tools: ToolDefinition::list_from_json(tools.as_array().into_iter().flatten()).unwrap(),
        ..ParseOptions::default()
    };
    let mut checked = BTreeSet::new();
    let mut failures = Vec::new();
    // Templates that do not compile or render are the round trip's to report.
    let (turns, _) = turns::turns(&[&shared, LLAMA_CPP_TEMPLATES]);
    for turns::Turn {
        name,
        format,
        source,
        part,
        ..
    } in turns
    {
        let part = part.as_str();
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
        let mut c = match ToolConstraint::new(
            &env,
            format,
            &constrain_util::definitions(tools.as_array().unwrap()),
            &ToolChoice::Auto,
        ) {
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
