#![allow(unused)]

use tool_use::tools;

struct Service;

#[tools]
impl Service {
    /// Ping.
    #[tool]
    fn ping(&self) {}

    /// Ping again.
    #[tool(name = "ping")]
    fn ping_again(&self) {}
}

fn main() {}
