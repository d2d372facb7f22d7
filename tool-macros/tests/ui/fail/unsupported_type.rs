#![allow(unused)]

use tool_use::tool;

struct Point {
    x: f64,
}

/// Move a point.
///
/// Args:
///     point: The point
#[tool]
fn shift(point: Point) -> f64 {
    point.x
}

fn main() {}
