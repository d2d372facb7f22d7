//! A connection to an MCP server whose tools an agent can call.

use crate::content;
use crate::error::McpError;
use rmcp::model::{CallToolRequestParams, Tool as McpToolDef};
use rmcp::service::RunningService;
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::{Handle, Runtime};
use tool_runtime::{Invocation, Tool, ToolContext, ToolDefinition, ToolError};

/// How long one call may take unless [`McpClient::timeout`] says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// A live MCP session and the tools its server listed. Cheap to clone; the
/// session ends (and a child process is stopped) when the client and every
/// tool it handed out are dropped.
#[derive(Clone, Debug)]
pub struct McpClient {
    connection: Arc<Connection>,
    timeout: Duration,
}

#[derive(Debug)]
struct Connection {
    /// The program or URL, as errors name it.
    peer: String,
    session: Peer<RoleClient>,
    service: Option<RunningService<RoleClient, ()>>,
    tools: Vec<McpToolDef>,
    handle: Handle,
    /// Owned by the blocking constructors, which run without a caller's runtime.
    runtime: Option<Runtime>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        let service = self.service.take();
        if let Some(runtime) = self.runtime.take() {
            // Stop the child inside its runtime, then let the runtime go
            // without blocking (a drop may happen inside another runtime).
            let _guard = runtime.enter();
            drop(service);
            runtime.shutdown_background();
        }
    }
}

impl McpClient {
    /// Starts `command` and speaks MCP over its stdin/stdout (its stderr is
    /// passed through). Call inside a tokio runtime.
    pub async fn stdio(command: std::process::Command) -> Result<McpClient, McpError> {
        let program = command.get_program().to_string_lossy().into_owned();
        let transport =
            rmcp::transport::TokioChildProcess::new(tokio::process::Command::from(command))
                .map_err(|source| McpError::Spawn {
                    program: program.clone(),
                    source,
                })?;
        let service = ().serve(transport).await.map_err(|e| McpError::Handshake {
            peer: format!("`{program}`"),
            message: e.to_string(),
        })?;
        Self::start(format!("`{program}`"), service).await
    }

