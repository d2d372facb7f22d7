//! Anthropic's Messages API (`POST /v1/messages`): the request body, the
//! `message` object that answers it, and the server-sent events of a
//! streamed answer, as the official SDKs type them.
//!
//! - [`MessagesRequest::read`] reads a body, naming the field at fault;
//!   [`MessagesRequest::conversation`] puts it in the crate's terms.
//! - [`MessagesRequest::from_conversation`] is the reverse, for clients.
//! - [`MessageAccumulator`] adds a stream's events up to the `message` it
//!   carries, as the SDKs do.
//!
//! Block types this crate has no use for (images, documents, server tools'
//! results) read as [`ContentBlock::Unsupported`]: a request holding one is
//! refused, naming the type; an answer holding one has it skipped.

use super::{null_as_default, text_or_list, TextOrList};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

mod accumulate;
mod read;
mod write;

pub use accumulate::{AccumulateError, MessageAccumulator};
pub use read::{Conversation, ERROR_PREFIX};

fn is_false(b: &bool) -> bool {
    !*b
}

/// The body of `POST /v1/messages`. Fields the crate does not know
/// (`metadata`, `service_tier`, `thinking`…) are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesRequest {
    /// The model asked for; a server with one model may take it as absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The most tokens to generate; the API requires it.
    pub max_tokens: u64,
    /// Instructions, before the conversation: a string or text blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<Content>,
    /// The conversation, `user` and `assistant` turns.
    pub messages: Vec<InputMessage>,
    /// The tools offered.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tools: Vec<Tool>,
    /// Whether and which tools the model may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoiceParam>,
    /// Strings that end the answer.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub stop_sequences: Vec<String>,
    /// Sampling temperature, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Top-k sampling. Read so that a request carrying it is accepted, but
    /// this crate's server samples with temperature and top-p only and
    /// ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u64>,
    /// Whether the answer comes as server-sent events.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "is_false"
    )]
    pub stream: bool,
    /// The caller's metadata (`user_id`): carried, never used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// Who wrote a turn; the Messages API has no system or tool turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person, and the tools' results.
    User,
    /// The model.
    Assistant,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputMessage {
    /// Who wrote it.
    pub role: Role,
    /// What it says.
    pub content: Content,
}

/// Content as the API takes it: a string, or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Blocks, in order.
    Blocks(Vec<ContentBlock>),
}

impl Content {
    /// The text blocks' text, joined (as OpenAI's text parts are, with
    /// nothing between them).
    pub fn text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect(),
        }
    }

    /// The blocks; a string is one text block.
    pub fn blocks(&self) -> Vec<ContentBlock> {
        match self {
            Content::Text(text) => vec![ContentBlock::Text { text: text.clone() }],
            Content::Blocks(blocks) => blocks.clone(),
        }
    }
}

/// Read by hand rather than `untagged`, to keep paths (see `wire::text_or_list`).
impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(
            match text_or_list(deserializer, "a string or a list of content blocks")? {
                TextOrList::Text(text) => Content::Text(text),
                TextOrList::List(items) => Content::Blocks(items),
            },
        )
    }
}

/// A block of content, in a request or an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A call the model made.
    ToolUse {
        /// The call's id (`toolu_…`); its result names it.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments, a JSON object.
        input: Value,
    },
    /// A tool's result, in a user turn.
    ToolResult {
        /// The id of the call it answers.
        tool_use_id: String,
        /// The result: a string or text blocks; absent for none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Content>,
        /// Whether the tool failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
    },
    /// The model's reasoning, in an assistant turn.
    Thinking {
        /// The reasoning.
        thinking: String,
        /// Anthropic's signature over it; empty from this crate's server,
        /// which has none to give.
        #[serde(default)]
        signature: String,
    },
    /// Reasoning Anthropic keeps encrypted: accepted, and dropped, since
    /// nothing in it can be read.
    RedactedThinking {
        /// The encrypted reasoning.
        data: String,
    },
    /// Any other type (`image`, `document`, `server_tool_use`…).
    #[serde(other, rename = "unsupported")]
    Unsupported,
}

/// A tool the model may call. Only custom tools (a name and an input
/// schema) are taken; Anthropic's server tools are refused by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON schema of its input, an object schema.
    pub input_schema: Value,
}

/// `tool_choice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoiceParam {
    /// The model decides.
    Auto {
        /// At most one call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    /// At least one call, of any tool.
    Any {
        /// Exactly one call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    /// A call of the named tool.
    Tool {
        /// The tool.
        name: String,
        /// Exactly one call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    /// No call.
    None,
}

/// Why an answer ended; names the crate does not know are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum StopReason {
    /// `end_turn`: the model finished.
    EndTurn,
    /// `max_tokens`: the token limit.
    MaxTokens,
    /// `stop_sequence`: one of the request's stop sequences.
    StopSequence,
    /// `tool_use`: the answer holds calls.
    ToolUse,
    /// Any other (`pause_turn`, `refusal`…), as sent.
    Other(String),
}

impl StopReason {
    /// The name on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::MaxTokens => "max_tokens",
            StopReason::StopSequence => "stop_sequence",
            StopReason::ToolUse => "tool_use",
            StopReason::Other(name) => name,
        }
    }
}

