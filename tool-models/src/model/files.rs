//! Where a Hugging Face model directory's files come from: the file system,
//! or bytes already in memory (a model embedded in a program).

use super::ModelError;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// A model directory's files, by name.
#[derive(Clone, Copy)]
pub(crate) enum ModelFiles<'a> {
    /// A directory on disk.
    Dir(&'a Path),
    /// File names and contents; `root` names the model in messages.
    Memory {
        root: &'a Path,
        files: &'a [(&'a str, &'a [u8])],
    },
}

impl<'a> ModelFiles<'a> {
    /// The path of `name`, as messages show it.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.root().join(name)
    }

    /// The directory, or the name the in-memory model goes by.
    pub(crate) fn root(&self) -> &'a Path {
        match self {
            ModelFiles::Dir(dir) => dir,
            ModelFiles::Memory { root, .. } => root,
        }
    }

    /// Whether the model has a file `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        match self {
            ModelFiles::Dir(dir) => dir.join(name).is_file(),
            ModelFiles::Memory { files, .. } => files.iter().any(|(n, _)| *n == name),
        }
    }

    /// The bytes of `name`; a missing file is reported with `what` it should hold.
    pub(crate) fn bytes(&self, name: &str, what: &str) -> Result<Cow<'a, [u8]>, ModelError> {
        let missing = || ModelError::MissingFile {
            path: self.path(name),
            what: what.to_owned(),
        };
        match self {
            ModelFiles::Dir(dir) => {
                let path = dir.join(name);
                if !path.exists() {
                    return Err(missing());
                }
                std::fs::read(&path)
                    .map(Cow::Owned)
                    .map_err(|e| ModelError::io(&path, e))
            }
            ModelFiles::Memory { files, .. } => files
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, bytes)| Cow::Borrowed(*bytes))
                .ok_or_else(missing),
        }
    }

    /// The text of `name` (UTF-8); a missing file is reported with `what` it should hold.
    pub(crate) fn text(&self, name: &str, what: &str) -> Result<Cow<'a, str>, ModelError> {
        let not_utf8 = |e: std::str::Utf8Error| {
            ModelError::invalid(self.path(name), format!("not UTF-8 text: {e}"))
        };
        Ok(match self.bytes(name, what)? {
            Cow::Borrowed(b) => Cow::Borrowed(std::str::from_utf8(b).map_err(not_utf8)?),
            Cow::Owned(b) => {
                Cow::Owned(String::from_utf8(b).map_err(|e| not_utf8(e.utf8_error()))?)
            }
        })
    }
}
