//! The answer: whole (`chat.completion`) or in chunks
//! (`chat.completion.chunk`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{optional_json_text, FunctionKind, WireMessage};
use crate::wire::null_as_default;

/// A whole answer (`chat.completion`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// `chatcmpl-…`.
    #[serde(default)]
    pub id: String,
    /// `chat.completion`.
    #[serde(default)]
    pub object: String,
    /// Seconds since 1970.
    #[serde(default)]
    pub created: u64,
    /// The model that answered.
    #[serde(default)]
    pub model: String,
    /// The answers; this crate asks for and gives one.
    #[serde(default, deserialize_with = "null_as_default")]
    pub choices: Vec<Choice>,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// One answer of a [`Completion`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Which answer (0).
    #[serde(default)]
    pub index: u64,
    /// The assistant's message.
    pub message: WireMessage,
    /// Always `null` here.
    #[serde(default)]
    pub logprobs: Option<Value>,
    /// `stop`, `length`, `tool_calls`…
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// One streamed piece (`chat.completion.chunk`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// The same for every chunk of an answer.
    #[serde(default)]
    pub id: String,
    /// `chat.completion.chunk`.
    #[serde(default)]
    pub object: String,
    /// Seconds since 1970.
    #[serde(default)]
    pub created: u64,
    /// The model that answers.
    #[serde(default)]
    pub model: String,
    /// The pieces; empty in the usage chunk.
    #[serde(default, deserialize_with = "null_as_default")]
    pub choices: Vec<ChunkChoice>,
    /// Token counts, in the last chunk when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// One answer's piece in a [`Chunk`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkChoice {
    /// Which answer (0; some engines leave it out).
    #[serde(default)]
    pub index: u64,
    /// What this piece adds.
    #[serde(default, deserialize_with = "null_as_default")]
    pub delta: Delta,
    /// Always `null` here.
    #[serde(default)]
    pub logprobs: Option<Value>,
    /// Set in the piece that ends the answer.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// What a chunk adds to the message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// `assistant`, in the first chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Reasoning text (`reasoning` is read too).
    #[serde(default, alias = "reasoning", skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// Pieces of calls.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tool_calls: Vec<CallDelta>,
}

/// A piece of a call. The first piece of a call has its `id` and name;
/// later ones only `index` and argument text. Engines differ: Ollama sends
/// index 0 for every parallel call, some leave `index` out, some send the
/// arguments whole or as an object, some put `name` and `arguments` beside
/// `index` instead of under `function`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallDelta {
    /// Which call of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The call's id, in its first piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `function`, in its first piece.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<FunctionKind>,
    /// The name and argument text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<FunctionDelta>,
}

/// A piece of a called function.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionDelta {
    /// The name, in the call's first piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// More argument text (an object is read as its text).
    #[serde(
        default,
        deserialize_with = "optional_json_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub arguments: Option<String>,
}

/// Token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the prompt.
    pub prompt_tokens: usize,
    /// Tokens generated.
    #[serde(default)]
    pub completion_tokens: usize,
    /// Their sum.
    #[serde(default)]
    pub total_tokens: usize,
    /// Prompt tokens served from a cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_details: Option<PromptDetails>,
}

/// `usage.prompt_tokens_details`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptDetails {
    /// Prompt tokens served from the engine's cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<usize>,
}

impl From<crate::chat::Usage> for Usage {
    fn from(u: crate::chat::Usage) -> Usage {
        Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            total_tokens: u.prompt_tokens + u.completion_tokens,
            prompt_tokens_details: u.cached_tokens.map(|cached| PromptDetails {
                cached_tokens: Some(cached),
            }),
        }
    }
}

impl From<Usage> for crate::chat::Usage {
    fn from(u: Usage) -> crate::chat::Usage {
        crate::chat::Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            cached_tokens: u.prompt_tokens_details.and_then(|d| d.cached_tokens),
        }
    }
}
