//! The chat-model contract: what a model that writes assistant turns
//! implements ([`ChatModel`], [`AsyncChatModel`]), what it is asked
//! ([`TurnRequest`]) and what it gives back ([`Turn`], [`ModelDelta`],
//! [`TurnStats`], [`Usage`]); and [`ScriptedChat`], a model whose turns
//! are scripted, for tests.
//!
//! The agent loop drives it; local generation, remote engines, the server,
//! the wire types and the evaluation harness build on it. It depends on
//! none of them.

mod scripted;

pub use crate::stats::{RunStats, TurnStats, Usage};
pub use scripted::{Asked, ScriptedChat};

use crate::parse::{Format, StreamEvent};
use tool_runtime::{CancelToken, Message, ToolChoice, ToolDefinition};

/// What the model is asked for in one round.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct TurnRequest<'a> {
    /// The conversation so far.
    pub messages: &'a [Message],
    /// The tools offered, checked.
    pub tools: &'a [ToolDefinition],
    /// Whether and which tool the model must call this round.
    pub tool_choice: &'a ToolChoice,
    /// Stops the turn once cancelled: a local model stops generating at
    /// its next token (as it does when its options' own token is), a remote one
    /// drops its request, closing the connection. The agent passes its
    /// run's token.
    pub cancel: Option<&'a CancelToken>,
}

impl<'a> TurnRequest<'a> {
    /// A request for one turn, not cancellable.
    pub fn new(
        messages: &'a [Message],
        tools: &'a [ToolDefinition],
        tool_choice: &'a ToolChoice,
    ) -> TurnRequest<'a> {
        TurnRequest {
            messages,
            tools,
            tool_choice,
            cancel: None,
        }
    }

    /// The request, stopped once `token` is cancelled.
    pub fn cancelled_by(mut self, token: &'a CancelToken) -> TurnRequest<'a> {
        self.cancel = Some(token);
        self
    }
}

/// One generated assistant turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    /// The raw text, tool-call markup included.
    pub text: String,
    /// Token counts and timings.
    pub stats: TurnStats,
}

/// What a model writes while it answers.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelDelta<'a> {
    /// Raw text in the model's [`format`](ChatModel::format), tool-call
    /// markup included: the agent parses it (a local model).
    Text(&'a str),
    /// Output the model has already parsed (a remote engine that returns
    /// structured calls): passed on as it is.
    Parsed(StreamEvent),
}

/// A model the agent can drive.
pub trait ChatModel {
    /// The format the model writes its tool calls in, for the
    /// [`ModelDelta::Text`] it produces.
    fn format(&self) -> Format;

    /// Writes the assistant's next turn, passing its output to `out` as it
    /// is generated: raw text, parsed events, or both.
    fn respond(
        &mut self,
        request: &TurnRequest<'_>,
        out: &mut dyn FnMut(ModelDelta<'_>),
    ) -> Result<Turn, TurnError>;

    /// The prompt `request` renders to, where the model renders it here
    /// (a local model's chat template, the raw-completions mode); `None`
    /// where an engine renders its own, or rendering fails (`respond`
    /// then says why).
    fn prompt(&self, request: &TurnRequest<'_>) -> Option<String> {
        let _ = request;
        None
    }

    /// The model's name, for traces (`gen_ai.request.model`), when known.
    fn model_name(&self) -> Option<String> {
        None
    }
}

/// Why a model could not write its turn: whatever the model's own error is
/// (a local model's generation, a remote engine's HTTP or stream error),
/// boxed, since the agent only reports it. Distinct from
/// `model::ModelError` (the `local` feature), which is about loading a
/// model's files.
pub type TurnError = Box<dyn std::error::Error + Send + Sync>;

/// A future a model returns, borrowing what it was given.
pub type TurnFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Turn, TurnError>> + Send + 'a>>;

/// A model the agent can drive from async code ([`Agent::run_async`](crate::agent::Agent::run_async)):
/// a remote engine is awaited instead of blocked on.
pub trait AsyncChatModel: Send {
    /// As [`ChatModel::format`].
    fn format(&self) -> Format;

    /// As [`ChatModel::respond`], as a future.
    fn respond_async<'a>(
        &'a mut self,
        request: &'a TurnRequest<'a>,
        out: &'a mut (dyn FnMut(ModelDelta<'_>) + Send),
    ) -> TurnFuture<'a>;

    /// As [`ChatModel::model_name`].
    fn model_name(&self) -> Option<String> {
        None
    }
}
