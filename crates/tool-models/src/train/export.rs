//! Writing the model as a Hugging Face model directory.

use std::path::Path;

use super::error::{io_err, TrainError};
use super::files::write_json;
use super::llama::Llama;

/// Writes `config.json`, `generation_config.json` and `model.safetensors` (Hugging Face
/// tensor names, f32, tied embeddings) into `dir`, creating it if needed. Tokenizer files are
/// the caller's to add.
///
/// # Errors
/// [`TrainError::Io`] naming the file that could not be written.
pub fn export_hf(model: &Llama, dir: &Path) -> Result<(), TrainError> {
    std::fs::create_dir_all(dir).map_err(io_err("create", dir))?;
    write_json(&dir.join("config.json"), &model.config().to_hf_json())?;
    write_json(
        &dir.join("generation_config.json"),
        &model.config().generation_config_json(),
    )?;
    model.save_safetensors(&dir.join("model.safetensors"))
}
