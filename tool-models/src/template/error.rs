//! Everything that can go wrong loading or rendering a chat template.

use std::path::PathBuf;

/// An error loading, compiling or rendering a chat template.
///
/// Each message says what was expected and what was found, so that a user
/// holding only the message can fix the template, the file or the input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateError {
    /// The template is not valid Jinja.
    #[error("chat template syntax error{}: {message}", at_line(*line))]
    Syntax {
        /// What the parser expected and found.
        message: String,
        /// 1-based line of the template source, when known.
        line: Option<usize>,
    },
    /// The template failed while rendering (a type error, an unknown filter, ...).
    #[error("chat template render error{}: {message}", at_line(*line))]
    Render {
        /// What went wrong.
        message: String,
        /// 1-based line of the template source, when known.
        line: Option<usize>,
    },
    /// The template called `raise_exception(message)`: it refuses this input.
    #[error("chat template raised an exception: {0}")]
    Raised(String),
    /// The render ran past one of the [`Limits`](super::Limits).
    #[error("chat template exceeded a limit: {0}")]
    LimitExceeded(String),
    /// The render inputs are not what templates expect.
    #[error("invalid chat template input: {0}")]
    Input(String),
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A `tokenizer_config.json` (or similar) is not valid JSON.
    #[error("{} is not valid JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where and why parsing failed.
        source: serde_json::Error,
    },
    /// The file or directory holds no chat template.
    #[error("no chat template in {}: {reason}", path.display())]
    NoTemplate {
        /// The file or directory searched.
        path: PathBuf,
        /// What was looked for and what was found instead.
        reason: String,
    },
    /// A GGUF file is malformed or truncated.
    #[error("invalid GGUF file {}: {reason}", path.display())]
    Gguf {
        /// The file.
        path: PathBuf,
        /// What was expected at which offset, and what was found.
        reason: String,
    },
}

fn at_line(line: Option<usize>) -> String {
    match line {
        Some(line) => format!(" at line {line}"),
        None => String::new(),
    }
}
