//! A format's constrained decoding: the one place a format is mapped to
//! the grammar its family declares. The grammar kit (`constrain`) knows no
//! format; [`ToolConstraint::new`] is written here, above it, and looks the
//! format's grammar up.

use super::Format;
use crate::constrain::{ConstrainError, TokenEnv, ToolConstraint};
use tool_runtime::{ToolChoice, ToolDefinition};

impl ToolConstraint {
    /// The constraint for `format`'s calls to `tools` (definitions checked
    /// where they entered: `ToolDefinition::list_from_json`) under `choice`.
    pub fn new(
        env: &TokenEnv,
        format: Format,
        tools: &[ToolDefinition],
        choice: &ToolChoice,
    ) -> Result<ToolConstraint, ConstrainError> {
        let grammar = &format.family().grammar;
        if !grammar.exists() {
            return Err(unsupported(format));
        }
        ToolConstraint::from_grammar(env, grammar, tools, choice)?
            .ok_or_else(|| unsupported(format))
    }

    /// Whether `format` has a grammar here (every format the parsers read
    /// has one).
    pub fn supports(format: Format) -> bool {
        format.family().grammar.exists()
    }
}

/// The error for a format without a grammar (in this vocabulary), with the
/// formats that have one.
fn unsupported(format: Format) -> ConstrainError {
    ConstrainError::UnsupportedFormat {
        format: format.id().into(),
        supported: Format::all()
            .filter(|f| ToolConstraint::supports(*f))
            .map(|f| f.id().to_owned())
            .collect(),
    }
}
