//! `tool_choice`: whether the model may, must, or must not call tools.
//!
//! Part of every request to a model, local or remote, so it lives beside the
//! messages rather than with any one backend.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

use crate::error::UnknownTool;
use crate::{json_kind, ToolDefinition};

/// Whether and which tools the model may call.
///
/// What may follow the calls:
/// - `Auto`: free text, calls anywhere in it, free text again after each.
/// - `Required`: the output is one or more calls (any offered tools),
///   separated by whitespace, then end of sequence: no text around them.
/// - `Named`: exactly one call, to that tool, then end of sequence.
/// - `None`: free text; the call marker cannot be produced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// Text, or calls to any offered tool.
    #[default]
    Auto,
    /// At least one call and nothing else.
    Required,
    /// No call.
    None,
    /// One call to the named tool and nothing else.
    Named(String),
}

impl std::str::FromStr for ToolChoice {
    type Err = EmptyToolChoice;

    /// `auto`, `required`, `none`, or a tool's name.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.trim() {
            "" => return Err(EmptyToolChoice),
            "auto" => ToolChoice::Auto,
            "required" => ToolChoice::Required,
            "none" => ToolChoice::None,
            name => ToolChoice::Named(name.to_owned()),
        })
    }
}

/// A `tool_choice` given as an empty string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("tool_choice: expected `auto`, `required`, `none` or a tool name, found an empty string")]
pub struct EmptyToolChoice;

impl std::fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ToolChoice::Auto => "auto",
            ToolChoice::Required => "required",
            ToolChoice::None => "none",
            ToolChoice::Named(name) => name,
        })
    }
}

/// A `tool_choice` that is none of OpenAI's forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    /// A string other than OpenAI's three.
    #[error("expected \"auto\", \"none\", \"required\" or a named function, found \"{0}\"")]
    UnknownMode(String),
    /// An object without `function.name`.
    #[error("expected {{\"type\": \"function\", \"function\": {{\"name\": ...}}}}")]
    NotNamed,
    /// Neither a string nor an object.
    #[error("expected a string or an object, found {0}")]
    WrongKind(&'static str),
}

/// A `tool_choice` that the offered tools cannot meet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnmetChoice {
    /// A call is required but no tool is offered.
    #[error("tool_choice `{0}` needs at least one tool, but none was offered")]
    NoTools(String),
    /// The named tool is not offered.
    #[error("tool_choice: {0}")]
    UnknownTool(UnknownTool),
}

impl ToolChoice {
    /// Reads OpenAI's forms: `"auto"`, `"required"`, `"none"`, or
    /// `{"type": "function", "function": {"name": ...}}`.
    pub fn from_json(json: &Value) -> Result<ToolChoice, ChoiceError> {
        match json {
            Value::String(s) => match s.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "none" => Ok(ToolChoice::None),
                "required" => Ok(ToolChoice::Required),
                other => Err(ChoiceError::UnknownMode(other.to_owned())),
            },
            Value::Object(o) => o
                .get("function")
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .map(|name| ToolChoice::Named(name.to_owned()))
                .ok_or(ChoiceError::NotNamed),
            other => Err(ChoiceError::WrongKind(json_kind(other))),
        }
    }

    /// OpenAI's form (see [`ToolChoice::from_json`]).
    pub fn to_json(&self) -> Value {
        match self {
            ToolChoice::Auto => Value::from("auto"),
            ToolChoice::Required => Value::from("required"),
            ToolChoice::None => Value::from("none"),
            ToolChoice::Named(name) => json!({"type": "function", "function": {"name": name}}),
        }
    }

    /// Whether the choice can be met by `tools`: `Required` needs one, and
    /// `Named` must name one of them.
    pub fn check(&self, tools: &[ToolDefinition]) -> Result<(), UnmetChoice> {
        self.check_names(tools.iter().map(ToolDefinition::name))
    }

    /// [`ToolChoice::check`], given the offered tools' names.
    pub fn check_names<'a>(
        &self,
        offered: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), UnmetChoice> {
        let offered: Vec<&str> = offered.into_iter().collect();
        match self {
            ToolChoice::Required if offered.is_empty() => {
                Err(UnmetChoice::NoTools(self.to_string()))
            }
            ToolChoice::Named(name) if !offered.contains(&name.as_str()) => {
                Err(UnmetChoice::UnknownTool(UnknownTool::new(name, offered)))
            }
            _ => Ok(()),
        }
    }
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ToolChoice::from_json(&Value::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        for (s, c) in [
            ("auto", ToolChoice::Auto),
            ("required", ToolChoice::Required),
            ("none", ToolChoice::None),
            (" get_weather ", ToolChoice::Named("get_weather".into())),
        ] {
            let parsed: ToolChoice = s.parse().unwrap();
            assert_eq!(parsed, c);
            assert_eq!(parsed.to_string(), s.trim());
        }
        assert_eq!("  ".parse::<ToolChoice>(), Err(EmptyToolChoice));
    }

    #[test]
    fn openai_forms_round_trip() {
        for (json, choice) in [
            (json!("auto"), ToolChoice::Auto),
            (json!("required"), ToolChoice::Required),
            (json!("none"), ToolChoice::None),
            (
                json!({"type": "function", "function": {"name": "f"}}),
                ToolChoice::Named("f".into()),
            ),
        ] {
            assert_eq!(
                serde_json::from_value::<ToolChoice>(json.clone()).unwrap(),
                choice
            );
            assert_eq!(serde_json::to_value(&choice).unwrap(), json);
        }
        let error = |json: Value| ToolChoice::from_json(&json).unwrap_err().to_string();
        assert_eq!(
            error(json!("any")),
            "expected \"auto\", \"none\", \"required\" or a named function, found \"any\""
        );
        assert_eq!(
            error(json!({"type": "function"})),
            "expected {\"type\": \"function\", \"function\": {\"name\": ...}}"
        );
        assert_eq!(
            error(json!(1)),
            "expected a string or an object, found an integer"
        );
    }

    #[test]
    fn checks_against_the_offered_tools() {
        let tools =
            ToolDefinition::list_from_json(&[json!({"name": "a"}), json!({"name": "b"})]).unwrap();
        assert_eq!(ToolChoice::Named("b".into()).check(&tools), Ok(()));
        assert_eq!(
            ToolChoice::Named("c".into())
                .check(&tools)
                .unwrap_err()
                .to_string(),
            "tool_choice: unknown tool `c`. Did you mean `a`? Available tools: a, b"
        );
        assert_eq!(
            ToolChoice::Required.check(&[]).unwrap_err().to_string(),
            "tool_choice `required` needs at least one tool, but none was offered"
        );
        assert_eq!(ToolChoice::Auto.check(&[]), Ok(()));
    }
}
