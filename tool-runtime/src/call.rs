//! Tool calls: complete ones, ones that could not be read, and the chunks a
//! streaming model sends (merged with LangChain's rules).

use crate::partial_json::parse_partial;
use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A model's request to run one tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The call's id; the tool message answering it carries the same id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, normally a JSON object.
    pub arguments: Value,
}

impl ToolCall {
    /// A call of `name` with `arguments`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }

    /// A call whose arguments arrive as JSON text, as the HTTP APIs send
    /// them: blank text is `{}`, and text that is not JSON stays a string,
    /// for the toolbox to report.
    pub fn from_text(id: impl Into<String>, name: impl Into<String>, text: &str) -> ToolCall {
        ToolCall::new(id, name, arguments_from_text(text))
    }

    /// The arguments as JSON text, as the HTTP APIs send them; arguments
    /// kept as unreadable text go back as they were written.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        }
    }
}

/// `{"id", "type": "function", "function": {"name", "arguments": {...}}}`.
impl Serialize for ToolCall {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            arguments: &'a Value,
        }
        let mut s = serializer.serialize_struct("ToolCall", 3)?;
        s.serialize_field("id", &self.id)?;
        s.serialize_field("type", "function")?;
        s.serialize_field(
            "function",
            &Function {
                name: &self.name,
                arguments: &self.arguments,
            },
        )?;
        s.end()
    }
}

/// Reads the nested form (`function.arguments` as an object or a JSON
/// string) and the flat form (`name` with `arguments` or `args`). Arguments
/// that are a string but not JSON stay a string, for the toolbox to report.
impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut v = Map::<String, Value>::deserialize(deserializer)?;
        let id = match v.remove("id") {
            Some(Value::String(s)) => s,
            None | Some(Value::Null) => String::new(),
            Some(other) => other.to_string(),
        };
        let body = match v.remove("function") {
            Some(Value::Object(f)) => f,
            Some(_) => return Err(D::Error::custom("tool call `function` must be an object")),
            None => v,
        };
        let mut body = body;
        let name = match body.remove("name") {
            Some(Value::String(s)) => s,
            _ => return Err(D::Error::custom("tool call has no `name` string")),
        };
        let arguments = match body.remove("arguments").or_else(|| body.remove("args")) {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::String(s)) => arguments_from_text(&s),
            Some(other) => other,
        };
        Ok(ToolCall {
            id,
            name,
            arguments,
        })
    }
}

/// Arguments written as JSON text: blank is `{}`; text that is not JSON
/// stays a string.
fn arguments_from_text(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// A call the model tried to make but that could not be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvalidToolCall {
    /// The call's id, if the model gave one.
    #[serde(default)]
    pub id: Option<String>,
    /// The tool's name, if it could be read.
    #[serde(default)]
    pub name: Option<String>,
    /// The arguments exactly as the model wrote them.
    #[serde(default)]
    pub raw_arguments: Option<String>,
    /// Why the call could not be read.
    pub error: String,
}

/// A piece of a tool call from a stream.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCallChunk {
    /// Which call of the message this piece belongs to; pieces with the same
    /// index merge. Pieces without an index are never merged.
    pub index: Option<usize>,
    /// The call's id (usually on the first piece only).
    pub id: Option<String>,
    /// The tool's name, or a piece of it.
    pub name: Option<String>,
    /// The next piece of the arguments' JSON text.
    pub arguments_delta: Option<String>,
}

/// Two chunks of one call disagree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tool call chunks at index {index} have different ids: `{first}` and `{second}`")]
pub struct ChunkIdConflict {
    /// The index both chunks carry.
    pub index: usize,
    /// The id seen first.
    pub first: String,
    /// The conflicting id.
    pub second: String,
}

fn concat(a: &mut Option<String>, b: Option<String>) {
    match (a.as_mut(), b) {
        (Some(a), Some(b)) => a.push_str(&b),
        (None, b) => *a = b,
        (Some(_), None) => {}
    }
}

