#![allow(unused)]

use tool_use::tool;

/// Get the weather.
///
/// Args:
///     the location to look up
#[tool]
fn weather(location: String) {}

fn main() {}
