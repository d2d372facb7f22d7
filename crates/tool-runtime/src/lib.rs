//! Runtime support for LLM tools: the schema helpers that `#[tool]`-generated
//! code calls. Messages, tool calls and the toolbox build on this.

#![warn(missing_docs)]

pub mod schema;

/// Items used by macro-generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::schema::{array, extend, inline_schema, object, parse_schema, ParamSchema};
    pub use serde_json;
}