impl ToolCallChunk {
    /// Merges `other` into `self` (same index): strings concatenate, ids must agree.
    pub fn merge(&mut self, other: ToolCallChunk) -> Result<(), ChunkIdConflict> {
        match (&self.id, other.id) {
            (Some(a), Some(b)) if !a.is_empty() && !b.is_empty() && *a != b => {
                return Err(ChunkIdConflict {
                    index: self.index.unwrap_or_default(),
                    first: a.clone(),
                    second: b,
                })
            }
            (Some(a), Some(b)) if a.is_empty() => self.id = Some(b),
            (None, b) => self.id = b,
            _ => {}
        }
        concat(&mut self.name, other.name);
        concat(&mut self.arguments_delta, other.arguments_delta);
        Ok(())
    }

    /// Merges a stream of chunks by index, keeping first-seen order.
    pub fn merge_all(
        chunks: impl IntoIterator<Item = ToolCallChunk>,
    ) -> Result<Vec<ToolCallChunk>, ChunkIdConflict> {
        let mut merged: Vec<ToolCallChunk> = Vec::new();
        for chunk in chunks {
            let slot = chunk
                .index
                .and_then(|i| merged.iter_mut().find(|m| m.index == Some(i)));
            match slot {
                Some(m) => m.merge(chunk)?,
                None => merged.push(chunk),
            }
        }
        Ok(merged)
    }

    /// The call this (merged) chunk describes while its stream goes on.
    /// Arguments still being written are completed as far as they go; text
    /// that can never be a JSON object, or a missing name, makes an
    /// [`InvalidToolCall`].
    pub fn to_call(&self) -> Result<ToolCall, InvalidToolCall> {
        let name = match self.name.as_deref() {
            Some(n) if !n.is_empty() => n.to_owned(),
            _ => return Err(self.invalid(NO_NAME.into())),
        };
        let arguments = match parse_partial(self.raw_arguments()) {
            Ok(None) => Value::Object(Map::new()),
            Ok(Some(v @ Value::Object(_))) => v,
            Ok(Some(v)) => return Err(self.invalid(not_an_object(&v))),
            Err(e) => return Err(self.invalid(format!("arguments are not JSON: {e}"))),
        };
        Ok(self.call(name, arguments))
    }

    /// The call this (merged) chunk describes once its stream has ended.
    /// Unlike [`to_call`](Self::to_call), the arguments must be whole JSON:
    /// an object, or a JSON string holding one (engines that encode them
    /// twice); blank arguments are `{}`. A blank name is a missing one, and
    /// an [`InvalidToolCall`] names no tool rather than an empty name.
    pub fn to_finished_call(&self) -> Result<ToolCall, InvalidToolCall> {
        let invalid = |error: String| InvalidToolCall {
            name: self.name.clone().filter(|n| !n.is_empty()),
            ..self.invalid(error)
        };
        let name = match self.name.as_deref() {
            Some(n) if !n.trim().is_empty() => n.to_owned(),
            _ => return Err(invalid(NO_NAME.into())),
        };
        let text = self.raw_arguments().trim();
        let arguments = if text.is_empty() {
            Value::Object(Map::new())
        } else {
            match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => v,
                Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
                    Ok(v @ Value::Object(_)) => v,
                    _ => return Err(invalid(not_an_object(&Value::String(inner)))),
                },
                Ok(v) => return Err(invalid(not_an_object(&v))),
                Err(e) => return Err(invalid(format!("arguments are not valid JSON: {e}"))),
            }
        };
        Ok(self.call(name, arguments))
    }

    fn raw_arguments(&self) -> &str {
        self.arguments_delta.as_deref().unwrap_or_default()
    }

    fn call(&self, name: String, arguments: Value) -> ToolCall {
        ToolCall {
            id: self.id.clone().unwrap_or_default(),
            name,
            arguments,
        }
    }

    fn invalid(&self, error: String) -> InvalidToolCall {
        InvalidToolCall {
            id: self.id.clone(),
            name: self.name.clone(),
            raw_arguments: Some(self.raw_arguments().to_owned()),
            error,
        }
    }
}

const NO_NAME: &str = "the tool call has no name";

