//! The 269 tool-call parsing vectors of `../shared/fixtures/tool-call-parsing/`
//! (vLLM's and llama.cpp's parser suites as data), parsed whole, with the
//! suites' own stream deltas, at every single-byte cut and at random cuts.
//!
//! Deliberate disagreements are listed in [`DISAGREE`], each with its reason.

mod common;

use proptest::prelude::*;
use serde_json::Value;
use std::sync::OnceLock;
use tool_use::models::parse::{Format, ParseOptions, ParsedResponse, ReasoningStart, StreamEvent};

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/fixtures/tool-call-parsing/vectors.jsonl"
);

/// `(line index, what we skip, why)`.
const DISAGREE: &[(usize, Skip, &str)] = &[
    (
        128,
        Skip::Content,
        "vLLM's non-streaming Mistral parser drops text after the call list; its streaming \
         parser (vector 141, same output) keeps it as content, and so do we",
    ),
    (
        129,
        Skip::Calls,
        "vLLM rejects a second `[TOOL_CALLS]` list (a quirk of its pre-v11 regex); both \
         lists are well-formed calls, so we return both",
    ),
    (
        131,
        Skip::Content,
        "vLLM returns the text after `[TOOL_CALLS]` as content; we report it as an \
         InvalidToolCall with the raw text (no valid call either way)",
    ),
    (
        211,
        Skip::Calls,
        "a string value containing a complete `<parameter>…</function></tool_call>` block: \
         telling it from the real end needs the whole output (lookahead to EOF), which a \
         streaming parser that emits calls as they close cannot have",
    ),
    (
        261,
        Skip::Content,
        "vLLM's xLAM parser leaves `<think>…</think>` in the content; the issue says text \
         inside <think>…</think> is reasoning, for every format",
    ),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    Content,
    Calls,
}

struct Vector {
    line: usize,
    v: Value,
    format: Format,
    options: ParseOptions,
}

fn vectors() -> &'static [Vector] {
    static V: OnceLock<Vec<Vector>> = OnceLock::new();
    V.get_or_init(|| {
        let text = std::fs::read_to_string(VECTORS).expect("vectors.jsonl");
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(line, l)| {
                let v: Value = serde_json::from_str(l).expect("vector JSON");
                let id = v["format"].as_str().unwrap_or_default();
                let format = Format::from_id(id).unwrap_or_else(|e| panic!("line {line}: {e}"));
                let tools = v["tools"].as_array().cloned().unwrap_or_default();
                let options = ParseOptions {
                    tools,
                    reasoning: reasoning_start(&v),
                };
                Vector {
                    line,
                    v,
                    format,
                    options,
                }
            })
            .collect()
    })
}

/// Where generation started, from the llama.cpp case's template settings
/// (the README: "the parser must be told where generation starts").
/// Otherwise `Auto`, which applies the unmatched-`</think>` rule.
fn reasoning_start(v: &Value) -> ReasoningStart {
    let note = v["note"].as_str().unwrap_or_default();
    let fmt = v["format"].as_str().unwrap_or_default();
    let opened = [
        "opened <think>",
        "ends with <think>",
        "thinking forced open",
        "starts inside",
    ]
    .iter()
    .any(|p| note.contains(p));
    // Reka-Edge and DeepSeek V3.1 prefill `<think>` whenever thinking is on.
    let prefilled = note.contains("enable_thinking=true")
        && v.get("llama_cpp_template").is_some()
        && matches!(fmt, "hermes" | "deepseek_v31");
    if opened || prefilled {
        ReasoningStart::Open
    } else {
        ReasoningStart::Auto
    }
}

fn trimmed(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("").trim()
}

