//! Chat templates, tool-call parsers and local generation for LLM tool use.
//!
//! Empty for now: templates, parsers and generation land here next.

#![warn(missing_docs)]
