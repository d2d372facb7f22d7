//! Loss weights: which bytes of the assistant's output matter more.
//!
//! A call is mostly structure the model learns in a few hundred steps
//! (`<tool_call>{"name": `...); what it keeps getting wrong is the few bytes
//! copied from the request (a city, a query, a number) and the first token of
//! a turn, where it decides between calling and answering. Those bytes weigh
//! more in the loss, so that a step's gradient is spent on them.

use std::ops::Range;

/// How much each kind of byte in an assistant turn weighs (1: an ordinary byte).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossWeights {
    /// An argument value inside a call, and a tool result the answer repeats.
    pub value: f32,
    /// The tool's name inside a call.
    pub name: f32,
    /// An argument's name inside a call.
    pub key: f32,
    /// The first token of a turn: a call or words.
    pub decision: f32,
}

impl LossWeights {
    /// Every byte weighs the same: the plain mean loss.
    pub const UNIFORM: LossWeights = LossWeights {
        value: 1.0,
        name: 1.0,
        key: 1.0,
        decision: 1.0,
    };

    /// Whether every weight is 1.
    pub fn is_uniform(&self) -> bool {
        *self == LossWeights::UNIFORM
    }
}

impl Default for LossWeights {
    /// Values ×4, names ×2, keys ×1.5 (what tool-calling models of this size
    /// are trained with), the first token of a turn ×4.
    fn default() -> LossWeights {
        LossWeights {
            value: 4.0,
            name: 2.0,
            key: 1.5,
            decision: 4.0,
        }
    }
}

/// The weight of every byte of `text`: 1 outside the assistant's `spans`;
/// inside them, per [`LossWeights`], with `facts` (the tool results an
/// answer must repeat) weighed as values wherever an answer holds them.
pub fn byte_weights(
    text: &str,
    spans: &[Range<usize>],
    facts: &[&str],
    weights: &LossWeights,
) -> Vec<f32> {
    let mut out = vec![1.0f32; text.len()];
    for span in spans {
        let Some(turn) = text.get(span.clone()) else {
            continue;
        };
        let mut mark = |range: Range<usize>, w: f32| {
            for b in &mut out[span.start + range.start..span.start + range.end] {
                *b = b.max(w);
            }
        };
        let mut rest = 0;
        while let Some(open) = turn[rest..].find(CALL_OPEN) {
            let body = rest + open + CALL_OPEN.len();
            let end = turn[body..]
                .find(CALL_CLOSE)
                .map_or(turn.len(), |e| body + e);
            for (range, kind) in json_parts(&turn[body..end]) {
                let w = match kind {
                    Part::Name => weights.name,
                    Part::Key => weights.key,
                    Part::Value => weights.value,
                };
                mark(body + range.start..body + range.end, w);
            }
            rest = end;
        }
        for fact in facts.iter().filter(|f| !f.is_empty()) {
            for (at, _) in turn.match_indices(fact) {
                mark(at..at + fact.len(), weights.value);
            }
        }
        if let Some(first) = turn.chars().next() {
            mark(0..first.len_utf8(), weights.decision);
        }
    }
    out
}

/// The weight of each token: the largest weight of its bytes.
pub fn token_weights(bytes: &[f32], offsets: &[(usize, usize)]) -> Vec<f32> {
    offsets
        .iter()
        .map(|&(start, end)| {
            bytes
                .get(start..end.min(bytes.len()))
                .and_then(|b| b.iter().copied().reduce(f32::max))
                .unwrap_or(1.0)
        })
        .collect()
}

const CALL_OPEN: &str = "<tool_call>";
const CALL_CLOSE: &str = "</tool_call>";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Part {
    Name,
    Key,
    Value,
}

