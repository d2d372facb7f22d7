//! Messages as Chat Completions writes them. A request's conversation is
//! read by [`Message`]'s own reader; what is read here is an answer's
//! message, whose call arguments stay the text the engine wrote.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use tool_runtime::{Message, Role};

use super::{json_text, FunctionKind};
use crate::wire::null_as_default;

/// A message as the API carries it: each message of a request, written
/// from a [`Message`], and the message of a [`Completion`](super::Completion),
/// both ways.
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
    pub role: Role,
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
    tool_runtime::message::content_text(Option::<Value>::deserialize(deserializer)?)
        .map_err(D::Error::custom)
}

/// For `#[serde(serialize_with)]`: a conversation as the API takes it.
pub(super) fn write_all<S: Serializer>(messages: &[Message], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(messages.iter().map(WireMessage::from))
}

impl From<&Message> for WireMessage {
    fn from(m: &Message) -> WireMessage {
        let calls_only = m.role == Role::Assistant && !m.tool_calls.is_empty();
        WireMessage {
            role: m.role,
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

impl From<&tool_runtime::ToolCall> for WireCall {
    fn from(call: &tool_runtime::ToolCall) -> WireCall {
        WireCall {
            id: call.id.clone(),
            kind: FunctionKind::Function,
            function: CalledFunction {
                name: call.name.clone(),
                arguments: call.arguments_text(),
            },
        }
    }
}
