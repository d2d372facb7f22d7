#![allow(unused)]

use tool_use::tools;

struct Counter(u32);

#[tools]
impl Counter {
    /// Add one.
    #[tool]
    fn bump(&mut self) -> u32 {
        self.0 += 1;
        self.0
    }
}

fn main() {}
