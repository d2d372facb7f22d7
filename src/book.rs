//! The book's chapters (`docs/src/`) and the READMEs, as doctests: every
//! Rust example in them is compiled, and run unless marked `no_run`, by
//! `cargo test`, so none can rot. Only rustdoc's test pass sees this module;
//! the text itself is read in the book.

#[doc = include_str!("../README.md")]
mod readme {}
#[doc = include_str!("../docs/src/introduction.md")]
mod introduction {}
#[doc = include_str!("../docs/src/writing-tools.md")]
mod writing_tools {}
#[doc = include_str!("../docs/src/calling-tools.md")]
mod calling_tools {}
#[doc = include_str!("../docs/src/chat-templates.md")]
mod chat_templates {}
#[doc = include_str!("../docs/src/parsing-tool-calls.md")]
mod parsing_tool_calls {}
#[doc = include_str!("../docs/src/local-models-and-the-agent.md")]
mod local_models_and_the_agent {}
#[doc = include_str!("../docs/src/agents-in-production.md")]
mod agents_in_production {}
#[doc = include_str!("../docs/src/remote-engines.md")]
mod remote_engines {}
#[doc = include_str!("../docs/src/serving-a-local-model-openai-compatible.md")]
mod serving {}
#[doc = include_str!("../docs/src/mcp.md")]
mod mcp {}
#[doc = include_str!("../docs/src/measuring-a-model-on-bfcl.md")]
mod measuring_a_model_on_bfcl {}
#[doc = include_str!("../docs/src/performance.md")]
mod performance {}
#[doc = include_str!("../docs/src/architecture.md")]
mod architecture {}
#[doc = include_str!("../models/tool-use-mini/README.md")]
mod model_card {}
#[doc = include_str!("../tool-models/README.md")]
mod tool_models_readme {}
#[doc = include_str!("../tool-mcp/README.md")]
mod tool_mcp_readme {}
