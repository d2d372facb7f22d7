#![allow(unused)]

use tool_use::tool;

/// Join words.
///
/// Args:
///     words: The words
#[tool]
fn join(words: &[&str]) -> String {
    words.join(" ")
}

fn main() {}