/// The byte ranges of a call's `{"name": ..., "arguments": {...}}` that are
/// its tool name, its argument names and its argument values (strings with
/// their quotes, numbers, literals). A truncated call gives what it has.
fn json_parts(json: &str) -> Vec<(Range<usize>, Part)> {
    let b = json.as_bytes();
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut top_key: &str = "";
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(b, i);
                let is_key = b[end..]
                    .iter()
                    .find(|c| !c.is_ascii_whitespace())
                    .is_some_and(|&c| c == b':');
                if depth == 1 && is_key {
                    top_key = json.get(i + 1..end.saturating_sub(1)).unwrap_or("");
                } else if depth == 1 && top_key == "name" {
                    parts.push((i..end, Part::Name));
                } else if depth >= 2 {
                    parts.push((i..end, if is_key { Part::Key } else { Part::Value }));
                }
                i = end;
                continue;
            }
            c if c == b'-' || c.is_ascii_alphanumeric() => {
                let start = i;
                while i < b.len()
                    && (b[i] == b'-'
                        || b[i] == b'.'
                        || b[i] == b'+'
                        || b[i].is_ascii_alphanumeric())
                {
                    i += 1;
                }
                if depth >= 2 {
                    parts.push((start..i, Part::Value));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts
}

/// The index just past the string that opens at `start` (its closing quote
/// included), or the end of the text when it is not closed.
fn string_end(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One span (a literal `[a..b]` reads as a mistake to clippy).
    fn span(start: usize, end: usize) -> Range<usize> {
        start..end
    }

    fn weighed(text: &str, facts: &[&str]) -> Vec<(String, f32)> {
        let w = byte_weights(text, &[span(0, text.len())], facts, &LossWeights::default());
        // Runs of equal weight, as text.
        let mut runs: Vec<(String, f32)> = Vec::new();
        for (i, c) in text.char_indices() {
            let w = w[i];
            match runs.last_mut() {
                Some((s, last)) if *last == w => s.push(c),
                _ => runs.push((c.to_string(), w)),
            }
        }
        runs
    }

    #[test]
    fn a_calls_values_name_and_keys_weigh_more_than_its_structure() {
        let call = r#"<tool_call>{"name": "get_weather", "arguments": {"city": "São Paulo", "days": 3, "hot": true}}</tool_call><|im_end|>"#;
        let runs = weighed(call, &[]);
        let get = |s: &str| runs.iter().find(|r| r.0 == s).map(|r| r.1);
        assert_eq!(runs[0], ("<".to_owned(), 4.0), "the decision");
        assert_eq!(get("\"get_weather\""), Some(2.0));
        assert_eq!(get("\"city\""), Some(1.5));
        assert_eq!(get("\"days\""), Some(1.5));
        assert_eq!(get("3"), Some(4.0));
        assert_eq!(get("true"), Some(4.0));
        assert_eq!(get("}}</tool_call><|im_end|>"), Some(1.0));
        let w = byte_weights(call, &[span(0, call.len())], &[], &LossWeights::default());
        let at = call.find("São Paulo").unwrap() - 1;
        assert!(w[at..at + "\"São Paulo\"".len()].iter().all(|&x| x == 4.0));
    }

    #[test]
    fn facts_in_answers_weigh_as_values_and_text_outside_turns_as_one() {
        let text = "prompt 21.5 here<|im_start|>assistant\nIt is 21.5°C in Oslo.<|im_end|>";
        let start = text.find("It is").unwrap();
        let w = byte_weights(
            text,
            &[span(start, text.len())],
            &["21.5"],
            &LossWeights::default(),
        );
        assert!(
            w[..start].iter().all(|&x| x == 1.0),
            "the prompt's 21.5 is not the answer's"
        );
        let fact = text.rfind("21.5").unwrap();
        assert!(w[fact..fact + 4].iter().all(|&x| x == 4.0));
        assert_eq!(w[start], 4.0, "the decision");
        assert_eq!(w[start + 1], 1.0);
        let uniform = byte_weights(
            text,
            &[span(start, text.len())],
            &["21.5"],
            &LossWeights::UNIFORM,
        );
        assert!(uniform.iter().all(|&x| x == 1.0));
    }

    #[test]
    fn truncated_or_odd_calls_never_panic() {
        for text in [
            "<tool_call>",
            "<tool_call>{\"name\": \"a",
            "<tool_call>{\"arguments\": {\"q\": \"a\\\"",
            "<tool_call>}}]]{\"x\":",
            "<tool_call>{\"name\": \"a\"}</tool_call><tool_call>",
        ] {
            let w = byte_weights(text, &[span(0, text.len())], &[""], &LossWeights::default());
            assert_eq!(w.len(), text.len());
        }
    }

    #[test]
    fn a_token_weighs_as_its_heaviest_byte() {
        assert_eq!(
            token_weights(&[1.0, 4.0, 1.0, 2.0], &[(0, 2), (2, 3), (3, 4), (4, 4)]),
            vec![4.0, 1.0, 2.0, 1.0]
        );
    }
}
