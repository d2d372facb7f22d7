//! What the agent reports while it runs, for a UI.

use tool_runtime::{Message, ToolCall};

use super::TurnStats;

/// One step of an agent run, reported as it happens.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A round begins: the model is about to generate (rounds count from 1).
    RoundStart {
        /// The round's number.
        round: usize,
    },
    /// More of the assistant's text for the user (tool-call markup excluded).
    TextDelta(String),
    /// More of the assistant's reasoning, for models that think aloud.
    ReasoningDelta(String),
    /// A call begins: its name is known, its arguments follow.
    ToolCallStart {
        /// Its position among the turn's calls.
        index: usize,
        /// Its id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a call's arguments, as JSON text (formats and engines that
    /// stream them; others send them whole with [`AgentEvent::ToolCall`]).
    ToolCallArguments {
        /// The call's index.
        index: usize,
        /// The next piece of the arguments' JSON text.
        delta: String,
    },
    /// The model asked for a tool, and the call is complete; it runs once
    /// the turn is complete.
    ToolCall(ToolCall),
    /// A call could not be read; the error goes back to the model.
    InvalidToolCall {
        /// The tool message that answers it.
        message: Message,
    },
    /// A tool finished (or failed: the content then starts with `Error: `).
    ToolResult {
        /// The tool message appended to the transcript.
        message: Message,
    },
    /// The model finished a turn.
    TurnEnd {
        /// Token counts and timings of the turn.
        stats: TurnStats,
    },
    /// The model answered without calling a tool: the run is over.
    Answer(String),
}
