//! A [`Toolbox`] as an MCP server: `tools/list` from the schemas `#[tool]`
//! wrote at compile time, `tools/call` through the toolbox's checks.
//!
//! Each call's [`ToolContext`](tool_runtime::ToolContext) carries the MCP
//! request: `notifications/cancelled` cancels it, its progress goes back as
//! `notifications/progress` when the client sent a progress token, and its
//! data holds the client's [`Implementation`] and, over HTTP, the request's
//! `http::request::Parts` (headers, and whatever an auth layer put in its
//! extensions), beside the server's own [`RunContext`] data.
//!
//! A tool whose return type has an object schema is listed with it as
//! `outputSchema`, and its results carry the value as `structuredContent`
//! beside the text older hosts read.
//!
//! The toolbox is a [`SharedToolbox`]: add or remove a tool while clients
//! are connected (from a tool, say) and each is sent
//! `notifications/tools/list_changed`, and lists the new tools.

use crate::error::McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ServerCapabilities, ServerConfig, Tool as McpToolDef,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tool_runtime::{
    DefinitionFormat, RunContext, SharedToolbox, Subscription, ToolCall, ToolError, ToolOutput,
    ToolProgress, Toolbox,
};

/// Serves a [`Toolbox`] over MCP. Cheap to clone: the streamable HTTP
/// transport makes one per session. Clones serve one toolbox.
#[derive(Debug)]
pub struct McpServer {
    toolbox: SharedToolbox,
    /// The tools as listed, and the toolbox version they list.
    listed: Arc<Mutex<(u64, Arc<Vec<McpToolDef>>)>>,
    info: Implementation,
    instructions: Option<String>,
    context: RunContext,
    /// This session's hearing of toolbox changes: its own in each clone,
    /// so it ends with the session that dropped it.
    listening: Mutex<Option<Subscription>>,
}

impl Clone for McpServer {
    fn clone(&self) -> McpServer {
        McpServer {
            toolbox: self.toolbox.clone(),
            listed: self.listed.clone(),
            info: self.info.clone(),
            instructions: self.instructions.clone(),
            context: self.context.clone(),
            listening: Mutex::new(None),
        }
    }
}

