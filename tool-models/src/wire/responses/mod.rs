//! OpenAI's Responses API (`POST /v1/responses`): the request body, the
//! response object and the stream's events, in both directions.
//!
//! What the crate takes from a request, and what it leaves:
//! - `input` is a string or a list of items: messages (roles `user`,
//!   `system`, `developer`, `assistant`; text content only), `function_call`
//!   and `function_call_output` items, and `reasoning` items, whose text
//!   goes with the assistant turn after them. Other items (`item_reference`,
//!   images, files, built-in tools' calls) are refused, naming the item.
//! - `tools` are function tools only; `web_search`, `file_search` and the
//!   other built-in tools are refused, naming the tool's `type`.
//! - `reasoning`, `metadata`, `user`, `store` and `text.verbosity` are read
//!   and echoed, never acted on by the model; fields the crate does not know
//!   are ignored, as the API ignores them.
//!
//! [`read_request`] reads a body, naming the field at fault
//! (`input[2].call_id`); [`CreateResponse::asked`] turns it into
//! [`Message`](tool_runtime::Message)s, and [`CreateResponse::from_turn`]
//! writes one from them.

mod convert;
mod object;
#[cfg(test)]
mod tests;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::{null_as_default, read_value, text_or_list, FieldError, TextOrList};
use tool_runtime::{json_kind, ToolChoice};

pub use convert::{items_from_messages, messages_from_items, Asked};
pub use object::{
    IncompleteDetails, InputTokensDetails, OutputTokensDetails, Response, ResponseError,
    ResponseEvent, ResponseStatus, ResponseUsage, Sequenced,
};

/// The body of `POST /v1/responses`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CreateResponse {
    /// The model asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The conversation's new part: a user's text, or items.
    #[serde(default, deserialize_with = "null_as_default")]
    pub input: Input,
    /// System text, before everything else (not carried over by
    /// `previous_response_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The tools offered.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tools: Vec<Tool>,
    /// Whether and which tool the model must call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoiceParam>,
    /// Whether the answer may hold several calls (`true` by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// The answer's format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<TextConfig>,
    /// The most tokens to generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Whether the answer is streamed as events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// The response this request continues: its conversation comes before
    /// `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_response_id: Option<String>,
    /// Whether the response may be continued later (`true` by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    /// The caller's labels, echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// The end user, echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Reasoning options (`effort`, `summary`), echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Value>,
}

/// `input`: a string is one user message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Input {
    /// A user's text.
    Text(String),
    /// Items, in order.
    Items(Vec<Item>),
}

impl Default for Input {
    fn default() -> Input {
        Input::Items(Vec::new())
    }
}

/// Read through a visitor rather than as an untagged enum, so that a bad
/// item's error keeps its path (`input[2].call_id`).
impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(
            match text_or_list(deserializer, "a string or a list of input items")? {
                TextOrList::Text(text) => Input::Text(text),
                TextOrList::List(items) => Input::Items(items),
            },
        )
    }
}

/// One item of a conversation: what `input` lists and `output` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Item {
    /// A message; the API also takes one without `type` (see [`read_request`]).
    Message(MessageItem),
    /// A call the model made.
    FunctionCall(FunctionCall),
    /// A call's result.
    FunctionCallOutput(FunctionCallOutput),
    /// The model's reasoning.
    Reasoning(ReasoningItem),
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person talking to the model.
    User,
    /// Instructions.
    System,
    /// Instructions, by OpenAI's newer name.
    Developer,
    /// The model.
    Assistant,
}

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemStatus {
    /// Still being written.
    InProgress,
    /// Whole.
    Completed,
    /// Cut short by the token limit.
    Incomplete,
}

/// A message item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageItem {
    /// `msg_…`, on output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: Content,
    /// Where it stands, on output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ItemStatus>,
}

/// A message's content or a call's output: text, or text parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Parts, in order.
    Parts(Vec<ContentPart>),
}

impl Content {
    /// The text of every part, joined.
    pub fn text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Parts(parts) => parts.iter().map(ContentPart::text).collect(),
        }
    }
}

/// Read through a visitor, as [`Input`] is, to keep paths.
impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(
            match text_or_list(deserializer, "a string or a list of text parts")? {
                TextOrList::Text(text) => Content::Text(text),
                TextOrList::List(items) => Content::Parts(items),
            },
        )
    }
}

