//! Everything that can go wrong generating.

use super::TokenConstraintError;

/// An error from [`Session::generate`](super::Session::generate) or
/// [`Session::logits`](super::Session::logits).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The prompt has no tokens: there is nothing to continue.
    #[error("the prompt is empty: expected at least one token")]
    EmptyPrompt,
    /// The prompt does not fit the model's context; nothing was run.
    #[error(
        "the prompt has {prompt_tokens} tokens, more than the model's context of {context_length}"
    )]
    ContextOverflow {
        /// Tokens in the prompt.
        prompt_tokens: usize,
        /// The model's context length.
        context_length: usize,
    },
    /// A prompt token is outside the model's vocabulary.
    #[error("prompt token {token} at position {position} is outside the model's vocabulary of {vocab_size}")]
    InvalidToken {
        /// The token id.
        token: u32,
        /// Its index in the prompt.
        position: usize,
        /// The model's vocabulary size.
        vocab_size: usize,
    },
    /// An option is out of range.
    #[error("invalid generation options: {0}")]
    InvalidOptions(String),
    /// Every token was masked out (by the constraint, or by non-finite logits).
    #[error("no token can be generated at step {step}: {reason}")]
    AllMasked {
        /// Index of the token being generated.
        step: usize,
        /// Why nothing is left.
        reason: String,
    },
    /// The constraint failed.
    #[error(transparent)]
    Constraint(#[from] TokenConstraintError),
    /// The network failed to run (candle's message).
    #[error("model forward pass failed: {0}")]
    Forward(String),
    /// Decoding the generated tokens to text failed.
    #[error("{0}")]
    Tokenize(String),
}

impl From<crate::model::ModelError> for GenerateError {
    fn from(e: crate::model::ModelError) -> GenerateError {
        GenerateError::Tokenize(e.to_string())
    }
}