impl McpServer {
    /// A server for `toolbox`, introduced as `tool-use` with this crate's
    /// version. Pass a [`SharedToolbox`] (and keep a clone) to change the
    /// tools while it serves.
    pub fn new(toolbox: impl Into<SharedToolbox>) -> McpServer {
        let toolbox = toolbox.into();
        let (version, tools) = toolbox.versioned();
        McpServer {
            listed: Arc::new(Mutex::new((version, Arc::new(mcp_tools(&tools))))),
            toolbox,
            info: Implementation::new("tool-use", env!("CARGO_PKG_VERSION")),
            instructions: None,
            context: RunContext::new(),
            listening: Mutex::new(None),
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

    /// What every call gets besides the request's own data: values its
    /// tools read, a token that cancels every call (at shutdown, say), a
    /// progress sink that hears every call (for a log). Each request's
    /// cancellation is a child of this token.
    pub fn context(mut self, run: RunContext) -> McpServer {
        self.context = run;
        self
    }

    /// The tools as `tools/list` gives them now: a root `type: "object"`
    /// schema each. `#[tool]` schemas carry no `$schema`; a hand-made
    /// tool's is kept, as SEP-1613 asks.
    pub fn tools(&self) -> Arc<Vec<McpToolDef>> {
        let (version, toolbox) = self.toolbox.versioned();
        let mut listed = self.listed.lock().unwrap_or_else(|p| p.into_inner());
        if listed.0 != version {
            *listed = (version, Arc::new(mcp_tools(&toolbox)));
        }
        listed.1.clone()
    }

    /// The toolbox served: change it and clients are told.
    pub fn toolbox(&self) -> &SharedToolbox {
        &self.toolbox
    }

    /// Runs one `tools/call`, for hosts that embed this server in an rmcp
    /// handler of their own. An unknown tool is a protocol error (invalid
    /// params, with the names that exist); every other failure is an
    /// `isError` result with the `Error: …` text the agent would read.
    pub async fn call(&self, params: CallToolRequestParams) -> Result<CallToolResult, ErrorData> {
        self.call_in(params, &self.context).await
    }

    /// [`McpServer::call`] as part of `run`: its data, cancellation and
    /// progress sink reach the tool's context.
    pub async fn call_in(
        &self,
        params: CallToolRequestParams,
        run: &RunContext,
    ) -> Result<CallToolResult, ErrorData> {
        self.run_call(params, "mcp", run).await
    }

    /// One `tools/call` as call `id` of `run`.
    async fn run_call(
        &self,
        params: CallToolRequestParams,
        id: &str,
        run: &RunContext,
    ) -> Result<CallToolResult, ErrorData> {
        let arguments = params
            .arguments
            .map(Value::Object)
            .unwrap_or(Value::Object(Map::new()));
        let call = ToolCall::new(id, params.name.as_ref(), arguments);
        // `invoke` answers with a result, not a message: the id is only
        // what the tool's context reports.
        // A blocking tool gets a thread, so that this session (and, on one
        // runtime, every other) keeps reading requests and cancellations.
        let toolbox = self.toolbox.snapshot();
        match toolbox.invoke_detached(&call, run).await {
            Ok(output) => Ok(answer(&toolbox, &call.name, output)),
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

/// A call's result: its text, and for a tool of `toolbox` with an
/// `outputSchema` the value it returned as `structuredContent`.
fn answer(toolbox: &Toolbox, tool: &str, output: ToolOutput) -> CallToolResult {
    let structured = toolbox
        .get(tool)
        .is_some_and(|t| object_return(t.definition()).is_some());
    let mut result = CallToolResult::success(vec![ContentBlock::text(output.text)]);
    if let (true, Some(value @ Value::Object(_))) = (structured, output.value) {
        result.structured_content = Some(value);
    }
    result
}

/// The toolbox's tools as MCP lists them.
fn mcp_tools(toolbox: &Toolbox) -> Vec<McpToolDef> {
    toolbox
        .definitions(DefinitionFormat::Mcp)
        .into_iter()
        .zip(toolbox.tool_definitions())
        .map(|(mcp, def)| definition(mcp, object_return(def).cloned()))
        .collect()
}

/// One MCP-form definition as the SDK's type. MCP requires an object at the
/// schema's root: `#[tool]` always writes one, a hand-made tool may not.
fn definition(def: Value, output: Option<Map<String, Value>>) -> McpToolDef {
    let name = def["name"].as_str().unwrap_or_default().to_owned();
    let description = def["description"].as_str().map(|d| d.to_owned().into());
    let mut schema = match def.get("inputSchema") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    schema.insert("type".into(), Value::String("object".into()));
    let tool = McpToolDef::new_with_raw(name, description, schema);
    match output {
        Some(output) => tool.with_raw_output_schema(Arc::new(output)),
        None => tool,
    }
}

/// The `outputSchema` of a tool whose definition has a `return` schema
/// (what `#[tool]` writes for its return type) that is an object: MCP
/// wants an object at the root of both the schema and `structuredContent`.
fn object_return(def: &tool_runtime::ToolDefinition) -> Option<&Map<String, Value>> {
    match def.as_json()["function"].get("return") {
        Some(Value::Object(schema)) if schema.get("type") == Some(&Value::from("object")) => {
            Some(schema)
        }
        _ => None,
    }
}

// No `get_tool`: the SDK would then check arguments itself and answer a
// protocol error, where the toolbox repairs what it can and explains the rest
// in an `isError` result the model can act on.
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let mut config = ServerConfig::new(capabilities).with_server_info(self.info.clone());
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
        Ok(ListToolsResult::with_all_items(self.tools().to_vec()))
    }

    /// From now on, each change of the toolbox is sent to this client as
    /// `notifications/tools/list_changed` (changes made while one is being
    /// sent are told once more, together).
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let (changed, mut changes) = tokio::sync::mpsc::unbounded_channel::<()>();
        let subscription = self.toolbox.on_change(move |_| {
            let _ = changed.send(());
        });
        // Dropped with this session's server, which ends the task below.
        *self.listening.lock().unwrap_or_else(|p| p.into_inner()) = Some(subscription);
        let peer = context.peer;
        tokio::spawn(async move {
            while changes.recv().await.is_some() {
                while changes.try_recv().is_ok() {}
                if peer.notify_tool_list_changed().await.is_err() {
                    break;
                }
            }
        });
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut run = self
            .context
            .clone()
            .with_cancel(self.context.cancel_token().child());
        if let Some(client) = context.peer.peer_info() {
            run = run.with(client.client_info.clone());
        }
        #[cfg(feature = "server-http")]
        if let Some(parts) = context.extensions.get::<axum::http::request::Parts>() {
            run = run.with(parts.clone());
        }
        // `notifications/cancelled` cancels rmcp's token; the call's follows.
        let cancel = run.cancel_token().clone();
        let withdrawn = context.ct.clone();
        let watch = tokio::spawn(async move {
            withdrawn.cancelled().await;
            cancel.cancel();
        });
        let progress = context.meta.get_progress_token().map(|token| {
            let (sink, forwarder) = progress_forwarder(context.peer.clone(), token);
            run = std::mem::take(&mut run).and_progress(move |report: ToolProgress| {
                let _ = sink.send(report);
            });
            forwarder
        });
        let id = format!("mcp-{}", request_id(&context));
        let result = self.run_call(request, &id, &run).await;
        watch.abort();
        drop(run);
        // The reports go out before the answer, as clients expect; a tool
        // still running past its time limit keeps its sink, so the wait is
        // bounded.
        if let Some(forwarder) = progress {
            let _ = tokio::time::timeout(Duration::from_secs(1), forwarder).await;
        }
        result.map(CallToolResponse::from)
    }
}

/// Sends a call's progress reports, in order, as `notifications/progress`
/// with the client's `token`, until the sender is dropped.
fn progress_forwarder(
    peer: rmcp::Peer<RoleServer>,
    token: ProgressToken,
) -> (
    tokio::sync::mpsc::UnboundedSender<ToolProgress>,
    tokio::task::JoinHandle<()>,
) {
    let (sink, mut reports) = tokio::sync::mpsc::unbounded_channel::<ToolProgress>();
    let forwarder = tokio::spawn(async move {
        while let Some(report) = reports.recv().await {
            let mut param = ProgressNotificationParam::new(token.clone(), report.done);
            if let Some(total) = report.total {
                param = param.with_total(total);
            }
            if let Some(message) = report.message {
                param = param.with_message(message);
            }
            // A client that went away just misses the rest.
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    (sink, forwarder)
}

/// The JSON-RPC id of the request, as text.
fn request_id(context: &RequestContext<RoleServer>) -> String {
    match serde_json::to_value(&context.id) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}