    /// Connects to a streamable HTTP endpoint (`http://127.0.0.1:8000/mcp`).
    /// Call inside a tokio runtime.
    #[cfg(feature = "client-http")]
    pub async fn http(url: &str) -> Result<McpClient, McpError> {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_owned());
        let service = ().serve(transport).await.map_err(|e| McpError::Handshake {
            peer: url.to_owned(),
            message: e.to_string(),
        })?;
        Self::start(url.to_owned(), service).await
    }

    /// [`McpClient::stdio`] for programs without an async runtime: the
    /// session runs on a runtime of its own.
    pub fn stdio_blocking(command: std::process::Command) -> Result<McpClient, McpError> {
        Self::blocking("McpClient::stdio_blocking", Self::stdio(command))
    }

    /// [`McpClient::http`] for programs without an async runtime.
    #[cfg(feature = "client-http")]
    pub fn http_blocking(url: &str) -> Result<McpClient, McpError> {
        Self::blocking("McpClient::http_blocking", Self::http(url))
    }

    fn blocking(
        what: &'static str,
        connect: impl std::future::Future<Output = Result<McpClient, McpError>>,
    ) -> Result<McpClient, McpError> {
        if Handle::try_current().is_ok() {
            return Err(McpError::InsideRuntime(what));
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("mcp-client")
            .enable_all()
            .build()?;
        let mut client = runtime.block_on(connect)?;
        // Hand the runtime to the connection, which outlives this frame. The
        // client was just made, so nothing else holds its connection yet.
        match Arc::get_mut(&mut client.connection) {
            Some(connection) => connection.runtime = Some(runtime),
            None => runtime.shutdown_background(),
        }
        Ok(client)
    }

    async fn start(
        peer: String,
        service: RunningService<RoleClient, ()>,
    ) -> Result<McpClient, McpError> {
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| McpError::Request {
                peer: peer.clone(),
                method: "tools/list",
                message: e.to_string(),
            })?;
        Ok(McpClient {
            connection: Arc::new(Connection {
                peer,
                session: service.peer().clone(),
                service: Some(service),
                tools,
                handle: Handle::current(),
                runtime: None,
            }),
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// Gives up on a call after `limit` (default 120 s) and tells the model.
    pub fn timeout(mut self, limit: Duration) -> McpClient {
        self.timeout = limit;
        self
    }

    /// The server's name and version, as it introduced itself.
    pub fn server_name(&self) -> Option<String> {
        let info = self.peer().peer_info()?;
        let server = info.server_info.as_ref()?;
        Some(format!("{} {}", server.name, server.version))
    }

    /// The program or URL this client talks to.
    pub fn peer_name(&self) -> &str {
        &self.connection.peer
    }

    /// The tools as the server listed them.
    pub fn definitions(&self) -> &[McpToolDef] {
        &self.connection.tools
    }

    /// Every listed tool, ready for a [`Toolbox`](tool_runtime::Toolbox).
    pub fn tools(&self) -> Result<Vec<Arc<dyn Tool>>, McpError> {
        self.connection
            .tools
            .iter()
            .map(|def| Ok(Arc::new(self.tool_for(def)?) as Arc<dyn Tool>))
            .collect()
    }

    /// The peer, for requests this crate does not wrap (resources, prompts…).
    pub fn peer(&self) -> &Peer<RoleClient> {
        &self.connection.session
    }

    fn tool_for(&self, def: &McpToolDef) -> Result<McpTool, McpError> {
        let name = def.name.to_string();
        let bad = |reason: &str| McpError::BadTool {
            peer: self.connection.peer.clone(),
            tool: name.clone(),
            reason: reason.to_owned(),
        };
        if name.is_empty() {
            return Err(bad("its name is empty"));
        }
        let schema = Value::Object((*def.input_schema).clone());
        if schema.get("type").is_some_and(|t| t != "object") {
            return Err(bad("its input schema's root is not an object"));
        }
        let mut function = Map::new();
        function.insert("name".into(), Value::String(name.clone()));
        if let Some(d) = &def.description {
            function.insert("description".into(), Value::String(d.to_string()));
        }
        function.insert("parameters".into(), schema.clone());
        let definition = json!({"type": "function", "function": function});
        let definition = ToolDefinition::from_json(&definition).map_err(|e| bad(&e.to_string()))?;
        Ok(McpTool {
            name,
            definition,
            schema,
            client: self.clone(),
        })
    }
}

/// One tool of an MCP server: calls go to the server, its results come back
/// as text, its errors (and a dead or garbled server) as the tool's error.
#[derive(Debug)]
pub struct McpTool {
    name: String,
    definition: ToolDefinition,
    schema: Value,
    client: McpClient,
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn validation_schema(&self) -> &Value {
        &self.schema
    }

    fn invoke(self: Arc<Self>, args: Map<String, Value>, _: ToolContext) -> Invocation {
        let peer = self.client.peer().clone();
        let limit = self.client.timeout;
        let params = CallToolRequestParams::new(self.name.clone()).with_arguments(args);
        // On the session's runtime, so callers may use any executor (the
        // toolbox's blocking calls have none).
        let task = self
            .client
            .connection
            .handle
            .spawn(async move { tokio::time::timeout(limit, peer.call_tool(params)).await });
        Invocation::Future(Box::pin(async move {
            let server = &self.client.connection.peer;
            match task.await {
                Ok(Ok(Ok(result))) => content::outcome(result),
                Ok(Ok(Err(e))) => Err(ToolError::Failed(format!(
                    "the MCP server {server} could not run `{}`: {e}",
                    self.name
                ))),
                Ok(Err(_)) => Err(ToolError::Timeout {
                    tool: self.name.clone(),
                    limit,
                }),
                Err(_) => Err(ToolError::Failed(format!(
                    "the connection to the MCP server {server} is closed"
                ))),
            }
        }))
    }
}
