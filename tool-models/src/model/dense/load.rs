//! Building a [`Dense`] model from a Hugging Face model's weights.

use super::attention::Heads;
use super::matrix::Matrix;
use super::{Attention, Dense, DenseConfig, Layer, LocalAttention, Mamba2, Mixer, MAX_HALF_HEAD};
use crate::model::config::{ArchConfig, HfConfig, Mamba};
use crate::model::error::candle_message;
use crate::model::rope::Rotary;
use crate::model::weights::Weights;
use crate::model::ModelError;
use candle_core::DType;
use candle_nn::Activation;
use std::path::Path;

impl Dense {
    /// The model, when its architecture and settings are ones this decoder
    /// runs (Llama; Qwen 2 without a sliding window); `Ok(None)` otherwise.
    pub(crate) fn from_hf(
        config: &HfConfig,
        weights: &Weights,
    ) -> Result<Option<Dense>, ModelError> {
        let keep_half = keeps_half(weights.parameter_count(false));
        Dense::from_hf_with(config, weights, keep_half)
    }

    /// [`from_hf`](Self::from_hf), keeping f16 and bf16 matrices as stored
    /// or not.
    pub(crate) fn from_hf_with(
        config: &HfConfig,
        weights: &Weights,
        keep_half: bool,
    ) -> Result<Option<Dense>, ModelError> {
        if let ArchConfig::Lfm2(lfm2) = &config.arch {
            return Dense::from_lfm2(config, lfm2, weights, keep_half).map(Some);
        }
        let (llama, rotary, granite) = match &config.arch {
            ArchConfig::Llama(c) => (Some(c), None, None),
            ArchConfig::SmolLM3 { llama, rotary } => (Some(llama), Some(rotary), None),
            ArchConfig::Granite { llama, scales } => (Some(llama), None, Some(scales)),
            ArchConfig::GraniteHybrid { llama, scales, .. } => (Some(llama), None, Some(scales)),
            _ => (None, None, None),
        };
        // candle's configs name the sizes alike.
        macro_rules! shape {
            ($c:expr, $qkv_bias:expr, $head_dim:expr) => {
                Shape {
                    hidden: $c.hidden_size,
                    intermediate: $c.intermediate_size,
                    heads: $c.num_attention_heads,
                    kv_heads: $c.num_key_value_heads,
                    layers: $c.num_hidden_layers,
                    eps: $c.rms_norm_eps,
                    qkv_bias: $qkv_bias,
                    head_dim: $head_dim,
                }
            };
        }
        let silu = |act: &Activation| matches!(act, Activation::Silu);
        // Each architecture's tensor layout: Llama's, Qwen 2's biases,
        // Qwen 3's per-head norms, Phi-3's fused matrices. candle's model
        // runs a Qwen 2 with a sliding window (applied to every layer, see
        // config.rs) or another activation than SiLU; the config refuses
        // those of Qwen 3 and Phi-3.
        let (layout, shape) = match (&config.arch, llama) {
            (ArchConfig::GraniteHybrid { llama: c, .. }, _) => {
                (Layout::GraniteHybrid, shape!(c, false, None))
            }
            (_, Some(c)) => (Layout::Llama, shape!(c, false, None)),
            (ArchConfig::Qwen2(c), _) if !c.use_sliding_window && silu(&c.hidden_act) => {
                (Layout::Llama, shape!(c, true, None))
            }
            (ArchConfig::Qwen3(c), _) if !c.use_sliding_window && silu(&c.hidden_act) => {
                (Layout::Qwen3, shape!(c, c.attention_bias, Some(c.head_dim)))
            }
            (ArchConfig::Phi3(c), _) if silu(&c.hidden_act) => {
                (Layout::Phi3, shape!(c, false, None))
            }
            _ => return Ok(None),
        };
        let heads = shape.heads(&weights.path)?;
        let (h, i) = (shape.hidden, shape.intermediate);
        let (qw, kw) = (heads.query_width(), heads.kv_width());
        let rope = config
            .rope
            .full
            .rotary(heads.dim)
            .map_err(|reason| ModelError::invalid(&weights.path, reason))?;
        let mut cfg = shape.config(
            heads,
            config.vocab_size,
            rope.clone(),
            config.context_length,
        );
        if let Some(window) = config.sliding_window.filter(|w| *w < config.context_length) {
            // One window for every layer (Phi-3), at the layers' own rotation.
            cfg.local = Some(LocalAttention {
                window,
                rotary: rope,
            });
        }
        if let Some(scales) = granite {
            cfg.embed_scale = scales.embedding;
            cfg.attention_scale = scales.attention;
            cfg.residual_scale = scales.residual;
            cfg.logit_scale = scales.logits;
        }
        let read = |name: &str, shape: &[usize]| read(weights, name, shape);
        let matrix = |name: &str, shape: &[usize]| read_matrix(weights, name, shape, keep_half);
        // Granite 4 without `position_embedding_type: "rope"` rotates nothing.
        let rotates = !matches!(config.arch, ArchConfig::GraniteHybrid { rope: false, .. });
        let mut layers = Vec::new();
        for layer in 0..shape.layers {
            let p = format!("model.layers.{layer}");
            if let ArchConfig::GraniteHybrid {
                attention, mamba, ..
            } = &config.arch
            {
                if !attention[layer] {
                    layers.push(Layer {
                        attn_norm: read(&format!("{p}.input_layernorm.weight"), &[h])?,
                        mixer: Mixer::Mamba(read_mamba(
                            weights, &p, mamba, h, shape.eps, keep_half,
                        )?),
                        mlp_norm: read(&format!("{p}.post_attention_layernorm.weight"), &[h])?,
                        gate_up: matrix(
                            &format!("{p}.shared_mlp.input_linear.weight"),
                            &[2 * i, h],
                        )?,
                        down: matrix(&format!("{p}.shared_mlp.output_linear.weight"), &[h, i])?,
                        post_norms: None,
                    });
                    continue;
                }
            }
            let qkv = if layout == Layout::Phi3 {
                matrix(&format!("{p}.self_attn.qkv_proj.weight"), &[qw + 2 * kw, h])?
            } else {
                Matrix::stack(vec![
                    matrix(&format!("{p}.self_attn.q_proj.weight"), &[qw, h])?,
                    matrix(&format!("{p}.self_attn.k_proj.weight"), &[kw, h])?,
                    matrix(&format!("{p}.self_attn.v_proj.weight"), &[kw, h])?,
                ])
            };
            let qkv_bias = if shape.qkv_bias {
                let mut b = read(&format!("{p}.self_attn.q_proj.bias"), &[qw])?;
                b.extend(read(&format!("{p}.self_attn.k_proj.bias"), &[kw])?);
                b.extend(read(&format!("{p}.self_attn.v_proj.bias"), &[kw])?);
                Some(b)
            } else {
                None
            };
            let gate_up = if layout == Layout::Phi3 {
                matrix(&format!("{p}.mlp.gate_up_proj.weight"), &[2 * i, h])?
            } else if layout == Layout::GraniteHybrid {
                matrix(&format!("{p}.shared_mlp.input_linear.weight"), &[2 * i, h])?
            } else {
                Matrix::stack(vec![
                    matrix(&format!("{p}.mlp.gate_proj.weight"), &[i, h])?,
                    matrix(&format!("{p}.mlp.up_proj.weight"), &[i, h])?,
                ])
            };
            let qk_norms = if layout == Layout::Qwen3 {
                Some((
                    read(&format!("{p}.self_attn.q_norm.weight"), &[heads.dim])?,
                    read(&format!("{p}.self_attn.k_norm.weight"), &[heads.dim])?,
                ))
            } else {
                None
            };
            layers.push(Layer {
                attn_norm: read(&format!("{p}.input_layernorm.weight"), &[h])?,
                mixer: Mixer::Attention(Attention {
                    qkv,
                    qkv_bias,
                    o: matrix(&format!("{p}.self_attn.o_proj.weight"), &[h, qw])?,
                    qk_norms,
                    sliding: cfg.local.is_some(),
                    rotary: rotary.is_none_or(|r| r[layer]) && rotates,
                }),
                mlp_norm: read(&format!("{p}.post_attention_layernorm.weight"), &[h])?,
                gate_up,
                down: if layout == Layout::GraniteHybrid {
                    matrix(&format!("{p}.shared_mlp.output_linear.weight"), &[h, i])?
                } else {
                    matrix(&format!("{p}.mlp.down_proj.weight"), &[h, i])?
                },
                post_norms: None,
            });
        }
        let (embed, lm_head) = embedding_and_head(weights, config, h, keep_half)?;
        Ok(Some(Dense {
            norm: read("model.norm.weight", &[h])?,
            cfg,
            embed,
            layers,
            lm_head,
        }))
    }
}

