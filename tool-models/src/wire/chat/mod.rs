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
use serde_json::{json, Value};
use tool_runtime::{json_kind, DefinitionFormat, Message, ToolChoice, ToolDefinition};

use super::{null_as_default, FieldError};

mod answer;
mod message;
#[cfg(test)]
mod tests;

pub use answer::{
    CallDelta, Choice, Chunk, ChunkChoice, Completion, Delta, FunctionDelta, PromptDetails, Usage,
};
pub use message::{CalledFunction, WireCall, WireMessage};

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
/// assert_eq!(request.messages[0], tool_runtime::Message::system("Be brief."));
/// assert_eq!(request.messages[1].text(), "Hi");
/// assert_eq!(request.stop_strings(), ["END"]);
/// # Ok::<(), tool_models::wire::FieldError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The model asked for (OpenAI requires it; local servers may not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The conversation. Read by [`Message`]'s own reader (the one reader
    /// of the OpenAI message form: `developer` is `system`, content parts
    /// are joined, arguments may be text or an object); written as the API
    /// takes it ([`WireMessage`]).
    #[serde(serialize_with = "message::write_all")]
    pub messages: Vec<Message>,
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

/// A string as it is, anything else as its JSON text; `null` as absent.
fn optional_json_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
    })
}

/// As [`optional_json_text`], `null` as empty.
fn json_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(optional_json_text(deserializer)?.unwrap_or_default())
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
    /// (transformers' `return` is left out), the parameters as
    /// [`DefinitionFormat::OpenAi`] writes them.
    pub fn from_definition(definition: &ToolDefinition) -> Tool {
        let f = &definition["function"];
        Tool {
            kind: FunctionKind::Function,
            function: Function {
                name: definition.name().to_owned(),
                description: f["description"].as_str().map(str::to_owned),
                parameters: (definition.parameters())
                    .map(|_| DefinitionFormat::OpenAi.parameters(definition)),
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
