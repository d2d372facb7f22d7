#![allow(unused)]

use tool_use::tool;

#[tool]
fn undocumented(x: i64) -> i64 {
    x
}

fn main() {}
