//! What the tests' toolboxes answer to the calls a model wrote.

use tool_use::{ToolCall, Toolbox};

/// Runs each of `calls` through `toolbox`: none may come back as an error.
/// `context` starts each failure's message (which seed, which case).
#[track_caller]
pub fn assert_answered(toolbox: &Toolbox, calls: &[ToolCall], context: &str) {
    for call in calls {
        let answer = toolbox.call_blocking(call);
        assert!(
            !answer.text().starts_with("Error:"),
            "{context}{call:?} -> {}",
            answer.text()
        );
    }
}
