//! Why a constraint could not be built.

/// Errors building a token environment or a constraint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConstrainError {
    /// The tokenizer's tokens cannot be mapped to the bytes they stand for.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// An end-of-sequence id is missing or outside the vocabulary.
    #[error("end-of-sequence tokens: {0}")]
    Eos(String),
    /// The model's vocabulary is smaller than the tokenizer's.
    #[error("vocabulary size: the model has {model} tokens but the tokenizer has {tokenizer}")]
    VocabSize {
        /// The size the caller gave for the model.
        model: usize,
        /// The size the tokenizer needs.
        tokenizer: usize,
    },
    /// The tool-call format has no grammar here.
    #[error("tool-call format `{0}` is not supported for constrained decoding (supported: {supported})", supported = supported_ids())]
    UnsupportedFormat(String),
    /// `tool_choice` names a tool that is not offered.
    #[error("tool_choice names `{name}`, but the tools offered are: {known}")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The names offered, comma-separated (or `none`).
        known: String,
    },
    /// `tool_choice` asks for a call but no tool is offered.
    #[error("tool_choice `{0}` needs at least one tool, but none was offered")]
    NoTools(String),
    /// A JSON schema was rejected by the grammar compiler.
    #[error("schema of {what}: {reason}")]
    Schema {
        /// Which schema (a tool's parameters, the output schema).
        what: String,
        /// The compiler's message.
        reason: String,
    },
    /// The grammar could not be compiled.
    #[error("grammar: {0}")]
    Grammar(String),
}

/// The ids of the formats with a grammar, for the message.
fn supported_ids() -> String {
    crate::parse::Format::all()
        .filter(|f| super::ToolConstraint::supports(*f))
        .map(|f| f.id())
        .collect::<Vec<_>>()
        .join(", ")
}
