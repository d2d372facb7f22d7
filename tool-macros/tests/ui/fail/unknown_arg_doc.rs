#![allow(unused)]

use tool_use::tool;

/// Get the weather.
///
/// Args:
///     location: Where
///     lcoation_hint: A hint
///     units: Which units
#[tool]
fn weather(location: String, location_hint: String) {}

fn main() {}
