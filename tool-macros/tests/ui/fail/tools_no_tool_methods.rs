#![allow(unused)]

use tool_use::tools;

struct Service;

#[tools]
impl Service {
    fn ping(&self) {}
}

fn main() {}
