//! Why a remote engine gave no turn.

/// A remote engine that could not be reached or whose answer could not be used. Malformed tool calls are
/// not errors: they become [`InvalidToolCall`](tool_runtime::InvalidToolCall)s
/// that go back to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    /// The environment variable meant to hold the API key is unset or empty.
    #[error("the API key was to be read from ${0}, which is not set")]
    MissingApiKey(String),
    /// The engine could not be reached: refused, unknown host, TLS…
    #[error("cannot reach {url}: {reason}")]
    Connect {
        /// The URL requested.
        url: String,
        /// Why, as the network stack says it.
        reason: String,
    },
    /// The engine answered with an HTTP error.
    #[error("the engine answered HTTP {status}: {message}")]
    Http {
        /// The status code.
        status: u16,
        /// The engine's own message (`error.message`), or the start of its body.
        message: String,
    },
    /// A time limit passed.
    #[error("no answer: waited {after:?} for {what}")]
    Timeout {
        /// What was awaited (`the first byte`, `the whole turn`).
        what: &'static str,
        /// The limit.
        after: std::time::Duration,
    },
    /// The connection failed while the answer was arriving.
    #[error("the answer was interrupted: {0}")]
    Interrupted(String),
    /// The chat template of the raw-completions mode cannot be used.
    #[error("the chat template cannot be used: {0}")]
    Template(String),
    /// A blocking call was made from async code, where it would stall the
    /// runtime; the `_async` methods are for that.
    #[error("a blocking RemoteChat call was made inside an async runtime; use respond_async / models_async there")]
    InsideRuntime,
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
