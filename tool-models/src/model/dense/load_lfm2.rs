//! Building a [`Dense`] model from an LFM2 checkpoint: short convolution
//! layers among attention layers (see [`super::conv`]).

use super::conv::{ConvBiases, ShortConv};
use super::load::{embedding_and_head, read, read_matrix, Shape};
use super::matrix::Matrix;
use super::{Attention, Dense, Layer, Mixer};
use crate::model::config::{HfConfig, Lfm2};
use crate::model::weights::Weights;
use crate::model::ModelError;

impl Dense {
    /// An LFM2 model (`Lfm2ForCausalLM`) from its weights.
    pub(super) fn from_lfm2(
        config: &HfConfig,
        lfm2: &Lfm2,
        weights: &Weights,
        keep_half: bool,
    ) -> Result<Dense, ModelError> {
        let shape = Shape {
            hidden: lfm2.hidden,
            intermediate: lfm2.intermediate,
            heads: lfm2.heads,
            kv_heads: lfm2.kv_heads,
            layers: lfm2.layers,
            eps: lfm2.eps,
            qkv_bias: false,
            head_dim: lfm2.head_dim,
        };
        let heads = shape.heads(&weights.path)?;
        let (h, i, l) = (shape.hidden, shape.intermediate, lfm2.conv_kernel);
        let (qw, kw) = (heads.query_width(), heads.kv_width());
        let rope = (config.rope.full)
            .rotary(heads.dim)
            .map_err(|reason| ModelError::invalid(&weights.path, reason))?;
        let cfg = shape.config(heads, config.vocab_size, rope, config.context_length);
        let read = |name: &str, shape: &[usize]| read(weights, name, shape);
        let matrix = |name: &str, shape: &[usize]| read_matrix(weights, name, shape, keep_half);
        let mut layers = Vec::with_capacity(shape.layers);
        for (layer, &attends) in lfm2.attention.iter().enumerate() {
            let p = format!("model.layers.{layer}");
            let mixer = if attends {
                let a = format!("{p}.self_attn");
                Mixer::Attention(Attention {
                    qkv: Matrix::stack(vec![
                        matrix(&format!("{a}.q_proj.weight"), &[qw, h])?,
                        matrix(&format!("{a}.k_proj.weight"), &[kw, h])?,
                        matrix(&format!("{a}.v_proj.weight"), &[kw, h])?,
                    ]),
                    qkv_bias: None,
                    o: matrix(&format!("{a}.out_proj.weight"), &[h, qw])?,
                    qk_norms: Some((
                        read(&format!("{a}.q_layernorm.weight"), &[heads.dim])?,
                        read(&format!("{a}.k_layernorm.weight"), &[heads.dim])?,
                    )),
                    sliding: false,
                    rotary: true,
                })
            } else {
                let c = format!("{p}.conv");
                let biases = if lfm2.conv_bias {
                    Some(ConvBiases {
                        input: read(&format!("{c}.in_proj.bias"), &[3 * h])?,
                        conv: read(&format!("{c}.conv.bias"), &[h])?,
                        output: read(&format!("{c}.out_proj.bias"), &[h])?,
                    })
                } else {
                    None
                };
                Mixer::ShortConv(ShortConv {
                    in_proj: matrix(&format!("{c}.in_proj.weight"), &[3 * h, h])?,
                    taps: read(&format!("{c}.conv.weight"), &[h, 1, l])?,
                    out: matrix(&format!("{c}.out_proj.weight"), &[h, h])?,
                    biases,
                    kernel: l,
                })
            };
            let f = format!("{p}.feed_forward");
            layers.push(Layer {
                attn_norm: read(&format!("{p}.operator_norm.weight"), &[h])?,
                mixer,
                mlp_norm: read(&format!("{p}.ffn_norm.weight"), &[h])?,
                gate_up: Matrix::stack(vec![
                    matrix(&format!("{f}.w1.weight"), &[i, h])?,
                    matrix(&format!("{f}.w3.weight"), &[i, h])?,
                ]),
                down: matrix(&format!("{f}.w2.weight"), &[h, i])?,
                post_norms: None,
            });
        }
        let (embed, lm_head) = embedding_and_head(weights, config, h, keep_half)?;
        Ok(Dense {
            // LFM2 calls its final norm the embedding norm.
            norm: read("model.embedding_norm.weight", &[h])?,
            cfg,
            embed,
            layers,
            lm_head,
        })
    }
}
