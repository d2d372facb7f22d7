//! What the agent reports while it runs, for a UI.

use tool_runtime::{Message, ToolProgress};

use crate::chat::TurnStats;
use crate::parse::StreamEvent;

/// One step of an agent run, reported as it happens.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A round begins: the model is about to generate (rounds count from 1).
    RoundStart {
        /// The round's number.
        round: usize,
    },
    /// What the model streams, as its format's parser (or the engine) reads
    /// it: text for the user (tool-call markup excluded), reasoning, a call's
    /// start and argument pieces, and each readable call once complete (it
    /// runs once the turn is complete). A call that cannot be read is not
    /// passed on here but as [`AgentEvent::InvalidToolCall`], with the error
    /// that goes back to the model.
    Stream(StreamEvent),
    /// A call could not be read; the error goes back to the model.
    InvalidToolCall {
        /// The tool message that answers it.
        message: Message,
    },
    /// A running tool reported how far it has got (its call id inside).
    ToolProgress(ToolProgress),
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
