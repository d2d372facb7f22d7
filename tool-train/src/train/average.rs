//! The mean of several trained models' weights.
//!
//! Two models that one continues training from the other sit in the same
//! basin, and their mean is often better than either (weight averaging, as
//! in "model soups"): the bundled model is the mean of its last three
//! cycles' ends, each stronger where the others' practice was.

use std::collections::HashMap;
use std::path::Path;

use super::error::{TensorContext, TrainError};
use super::llama::Llama;

/// The parameter-wise mean of `models`, which must all have one shape.
///
/// The sum is taken in f32 in the order given; for two models stored in
/// f16 it is exact, so the mean rounds to f16 the same way anywhere.
///
/// # Errors
/// [`TrainError::Config`] when there are no models or their shapes differ.
pub fn average(models: &[&Llama]) -> Result<Llama, TrainError> {
    let (first, rest) = models
        .split_first()
        .ok_or_else(|| TrainError::Config("expected models to average, found none".into()))?;
    let config = first.config();
    if let Some(other) = rest.iter().find(|m| m.config() != config) {
        return Err(TrainError::Config(format!(
            "expected models of one shape to average, found {config:?} and {:?}",
            other.config()
        )));
    }
    let mut sums: Vec<(String, candle_core::Tensor)> = first
        .named_parameters()
        .into_iter()
        .map(|(name, var)| (name, var.as_tensor().clone()))
        .collect();
    for model in rest {
        // Same configuration, so the same names in the same order.
        for ((_, sum), (_, var)) in sums.iter_mut().zip(model.named_parameters()) {
            *sum = (&*sum + var.as_tensor()).ctx("adding a parameter")?;
        }
    }
    let scale = 1.0 / models.len() as f64;
    let mut tensors = HashMap::with_capacity(sums.len());
    for (name, sum) in sums {
        tensors.insert(name, sum.affine(scale, 0.0).ctx("scaling a parameter")?);
    }
    Llama::from_tensors(config, tensors, Path::new("<average>"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::ModelConfig;

    fn values(model: &Llama) -> Vec<Vec<f32>> {
        model
            .named_parameters()
            .into_iter()
            .map(|(_, v)| v.as_tensor().flatten_all().unwrap().to_vec1().unwrap())
            .collect()
    }

    #[test]
    fn the_mean_of_models_is_the_mean_of_each_parameter() {
        let config = ModelConfig::small(40, 64, 2);
        let a = Llama::new_seeded(&config, 1).unwrap();
        let b = Llama::new_seeded(&config, 2).unwrap();
        let c = Llama::new_seeded(&config, 3).unwrap();
        let mean = average(&[&a, &b, &c]).unwrap();
        assert_eq!(mean.config(), &config);
        let (va, vb, vc, vm) = (values(&a), values(&b), values(&c), values(&mean));
        for (((pa, pb), pc), pm) in va.iter().zip(&vb).zip(&vc).zip(&vm) {
            for (((x, y), z), m) in pa.iter().zip(pb).zip(pc).zip(pm) {
                let want = (x + y + z) / 3.0;
                assert!(
                    (m - want).abs() <= 1e-6 * want.abs().max(1.0),
                    "{m} vs {want}"
                );
            }
        }
        // One model is its own mean; the mean of a model with itself too.
        assert_eq!(values(&average(&[&a]).unwrap()), va);
        assert_eq!(values(&average(&[&a, &a]).unwrap()), va);
    }

    #[test]
    fn models_of_other_shapes_or_none_are_refused() {
        let a = Llama::new_seeded(&ModelConfig::small(40, 64, 2), 1).unwrap();
        let deeper = Llama::new_seeded(&ModelConfig::small(40, 64, 3), 1).unwrap();
        let err = average(&[&a, &deeper]).unwrap_err().to_string();
        assert!(err.contains("one shape"), "{err}");
        assert!(average(&[]).is_err());
    }
}
