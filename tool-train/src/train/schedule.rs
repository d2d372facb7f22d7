//! The learning-rate schedule: linear warmup, then cosine decay to a floor.

use serde::{Deserialize, Serialize};

/// Linear warmup from near zero to `peak_lr` over `warmup_steps`, then cosine decay to
/// `min_lr` at `total_steps` (and `min_lr` after it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LrSchedule {
    /// Learning rate at the end of warmup.
    pub peak_lr: f64,
    /// Learning rate at the end of training.
    pub min_lr: f64,
    /// Number of warmup steps.
    pub warmup_steps: u64,
    /// Total number of optimizer steps.
    pub total_steps: u64,
}

impl LrSchedule {
    /// The learning rate of optimizer step `step` (0-based).
    pub fn lr_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.peak_lr * (step + 1) as f64 / self.warmup_steps as f64;
        }
        let decay_steps = self.total_steps.saturating_sub(self.warmup_steps).max(1);
        let progress = ((step - self.warmup_steps) as f64 / decay_steps as f64).min(1.0);
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
        self.min_lr + (self.peak_lr - self.min_lr) * cosine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warms_up_linearly_then_decays_to_the_floor() {
        let s = LrSchedule {
            peak_lr: 1e-3,
            min_lr: 1e-4,
            warmup_steps: 10,
            total_steps: 110,
        };
        assert!((s.lr_at(0) - 1e-4).abs() < 1e-12);
        assert!((s.lr_at(4) - 5e-4).abs() < 1e-12);
        assert!((s.lr_at(9) - 1e-3).abs() < 1e-12);
        assert!((s.lr_at(10) - 1e-3).abs() < 1e-12);
        assert!(
            (s.lr_at(60) - 5.5e-4).abs() < 1e-12,
            "halfway is the mean of peak and floor"
        );
        assert!((s.lr_at(110) - 1e-4).abs() < 1e-12);
        assert!((s.lr_at(1000) - 1e-4).abs() < 1e-12);
        let lrs: Vec<f64> = (10..=110).map(|i| s.lr_at(i)).collect();
        assert!(lrs.windows(2).all(|w| w[1] <= w[0]), "decay is monotone");
    }
}
