//! Fuzzing every parser with outputs stitched from the formats' own markers:
//! no panic, the same result however the text is cut, linear time on 1 MB
//! outputs, and deep nesting reported instead of overflowing the stack.

mod common;

use proptest::prelude::*;
use std::time::{Duration, Instant};
use tool_use::parse::{Collector, Format, ParseOptions, ParsedResponse, ReasoningStart};

const PIECES: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "[THINK]",
    "[/THINK]",
    "<|python_tag|>",
    "<|python_start|>",
    "<|python_end|>",
    "<function=f>",
    "<parameter=a>",
    "</parameter>",
    "</function>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<|channel|>",
    "<|message|>",
    "<|end|>",
    "<|start|>",
    " to=functions.f",
    "analysis",
    "final",
    "<start_function_call>",
    "call:f{",
    "<escape>",
    "<end_function_call>",
    "<|START_ACTION|>",
    "<|END_ACTION|>",
    "<|START_THINKING|>",
    "<|END_THINKING|>",
    "Action:",
    "```json",
    "```",
    "functools",
    "<|tool_call|>",
    "<function_call>",
    "<|action_start|><|plugin|>",
    "<|action_end|>",
    "{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
    "{\"name\": \"f\", \"parameters\": {}}",
    "[{\"name\": \"g\", \"arguments\": {}}]",
    "f(a=1, b='x')",
    "[f(a=1)]",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\"",
    "'",
    "\\",
    ";",
    ",",
    ":",
    "\n",
    " ",
    "hello",
    "é",
    "🌈",
    "<",
    ">",
    "|",
    "<co>",
    "</co: 0:[1]>",
    "null",
    "1",
    "true",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<invoke name=\"f\">",
    "<parameter name=\"a\">",
    "</invoke>",
    "<arg_key>",
    "a",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<seed:think>",
    "</seed:think>",
    "<TOOLCALL>",
    "</TOOLCALL>",
    "<|tools_prefix|>",
    "<|tools_suffix|>",
    "[{\"f\": {\"a\": 1}}]",
    "<|tool_call_start|>",
    ">>>",
    "all\n",
    "f\n",
];

fn parse_chunked(format: Format, options: &ParseOptions, chunks: &[&str]) -> ParsedResponse {
    let mut p = format.stream(options);
    let mut c = Collector::default();
    for ch in chunks {
        c.extend(p.feed(ch));
    }
    c.extend(p.finish());
    c.finish()
}

fn options(reasoning: ReasoningStart) -> ParseOptions {
    ParseOptions {
        tools: tool_use::ToolDefinition::list_from_json(&[
            serde_json::json!({"type": "function", "function": {"name": "f",
            "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}),
        ])
        .unwrap(),
        reasoning,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn any_cut_of_any_stitched_output_agrees(
        pieces in proptest::collection::vec(0..PIECES.len(), 0..40),
        cuts in proptest::collection::vec(0usize..10_000, 0..10),
        mode in 0u8..3,
    ) {
        let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
        let chunks = common::cut_at(&text, cuts);
        let reasoning = [ReasoningStart::Closed, ReasoningStart::Open, ReasoningStart::Auto][mode as usize];
        let opts = options(reasoning);
        for format in Format::all() {
            let whole = format.parse(&text, &opts);
            prop_assert_eq!(&whole, &parse_chunked(format, &opts, &chunks), "{} on {:?}", format, text);
        }
    }
}

/// Feeds `text` in 64-byte pieces and fails when it takes unreasonably long
/// (a quadratic parser takes hours on 1 MB).
fn timed(format: Format, text: &str, what: &str) {
    let opts = options(ReasoningStart::Auto);
    let start = Instant::now();
    let mut chunks = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut n = rest.len().min(64);
        while !rest.is_char_boundary(n) {
            n += 1;
        }
        chunks.push(&rest[..n]);
        rest = &rest[n..];
    }
    let _ = parse_chunked(format, &opts, &chunks);
    let _ = format.parse(text, &opts);
    let took = start.elapsed();
    if std::env::var_os("PARSER_FUZZ_TIMES").is_some() {
        eprintln!("{format} {what}: {took:?}");
    }
    assert!(
        took < Duration::from_secs(20),
        "{format} on 1 MB of {what}: {took:?}"
    );
}

#[test]
fn one_megabyte_outputs_parse_in_linear_time() {
    const MB: usize = 1 << 20;
    let fill = |s: &str| s.repeat(MB / s.len() + 1);
    for format in Format::all() {
        for (what, text) in [
            ("prose", fill("Hello there, how are you? ")),
            ("open brackets", fill("[")),
            ("open braces", fill("{")),
            ("quotes", fill("\"'")),
            ("angle brackets", fill("<")),
            ("unclosed call", format!("<tool_call>{{\"name\": \"f\", \"arguments\": {{\"a\": \"{}", fill("x"))),
            ("unclosed xml value", format!("<tool_call>\n<function=f>\n<parameter=a>\n{}", fill("</parameter>x<parameter=a>"))),
            ("mistral args", format!("[TOOL_CALLS]f{{\"a\": \"{}", fill("x"))),
            ("pythonic", format!("[f(a='{}", fill("x"))),
            ("kimi", format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}", fill("{"))),
            ("deepseek", format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}", fill("x"))),
            ("harmony", format!("<|channel|>analysis<|message|>{}", fill("<|x"))),
            ("minimax value", format!("<minimax:tool_call><invoke name=\"f\"><parameter name=\"a\">{}", fill("<param"))),
            ("glm value", format!("<tool_call>f<arg_key>a</arg_key><arg_value>{}", fill("</arg_valu"))),
            ("recipients", format!(">>>f\n{}", fill(">>"))),
            ("many calls", fill("<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>[TOOL_CALLS]f{}[f()]")),
        ] {
            timed(format, &text, what);
        }
    }
}

#[test]
fn deep_nesting_is_an_invalid_call_not_a_crash() {
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let obj = format!("{{\"name\": \"f\", \"arguments\": {{\"a\": {deep}}}}}");
    for format in Format::all() {
        for text in [
            format!("<tool_call>{obj}</tool_call>"),
            format!("[TOOL_CALLS][{obj}]"),
            format!("[f(a={deep})]"),
            format!("<tool_call>\n<function=f>\n<parameter=a>\n{deep}\n</parameter>\n</function>\n</tool_call>"),
            obj.clone(),
        ] {
            let r = format.parse(&text, &options(ReasoningStart::Closed));
            assert!(r.tool_calls.iter().all(|c| c.arguments.to_string().len() < 10_000 || format == Format::Qwen3Xml), "{format}");
        }
    }
}

#[test]
fn whitespace_after_a_start_marker_is_skipped_wherever_the_text_is_cut() {
    // A cut right after `<|python_start|>` once kept the whitespace after it
    // in an invalid call's raw text, where the whole reading dropped it.
    let opts = options(ReasoningStart::Closed);
    for text in [
        "<|python_start|>\n \n[f(a=1)]<|python_end|>",
        "<|python_start|>\n \n<|end|>g(",
        "<|tool_call_start|>\n [f(a=1)]<|tool_call_end|>",
        "<|tool_call_start|> \n{x}",
    ] {
        for format in Format::all() {
            let whole = format.parse(text, &opts);
            for cut in 0..=text.len() {
                if !text.is_char_boundary(cut) {
                    continue;
                }
                let chunked = parse_chunked(format, &opts, &[&text[..cut], &text[cut..]]);
                assert_eq!(whole, chunked, "{format} on {text:?} cut at {cut}");
            }
        }
    }
}
