//! The readers of the architectures whose settings candle has no config
//! for and the project's decoder alone runs (SmolLM3's rotation, Granite's
//! multipliers, Granite 4's layers and Mamba-2, LFM2), each with the
//! defaults of transformers' config class and every error naming its key.

use super::ModelError;
use serde_json::{Map, Value};
use std::path::Path;

/// A Mamba-2 layer's sizes, as Granite 4's config gives them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mamba {
    pub heads: usize,
    pub head_dim: usize,
    pub state: usize,
    pub groups: usize,
    /// Positions the convolution sees, its own included.
    pub kernel: usize,
    pub conv_bias: bool,
}

/// LFM2's hyperparameters, as transformers reads them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lfm2 {
    pub hidden: usize,
    /// The MLP's width, after LFM2's adjustment of `intermediate_size`.
    pub intermediate: usize,
    pub heads: usize,
    pub kv_heads: usize,
    /// `head_dim` where the config sets it (transformers' attention then
    /// uses it), else `hidden / heads`.
    pub head_dim: Option<usize>,
    pub layers: usize,
    pub eps: f64,
    pub context: usize,
    /// Positions each convolution sees, its own included (`conv_L_cache`).
    pub conv_kernel: usize,
    /// Biases on the convolutions and their projections.
    pub conv_bias: bool,
    /// Whether each layer attends (the others convolve).
    pub attention: Vec<bool>,
}

/// Granite's multipliers, as its `config.json` names them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GraniteScales {
    /// Of the token embeddings.
    pub embedding: f32,
    /// Of the attention scores (in place of 1/√head size).
    pub attention: f32,
    /// Of each layer's attention and MLP outputs before they are added back.
    pub residual: f32,
    /// What the logits are divided by.
    pub logits: f32,
}

/// Settings of a config read with the defaults of transformers' config
/// class, each error naming its key.
struct Settings<'a> {
    cfg: &'a Map<String, Value>,
    path: &'a Path,
}

impl Settings<'_> {
    /// An error about the config, for `reason` (what was expected and
    /// what was found).
    fn refused(&self, reason: String) -> ModelError {
        ModelError::invalid(self.path, reason)
    }

    fn invalid(&self, key: &str, expected: &str, found: &Value) -> ModelError {
        ModelError::invalid(
            self.path,
            format!("expected \"{key}\" to be {expected}, found {found}"),
        )
    }

    fn number(&self, key: &str, default: f64) -> Result<f64, ModelError> {
        match self.cfg.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v.as_f64().ok_or_else(|| self.invalid(key, "a number", v)),
        }
    }

    fn count(&self, key: &str, default: usize) -> Result<usize, ModelError> {
        match self.cfg.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => (v.as_u64().filter(|&n| n > 0))
                .map(|n| n as usize)
                .ok_or_else(|| self.invalid(key, "a positive integer", v)),
        }
    }

    fn flag(&self, key: &str, default: bool) -> Result<bool, ModelError> {
        match self.cfg.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(self.invalid(key, "a boolean", v)),
        }
    }
}

