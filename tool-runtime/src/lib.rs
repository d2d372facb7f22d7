//! The runtime of LLM tools: chat messages and tool calls in the Hugging Face /
//! OpenAI format, and a [`Toolbox`] that checks a model's calls against each
//! tool's schema, runs the typed functions, and turns every outcome (failures
//! included) into a message the model can read. No model dependency: users of
//! remote APIs use it too.
//!
//! Tools are usually written with `#[tool]` from the `tool-use` crate, which
//! re-exports this one. The types stand on their own:
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::{Message, ToolCallChunk};
//!
//! // A call streamed in pieces, as OpenAI-compatible servers send it.
//! let pieces = [
//!     ToolCallChunk { index: Some(0), id: Some("call_1".into()), name: Some("get_weather".into()), ..Default::default() },
//!     ToolCallChunk { index: Some(0), arguments_delta: Some(r#"{"city": "Pa"#.into()), ..Default::default() },
//!     ToolCallChunk { index: Some(0), arguments_delta: Some(r#"ris"}"#.into()), ..Default::default() },
//! ];
//! let merged = ToolCallChunk::merge_all(pieces)?;
//! let call = merged[0].to_call().expect("a complete call");
//! assert_eq!(call.arguments, json!({"city": "Paris"}));
//!
//! // The assistant turn that made it, in the form chat templates read.
//! let turn = Message::assistant_calls(None, vec![call]);
//! assert_eq!(serde_json::to_value(&turn)?["tool_calls"][0]["function"]["name"], "get_weather");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod call;
pub mod choice;
pub mod context;
pub mod definition;
pub mod error;
pub mod exec;
pub mod format;
mod grounded;
pub mod grounding;

pub mod message;
pub mod partial_json;
pub mod schema;
pub mod shared_toolbox;
pub mod suggest;
pub mod tool;
pub mod toolbox;
mod trace;
pub mod validate;

pub use call::{ChunkIdConflict, InvalidToolCall, ToolCall, ToolCallChunk};
pub use choice::{ChoiceError, EmptyToolChoice, ToolChoice, UnmetChoice};
pub use context::{
    CancelToken, Cancelled, Extensions, ProgressSink, RunContext, ToolContext, ToolProgress,
};
pub use definition::{
    check_definitions, DefinitionError, DefinitionsError, SchemaError, ToolDefinition,
};
pub use error::{ArgIssue, ToolError, UnknownTool};
pub use format::DefinitionFormat;
pub use grounding::{ground_free_numbers, ground_free_strings};
pub use message::{Message, Role};
pub use shared_toolbox::{SharedToolbox, Subscription, WeakToolbox};
pub use tool::{FromArgument, Invocation, Tool, ToolOutput, ToolResult, ToolReturn};
pub use toolbox::{ToolSet, Toolbox, ToolboxError};
pub use validate::Policy;

/// Items used by macro-generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::context::ToolContext;
    pub use crate::definition::generated as definition;
    pub use crate::exec::BoxFuture;
    pub use crate::schema::{array, extend, inline_schema, object, parse_schema, ParamSchema};
    pub use crate::tool::{output, result_output, take_arg, Invocation, Tool, ToolResult};
    pub use crate::toolbox::ToolSet;
    pub use crate::ToolDefinition;
    pub use serde_json;
}

/// "a string", "an object"…: a JSON value's kind, as error messages name it.
///
/// ```
/// assert_eq!(tool_runtime::json_kind(&serde_json::json!([1])), "an array");
/// ```
pub fn json_kind(v: &serde_json::Value) -> &'static str {
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
