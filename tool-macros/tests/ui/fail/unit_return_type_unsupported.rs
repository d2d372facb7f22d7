#![allow(unused)]

use tool_use::tool;

struct Report;

/// Make a report.
#[tool]
fn report() -> Report {
    Report
}

fn main() {}
