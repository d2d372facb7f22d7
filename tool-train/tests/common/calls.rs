//! Comparing the calls a parser read with the calls a conversation expects.

use serde_json::Value;
use tool_use::ToolCall;

/// Asserts that `got` calls the tools of `want`, in order, with the same
/// arguments; ids aside, since a parser makes up its own. `body` is the
/// text `got` was read from, shown when they differ.
#[track_caller]
pub fn assert_same_calls(got: &[ToolCall], want: &[ToolCall], body: &str) {
    fn named(calls: &[ToolCall]) -> Vec<(&str, &Value)> {
        calls
            .iter()
            .map(|c| (c.name.as_str(), &c.arguments))
            .collect()
    }
    assert_eq!(named(got), named(want), "{body}");
}
