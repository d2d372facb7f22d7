//! The 240 reference renders of 24 real chat templates (transformers 5.23,
//! clock frozen at 2026-01-15 10:30:00): every `expected` byte for byte, and
//! every `error` case an error.

#[path = "common/fixtures.rs"]
mod fixtures;

use serde_json::Value;
use std::collections::BTreeMap;
use tool_models::template::{ChatTemplate, Clock, DateTime};

fn frozen_clock() -> Clock {
    Clock::Fixed(DateTime::parse("2026-01-15T10:30:00").expect("valid date"))
}

/// The first byte where two renders differ, with some context around it.
fn first_difference(expected: &str, got: &str) -> String {
    let at = expected
        .bytes()
        .zip(got.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(got.len()));
    let around = |s: &str| {
        let mut start = at.saturating_sub(40).min(s.len());
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (at + 40).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        format!("{:?}", &s[start..end])
    };
    format!(
        "first difference at byte {at} (expected {} bytes, got {}):\n      expected …{}…\n      got      …{}…",
        expected.len(),
        got.len(),
        around(expected),
        around(got)
    )
}

#[test]
fn every_fixture_case_renders_as_transformers_does() {
    let Some(fixtures) = fixtures::dir("chat-templates") else {
        return;
    };
    let cases = std::fs::read_to_string(fixtures.join("cases.jsonl"))
        .expect("the chat-template fixtures' cases.jsonl");
    let mut compiled: BTreeMap<String, ChatTemplate> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut count = 0;
    for (n, line) in cases.lines().enumerate() {
        let case: Value = serde_json::from_str(line).expect("a JSON case");
        count += 1;
        let name = case["template"].as_str().expect("template name").to_owned();
        let label = format!(
            "line {} {name} / {}",
            n + 1,
            case["case"].as_str().unwrap_or("?")
        );
        if !compiled.contains_key(&name) {
            let source = std::fs::read_to_string(fixtures.join("templates").join(&name))
                .expect("the template file");
            match ChatTemplate::new(&source) {
                Ok(t) => {
                    compiled.insert(name.clone(), t.with_clock(frozen_clock()));
                }
                Err(e) => {
                    failures.push(format!("{label}: does not compile: {e}"));
                    continue;
                }
            }
        }
        let template = &compiled[&name];
        let result = template.render_json(&case["kwargs"]);
        match (case.get("expected").and_then(Value::as_str), result) {
            (Some(expected), Ok(got)) if got == expected => {}
            (Some(expected), Ok(got)) => {
                failures.push(format!("{label}: {}", first_difference(expected, &got)))
            }
            (Some(_), Err(e)) => failures.push(format!("{label}: unexpected error: {e}")),
            (None, Err(_)) => {}
            (None, Ok(got)) => failures.push(format!(
                "{label}: expected an error ({}), rendered {} bytes",
                case["error"],
                got.len()
            )),
        }
    }
    assert_eq!(count, 240, "the fixture file should hold 240 cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
