//! A toolbox of one tool written by hand: a string argument and a function
//! of the arguments (the `#[tool]` macro belongs to the `tool-use` facade).

use std::sync::Arc;

use serde_json::{json, Map, Value};
use tool_runtime::{Invocation, Tool, ToolContext, ToolDefinition, Toolbox};

struct FnTool<F> {
    definition: ToolDefinition,
    answer: F,
}

impl<F: Fn(Map<String, Value>) -> String + Send + Sync + 'static> Tool for FnTool<F> {
    fn name(&self) -> &str {
        self.definition.name()
    }
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }
    fn invoke(self: Arc<Self>, args: Map<String, Value>, _: ToolContext) -> Invocation {
        Invocation::Blocking(Box::new(move || Ok((self.answer)(args).into())))
    }
}

/// A toolbox of one tool, `name`, described as `description`, that takes
/// one string argument, `parameter` (required); `answer` answers its calls.
pub fn one_tool(
    name: &str,
    description: &str,
    parameter: &str,
    answer: impl Fn(Map<String, Value>) -> String + Send + Sync + 'static,
) -> Toolbox {
    let definition = json!({"type": "function", "function": {"name": name,
        "description": description,
        "parameters": {"type": "object", "properties": {parameter: {"type": "string"}},
            "required": [parameter]}}});
    let definition = ToolDefinition::from_json(&definition).unwrap();
    Toolbox::new().with(FnTool { definition, answer }).unwrap()
}
