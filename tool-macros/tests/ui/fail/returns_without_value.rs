#![allow(unused)]

use tool_use::tool;

/// Log a line.
///
/// Args:
///     line: The text
///
/// Returns:
///     Nothing useful.
#[tool]
fn log(line: String) {}

fn main() {}
