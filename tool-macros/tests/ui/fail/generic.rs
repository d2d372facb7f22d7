#![allow(unused)]

use tool_use::tool;

/// Echo a value.
///
/// Args:
///     value: Anything
#[tool]
fn echo<T: Clone>(value: T) -> T {
    value
}

fn main() {}
