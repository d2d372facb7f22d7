//! AdamW with decoupled weight decay, whose moments can be saved and restored.

use candle_core::{Tensor, Var};
use serde::{Deserialize, Serialize};

use super::error::{TensorContext, TrainError};

/// AdamW hyper-parameters (the learning rate comes from the schedule at each step).
///
/// Weight decay is decoupled (Loshchilov & Hutter) and applies to every weight matrix,
/// the tied embedding included, and not to the one-dimensional RMS norm scales.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdamWConfig {
    /// Decay of the first moment.
    pub beta1: f64,
    /// Decay of the second moment.
    pub beta2: f64,
    /// Added to the root of the second moment.
    pub eps: f64,
    /// Decoupled weight decay, multiplied by the learning rate.
    pub weight_decay: f64,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        Self {
            beta1: 0.9,
            beta2: 0.95,
            eps: 1e-8,
            weight_decay: 0.1,
        }
    }
}

/// The optimizer state: one pair of moments per parameter and the number of updates made.
#[derive(Debug)]
pub struct AdamW {
    config: AdamWConfig,
    /// (first moment, second moment) per parameter, in the order of the parameters.
    moments: Vec<(Tensor, Tensor)>,
    updates: u64,
}

impl AdamW {
    /// Zero moments for `params`.
    ///
    /// # Errors
    /// [`TrainError::Tensor`] if a buffer cannot be allocated.
    pub fn new(config: AdamWConfig, params: &[(String, Var)]) -> Result<Self, TrainError> {
        let moments = params
            .iter()
            .map(|(_, var)| {
                let zeros = var.as_tensor().zeros_like()?;
                Ok((zeros.clone(), zeros))
            })
            .collect::<candle_core::Result<Vec<_>>>()
            .ctx("allocating the optimizer moments")?;
        Ok(Self {
            config,
            moments,
            updates: 0,
        })
    }

    /// Restores a saved state: the moments in parameter order and the update count.
    ///
    /// # Errors
    /// [`TrainError::Config`] when the number or shapes of the moments do not match.
    pub(crate) fn from_state(
        config: AdamWConfig,
        params: &[(String, Var)],
        moments: Vec<(Tensor, Tensor)>,
        updates: u64,
    ) -> Result<Self, TrainError> {
        if moments.len() != params.len() {
            return Err(TrainError::Config(format!(
                "expected optimizer moments for {} parameters, found {}",
                params.len(),
                moments.len()
            )));
        }
        for ((name, var), (m, v)) in params.iter().zip(&moments) {
            if m.dims() != var.dims() || v.dims() != var.dims() {
                return Err(TrainError::Config(format!(
                    "expected optimizer moments of shape {:?} for {name}, found {:?} and {:?}",
                    var.dims(),
                    m.dims(),
                    v.dims()
                )));
            }
        }
        Ok(Self {
            config,
            moments,
            updates,
        })
    }

    /// The hyper-parameters.
    pub fn config(&self) -> &AdamWConfig {
        &self.config
    }

    /// Number of updates made so far (drives the bias correction).
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The moments, in parameter order.
    pub(crate) fn moments(&self) -> &[(Tensor, Tensor)] {
        &self.moments
    }

    /// One update of every parameter with its gradient at learning rate `lr`.
    ///
    /// # Errors
    /// [`TrainError::Config`] when the gradients do not match the parameters.
    pub fn update(
        &mut self,
        params: &[(String, Var)],
        grads: &[Tensor],
        lr: f64,
    ) -> Result<(), TrainError> {
        if params.len() != self.moments.len() || grads.len() != params.len() {
            return Err(TrainError::Config(format!(
                "expected {} parameters and gradients, found {} parameters and {} gradients",
                self.moments.len(),
                params.len(),
                grads.len()
            )));
        }
        self.updates += 1;
        let AdamWConfig {
            beta1,
            beta2,
            eps,
            weight_decay,
        } = self.config;
        let t = self.updates as i32;
        let bias1 = 1.0 - beta1.powi(t);
        let bias2 = 1.0 - beta2.powi(t);
        for (((name, var), grad), (m, v)) in params.iter().zip(grads).zip(self.moments.iter_mut()) {
            let mut step = || -> candle_core::Result<()> {
                *m = ((&*m * beta1)? + (grad * (1.0 - beta1))?)?;
                *v = ((&*v * beta2)? + (grad.sqr()? * (1.0 - beta2))?)?;
                let m_hat = (&*m * (1.0 / bias1))?;
                let denom = ((&*v * (1.0 / bias2))?.sqrt()? + eps)?;
                let update = (m_hat / denom)?;
                let decay = if var.rank() >= 2 { weight_decay } else { 0.0 };
                let param = var.as_tensor();
                let new = ((param * (1.0 - lr * decay))? - (update * lr)?)?;
                var.set(&new)
            };
            step().ctx(&format!("updating {name}"))?;
        }
        Ok(())
    }
}
