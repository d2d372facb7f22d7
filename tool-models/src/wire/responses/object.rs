//! The response object and the stream's events. Fields a client's types
//! require are always written; reading takes what other servers leave out.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ContentPart, Item, TextConfig, Tool, ToolChoiceMode, ToolChoiceParam};
use crate::wire::null_as_default;

/// The response object (`"object": "response"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// `resp_…`.
    pub id: String,
    /// Always `response`.
    #[serde(default = "response_object")]
    pub object: String,
    /// Seconds since 1970.
    #[serde(default)]
    pub created_at: u64,
    /// Where it stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ResponseStatus>,
    /// Why it failed, for `failed`.
    #[serde(default)]
    pub error: Option<ResponseError>,
    /// Why it is `incomplete`.
    #[serde(default)]
    pub incomplete_details: Option<IncompleteDetails>,
    /// The request's instructions.
    #[serde(default)]
    pub instructions: Option<String>,
    /// The request's token limit.
    #[serde(default)]
    pub max_output_tokens: Option<u64>,
    /// The model that answered.
    #[serde(default)]
    pub model: String,
    /// What the model wrote: messages, calls, reasoning.
    #[serde(default, deserialize_with = "null_as_default")]
    pub output: Vec<Item>,
    /// Whether the answer could hold several calls.
    #[serde(default = "yes")]
    pub parallel_tool_calls: bool,
    /// The response this one continued.
    #[serde(default)]
    pub previous_response_id: Option<String>,
    /// The request's reasoning options.
    #[serde(default)]
    pub reasoning: Option<Value>,
    /// Whether it can be continued with `previous_response_id`.
    #[serde(default)]
    pub store: bool,
    /// The request's temperature.
    #[serde(default)]
    pub temperature: Option<f64>,
    /// The request's text format.
    #[serde(default)]
    pub text: TextConfig,
    /// The request's tool choice.
    #[serde(default = "auto")]
    pub tool_choice: ToolChoiceParam,
    /// The tools offered.
    #[serde(default, deserialize_with = "null_as_default")]
    pub tools: Vec<Tool>,
    /// The request's nucleus mass.
    #[serde(default)]
    pub top_p: Option<f64>,
    /// Always `disabled`: a conversation too long is refused, not cut.
    #[serde(default)]
    pub truncation: Option<String>,
    /// Token counts, once the answer is complete.
    #[serde(default)]
    pub usage: Option<ResponseUsage>,
    /// The request's end user.
    #[serde(default)]
    pub user: Option<String>,
    /// The request's labels.
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: Map<String, Value>,
}

fn response_object() -> String {
    "response".into()
}

fn yes() -> bool {
    true
}

fn auto() -> ToolChoiceParam {
    ToolChoiceParam::Mode(ToolChoiceMode::Auto)
}

impl Response {
    /// The text of every `output_text` part of every message, joined, as
    /// the SDKs' `output_text` reads it.
    pub fn output_text(&self) -> String {
        self.output
            .iter()
            .filter_map(|item| match item {
                Item::Message(m) => Some(m.content.text()),
                _ => None,
            })
            .collect()
    }
}

/// Where a response stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseStatus {
    /// The model ended its turn.
    Completed,
    /// Cut short: see `incomplete_details`.
    Incomplete,
    /// Being written.
    InProgress,
    /// Failed: see `error`.
    Failed,
    /// Cancelled.
    Cancelled,
    /// Waiting to start.
    Queued,
}

/// `error` of a failed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseError {
    /// What kind of failure (`server_error`).
    #[serde(default)]
    pub code: Option<String>,
    /// What went wrong.
    pub message: String,
}

/// `incomplete_details`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncompleteDetails {
    /// `max_output_tokens` (or `content_filter`, from other servers).
    pub reason: String,
}

/// `usage`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResponseUsage {
    /// Tokens of the prompt.
    pub input_tokens: u64,
    /// Of which cached.
    pub input_tokens_details: InputTokensDetails,
    /// Tokens generated.
    pub output_tokens: u64,
    /// Of which reasoning.
    pub output_tokens_details: OutputTokensDetails,
    /// Both.
    pub total_tokens: u64,
}

/// `usage.input_tokens_details`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct InputTokensDetails {
    /// Prompt tokens served from the cache.
    pub cached_tokens: u64,
    /// Prompt tokens written to a cache that is billed (none here).
    pub cache_write_tokens: u64,
}

/// `usage.output_tokens_details`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OutputTokensDetails {
    /// Generated tokens of reasoning; this server does not count them apart.
    pub reasoning_tokens: u64,
}

/// One event of a streamed response, with its place in the stream: the
/// SSE `data:` payload (its `type` is also the SSE `event:` name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sequenced {
    /// 0, 1, 2… in the order sent.
    #[serde(default)]
    pub sequence_number: u64,
    /// The event.
    #[serde(flatten)]
    pub event: ResponseEvent,
}

