//! `tool-train eval` end to end on the bundled model: its scores, and exact
//! calls split by whether the request's words occur in training.

use std::process::Command;

use serde_json::Value;

#[test]
fn eval_splits_exact_calls_by_requests_in_words_training_never_shows() {
    // One conversation of each case of the extension: "Now the other way:
    // ..." asks in a word no training request has. Short turns suffice: the
    // split counts requests, however the model answers them.
    let output = Command::new(env!("CARGO_BIN_EXE_tool-train"))
        .args([
            "eval",
            "--examples",
            "0",
            "--cases",
            "9",
            "--max-tokens",
            "48",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let scores: Value = serde_json::from_slice(&output.stdout).unwrap();
    for mode in ["constrained", "unconstrained"] {
        let s = &scores[mode];
        let n = |key: &str| {
            s[key]
                .as_u64()
                .unwrap_or_else(|| panic!("{mode}: no {key} in {s}"))
        };
        assert!(n("unseen_call_turns") > 0, "{mode}: {s}");
        assert!(n("unseen_call_turns") < n("call_turns"), "{mode}: {s}");
        assert!(
            n("unseen_exact_calls") <= n("unseen_call_turns"),
            "{mode}: {s}"
        );
        assert!(n("unseen_exact_calls") <= n("exact_calls"), "{mode}: {s}");
        assert!(
            n("exact_calls") - n("unseen_exact_calls") <= n("call_turns") - n("unseen_call_turns"),
            "{mode}: {s}"
        );
    }
}
