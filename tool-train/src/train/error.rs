//! Everything that can go wrong building, training, checkpointing or exporting the model.

use std::path::PathBuf;

/// An error of the training module.
///
/// Messages say what was expected and what was found, naming the file when one is involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrainError {
    /// A tensor operation failed; `context` says which step of the computation.
    #[error("{context}: {source}")]
    Tensor {
        /// What was being computed.
        context: String,
        /// The candle error.
        source: candle_core::Error,
    },
    /// The model or training configuration is inconsistent.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A training example or batch is malformed.
    #[error("invalid training data: {0}")]
    Data(String),
    /// A file could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// "read", "write", "rename", ...
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A JSON file is not what was expected.
    #[error("{} is not valid: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where and why parsing failed.
        source: serde_json::Error,
    },
    /// A checkpoint or weights file does not match the model.
    #[error("{}: {message}", path.display())]
    Checkpoint {
        /// The file or directory.
        path: PathBuf,
        /// What was expected and what was found.
        message: String,
    },
}

/// Adds the context a candle error lacks: which computation failed.
pub(crate) trait TensorContext<T> {
    /// Wraps the error with `context`.
    fn ctx(self, context: &str) -> Result<T, TrainError>;
}

impl<T> TensorContext<T> for candle_core::Result<T> {
    fn ctx(self, context: &str) -> Result<T, TrainError> {
        self.map_err(|source| TrainError::Tensor {
            context: context.to_string(),
            source,
        })
    }
}

/// Wraps an I/O error with what was being done to which path.
pub(crate) fn io_err<'a>(
    action: &'static str,
    path: &'a std::path::Path,
) -> impl FnOnce(std::io::Error) -> TrainError + 'a {
    move |source| TrainError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}
