#![allow(unused)]

use tool_use::tool;

/// Args:
///     location: Where
#[tool]
fn weather(location: String) {}

fn main() {}
