use tool_use::{tool, ToolContext};

/// Look twice.
#[tool]
fn look(first: &ToolContext, second: &ToolContext) -> bool {
    first.is_cancelled() || second.is_cancelled()
}

fn main() {}
