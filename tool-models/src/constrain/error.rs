//! Why a constraint could not be built.

use tool_runtime::UnmetChoice;

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
    #[error("tool-call format `{format}` is not supported for constrained decoding (supported: {})", supported.join(", "))]
    UnsupportedFormat {
        /// The format's id.
        format: String,
        /// The ids of the formats that are.
        supported: Vec<String>,
    },
    /// `tool_choice` cannot be met by the tools offered.
    #[error(transparent)]
    Choice(#[from] UnmetChoice),
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
