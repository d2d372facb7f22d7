//! The shared schema fixtures: every case's function, compiled with `#[tool]`
//! (see build.rs), must produce exactly the expected definition, key order included.

mod cases {
    include!(concat!(env!("OUT_DIR"), "/schema_cases.rs"));
}

#[path = "common/fixtures.rs"]
mod fixtures;

#[test]
fn every_fixture_case_matches() {
    let Some(file) = fixtures::file("schema", "cases.jsonl") else {
        return;
    };
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("schema fixtures not found at {file:?}: {e}"));
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("fixture line is JSON");
        let name = case["name"].as_str().expect("case name");
        let Some((_, schema)) = cases::CASES.iter().find(|(n, _)| *n == name) else {
            failures.push(format!(
                "{name}: not compiled (rebuild to regenerate the cases)"
            ));
            continue;
        };
        // Compare the text, not the values: key order is part of the contract.
        let got = serde_json::to_string(schema()).unwrap();
        let want = serde_json::to_string(&case["expected"]).unwrap();
        if got != want {
            failures.push(format!("{name}:\n   got {got}\n  want {want}"));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        checked,
        cases::CASES.len(),
        "every compiled case is in the fixtures"
    );
    assert!(checked >= 17, "expected at least 17 cases, found {checked}");
}
