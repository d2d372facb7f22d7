//! Runtime support for LLM tools: chat messages and tool calls in the
//! Hugging Face / OpenAI format, and the schema helpers that
//! `#[tool]`-generated code calls. No model dependency: users of remote APIs
//! use it too.

#![warn(missing_docs)]

pub mod call;
pub mod message;
pub mod partial_json;
pub mod schema;

pub use call::{ChunkIdConflict, InvalidToolCall, ToolCall, ToolCallChunk};
pub use message::{Message, Role};

/// Items used by macro-generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::schema::{array, extend, inline_schema, object, parse_schema, ParamSchema};
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
