#![allow(unused)]

use tool_use::tool;

/// Get the weather.
#[tool(name = "get weather!")]
fn weather() {}

fn main() {}
