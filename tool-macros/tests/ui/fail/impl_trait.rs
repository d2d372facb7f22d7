#![allow(unused)]

use tool_use::tool;

/// Print a value.
///
/// Args:
///     value: Anything printable
#[tool]
fn show(value: impl std::fmt::Display) -> String {
    value.to_string()
}

fn main() {}
