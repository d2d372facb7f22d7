//! Seeded, reproducible initial values for the weights.
//!
//! candle's own `randn` on the CPU draws from a thread-local generator that cannot be seeded
//! reliably, so the values are drawn here with `rand`'s `StdRng` and turned into tensors.
//! `StdRng` is only stable within a `rand` release: the same seed gives the same model as long
//! as the `rand` version does not change.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A seeded source of normally distributed values.
pub(crate) struct NormalSource {
    rng: StdRng,
    spare: Option<f64>,
}

impl NormalSource {
    /// A source whose values depend only on `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            rng: StdRng::seed_from_u64(seed),
            spare: None,
        }
    }

    /// One draw from N(0, 1), by the Box-Muller transform (both outputs are used).
    fn standard(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        // 1 - u lies in (0, 1], so the logarithm is finite.
        let u1: f64 = 1.0 - self.rng.random::<f64>();
        let u2: f64 = self.rng.random::<f64>();
        let r = (-2.0 * u1.ln()).sqrt();
        let angle = std::f64::consts::TAU * u2;
        self.spare = Some(r * angle.sin());
        r * angle.cos()
    }

    /// `n` draws from N(0, std²).
    pub(crate) fn normal(&mut self, n: usize, std: f64) -> Vec<f32> {
        (0..n).map(|_| (self.standard() * std) as f32).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_values_and_roughly_normal() {
        let a = NormalSource::new(7).normal(20_000, 0.02);
        let b = NormalSource::new(7).normal(20_000, 0.02);
        assert_eq!(a, b);
        let c = NormalSource::new(8).normal(20_000, 0.02);
        assert_ne!(a, c);
        let n = a.len() as f64;
        let mean = a.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = a.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        assert!(mean.abs() < 0.001, "mean {mean}");
        assert!((var.sqrt() - 0.02).abs() < 0.001, "std {}", var.sqrt());
    }
}
