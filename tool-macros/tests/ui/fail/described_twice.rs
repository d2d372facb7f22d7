#![allow(unused)]

use tool_use::tool;

/// Search.
///
/// Args:
///     limit: How many
#[tool]
fn search(#[arg(description = "How many results")] limit: u32) {}

fn main() {}
