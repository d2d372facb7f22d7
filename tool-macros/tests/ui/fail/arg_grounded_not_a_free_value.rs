#![allow(unused)]

use tool_use::tool;

/// Weather.
///
/// Args:
///     hourly: Whether to give every hour
///     unit: The unit (choices: ["celsius", "fahrenheit"])
#[tool]
fn forecast(#[arg(grounded)] hourly: bool, #[arg(grounded)] unit: String) {}

fn main() {}