fn check(vec: &Vector, r: &ParsedResponse) -> Result<(), String> {
    let v = &vec.v;
    let skip = DISAGREE
        .iter()
        .filter(|d| d.0 == vec.line)
        .map(|d| d.1)
        .collect::<Vec<_>>();
    let expected = v["expected_tool_calls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !skip.contains(&Skip::Calls) {
        if v["expect_error"].as_bool() == Some(true) {
            if !r.tool_calls.is_empty() {
                return Err(format!("expected no valid call, got {:?}", r.tool_calls));
            }
        } else {
            let (raw, good): (Vec<&Value>, Vec<&Value>) = expected
                .iter()
                .partition(|c| c.get("arguments_raw").is_some());
            if good.len() != r.tool_calls.len() {
                return Err(format!(
                    "expected {} calls, got {:?} (invalid: {:?})",
                    good.len(),
                    r.tool_calls,
                    r.invalid_tool_calls
                ));
            }
            for (e, got) in good.iter().zip(&r.tool_calls) {
                if e["name"] != got.name.as_str() || e["arguments"] != got.arguments {
                    return Err(format!("expected {e}, got {got:?}"));
                }
                if let Some(id) = e.get("id") {
                    if id != got.id.as_str() {
                        return Err(format!("expected id {id}, got {}", got.id));
                    }
                }
            }
            // Expected unreadable calls must be reported, in order; other
            // invalid calls (a bad sibling, a rejected id) may be reported too.
            let mut invalid = r.invalid_tool_calls.iter();
            for e in raw {
                let found = invalid.any(|got| {
                    got.name.as_deref() == e["name"].as_str()
                        && got.raw_arguments.as_deref().map(str::trim)
                            == e["arguments_raw"].as_str()
                });
                if !found {
                    return Err(format!(
                        "expected invalid {e}, got {:?}",
                        r.invalid_tool_calls
                    ));
                }
            }
        }
    }
    if !skip.contains(&Skip::Content) {
        let content = trimmed(&r.content);
        if v["content_is_none"].as_bool() == Some(true) {
            if !content.is_empty() {
                return Err(format!("expected no content, got {content:?}"));
            }
        } else if let Some(e) = v["expected_content"].as_str() {
            if content != e.trim() {
                return Err(format!("expected content {:?}, got {content:?}", e.trim()));
            }
        }
        for s in v["expected_content_contains"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let s = s.as_str().unwrap_or_default();
            if !content.contains(s) {
                return Err(format!("content {content:?} lacks {s:?}"));
            }
        }
        for s in v["expected_content_not_contains"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let s = s.as_str().unwrap_or_default();
            if content.contains(s) {
                return Err(format!("content {content:?} has {s:?}"));
            }
        }
        if let Some(e) = v["expected_reasoning"].as_str() {
            let got = trimmed(&r.reasoning);
            if got != e.trim() {
                return Err(format!("expected reasoning {:?}, got {got:?}", e.trim()));
            }
        }
    }
    Ok(())
}

fn output(v: &Vector) -> &str {
    v.v["output"].as_str().unwrap_or_default()
}

fn parse_chunks<'a>(v: &Vector, chunks: impl IntoIterator<Item = &'a str>) -> ParsedResponse {
    let mut p = v.format.stream(&v.options);
    let mut c = tool_use::models::parse::Collector::default();
    for chunk in chunks {
        c.extend(p.feed(chunk));
    }
    c.extend(p.finish());
    c.finish()
}

