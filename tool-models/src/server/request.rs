//! What a request asks the model for, whichever API it came through: the
//! worker serves this, and each API's handler reads its own body into it.

use serde_json::Value;
use tool_runtime::{Message, ToolChoice, ToolDefinition};

/// A request, checked and in the crate's own terms.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Request {
    pub messages: Vec<Message>,
    /// Checked definitions; their JSON is also the form templates take.
    pub tools: Vec<ToolDefinition>,
    pub tool_choice: ToolChoice,
    /// Whether the answer may hold several calls (after the first, it ends).
    pub parallel_tool_calls: bool,
    /// The schema answers must follow.
    pub answer_schema: Option<Value>,
    pub max_tokens: Option<usize>,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub seed: Option<u64>,
    /// Strings that end the answer (none empty).
    pub stop: Vec<String>,
    /// vLLM's and llama-server's extension: write `max_tokens` tokens
    /// whatever the model's end-of-sequence says (benchmarks).
    pub ignore_eos: Option<bool>,
}

/// Why an answer ended; each API names these its own way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finish {
    /// The model ended its turn.
    Stop,
    /// The text reached this stop string.
    StopSequence(String),
    /// The token limit or the context's end.
    Length,
    /// The answer holds calls.
    ToolCalls,
}
