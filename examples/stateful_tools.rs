//! Tools that share state: `#[tools]` on an impl block makes its `#[tool]`
//! methods tools that take `&self`, so they share a cart (a database pool,
//! an HTTP client...). The calls below are what a model sends; the toolbox
//! checks each against its schema, runs it, and answers in a tool message,
//! errors included. Needs nothing but `tool-use` with
//! `default-features = false`.
//!
//! ```text
//! cargo run --example stateful_tools
//! ```

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tool_use::{tools, DefinitionFormat, ToolCall, Toolbox};

/// A shopping cart the tools share.
#[derive(Default)]
struct Cart {
    items: Mutex<BTreeMap<String, u32>>,
}

#[tools]
impl Cart {
    /// Add items to the shopping cart.
    ///
    /// Args:
    ///     item: The product to add, e.g. "apples"
    ///     quantity: How many to add
    #[tool]
    fn add_to_cart(&self, item: String, #[arg(default = 1)] quantity: u32) -> Result<u32, String> {
        if item.trim().is_empty() {
            return Err("the item name is empty".into());
        }
        let mut items = self.items.lock().map_err(|_| "the cart is unavailable")?;
        let count = items.entry(item).or_default();
        *count += quantity;
        Ok(*count)
    }

    /// List what is in the shopping cart.
    #[tool]
    fn view_cart(&self) -> Result<BTreeMap<String, u32>, String> {
        let items = self.items.lock().map_err(|_| "the cart is unavailable")?;
        Ok(items.clone())
    }

    /// Not a tool: an ordinary method, for the program itself.
    fn total(&self) -> u32 {
        self.items.lock().map(|i| i.values().sum()).unwrap_or(0)
    }
}

fn main() {
    let cart = Arc::new(Cart::default());
    let toolbox = match Toolbox::new().with_all_shared(Arc::clone(&cart)) {
        Ok(toolbox) => toolbox,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    println!("The tools, as the model sees them:");
    for definition in toolbox.definitions(DefinitionFormat::Transformers) {
        println!("  {definition}");
    }

    // A model's calls: two at once, a call that leaves out the optional
    // quantity, then mistakes it will read and correct.
    let turns = [
        vec![
            ToolCall::new(
                "call_1",
                "add_to_cart",
                json!({"item": "apples", "quantity": 3}),
            ),
            ToolCall::new("call_2", "add_to_cart", json!({"item": "bread"})),
        ],
        vec![ToolCall::new(
            "call_3",
            "add_to_cart",
            json!({"item": "apples", "quantity": "2"}),
        )],
        vec![
            ToolCall::new(
                "call_4",
                "add_to_cart",
                json!({"item": "milk", "quantity": -1}),
            ),
            ToolCall::new("call_5", "view_kart", json!({})),
        ],
        vec![ToolCall::new("call_6", "view_cart", json!({}))],
    ];
    for calls in &turns {
        println!();
        for (call, answer) in calls.iter().zip(toolbox.call_all_blocking(calls)) {
            println!("model → {}({})", call.name, call.arguments);
            println!("tool  ← {}", answer.text());
        }
    }
    println!("\n{} items in the cart", cart.total());
}
