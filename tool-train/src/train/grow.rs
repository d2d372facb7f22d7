//! Growing a trained model deeper without changing what it computes.
//!
//! A new layer is a copy of the layer before it with its two output
//! projections (attention's `o_proj`, the MLP's `down_proj`) set to zero, so
//! it adds nothing to the residual stream until training moves them: the
//! deepened model starts with exactly the logits of the one it grew from,
//! and the copied query, key and value weights give its attention a start
//! that already means something (block expansion, as in LLaMA Pro).

use std::collections::HashMap;
use std::path::Path;

use candle_core::Tensor;

use super::config::ModelConfig;
use super::error::{TensorContext, TrainError};
use super::llama::Llama;

/// The projections that write a layer's output into the residual stream.
const OUTPUTS: [&str; 2] = ["self_attn.o_proj.weight", "mlp.down_proj.weight"];

/// `model` with `layers` decoder layers, the new ones spread evenly between
/// the old and each a copy of the one before it that adds nothing yet.
/// With as many layers as `model` has, a copy of it.
///
/// # Errors
/// [`TrainError::Config`] when `layers` is fewer than `model` has.
pub fn deepen(model: &Llama, layers: usize) -> Result<Llama, TrainError> {
    let config = model.config();
    let old = config.num_hidden_layers;
    if layers < old {
        return Err(TrainError::Config(format!(
            "expected at least the model's {old} layers to grow it to, found {layers}"
        )));
    }
    let mut by_layer: Vec<Vec<(String, Tensor)>> = vec![Vec::new(); old];
    let mut tensors = HashMap::new();
    for (name, var) in model.named_parameters() {
        let tensor = var.as_tensor().copy().ctx("copying a parameter")?;
        match layer_of(&name) {
            Some((l, rest)) if l < old => by_layer[l].push((rest.to_owned(), tensor)),
            _ => {
                tensors.insert(name, tensor);
            }
        }
    }
    let mut next = 0;
    for (l, params) in by_layer.iter().enumerate() {
        for added in 0..=new_after(l, old, layers) {
            let p = format!("model.layers.{next}");
            for (rest, tensor) in params {
                let tensor = if added > 0 && OUTPUTS.contains(&rest.as_str()) {
                    tensor.zeros_like().ctx("zeroing an output projection")?
                } else {
                    tensor.clone()
                };
                tensors.insert(format!("{p}.{rest}"), tensor);
            }
            next += 1;
        }
    }
    let deeper = ModelConfig {
        num_hidden_layers: layers,
        ..config.clone()
    };
    Llama::from_tensors(&deeper, tensors, Path::new("<deepened>"))
}

/// How many new layers go after old layer `l` of `old` when growing to
/// `layers`: spread evenly, rounded to the nearest (4 → 5 puts one after
/// layer 1, 4 → 6 one after layers 0 and 2).
fn new_after(l: usize, old: usize, layers: usize) -> usize {
    let added = layers - old;
    // New layers after layers 0..=l.
    let upto = |l: usize| ((l + 1) * added + old / 2) / old;
    upto(l) - if l == 0 { 0 } else { upto(l - 1) }
}

/// The layer index and the rest of a parameter's name
/// (`model.layers.3.mlp.up_proj.weight` → 3, `mlp.up_proj.weight`).
fn layer_of(name: &str) -> Option<(usize, &str)> {
    let rest = name.strip_prefix("model.layers.")?;
    let (index, rest) = rest.split_once('.')?;
    Some((index.parse().ok()?, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_layers_spread_evenly() {
        let after = |old, layers| {
            (0..old)
                .map(|l| new_after(l, old, layers))
                .collect::<Vec<_>>()
        };
        assert_eq!(after(4, 4), [0, 0, 0, 0]);
        assert_eq!(after(4, 5), [0, 1, 0, 0]);
        assert_eq!(after(4, 6), [1, 0, 1, 0]);
        assert_eq!(after(4, 8), [1, 1, 1, 1]);
        assert_eq!(after(2, 3), [1, 0]);
        for old in 1..8 {
            for layers in old..3 * old {
                assert_eq!(after(old, layers).iter().sum::<usize>(), layers - old);
            }
        }
    }

    #[test]
    fn layer_names_split_into_index_and_rest() {
        assert_eq!(
            layer_of("model.layers.12.mlp.up_proj.weight"),
            Some((12, "mlp.up_proj.weight"))
        );
        assert_eq!(layer_of("model.norm.weight"), None);
    }
}
