use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use tool_use::{tools, ToolCall, ToolSet, Toolbox};

struct Counter {
    count: AtomicU32,
}

#[tools]
impl Counter {
    /// Add to the counter.
    ///
    /// Args:
    ///     by: How much to add
    #[tool]
    pub fn add(&self, #[arg(default = 1)] by: u32) -> u32 {
        self.count.fetch_add(by, Ordering::SeqCst) + by
    }

    /// Read the counter.
    #[tool(name = "read_counter")]
    async fn read(&self) -> u32 {
        self.count.load(Ordering::SeqCst)
    }

    fn helper(&self) -> u32 {
        7
    }
}

fn main() {
    let counter = Arc::new(Counter { count: AtomicU32::new(0) });
    let tools = counter.clone().tools();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[1].definition()["function"]["name"], "read_counter");
    let toolbox = Toolbox::new().with_all_shared(counter.clone()).unwrap();
    let m = toolbox.call_blocking(&ToolCall::new("1", "add", serde_json::json!({})));
    assert_eq!(m.text(), "1");
    let m = toolbox.call_blocking(&ToolCall::new("2", "read_counter", serde_json::json!({})));
    assert_eq!(m.text(), "1");
    assert_eq!(counter.add(2), 3);
    assert_eq!(counter.helper(), 7);
}
