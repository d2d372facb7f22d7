//! How to train: batch sizes, sequence length, the schedule, the optimizer, clipping and
//! checkpoint spacing, checked before a run starts.

use serde::{Deserialize, Serialize};

use super::adamw::AdamWConfig;
use super::error::TrainError;
use super::schedule::LrSchedule;

/// How to train.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// Seeds the initialisation and the data order.
    pub seed: u64,
    /// Sequences per micro-batch (one forward/backward pass).
    pub batch_size: usize,
    /// Micro-batches per optimizer step; the step's loss is the mean over all their
    /// counted tokens.
    pub grad_accum: usize,
    /// Sequences are truncated to this many tokens.
    pub max_seq_len: usize,
    /// Learning rate over the steps; `total_steps` is where [`Trainer::run`](super::Trainer::run) stops.
    pub schedule: LrSchedule,
    /// Optimizer hyper-parameters.
    pub adamw: AdamWConfig,
    /// Gradients are rescaled so that their global norm is at most this (0 disables).
    pub grad_clip: f64,
    /// [`Trainer::run`](super::Trainer::run) saves a checkpoint every this many steps (and at the end).
    pub checkpoint_every: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            batch_size: 4,
            grad_accum: 1,
            max_seq_len: 512,
            schedule: LrSchedule {
                peak_lr: 1e-3,
                min_lr: 1e-4,
                warmup_steps: 100,
                total_steps: 2000,
            },
            adamw: AdamWConfig::default(),
            grad_clip: 1.0,
            checkpoint_every: 100,
        }
    }
}

impl TrainConfig {
    /// Checks the values the loop relies on.
    ///
    /// # Errors
    /// [`TrainError::Config`] naming the first invalid field.
    pub fn validate(&self) -> Result<(), TrainError> {
        let bad = |msg: String| Err(TrainError::Config(msg));
        if self.batch_size == 0 || self.grad_accum == 0 {
            return bad(format!(
                "batch_size and grad_accum must be positive, found {} and {}",
                self.batch_size, self.grad_accum
            ));
        }
        if self.max_seq_len < 2 {
            return bad(format!(
                "max_seq_len must be at least 2, found {}",
                self.max_seq_len
            ));
        }
        if self.checkpoint_every == 0 {
            return bad("checkpoint_every must be positive, found 0".into());
        }
        let s = &self.schedule;
        if !(s.peak_lr > 0.0 && s.min_lr >= 0.0 && s.min_lr <= s.peak_lr) {
            return bad(format!(
                "expected 0 <= min_lr <= peak_lr and peak_lr > 0, found min_lr {} and peak_lr {}",
                s.min_lr, s.peak_lr
            ));
        }
        let a = &self.adamw;
        if !((0.0..1.0).contains(&a.beta1)
            && (0.0..1.0).contains(&a.beta2)
            && a.eps > 0.0
            && a.weight_decay >= 0.0)
        {
            return bad(format!(
                "expected betas in [0, 1), eps > 0 and weight_decay >= 0, found {a:?}"
            ));
        }
        if self.grad_clip.is_nan() || self.grad_clip < 0.0 {
            return bad(format!("grad_clip must be >= 0, found {}", self.grad_clip));
        }
        Ok(())
    }
}
