#![allow(unused)]

use tool_use::{tool, toolbox};

mod a {
    /// Ping from a.
    #[tool_use::tool]
    pub fn ping() {}
}

/// Ping.
#[tool]
fn ping() {}

fn main() {
    let t = toolbox![ping, a::ping];
}
