#![allow(unused)]

use tool_use::tool;

/// Get the weather.
///
/// # Arguments
///
/// * `location` - Where
/// * `location` - Where, again
#[tool]
fn weather(location: String) {}

fn main() {}