/// LFM2's settings, with the defaults of transformers' `Lfm2Config`.
pub(super) fn lfm2_config(cfg: &Map<String, Value>, path: &Path) -> Result<Lfm2, ModelError> {
    let read = Settings { cfg, path };
    let layers = read.count("num_hidden_layers", 32)?;
    let heads = read.count("num_attention_heads", 32)?;
    // `Lfm2MLP`'s width: two thirds of `intermediate_size`, times the
    // multiplier, rounded up to a multiple of `block_multiple_of`.
    let mut intermediate = read.count("intermediate_size", 12288)?;
    if read.flag("block_auto_adjust_ff_dim", true)? {
        intermediate = 2 * intermediate / 3;
        if cfg
            .get("block_ffn_dim_multiplier")
            .is_none_or(|v| !v.is_null())
        {
            let multiplier = read.number("block_ffn_dim_multiplier", 1.0)?;
            let multiple = read.count("block_multiple_of", 256)?;
            intermediate = (multiplier * intermediate as f64) as usize;
            intermediate = intermediate.div_ceil(multiple) * multiple;
        }
    }
    let attention = match (cfg.get("layer_types"), cfg.get("full_attn_idxs")) {
        (Some(Value::Array(types)), _) => (types.iter())
            .map(|t| match t.as_str() {
                Some("full_attention") => Ok(true),
                Some("conv") => Ok(false),
                _ => Err(read.refused(format!(
                    "expected \"layer_types\" to hold \"full_attention\" or \"conv\", found {t}"
                ))),
            })
            .collect::<Result<Vec<bool>, _>>()?,
        (None | Some(Value::Null), Some(Value::Array(indices))) => {
            let indices: Vec<u64> = indices.iter().filter_map(Value::as_u64).collect();
            (0..layers as u64).map(|i| indices.contains(&i)).collect()
        }
        (None | Some(Value::Null), None | Some(Value::Null)) => vec![true; layers],
        (types, indices) => {
            return Err(read.refused(format!(
                "expected \"layer_types\" or \"full_attn_idxs\" to be a list, found {} and {}",
                types.unwrap_or(&Value::Null),
                indices.unwrap_or(&Value::Null)
            )))
        }
    };
    if attention.len() != layers {
        return Err(read.refused(format!(
            "expected a layer type for each of the {layers} layers, found {}",
            attention.len()
        )));
    }
    Ok(Lfm2 {
        hidden: read.count("hidden_size", 2560)?,
        intermediate,
        heads,
        kv_heads: read.count("num_key_value_heads", 8)?,
        head_dim: match cfg.get("head_dim") {
            None | Some(Value::Null) => None,
            Some(_) => Some(read.count("head_dim", 1)?),
        },
        layers,
        eps: read.number("norm_eps", 1e-5)?,
        context: read.count("max_position_embeddings", 128_000)?,
        conv_kernel: read.count("conv_L_cache", 3)?,
        conv_bias: read.flag("conv_bias", false)?,
        attention,
    })
}

/// Which of SmolLM3's layers rotate: `no_rope_layers` (1 where a layer
/// does), else every layer but each `no_rope_layer_interval`th (4 by
/// default), as transformers reads them.
pub(super) fn smollm3_rotary(
    cfg: &Map<String, Value>,
    layers: usize,
    path: &Path,
) -> Result<Vec<bool>, ModelError> {
    let invalid = |reason: String| ModelError::invalid(path, reason);
    match cfg.get("no_rope_layers").filter(|v| !v.is_null()) {
        Some(Value::Array(flags)) => {
            if flags.len() != layers {
                return Err(invalid(format!(
                    "expected \"no_rope_layers\" to have one flag per layer ({layers}), found {}",
                    flags.len()
                )));
            }
            flags
                .iter()
                .map(|f| match f.as_u64() {
                    Some(0) => Ok(false),
                    Some(1) => Ok(true),
                    _ => Err(invalid(format!(
                        "expected \"no_rope_layers\" to hold 0 or 1, found {f}"
                    ))),
                })
                .collect()
        }
        Some(other) => Err(invalid(format!(
            "expected \"no_rope_layers\" to be a list, found {other}"
        ))),
        None => {
            let every = match cfg.get("no_rope_layer_interval").filter(|v| !v.is_null()) {
                None => 4,
                Some(v) => v.as_u64().filter(|&n| n > 0).ok_or_else(|| {
                    invalid(format!(
                        "expected \"no_rope_layer_interval\" to be a positive integer, found {v}"
                    ))
                })? as usize,
            };
            Ok((0..layers).map(|l| (l + 1) % every != 0).collect())
        }
    }
}

