//! A connection to an MCP server whose tools an agent can call.
//!
//! A call's [`ToolContext`] reaches the server: cancelling the call sends
//! `notifications/cancelled`, and the server's `notifications/progress`
//! for it are the call's progress. When the server says its tools changed
//! (`notifications/tools/list_changed`) the client lists them again, and
//! the toolboxes it [keeps in step](McpClient::sync) follow.

use crate::content;
use crate::error::McpError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    ProgressNotificationParam, ProgressToken, ServerResult, Tool as McpToolDef,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock, Weak};
use std::time::Duration;
use tokio::runtime::{Handle, Runtime};
use tool_runtime::{
    Invocation, SharedToolbox, Tool, ToolContext, ToolDefinition, ToolError, WeakToolbox,
};

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
    service: Option<RunningService<RoleClient, Listener>>,
    /// What the session hears, shared with its handler.
    heard: Arc<Heard>,
    handle: Handle,
    /// Owned by the blocking constructors, which run without a caller's runtime.
    runtime: Mutex<Option<Runtime>>,
}

/// The session's handler: it hears the server's notifications.
#[derive(Clone, Debug, Default)]
struct Listener {
    heard: Arc<Heard>,
}

/// What the server has told the session.
#[derive(Default)]
struct Heard {
    /// The tools as last listed.
    tools: RwLock<Vec<McpToolDef>>,
    /// The calls running, by their progress token: where the server's
    /// reports go, and the last amount reported (reports arrive on tasks
    /// of their own, so one may overtake another; MCP's amounts only grow).
    running: Mutex<HashMap<ProgressToken, (ToolContext, f64)>>,
    /// The toolboxes kept in step with the list.
    synced: Mutex<Vec<Synced>>,
    /// The connection, to make tools for a new list; set once it exists.
    connection: OnceLock<Weak<Connection>>,
}

impl std::fmt::Debug for Heard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Heard")
            .field("tools", &self.tools().len())
            .finish_non_exhaustive()
    }
}

/// A toolbox holding this server's tools: which names are the server's,
/// and the time limit their calls were given. Held weakly: the toolbox
/// holds the tools, which hold the connection.
struct Synced {
    toolbox: WeakToolbox,
    names: Vec<String>,
    timeout: Duration,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        // A server that cannot list its tools now keeps its old ones here;
        // calls to a tool that went away are answered by the server.
        if let Ok(tools) = context.peer.list_all_tools().await {
            self.heard.listed(tools);
        }
    }

    async fn on_progress(
        &self,
        report: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let mut running = lock(&self.heard.running);
        if let Some((context, last)) = running.get_mut(&report.progress_token) {
            if report.progress > *last {
                *last = report.progress;
                context.progress(report.progress, report.total, report.message.as_deref());
            }
        }
    }
}

impl Heard {
    /// The tools as last listed.
    fn tools(&self) -> Vec<McpToolDef> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Takes a new list of the server's tools, and puts it into every
    /// toolbox kept in step.
    fn listed(&self, tools: Vec<McpToolDef>) {
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = tools;
        self.resync();
    }

