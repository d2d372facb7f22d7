#![allow(unused)]

use tool_use::tool;

/// Add a pair.
///
/// Args:
///     pair: Two numbers
#[tool]
fn add((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
