#![allow(unused)]

use tool_use::tools;

struct Service;

#[tools]
impl Service {
    /// Say hi.
    #[tool]
    fn hello() -> String {
        "hi".into()
    }
}

fn main() {}
