//! Everything that can go wrong loading a model or using its tokenizer.

use crate::template::TemplateError;
use std::path::PathBuf;

/// An error loading a model directory or GGUF file, or using its tokenizer.
///
/// Each message names the file and says what was expected and what was found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A file the model needs is not there.
    #[error("{}: missing: {what}", path.display())]
    MissingFile {
        /// The file looked for.
        path: PathBuf,
        /// What it should have held, and how to fix it.
        what: String,
    },
    /// A file could not be read or written.
    #[error("cannot access {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A JSON file does not parse (the message carries line and column).
    #[error("{} is not valid JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where and why parsing failed.
        source: serde_json::Error,
    },
    /// A file parses but holds something the loader cannot use.
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What was expected and what was found.
        reason: String,
    },
    /// Two files disagree (the tokenizer and the weights, say).
    #[error("{}: {reason}", path.display())]
    Inconsistent {
        /// The file found to disagree with the rest of the model.
        path: PathBuf,
        /// What disagrees with what.
        reason: String,
    },
    /// The model's architecture is not one this crate can run.
    #[error("{}: unsupported architecture {found:?}; supported: {}", path.display(), supported.join(", "))]
    UnsupportedArchitecture {
        /// `config.json` or the `.gguf` file.
        path: PathBuf,
        /// The architecture the file names.
        found: String,
        /// The architectures that are supported.
        supported: Vec<&'static str>,
    },
    /// The chat template could not be rendered.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// A model's chat template could not be loaded or compiled.
    #[error("{}: {source}", path.display())]
    FileTemplate {
        /// The model file or directory.
        path: PathBuf,
        /// What is wrong with its template.
        source: TemplateError,
    },
    /// A model named on the Hugging Face Hub (`hf:…`) could not be found,
    /// downloaded or verified.
    #[cfg(feature = "hub")]
    #[error(transparent)]
    Hub(#[from] crate::hub::HubError),
    /// Encoding or decoding text failed.
    #[error("tokenizer: {0}")]
    Tokenize(String),
}

impl ModelError {
    pub(crate) fn invalid(path: impl Into<PathBuf>, reason: impl Into<String>) -> ModelError {
        ModelError::Invalid {
            path: path.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn inconsistent(path: impl Into<PathBuf>, reason: impl Into<String>) -> ModelError {
        ModelError::Inconsistent {
            path: path.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ModelError {
        ModelError::Io {
            path: path.into(),
            source,
        }
    }
}

/// candle's message for `e`, without the backtrace candle attaches when
/// `RUST_BACKTRACE` is set.
pub(crate) fn candle_message(e: &candle_core::Error) -> String {
    if let candle_core::Error::WithBacktrace { inner, .. } = e {
        return candle_message(inner);
    }
    let text = e.to_string();
    match text.find("\n   0: ") {
        Some(at) => text[..at].trim_end().to_owned(),
        None => text,
    }
}
