//! Chat templates, tool-call parsers and local generation for LLM tool use.

#![warn(missing_docs)]

pub mod agent;
pub mod constrain;
pub mod generate;
pub mod model;
pub mod parse;
pub mod template;
pub mod train;
