#![allow(unused)]

use tool_use::tool;

/// Read raw memory.
#[tool]
unsafe fn peek() {}

fn main() {}
