//! OpenAI's Chat Completions API (`POST /v1/chat/completions`): the
//! request, the whole answer and the streamed chunks.
//!
//! The server reads [`Request`] and writes [`Completion`] and [`Chunk`];
//! the remote client writes [`Request`] and reads the other two. Reading is
//! lenient where engines differ (see [`CallDelta`]); writing gives the form
//! OpenAI's own clients expect: assistant calls carry their arguments as
//! JSON text, a message that only calls tools has `"content": null`.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};
use tool_runtime::{json_kind, Role, ToolChoice, ToolDefinition};

use super::{null_as_default, FieldError};

/// A request body.
///
/// ```
/// use serde_json::json;
/// use tool_models::wire::{chat, read};
///
/// let request: chat::Request = read(br#"{"model": "m", "messages": [
///     {"role": "developer", "content": "Be brief."},
///     {"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
///     "stop": "END", "max_tokens": 9}"#)?;
/// let messages = request.conversation();
/// assert_eq!(messages[0], tool_runtime::Message::system("Be brief."));
/// assert_eq!(messages[1].text(), "Hi");
/// assert_eq!(request.stop_strings(), ["END"]);
/// # Ok::<(), tool_models::wire::FieldError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The model asked for (OpenAI requires it; local servers may not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The conversation.
    pub messages: Vec<WireMessage>,
    /// The tools the model may call.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tools: Vec<Tool>,
    /// Whether and which tools must be called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Whether one answer may hold several calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// The answer's shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    /// The newer name of `max_tokens`; it wins when both are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<Count>,
    /// The most tokens to generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<Count>,
    /// How many answers (choices) to give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<Count>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Seed; OpenAI takes negative ones, whose bits are kept.
    #[serde(
        default,
        deserialize_with = "seed",
        skip_serializing_if = "Option::is_none"
    )]
    pub seed: Option<u64>,
    /// Strings that end the answer: one, or a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    /// Whether the answer is streamed as chunks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Streaming options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    /// vLLM's and llama-server's extension: generate `max_tokens` tokens
    /// whatever the end-of-sequence token says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_eos: Option<bool>,
}

impl Request {
    /// The conversation in the crate's terms (`developer` read as `system`).
    pub fn conversation(&self) -> Vec<tool_runtime::Message> {
        self.messages
            .iter()
            .cloned()
            .map(WireMessage::into_message)
            .collect()
    }

    /// The tools as checked definitions.
    ///
    /// # Errors
    /// A [`FieldError`] on `tools[i]` for a definition templates or the
    /// constraint cannot use, or a name offered twice.
    pub fn definitions(&self) -> Result<Vec<ToolDefinition>, FieldError> {
        let json: Vec<Value> = self.tools.iter().map(Tool::to_json).collect();
        ToolDefinition::list_from_json(&json)
            .map_err(|e| FieldError::new(format!("tools[{}]", e.index), e.error))
    }

    /// The token limit: `max_completion_tokens`, else `max_tokens`.
    pub fn token_limit(&self) -> Option<usize> {
        self.max_completion_tokens
            .or(self.max_tokens)
            .map(Count::get)
    }

    /// The stop strings, without empty ones (which would end every answer
    /// before it starts).
    pub fn stop_strings(&self) -> Vec<String> {
        let all = match &self.stop {
            None => Vec::new(),
            Some(Stop::One(s)) => vec![s.clone()],
            Some(Stop::Many(list)) => list.clone(),
        };
        all.into_iter().filter(|s| !s.is_empty()).collect()
    }

    /// Whether the stream ends with a usage chunk.
    pub fn include_usage(&self) -> bool {
        self.stream_options
            .as_ref()
            .and_then(|o| o.include_usage)
            .unwrap_or(false)
    }
}

/// A positive integer (`max_tokens`, `n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Count(usize);

impl Count {
    /// `n`, or `None` for 0.
    pub fn new(n: usize) -> Option<Count> {
        (n > 0).then_some(Count(n))
    }

