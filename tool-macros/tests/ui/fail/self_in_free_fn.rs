#![allow(unused)]

use tool_use::tool;

struct Client;

impl Client {
    /// Ping the server.
    #[tool]
    fn ping(&self) {}
}

fn main() {}
