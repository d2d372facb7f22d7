//! Chat messages in the Hugging Face / OpenAI format.
//!
//! Serialised as transformers' chat templates expect: `None` fields left out,
//! tool-call `arguments` as a JSON object. Deserialised from that form and
//! from the OpenAI wire form (`arguments` as a JSON string, `content: null`,
//! content as a list of text parts).

use crate::call::ToolCall;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model (read from OpenAI's newer `developer`
    /// too).
    #[serde(alias = "developer")]
    System,
    /// The person talking to the model.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

impl Role {
    /// The role as templates see it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text; `None` for an assistant message that only calls tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The model's reasoning, for templates that show it (`reasoning_content`).
    #[serde(rename = "reasoning_content", skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Tools the assistant asks to run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the id of the call it answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool message: the tool's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    fn new(role: Role, content: Option<String>) -> Message {
        Message {
            role,
            content,
            reasoning: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Message {
        Message::new(Role::System, Some(content.into()))
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message::new(Role::User, Some(content.into()))
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message::new(Role::Assistant, Some(content.into()))
    }

    /// An assistant message that calls tools (and may also say something).
    pub fn assistant_calls(content: Option<String>, tool_calls: Vec<ToolCall>) -> Message {
        Message {
            tool_calls,
            ..Message::new(Role::Assistant, content)
        }
    }

    /// A tool's result, answering the call `tool_call_id` of tool `name`.
    pub fn tool(
        tool_call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
    ) -> Message {
        Message {
            tool_call_id: Some(tool_call_id.into()),
            name: Some(name.into()),
            ..Message::new(Role::Tool, Some(content.into()))
        }
    }

    /// The text, or `""` when there is none.
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }
}

/// The text of a message's `content` as OpenAI's APIs and chat templates
/// write it: a string, `null`, or a list of parts whose text ones (a
/// string, or an object with `text`) are joined in order. The one reader of
/// it: [`Message`]'s and the wire types' alike.
pub fn content_text(content: Option<Value>) -> Result<Option<String>, String> {
    match content {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Array(parts)) => Ok(Some(
            parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    p => p.get("text").and_then(Value::as_str),
                })
                .collect(),
        )),
        Some(other) => Err(format!(
            "expected a string, null or a list of parts, found {}",
            crate::json_kind(&other)
        )),
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            role: Role,
            // Read by a field reader so that an error names `content`.
            #[serde(default, deserialize_with = "content")]
            content: Option<String>,
            #[serde(default, alias = "reasoning")]
            reasoning_content: Option<String>,
            #[serde(default)]
            tool_calls: Option<Vec<ToolCall>>,
            #[serde(default)]
            tool_call_id: Option<String>,
            #[serde(default)]
            name: Option<String>,
        }
        fn content<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
            content_text(Option::<Value>::deserialize(d)?).map_err(D::Error::custom)
        }
        let w = Wire::deserialize(deserializer)?;
        Ok(Message {
            role: w.role,
            content: w.content,
            reasoning: w.reasoning_content,
            tool_calls: w.tool_calls.unwrap_or_default(),
            tool_call_id: w.tool_call_id,
            name: w.name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serialises_as_templates_expect() {
        let call = ToolCall::new(
            "call_1",
            "get_current_temperature",
            json!({"location": "Paris, France"}),
        );
        let m = Message::assistant_calls(None, vec![call]);
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "get_current_temperature", "arguments": {"location": "Paris, France"}}}]})
        );
        let t = Message::tool("call_1", "get_current_temperature", "22.0");
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"role":"tool","content":"22.0","tool_call_id":"call_1","name":"get_current_temperature"}"#
        );
    }

    #[test]
    fn reads_the_openai_wire_form() {
        let m: Message = serde_json::from_value(json!({
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": "{\"a\": 1}"}}]
        }))
        .unwrap();
        assert_eq!(m.content, None);
        assert_eq!(m.tool_calls[0].arguments, json!({"a": 1}));
        let parts: Message = serde_json::from_value(json!({
            "role": "user", "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]
        }))
        .unwrap();
        assert_eq!(parts.text(), "Hi there");
    }

    #[test]
    fn round_trips() {
        let msgs = vec![
            Message::system("s"),
            Message::user("u"),
            Message::assistant_calls(Some("x".into()), vec![ToolCall::new("1", "f", json!({}))]),
            Message::tool("1", "f", "r"),
        ];
        let text = serde_json::to_string(&msgs).unwrap();
        let back: Vec<Message> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, msgs);
    }

    #[test]
    fn bad_content_is_a_clear_error() {
        let err = serde_json::from_value::<Message>(json!({"role": "user", "content": 3}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("found an integer"), "{err}");
    }

    #[test]
    fn reads_what_the_chat_completions_api_writes() {
        let m: Message = serde_json::from_value(json!({
            "role": "developer",
            "content": [{"type": "text", "text": "Be "}, "brief."]
        }))
        .unwrap();
        assert_eq!((m.role, m.text()), (Role::System, "Be brief."));
        let call: Message = serde_json::from_value(json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "f", "arguments": "{\"x\": 1}"}}]}))
        .unwrap();
        assert_eq!(call.tool_calls[0].arguments, json!({"x": 1}));
    }
}
