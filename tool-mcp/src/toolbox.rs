//! MCP tools in a [`Toolbox`], next to `#[tool]` functions.

use crate::client::McpClient;
use crate::error::McpError;
use tool_runtime::Toolbox;

/// Adds an MCP server's tools to a toolbox.
pub trait ToolboxMcp: Sized {
    /// Every tool `client` listed. A name the toolbox already has is an error
    /// (models could not tell the two apart).
    fn with_mcp(self, client: &McpClient) -> Result<Self, McpError>;
}

impl ToolboxMcp for Toolbox {
    fn with_mcp(mut self, client: &McpClient) -> Result<Toolbox, McpError> {
        for tool in client.tools()? {
            let name = tool.name().to_owned();
            self.add(tool).map_err(|e| McpError::BadTool {
                peer: client.peer_name().to_owned(),
                tool: name,
                reason: e.to_string(),
            })?;
        }
        Ok(self)
    }
}
