//! Why an agent run stopped without an answer.

use serde::{Deserialize, Serialize};
use tool_runtime::{DefinitionsError, Message, ToolCall, UnmetChoice};

/// An agent run that ended without a final answer. The transcript so far is
/// kept, so nothing the model or the tools produced is lost.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The model kept calling tools for `rounds` rounds.
    #[error("the model was still calling tools after {rounds} rounds (max_rounds); last calls: {last_calls}")]
    MaxRounds {
        /// The limit that was reached.
        rounds: usize,
        /// Names of the tools called in the last round, comma-separated.
        last_calls: String,
        /// The transcript up to the stop.
        messages: Vec<Message>,
    },
    /// The model failed to generate (a bad prompt, a context overflow, ...).
    #[error("round {round}: {message}")]
    Model {
        /// The round that failed (from 1).
        round: usize,
        /// What went wrong.
        message: String,
        /// The transcript up to the failure.
        messages: Vec<Message>,
    },
    /// The run's [`CancelToken`](tool_runtime::CancelToken) was cancelled:
    /// the run stopped before round `round` or while the model wrote it
    /// (what it had written is dropped); calls running then were
    /// cancelled and answered so.
    #[error("the run was cancelled in round {round}")]
    Cancelled {
        /// The round that did not finish (from 1).
        round: usize,
        /// The transcript up to the stop.
        messages: Vec<Message>,
    },
    /// The approval hook said [`Approval::Stop`](super::Approval::Stop):
    /// none of the turn's calls ran. [`Agent::resume`](super::Agent::resume)
    /// goes on with a decision for each waiting call.
    #[error("the run stopped for approval of {}", names(&.0.pending))]
    Stopped(Box<Stopped>),
    /// [`Agent::resume`](super::Agent::resume) was given a number of
    /// decisions other than the number of waiting calls; nothing ran, and
    /// the stop is handed back as it was.
    #[error("{found} decisions for {expected} waiting calls: give one per call, in order")]
    Decisions {
        /// How many calls wait.
        expected: usize,
        /// How many decisions came.
        found: usize,
        /// The stop, to resume with the right decisions.
        stopped: Box<Stopped>,
    },
    /// The approval hook failed or panicked; none of the turn's calls ran,
    /// and the stop can be resumed with decisions made another way.
    #[error("{message}")]
    Approval {
        /// What went wrong, naming the call.
        message: String,
        /// The stop, to resume.
        stopped: Box<Stopped>,
    },
    /// A tool's definition is not of the expected shape, or two tools share
    /// a name: checked before the first round.
    #[error("{error}")]
    Definitions {
        /// Which definition, and what is wrong with it.
        error: DefinitionsError,
        /// The conversation as given.
        messages: Vec<Message>,
    },
    /// The agent's `tool_choice` cannot be met by its tools: checked before
    /// the first round.
    #[error("{error}")]
    ToolChoice {
        /// What the choice asks for and what is offered.
        error: UnmetChoice,
        /// The conversation as given.
        messages: Vec<Message>,
    },
}

impl AgentError {
    /// The transcript up to the stop. For a stop awaiting approval, the
    /// conversation before the turn whose calls wait ([`Stopped::turn`]).
    pub fn messages(&self) -> &[Message] {
        match self {
            AgentError::MaxRounds { messages, .. }
            | AgentError::Model { messages, .. }
            | AgentError::Cancelled { messages, .. }
            | AgentError::Definitions { messages, .. }
            | AgentError::ToolChoice { messages, .. } => messages,
            AgentError::Stopped(stopped)
            | AgentError::Decisions { stopped, .. }
            | AgentError::Approval { stopped, .. } => &stopped.messages,
        }
    }

    /// The stop to resume, when the run stopped for approval (or its hook
    /// failed, or a resume had the wrong number of decisions).
    pub fn into_stopped(self) -> Option<Stopped> {
        match self {
            AgentError::Stopped(stopped)
            | AgentError::Decisions { stopped, .. }
            | AgentError::Approval { stopped, .. } => Some(*stopped),
            _ => None,
        }
    }
}

/// `a, b`: the waiting calls' names.
fn names(calls: &[ToolCall]) -> String {
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    names.join(", ")
}

/// A run stopped before a turn's calls ran: the transcript, the turn and
/// the calls waiting for a decision. It serializes, so the run can resume
/// in another process once someone has decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stopped {
    /// The conversation before the turn.
    pub messages: Vec<Message>,
    /// The assistant turn whose calls wait.
    pub turn: Message,
    /// The readable calls waiting for a decision, in order.
    pub pending: Vec<ToolCall>,
    /// The answers known already (to unreadable calls), by position in
    /// the turn's calls; `None` for a pending call.
    pub(super) answered: Vec<Option<Message>>,
}
