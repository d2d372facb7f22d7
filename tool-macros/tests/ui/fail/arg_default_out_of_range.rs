#![allow(unused)]

use tool_use::tool;

/// Set the volume.
///
/// Args:
///     level: The level
#[tool]
fn volume(#[arg(default = 300)] level: u8) {}

fn main() {}
