#![allow(unused)]

use tool_use::tools;

struct Service<T>(T);

#[tools]
impl<T: Send + Sync + 'static> Service<T> {
    /// Ping.
    #[tool]
    fn ping(&self) {}
}

fn main() {}
