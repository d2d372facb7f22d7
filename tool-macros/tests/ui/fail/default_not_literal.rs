#![allow(unused)]

use tool_use::tool;

const TEN: u32 = 10;

/// Search.
///
/// Args:
///     limit: How many
#[tool]
fn search(#[arg(default = TEN)] limit: u32) {}

fn main() {}
