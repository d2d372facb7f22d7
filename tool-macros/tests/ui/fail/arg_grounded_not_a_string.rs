#![allow(unused)]

use tool_use::tool;

/// Weather.
///
/// Args:
///     days: How many days
///     unit: The unit (choices: ["celsius", "fahrenheit"])
#[tool]
fn forecast(#[arg(grounded)] days: u32, #[arg(grounded)] unit: String) {}

fn main() {}
