//! The runtime of LLM tools: chat messages and tool calls in the Hugging Face /
//! OpenAI format, and a [`Toolbox`] that checks a model's calls against each
//! tool's schema, runs the typed functions, and turns every outcome (failures
//! included) into a message the model can read. No model dependency: users of
//! remote APIs use it too.

#![warn(missing_docs)]

pub mod call;
pub mod error;
pub mod exec;
pub mod format;
pub mod message;
pub mod partial_json;
pub mod schema;
pub mod tool;
pub mod toolbox;
pub mod validate;

pub use call::{ChunkIdConflict, InvalidToolCall, ToolCall, ToolCallChunk};
pub use error::{ArgIssue, ToolError};
pub use format::DefinitionFormat;
pub use message::{Message, Role};
pub use tool::{FromArgument, Invocation, Tool, ToolOutput, ToolResult};
pub use toolbox::{ToolSet, Toolbox, ToolboxError};
pub use validate::Policy;

/// Items used by macro-generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::exec::BoxFuture;
    pub use crate::schema::{array, extend, inline_schema, object, parse_schema, ParamSchema};
    pub use crate::tool::{output, result_output, take_arg, Invocation, Tool, ToolResult};
    pub use crate::toolbox::ToolSet;
    pub use serde_json;
}

/// "a string", "an object"…: a JSON value's kind, for error messages.
pub(crate) fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
