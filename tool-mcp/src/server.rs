//! A [`Toolbox`] as an MCP server: `tools/list` from the schemas `#[tool]`
//! wrote at compile time, `tools/call` through the toolbox's checks.

use crate::error::McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpToolDef,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use std::sync::Arc;
use tool_runtime::{DefinitionFormat, ToolCall, ToolError, Toolbox};

/// Serves a [`Toolbox`] over MCP. Cheap to clone: the streamable HTTP
/// transport makes one per session.
#[derive(Clone, Debug)]
pub struct McpServer {
    toolbox: Arc<Toolbox>,
    tools: Arc<Vec<McpToolDef>>,
    info: Implementation,
    instructions: Option<String>,
}

impl McpServer {
    /// A server for `toolbox`, introduced as `tool-use` with this crate's version.
    pub fn new(toolbox: Toolbox) -> McpServer {
        let tools = toolbox
            .definitions(DefinitionFormat::Mcp)
            .into_iter()
            .map(definition)
            .collect();
        McpServer {
            toolbox: Arc::new(toolbox),
            tools: Arc::new(tools),
            info: Implementation::new("tool-use", env!("CARGO_PKG_VERSION")),
            instructions: None,
        }
    }

    /// The name and version hosts show for this server.
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> McpServer {
        self.info = Implementation::new(name, version);
        self
    }

    /// Guidance for the host's model on using these tools (`instructions`).
    pub fn instructions(mut self, text: impl Into<String>) -> McpServer {
        self.instructions = Some(text.into());
        self
    }

    /// The tools as `tools/list` gives them: a root `type: "object"` schema
    /// each. `#[tool]` schemas carry no `$schema`; a hand-made tool's is kept,
    /// as SEP-1613 asks.
    pub fn tools(&self) -> &[McpToolDef] {
        &self.tools
    }

    /// The toolbox served.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// Runs one `tools/call`, for hosts that embed this server in an rmcp
    /// handler of their own. An unknown tool is a protocol error (invalid
    /// params, with the names that exist); every other failure is an
    /// `isError` result with the `Error: …` text the agent would read.
    pub async fn call(&self, params: CallToolRequestParams) -> Result<CallToolResult, ErrorData> {
        let arguments = params
            .arguments
            .map(Value::Object)
            .unwrap_or(Value::Object(Map::new()));
        let call = ToolCall::new("mcp", params.name.as_ref(), arguments);
        // `invoke` answers with a result, not a message: the id is never read.
        match self.toolbox.invoke(&call).await {
            Ok(text) => Ok(CallToolResult::success(vec![ContentBlock::text(text)])),
            Err(e @ ToolError::UnknownTool(_)) => {
                Err(ErrorData::invalid_params(e.to_string(), None))
            }
            Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "Error: {e}"
            ))])),
        }
    }

    /// Serves one client on stdin/stdout until it disconnects. Nothing but
    /// protocol goes to stdout; log to stderr.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        let (stdin, stdout) = rmcp::transport::stdio();
        self.serve_io(stdin, stdout).await
    }

    /// Serves one client over any byte stream pair (a socket, a pipe, an
    /// in-memory duplex in tests).
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> Result<(), McpError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let running = self
            .serve((reader, writer))
            .await
            .map_err(|e| McpError::Handshake {
                peer: "the client".into(),
                message: e.to_string(),
            })?;
        running
            .waiting()
            .await
            .map(drop)
            .map_err(|e| McpError::Session(e.to_string()))
    }
}

/// One MCP-form definition as the SDK's type. MCP requires an object at the
/// schema's root: `#[tool]` always writes one, a hand-made tool may not.
fn definition(def: Value) -> McpToolDef {
    let name = def["name"].as_str().unwrap_or_default().to_owned();
    let description = def["description"].as_str().map(|d| d.to_owned().into());
    let mut schema = match def.get("inputSchema") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    schema.insert("type".into(), Value::String("object".into()));
    McpToolDef::new_with_raw(name, description, schema)
}

// No `get_tool`: the SDK would then check arguments itself and answer a
// protocol error, where the toolbox repairs what it can and explains the rest
// in an `isError` result the model can act on.
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.info.clone());
        if let Some(text) = &self.instructions {
            config = config.with_instructions(text.clone());
        }
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request).await.map(CallToolResponse::from)
    }
}