/// The events of a streamed response. Events this crate does not use
/// (annotations, refusals, built-in tools' progress) are read as `Other`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ResponseEvent {
    /// The response exists (`in_progress`, no output yet).
    #[serde(rename = "response.created")]
    Created {
        /// The response so far.
        response: Response,
    },
    /// Generation began.
    #[serde(rename = "response.in_progress")]
    InProgress {
        /// The response so far.
        response: Response,
    },
    /// An output item begins. (llama-server leaves out `output_index` and
    /// `content_index` in every event: they read as 0, and readers go by
    /// item ids.)
    #[serde(rename = "response.output_item.added")]
    OutputItemAdded {
        /// Its place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The item as it begins (no text, no arguments yet).
        item: Item,
    },
    /// A part of a message or reasoning item begins.
    #[serde(rename = "response.content_part.added")]
    ContentPartAdded {
        /// The item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The part's place in the item's content.
        #[serde(default)]
        content_index: usize,
        /// The part, empty.
        part: ContentPart,
    },
    /// More of a message's text.
    #[serde(rename = "response.output_text.delta")]
    OutputTextDelta {
        /// The item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The part's place.
        #[serde(default)]
        content_index: usize,
        /// The new text.
        delta: String,
        /// Token log-probabilities: never sent here.
        #[serde(default, deserialize_with = "null_as_default")]
        logprobs: Vec<Value>,
    },
    /// A message part's whole text.
    #[serde(rename = "response.output_text.done")]
    OutputTextDone {
        /// The item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The part's place.
        #[serde(default)]
        content_index: usize,
        /// The whole text.
        text: String,
        /// Token log-probabilities: never sent here.
        #[serde(default, deserialize_with = "null_as_default")]
        logprobs: Vec<Value>,
    },
    /// More reasoning text.
    #[serde(rename = "response.reasoning_text.delta")]
    ReasoningTextDelta {
        /// The item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The part's place.
        #[serde(default)]
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A reasoning part's whole text.
    #[serde(rename = "response.reasoning_text.done")]
    ReasoningTextDone {
        /// The item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The part's place.
        #[serde(default)]
        content_index: usize,
        /// The whole text.
        text: String,
    },
    /// More of a reasoning summary (OpenAI's reasoning models).
    #[serde(rename = "response.reasoning_summary_text.delta")]
    ReasoningSummaryTextDelta {
        /// The item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The new text.
        delta: String,
    },
    /// A part of a message or reasoning item is whole.
    #[serde(rename = "response.content_part.done")]
    ContentPartDone {
        /// The item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The part's place.
        #[serde(default)]
        content_index: usize,
        /// The whole part.
        part: ContentPart,
    },
    /// More of a call's arguments.
    #[serde(rename = "response.function_call_arguments.delta")]
    FunctionCallArgumentsDelta {
        /// The call item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The next piece of the JSON text.
        delta: String,
    },
    /// A call's whole arguments.
    #[serde(rename = "response.function_call_arguments.done")]
    FunctionCallArgumentsDone {
        /// The call item's id.
        item_id: String,
        /// The item's place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The whole JSON text.
        arguments: String,
    },
    /// An output item is whole.
    #[serde(rename = "response.output_item.done")]
    OutputItemDone {
        /// Its place in `output`.
        #[serde(default)]
        output_index: usize,
        /// The whole item.
        item: Item,
    },
    /// The model ended its turn: the whole response.
    #[serde(rename = "response.completed")]
    Completed {
        /// The whole response.
        response: Response,
    },
    /// The answer was cut short: the response as far as it went.
    #[serde(rename = "response.incomplete")]
    Incomplete {
        /// The response, `incomplete_details` saying why.
        response: Response,
    },
    /// The response failed.
    #[serde(rename = "response.failed")]
    Failed {
        /// The response, `error` saying why.
        response: Response,
    },
    /// The stream failed; nothing follows.
    #[serde(rename = "error")]
    Error {
        /// What kind of failure.
        #[serde(default)]
        code: Option<String>,
        /// What went wrong.
        message: String,
        /// The request field at fault, if any.
        #[serde(default)]
        param: Option<String>,
    },
    /// An event this crate has no use for.
    #[serde(other)]
    Other,
}

impl ResponseEvent {
    /// The event's `type`, which is also its SSE `event:` name.
    pub fn kind(&self) -> &'static str {
        match self {
            ResponseEvent::Created { .. } => "response.created",
            ResponseEvent::InProgress { .. } => "response.in_progress",
            ResponseEvent::OutputItemAdded { .. } => "response.output_item.added",
            ResponseEvent::ContentPartAdded { .. } => "response.content_part.added",
            ResponseEvent::OutputTextDelta { .. } => "response.output_text.delta",
            ResponseEvent::OutputTextDone { .. } => "response.output_text.done",
            ResponseEvent::ReasoningTextDelta { .. } => "response.reasoning_text.delta",
            ResponseEvent::ReasoningTextDone { .. } => "response.reasoning_text.done",
            ResponseEvent::ReasoningSummaryTextDelta { .. } => {
                "response.reasoning_summary_text.delta"
            }
            ResponseEvent::ContentPartDone { .. } => "response.content_part.done",
            ResponseEvent::FunctionCallArgumentsDelta { .. } => {
                "response.function_call_arguments.delta"
            }
            ResponseEvent::FunctionCallArgumentsDone { .. } => {
                "response.function_call_arguments.done"
            }
            ResponseEvent::OutputItemDone { .. } => "response.output_item.done",
            ResponseEvent::Completed { .. } => "response.completed",
            ResponseEvent::Incomplete { .. } => "response.incomplete",
            ResponseEvent::Failed { .. } => "response.failed",
            ResponseEvent::Error { .. } => "error",
            ResponseEvent::Other => "other",
        }
    }
}