fn not_an_object(value: &Value) -> String {
    format!(
        "arguments must be a JSON object, found {}",
        crate::json_kind(value)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> ToolCallChunk {
        ToolCallChunk {
            index: Some(index),
            id: id.map(Into::into),
            name: name.map(Into::into),
            arguments_delta: Some(args.into()),
        }
    }

    #[test]
    fn merges_by_index_in_order() {
        let merged = ToolCallChunk::merge_all([
            chunk(0, Some("a"), Some("get_"), "{\"lo"),
            chunk(1, Some("b"), Some("wind"), "{}"),
            chunk(0, None, Some("weather"), "cation\": \"Paris\"}"),
            chunk(0, Some("a"), None, ""),
        ])
        .unwrap();
        assert_eq!(merged.len(), 2);
        let call = merged[0].to_call().unwrap();
        assert_eq!(
            call,
            ToolCall::new("a", "get_weather", json!({"location": "Paris"}))
        );
        assert_eq!(merged[1].to_call().unwrap().name, "wind");
    }

    #[test]
    fn chunks_without_index_stay_apart() {
        let a = ToolCallChunk {
            name: Some("f".into()),
            ..Default::default()
        };
        assert_eq!(ToolCallChunk::merge_all([a.clone(), a]).unwrap().len(), 2);
    }

    #[test]
    fn ids_must_agree() {
        let err = ToolCallChunk::merge_all([
            chunk(0, Some("a"), None, ""),
            chunk(0, Some("b"), None, ""),
        ])
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool call chunks at index 0 have different ids: `a` and `b`"
        );
    }

    #[test]
    fn incomplete_arguments_parse_as_far_as_they_go() {
        let c = chunk(0, Some("a"), Some("f"), r#"{"city": "Ber"#);
        assert_eq!(c.to_call().unwrap().arguments, json!({"city": "Ber"}));
        let empty = chunk(0, None, Some("f"), "");
        assert_eq!(empty.to_call().unwrap().arguments, json!({}));
    }

    #[test]
    fn unreadable_chunks_become_invalid_calls() {
        let bad = chunk(0, Some("a"), Some("f"), "[1, 2]");
        let err = bad.to_call().unwrap_err();
        assert_eq!(err.error, "arguments must be a JSON object, found an array");
        assert_eq!(err.raw_arguments.as_deref(), Some("[1, 2]"));
        let nameless = chunk(0, Some("a"), None, "{}");
        assert_eq!(
            nameless.to_call().unwrap_err().error,
            "the tool call has no name"
        );
        let garbage = chunk(0, None, Some("f"), "{x");
        assert!(garbage
            .to_call()
            .unwrap_err()
            .error
            .starts_with("arguments are not JSON"));
    }

    #[test]
    fn finished_chunks_need_whole_json() {
        let cut = chunk(0, Some("a"), Some("f"), r#"{"city": "Ber"#);
        let err = cut.to_finished_call().unwrap_err();
        assert!(
            err.error.starts_with("arguments are not valid JSON"),
            "{err:?}"
        );
        let twice = chunk(0, Some("a"), Some("f"), r#" "{\"city\": \"Bern\"}" "#);
        assert_eq!(
            twice.to_finished_call().unwrap(),
            ToolCall::new("a", "f", json!({"city": "Bern"}))
        );
        let text = chunk(0, Some("a"), Some("f"), r#""Bern""#);
        assert_eq!(
            text.to_finished_call().unwrap_err().error,
            "arguments must be a JSON object, found a string"
        );
        let blank = chunk(0, Some("a"), Some("f"), "  ");
        assert_eq!(blank.to_finished_call().unwrap().arguments, json!({}));
        let nameless = chunk(0, Some("a"), Some(" "), "{}").to_finished_call();
        assert_eq!(nameless.unwrap_err().name.as_deref(), Some(" "));
        let unnamed = chunk(0, Some("a"), Some(""), "{}").to_finished_call();
        let err = unnamed.unwrap_err();
        assert_eq!((err.name, err.error.as_str()), (None, NO_NAME));
    }

    #[test]
    fn reads_flat_and_nested_forms() {
        let nested: ToolCall = serde_json::from_value(json!({"id": "1", "type": "function",
            "function": {"name": "f", "arguments": "{\"a\": 1}"}}))
        .unwrap();
        let flat: ToolCall =
            serde_json::from_value(json!({"id": "1", "name": "f", "args": {"a": 1}})).unwrap();
        assert_eq!(nested, flat);
        let broken: ToolCall =
            serde_json::from_value(json!({"name": "f", "arguments": "{oops"})).unwrap();
        assert_eq!(broken.arguments, json!("{oops"));
        assert!(serde_json::from_value::<ToolCall>(json!({"arguments": {}})).is_err());
    }
}
