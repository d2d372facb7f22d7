//! The agent's spans, after OpenTelemetry's GenAI semantic conventions,
//! when the `tracing` feature is on: `invoke_agent` around a run, `chat`
//! around each model turn (its model, tokens and finish reason), and the
//! toolbox's `execute_tool` spans inside the run's. Without the feature
//! every function here is a no-op.

use super::{AgentError, Step};
use crate::chat::{Turn, TurnError};

#[cfg(feature = "tracing")]
pub(super) use tracing::Span;

/// A span that records nothing, without the feature.
#[cfg(not(feature = "tracing"))]
#[derive(Clone)]
pub(super) struct Span;

#[cfg(not(feature = "tracing"))]
impl Span {
    pub(super) fn in_scope<T>(&self, f: impl FnOnce() -> T) -> T {
        f()
    }

    /// In place of a span that would record `_fields`: one that records
    /// nothing.
    fn recording_nothing_of<T>(_fields: T) -> Span {
        Span
    }
}

/// The span of a whole run.
pub(super) fn invoke_agent(model: Option<&str>) -> Span {
    #[cfg(feature = "tracing")]
    {
        tracing::info_span!(
            "invoke_agent",
            otel.name = "invoke_agent",
            gen_ai.operation.name = "invoke_agent",
            gen_ai.request.model = model,
            error.type = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
        )
    }
    #[cfg(not(feature = "tracing"))]
    Span::recording_nothing_of(model)
}

/// The span of one model turn.
pub(super) fn chat(model: Option<&str>) -> Span {
    #[cfg(feature = "tracing")]
    {
        tracing::info_span!(
            "chat",
            otel.name = model.map_or_else(|| "chat".to_owned(), |m| format!("chat {m}")),
            gen_ai.operation.name = "chat",
            gen_ai.request.model = model,
            gen_ai.usage.input_tokens = tracing::field::Empty,
            gen_ai.usage.output_tokens = tracing::field::Empty,
            gen_ai.response.finish_reasons = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
        )
    }
    #[cfg(not(feature = "tracing"))]
    Span::recording_nothing_of(model)
}

/// Records a turn's tokens, or its failure, on its span.
pub(super) fn turn(span: &Span, turn: &Result<Turn, TurnError>) {
    #[cfg(feature = "tracing")]
    match turn {
        Ok(turn) => {
            span.record("gen_ai.usage.input_tokens", turn.stats.prompt_tokens as u64);
            span.record(
                "gen_ai.usage.output_tokens",
                turn.stats.generated_tokens as u64,
            );
        }
        Err(e) => failed(span, "model_error", &e.to_string()),
    }
    #[cfg(not(feature = "tracing"))]
    let _ = (span, turn);
}

/// Records why the turn ended: `stop` (an answer) or `tool_calls`.
pub(super) fn finished(span: &Span, step: &Step) {
    #[cfg(feature = "tracing")]
    span.record(
        "gen_ai.response.finish_reasons",
        match step {
            Step::Answered(_) => "[\"stop\"]",
            Step::Calls(_) => "[\"tool_calls\"]",
        },
    );
    #[cfg(not(feature = "tracing"))]
    let _ = (span, step);
}

/// Records a run's end without an answer on its span.
pub(super) fn run_failed(span: &Span, error: &AgentError) {
    #[cfg(feature = "tracing")]
    {
        let kind = match error {
            AgentError::MaxRounds { .. } => "max_rounds",
            AgentError::Model { .. } => "model_error",
            AgentError::Cancelled { .. } => "cancelled",
            AgentError::Stopped(_) => "stopped_for_approval",
            AgentError::Decisions { .. } => "decisions",
            AgentError::Approval { .. } => "approval_error",
            AgentError::Definitions { .. } => "definitions",
            AgentError::ToolChoice { .. } => "tool_choice",
        };
        failed(span, kind, &error.to_string());
    }
    #[cfg(not(feature = "tracing"))]
    let _ = (span, error);
}

#[cfg(feature = "tracing")]
fn failed(span: &Span, kind: &'static str, message: &str) {
    span.record("error.type", kind);
    span.record("otel.status_code", "ERROR");
    span.record("otel.status_description", message);
}

/// `future`, polled inside `span`.
#[cfg(feature = "tracing")]
pub(super) fn instrument<F: std::future::Future>(
    future: F,
    span: &Span,
) -> impl std::future::Future<Output = F::Output> {
    tracing::Instrument::instrument(future, span.clone())
}

/// `future` as it is, without the feature.
#[cfg(not(feature = "tracing"))]
pub(super) fn instrument<F: std::future::Future>(future: F, _span: &Span) -> F {
    future
}
