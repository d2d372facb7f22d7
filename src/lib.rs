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

#![warn(missing_docs)]

pub mod bundled;
pub mod corpus;
pub mod demo;

pub use tool_macros::{tool, tools};
pub use tool_models as models;
pub use tool_runtime as runtime;
pub use tool_runtime::{
    toolbox, ArgIssue, DefinitionFormat, InvalidToolCall, Message, Role, Tool, ToolCall,
    ToolCallChunk, ToolError, ToolSet, Toolbox, ToolboxError,
};

/// Items used by macro-generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use tool_runtime::__private::*;
}
