//! The 269 tool-call parsing vectors of `../shared/fixtures/tool-call-parsing/`
//! and the 313 of `tests/data/tool_call_families.jsonl` (vLLM's and
//! llama.cpp's parser suites as data), parsed whole, with the suites' own
//! stream deltas, at every single-byte cut and at random cuts.
//!
//! Deliberate disagreements are listed in [`DISAGREE`] and
//! [`FAMILY_DISAGREE`], each with its reason.

mod common;
#[path = "common/fixtures.rs"]
mod fixtures;

use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;
use tool_use::parse::{Format, ParseOptions, ParsedResponse, ReasoningStart, StreamEvent};
use tool_use::ToolDefinition;

const FAMILIES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/tool_call_families.jsonl"
);

/// Shared vectors: `(line index, what we skip, why)`.
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
        201,
        Skip::Calls,
        "the call names `test`, which the tool list does not offer; vLLM's streaming test \
         predates its `validate_tool_names`, and a call to a tool not offered is invalid here",
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

/// Family vectors: `(source, or the start of the sources, what we skip, why)`.
const FAMILY_DISAGREE: &[(&str, Skip, &str)] = &[
    (
        "vllm tests/reasoning/test_minimax_m2_append_reasoning_parser.py",
        Skip::Content,
        "vLLM's `minimax_m2_append_think` option leaves `<think>…</think>` in the content; \
         we split reasoning out, as its `minimax_m2` reasoning parser does",
    ),
    (
        "vllm rust/src/parser/src/tool/minimax_m2.rs::minimax_m2_parse_complete_preserves_prefix_and_ignores_trailing_text",
        Skip::Content,
        "vLLM's Rust parser drops text after the call block; we keep it as content, so that \
         nothing the model wrote is lost",
    ),
    (
        "vllm rust/src/parser/src/tool/minimax_m2.rs::minimax_m2_streaming_ignores_text_after_tool_block",
        Skip::Content,
        "vLLM's Rust parser drops text after the call block; we keep it as content",
    ),
    (
        "vllm rust/src/parser/src/tool/glm_xml/mod.rs::glm45_streaming_ignores_trailing_text_after_tool_calls",
        Skip::Content,
        "vLLM's Rust parser drops text after the calls (`<|endoftext|>` here); we keep it as \
         content (a server strips its own stop strings)",
    ),
    (
        "llama.cpp tests/test-chat.cpp:4630",
        Skip::Calls,
        "a stale llama.cpp test: it expects a parse error for trailing whitespace after the \
         call, which llama.cpp itself no longer raises (it returns this call, as we do)",
    ),
    (
        "vllm tests/reasoning/test_glm4_moe_reasoning_parser.py::test_reasoning[without_think",
        Skip::Content,
        "vLLM's GLM reasoning parser assumes the prompt opened `<think>`; without that \
         knowledge (ReasoningStart::Auto) untagged text is content, and with \
         ReasoningStart::Open it is reasoning",
    ),
    (
        "vllm rust/src/parser/src/tool/glm_xml/mod.rs::glm45_malformed_tool_call_fails_fast",
        Skip::Calls,
        "vLLM's Rust GLM-4.5 parser rejects GLM-4.7's layout (no newline after the name); \
         one GLM parser reads both layouts here, as vLLM's Python parser does",
    ),
    (
        "vllm rust/src/parser/src/reasoning/seed_oss.rs::without_prompt_markers_expects_start_token",
        Skip::Content,
        "ReasoningStart::Auto reads text before an unmatched `</seed:think>` as reasoning the \
         prompt opened; vLLM's Rust parser wants the opening tag",
    ),
    (
        "vllm tests/tool_parsers/test_apertus_tool_parser.py::TestExtractToolCalls::test_incomplete_tool_call",
        Skip::Calls,
        "vLLM repairs the cut-off list `[{…}` with a partial-JSON parser and makes the call; \
         a call cut off before it closes is reported as invalid here, in every family",
    ),
    (
        "llama.cpp tests/test-chat.cpp:2116",
        Skip::Calls,
        "llama.cpp's partial parse (`is_partial`) of a call cut off inside its arguments; \
         here its arguments stream while it grows and, if the output ends there, it is \
         reported as invalid",
    ),
    (
        "vllm tests/tool_parsers/test_lfm2_tool_parser.py::test_tool_call[nested_",
        Skip::Calls,
        "not Python: quotes nested inside a string of the same quote; vLLM guesses where the \
         string ends, we report the call as invalid with its raw text",
    ),
    (
        "vllm tests/tool_parsers/test_lfm2_tool_parser.py::test_echoed_tool_call_body_not_leaked_to_content",
        Skip::Content,
        "vLLM drops a repeated call body after `<|tool_call_end|>`; we keep it as content",
    ),
    (
        "vllm tests/tool_parsers/test_lfm2_tool_parser.py::test_regex_timeout_handling",
        Skip::Content,
        "vLLM gives an unreadable call list back as content; we report each unreadable call \
         as invalid with its raw text",
    ),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    Content,
    Calls,
}