    /// Puts the listed tools into every toolbox kept in step, in place of
    /// the ones put there before; a toolbox dropped meanwhile is forgotten.
    fn resync(&self) {
        let Some(connection) = self.connection.get().and_then(Weak::upgrade) else {
            return;
        };
        let mut synced = lock(&self.synced);
        synced.retain_mut(|synced| {
            let Some(toolbox) = synced.toolbox.upgrade() else {
                return false;
            };
            let client = McpClient {
                connection: connection.clone(),
                timeout: synced.timeout,
            };
            // No one to tell of a tool left out: its name was taken
            // meanwhile, or it is unusable (`sync` reported such at first).
            if let Ok(names) = client.replace_in(&toolbox, &synced.names, false) {
                synced.names = names;
            }
            true
        });
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        let service = self.service.take();
        if let Some(runtime) = lock(&self.runtime).take() {
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
        let service =
            Listener::default()
                .serve(transport)
                .await
                .map_err(|e| McpError::Handshake {
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
        let service =
            Listener::default()
                .serve(transport)
                .await
                .map_err(|e| McpError::Handshake {
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
        let client = runtime.block_on(connect)?;
        // Hand the runtime to the connection, which outlives this frame.
        *lock(&client.connection.runtime) = Some(runtime);
        Ok(client)
    }

    async fn start(
        peer: String,
        service: RunningService<RoleClient, Listener>,
    ) -> Result<McpClient, McpError> {
        let heard = service.service().heard.clone();
        let client = McpClient {
            connection: Arc::new(Connection {
                peer,
                session: service.peer().clone(),
                service: Some(service),
                heard: heard.clone(),
                handle: Handle::current(),
                runtime: Mutex::new(None),
            }),
            timeout: DEFAULT_TIMEOUT,
        };
        let _ = heard.connection.set(Arc::downgrade(&client.connection));
        client.refresh().await?;
        Ok(client)
    }

    /// Lists the server's tools again (the client does so by itself when
    /// the server says they changed), and updates the toolboxes kept in
    /// step.
    pub async fn refresh(&self) -> Result<(), McpError> {
        let tools = self
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| McpError::Request {
                peer: self.connection.peer.clone(),
                method: "tools/list",
                message: e.to_string(),
            })?;
        self.connection.heard.listed(tools);
        Ok(())
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

    /// The tools as the server last listed them.
    pub fn definitions(&self) -> Vec<McpToolDef> {
        self.connection.heard.tools()
    }

    /// Every listed tool, ready for a [`Toolbox`](tool_runtime::Toolbox).
    pub fn tools(&self) -> Result<Vec<Arc<dyn Tool>>, McpError> {
        self.definitions()
            .iter()
            .map(|def| Ok(Arc::new(self.tool_for(def)?) as Arc<dyn Tool>))
            .collect()
    }

    /// Adds the server's tools to `toolbox` and keeps them in step with the
    /// server's list: when the server says its tools changed, the ones it
    /// dropped leave the toolbox and new ones join it (an agent sees them
    /// from its next round). A listed name the toolbox already has is an
    /// error now, and nothing is added; later, such a tool is left out.
    /// Calls get this client's time limit.
    pub fn sync(&self, toolbox: &SharedToolbox) -> Result<(), McpError> {
        let names = self.replace_in(toolbox, &[], true)?;
        lock(&self.connection.heard.synced).push(Synced {
            toolbox: toolbox.downgrade(),
            names,
            timeout: self.timeout,
        });
        Ok(())
    }

    /// Replaces the tools named `old` in `toolbox` with the listed ones, as
    /// one change; the names put in. `strict`: a tool that cannot go in is
    /// an error and nothing changes; otherwise it is left out.
    fn replace_in(
        &self,
        toolbox: &SharedToolbox,
        old: &[String],
        strict: bool,
    ) -> Result<Vec<String>, McpError> {
        let mut tools = Vec::new();
        for def in self.definitions() {
            match self.tool_for(&def) {
                Ok(tool) => tools.push(Arc::new(tool) as Arc<dyn Tool>),
                Err(e) if strict => return Err(e),
                Err(_) => {}
            }
        }
        toolbox.update(|toolbox| {
            for name in old {
                toolbox.remove(name);
            }
            let mut names = Vec::new();
            for tool in tools {
                let name = tool.name().to_owned();
                match toolbox.add(tool) {
                    Ok(()) => names.push(name),
                    Err(e) if strict => {
                        return Err(McpError::BadTool {
                            peer: self.connection.peer.clone(),
                            tool: name,
                            reason: e.to_string(),
                        })
                    }
                    Err(_) => {}
                }
            }
            Ok(names)
        })
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

    fn invoke(self: Arc<Self>, args: Map<String, Value>, context: ToolContext) -> Invocation {
        let peer = self.client.peer().clone();
        let heard = self.client.connection.heard.clone();
        let limit = self.client.timeout;
        let params = CallToolRequestParams::new(self.name.clone()).with_arguments(args);
        // On the session's runtime, so callers may use any executor (the
        // toolbox's blocking calls have none).
        let task = self
            .client
            .connection
            .handle
            .spawn(async move { call(peer, heard, params, context, limit).await });
        Invocation::Future(Box::pin(async move {
            let server = &self.client.connection.peer;
            match task.await {
                Ok(Remote::Done(Ok(result))) => content::outcome(result),
                Ok(Remote::Done(Err(e))) => Err(ToolError::Failed(format!(
                    "the MCP server {server} could not run `{}`: {e}",
                    self.name
                ))),
                Ok(Remote::TimedOut) => Err(ToolError::Timeout {
                    tool: self.name.clone(),
                    limit,
                }),
                Ok(Remote::Cancelled) => Err(ToolError::Cancelled {
                    tool: self.name.clone(),
                }),
                Err(_) => Err(ToolError::Failed(format!(
                    "the connection to the MCP server {server} is closed"
                ))),
            }
        }))
    }
}

/// How a call to the server ended.
enum Remote {
    Done(Result<rmcp::model::CallToolResult, rmcp::ServiceError>),
    TimedOut,
    Cancelled,
}

/// One `tools/call`: the server's progress reports for it go to the call's
/// context, and a call cancelled or out of time is withdrawn with
/// `notifications/cancelled`, so the server stops the tool too.
async fn call(
    peer: Peer<RoleClient>,
    heard: Arc<Heard>,
    params: CallToolRequestParams,
    context: ToolContext,
    limit: Duration,
) -> Remote {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = match peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
    {
        Ok(handle) => handle,
        Err(e) => return Remote::Done(Err(e)),
    };
    let (id, token) = (handle.id.clone(), handle.progress_token.clone());
    lock(&heard.running).insert(token.clone(), (context.clone(), f64::MIN));
    let answer = tokio::time::timeout(limit, handle.await_response());
    let outcome = match context.cancel_token().run_until_cancelled(answer).await {
        Some(Ok(Ok(ServerResult::CallToolResult(result)))) => Remote::Done(Ok(result)),
        Some(Ok(Ok(_))) => Remote::Done(Err(rmcp::ServiceError::UnexpectedResponse)),
        Some(Ok(Err(e))) => Remote::Done(Err(e)),
        Some(Err(_)) => Remote::TimedOut,
        None => Remote::Cancelled,
    };
    lock(&heard.running).remove(&token);
    if matches!(outcome, Remote::TimedOut | Remote::Cancelled) {
        let reason = match outcome {
            Remote::TimedOut => "the call ran out of time",
            _ => "the call was cancelled",
        };
        let withdrawn = CancelledNotificationParam::new(Some(id), Some(reason.into()));
        // A server already gone needs no telling.
        let _ = peer.notify_cancelled(withdrawn).await;
    }
    outcome
}

/// The data behind each lock is whole between statements: a panic
/// elsewhere poisons nothing worth refusing service for.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
