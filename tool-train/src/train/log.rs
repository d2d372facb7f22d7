//! The loss curve, one JSON object per optimizer step in `train_log.jsonl`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{io_err, TrainError};

/// What one optimizer step did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepStats {
    /// Number of optimizer steps completed, this one included.
    pub step: u64,
    /// Mean cross entropy over the counted tokens of the step.
    pub loss: f64,
    /// Learning rate used.
    pub lr: f64,
    /// Global gradient norm before clipping.
    pub grad_norm: f64,
    /// Real (non-padding) tokens processed.
    pub tokens: usize,
    /// Tokens whose prediction counted in the loss.
    pub counted: usize,
    /// Wall time of the step, in seconds.
    pub seconds: f64,
    /// `tokens / seconds`.
    pub tokens_per_s: f64,
    /// Wall time of the whole run so far (across resumes), in seconds.
    pub elapsed_s: f64,
}

/// An append-only JSONL file of [`StepStats`].
#[derive(Debug)]
pub(crate) struct TrainLog {
    path: PathBuf,
}

impl TrainLog {
    /// The log in `dir`, keeping only the lines of steps up to `keep_through` (the steps a
    /// resumed run will redo are dropped, so the curve has each step once).
    pub(crate) fn open(dir: &Path, keep_through: u64) -> Result<Self, TrainError> {
        let path = dir.join("train_log.jsonl");
        if path.exists() {
            let text = std::fs::read_to_string(&path).map_err(io_err("read", &path))?;
            let kept: String = text
                .lines()
                .filter(|line| {
                    serde_json::from_str::<StepStats>(line).is_ok_and(|s| s.step <= keep_through)
                })
                .flat_map(|line| [line, "\n"])
                .collect();
            if kept.len() != text.len() {
                super::files::write_atomic(&path, kept.as_bytes())?;
            }
        }
        Ok(Self { path })
    }

    pub(crate) fn append(&self, stats: &StepStats) -> Result<(), TrainError> {
        let mut line = serde_json::to_string(stats).map_err(|source| TrainError::Json {
            path: self.path.clone(),
            source,
        })?;
        line.push('\n');
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io_err("open", &self.path))?;
        file.write_all(line.as_bytes())
            .map_err(io_err("append to", &self.path))
    }

    /// Path of the log file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}