/// One part of a message. Images, files and audio are not read: the
/// models served here take text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Text the user or the system wrote.
    InputText {
        /// The text.
        text: String,
    },
    /// Text the model wrote.
    OutputText {
        /// The text.
        text: String,
        /// Citations; this server makes none.
        #[serde(default, deserialize_with = "null_as_default")]
        annotations: Vec<Value>,
    },
    /// The model's refusal.
    Refusal {
        /// Why it refused.
        refusal: String,
    },
    /// Reasoning text (in a reasoning item's content, and in the stream's
    /// `content_part` events for it).
    ReasoningText {
        /// The text.
        text: String,
    },
}

impl ContentPart {
    /// The part's text.
    pub fn text(&self) -> &str {
        match self {
            ContentPart::InputText { text }
            | ContentPart::OutputText { text, .. }
            | ContentPart::ReasoningText { text } => text,
            ContentPart::Refusal { refusal } => refusal,
        }
    }
}

/// A call: `arguments` is JSON text, as the API sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// `fc_…`, the item's own id, on output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The id its output answers.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as JSON text.
    #[serde(default)]
    pub arguments: String,
    /// Where it stands, on output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ItemStatus>,
}

/// A call's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCallOutput {
    /// The item's own id, when the API gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The call it answers.
    pub call_id: String,
    /// The result: text, or `input_text` parts.
    pub output: Content,
    /// Where it stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ItemStatus>,
}

/// The model's reasoning: its text in `content`, a summary in `summary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasoningItem {
    /// `rs_…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Summary parts (`summary_text`); this server writes none.
    #[serde(default, deserialize_with = "null_as_default")]
    pub summary: Vec<SummaryPart>,
    /// The reasoning text (`reasoning_text` parts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ContentPart>>,
    /// OpenAI's encrypted reasoning, which only OpenAI can read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_content: Option<String>,
    /// Where it stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ItemStatus>,
}

impl ReasoningItem {
    /// The reasoning's text: its content, or else its summary.
    pub fn text(&self) -> String {
        match &self.content {
            Some(parts) if !parts.is_empty() => parts.iter().map(ContentPart::text).collect(),
            _ => self
                .summary
                .iter()
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>()
                .join("\n\n"),
        }
    }
}

/// One part of a reasoning summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryPart {
    /// `summary_text`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text.
    pub text: String,
}

/// A tool offered. Only `function` tools are used; the others are read so
/// that the refusal can name them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// `function` (or a built-in tool's type, refused).
    #[serde(rename = "type")]
    pub kind: String,
    /// The function's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments' JSON schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Whether calls must follow the schema exactly (they always do here
    /// when the model's family has a grammar).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// `tool_choice`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoiceParam {
    /// `"auto"`, `"none"` or `"required"`.
    Mode(ToolChoiceMode),
    /// `{"type": "function", "name": ...}`.
    Function {
        /// The tool that must be called.
        name: String,
    },
    /// `{"type": "allowed_tools", "mode": "auto" | "required", "tools":
    /// [{"type": "function", "name": ...}, ...]}`: calls to these only.
    AllowedTools {
        /// `Auto` or `Required`.
        mode: ToolChoiceMode,
        /// The tools that may be called.
        tools: Vec<String>,
    },
}

/// The string forms of `tool_choice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoiceMode {
    /// Text, or calls.
    Auto,
    /// Text only.
    None,
    /// At least one call.
    Required,
}