/// The embedding, and the output projection unless it is the embedding
/// (a tied head is the embedding tensor itself, see `tie_lm_head`).
pub(super) fn embedding_and_head(
    weights: &Weights,
    config: &HfConfig,
    hidden: usize,
    keep_half: bool,
) -> Result<(Matrix, Option<Matrix>), ModelError> {
    let shape = [config.vocab_size, hidden];
    let embed = read_matrix(weights, "model.embed_tokens.weight", &shape, keep_half)?;
    let head = if config.tie_word_embeddings {
        None
    } else {
        Some(read_matrix(weights, "lm_head.weight", &shape, keep_half)?)
    };
    Ok((embed, head))
}

/// Granite 4's Mamba-2 layer under `{p}.mamba`.
fn read_mamba(
    weights: &Weights,
    p: &str,
    config: &Mamba,
    hidden: usize,
    eps: f64,
    keep_half: bool,
) -> Result<Mamba2, ModelError> {
    let read = |name: &str, shape: &[usize]| read(weights, &format!("{p}.mamba.{name}"), shape);
    let matrix = |name: &str, shape: &[usize]| {
        read_matrix(weights, &format!("{p}.mamba.{name}"), shape, keep_half)
    };
    let inner = config.heads * config.head_dim;
    let width = inner + 2 * config.groups * config.state;
    let heads = config.heads;
    Ok(Mamba2 {
        in_proj: matrix("in_proj.weight", &[inner + width + heads, hidden])?,
        conv_taps: read("conv1d.weight", &[width, 1, config.kernel])?,
        conv_bias: if config.conv_bias {
            Some(read("conv1d.bias", &[width])?)
        } else {
            None
        },
        dt_bias: read("dt_bias", &[heads])?,
        a: read("A_log", &[heads])?
            .into_iter()
            .map(|a| -a.exp())
            .collect(),
        d: read("D", &[heads])?,
        norm: read("norm.weight", &[inner])?,
        out_proj: matrix("out_proj.weight", &[hidden, inner])?,
        heads,
        head_dim: config.head_dim,
        state: config.state,
        groups: config.groups,
        kernel: config.kernel,
        eps: eps as f32,
    })
}

