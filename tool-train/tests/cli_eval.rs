//! `tool-train eval` end to end on the bundled model: its scores, and exact
//! calls, no call on a request and arguments split by whether the request's
//! words occur in training.

use std::process::Command;

use serde_json::Value;

#[test]
fn eval_splits_scores_by_requests_in_words_training_never_shows() {
    // One conversation of each case of the extension: "Now the other way:
    // ..." asks in a word no training request has, and so do most requests
    // no tool covers. Short turns suffice: the split counts requests,
    // however the model answers them.
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

        assert!(n("unseen_request_turns") > 0, "{mode}: {s}");
        assert!(
            n("unseen_request_turns") < n("request_turns"),
            "{mode}: {s}"
        );
        assert!(
            n("unseen_request_no_call") <= n("unseen_request_turns"),
            "{mode}: {s}"
        );
        assert!(
            n("unseen_request_no_call") <= n("request_no_call"),
            "{mode}: {s}"
        );
        assert!(
            n("request_no_call") - n("unseen_request_no_call")
                <= n("request_turns") - n("unseen_request_turns"),
            "{mode}: {s}"
        );

        // Arguments in seen words are a part of all arguments, and the
        // calls asked in unseen words leave some out.
        let pair = |v: &Value| (v[0].as_u64().unwrap(), v[1].as_u64().unwrap());
        let (all, seen) = (&s["arguments"], &s["seen_arguments"]);
        let (mut all_of, mut seen_of) = (0, 0);
        for (kind, counts) in all.as_object().unwrap() {
            let (right, of) = pair(counts);
            all_of += of;
            if let Some(seen) = seen.get(kind) {
                let (seen_right, seen_count) = pair(seen);
                assert!(
                    seen_right <= right && seen_count <= of,
                    "{mode} {kind}: {s}"
                );
                assert!(seen_count - seen_right <= of - right, "{mode} {kind}: {s}");
                seen_of += seen_count;
            }
        }
        assert!(seen
            .as_object()
            .unwrap()
            .keys()
            .all(|k| all.get(k).is_some()));
        assert!(0 < seen_of && seen_of < all_of, "{mode}: {s}");
    }
}