    /// The number.
    pub fn get(self) -> usize {
        self.0
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        value
            .as_u64()
            .filter(|&n| n > 0)
            .map(|n| Count(usize::try_from(n).unwrap_or(usize::MAX)))
            .ok_or_else(|| {
                D::Error::custom(format!(
                    "expected a positive integer, found {}",
                    describe(&value)
                ))
            })
    }
}

/// `kind` for most values, the number itself for numbers.
fn describe(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        other => json_kind(other).to_owned(),
    }
}

fn seed<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        // Negative seeds are allowed by OpenAI; keep their bits.
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_i64().map(|s| s as u64))
            .map(Some)
            .ok_or_else(|| {
                D::Error::custom(format!("expected an integer, found {}", describe(&v)))
            }),
    }
}

/// `stop`: one string or a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, expecting = "a string or a list of strings")]
pub enum Stop {
    /// One string.
    One(String),
    /// Several.
    Many(Vec<String>),
}

/// `stream_options`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamOptions {
    /// Whether a last chunk carries the usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_usage: Option<bool>,
}

/// A tool: only functions have a definition that templates and the
/// constraint can read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: FunctionKind,
    /// The function.
    pub function: Function,
}

impl Tool {
    /// The API's form of a definition: only the keys it defines
    /// (transformers' `return` is left out).
    pub fn from_definition(definition: &ToolDefinition) -> Tool {
        let f = &definition["function"];
        Tool {
            kind: FunctionKind::Function,
            function: Function {
                name: definition.name().to_owned(),
                description: f["description"].as_str().map(str::to_owned),
                parameters: f.get("parameters").cloned(),
                strict: f.get("strict").and_then(Value::as_bool),
            },
        }
    }

    /// The definition's JSON, as templates take it.
    pub fn to_json(&self) -> Value {
        json!({"type": "function", "function": self.function})
    }
}

/// The one tool type this crate takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FunctionKind {
    /// `"function"`.
    Function,
}

/// A function's definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its parameters' JSON schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Whether calls must follow the schema exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// How the answer must be shaped (`response_format`).
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseFormat {
    /// Free text (`{"type": "text"}`), the default.
    Text,
    /// Any JSON object (`{"type": "json_object"}`).
    JsonObject,
    /// JSON valid against `schema` (`{"type": "json_schema", "json_schema":
    /// {"name", "schema", "strict"}}`).
    JsonSchema {
        /// The schema's name, as the API requires one.
        name: String,
        /// The JSON schema.
        schema: Value,
        /// Whether the engine must follow it exactly (`strict`).
        strict: bool,
    },
}

impl ResponseFormat {
    /// The schema answers must follow, if any.
    ///
    /// # Errors
    /// A [`FieldError`] on `response_format` for a schema that is not one.
    pub fn answer_schema(&self) -> Result<Option<Value>, FieldError> {
        match self {
            ResponseFormat::Text => Ok(None),
            ResponseFormat::JsonObject => Ok(Some(json!({"type": "object"}))),
            ResponseFormat::JsonSchema { schema, .. } => {
                tool_runtime::definition::check_schema(schema).map_err(|e| {
                    FieldError::new("response_format", format!("not a JSON schema: {e}"))
                })?;
                Ok(Some(schema.clone()))
            }
        }
    }
}

impl Serialize for ResponseFormat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ResponseFormat::Text => json!({"type": "text"}),
            ResponseFormat::JsonObject => json!({"type": "json_object"}),
            ResponseFormat::JsonSchema {
                name,
                schema,
                strict,
            } => json!({"type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": strict}}),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ResponseFormat {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match value.get("type").and_then(Value::as_str) {
            Some("text") => Ok(ResponseFormat::Text),
            Some("json_object") => Ok(ResponseFormat::JsonObject),
            Some("json_schema") => {
                let spec = &value["json_schema"];
                let schema = spec.get("schema").cloned().ok_or_else(|| {
                    D::Error::custom("expected `json_schema.schema` with type \"json_schema\"")
                })?;
                Ok(ResponseFormat::JsonSchema {
                    name: spec["name"].as_str().unwrap_or("answer").to_owned(),
                    schema,
                    strict: spec["strict"].as_bool().unwrap_or(false),
                })
            }
            _ => Err(D::Error::custom(
                "expected type \"text\", \"json_object\" or \"json_schema\"",
            )),
        }
    }
}

