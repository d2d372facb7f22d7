#![allow(unused)]

use tool_use::tool;

/// Pick a size.
///
/// Args:
///     size: The size (choices: ["small", "large"])
///     level: The level (choices: [1, 300])
#[tool]
fn pick(size: u32, level: u8) {}

fn main() {}