/// What the decoder computes of a Granite 4 config: no experts (the MoE
/// variants are refused); returns whether the attention layers rotate, and
/// which layers attend (the others are Mamba-2).
pub(super) fn granite_hybrid_checks(
    cfg: &Map<String, Value>,
    layers: usize,
    path: &Path,
) -> Result<(bool, Vec<bool>), ModelError> {
    let invalid = |reason: String| ModelError::invalid(path, reason);
    // transformers' default is 8 experts.
    match cfg.get("num_local_experts") {
        Some(v) if v.as_u64() == Some(0) => {}
        found => {
            return Err(invalid(format!(
                "\"num_local_experts\" is {}: a Granite 4 mixture of experts, which this crate does not compute (granite-4.0-350m and -1b, with 0, run)",
                found.map_or("unset (transformers' default, 8)".to_owned(), Value::to_string)
            )))
        }
    }
    // transformers' default is every layer Mamba-2; older configs name the
    // list `layers_block_type` and the kinds "attention" and "mamba".
    let types = cfg
        .get("layer_types")
        .filter(|v| !v.is_null())
        .or_else(|| cfg.get("layers_block_type").filter(|v| !v.is_null()));
    let key = if cfg.get("layer_types").is_some_and(|v| !v.is_null()) {
        "layer_types"
    } else {
        "layers_block_type"
    };
    let attention = match types {
        Some(Value::Array(types)) if types.len() == layers => (types.iter())
            .map(|t| match t.as_str() {
                Some("attention" | "full_attention") => Ok(true),
                Some("mamba" | "linear_attention") => Ok(false),
                _ => Err(invalid(format!(
                    "expected \"{key}\" to hold \"attention\" or \"mamba\" (\"full_attention\" or \"linear_attention\"), found {t}"
                ))),
            })
            .collect::<Result<Vec<bool>, _>>()?,
        None => vec![false; layers],
        Some(found) => {
            return Err(invalid(format!(
                "expected \"{key}\" to list each of the {layers} layers' kind, found {found}"
            )))
        }
    };
    let rope = match cfg.get("position_embedding_type") {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) if s == "rope" => true,
        // granite-4.0-h-* write "nope".
        Some(Value::String(s)) if s == "nope" => false,
        Some(other) => {
            return Err(invalid(format!(
            "expected \"position_embedding_type\" to be \"rope\", \"nope\" or null, found {other}"
        )))
        }
    };
    Ok((rope, attention))
}

/// Granite 4's Mamba-2 sizes, with the defaults of transformers'
/// `GraniteMoeHybridConfig`; settings the decoder does not compute
/// (projection biases, a time step limit) are refused by name.
pub(super) fn granite_mamba(
    cfg: &Map<String, Value>,
    hidden: usize,
    path: &Path,
) -> Result<Mamba, ModelError> {
    let read = Settings { cfg, path };
    let heads = read.count("mamba_n_heads", 128)?;
    let expand = read.count("mamba_expand", 2)?;
    let inner = expand * hidden;
    let head_dim = match cfg.get("mamba_d_head") {
        None | Some(Value::Null) => inner / heads,
        Some(Value::String(s)) if s == "auto" => inner / heads,
        Some(_) => read.count("mamba_d_head", 1)?,
    };
    let groups = read.count("mamba_n_groups", 1)?;
    if head_dim * heads != inner || !heads.is_multiple_of(groups) || !inner.is_multiple_of(groups) {
        return Err(read.refused(format!(
            "expected {heads} Mamba heads of {head_dim} values to make mamba_expand × hidden_size = {inner} values, in groups dividing them ({groups})"
        )));
    }
    if read.flag("mamba_proj_bias", false)? {
        return Err(read.refused(
            "\"mamba_proj_bias\" is true: biases on Mamba-2's projections are not computed by this crate".into(),
        ));
    }
    // transformers' default, (0, inf), as Python writes it.
    let unlimited = |v: &Value| v.as_f64() == Some(0.0);
    match cfg.get("time_step_limit") {
        None | Some(Value::Null) => {}
        Some(Value::Array(limits))
            if limits.len() == 2 && unlimited(&limits[0]) && limits[1] == "Infinity" => {}
        Some(other) => {
            return Err(read.refused(format!(
                "\"time_step_limit\" is {other}: this crate computes Mamba-2's time steps unlimited, as transformers' default (0, inf)"
            )))
        }
    }
    Ok(Mamba {
        heads,
        head_dim,
        state: read.count("mamba_d_state", 256)?,
        groups,
        kernel: read.count("mamba_d_conv", 4)?,
        conv_bias: read.flag("mamba_conv_bias", true)?,
    })
}

/// Granite's multipliers, each 1 where the config leaves it out (as
/// transformers' `GraniteConfig` defaults them).
pub(super) fn granite_scales(
    cfg: &Map<String, Value>,
    path: &Path,
) -> Result<GraniteScales, ModelError> {
    let scale = |key: &str| -> Result<f32, ModelError> {
        match cfg.get(key).filter(|v| !v.is_null()) {
            None => Ok(1.0),
            Some(v) => v
                .as_f64()
                .filter(|x| x.is_finite() && *x != 0.0)
                .map(|x| x as f32)
                .ok_or_else(|| {
                    ModelError::invalid(
                        path,
                        format!("expected \"{key}\" to be a non-zero number, found {v}"),
                    )
                }),
        }
    };
    Ok(GraniteScales {
        embedding: scale("embedding_multiplier")?,
        attention: scale("attention_multiplier")?,
        residual: scale("residual_multiplier")?,
        logits: scale("logits_scaling")?,
    })
}
