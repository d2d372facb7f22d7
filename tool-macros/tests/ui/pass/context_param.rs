//! A `&ToolContext` parameter, anywhere in the list: not in the schema,
//! lent by the toolbox with the call's id and the run's data.

use serde_json::json;
use tool_use::{tool, toolbox, tools, RunContext, ToolCall, ToolContext};

struct Caller(&'static str);

/// Greet someone on behalf of the caller.
///
/// Args:
///     name: Who to greet
#[tool]
fn greet(name: String, context: &ToolContext) -> String {
    let caller = context.get::<Caller>().map_or("nobody", |c| c.0);
    format!("{caller} greets {name} in {}", context.call_id())
}

/// Which tool is this.
#[tool]
async fn which(_: &ToolContext) -> String {
    "which".into()
}

struct Steps;

#[tools]
impl Steps {
    /// Count to `n`, reporting each step.
    ///
    /// Args:
    ///     n: How far
    #[tool]
    fn count(&self, context: &ToolContext, n: u32) -> u32 {
        for i in 1..=n {
            context.progress(i as f64, Some(n as f64), None);
        }
        n
    }
}

fn main() {
    assert_eq!(
        greet::schema()["function"]["parameters"],
        json!({"type": "object", "properties": {"name": {"type": "string", "description": "Who to greet"}},
               "required": ["name"]})
    );
    assert_eq!(
        which::schema()["function"]["parameters"],
        json!({"type": "object", "properties": {}})
    );
    let toolbox = toolbox![greet, which].with_all(Steps).unwrap();
    let run = RunContext::new().with(Caller("ada"));
    let answer = toolbox.call_in_blocking(&ToolCall::new("call_9", "greet", json!({"name": "Bo"})), &run);
    assert_eq!(answer.text(), "ada greets Bo in call_9");
    let answer = toolbox.call_blocking(&ToolCall::new("c", "which", json!({})));
    assert_eq!(answer.text(), "which");
    let steps = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = steps.clone();
    let run = RunContext::new().with_progress(move |p| seen.lock().unwrap().push(p.done));
    let answer = toolbox.call_in_blocking(&ToolCall::new("c", "count", json!({"n": 3})), &run);
    assert_eq!(answer.text(), "3");
    assert_eq!(*steps.lock().unwrap(), vec![1.0, 2.0, 3.0]);
}
