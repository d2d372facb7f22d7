//! A toolbox of one tool written by hand: its definition and a function of
//! its arguments (the `#[tool]` macro belongs to the `tool-use` facade).

use std::sync::Arc;

use serde_json::{Map, Value};
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

/// A toolbox offering `definition` (the transformers form), whose calls
/// `answer` answers.
pub fn one_tool(
    definition: Value,
    answer: impl Fn(Map<String, Value>) -> String + Send + Sync + 'static,
) -> Toolbox {
    let definition = ToolDefinition::from_json(&definition).unwrap();
    Toolbox::new().with(FnTool { definition, answer }).unwrap()
}
