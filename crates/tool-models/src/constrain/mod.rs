//! Constrained decoding with llguidance: tool calls that parse and validate.

/// SHIM until helper CON lands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// a
    Auto,
    /// b
    Required,
    /// c
    None,
    /// d
    Named(String),
}