struct Vector {
    /// `shared:<line>` or `families:<line>`, for messages.
    line: String,
    v: Value,
    format: Format,
    options: ParseOptions,
    skip: Vec<Skip>,
}

fn load(path: &Path, tag: &str) -> Vec<Vector> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(line, l)| {
            let v: Value = serde_json::from_str(l).expect("vector JSON");
            let id = v["format"].as_str().unwrap_or_default();
            let format = Format::from_id(id).unwrap_or_else(|e| panic!("line {line}: {e}"));
            let tools = ToolDefinition::list_from_json(v["tools"].as_array().into_iter().flatten())
                .unwrap_or_else(|e| panic!("line {line}: {e}"));
            let reasoning = match v["reasoning_start"].as_str() {
                Some("open") => ReasoningStart::Open,
                Some("closed") => ReasoningStart::Closed,
                Some(_) => ReasoningStart::Auto,
                None => reasoning_start(&v),
            };
            let source = v["source"].as_str().unwrap_or_default();
            let skip = if tag == "shared" {
                DISAGREE
                    .iter()
                    .filter(|d| d.0 == line)
                    .map(|d| d.1)
                    .collect()
            } else {
                FAMILY_DISAGREE
                    .iter()
                    .filter(|d| source.starts_with(d.0))
                    .map(|d| d.1)
                    .collect()
            };
            Vector {
                line: format!("{tag}:{line}"),
                v,
                format,
                options: ParseOptions { tools, reasoning },
                skip,
            }
        })
        .collect()
}

/// Every vector, and whether the shared ones were there to load (a clone
/// without the shared fixtures checks the committed families alone).
fn loaded() -> &'static (Vec<Vector>, bool) {
    static V: OnceLock<(Vec<Vector>, bool)> = OnceLock::new();
    V.get_or_init(|| {
        let shared = fixtures::file("tool-call-parsing", "vectors.jsonl");
        let mut all = shared
            .as_deref()
            .map(|file| load(file, "shared"))
            .unwrap_or_default();
        all.extend(load(Path::new(FAMILIES), "families"));
        (all, shared.is_some())
    })
}

fn vectors() -> &'static [Vector] {
    &loaded().0
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

/// Whether `got` has every key of `subset` with the same value.
fn has_subset(got: &Value, subset: &Value) -> bool {
    subset
        .as_object()
        .is_some_and(|s| s.iter().all(|(k, v)| got.get(k) == Some(v)))
}

