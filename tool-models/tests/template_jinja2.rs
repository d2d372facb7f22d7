//! Jinja2 semantics that real chat templates lean on, each against what
//! transformers itself printed for the same snippet
//! (`scripts/jinja2_parity.py` writes `data/jinja2_parity.jsonl`).

use serde_json::Value;
use tool_models::template::ChatTemplate;

#[test]
fn snippets_render_as_transformers_renders_them() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/jinja2_parity.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the parity cases");
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON case");
        let source = case["template"].as_str().expect("template");
        cases += 1;
        let ours = ChatTemplate::new(source).and_then(|t| t.render_json(&case["vars"]));
        match (&ours, case.get("output").and_then(Value::as_str)) {
            (Ok(got), Some(want)) if got == want => {}
            (Err(_), None) => {}
            (got, want) => failures.push(format!(
                "{source}\n  transformers: {}\n  ours:         {got:?}",
                want.map_or_else(|| case["error"].to_string(), |w| format!("{w:?}"))
            )),
        }
    }
    assert!(cases >= 100, "only {cases} cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
