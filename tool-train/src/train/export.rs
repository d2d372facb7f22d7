//! Writing the model as a Hugging Face model directory.

use std::path::Path;

use super::error::{io_err, TrainError};
use super::files::{write_json, Precision};
use super::llama::Llama;

/// Writes `config.json`, `generation_config.json` and `model.safetensors` (Hugging Face
/// tensor names, tied embeddings, stored in `precision`) into `dir`, creating it if needed.
/// Tokenizer files are the caller's to add. `config.json` says `float32` either way: the
/// dtype the model is meant to run in, which transformers' `dtype="auto"` then loads.
///
/// # Errors
/// [`TrainError::Io`] naming the file that could not be written.
pub fn export_hf(model: &Llama, dir: &Path, precision: Precision) -> Result<(), TrainError> {
    std::fs::create_dir_all(dir).map_err(io_err("create", dir))?;
    write_json(&dir.join("config.json"), &model.config().to_hf_json())?;
    write_json(
        &dir.join("generation_config.json"),
        &model.config().generation_config_json(),
    )?;
    model.save_safetensors_as(&dir.join("model.safetensors"), precision)
}
