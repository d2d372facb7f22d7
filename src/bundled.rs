//! Where the bundled model lives.

use std::path::PathBuf;

/// The directory of the model the project trains and ships
/// (`models/tool-use-mini`), or `$TOOL_USE_MODEL` when set.
///
/// ```
/// let dir = tool_use::bundled::model_dir();
/// assert!(dir.ends_with("tool-use-mini") || std::env::var_os("TOOL_USE_MODEL").is_some());
/// ```
pub fn model_dir() -> PathBuf {
    match std::env::var_os("TOOL_USE_MODEL") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/models/tool-use-mini")),
    }
}
