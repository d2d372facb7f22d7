//! What can go wrong when serving or connecting.

/// An MCP connection could not be made or kept.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The server program could not be started.
    #[error("could not start the MCP server `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The MCP handshake (`initialize`) failed.
    #[error("the MCP handshake with {peer} failed: {message}")]
    Handshake {
        /// Who: a program or a URL.
        peer: String,
        /// The SDK's message.
        message: String,
    },
    /// A request to the server failed.
    #[error("the MCP server {peer} did not answer `{method}`: {message}")]
    Request {
        /// Who.
        peer: String,
        /// The MCP method, `tools/list`…
        method: &'static str,
        /// The SDK's message.
        message: String,
    },
    /// The server listed a tool this toolbox cannot take.
    #[error("the MCP server {peer} lists a tool `{tool}` that cannot be used: {reason}")]
    BadTool {
        /// Who.
        peer: String,
        /// The tool's name.
        tool: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A blocking constructor was called where it would block an async runtime.
    #[error("`{0}` blocks; inside an async runtime, call its async form instead")]
    InsideRuntime(&'static str),
    /// Reading or writing the transport failed.
    #[error("MCP transport: {0}")]
    Io(#[from] std::io::Error),
    /// The server's session ended with an error.
    #[error("the MCP session ended with an error: {0}")]
    Session(String),
}
