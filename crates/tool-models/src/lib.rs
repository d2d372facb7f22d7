//! Chat templates, tool-call parsers and local generation for LLM tool use.

#![warn(missing_docs)]

pub mod parse;
pub mod template;