/// The strings a vector lists under either of `keys` (the suites name the
/// same expectation two ways).
fn listed<'a>(v: &'a Value, keys: [&'static str; 2]) -> impl Iterator<Item = &'a str> {
    keys.into_iter()
        .filter_map(|k| v[k].as_array())
        .flatten()
        .map(|s| s.as_str().unwrap_or_default())
}

fn check(vec: &Vector, r: &ParsedResponse) -> Result<(), String> {
    let v = &vec.v;
    let skip = &vec.skip;
    let expected = v["expected_tool_calls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // `null`: the suite does not assert the calls.
    let calls_asserted = !v["expected_tool_calls"].is_null();
    if !skip.contains(&Skip::Calls) && (calls_asserted || v["expect_error"].as_bool() == Some(true))
    {
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
                let args_ok = if let Some(sub) = e.get("arguments_subset") {
                    has_subset(&got.arguments, sub)
                } else if e.get("arguments").is_some() {
                    e["arguments"] == got.arguments
                } else {
                    true // only the name is asserted
                };
                if e["name"] != got.name.as_str() || !args_ok {
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
        for s in listed(v, ["expected_content_contains", "content_contains"]) {
            // Untrimmed: a suite may assert the space before a call.
            if !r.content.as_deref().unwrap_or_default().contains(s) {
                return Err(format!("content {content:?} lacks {s:?}"));
            }
        }
        for s in listed(v, ["expected_content_not_contains", "content_not_contains"]) {
            if content.contains(s) {
                return Err(format!("content {content:?} has {s:?}"));
            }
        }
        if let Some(options) = v["content_in"].as_array() {
            if !options
                .iter()
                .any(|o| o.as_str().map(str::trim) == Some(content))
            {
                return Err(format!("content {content:?} is none of {options:?}"));
            }
        }
        if let Some(e) = v["expected_reasoning"].as_str() {
            let got = trimmed(&r.reasoning);
            if got != e.trim() {
                return Err(format!("expected reasoning {:?}, got {got:?}", e.trim()));
            }
        }
        if v["reasoning_is_none"].as_bool() == Some(true) && !trimmed(&r.reasoning).is_empty() {
            return Err(format!("expected no reasoning, got {:?}", r.reasoning));
        }
        for s in v["reasoning_contains"].as_array().into_iter().flatten() {
            let s = s.as_str().unwrap_or_default();
            if !trimmed(&r.reasoning).contains(s) {
                return Err(format!("reasoning {:?} lacks {s:?}", r.reasoning));
            }
        }
    }
    if !skip.contains(&Skip::Calls) {
        for e in v["tool_calls_contains"].as_array().into_iter().flatten() {
            let found = r.tool_calls.iter().any(|c| {
                e["name"].as_str().is_none_or(|n| n == c.name)
                    && e.get("arguments").is_none_or(|a| *a == c.arguments)
                    && e.get("arguments_subset")
                        .is_none_or(|a| has_subset(&c.arguments, a))
            });
            if !found {
                return Err(format!("no call like {e} in {:?}", r.tool_calls));
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
    let mut c = tool_use::parse::Collector::default();
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
        "{passed}/{} pass; {} failures:\n{}",
        vectors().len(),
        failures.len(),
        failures.join("\n")
    );
    for (source, _, _) in FAMILY_DISAGREE {
        assert!(
            vectors().iter().any(|v| v.v["source"]
                .as_str()
                .is_some_and(|s| s.starts_with(source))),
            "FAMILY_DISAGREE names no vector: {source}"
        );
    }
    let from = |tag: &str| vectors().iter().filter(|v| v.line.starts_with(tag)).count();
    let shared = if loaded().1 { 269 } else { 0 };
    assert_eq!((from("shared:"), from("families:")), (shared, 313));
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
        let mut c = tool_use::parse::Collector::default();
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
    // Per format: calls ended, and those that arrived in several pieces.
    let mut by_format: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
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
            line: v.line.clone(),
            v: v.v.clone(),
            skip: v.skip.clone(),
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
        let streamed = pieces.iter().filter(|&&n| n > 1).count();
        streamed_calls += streamed;
        let entry = by_format.entry(format!("{:?}", v.format)).or_default();
        entry.0 += pieces.len();
        entry.1 += streamed;
    }
    // Every family streams its arguments while the call is written.
    let whole: Vec<_> = by_format
        .iter()
        .filter(|(_, &(ended, streamed))| ended > 0 && streamed == 0)
        .collect();
    assert!(whole.is_empty(), "calls arrive whole in {whole:?}");
    // Fed a character at a time, calls in JSON formats arrive piece by piece.
    assert!(streamed_calls >= 40, "{streamed_calls} calls streamed");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn random_cuts_give_the_same_result(
        idx in 0usize..100_000,
        cuts in proptest::collection::vec(0usize..4096, 0..12),
    ) {
        let v = &vectors()[idx % vectors().len()];
        let out = output(v);
        let chunks = common::cut_at(out, cuts);
        let whole = v.format.parse(out, &v.options);
        prop_assert_eq!(whole, parse_chunks(v, chunks));
    }
}
