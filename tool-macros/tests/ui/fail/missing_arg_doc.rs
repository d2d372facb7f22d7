#![allow(unused)]

use tool_use::tool;

/// Add two numbers.
///
/// Args:
///     a: The first number
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
