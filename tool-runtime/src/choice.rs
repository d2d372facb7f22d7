//! `tool_choice`: whether the model may, must, or must not call tools.
//!
//! Part of every request to a model, local or remote, so it lives beside the
//! messages rather than with any one backend.

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
}