/// Who wrote a message, with OpenAI's newer name for the system role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WireRole {
    /// Instructions.
    System,
    /// OpenAI's newer name for `system`.
    Developer,
    /// The person.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

impl From<WireRole> for Role {
    fn from(role: WireRole) -> Role {
        match role {
            WireRole::System | WireRole::Developer => Role::System,
            WireRole::User => Role::User,
            WireRole::Assistant => Role::Assistant,
            WireRole::Tool => Role::Tool,
        }
    }
}

impl From<Role> for WireRole {
    fn from(role: Role) -> WireRole {
        match role {
            Role::System => WireRole::System,
            Role::User => WireRole::User,
            Role::Assistant => WireRole::Assistant,
            Role::Tool => WireRole::Tool,
        }
    }
}

/// A message as the API carries it.
///
/// ```
/// use serde_json::json;
/// use tool_models::wire::chat::WireMessage;
/// use tool_runtime::{Message, ToolCall};
///
/// let turn = Message::assistant_calls(None, vec![ToolCall::new("call_1", "f", json!({"x": 1}))]);
/// assert_eq!(
///     serde_json::to_value(WireMessage::from(&turn))?,
///     json!({"role": "assistant", "content": null, "tool_calls": [
///         {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}}
///     ]})
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireMessage {
    /// Who wrote it.
    pub role: WireRole,
    /// The text: a string, `null`, or a list of parts whose text parts are
    /// joined when read. Written as a string, or `null` for a message
    /// that only calls tools.
    #[serde(default, deserialize_with = "content")]
    pub content: Option<String>,
    /// The model's reasoning (`reasoning_content`; `reasoning` is read too).
    #[serde(default, alias = "reasoning", skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// The calls an assistant message makes.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tool_calls: Vec<WireCall>,
    /// For a tool message: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool message: the tool's name (some engines want it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

fn content<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        // Content parts: the text ones, in order.
        Some(Value::Array(parts)) => Ok(Some(
            parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    p => p.get("text").and_then(Value::as_str),
                })
                .collect(),
        )),
        Some(other) => Err(D::Error::custom(format!(
            "expected a string, null or a list of parts, found {}",
            json_kind(&other)
        ))),
    }
}

impl WireMessage {
    /// The message in the crate's terms.
    pub fn into_message(self) -> tool_runtime::Message {
        tool_runtime::Message {
            role: self.role.into(),
            content: self.content,
            reasoning: self.reasoning_content,
            tool_calls: self
                .tool_calls
                .into_iter()
                .map(WireCall::into_call)
                .collect(),
            tool_call_id: self.tool_call_id,
            name: self.name,
        }
    }
}

impl From<&tool_runtime::Message> for WireMessage {
    fn from(m: &tool_runtime::Message) -> WireMessage {
        let calls_only = m.role == Role::Assistant && !m.tool_calls.is_empty();
        WireMessage {
            role: m.role.into(),
            content: if calls_only {
                m.content.clone()
            } else {
                Some(m.text().to_owned())
            },
            // Engines do not take reasoning back; templates that show it
            // render it themselves.
            reasoning_content: None,
            tool_calls: m.tool_calls.iter().map(WireCall::from).collect(),
            tool_call_id: m.tool_call_id.clone().filter(|_| m.role == Role::Tool),
            name: None,
        }
    }
}

