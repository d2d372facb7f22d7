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
/// - `Allowed`: as `Auto` (or `Required`), with calls to the listed tools
///   only. Every tool stays in the prompt, so its prefix (and a cache of
///   it) holds from turn to turn: OpenAI's `allowed_tools`.
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
    /// Calls to these tools only; at least one when `required`.
    Allowed {
        /// The tools that may be called.
        tools: Vec<String>,
        /// Whether a call is required, as [`ToolChoice::Required`].
        required: bool,
    },
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
        match self {
            ToolChoice::Auto => f.write_str("auto"),
            ToolChoice::Required => f.write_str("required"),
            ToolChoice::None => f.write_str("none"),
            ToolChoice::Named(name) => f.write_str(name),
            ToolChoice::Allowed { tools, required } => {
                let mode = if *required { "required" } else { "auto" };
                write!(f, "{mode} among {}", tools.join(", "))
            }
        }
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
    /// An `allowed_tools` object without its mode or its tools' names.
    #[error("allowed_tools: expected {{\"mode\": \"auto\" or \"required\", \"tools\": [{{\"type\": \"function\", \"function\": {{\"name\": ...}}}}, ...]}}")]
    BadAllowed,
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
    /// Reads OpenAI's forms: `"auto"`, `"required"`, `"none"`,
    /// `{"type": "function", "function": {"name": ...}}`, or
    /// `{"type": "allowed_tools", "allowed_tools": {"mode": ..., "tools":
    /// [...]}}` (Chat Completions; Responses' flat form too).
    pub fn from_json(json: &Value) -> Result<ToolChoice, ChoiceError> {
        match json {
            Value::String(s) => match s.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "none" => Ok(ToolChoice::None),
                "required" => Ok(ToolChoice::Required),
                other => Err(ChoiceError::UnknownMode(other.to_owned())),
            },
            Value::Object(o) if o.get("type") == Some(&Value::from("allowed_tools")) => {
                allowed(o.get("allowed_tools").unwrap_or(json))
            }
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
            ToolChoice::Allowed { tools, required } => {
                let tools: Vec<Value> = tools
                    .iter()
                    .map(|name| json!({"type": "function", "function": {"name": name}}))
                    .collect();
                let mode = if *required { "required" } else { "auto" };
                json!({"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": tools}})
            }
        }
    }

    /// Whether a call to `tool` is allowed: by every choice but `None`,
    /// `Named` (another tool) and `Allowed` (a tool not listed).
    pub fn allows(&self, tool: &str) -> bool {
        match self {
            ToolChoice::None => false,
            ToolChoice::Named(name) => name == tool,
            ToolChoice::Allowed { tools, .. } => tools.iter().any(|t| t == tool),
            ToolChoice::Auto | ToolChoice::Required => true,
        }
    }

    /// The choice without its list of allowed tools: `Allowed` is `Auto`
    /// or `Required`, the others are themselves. What a grammar or an API
    /// without `allowed_tools` is given, beside the tools [`allows`]
    /// keeps.
    ///
    /// [`allows`]: ToolChoice::allows
    pub fn mode(&self) -> ToolChoice {
        match self {
            ToolChoice::Allowed { required: true, .. } => ToolChoice::Required,
            ToolChoice::Allowed {
                required: false, ..
            } => ToolChoice::Auto,
            other => other.clone(),
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
            ToolChoice::Allowed { tools, required } => {
                if let Some(name) = tools.iter().find(|t| !offered.contains(&t.as_str())) {
                    return Err(UnmetChoice::UnknownTool(UnknownTool::new(name, offered)));
                }
                if *required && tools.is_empty() {
                    return Err(UnmetChoice::NoTools(self.to_string()));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// The inside of an `allowed_tools` choice: its mode and its tools, each
/// `{"type": "function", "function": {"name"}}` or Responses' `{"type":
/// "function", "name"}`.
fn allowed(json: &Value) -> Result<ToolChoice, ChoiceError> {
    let required = match json.get("mode").and_then(Value::as_str) {
        Some("auto") => false,
        Some("required") => true,
        _ => return Err(ChoiceError::BadAllowed),
    };
    let tools = json
        .get("tools")
        .and_then(Value::as_array)
        .ok_or(ChoiceError::BadAllowed)?
        .iter()
        .map(|t| {
            let name = t.pointer("/function/name").or_else(|| t.get("name"));
            name.and_then(Value::as_str).map(str::to_owned)
        })
        .collect::<Option<Vec<String>>>()
        .ok_or(ChoiceError::BadAllowed)?;
    Ok(ToolChoice::Allowed { tools, required })
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
    fn allowed_tools_in_both_openai_forms() {
        let allowed = ToolChoice::Allowed {
            tools: vec!["a".into(), "b".into()],
            required: true,
        };
        let chat = json!({"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [
            {"type": "function", "function": {"name": "a"}},
            {"type": "function", "function": {"name": "b"}}]}});
        let responses = json!({"type": "allowed_tools", "mode": "required", "tools": [
            {"type": "function", "name": "a"}, {"type": "function", "name": "b"}]});
        assert_eq!(ToolChoice::from_json(&chat), Ok(allowed.clone()));
        assert_eq!(ToolChoice::from_json(&responses), Ok(allowed.clone()));
        assert_eq!(allowed.to_json(), chat);
        assert_eq!(allowed.to_string(), "required among a, b");
        assert_eq!(allowed.mode(), ToolChoice::Required);
        assert!(allowed.allows("b") && !allowed.allows("c"));
        assert_eq!(
            ToolChoice::from_json(
                &json!({"type": "allowed_tools", "mode": "sometimes", "tools": []})
            )
            .unwrap_err(),
            ChoiceError::BadAllowed
        );
        let tools =
            ToolDefinition::list_from_json(&[json!({"name": "a"}), json!({"name": "b"})]).unwrap();
        assert_eq!(allowed.check(&tools), Ok(()));
        let unknown = ToolChoice::Allowed {
            tools: vec!["c".into()],
            required: false,
        };
        assert_eq!(
            unknown.check(&tools).unwrap_err().to_string(),
            "tool_choice: unknown tool `c`. Did you mean `a`? Available tools: a, b"
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
