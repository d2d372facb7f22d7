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
    /// The turn's [`CancelToken`](tool_runtime::CancelToken) was
    /// cancelled; the request was dropped.
    #[error("the turn was cancelled")]
    Cancelled,
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
    /// The request asks for something the API cannot carry (a
    /// `response_format` on Anthropic's Messages API).
    #[error("the request cannot be sent: {0}")]
    Unsupported(String),
    /// The engine reported an error, in a stream chunk or a response body.
    #[error("the engine reported an error: {0}")]
    Engine(String),
    /// A chunk, event or body was not the JSON the API sends.
    #[error("expected a {what}, found {found:?}: {reason}")]
    Malformed {
        /// What was being read (`Chat Completions stream chunk`, `Messages
        /// response`).
        what: &'static str,
        /// The start of the offending text.
        found: String,
        /// Why it could not be read.
        reason: String,
    },
    /// The stream ended before the engine said the turn was over (Chat
    /// Completions: no `finish_reason`, no `data: [DONE]`; Messages: no
    /// `message_delta`, no `message_stop`): the connection dropped.
    #[error("the stream ended before the turn was complete: {received}")]
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

/// A text being read as one of the APIs' JSON forms: its errors name what
/// was expected and quote the start of the text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading<'a> {
    what: &'static str,
    text: &'a str,
}

impl<'a> Reading<'a> {
    /// `text`, read as a `what` (`Messages stream event`).
    pub(crate) fn new(what: &'static str, text: &'a str) -> Reading<'a> {
        Reading { what, text }
    }

    /// The text is not a `what`, for `reason`.
    pub(crate) fn malformed(&self, reason: impl std::fmt::Display) -> RemoteError {
        RemoteError::Malformed {
            what: self.what,
            found: snippet(self.text),
            reason: reason.to_string(),
        }
    }

    /// The text as JSON.
    pub(crate) fn json(&self) -> Result<serde_json::Value, RemoteError> {
        serde_json::from_str(self.text).map_err(|e| self.malformed(e))
    }

    /// `value`, from this text, as `T`.
    pub(crate) fn typed<T: serde::de::DeserializeOwned>(
        &self,
        value: serde_json::Value,
    ) -> Result<T, RemoteError> {
        serde_json::from_value(value).map_err(|e| self.malformed(e))
    }
}
