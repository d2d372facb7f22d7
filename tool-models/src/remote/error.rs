//! Why a remote engine gave no turn.

/// A remote engine's answer that could not be used. Malformed tool calls are
/// not errors: they become [`InvalidToolCall`](tool_runtime::InvalidToolCall)s
/// that go back to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    /// The engine reported an error, in a stream chunk or a response body.
    #[error("the engine reported an error: {0}")]
    Engine(String),
    /// A chunk or body was not the JSON the Chat Completions API sends.
    #[error("expected a Chat Completions {what}, found {found:?}: {reason}")]
    Malformed {
        /// What was being read (`stream chunk`, `response`).
        what: &'static str,
        /// The start of the offending text.
        found: String,
        /// Why it could not be read.
        reason: String,
    },
    /// The stream ended before the engine said the turn was over (no
    /// `finish_reason`, no `data: [DONE]`): the connection dropped.
    #[error("the stream ended before the turn was complete (no finish_reason and no [DONE]); {received}")]
    Truncated {
        /// What had arrived, for the message.
        received: String,
    },
}

/// The first 200 characters of `text`, for messages.
pub(crate) fn snippet(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
