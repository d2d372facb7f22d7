#![allow(unused)]

use tool_use::tool;

/// Search.
///
/// Args:
///     limit: How many
#[tool]
fn search(#[arg(defualt = 10)] limit: u32) {}

fn main() {}
