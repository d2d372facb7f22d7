#![allow(unused)]

use tool_use::tool;

/// Search.
///
/// Args:
///     limit: How many
///     query: What
#[tool]
fn search(#[arg(default = "ten")] limit: u32, #[arg(default = 3)] query: String) {}

fn main() {}
