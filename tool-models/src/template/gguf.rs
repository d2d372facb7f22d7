//! A GGUF file's chat template and special tokens come from its metadata
//! (`crate::gguf` reads it).

use super::error::TemplateError;
use crate::gguf::{read_metadata, Failure, GgufMetadata};
use std::path::Path;

/// Reads the metadata of the GGUF file at `path`.
pub fn read_gguf_metadata(path: &Path) -> Result<GgufMetadata, TemplateError> {
    read_metadata(path).map_err(|failure| match failure {
        Failure::Io(source) => TemplateError::Io {
            path: path.to_owned(),
            source,
        },
        Failure::Invalid(reason) => TemplateError::Gguf {
            path: path.to_owned(),
            reason,
        },
    })
}
