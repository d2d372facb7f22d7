//! Rendering real chat templates: Hermes 3, Qwen 2.5 and Llama 3.1, each with
//! two tools and a tool round trip (the `tool_round_trip` fixture case),
//! with the tools of the previous render and with tools it has not seen.
//!
//! `scripts/bench_templates.py` renders the same inputs with transformers'
//! own renderer, for comparison.

#[path = "../tests/common/fixtures.rs"]
mod fixtures;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::Value;
use std::hint::black_box;
use std::path::Path;
use tool_models::template::{ChatTemplate, Clock, DateTime};

/// The templates benchmarked, by fixture file name.
const TEMPLATES: [(&str, &str); 3] = [
    (
        "hermes3",
        "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
    ),
    ("qwen2.5", "Qwen-Qwen2.5-7B-Instruct.jinja"),
    ("llama3.1", "meta-llama-Llama-3.1-8B-Instruct.jinja"),
];

/// The `kwargs` and `expected` of `case` for `template`.
fn fixture(fixtures: &Path, template: &str, case: &str) -> (Value, String) {
    let cases = std::fs::read_to_string(fixtures.join("cases.jsonl")).expect("the fixtures' cases");
    cases
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|c| c["template"] == template && c["case"] == case)
        .map(|c| {
            let expected = c["expected"].as_str().unwrap_or_default().to_owned();
            (c["kwargs"].clone(), expected)
        })
        .expect("the fixture case")
}

fn bench(c: &mut Criterion) {
    let Some(fixtures) = fixtures::dir("chat-templates") else {
        return;
    };
    let clock = Clock::Fixed(DateTime::parse("2026-01-15T10:30:00").expect("a date"));
    let mut group = c.benchmark_group("render tool_round_trip");
    for (label, file) in TEMPLATES {
        let source =
            std::fs::read_to_string(fixtures.join("templates").join(file)).expect("a template");
        let template = ChatTemplate::new(&source)
            .expect("compiles")
            .with_clock(clock);
        let (kwargs, expected) = fixture(&fixtures, file, "tool_round_trip");
        assert_eq!(template.render_json(&kwargs).expect("renders"), expected);
        group.bench_function(label, |b| {
            b.iter(|| template.render_json(black_box(&kwargs)))
        });
        // The template keeps the last tool list it converted (an agent sends
        // the same tools every turn); alternating two lists measures the
        // render of tools it has not seen.
        let mut other = kwargs.clone();
        if let Some(Value::String(d)) = other.pointer_mut("/tools/0/function/description") {
            d.push('.');
        }
        assert_ne!(other, kwargs, "the case has tools to vary");
        let both = [kwargs, other];
        let mut turn = 0;
        group.bench_function(format!("{label} new tools"), |b| {
            b.iter(|| {
                turn ^= 1;
                template.render_json(black_box(&both[turn]))
            })
        });
    }
    group.finish();
    let source = std::fs::read_to_string(fixtures.join("templates").join(TEMPLATES[0].1))
        .expect("a template");
    c.bench_function("compile hermes3", |b| {
        b.iter(|| ChatTemplate::new(black_box(&source)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
