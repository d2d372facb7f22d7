//! The bundled model: a small Llama the project trains to call the demo
//! tools, embedded in the program (the `tool-use-mini` crate), so that it is
//! there wherever the program is installed.

use std::path::PathBuf;
use tool_models::model::{Model, ModelError};

/// The environment variable that points the bundled model elsewhere: a model
/// directory or `.gguf` file to load instead of the embedded one.
pub const MODEL_ENV: &str = "TOOL_USE_MODEL";

/// Loads the bundled model: `$TOOL_USE_MODEL` when set, else the embedded
/// copy (no file is read).
///
/// ```
/// let model = tool_use::bundled::load()?;
/// assert_eq!(model.architecture(), "LlamaForCausalLM");
/// # Ok::<(), tool_use::model::ModelError>(())
/// ```
pub fn load() -> Result<Model, ModelError> {
    match std::env::var_os(MODEL_ENV) {
        Some(path) => Model::load(PathBuf::from(path)),
        None => load_embedded(),
    }
}

/// Loads the embedded copy, whatever `$TOOL_USE_MODEL` says.
pub fn load_embedded() -> Result<Model, ModelError> {
    Model::from_files(
        format!("<embedded {}>", tool_use_mini::NAME),
        &tool_use_mini::FILES,
    )
}

/// The bundled model's directory in the source tree
/// (`models/tool-use-mini`), or `$TOOL_USE_MODEL` when set: for tools that
/// read or rewrite the files themselves (training, Python parity checks).
/// An installed program has no such directory; use [`load`].
///
/// ```
/// let dir = tool_use::bundled::model_dir();
/// assert!(dir.ends_with("tool-use-mini") || std::env::var_os("TOOL_USE_MODEL").is_some());
/// ```
pub fn model_dir() -> PathBuf {
    match std::env::var_os(MODEL_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(tool_use_mini::SOURCE_DIR),
    }
}
