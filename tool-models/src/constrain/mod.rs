//! Constrained decoding with llguidance: tool calls that parse and validate.
//!
//! Build a [`TokenEnv`] once per model from its tokenizer, then per request a
//! [`ToolConstraint`] (calls in the model's format to the offered tools,
//! under a [`ToolChoice`](tool_runtime::ToolChoice)) or a [`JsonConstraint`] (the whole output valid
//! against a schema). Both implement
//! [`TokenConstraint`](crate::generate::TokenConstraint) for the generation loop.
//!
//! Generation must decode with special tokens kept: a marker such as
//! `<tool_call>` that the tokenizer marks special is part of what the
//! format's parser reads.

mod error;
pub(crate) mod grammar;
pub mod ground;
mod json;
mod lark;
mod narrow;
mod schema;
mod session;
pub(crate) mod syntax;
mod tool;
mod values;
mod vocab;

pub use error::ConstrainError;
pub use json::JsonConstraint;
pub use tool::ToolConstraint;
pub use vocab::TokenEnv;
