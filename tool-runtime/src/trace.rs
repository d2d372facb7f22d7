//! `execute_tool` spans, after OpenTelemetry's GenAI semantic conventions,
//! when the `tracing` feature is on (`tracing-opentelemetry` exports them):
//! one per call, with the tool's name and the call's id, its failure
//! recorded on it. Without the feature, calls run untraced at no cost.

use crate::exec::BoxFuture;
use crate::tool::ToolResult;

/// Starts a call inside its span: `start` runs (a blocking tool may run
/// inline) and the call's future is polled with the span entered.
#[cfg(feature = "tracing")]
pub(crate) fn execute_tool(
    tool: &str,
    call_id: &str,
    start: impl FnOnce() -> BoxFuture<ToolResult>,
) -> BoxFuture<ToolResult> {
    use tracing::Instrument;
    let span = tracing::info_span!(
        "execute_tool",
        otel.name = format!("execute_tool {tool}"),
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
        gen_ai.tool.call.id = call_id,
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
        otel.status_description = tracing::field::Empty,
    );
    let running = span.in_scope(start);
    let recorded = span.clone();
    Box::pin(
        async move {
            let result = running.await;
            if let Err(e) = &result {
                recorded.record("error.type", error_type(e));
                recorded.record("otel.status_code", "ERROR");
                recorded.record("otel.status_description", e.to_string());
            }
            result
        }
        .instrument(span),
    )
}

/// Without the feature: the call as it is.
#[cfg(not(feature = "tracing"))]
pub(crate) fn execute_tool(
    _tool: &str,
    _call_id: &str,
    start: impl FnOnce() -> BoxFuture<ToolResult>,
) -> BoxFuture<ToolResult> {
    start()
}

/// The convention's `error.type`: a low-cardinality name for the failure.
#[cfg(feature = "tracing")]
fn error_type(e: &crate::ToolError) -> &'static str {
    use crate::ToolError;
    match e {
        ToolError::UnknownTool(_) => "unknown_tool",
        ToolError::ArgumentsNotObject { .. } | ToolError::InvalidArguments { .. } => {
            "invalid_arguments"
        }
        ToolError::Failed(_) => "tool_error",
        ToolError::Panicked { .. } => "panic",
        ToolError::Timeout { .. } => "timeout",
        ToolError::Cancelled { .. } => "cancelled",
        ToolError::Output { .. } => "invalid_output",
    }
}
