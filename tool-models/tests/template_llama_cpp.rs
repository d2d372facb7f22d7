//! Every chat template of llama.cpp's `models/templates/` (71 real models:
//! GLM, MiniMax, Kimi, LFM2, Seed-OSS, gpt-oss, Granite, Apertus, ...) over
//! eight conversations, against transformers' own renders
//! (`scripts/llama_cpp_templates.py` wrote their hashes).

use serde_json::{Map, Value};
use std::collections::BTreeSet;
use tool_models::template::{ChatTemplate, Clock, DateTime};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/llama-cpp-templates"
);

/// Where we render and transformers raises, deliberately: making these fail
/// would take features minijinja cannot be given.
const RENDERED_WHERE_PYTHON_RAISES: &[(&str, &str, &str)] = &[
    (
        "LFM2.5-8B-A1B.jinja",
        "parallel",
        "a for loop over None (`content: null`): minijinja iterates none as empty",
    ),
    (
        "llama-cpp-deepseek-r1.jinja",
        "tools_offered",
        "`map(...) | tojson`: Jinja2's map is a generator, which json.dumps refuses",
    ),
    ("llama-cpp-deepseek-r1.jinja", "tool_call", "the same"),
    ("llama-cpp-deepseek-r1.jinja", "tool_result", "the same"),
    ("llama-cpp-deepseek-r1.jinja", "parallel", "the same"),
];

/// The hash the script records: FNV-1a, 64 bits, over the UTF-8 bytes.
fn fnv1a64(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[test]
fn llama_cpp_templates_render_as_transformers_renders_them() {
    let inputs: Map<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{DIR}/inputs.json")).expect("inputs.json"),
    )
    .expect("the inputs");
    let renders = std::fs::read_to_string(format!("{DIR}/renders.jsonl")).expect("renders.jsonl");
    let clock = Clock::Fixed(DateTime::parse("2026-01-15T10:30:00").expect("a date"));
    let known: BTreeSet<(&str, &str)> = RENDERED_WHERE_PYTHON_RAISES
        .iter()
        .map(|&(t, i, _)| (t, i))
        .collect();
    let mut failures = Vec::new();
    let (mut same, mut both_refuse, mut cases) = (0, 0, 0);
    let mut templates = BTreeSet::new();
    for line in renders.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON line");
        let file = case["template"].as_str().expect("template");
        let input = case["input"].as_str().expect("input");
        templates.insert(file.to_owned());
        cases += 1;
        let source = std::fs::read_to_string(format!("{DIR}/{file}")).expect("the template");
        let mut kwargs = inputs[input].as_object().expect("an input").clone();
        for token in ["bos_token", "eos_token"] {
            kwargs.insert(token.into(), case[token].clone());
        }
        let ours = ChatTemplate::new(&source)
            .map(|t| t.with_clock(clock))
            .and_then(|t| t.render_json(&Value::Object(kwargs)));
        let python_raised = case.get("error").is_some();
        let expected_difference = known.contains(&(file, input));
        match (&ours, python_raised) {
            (Ok(text), false)
                if fnv1a64(text) == case["fnv1a64"] && Some(text.len() as u64) == case["len"].as_u64() =>
            {
                same += 1
            }
            (Err(_), true) => both_refuse += 1,
            (Ok(_), true) if expected_difference => {}
            (Ok(text), false) => failures.push(format!(
                "{file} / {input}: the render differs\n  transformers starts {:?}\n  ours starts         {:?}",
                case["head"].as_str().unwrap_or_default(),
                text.chars().take(120).collect::<String>()
            )),
            (Ok(_), true) => failures.push(format!(
                "{file} / {input}: transformers raised {} but we rendered",
                case["error"]
            )),
            (Err(e), false) => failures.push(format!(
                "{file} / {input}: transformers rendered but we refused: {e}"
            )),
        }
        if expected_difference && !(ours.is_ok() && python_raised) {
            failures.push(format!(
                "{file} / {input} is listed as rendered where Python raises, and no longer is"
            ));
        }
    }
    assert_eq!(templates.len(), 71, "the template set");
    assert_eq!(cases, 71 * 8);
    assert!(
        failures.is_empty(),
        "{} of {cases} renders differ ({same} identical, {both_refuse} refused by both):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        same + both_refuse + RENDERED_WHERE_PYTHON_RAISES.len(),
        cases
    );
}
