//! The `Tool` trait that `#[tool]` implements, and the helpers its generated
//! code uses to read arguments and write results.

use crate::context::ToolContext;
use crate::error::{ArgIssue, ToolError};
use crate::exec::BoxFuture;
use crate::ToolDefinition;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Display;
use std::sync::Arc;

/// What a tool call produces: its output, or why not.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// What a call produced: the text the model reads in the tool message,
/// and the value it was written from when the tool returned one (a
/// `#[tool]` function always does; MCP sends an object as
/// `structuredContent`).
///
/// ```
/// use serde_json::json;
/// use tool_runtime::ToolOutput;
///
/// let out = ToolOutput::json(json!({"words": 3}));
/// assert_eq!(out.text, r#"{"words":3}"#);
/// assert_eq!(out.value, Some(json!({"words": 3})));
/// // A string is the text itself, not its JSON.
/// assert_eq!(ToolOutput::json(json!("hi")).text, "hi");
/// // Text alone, from a tool that has no value to give.
/// assert_eq!(ToolOutput::from("done").value, None);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    /// The tool message's text.
    pub text: String,
    /// The value returned, as JSON.
    pub value: Option<Value>,
}

impl ToolOutput {
    /// Text alone.
    pub fn text(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            value: None,
        }
    }

    /// A value, and its text: a string as-is, anything else as JSON.
    pub fn json(value: Value) -> ToolOutput {
        let text = match &value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        ToolOutput {
            text,
            value: Some(value),
        }
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> ToolOutput {
        ToolOutput::text(text)
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> ToolOutput {
        ToolOutput::text(text)
    }
}

/// How a tool runs once its arguments are read.
pub enum Invocation {
    /// A blocking function: run inline, or on a thread when it must be
    /// interruptible or concurrent.
    Blocking(Box<dyn FnOnce() -> ToolResult + Send + 'static>),
    /// An `async fn`.
    Future(BoxFuture<ToolResult>),
}

/// A tool a model can call. `#[tool]` implements it for the item named after
/// each function; implement it by hand for tools made at run time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "not a tool",
    note = "a `#[tool]` function is named in `toolbox![f]`; to add it to a toolbox built elsewhere, write `.merge(toolbox![f])`"
)]
pub trait Tool: Send + Sync + 'static {
    /// The name the model calls the tool by.
    fn name(&self) -> &str;

    /// The definition: `{"type": "function", "function": {"name", "description", "parameters"}}`,
    /// read once ([`ToolDefinition::from_json`]).
    fn definition(&self) -> &ToolDefinition;

    /// The schema arguments are checked against before [`Tool::invoke`]: the
    /// definition's `parameters` unless the tool knows more (`#[tool]` adds the
    /// bounds of `i32`, `u64`… that the published schema leaves out).
    fn validation_schema(&self) -> &Value {
        &self.definition()["function"]["parameters"]
    }

    /// Starts a call with arguments that passed validation (defaults filled
    /// in), and the call's context: its id, its cancellation, where its
    /// progress goes and the run's data.
    fn invoke(self: Arc<Self>, args: Map<String, Value>, context: ToolContext) -> Invocation;
}

/// A type a tool parameter can have: anything serde can read from JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from the model's JSON arguments",
    label = "a tool parameter must implement `serde::Deserialize`",
    note = "for your own type, add `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait FromArgument: DeserializeOwned {}

impl<T: DeserializeOwned> FromArgument for T {}

/// A type a tool can return: anything serde can write as JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result: the model receives it as JSON text",
    label = "a tool's return value must implement `serde::Serialize`",
    note = "for your own type, add `#[derive(serde::Serialize, schemars::JsonSchema)]`"
)]
pub trait ToolReturn: Serialize {}

impl<T: Serialize> ToolReturn for T {}

/// Removes argument `name` and deserialises it; absent reads as `null` (so
/// `Option` parameters become `None`).
pub fn take_arg<T: FromArgument>(
    tool: &str,
    args: &mut Map<String, Value>,
    name: &str,
) -> Result<T, ToolError> {
    let given = args.remove(name);
    let absent = given.is_none();
    serde_json::from_value(given.unwrap_or(Value::Null)).map_err(|e| ToolError::InvalidArguments {
        tool: tool.to_owned(),
        issues: vec![if absent {
            ArgIssue::Missing {
                path: name.to_owned(),
            }
        } else {
            ArgIssue::Invalid {
                path: name.to_owned(),
                message: e.to_string(),
            }
        }],
    })
}

/// A returned value as the call's output ([`ToolOutput::json`]).
pub fn output<T: ToolReturn>(tool: &str, value: T) -> ToolResult {
    match serde_json::to_value(&value) {
        Ok(value) => Ok(ToolOutput::json(value)),
        Err(e) => Err(ToolError::Output {
            tool: tool.to_owned(),
            message: e.to_string(),
        }),
    }
}

/// A returned `Result`: `Ok` as [`output`], `Err` as the tool's own error.
pub fn result_output<T: ToolReturn, E: Display>(tool: &str, result: Result<T, E>) -> ToolResult {
    match result {
        Ok(v) => output(tool, v),
        Err(e) => Err(ToolError::Failed(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outputs() {
        let text = |out: ToolResult| out.unwrap().text;
        assert_eq!(text(output("t", "plain")), "plain");
        assert_eq!(text(output("t", 22.5)), "22.5");
        assert_eq!(text(output("t", json!({"a": [1]}))), r#"{"a":[1]}"#);
        assert_eq!(text(output("t", ())), "null");
        assert_eq!(output("t", 22.5).unwrap().value, Some(json!(22.5)));
        assert_eq!(
            result_output::<u8, _>("t", Err("division by zero")).unwrap_err(),
            ToolError::Failed("division by zero".into())
        );
    }

    #[test]
    fn take_arg_reports_serde_errors_at_the_argument() {
        let mut args = json!({"n": 300}).as_object().unwrap().clone();
        let err = take_arg::<u8>("t", &mut args, "n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid arguments for `t`: `n`: invalid value: integer `300`, expected u8"
        );
        let none: Option<u8> = take_arg("t", &mut args, "absent").unwrap();
        assert_eq!(none, None);
    }
}
