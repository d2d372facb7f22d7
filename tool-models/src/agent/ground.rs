//! Grounded arguments: string parameters whose value must be copied from
//! the conversation.
//!
//! A parameter marked `"x-grounded": true` in its tool's schema (what
//! `#[arg(grounded)]` writes) may only take a value that is a run of whole
//! words of a user message: a city, a query, a title, a phrase to translate.
//! A small model that knows *where* the value is but misspells it
//! (`Zagrebb`, `Copenhage`) or swaps it for one it memorised then cannot
//! write anything else. [`ground`] turns each such parameter into an `enum`
//! of the candidate runs for the constraint; [`strip`] removes the marker
//! from the definitions a model is shown, so that prompts do not change.

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeSet;

pub use tool_runtime::format::GROUNDED;
use tool_runtime::ToolDefinition;

/// The longest run of words a grounded value may be.
const MAX_WORDS: usize = 12;

/// Characters a run of words is trimmed of at its ends: quotes, brackets and
/// the punctuation a sentence puts after a value.
const QUOTES: &[char] = &[
    '"', '\'', '“', '”', '‘', '’', '«', '»', '(', ')', '[', ']', '`',
];
/// Never the end of a value.
const SEPARATORS: &[char] = &[',', ';', ':'];
/// The end of a sentence, which a value may be (a message's body).
const SENTENCE_END: &[char] = &['?', '!', '.'];

/// Whether any tool has a grounded parameter.
pub fn has_grounded(tools: &[ToolDefinition]) -> bool {
    tools.iter().any(|t| t.grounded().next().is_some())
}

/// The definitions without the grounding marker (borrowed when none has it).
pub fn strip(tools: &[ToolDefinition]) -> Cow<'_, [ToolDefinition]> {
    if !tools.iter().any(ToolDefinition::has_grounding_marker) {
        return Cow::Borrowed(tools);
    }
    Cow::Owned(
        tools
            .iter()
            .map(ToolDefinition::without_grounding)
            .collect(),
    )
}

/// The definitions with each grounded string parameter (or each item of a
/// grounded list of strings) limited to the runs
/// of words of `sources` ([`candidates`]); the marker itself is removed. A
/// parameter stays as it was when `sources` hold no words.
pub fn ground(tools: &[ToolDefinition], sources: &[&str]) -> Vec<ToolDefinition> {
    let candidates: Vec<Value> = candidates(sources).into_iter().map(Value::String).collect();
    let limit = |schema: &mut Map<String, Value>| {
        let is_string = schema.get("type") == Some(&Value::String("string".into()));
        if is_string && !candidates.is_empty() && schema.get("enum").is_none() {
            schema.insert("enum".into(), Value::Array(candidates.clone()));
        }
    };
    tools
        .iter()
        .map(|tool| {
            tool.map_grounded(|schema| {
                // A list of strings: each item.
                match schema.get_mut("items").and_then(Value::as_object_mut) {
                    Some(items) => limit(items),
                    None => limit(schema),
                }
            })
        })
        .collect()
}

/// Every run of 1 to 12 words of each source, trimmed of quotes, brackets
/// and commas at its ends, with and without the mark that ends a sentence
/// (`Paris, France?` gives `Paris, France` and `Paris, France?`; a quoted
/// e-mail body keeps its full stop). Sorted, without repeats.
pub fn candidates(sources: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for source in sources {
        let words: Vec<&str> = source.split_whitespace().collect();
        for start in 0..words.len() {
            let mut run = String::new();
            for (n, word) in words[start..].iter().take(MAX_WORDS).enumerate() {
                if n > 0 {
                    run.push(' ');
                }
                run.push_str(word);
                let quoted = run
                    .trim_matches(QUOTES)
                    .trim_end_matches(SEPARATORS)
                    .trim_end_matches(QUOTES);
                let bare = quoted
                    .trim_end_matches(SENTENCE_END)
                    .trim_end_matches(QUOTES);
                for value in [quoted, bare] {
                    if value.chars().any(char::is_alphanumeric) {
                        out.insert(value.to_owned());
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> ToolDefinition {
        ToolDefinition::from_json(
            &json!({"type": "function", "function": {"name": "weather", "description": "d",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string", "x-grounded": true, "description": "c", "minLength": 1},
                "unit": {"type": "string", "enum": ["c", "f"], "x-grounded": true},
                "days": {"type": "integer", "x-grounded": true},
                "with": {"type": "array", "items": {"type": "string"}, "x-grounded": true},
                "note": {"type": "string"}
            }, "required": ["city"]}}}),
        )
        .unwrap()
    }

    #[test]
    fn runs_of_words_are_trimmed_of_quotes_and_closing_punctuation() {
        let c = candidates(&[
            "What's the weather in São Paulo, Brazil?",
            "Send \"Ship it today.\" now",
        ]);
        for want in [
            "São Paulo, Brazil",
            "São Paulo",
            "Paulo",
            "Brazil",
            "What's the weather in São Paulo, Brazil",
            "Ship it today.",
            "Ship it today",
            "Send \"Ship it today.\" now",
        ] {
            assert!(c.contains(want), "{want:?} missing from {c:?}");
        }
        assert!(c.contains("Brazil?"), "a value may end a question");
        assert!(!c
            .iter()
            .any(|s| s.ends_with(',') || s.starts_with('"') || s.is_empty()));
        assert!(candidates(&["", "  ", "?!"]).is_empty());
        let long = "w ".repeat(40);
        assert!(candidates(&[&long])
            .iter()
            .all(|s| s.split(' ').count() <= MAX_WORDS));
    }

    #[test]
    fn grounding_limits_only_marked_free_strings_and_strip_restores_the_definition() {
        let grounded = ground(&[tool()], &["weather in Oslo"]);
        let props = &grounded[0]["function"]["parameters"]["properties"];
        let cities: Vec<&str> = props["city"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(cities.contains(&"Oslo") && cities.contains(&"weather in Oslo"));
        assert_eq!(
            props["unit"]["enum"],
            json!(["c", "f"]),
            "an enum stays as it is"
        );
        assert!(props["days"].get("enum").is_none(), "not a string");
        assert_eq!(props["with"]["items"]["enum"], props["city"]["enum"]);
        assert!(props["note"].get("enum").is_none(), "not marked");
        assert!(!grounded[0].to_string().contains(GROUNDED));

        let plain = strip(&[tool()]).into_owned();
        let keys: Vec<&String> = plain[0]["function"]["parameters"]["properties"]["city"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(
            keys,
            ["type", "description", "minLength"],
            "the rest keeps its order"
        );
        assert!(!plain[0].to_string().contains(GROUNDED));
        assert!(plain[0]["function"]["parameters"]["properties"]["city"]
            .get("enum")
            .is_none());
        assert!(has_grounded(&[tool()]) && !has_grounded(&plain));
        assert!(matches!(strip(&plain), Cow::Borrowed(_)));
        let nothing = ground(&[tool()], &[]);
        assert!(nothing[0]["function"]["parameters"]["properties"]["city"]
            .get("enum")
            .is_none());
    }
}