/// How a Hugging Face checkpoint names and lays out a layer's tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Separate q, k, v, gate and up projections.
    Llama,
    /// Llama's, with an RMS norm of each query and key head.
    Qwen3,
    /// q, k and v in one `qkv_proj`; gate and up in one `gate_up_proj`.
    Phi3,
    /// Llama's attention; the MLP's gate and up in one
    /// `shared_mlp.input_linear`, its down projection `output_linear`.
    GraniteHybrid,
}

/// What differs between the architectures this decoder runs.
pub(super) struct Shape {
    pub(super) hidden: usize,
    pub(super) intermediate: usize,
    pub(super) heads: usize,
    pub(super) kv_heads: usize,
    pub(super) layers: usize,
    pub(super) eps: f64,
    /// Qwen 2 adds biases to the q, k and v projections.
    pub(super) qkv_bias: bool,
    /// Heads of their own width (Gemma); otherwise `hidden / heads`.
    pub(super) head_dim: Option<usize>,
}

impl Shape {
    /// The Llama-shaped configuration of this shape (SiLU, unscaled
    /// embeddings, global attention everywhere) with these heads, rotation
    /// and limits.
    pub(super) fn config(
        &self,
        heads: Heads,
        vocab: usize,
        rotary: Rotary,
        context: usize,
    ) -> DenseConfig {
        DenseConfig {
            hidden: self.hidden,
            intermediate: self.intermediate,
            heads,
            vocab,
            eps: self.eps as f32,
            rotary,
            context,
            embed_scale: 1.0,
            attention_scale: 1.0 / (heads.dim as f32).sqrt(),
            residual_scale: 1.0,
            logit_scale: 1.0,
            activation: super::Activation::Silu,
            local: None,
        }
    }

