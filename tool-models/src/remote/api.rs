//! The HTTP APIs a [`RemoteChat`](super::RemoteChat) can speak: where each
//! turn is posted, the body it takes, and the reader of its answer.

use serde_json::Value;

use super::chat::chat_request;
use super::error::RemoteError;
use super::messages::{messages_request, MessagesReader};
use super::options::RequestOptions;
use super::responses::{responses_request, ResponsesReader};
use super::stream::{ChunkMerger, Completion};
use crate::chat::TurnRequest;
use crate::parse::StreamEvent;

/// Which API carries the turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Api {
    /// OpenAI's Chat Completions (`POST /v1/chat/completions`), which
    /// nearly every engine serves.
    #[default]
    ChatCompletions,
    /// Anthropic's Messages (`POST /v1/messages`), which llama-server and
    /// Anthropic-compatible APIs serve.
    Messages,
    /// OpenAI's Responses (`POST /v1/responses`), which vLLM, llama-server
    /// and OpenAI's newer SDK features use.
    Responses,
}

impl Api {
    /// Every API, in the order `--api` lists them.
    pub const ALL: [Api; 3] = [Api::ChatCompletions, Api::Messages, Api::Responses];

    /// The name `--api` takes: `chat`, `messages`, `responses`.
    pub fn id(self) -> &'static str {
        match self {
            Api::ChatCompletions => "chat",
            Api::Messages => "messages",
            Api::Responses => "responses",
        }
    }

    /// The path under `/v1`.
    pub(super) fn path(self) -> &'static str {
        match self {
            Api::ChatCompletions => "chat/completions",
            Api::Messages => "messages",
            Api::Responses => "responses",
        }
    }

    /// The request body of one turn.
    pub(super) fn body(
        self,
        model: &str,
        request: &TurnRequest<'_>,
        options: &RequestOptions,
        stream: bool,
    ) -> Result<Value, RemoteError> {
        Ok(match self {
            Api::ChatCompletions => chat_request(
                model,
                request.messages,
                request.tools,
                request.tool_choice,
                options,
                stream,
            ),
            Api::Messages => messages_request(model, request, options, stream)?,
            Api::Responses => responses_request(model, request, options, stream),
        })
    }

    /// A reader for one answer.
    pub(super) fn reader(self) -> Box<dyn AnswerReader> {
        match self {
            Api::ChatCompletions => Box::new(ChunkMerger::new()),
            Api::Messages => Box::new(MessagesReader::new()),
            Api::Responses => Box::new(ResponsesReader::new()),
        }
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// A name `--api` does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown API `{0}`: expected one of chat, messages, responses")]
pub struct UnknownApi(pub String);

impl std::str::FromStr for Api {
    type Err = UnknownApi;

    fn from_str(s: &str) -> Result<Api, UnknownApi> {
        Api::ALL
            .into_iter()
            .find(|api| api.id() == s.trim())
            .ok_or_else(|| UnknownApi(s.to_owned()))
    }
}

/// Reads one answer, streamed (server-sent events) or whole, into the
/// agent's events.
pub(super) trait AnswerReader: Send {
    /// One server-sent event: its name (empty when it has none) and data.
    fn feed(&mut self, event: &str, data: &str) -> Result<Vec<StreamEvent>, RemoteError>;
    /// A whole (non-streamed) answer.
    fn feed_response(&mut self, body: &str) -> Result<Vec<StreamEvent>, RemoteError>;
    /// Whether the answer said it is complete (then reading stops).
    fn ended(&self) -> bool {
        false
    }
    /// The end of the answer: calls still open, and how it ended.
    fn finish(self: Box<Self>) -> Result<(Vec<StreamEvent>, Completion), RemoteError>;
}

impl AnswerReader for MessagesReader {
    fn feed(&mut self, event: &str, data: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        MessagesReader::feed(self, event, data)
    }

    fn feed_response(&mut self, body: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        MessagesReader::feed_response(self, body)
    }

    fn ended(&self) -> bool {
        self.stopped()
    }

    fn finish(self: Box<Self>) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
        MessagesReader::finish(*self)
    }
}

impl AnswerReader for ResponsesReader {
    fn feed(&mut self, event: &str, data: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        ResponsesReader::feed(self, event, data)
    }

    fn feed_response(&mut self, body: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        ResponsesReader::feed_response(self, body)
    }

    fn ended(&self) -> bool {
        self.done()
    }

    fn finish(self: Box<Self>) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
        ResponsesReader::finish(*self)
    }
}

impl AnswerReader for ChunkMerger {
    fn feed(&mut self, _event: &str, data: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        ChunkMerger::feed(self, data)
    }

    fn feed_response(&mut self, body: &str) -> Result<Vec<StreamEvent>, RemoteError> {
        ChunkMerger::feed_response(self, body)
    }

    fn ended(&self) -> bool {
        self.done()
    }

    fn finish(self: Box<Self>) -> Result<(Vec<StreamEvent>, Completion), RemoteError> {
        ChunkMerger::finish(*self)
    }
}