#[test]
fn every_vector_parses_as_expected() {
    let mut failures = Vec::new();
    let mut passed = 0;
    for v in vectors() {
        let r = v.format.parse(output(v), &v.options);
        match check(v, &r) {
            Ok(()) => passed += 1,
            Err(e) => failures.push(format!(
                "line {} [{}] {}: {e}",
                v.line,
                v.v["format"],
                v.v["source"].as_str().unwrap_or_default()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{passed}/{} pass; failures:\n{}",
        vectors().len(),
        failures.join("\n")
    );
    assert_eq!(vectors().len(), 269);
}

#[test]
fn the_suites_stream_deltas_give_the_same_result() {
    for v in vectors() {
        let Some(deltas) = v.v["stream_deltas"].as_array() else {
            continue;
        };
        let whole = v.format.parse(output(v), &v.options);
        let streamed = parse_chunks(v, deltas.iter().filter_map(Value::as_str));
        assert_eq!(whole, streamed, "line {}", v.line);
    }
}

#[test]
fn every_single_cut_gives_the_same_result() {
    for v in vectors() {
        let out = output(v);
        let whole = v.format.parse(out, &v.options);
        for (i, _) in out.char_indices().skip(1) {
            let r = parse_chunks(v, [&out[..i], &out[i..]]);
            assert_eq!(whole, r, "line {} cut at byte {i}", v.line);
        }
        // One character at a time.
        let chars: Vec<String> = out.chars().map(String::from).collect();
        let r = parse_chunks(v, chars.iter().map(String::as_str));
        assert_eq!(whole, r, "line {} char by char", v.line);
        // Byte chunks, cutting inside characters.
        let mut p = v.format.stream(&v.options);
        let mut c = tool_use::models::parse::Collector::default();
        for b in out.as_bytes().chunks(1) {
            c.extend(p.feed_bytes(b));
        }
        c.extend(p.finish());
        assert_eq!(whole, c.finish(), "line {} byte by byte", v.line);
    }
}

/// Checks a call's events: start, arguments, end, in that order, with the
/// streamed arguments equal to the final ones (as JSON values; as text
/// too where the model wrote them compactly, since streaming only drops
/// whitespace). Returns how many argument pieces each ended call had.
fn check_call_events(events: &[StreamEvent]) -> Result<Vec<usize>, String> {
    use std::collections::BTreeMap;
    let mut open: BTreeMap<usize, (String, usize)> = BTreeMap::new();
    let mut pieces = Vec::new();
    for e in events {
        match e {
            StreamEvent::ToolCallStart { index, .. } => {
                open.insert(*index, (String::new(), 0))
                    .map_or(Ok(()), |_| Err(format!("call {index} started twice")))?;
            }
            StreamEvent::ToolCallArguments { index, delta } => {
                let (text, n) = open
                    .get_mut(index)
                    .ok_or_else(|| format!("arguments of call {index} before its start"))?;
                text.push_str(delta);
                *n += 1;
            }
            StreamEvent::ToolCallEnd { index, call } => {
                let (text, n) = open
                    .remove(index)
                    .ok_or_else(|| format!("call {index} ended without a start"))?;
                let streamed: Value = serde_json::from_str(&text)
                    .map_err(|e| format!("call {index}: streamed arguments {text:?}: {e}"))?;
                if streamed != call.arguments {
                    return Err(format!(
                        "call {index}: streamed {streamed}, final {}",
                        call.arguments
                    ));
                }
                pieces.push(n);
            }
            _ => {}
        }
    }
    Ok(pieces)
}

fn events<'a>(v: &Vector, chunks: impl IntoIterator<Item = &'a str>) -> Vec<StreamEvent> {
    let mut p = v.format.stream(&v.options);
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(p.feed(chunk));
    }
    out.extend(p.finish());
    out
}

/// Arguments are streamed as they are written (JSON call objects, name
/// first), and however the output is cut the pieces add up to the final
/// arguments.
#[test]
fn streamed_arguments_add_up_to_the_final_ones_at_every_cut() {
    let mut streamed_calls = 0;
    for v in vectors() {
        let out = output(v);
        for (i, _) in out.char_indices().skip(1) {
            check_call_events(&events(v, [&out[..i], &out[i..]]))
                .unwrap_or_else(|e| panic!("line {} cut at byte {i}: {e}", v.line));
        }
        let chars: Vec<String> = out.chars().map(String::from).collect();
        check_call_events(&events(v, chars.iter().map(String::as_str)))
            .unwrap_or_else(|e| panic!("line {} char by char: {e}", v.line));
        // `ReasoningStart::Auto` holds all text back until it knows where
        // reasoning ends; from a known start, calls stream as written.
        let known = Vector {
            line: v.line,
            v: v.v.clone(),
            format: v.format,
            options: ParseOptions {
                reasoning: match v.options.reasoning {
                    ReasoningStart::Auto => ReasoningStart::Closed,
                    other => other,
                },
                ..v.options.clone()
            },
        };
        let pieces = check_call_events(&events(&known, chars.iter().map(String::as_str)))
            .unwrap_or_else(|e| panic!("line {} char by char: {e}", v.line));
        streamed_calls += pieces.iter().filter(|&&n| n > 1).count();
    }
    // Fed a character at a time, calls in JSON formats arrive piece by piece.
    assert!(streamed_calls >= 40, "{streamed_calls} calls streamed");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn random_cuts_give_the_same_result(
        idx in 0usize..269,
        cuts in proptest::collection::vec(0usize..4096, 0..12),
    ) {
        let v = &vectors()[idx % vectors().len()];
        let out = output(v);
        let chunks = common::cut_at(out, cuts);
        let whole = v.format.parse(out, &v.options);
        prop_assert_eq!(whole, parse_chunks(v, chunks));
    }
}
