//! The MCP conformance suite (npm `@modelcontextprotocol/conformance`) against
//! an `McpServer` over streamable HTTP.
//!
//! The suite's tool scenarios call tools of fixed names. Those a `Toolbox`
//! can express are `#[tool]` functions served by `McpServer::call`; those that
//! need MCP itself (images, audio, resources, logging, progress, sampling,
//! elicitation) are written against rmcp in this file's handler, which
//! delegates everything else to the `McpServer`: the way an rmcp server of
//! one's own adds `#[tool]` functions.
//!
//! `$TOOL_USE_MCP_CONFORMANCE` names a folder where `npm install
//! @modelcontextprotocol/conformance node@22` ran (the suite needs Node 22).
//! Without it the test says so and passes, unless
//! `TOOL_USE_REQUIRE_MCP_CONFORMANCE=1` (CI).

// The suite still tests sampling and logging, which the newest protocol
// revision deprecates (SEP-2577).
#![allow(deprecated)]

#[path = "common/skip.rs"]
mod skip;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CreateMessageRequestParams,
    ElicitRequestParams, ListToolsResult, LoggingLevel, LoggingMessageNotificationParam,
    PaginatedRequestParams, ProgressNotificationParam, SamplingMessage, ServerCapabilities,
    ServerConfig, SetLevelRequestParams, Tool as McpToolDef,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;
use tool_use::mcp::McpServer;
use tool_use::runtime::{Invocation, ToolDefinition};
use tool_use::{tool, Tool};

/// A 1×1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A silent WAV header with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

/// Returns a fixed text, for `tools-call-simple-text`.
#[tool]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".into()
}

/// Always fails, for `tools-call-error`.
#[tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

/// A hand-made tool whose schema uses JSON Schema 2020-12 (SEP-1613: the
/// server must pass `$schema`, `$defs` and `additionalProperties` on).
struct JsonSchema2020 {
    definition: ToolDefinition,
}

impl Tool for JsonSchema2020 {
    fn name(&self) -> &str {
        "json_schema_2020_12_tool"
    }
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }
    fn invoke(
        self: Arc<Self>,
        args: serde_json::Map<String, Value>,
        _: tool_use::ToolContext,
    ) -> Invocation {
        Invocation::Blocking(Box::new(move || Ok(Value::Object(args).to_string().into())))
    }
}

fn json_schema_2020() -> JsonSchema2020 {
    JsonSchema2020 {
        definition: ToolDefinition::from_json(&json!({"type": "function", "function": {
            "name": "json_schema_2020_12_tool",
            "description": "Tool with JSON Schema 2020-12 features",
            "parameters": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"type": "object", "properties": {
                    "street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
                "additionalProperties": false
            }
        }}))
        .unwrap(),
    }
}

/// The suite's server: MCP-only tools here, everything else from `McpServer`.
#[derive(Clone)]
struct Conformance {
    toolbox: McpServer,
}

fn native_tools() -> Vec<McpToolDef> {
    let empty = json!({"type": "object", "properties": {}});
    let with = |name: &str| json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]});
    [
        ("test_image_content", "Returns an image.", empty.clone()),
        ("test_audio_content", "Returns audio.", empty.clone()),
        (
            "test_embedded_resource",
            "Returns an embedded resource.",
            empty.clone(),
        ),
        (
            "test_multiple_content_types",
            "Returns text, an image and a resource.",
            empty.clone(),
        ),
        (
            "test_tool_with_logging",
            "Logs three messages.",
            empty.clone(),
        ),
        (
            "test_tool_with_progress",
            "Reports progress three times.",
            empty.clone(),
        ),
        ("test_sampling", "Asks the client's model.", with("prompt")),
        ("test_elicitation", "Asks the user.", with("message")),
        (
            "test_elicitation_sep1034_defaults",
            "Asks with defaults.",
            empty.clone(),
        ),
        (
            "test_elicitation_sep1330_enums",
            "Asks with every kind of enum.",
            empty,
        ),
    ]
    .into_iter()
    .map(|(name, description, schema)| {
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        McpToolDef::new(name, description, schema)
    })
    .collect()
}

fn result(value: Value) -> Result<CallToolResult, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn text(text: String) -> Result<CallToolResult, ErrorData> {
    result(json!({"content": [{"type": "text", "text": text}]}))
}