    /// The attention heads, after checking they are ones the decoder runs.
    pub(super) fn heads(&self, path: &Path) -> Result<Heads, ModelError> {
        let heads = Heads {
            query: self.heads,
            kv: self.kv_heads,
            dim: self.head_dim.unwrap_or(self.hidden / self.heads.max(1)),
        };
        if heads.query == 0
            || heads.kv == 0
            || !heads.query.is_multiple_of(heads.kv)
            || !heads.dim.is_multiple_of(2)
        {
            return Err(ModelError::invalid(
                path,
                format!(
                    "expected key/value heads to divide {} attention heads into even head sizes, found {} key/value heads of {} values",
                    heads.query, heads.kv, heads.dim
                ),
            ));
        }
        if heads.dim > 2 * MAX_HALF_HEAD {
            return Err(ModelError::invalid(
                path,
                format!(
                    "expected heads of at most {} values, found {}",
                    2 * MAX_HALF_HEAD,
                    heads.dim
                ),
            ));
        }
        Ok(heads)
    }
}

/// A tensor's values in f32, after checking its shape.
pub(super) fn read(weights: &Weights, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
    weights.require(name, shape)?;
    let tensor = &weights.tensors[name];
    tensor
        .to_dtype(DType::F32)
        .and_then(|t| t.flatten_all())
        .and_then(|t| t.to_vec1::<f32>())
        .map_err(|e| {
            ModelError::invalid(
                &weights.path,
                format!("cannot read tensor {name}: {}", candle_message(&e)),
            )
        })
}

/// Past this many bytes of f32 weights, f16 and bf16 matrices stay as
/// stored: a decode step streams the weights from memory, and half as many
/// bytes take half the time. Smaller models sit in the CPU's caches, where
/// f32 is read faster than halves are widened.
const KEEP_HALF_ABOVE: u64 = 256 << 20;

/// Whether a model of `parameters` keeps its f16 and bf16 matrices as stored.
pub(super) fn keeps_half(parameters: u64) -> bool {
    parameters * 4 > KEEP_HALF_ABOVE
}

/// How a GGUF file's matrices are kept in memory.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Storage {
    /// f16 and bf16 matrices stay as stored (see [`keeps_half`]).
    pub(crate) keep_half: bool,
    /// Quantized matrices are widened to f32 rather than multiplied as
    /// stored.
    pub(crate) dequantize: bool,
}

impl Storage {
    /// The storage of a model of `parameters`, widened or not.
    pub(crate) fn new(parameters: u64, dequantize: bool) -> Storage {
        Storage {
            keep_half: keeps_half(parameters),
            dequantize,
        }
    }
}

/// A weight matrix, after checking its shape: f16 and bf16 as stored when
/// `keep_half`, anything else widened to f32.
pub(super) fn read_matrix(
    weights: &Weights,
    name: &str,
    shape: &[usize],
    keep_half: bool,
) -> Result<Matrix, ModelError> {
    weights.require(name, shape)?;
    let tensor = &weights.tensors[name];
    let cols = shape.get(1).copied().unwrap_or(1);
    let fail = |e: candle_core::Error| {
        ModelError::invalid(
            &weights.path,
            format!("cannot read tensor {name}: {}", candle_message(&e)),
        )
    };
    let flat = tensor.flatten_all().map_err(fail)?;
    Ok(match tensor.dtype() {
        DType::F32 => Matrix::f32(read(weights, name, shape)?, cols),
        // Small models: widened once, for the f32 kernels' speed.
        dtype if !keep_half => Matrix::widened(
            read(weights, name, shape)?,
            cols,
            format!("{dtype:?}").to_lowercase(),
        ),
        DType::F16 => {
            let values = flat.to_vec1::<half::f16>().map_err(fail)?;
            Matrix::f16(values.into_iter().map(half::f16::to_bits).collect(), cols)
        }
        DType::BF16 => {
            let values = flat.to_vec1::<half::bf16>().map_err(fail)?;
            Matrix::bf16(values.into_iter().map(half::bf16::to_bits).collect(), cols)
        }
        _ => Matrix::f32(read(weights, name, shape)?, cols),
    })
}