/// A call in an assistant message: arguments as JSON text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireCall {
    /// The call's id.
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type", default = "function_kind")]
    pub kind: FunctionKind,
    /// The function and its arguments.
    pub function: CalledFunction,
}

fn function_kind() -> FunctionKind {
    FunctionKind::Function
}

/// A called function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalledFunction {
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text; some clients send an object, read as
    /// its text.
    #[serde(default, deserialize_with = "json_text")]
    pub arguments: String,
}

/// A string as it is, anything else as its JSON text; `null` as empty.
fn json_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
    })
}

impl WireCall {
    /// The call in the crate's terms: arguments that are not JSON stay a
    /// string, for the toolbox to report; empty ones are `{}`.
    pub fn into_call(self) -> tool_runtime::ToolCall {
        let text = self.function.arguments;
        let arguments = if text.trim().is_empty() {
            Value::Object(Map::new())
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        tool_runtime::ToolCall::new(self.id, self.function.name, arguments)
    }
}

impl From<&tool_runtime::ToolCall> for WireCall {
    fn from(call: &tool_runtime::ToolCall) -> WireCall {
        WireCall {
            id: call.id.clone(),
            kind: FunctionKind::Function,
            function: CalledFunction {
                name: call.name.clone(),
                // An unreadable call is kept as the text the model wrote.
                arguments: match &call.arguments {
                    Value::String(raw) => raw.clone(),
                    other => other.to_string(),
                },
            },
        }
    }
}

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

fn optional_json_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
    })
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