impl Conformance {
    async fn native(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResult, ErrorData>> {
        let argument = |name: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|a| a.get(name))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let image = json!({"type": "image", "data": PNG, "mimeType": "image/png"});
        let outcome = match request.name.as_ref() {
            "test_image_content" => result(json!({"content": [image]})),
            "test_audio_content" => result(
                json!({"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}),
            ),
            "test_embedded_resource" => {
                result(json!({"content": [{"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content."}}]}))
            }
            "test_multiple_content_types" => result(json!({"content": [
                {"type": "text", "text": "Multiple content types test:"},
                image,
                {"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                    "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}]})),
            "test_tool_with_logging" => {
                for (i, message) in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ]
                .iter()
                .enumerate()
                {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    let note =
                        LoggingMessageNotificationParam::new(LoggingLevel::Info, json!(message));
                    let _ = context.peer.notify_logging_message(note).await;
                }
                text("Logged three messages.".into())
            }
            "test_tool_with_progress" => {
                let token = context.meta.get_progress_token();
                for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    if let Some(token) = &token {
                        let note = ProgressNotificationParam::new(token.clone(), progress)
                            .with_total(100.0);
                        let _ = context.peer.notify_progress(note).await;
                    }
                }
                text("Progress reported.".into())
            }
            "test_sampling" => {
                let ask = CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text(argument("prompt"))],
                    100,
                );
                #[allow(deprecated)]
                match context.peer.create_message(ask).await {
                    Ok(answer) => text(format!("LLM response: {}", json!(answer.message.content))),
                    Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
                }
            }
            "test_elicitation" => {
                elicit(context, argument("message"), json!({"type": "object", "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"}},
                    "required": ["username", "email"]})).await
            }
            "test_elicitation_sep1034_defaults" => {
                elicit(context, "Defaults for every primitive type".into(), json!({"type": "object", "properties": {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "score": {"type": "number", "default": 95.5},
                    "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "default": true}}})).await
            }
            "test_elicitation_sep1330_enums" => {
                let titled = |prefix: &str, titles: [&str; 3]| -> Vec<Value> {
                    titles.iter().enumerate().map(|(i, t)| json!({"const": format!("{prefix}{}", i + 1), "title": t})).collect()
                };
                elicit(context, "Every kind of enum".into(), json!({"type": "object", "properties": {
                    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "oneOf": titled("value", ["First Option", "Second Option", "Third Option"])},
                    "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                    "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                    "titledMulti": {"type": "array", "items": {"anyOf": titled("value", ["First Choice", "Second Choice", "Third Choice"])}}}})).await
            }
            _ => return None,
        };
        Some(outcome)
    }
}

/// Asks the client's user to fill in `schema`; the answer as text.
async fn elicit(
    context: &RequestContext<RoleServer>,
    message: String,
    schema: Value,
) -> Result<CallToolResult, ErrorData> {
    let ask: ElicitRequestParams = serde_json::from_value(
        json!({"mode": "form", "message": message, "requestedSchema": schema}),
    )
    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    match context.peer.create_elicitation(ask).await {
        Ok(answer) => text(format!("Elicitation completed: {}", json!(answer))),
        Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
    }
}

impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = self.toolbox.tools().to_vec();
        tools.extend(native_tools());
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match self.native(&request, &context).await {
            Some(outcome) => outcome,
            None => self.toolbox.call(request).await,
        }
        .map(CallToolResponse::from)
    }

    async fn set_level(
        &self,
        _request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }
}

fn suite() -> Option<PathBuf> {
    match std::env::var_os("TOOL_USE_MCP_CONFORMANCE") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => skip::because(
            "TOOL_USE_MCP_CONFORMANCE is not set (a folder with @modelcontextprotocol/conformance and node@22 installed)",
            "TOOL_USE_REQUIRE_MCP_CONFORMANCE",
        ),
    }
}

/// `✓ name: N passed, M failed` lines of the suite's summary.
fn scenarios(summary: &str) -> Vec<(String, u32, u32)> {
    summary
        .lines()
        .filter_map(|line| {
            let line = line.trim_start_matches(['✓', '✗', ' ']);
            let (name, counts) = line.split_once(": ")?;
            let (passed, failed) = counts.split_once(" passed, ")?;
            Some((
                name.to_owned(),
                passed.parse().ok()?,
                failed.strip_suffix(" failed")?.parse().ok()?,
            ))
        })
        .collect()
}

#[test]
fn the_mcp_conformance_suite_passes_every_tools_scenario() {
    let Some(dir) = suite() else {
        return;
    };
    let toolbox = tool_use::toolbox![test_simple_text, test_error_handling]
        .with(json_schema_2020())
        .unwrap();
    let handler = Conformance {
        toolbox: McpServer::new(toolbox),
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = runtime.spawn(async move {
        let service = rmcp::transport::StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(rmcp::transport::streamable_http_server::session::local::LocalSessionManager::default()),
            rmcp::transport::StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });

    let results = tempfile::tempdir().unwrap();
    let out = Command::new(dir.join("node_modules/.bin/node"))
        .arg(dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--suite", "all", "--url", &url])
        .current_dir(results.path())
        .output()
        .unwrap();
    let _ = stop.send(());
    drop(server);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = stdout.split("=== SUMMARY ===").nth(1).unwrap_or_else(|| {
        panic!(
            "no summary: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    println!("{summary}");
    let scenarios = scenarios(summary);
    let must_pass = |name: &str| {
        name.starts_with("tools-")
            || [
                "server-initialize",
                "ping",
                "dns-rebinding-protection",
                "json-schema-2020-12",
                "logging-set-level",
            ]
            .contains(&name)
    };
    let failed: Vec<_> = scenarios
        .iter()
        .filter(|(name, _, failed)| must_pass(name) && *failed > 0)
        .collect();
    assert!(failed.is_empty(), "{failed:?}\n{stdout}");
    let tools = scenarios
        .iter()
        .filter(|(name, ..)| name.starts_with("tools-"))
        .count();
    assert!(tools >= 11, "only {tools} tools scenarios ran: {summary}");
}
