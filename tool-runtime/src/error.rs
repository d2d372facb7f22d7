//! Why a tool call failed, worded for the model that made it.
//!
//! Every failure becomes a tool message the model can read and correct;
//! messages are short and deterministic so tests (and models) can rely on them.

use crate::suggest::edit_distance;
use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// A name that is none of the tools offered: the one error for an unknown
/// tool, whether a model called it, `tool_choice` named it or a toolbox was
/// asked for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool `{name}`.{} Available tools: {}", did_you_mean(.suggestion), list(.available))]
pub struct UnknownTool {
    /// The name asked for.
    pub name: String,
    /// The names of the tools there are.
    pub available: Vec<String>,
    /// The closest available name, if one is close.
    pub suggestion: Option<String>,
}

impl UnknownTool {
    /// `name`, which none of `available` is, with the closest of them
    /// suggested when one is close (a typo, a different case).
    pub fn new<'a>(name: &str, available: impl IntoIterator<Item = &'a str>) -> UnknownTool {
        let available: Vec<String> = available.into_iter().map(str::to_owned).collect();
        let suggestion = available
            .iter()
            .map(|c| (edit_distance(&name.to_lowercase(), &c.to_lowercase()), c))
            .filter(|(d, c)| *d <= 2.max(c.chars().count() / 3))
            .min_by_key(|(d, _)| *d)
            .map(|(_, c)| c.clone());
        UnknownTool {
            name: name.to_owned(),
            available,
            suggestion,
        }
    }
}

/// A tool call that did not produce a result.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// No tool has this name.
    #[error(transparent)]
    UnknownTool(UnknownTool),
    /// The arguments were not a JSON object.
    #[error("arguments for `{tool}` must be a JSON object, found {found}")]
    ArgumentsNotObject {
        /// The tool.
        tool: String,
        /// What came instead, briefly.
        found: String,
    },
    /// The arguments did not fit the tool's schema.
    #[error("invalid arguments for `{tool}`: {}", join(.issues))]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// Every problem found, in argument order.
        issues: Vec<ArgIssue>,
    },
    /// The tool ran and returned an error.
    #[error("{0}")]
    Failed(String),
    /// The tool panicked; the process goes on.
    #[error("the tool `{tool}` crashed: {message}")]
    Panicked {
        /// The tool.
        tool: String,
        /// The panic's message.
        message: String,
    },
    /// The tool did not finish in time.
    #[error("the tool `{tool}` did not finish within {}", seconds(.limit))]
    Timeout {
        /// The tool.
        tool: String,
        /// The limit it ran past.
        limit: Duration,
    },
    /// The call was cancelled before it finished: the run it belonged to
    /// was cancelled, or the client withdrew the request.
    #[error("the call to `{tool}` was cancelled")]
    Cancelled {
        /// The tool.
        tool: String,
    },
    /// The tool's result could not be turned into text.
    #[error("the tool `{tool}` returned a value that cannot be written as JSON: {message}")]
    Output {
        /// The tool.
        tool: String,
        /// serde's message.
        message: String,
    },
}

impl ToolError {
    /// A call to `name`, which none of `available` is (see [`UnknownTool::new`]).
    pub fn unknown_tool<'a>(name: &str, available: impl IntoIterator<Item = &'a str>) -> ToolError {
        ToolError::UnknownTool(UnknownTool::new(name, available))
    }
}

fn did_you_mean(s: &Option<String>) -> String {
    s.as_ref()
        .map(|s| format!(" Did you mean `{s}`?"))
        .unwrap_or_default()
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn join(issues: &[ArgIssue]) -> String {
    issues
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

fn seconds(d: &Duration) -> String {
    format!("{}s", d.as_secs_f64())
}

/// One problem with one argument. `path` is where it is: `unit`,
/// `stops[2].lat`.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgIssue {
    /// A required argument is absent.
    Missing {
        /// The argument.
        path: String,
    },
    /// An argument the tool does not take.
    Unexpected {
        /// The argument.
        path: String,
        /// The arguments the tool takes.
        expected: Vec<String>,
    },
    /// A value of the wrong JSON type.
    WrongType {
        /// Where.
        path: String,
        /// What the schema wants ("an integer", "a string or null").
        expected: String,
        /// The value that came.
        found: Value,
    },
    /// A value outside the allowed choices.
    NotAllowed {
        /// Where.
        path: String,
        /// The allowed values.
        allowed: Vec<Value>,
        /// The value that came.
        found: Value,
    },
    /// A number, length or count outside its bounds.
    OutOfRange {
        /// Where.
        path: String,
        /// The bound, worded: "at least 0", "at most 255", "at most 1 character".
        bound: String,
        /// The value that came.
        found: Value,
    },
    /// Anything else serde refused, in serde's words.
    Invalid {
        /// Where.
        path: String,
        /// Why.
        message: String,
    },
}

/// A value for a message: JSON text, cut short when long.
fn brief(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 40 {
        return text;
    }
    let cut: String = text.chars().take(37).collect();
    format!("{cut}...")
}

impl fmt::Display for ArgIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgIssue::Missing { path } => write!(f, "missing required argument `{path}`"),
            ArgIssue::Unexpected { path, expected } => write!(
                f,
                "unexpected argument `{path}` (the tool takes: {})",
                list(expected)
            ),
            ArgIssue::WrongType {
                path,
                expected,
                found,
            } => write!(f, "`{path}` must be {expected}, got {}", brief(found)),
            ArgIssue::NotAllowed {
                path,
                allowed,
                found,
            } => write!(
                f,
                "`{path}` must be one of {}, got {}",
                allowed.iter().map(brief).collect::<Vec<_>>().join(", "),
                brief(found)
            ),
            ArgIssue::OutOfRange { path, bound, found } => {
                write!(f, "`{path}` must be {bound}, got {}", brief(found))
            }
            ArgIssue::Invalid { path, message } => write!(f, "`{path}`: {message}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages() {
        let e = ToolError::UnknownTool(UnknownTool {
            name: "get_temprature".into(),
            available: vec!["get_temperature".into(), "get_wind".into()],
            suggestion: Some("get_temperature".into()),
        });
        assert_eq!(
            e.to_string(),
            "unknown tool `get_temprature`. Did you mean `get_temperature`? Available tools: get_temperature, get_wind"
        );
        let e = ToolError::InvalidArguments {
            tool: "f".into(),
            issues: vec![
                ArgIssue::Missing {
                    path: "unit".into(),
                },
                ArgIssue::WrongType {
                    path: "days[1]".into(),
                    expected: "an integer".into(),
                    found: json!("x".repeat(50)),
                },
            ],
        };
        assert_eq!(
            e.to_string(),
            format!(
                "invalid arguments for `f`: missing required argument `unit`; `days[1]` must be an integer, got \"{}...",
                "x".repeat(36)
            )
        );
        let t = ToolError::Timeout {
            tool: "slow".into(),
            limit: Duration::from_millis(1500),
        };
        assert_eq!(t.to_string(), "the tool `slow` did not finish within 1.5s");
    }
}