impl From<crate::agent::Usage> for Usage {
    fn from(u: crate::agent::Usage) -> Usage {
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

impl From<Usage> for crate::agent::Usage {
    fn from(u: Usage) -> crate::agent::Usage {
        crate::agent::Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            cached_tokens: u.prompt_tokens_details.and_then(|d| d.cached_tokens),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{read, read_value};
    use proptest::prelude::*;
    use tool_runtime::{Message, ToolCall};

    #[test]
    fn requests_read_and_write_the_same_fields() {
        let body = json!({
            "model": "m", "messages": [{"role": "user", "content": "Hi"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
            "tool_choice": "required", "parallel_tool_calls": false,
            "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": {"type": "object"}, "strict": true}},
            "max_tokens": 9, "temperature": 0.5, "top_p": 0.9, "seed": 3, "stop": ["a", "b"],
            "stream": true, "stream_options": {"include_usage": true}
        });
        let request: Request = read_value(body.clone()).unwrap();
        assert_eq!(serde_json::to_value(&request).unwrap(), body);
        assert_eq!(request.token_limit(), Some(9));
        assert!(request.include_usage());
    }

    #[test]
    fn null_is_absent_and_unknown_fields_are_ignored() {
        let r: Request = read_value(json!({"messages": [{"role": "user", "content": "x"}],
            "tools": null, "stop": null, "seed": null, "logit_bias": {}, "user": "u"}))
        .unwrap();
        assert!(r.tools.is_empty() && r.stop.is_none() && r.seed.is_none());
    }

    #[test]
    fn mistakes_name_their_field() {
        for (body, path, needle) in [
            (json!({"messages": "hi"}), "messages", "expected a list"),
            (json!({}), "messages", "messages is required"),
            (
                json!({"messages": [{"role": "king"}]}),
                "messages[0].role",
                "king",
            ),
            (
                json!({"messages": [], "max_tokens": 0}),
                "max_tokens",
                "positive integer, found 0",
            ),
            (
                json!({"messages": [], "temperature": "hot"}),
                "temperature",
                "string",
            ),
            (
                json!({"messages": [], "stop": 3}),
                "stop",
                "a string or a list of strings",
            ),
            (
                json!({"messages": [], "seed": 1.5}),
                "seed",
                "an integer, found 1.5",
            ),
            (
                json!({"messages": [], "tools": [{"type": "custom", "function": {"name": "f"}}]}),
                "tools[0].type",
                "unknown variant `custom`",
            ),
            (
                json!({"messages": [], "response_format": {"type": "xml"}}),
                "response_format",
                "json_schema",
            ),
            (
                json!({"messages": [{"role": "user", "content": 3}]}),
                "messages[0].content",
                "found an integer",
            ),
        ] {
            let e = read_value::<Request>(body.clone()).unwrap_err();
            assert_eq!(e.path, path, "{body}: {}", e.message);
            assert!(e.message.contains(needle), "{body}: {}", e.message);
        }
        assert!(read::<Request>(b"[1]").is_err());
    }

    #[test]
    fn definitions_are_checked() {
        let tool = |name: &str, parameters: Value| json!({"type": "function", "function": {"name": name, "parameters": parameters}});
        let r: Request = read_value(json!({"messages": [], "tools": [
            tool("f", json!({"type": "object"})), tool("f", json!({"type": "object"}))]}))
        .unwrap();
        let e = r.definitions().unwrap_err();
        assert_eq!(e.path, "tools[1]");
        assert!(e.message.contains("two tools"), "{}", e.message);
    }

    #[test]
    fn answers_read_back_what_the_server_writes() {
        let message = WireMessage::from(&Message::assistant_calls(
            Some("Checking.".into()),
            vec![ToolCall::new("c1", "f", json!({"a": [1, 2]}))],
        ));
        let completion = Completion {
            id: "chatcmpl-1".into(),
            object: "chat.completion".into(),
            created: 1,
            model: "m".into(),
            choices: vec![Choice {
                index: 0,
                message,
                logprobs: None,
                finish_reason: Some("tool_calls".into()),
            }],
            usage: Some(Usage::from(crate::agent::Usage {
                prompt_tokens: 10,
                completion_tokens: 2,
                cached_tokens: Some(4),
            })),
        };
        let text = serde_json::to_string(&completion).unwrap();
        let back: Completion = serde_json::from_str(&text).unwrap();
        assert_eq!(back, completion);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["choices"][0]["logprobs"], Value::Null);
        assert_eq!(v["usage"]["total_tokens"], 12);
        assert_eq!(v["usage"]["prompt_tokens_details"]["cached_tokens"], 4);
        let call = back.choices[0].message.clone().into_message().tool_calls;
        assert_eq!(call, vec![ToolCall::new("c1", "f", json!({"a": [1, 2]}))]);
    }

    #[test]
    fn engines_quirks_are_read() {
        let chunk: Chunk = serde_json::from_value(json!({"choices": [{"delta": {
            "reasoning": "hm", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}}]}))
        .unwrap();
        let delta = &chunk.choices[0].delta;
        assert_eq!(delta.reasoning_content.as_deref(), Some("hm"));
        assert_eq!(delta.tool_calls[0].index, None);
        let f = delta.tool_calls[0].function.as_ref().unwrap();
        assert_eq!(f.arguments.as_deref(), Some(r#"{"a":1}"#));
    }

    fn text() -> impl Strategy<Value = String> {
        "[ -~é\n\"\\\\]{0,12}"
    }

    proptest! {
        /// What the client writes, the server reads back the same.
        #[test]
        fn conversations_survive_the_wire(
            user in text(),
            said in proptest::option::of(text()),
            args in proptest::collection::btree_map("[a-z]{1,5}", any::<i64>(), 0..4),
            result in text(),
        ) {
            let call = ToolCall::new("c1", "f", json!(args));
            let conversation = vec![
                Message::system("s"),
                Message::user(user),
                Message::assistant_calls(said, vec![call]),
                Message::tool("c1", "f", result),
            ];
            let request = Request {
                messages: conversation.iter().map(WireMessage::from).collect(),
                ..Request::default()
            };
            let text = serde_json::to_vec(&request).unwrap();
            let back: Request = read(&text).unwrap();
            let mut expected = conversation;
            // The tool's name is not part of the wire form.
            expected[3].name = None;
            prop_assert_eq!(back.conversation(), expected);
        }
    }
}
