//! Checkpoints: everything needed to continue training exactly where it stopped.
//!
//! A checkpoint is the directory `<run>/checkpoint/` holding `model.safetensors` (the
//! parameters, Hugging Face names), `optimizer.safetensors` (`m.<name>` and `v.<name>`, the
//! AdamW moments) and `state.json` (step, data position, both configurations). It is written
//! as `<run>/checkpoint.tmp/` and then swapped in by renames, so that a crash at any moment
//! leaves a complete checkpoint: `checkpoint/`, or `checkpoint.old/` during the swap.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::Tensor;
use serde::{Deserialize, Serialize};

use super::adamw::AdamW;
use super::config::ModelConfig;
use super::data::DataPosition;
use super::error::{io_err, TrainError};
use super::files::{read_json, read_safetensors, write_json, write_safetensors, Precision};
use super::llama::Llama;
use super::train_config::TrainConfig;

const FORMAT_VERSION: u32 = 1;

/// The small part of a checkpoint, saved as `state.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CheckpointState {
    pub format_version: u32,
    /// Optimizer steps completed.
    pub step: u64,
    /// AdamW updates made (equal to `step` unless steps were skipped).
    pub optimizer_updates: u64,
    /// Where the seeded data order stands.
    pub data: DataPosition,
    /// Number of examples of the data being trained on, when training through `run`.
    pub data_len: Option<usize>,
    /// A hash of every token, mask entry and loss weight of that data
    /// ([`fingerprint`](super::data::fingerprint)): resuming on other data
    /// of the same length is refused. Older checkpoints have none.
    #[serde(default)]
    pub data_fingerprint: Option<u64>,
    /// Real tokens processed so far.
    pub tokens_seen: u64,
    /// Wall time spent training so far, in seconds.
    pub elapsed_s: f64,
    /// The model's shape.
    pub model: ModelConfig,
    /// The training configuration.
    pub train: TrainConfig,
}

fn dir(run_dir: &Path) -> PathBuf {
    run_dir.join("checkpoint")
}

fn tmp_dir(run_dir: &Path) -> PathBuf {
    run_dir.join("checkpoint.tmp")
}

fn old_dir(run_dir: &Path) -> PathBuf {
    run_dir.join("checkpoint.old")
}

/// The complete checkpoint directory of `run_dir`, if there is one.
pub(crate) fn find(run_dir: &Path) -> Option<PathBuf> {
    [dir(run_dir), old_dir(run_dir)]
        .into_iter()
        .find(|d| d.join("state.json").is_file())
}

/// Saves a checkpoint atomically (see the module documentation).
pub(crate) fn save(
    run_dir: &Path,
    model: &Llama,
    optimizer: &AdamW,
    state: &CheckpointState,
) -> Result<(), TrainError> {
    let tmp = tmp_dir(run_dir);
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io_err("remove", &tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io_err("create", &tmp))?;
    model.save_safetensors(&tmp.join("model.safetensors"))?;
    let mut moments = Vec::new();
    for ((name, _), (m, v)) in model.named_parameters().iter().zip(optimizer.moments()) {
        moments.push((format!("m.{name}"), m.clone()));
        moments.push((format!("v.{name}"), v.clone()));
    }
    write_safetensors(&tmp.join("optimizer.safetensors"), &moments, Precision::F32)?;
    let value = serde_json::to_value(state).map_err(|source| TrainError::Json {
        path: tmp.join("state.json"),
        source,
    })?;
    write_json(&tmp.join("state.json"), &value)?;

    let current = dir(run_dir);
    let old = old_dir(run_dir);
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(io_err("remove", &old))?;
    }
    if current.exists() {
        std::fs::rename(&current, &old).map_err(io_err("rename", &current))?;
    }
    std::fs::rename(&tmp, &current).map_err(io_err("rename", &tmp))?;
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(io_err("remove", &old))?;
    }
    Ok(())
}

/// A checkpoint read back: the model, the AdamW moments in parameter order, the state.
pub(crate) struct Loaded {
    pub model: Llama,
    pub moments: Vec<(Tensor, Tensor)>,
    pub state: CheckpointState,
    /// The file the moments came from, for error messages.
    pub optimizer_path: PathBuf,
}

/// Loads the checkpoint of `run_dir`, if there is one.
pub(crate) fn load(run_dir: &Path) -> Result<Option<Loaded>, TrainError> {
    let Some(dir) = find(run_dir) else {
        return Ok(None);
    };
    let state_path = dir.join("state.json");
    let state: CheckpointState =
        serde_json::from_value(read_json(&state_path)?).map_err(|source| TrainError::Json {
            path: state_path.clone(),
            source,
        })?;
    if state.format_version != FORMAT_VERSION {
        return Err(TrainError::Checkpoint {
            path: state_path,
            message: format!(
                "expected checkpoint format version {FORMAT_VERSION}, found {}",
                state.format_version
            ),
        });
    }
    let model = Llama::load_safetensors(&state.model, &dir.join("model.safetensors"))?;
    let optimizer_path = dir.join("optimizer.safetensors");
    let mut tensors: HashMap<String, Tensor> = read_safetensors(&optimizer_path)?;
    let params = model.named_parameters();
    let mut moments = Vec::with_capacity(params.len());
    for (name, _) in &params {
        let mut take = |key: String| {
            tensors.remove(&key).ok_or_else(|| TrainError::Checkpoint {
                path: optimizer_path.clone(),
                message: format!("expected a tensor named {key}, found none"),
            })
        };
        moments.push((take(format!("m.{name}"))?, take(format!("v.{name}"))?));
    }
    Ok(Some(Loaded {
        model,
        moments,
        state,
        optimizer_path,
    }))
}

/// A fresh state for step 0.
pub(crate) fn initial_state(model: &ModelConfig, train: &TrainConfig) -> CheckpointState {
    CheckpointState {
        format_version: FORMAT_VERSION,
        step: 0,
        optimizer_updates: 0,
        data: DataPosition::default(),
        data_len: None,
        data_fingerprint: None,
        tokens_seen: 0,
        elapsed_s: 0.0,
        model: model.clone(),
        train: train.clone(),
    }
}
