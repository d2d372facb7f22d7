//! Tool use for LLMs, in Rust.
//!
//! `#[tool]` turns an ordinary function into a tool definition at compile
//! time, from its signature and doc comment:
//!
//! ```
//! use tool_use::tool;
//!
//! /// Get the current temperature at a location.
//! ///
//! /// Args:
//! ///     location: The location to get the temperature for, in the format "City, Country"
//! ///     unit: The unit to return the temperature in. (choices: ["celsius", "fahrenheit"])
//! #[tool]
//! fn get_current_temperature(location: String, unit: String) -> f64 {
//!     22.0
//! }
//!
//! assert_eq!(get_current_temperature::NAME, "get_current_temperature");
//! let schema = get_current_temperature::schema();
//! assert_eq!(schema["function"]["parameters"]["required"][1], "unit");
//! assert_eq!(get_current_temperature("Paris, France".into(), "celsius".into()), 22.0);
//! ```

//!
//! ## Features
//!
//! With `default-features = false` the crate is `#[tool]`, `#[tools]`,
//! `toolbox!`, [`Toolbox`], messages and calls: serde, serde_json and
//! schemars, nothing else. The rest is opt-in:
//!
#![doc = include_str!("features.md")]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The book's examples, checked as doctests (the whole book needs every
// default feature; the published crate has no book).
#[cfg(all(doctest, feature = "cli"))]
mod book;
#[cfg(feature = "bundled")]
pub mod bundled;
#[cfg(feature = "demo")]
pub mod demo;

pub use tool_macros::{tool, tools};
#[cfg(feature = "mcp")]
pub use tool_mcp as mcp;
pub use tool_runtime as runtime;
pub use tool_runtime::{
    toolbox, ArgIssue, CancelToken, DefinitionFormat, Extensions, InvalidToolCall, Message, Role,
    RunContext, SharedToolbox, Tool, ToolCall, ToolCallChunk, ToolChoice, ToolContext,
    ToolDefinition, ToolError, ToolProgress, ToolSet, Toolbox, ToolboxError,
};

// What a first program types, at the root: the agent and the chat models
// it drives.
#[cfg(feature = "remote")]
pub use tool_models::remote::RemoteChat;
#[cfg(feature = "agent")]
pub use tool_models::{agent::Agent, chat::ChatModel};
#[cfg(feature = "local")]
pub use tool_models::{generate::Session, local::LocalChat, model::Model};

// tool-models' modules, each under the feature that builds it, so that a
// path names its layer once: `tool_use::parse::Format`,
// `tool_use::model::Model`.
#[cfg(feature = "eval")]
#[doc(inline)]
pub use tool_models::eval;
#[cfg(feature = "hub")]
#[doc(inline)]
pub use tool_models::hub;
#[cfg(feature = "parse")]
#[doc(inline)]
pub use tool_models::parse;
#[cfg(feature = "remote")]
#[doc(inline)]
pub use tool_models::remote;
#[cfg(feature = "server")]
#[doc(inline)]
pub use tool_models::server;
#[cfg(feature = "templates")]
#[doc(inline)]
pub use tool_models::template;
#[cfg(any(feature = "remote", feature = "server"))]
#[doc(inline)]
pub use tool_models::wire;
#[cfg(feature = "agent")]
#[doc(inline)]
pub use tool_models::{agent, chat};
#[cfg(feature = "local")]
#[doc(inline)]
pub use tool_models::{constrain, generate, local, model};

/// Items used by macro-generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use tool_runtime::__private::*;
}
