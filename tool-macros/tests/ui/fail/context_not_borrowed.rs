use tool_use::{tool, ToolContext};

/// Keep the context.
#[tool]
fn keep(context: ToolContext) -> bool {
    context.is_cancelled()
}

/// Change the context.
#[tool]
fn change(context: &mut ToolContext) -> bool {
    context.is_cancelled()
}

fn main() {}
