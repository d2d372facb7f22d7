use tool_use::{tool, ToolContext};

/// Say hello.
///
/// Args:
///     name: Who
///     context: The call
#[tool]
fn hello(name: String, context: &ToolContext) -> String {
    format!("{name} {}", context.call_id())
}

fn main() {}
