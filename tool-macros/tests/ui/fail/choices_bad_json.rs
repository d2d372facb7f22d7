#![allow(unused)]

use tool_use::tool;

/// Pick a unit.
///
/// Args:
///     unit: The unit (choices: [celsius, fahrenheit])
#[tool]
fn pick(unit: String) {}

fn main() {}