impl From<String> for StopReason {
    fn from(name: String) -> StopReason {
        match name.as_str() {
            "end_turn" => StopReason::EndTurn,
            "max_tokens" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "tool_use" => StopReason::ToolUse,
            _ => StopReason::Other(name),
        }
    }
}

impl From<StopReason> for String {
    fn from(reason: StopReason) -> String {
        reason.as_str().to_owned()
    }
}

/// Token counts of a `message`. The prompt's tokens are split: those read
/// from the cache are not in `input_tokens`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    /// Prompt tokens not read from the cache.
    pub input_tokens: u64,
    /// Tokens generated.
    pub output_tokens: u64,
    /// Prompt tokens written to the cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    /// Prompt tokens read from the cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
}

/// The answer: a `message` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageResponse {
    /// `msg_…`.
    pub id: String,
    /// Always `message`.
    #[serde(rename = "type", default = "message_type")]
    pub kind: String,
    /// Always `assistant`.
    #[serde(default = "assistant_role")]
    pub role: String,
    /// The model that answered.
    #[serde(default)]
    pub model: String,
    /// The answer's blocks.
    #[serde(default, deserialize_with = "null_as_default")]
    pub content: Vec<ContentBlock>,
    /// Why it ended; `null` in `message_start`.
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    /// Which stop sequence ended it.
    #[serde(default)]
    pub stop_sequence: Option<String>,
    /// Token counts.
    #[serde(default)]
    pub usage: Usage,
}

fn message_type() -> String {
    "message".into()
}

fn assistant_role() -> String {
    "assistant".into()
}

impl MessageResponse {
    /// An answer with no content yet, as `message_start` carries it.
    pub fn empty(id: impl Into<String>, model: impl Into<String>, usage: Usage) -> MessageResponse {
        MessageResponse {
            id: id.into(),
            kind: message_type(),
            role: assistant_role(),
            model: model.into(),
            content: Vec::new(),
            stop_reason: None,
            stop_sequence: None,
            usage,
        }
    }
}

/// One server-sent event of a streamed answer; its `type` is also the
/// SSE `event:` name ([`MessagesEvent::name`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MessagesEvent {
    /// First: the message with no content yet.
    MessageStart {
        /// The message.
        message: MessageResponse,
    },
    /// A block begins (a `tool_use` with `input: {}`).
    ContentBlockStart {
        /// Its position in `content`.
        index: usize,
        /// The block, empty so far.
        content_block: ContentBlock,
    },
    /// More of a block.
    ContentBlockDelta {
        /// The block's position.
        index: usize,
        /// What it adds.
        delta: BlockDelta,
    },
    /// A block is complete.
    ContentBlockStop {
        /// The block's position.
        index: usize,
    },
    /// Why the message ended, and the final counts.
    MessageDelta {
        /// The stop reason.
        delta: MessageDelta,
        /// The counts so far (cumulative).
        usage: DeltaUsage,
    },
    /// Last.
    MessageStop,
    /// Keeps the connection alive.
    Ping,
    /// The answer failed after it started.
    Error {
        /// What went wrong.
        error: ErrorObject,
    },
    /// An event type the crate does not know; readers skip it.
    #[serde(other, rename = "unknown")]
    Unknown,
}

impl MessagesEvent {
    /// The SSE `event:` name, the same as the `type`.
    pub fn name(&self) -> &'static str {
        match self {
            MessagesEvent::MessageStart { .. } => "message_start",
            MessagesEvent::ContentBlockStart { .. } => "content_block_start",
            MessagesEvent::ContentBlockDelta { .. } => "content_block_delta",
            MessagesEvent::ContentBlockStop { .. } => "content_block_stop",
            MessagesEvent::MessageDelta { .. } => "message_delta",
            MessagesEvent::MessageStop => "message_stop",
            MessagesEvent::Ping => "ping",
            MessagesEvent::Error { .. } => "error",
            MessagesEvent::Unknown => "unknown",
        }
    }
}

/// What a `content_block_delta` adds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BlockDelta {
    /// Text for a `text` block.
    TextDelta {
        /// The text.
        text: String,
    },
    /// A piece of a `tool_use` block's input, as JSON text; the pieces
    /// joined are the input.
    InputJsonDelta {
        /// The piece.
        partial_json: String,
    },
    /// Reasoning for a `thinking` block.
    ThinkingDelta {
        /// The reasoning.
        thinking: String,
    },
    /// A `thinking` block's signature.
    SignatureDelta {
        /// The signature.
        signature: String,
    },
    /// Another kind (`citations_delta`…); readers skip it.
    #[serde(other, rename = "unknown")]
    Unknown,
}

/// The `delta` of `message_delta`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageDelta {
    /// Why the message ended.
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    /// Which stop sequence ended it.
    #[serde(default)]
    pub stop_sequence: Option<String>,
}

/// The `usage` of `message_delta`: totals, which replace the
/// `message_start` ones where present.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeltaUsage {
    /// Tokens generated.
    pub output_tokens: u64,
    /// Prompt tokens not read from the cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Prompt tokens read from the cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    /// Prompt tokens written to the cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
}

/// An error, in an `error` event or an error response's `error`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ErrorObject {
    /// `invalid_request_error`, `overloaded_error`, `api_error`…
    #[serde(rename = "type")]
    pub kind: String,
    /// What went wrong.
    pub message: String,
}

#[cfg(test)]
mod tests;
