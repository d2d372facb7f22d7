#![allow(unused)]

use tool_use::tool;

/// Get the weather.
#[tool(nmae = "weather")]
fn weather() {}

fn main() {}
