#![allow(unused)]

use tool_use::{tool, toolbox, Toolbox};

/// Convert a length.
///
/// Args:
///     meters: The length in meters
#[tool]
fn to_feet(meters: f64) -> f64 {
    meters * 3.28084
}

fn main() {
    // A `#[tool]` function is a function: `.with` takes a tool.
    let tools = Toolbox::new().with(to_feet);
}
