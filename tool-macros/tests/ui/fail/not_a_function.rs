#![allow(unused)]

use tool_use::tool;

/// Not a function.
#[tool]
struct Weather;

fn main() {}
