//! The Model Context Protocol for tool-use toolboxes, over the official Rust
//! SDK ([`rmcp`]).
//!
//! - [`McpServer`] serves a [`Toolbox`](tool_runtime::Toolbox) to any MCP host
//!   (Claude Desktop, an IDE, the Python SDK…) over stdio or streamable HTTP.
//!   Schemas are the ones `#[tool]` wrote at compile time; a failed call is an
//!   `isError` result whose text is the `Error: …` the agent would have read.
//! - [`McpClient`] connects to an MCP server (a child process or an HTTP URL)
//!   and hands out its tools as [`Tool`](tool_runtime::Tool)s, so an agent calls
//!   them next to `#[tool]` functions; a server that dies or answers garbage
//!   becomes an `Error: …` tool message, never a crash.
//!
//! ```no_run
//! # #[cfg(feature = "server")]
//! # async fn serve(toolbox: tool_runtime::Toolbox) -> Result<(), tool_mcp::McpError> {
//! // Everything a host needs to use the tools, on stdin/stdout.
//! tool_mcp::McpServer::new(toolbox).serve_stdio().await
//! # }
//! ```
//!
//! Features: `server` (stdio), `server-http`, `client` (child processes),
//! `client-http`.

#![deny(missing_docs)]

#[cfg(feature = "client")]
mod client;
#[cfg(feature = "client")]
mod content;
mod error;
#[cfg(feature = "server-http")]
mod http;
#[cfg(feature = "server")]
mod server;
#[cfg(feature = "client")]
mod toolbox;

#[cfg(feature = "client")]
pub use client::{McpClient, McpTool};
#[cfg(feature = "client")]
pub use content::result_text;
pub use error::McpError;
#[cfg(feature = "server-http")]
pub use http::HttpOptions;
#[cfg(feature = "server")]
pub use server::McpServer;
#[cfg(feature = "client")]
pub use toolbox::ToolboxMcp;

/// The SDK this crate is built on, for types its API hands out.
pub use rmcp;
