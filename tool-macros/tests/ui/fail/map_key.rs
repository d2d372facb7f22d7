#![allow(unused)]

use std::collections::HashMap;
use tool_use::tool;

/// Sum scores.
///
/// Args:
///     scores: Scores by player number
#[tool]
fn total(scores: HashMap<u32, f64>) -> f64 {
    scores.values().sum()
}

fn main() {}
