//! `#[tool]`: turns an ordinary Rust function into an LLM tool definition at
//! compile time, from its signature and doc comment.
//!
//! Use it through the `tool-use` crate, which re-exports it and provides the
//! runtime that generated code refers to (`tool-use` with
//! `default-features = false` is all it needs):
//!
//! ```
//! use tool_use::tool;
//!
//! /// Convert an amount between currencies.
//! ///
//! /// # Arguments
//! ///
//! /// * `amount` - How much to convert.
//! /// * `to` - The currency to convert to. (choices: ["EUR", "USD", "JPY"])
//! #[tool]
//! fn convert(amount: f64, to: String) -> f64 {
//!     amount * 1.1
//! }
//!
//! let schema = convert::schema();
//! assert_eq!(schema["function"]["name"], "convert");
//! assert_eq!(schema["function"]["parameters"]["properties"]["to"]["enum"][2], "JPY");
//! assert_eq!(convert(10.0, "USD".into()), 11.0);
//! ```
//!
//! A tool a model could not use is a compile error spanned on the offending
//! token: an undocumented parameter, a documented one that does not exist,
//! a type with no JSON schema, and so on.

#![deny(missing_docs)]

mod analyse;
mod attr;
mod doc;
mod expand;
mod json;
mod types;

use proc_macro::TokenStream;

/// Makes a function a tool.
///
/// The function stays callable as written. An item of the same name in the
/// type namespace carries the definition: `NAME`, `DESCRIPTION`, `schema()`
/// and, when every type is built in, `SCHEMA_JSON` (the schema as JSON text,
/// made at compile time).
///
/// Options: `#[tool(name = "...", description = "...")]`. On parameters:
/// `#[arg(default = LITERAL)]` (optional, with a default),
/// `#[arg(description = "...")]` and `#[arg(grounded)]`: a string the model
/// must copy from the user's words (a city, a query), or a number it must
/// copy from the conversation; the schema says `"x-grounded": true`, and a
/// local model's constrained decoding then admits only runs of words of the
/// user's messages, or the numbers the user's messages and the tools'
/// results write.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(attr.into(), item.into()).into()
}

/// Makes the `#[tool]` methods of an impl block tools that share the value
/// through `&self` (a client, a cache): the type then implements `ToolSet`,
/// and `Toolbox::with_all(value)` adds every tool.
///
/// Methods without `#[tool]` stay ordinary methods.
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::tools(attr.into(), item.into()).into()
}