impl Serialize for ToolChoiceParam {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolChoiceParam::Mode(mode) => mode.serialize(serializer),
            ToolChoiceParam::Function { name } => {
                serde_json::json!({"type": "function", "name": name}).serialize(serializer)
            }
            ToolChoiceParam::AllowedTools { mode, tools } => {
                let tools: Vec<Value> = tools
                    .iter()
                    .map(|name| serde_json::json!({"type": "function", "name": name}))
                    .collect();
                serde_json::json!({"type": "allowed_tools", "mode": mode, "tools": tools})
                    .serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for ToolChoiceParam {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let expected =
            "expected \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"name\": ...}";
        match &value {
            Value::String(s) => match s.as_str() {
                "auto" => Ok(ToolChoiceParam::Mode(ToolChoiceMode::Auto)),
                "none" => Ok(ToolChoiceParam::Mode(ToolChoiceMode::None)),
                "required" => Ok(ToolChoiceParam::Mode(ToolChoiceMode::Required)),
                other => Err(de::Error::custom(format!("{expected}, found \"{other}\""))),
            },
            Value::Object(o) => match o.get("type").and_then(Value::as_str) {
                Some("function") => match o.get("name").and_then(Value::as_str) {
                    Some(name) => Ok(ToolChoiceParam::Function {
                        name: name.to_owned(),
                    }),
                    None => Err(de::Error::custom(format!(
                        "{expected}: the function's `name` is missing"
                    ))),
                },
                Some("allowed_tools") => match ToolChoice::from_json(&value) {
                    Ok(ToolChoice::Allowed { tools, required }) => {
                        Ok(ToolChoiceParam::AllowedTools {
                            mode: if required {
                                ToolChoiceMode::Required
                            } else {
                                ToolChoiceMode::Auto
                            },
                            tools,
                        })
                    }
                    Ok(other) => Err(de::Error::custom(format!(
                        "allowed_tools read as `{other}`"
                    ))),
                    Err(e) => Err(de::Error::custom(e)),
                },
                Some(other) => Err(de::Error::custom(format!(
                    "only function tools can be chosen, found type \"{other}\""
                ))),
                None => Err(de::Error::custom(format!("{expected}, found no `type`"))),
            },
            other => Err(de::Error::custom(format!(
                "{expected}, found {}",
                json_kind(other)
            ))),
        }
    }
}

/// `text`: the answer's format.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TextConfig {
    /// Plain text, any JSON object, or JSON following a schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<TextFormat>,
    /// `low`, `medium` or `high`: echoed, not acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbosity: Option<String>,
}

/// `text.format`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TextFormat {
    /// Any text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON valid against `schema`.
    JsonSchema {
        /// The schema's name.
        name: String,
        /// The JSON schema.
        schema: Value,
        /// What the schema is for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Whether the answer must follow it exactly.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
}

/// Reads a request body, naming the field at fault.
///
/// Unlike `serde_json::from_slice::<CreateResponse>`, it takes input items
/// without `type` as messages, as the API does.
///
/// # Errors
/// A [`FieldError`] naming the field (`input[1].content[0].type`).
///
/// ```
/// use tool_models::wire::responses::{read_request, Input, Item};
///
/// let r = read_request(br#"{"model": "m", "input": [{"role": "user", "content": "Hi"}]}"#)?;
/// let Input::Items(items) = &r.input else { panic!() };
/// assert!(matches!(items[0], Item::Message(_)));
/// let e = read_request(br#"{"input": [{"type": "function_call_output", "output": "22"}]}"#).unwrap_err();
/// assert_eq!(e.path, "input[0].call_id");
/// assert_eq!(e.message, "input[0].call_id: this field is required");
/// # Ok::<(), tool_models::wire::FieldError>(())
/// ```
pub fn read_request(body: &[u8]) -> Result<CreateResponse, FieldError> {
    let mut value: Value = serde_json::from_slice(body)
        .map_err(|e| FieldError::new("", format!("the request body is not valid JSON: {e}")))?;
    let Some(object) = value.as_object_mut() else {
        return Err(FieldError::new(
            "",
            format!(
                "the request body must be a JSON object, found {}",
                json_kind(&value)
            ),
        ));
    };
    if let Some(Value::Array(items)) = object.get_mut("input") {
        for (i, item) in items.iter_mut().enumerate() {
            if let Some(item) = item.as_object_mut() {
                if !item.contains_key("type") && item.contains_key("role") {
                    item.insert("type".into(), Value::from("message"));
                }
            }
            check_item(item).map_err(|e| e.within(&format!("input[{i}]")))?;
        }
    }
    read_value(value)
}

/// Reads an item as its own type first: serde reads a tagged enum's fields
/// without their paths, and this keeps them (`input[2].call_id`).
fn check_item(item: &Value) -> Result<(), FieldError> {
    let value = || item.clone();
    match item.get("type").and_then(Value::as_str) {
        Some("message") => read_value::<MessageItem>(value()).map(drop),
        Some("function_call") => read_value::<FunctionCall>(value()).map(drop),
        Some("function_call_output") => read_value::<FunctionCallOutput>(value()).map(drop),
        Some("reasoning") => read_value::<ReasoningItem>(value()).map(drop),
        // The whole read names what else is wrong.
        _ => Ok(()),
    }
}
