//! Chat templates, tool-call parsers, local generation and the agent loop
//! for LLM tool use.
//!
//! Each part is a cargo feature, so a program compiles only what it uses:
//!
//! | feature | modules | adds |
//! |---|---|---|
//! | `templates` | [`template`] | minijinja |
//! | `parse` | [`parse`] | nothing |
//! | `agent` | [`agent`] (the loop), [`chat`] (the contract of any [`chat::ChatModel`]) | nothing |
//! | `remote` (default) | [`remote`]: models served by OpenAI-compatible engines (with `templates`, for the raw-completions mode) | reqwest, tokio |
//! | `remote-tls` | HTTPS for [`remote`] | rustls, aws-lc-rs |
//! | `eval` | [`eval`]: models and engines measured on BFCL, BFCL's checker | nothing |
//! | `hub` | [`hub`]: models named `hf:ORG/REPO[:QUANT]`, downloaded into the Hugging Face cache ([`model::Model::load`] takes them with `local`) | reqwest (blocking), rustls, aws-lc-rs, sha2, indicatif |
//! | `local` (default) | [`model`], [`generate`], [`constrain`], [`local`] ([`local::LocalChat`]) | candle, tokenizers, llguidance |
//!
//! Reading the calls out of a model's output:
//!
//! ```
//! # #[cfg(feature = "parse")] {
//! use tool_models::parse::{Format, ParseOptions};
//!
//! let output = r#"Let me check.<tool_call>
//! {"name": "get_current_temperature", "arguments": {"location": "Paris"}}
//! </tool_call>"#;
//! let parsed = Format::Hermes.parse(output, &ParseOptions::default());
//! assert_eq!(parsed.content.as_deref(), Some("Let me check."));
//! assert_eq!(parsed.tool_calls[0].name, "get_current_temperature");
//! assert_eq!(parsed.tool_calls[0].arguments["location"], "Paris");
//! # }
//! ```
//!
//! Most programs use these through the `tool-use` crate, which re-exports
//! this one's modules at its root (`tool_use::parse`, `tool_use::model`, …).

#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "agent")]
pub mod agent;
#[cfg(feature = "agent")]
pub mod chat;
#[cfg(feature = "local")]
pub mod constrain;
#[cfg(feature = "eval")]
pub mod eval;
#[cfg(feature = "local")]
pub mod generate;
#[cfg(feature = "templates")]
mod gguf;
#[cfg(feature = "hub")]
pub mod hub;
#[cfg(feature = "local")]
pub mod local;
#[cfg(feature = "local")]
pub mod model;
#[cfg(feature = "parse")]
pub mod parse;
#[cfg(feature = "remote")]
pub mod remote;
#[cfg(feature = "parse")]
mod schema_types;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "agent")]
mod stats;
#[cfg(feature = "templates")]
pub mod template;
#[cfg(feature = "wire")]
pub mod wire;
// Not every feature set has a builder.
#[allow(unused_macros, unused_imports)]
mod setters;
