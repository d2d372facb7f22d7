//! Grounded arguments: parameters whose value must be copied from the
//! conversation.
//!
//! A string parameter marked `"x-grounded": true` in its tool's schema
//! (what `#[arg(grounded)]` writes) may only take a value that is a run of
//! whole words of a user message: a city, a query, a title, a phrase to
//! translate. A number parameter so marked may only take a number that a
//! user message or a tool's result writes (`$1,200` gives 1200, `4.5%`
//! 4.5). A small model that knows *where* the value is but misspells it
//! (`Zagrebb`, `Copenhage`, `1121121`) or swaps it for one it memorised
//! then cannot write anything else. [`ground`] turns each such parameter
//! into an `enum` of the candidates for the constraint;
//! [`ToolDefinition::strip_grounding`] removes the marker from the
//! definitions a model is shown, so that prompts do not change.

use serde_json::{Map, Value};
use std::collections::BTreeSet;

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

/// The definitions with each grounded string parameter (or each item of a
/// grounded list of strings) limited to the runs of words of `said` (the
/// user's messages, [`candidates`]), and each grounded number (or item of
/// a list of numbers) to the numbers `said` and `results` (the tools'
/// results) write ([`numbers`]; only whole ones for an integer); the
/// marker itself is removed. A parameter stays as it was when there is no
/// candidate for it.
pub fn ground(tools: &[ToolDefinition], said: &[&str], results: &[&str]) -> Vec<ToolDefinition> {
    let strings: Vec<Value> = candidates(said).into_iter().map(Value::String).collect();
    let written: Vec<&str> = said.iter().chain(results).copied().collect();
    let numbers = numbers(&written);
    let integers: Vec<Value> = numbers
        .iter()
        .filter(|n| n.is_i64() || n.is_u64())
        .cloned()
        .collect();
    let limit = |schema: &mut Map<String, Value>| {
        let allowed = match schema.get("type").and_then(Value::as_str) {
            Some("string") => &strings,
            Some("number") => &numbers,
            Some("integer") => &integers,
            _ => return,
        };
        if !allowed.is_empty() && schema.get("enum").is_none() {
            schema.insert("enum".into(), Value::Array(allowed.clone()));
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

/// Every number `sources` write, as JSON reads it: digits with an
/// optional sign, decimal part and exponent (`-3`, `4.5`, `1e-9`), thousands
/// separated by commas read whole (`300,000`), whatever surrounds them
/// (`$50`, `10cm`, `4.5%`). Without repeats, in order of appearance.
pub fn numbers(sources: &[&str]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for source in sources {
        let bytes = source.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let starts = bytes[i].is_ascii_digit()
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.'));
            if !starts {
                i += 1;
                continue;
            }
            let negative =
                i > 0 && bytes[i - 1] == b'-' && (i < 2 || !bytes[i - 2].is_ascii_alphanumeric());
            let mut text = String::from(if negative { "-" } else { "" });
            let digit_at = |k: usize| bytes.get(k).is_some_and(u8::is_ascii_digit);
            let mut j = i;
            while j < bytes.len() {
                let b = bytes[j];
                if b.is_ascii_digit() {
                    text.push(b as char);
                } else if b == b','
                    && !text.contains(['.', 'e'])
                    && (1..=3).all(|k| digit_at(j + k))
                    && !digit_at(j + 4)
                {
                    // A thousands separator: exactly three digits follow.
                } else if b == b'.' && digit_at(j + 1) && !text.contains(['.', 'e']) {
                    text.push('.');
                } else if matches!(b, b'e' | b'E') && !text.contains('e') {
                    let signed = matches!(bytes.get(j + 1), Some(b'-' | b'+'));
                    if !(digit_at(j + 1) || (signed && digit_at(j + 2))) {
                        break;
                    }
                    text.push('e');
                    if signed {
                        j += 1;
                        text.push(bytes[j] as char);
                    }
                } else {
                    break;
                }
                j += 1;
            }
            if let Ok(value) = serde_json::from_str::<Value>(&text) {
                if value.is_number() && !out.contains(&value) {
                    out.push(value);
                }
            }
            i = j;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::borrow::Cow;
    use tool_runtime::grounding::GROUNDED;

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
        let grounded = ground(&[tool()], &["weather in Oslo"], &[]);
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
        assert!(props["days"].get("enum").is_none(), "no number was written");
        assert_eq!(props["with"]["items"]["enum"], props["city"]["enum"]);
        assert!(props["note"].get("enum").is_none(), "not marked");
        assert!(!grounded[0].to_string().contains(GROUNDED));

        let plain = ToolDefinition::strip_grounding(&[tool()]).into_owned();
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
        assert!(ToolDefinition::any_grounded(&[tool()]) && !ToolDefinition::any_grounded(&plain));
        assert!(matches!(
            ToolDefinition::strip_grounding(&plain),
            Cow::Borrowed(_)
        ));
        let nothing = ground(&[tool()], &[], &[]);
        assert!(nothing[0]["function"]["parameters"]["properties"]["city"]
            .get("enum")
            .is_none());
    }

    #[test]
    fn numbers_are_read_as_written_whatever_surrounds_them() {
        let found = numbers(&[
            "A loan of $300,000 at 4.5% for 30 years; b=-3, c = 2.",
            "charges of 1e-9 and 2E-9 at 0.05 m, 10cm, points A(3,4), v2 and 2x-1",
        ]);
        let want = json!([300000, 4.5, 30, -3, 2, 1e-9, 2e-9, 0.05, 10, 3, 4, 1]);
        assert_eq!(Value::Array(found), want);
        assert!(numbers(&["no numbers here", ""]).is_empty());
        // A list is not a thousands separator.
        assert_eq!(Value::Array(numbers(&["1,2 and 1,25"])), json!([1, 2, 25]));
    }

    #[test]
    fn grounded_numbers_take_the_conversations_numbers_and_integers_whole_ones() {
        let tool = ToolDefinition::from_json(&json!({"type": "function", "function": {
        "name": "loan", "description": "d", "parameters": {"type": "object", "properties": {
            "amount": {"type": "number", "x-grounded": true},
            "years": {"type": "integer", "x-grounded": true},
            "rates": {"type": "array", "items": {"type": "number"}, "x-grounded": true},
            "extra": {"type": "number"}
        }}}}))
        .unwrap();
        let grounded = ground(&[tool], &["Borrow 1,500.50 over 3 years"], &["rate: 4.25"]);
        let props = &grounded[0]["function"]["parameters"]["properties"];
        assert_eq!(props["amount"]["enum"], json!([1500.5, 3, 4.25]));
        assert_eq!(props["years"]["enum"], json!([3]));
        assert_eq!(props["rates"]["items"]["enum"], props["amount"]["enum"]);
        assert!(props["extra"].get("enum").is_none(), "not marked");
    }
}
