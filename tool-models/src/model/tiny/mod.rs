//! Tiny seeded random-weight models, written as ordinary Hugging Face model
//! directories (or GGUF files) for tests and benchmarks.
//!
//! ```
//! use tool_models::model::tiny::{write_tiny_model, TinySpec};
//! use tool_models::model::Model;
//!
//! let dir = std::env::temp_dir().join(format!("tiny-doc-{}", std::process::id()));
//! write_tiny_model(&dir, &TinySpec::llama(7))?;
//! let model = Model::load(&dir)?;
//! assert_eq!(model.architecture(), "LlamaForCausalLM");
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), tool_models::model::ModelError>(())
//! ```
//!
//! The tokenizer is a byte-level BPE over the 256 bytes with a few merges and
//! the Hermes/Qwen markers (`<|im_start|>`, `<|im_end|>`, `<tool_call>`,
//! `</tool_call>`, `<tool_response>`, `</tool_response>`, `<|endoftext|>`) as
//! single tokens; the chat template ([`TINY_CHAT_TEMPLATE`]) is a compact
//! Qwen 2.5 one, which [`detect_format`](crate::parse::detect_format) reads as
//! Hermes. The same spec and seed always give byte-identical files.

mod gguf;
mod vocab;
mod weights;

pub use gguf::{write_tiny_gguf, write_tiny_gguf_as, GgufWeights};
pub use vocab::{QWEN_MARKERS, TINY_CHAT_TEMPLATE};

use super::dense::SMOLLM3_NOPE_EVERY;
use super::error::candle_message;
use super::ModelError;
use serde_json::{json, Value};
use std::path::Path;

/// Which architecture a tiny model has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TinyArch {
    /// `LlamaForCausalLM`.
    Llama,
    /// `Qwen2ForCausalLM` (biases on the q, k, v projections).
    Qwen2,
    /// `SmolLM3ForCausalLM`: a Llama whose every fourth layer has no
    /// rotary embedding (NoPE).
    SmolLM3,
    /// `GraniteForCausalLM`: a Llama with multipliers on the embeddings,
    /// the attention scores, the residual branches and the logits.
    Granite,
    /// `Phi3ForCausalLM`: a Llama whose q/k/v and gate/up projections are
    /// each one matrix.
    Phi3,
    /// `Qwen3ForCausalLM`: a Llama with an RMS norm of each query and key
    /// head, and heads twice as wide as `hidden_size / num_heads`.
    Qwen3,
    /// `LlamaForCausalLM` with Llama 3.1's rotary scaling (factor 8 past an
    /// original context of [`LLAMA3_ORIGINAL_CONTEXT`]), as Llama 3.2 has.
    Llama3,
    /// `Phi3ForCausalLM` shaped as Phi-4-mini: tied embeddings, three
    /// quarters of each head rotated, LongRoPE's short and long factors
    /// (switching past [`PHI4_ORIGINAL_CONTEXT`] positions), and a
    /// sliding window of [`PHI4_WINDOW`] positions.
    Phi4Mini,
    /// `Lfm2ForCausalLM`: gated short convolutions of
    /// [`LFM2_CONV_KERNEL`] positions, and attention layers with an RMS
    /// norm of each query and key head, where [`LFM2_ATTENTION`] says.
    Lfm2,
    /// `GraniteMoeHybridForCausalLM` as granite-4.0-350m is: attention
    /// layers only, no experts, Granite's multipliers, the MLP's gate and
    /// up stored as one `shared_mlp.input_linear`.
    GraniteHybrid,
    /// `GraniteMoeHybridForCausalLM` as granite-4.0-h-* is: Mamba-2
    /// layers around an attention layer (see [`GRANITE_H_ATTENTION`]),
    /// no rotation, no experts, Granite's multipliers.
    GraniteH,
}

/// Which layers of the tiny hybrid Granite 4 attend (the others are
/// Mamba-2).
pub const GRANITE_H_ATTENTION: [bool; 3] = [false, true, false];

/// The tiny hybrid Granite 4's Mamba-2: heads, head width, state size,
/// groups, convolution length (heads × width = 2 × hidden).
pub(crate) const GRANITE_H_MAMBA: [usize; 5] = [4, 32, 16, 2, 4];

/// Which layers of the tiny LFM2 attend (the others convolve).
pub const LFM2_ATTENTION: [bool; 3] = [false, true, false];

/// Positions each of the tiny LFM2's convolutions sees, its own included.
pub const LFM2_CONV_KERNEL: usize = 3;

/// The tiny LFM2's `block_multiple_of`: its MLP width is one.
const LFM2_MULTIPLE_OF: usize = 16;

/// How a tiny model's `config.json` writes its rotary settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConfigStyle {
    /// As configs written before transformers 5: `rope_theta`,
    /// `rope_scaling` and `partial_rotary_factor` at the top level.
    #[default]
    Legacy,
    /// As transformers 5 writes them: one `rope_parameters` object.
    RopeParameters,
}

/// The tiny Llama 3's pretraining context: its rotary scaling stretches
/// wavelengths longer than this.
pub const LLAMA3_ORIGINAL_CONTEXT: usize = 16;

/// The tiny Phi-4-mini's pretraining context: a pass reaching past it
/// rotates with LongRoPE's long factors.
pub const PHI4_ORIGINAL_CONTEXT: usize = 8;

/// The tiny Phi-4-mini's sliding window.
pub const PHI4_WINDOW: usize = 12;

/// The tiny Phi-4-mini's LongRoPE factors, short then long: one per pair
/// of the 12 rotated values of its 16-wide heads.
pub const PHI4_FACTORS: [[f64; 6]; 2] = [
    [1.0, 1.0, 1.05, 1.1, 1.3, 1.6],
    [1.0, 1.5, 2.5, 4.0, 8.0, 16.0],
];

impl TinyArch {
    /// The `general.architecture` of its GGUF files, as llama.cpp's
    /// converter names it.
    pub fn gguf_name(self) -> &'static str {
        match self {
            TinyArch::Llama => "llama",
            TinyArch::Qwen2 => "qwen2",
            TinyArch::SmolLM3 => "smollm3",
            TinyArch::Granite => "granite",
            TinyArch::Phi3 | TinyArch::Phi4Mini => "phi3",
            TinyArch::Qwen3 => "qwen3",
            TinyArch::Llama3 => "llama",
            TinyArch::Lfm2 => "lfm2",
            // llama.cpp's converter writes a Granite 4 without Mamba-2
            // layers as a Granite.
            TinyArch::GraniteHybrid => "granite",
            TinyArch::GraniteH => "granitehybrid",
        }
    }

    /// Whether llama.cpp's converter reorders its q and k rows (the Llama
    /// family; Qwen 2 and Phi-3 keep them).
    fn reorders_qk(self) -> bool {
        matches!(
            self,
            TinyArch::Llama
                | TinyArch::Llama3
                | TinyArch::SmolLM3
                | TinyArch::Granite
                | TinyArch::GraniteHybrid
        )
    }

    /// Whether q, k and v (and gate and up) are stored fused, as Phi-3's are.
    pub(crate) fn fused(self) -> bool {
        matches!(self, TinyArch::Phi3 | TinyArch::Phi4Mini)
    }
}

/// The shape and seed of a tiny model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TinySpec {
    /// The architecture.
    pub arch: TinyArch,
    /// Width of the residual stream.
    pub hidden_size: usize,
    /// Width of the MLP.
    pub intermediate_size: usize,
    /// Number of decoder layers.
    pub num_layers: usize,
    /// Attention heads (must divide `hidden_size`).
    pub num_heads: usize,
    /// Key/value heads (must divide `num_heads`).
    pub num_kv_heads: usize,
    /// Context length.
    pub max_position_embeddings: usize,
    /// Whether the output projection is the embedding matrix.
    pub tie_word_embeddings: bool,
    /// Rows of the embedding: at least [`TINY_VOCAB_SIZE`]; the rows past
    /// the tokenizer's tokens give a model of a real vocabulary's size.
    pub vocab_size: usize,
    /// Seed of the weights.
    pub seed: u64,
    /// How `config.json` writes the rotary settings.
    pub config_style: ConfigStyle,
}

impl TinySpec {
    /// A Llama with tied embeddings: hidden 64, 2 layers, 4 heads, 2 kv heads.
    pub fn llama(seed: u64) -> TinySpec {
        TinySpec {
            arch: TinyArch::Llama,
            hidden_size: 64,
            intermediate_size: 128,
            num_layers: 2,
            num_heads: 4,
            num_kv_heads: 2,
            max_position_embeddings: 1024,
            tie_word_embeddings: true,
            vocab_size: TINY_VOCAB_SIZE,
            seed,
            config_style: ConfigStyle::Legacy,
        }
    }

    /// `arch` at the tiny Llama's size: the shape the other tiny
    /// architectures start from.
    fn llama_shaped(arch: TinyArch, seed: u64) -> TinySpec {
        TinySpec {
            arch,
            ..TinySpec::llama(seed)
        }
    }

    /// A hybrid `arch` at the tiny Llama's size, with a layer for each of
    /// `pattern`'s (which says whether it attends).
    fn hybrid_shaped(arch: TinyArch, pattern: &[bool], seed: u64) -> TinySpec {
        TinySpec {
            num_layers: pattern.len(),
            ..TinySpec::llama_shaped(arch, seed)
        }
    }

    /// A Qwen2 with its own `lm_head`: hidden 64, 2 layers, 4 heads, 2 kv heads.
    pub fn qwen2(seed: u64) -> TinySpec {
        TinySpec {
            tie_word_embeddings: false,
            ..TinySpec::llama_shaped(TinyArch::Qwen2, seed)
        }
    }

    /// A SmolLM3 with tied embeddings: hidden 64, 4 layers (the fourth
    /// without rotary embedding), 4 heads, 2 kv heads.
    pub fn smollm3(seed: u64) -> TinySpec {
        TinySpec {
            num_layers: 4,
            ..TinySpec::llama_shaped(TinyArch::SmolLM3, seed)
        }
    }

    /// A Granite with tied embeddings and the multipliers of
    /// [`GRANITE_MULTIPLIERS`]: hidden 64, 2 layers, 4 heads, 2 kv heads.
    pub fn granite(seed: u64) -> TinySpec {
        TinySpec::llama_shaped(TinyArch::Granite, seed)
    }

    /// A Phi-3 with its own `lm_head`: hidden 64, 2 layers, 4 heads, 2 kv
    /// heads.
    pub fn phi3(seed: u64) -> TinySpec {
        TinySpec {
            tie_word_embeddings: false,
            ..TinySpec::llama_shaped(TinyArch::Phi3, seed)
        }
    }

    /// Qwen2.5-0.5B's shape (494M parameters: hidden 896, 24 layers, 14
    /// heads and 2 key/value heads, MLP 4864, a vocabulary of 151,936 rows,
    /// tied embeddings) with random weights: for measuring speed on a
    /// model of real size without downloading one.
    pub fn qwen2_5_0_5b(seed: u64) -> TinySpec {
        TinySpec {
            arch: TinyArch::Qwen2,
            hidden_size: 896,
            intermediate_size: 4864,
            num_layers: 24,
            num_heads: 14,
            num_kv_heads: 2,
            max_position_embeddings: 32768,
            tie_word_embeddings: true,
            vocab_size: 151_936,
            seed,
            config_style: ConfigStyle::Legacy,
        }
    }

    /// Qwen3-0.6B's shape (hidden 1024, 28 layers, 16 heads of 128
    /// values and 8 key/value heads, MLP 3072, a vocabulary of 151,936
    /// rows, tied embeddings) with random weights, for measuring speed.
    pub fn qwen3_0_6b(seed: u64) -> TinySpec {
        TinySpec {
            arch: TinyArch::Qwen3,
            hidden_size: 1024,
            intermediate_size: 3072,
            num_layers: 28,
            num_heads: 16,
            num_kv_heads: 8,
            max_position_embeddings: 40960,
            tie_word_embeddings: true,
            vocab_size: 151_936,
            seed,
            config_style: ConfigStyle::Legacy,
        }
    }

    /// A Qwen 3 with tied embeddings: hidden 64, 2 layers, 4 heads of 32
    /// values (wider than 64 / 4), 2 kv heads.
    pub fn qwen3(seed: u64) -> TinySpec {
        TinySpec::llama_shaped(TinyArch::Qwen3, seed)
    }

    /// A Llama with Llama 3.1's rotary scaling, tied embeddings: hidden
    /// 64, 2 layers, 4 heads, 2 kv heads.
    pub fn llama3(seed: u64) -> TinySpec {
        TinySpec::llama_shaped(TinyArch::Llama3, seed)
    }

    /// Phi-4-mini's shape at a tiny size: hidden 64, 2 layers, 4 heads of
    /// 16 values (12 rotated), 2 kv heads, tied embeddings, LongRoPE and a
    /// sliding window.
    pub fn phi4_mini(seed: u64) -> TinySpec {
        TinySpec::llama_shaped(TinyArch::Phi4Mini, seed)
    }

    /// LFM2's shape at a tiny size: hidden 64, 3 layers (a convolution, an
    /// attention layer, a convolution), 4 heads, 2 kv heads, tied
    /// embeddings.
    pub fn lfm2(seed: u64) -> TinySpec {
        TinySpec::hybrid_shaped(TinyArch::Lfm2, &LFM2_ATTENTION, seed)
    }

    /// Granite 4's dense shape at a tiny size: hidden 64, 2 attention
    /// layers, 4 heads, 2 kv heads, tied embeddings, Granite's multipliers.
    pub fn granite_hybrid(seed: u64) -> TinySpec {
        TinySpec::llama_shaped(TinyArch::GraniteHybrid, seed)
    }

    /// Granite 4's hybrid shape at a tiny size: hidden 64, 3 layers (Mamba-2,
    /// attention, Mamba-2), 4 heads, 2 kv heads, tied embeddings; Mamba-2
    /// with 4 heads of 32, a state of 16 in 2 groups, a convolution of 4.
    pub fn granite_h(seed: u64) -> TinySpec {
        TinySpec::hybrid_shaped(TinyArch::GraniteH, &GRANITE_H_ATTENTION, seed)
    }

    /// LFM2-350M's shape (hidden 1024, 16 layers of which 6 attend, 16
    /// heads, 8 kv heads, MLP 4608, 65,536 tokens), for benchmarks.
    pub fn lfm2_350m(seed: u64) -> TinySpec {
        // Qwen3-0.6B's width, heads and tied embeddings.
        TinySpec {
            arch: TinyArch::Lfm2,
            intermediate_size: 4608,
            num_layers: 16,
            max_position_embeddings: 128_000,
            vocab_size: 65_536,
            ..TinySpec::qwen3_0_6b(seed)
        }
    }

    /// A hybrid Granite 4 of granite-4.0-h-350m's size (hidden 768, 32
    /// layers of which one in eight attends, 12 heads, 4 kv heads, MLP
    /// 2048, Mamba-2 of 48 heads of 32 with a state of 128, 100,352
    /// tokens), for benchmarks.
    pub fn granite_4_h_350m(seed: u64) -> TinySpec {
        TinySpec {
            arch: TinyArch::GraniteH,
            hidden_size: 768,
            intermediate_size: 2048,
            num_layers: 32,
            num_heads: 12,
            num_kv_heads: 4,
            max_position_embeddings: 32_768,
            tie_word_embeddings: true,
            vocab_size: 100_352,
            seed,
            config_style: ConfigStyle::Legacy,
        }
    }

    /// Which layers attend: LFM2's and the hybrid Granite 4's others
    /// convolve or are Mamba-2 (the tiny patterns at three layers,
    /// LFM2-350M's and one in eight at more); every layer elsewhere.
    pub fn attention_layers(&self) -> Vec<bool> {
        let n = self.num_layers;
        match self.arch {
            TinyArch::Lfm2 if n == LFM2_ATTENTION.len() => LFM2_ATTENTION.to_vec(),
            TinyArch::Lfm2 => (0..n).map(|i| [2, 5, 8, 10, 12, 14].contains(&i)).collect(),
            TinyArch::GraniteH if n == GRANITE_H_ATTENTION.len() => GRANITE_H_ATTENTION.to_vec(),
            TinyArch::GraniteH => (0..n).map(|i| i % 8 == 7).collect(),
            _ => vec![true; n],
        }
    }

    /// The hybrid Granite 4's Mamba-2 sizes: heads, head width, state,
    /// groups, convolution length (heads × width = 2 × hidden).
    pub(crate) fn mamba_sizes(&self) -> [usize; 5] {
        if self.hidden_size == 64 {
            GRANITE_H_MAMBA
        } else {
            [2 * self.hidden_size / 32, 32, 128, 1, 4]
        }
    }

    /// The width of each attention head.
    pub fn head_dim(&self) -> usize {
        let dim = self.hidden_size / self.num_heads.max(1);
        if self.arch == TinyArch::Qwen3 {
            2 * dim
        } else {
            dim
        }
    }

    /// This spec with its config written in `style`.
    pub fn with_config_style(self, style: ConfigStyle) -> TinySpec {
        TinySpec {
            config_style: style,
            ..self
        }
    }

    fn check(&self) -> Result<(), String> {
        let ok = self.hidden_size > 0
            && self.num_heads > 0
            && self.num_kv_heads > 0
            && self.num_layers > 0
            && self.intermediate_size > 0
            && self.max_position_embeddings > 0
            && self.hidden_size.is_multiple_of(self.num_heads)
            && (self.hidden_size / self.num_heads).is_multiple_of(2)
            && self.num_heads.is_multiple_of(self.num_kv_heads)
            && self.vocab_size >= TINY_VOCAB_SIZE
            && (self.arch != TinyArch::Phi4Mini || self.head_dim() == 16)
            && (self.arch != TinyArch::GraniteH || (2 * self.hidden_size).is_multiple_of(32))
            && (self.arch != TinyArch::Lfm2
                || self.intermediate_size.is_multiple_of(LFM2_MULTIPLE_OF));
        if ok {
            Ok(())
        } else {
            Err(format!("invalid tiny model spec {self:?}: sizes must be positive, heads must divide hidden_size into an even head size, kv heads must divide heads, vocab_size must be at least {TINY_VOCAB_SIZE}, and a Phi-4-mini's heads must be 16 wide (its LongRoPE factors)"))
        }
    }
}

/// A tiny Granite's multipliers: of the embeddings, the attention scores,
/// the residual branches, and the divisor of the logits (Granite 3's are
/// 12, 1/128, 0.22 and 8).
pub const GRANITE_MULTIPLIERS: [f32; 4] = [12.0, 0.25, 0.22, 8.0];

/// Number of tokens of the tiny tokenizer (and rows of the tiny embedding).
pub const TINY_VOCAB_SIZE: usize = vocab::VOCAB_SIZE;

/// Id of an added token of the tiny tokenizer (`<|im_end|>`, `<tool_call>`, …).
pub fn tiny_token_id(content: &str) -> Option<u32> {
    vocab::ADDED
        .iter()
        .any(|(c, _)| *c == content)
        .then(|| vocab::added_id(content))
}

/// Writes a tiny model directory: `config.json`, `model.safetensors`,
/// `tokenizer.json`, `tokenizer_config.json` and `generation_config.json`.
pub fn write_tiny_model(dir: &Path, spec: &TinySpec) -> Result<(), ModelError> {
    spec.check()
        .map_err(|reason| ModelError::invalid(dir, reason))?;
    std::fs::create_dir_all(dir).map_err(|e| ModelError::io(dir, e))?;
    write_json(&dir.join("config.json"), &config_json(spec))?;
    write_json(&dir.join("tokenizer.json"), &vocab::tokenizer_json())?;
    write_json(
        &dir.join("tokenizer_config.json"),
        &vocab::tokenizer_config_json(spec.max_position_embeddings),
    )?;
    write_json(
        &dir.join("generation_config.json"),
        &json!({
            "bos_token_id": vocab::added_id("<|endoftext|>"),
            "eos_token_id": [vocab::added_id("<|im_end|>"), vocab::added_id("<|endoftext|>")],
            "pad_token_id": vocab::added_id("<|endoftext|>"),
            "do_sample": false
        }),
    )?;
    let path = dir.join("model.safetensors");
    let tensors = weights::tensors(spec, spec.vocab_size).map_err(|e| {
        ModelError::invalid(
            &path,
            format!("cannot make the weights: {}", candle_message(&e)),
        )
    })?;
    candle_core::safetensors::save(&tensors.into_iter().collect(), &path).map_err(|e| {
        ModelError::invalid(
            &path,
            format!("cannot write the weights: {}", candle_message(&e)),
        )
    })?;
    Ok(())
}

/// The `config.json` keys of a Granite 4: dense (`GraniteHybrid`) or with
/// Mamba-2 layers (`GraniteH`).
fn granite_4_json(spec: &TinySpec) -> Value {
    let with_mamba = spec.arch == TinyArch::GraniteH;
    let [embedding, attention, residual, logits] = GRANITE_MULTIPLIERS;
    // Older configs name the kinds "attention" and "mamba".
    let (attends, mamba) = match spec.config_style {
        ConfigStyle::Legacy => ("attention", "mamba"),
        ConfigStyle::RopeParameters => ("full_attention", "linear_attention"),
    };
    let mut config = json!({
        "architectures": ["GraniteMoeHybridForCausalLM"],
        "model_type": "granitemoehybrid",
        "rms_norm_eps": 1e-5,
        "attention_bias": false,
        "embedding_multiplier": embedding,
        "attention_multiplier": attention,
        "residual_multiplier": residual,
        "logits_scaling": logits,
        "pad_token_id": vocab::added_id("<|endoftext|>"),
        // The experts' width, unused without experts.
        "intermediate_size": 2 * spec.intermediate_size,
        "shared_intermediate_size": spec.intermediate_size,
        "num_local_experts": 0,
        "num_experts_per_tok": 0,
        "position_embedding_type": if with_mamba { "nope" } else { "rope" },
        "layer_types": spec
            .attention_layers()
            .iter()
            .map(|&a| if a { attends } else { mamba })
            .collect::<Vec<_>>(),
        "normalization_function": "rmsnorm",
    });
    let own = if with_mamba {
        json!({
            "mamba_n_heads": spec.mamba_sizes()[0],
            "mamba_d_head": spec.mamba_sizes()[1],
            "mamba_d_state": spec.mamba_sizes()[2],
            "mamba_n_groups": spec.mamba_sizes()[3],
            "mamba_d_conv": spec.mamba_sizes()[4],
            "mamba_expand": 2,
            // transformers' prompt runs in chunks of this: two here.
            "mamba_chunk_size": 8,
            "mamba_conv_bias": true,
            "mamba_proj_bias": false,
        })
    } else {
        json!({
            "init_method": "mup",
            "mamba_d_conv": 4,
            "mamba_expand": 2,
        })
    };
    if let (Value::Object(config), Value::Object(own)) = (&mut config, own) {
        config.extend(own);
    }
    config
}

fn config_json(spec: &TinySpec) -> Value {
    let mut config = json!({
        "hidden_size": spec.hidden_size,
        "intermediate_size": spec.intermediate_size,
        "num_hidden_layers": spec.num_layers,
        "num_attention_heads": spec.num_heads,
        "num_key_value_heads": spec.num_kv_heads,
        "max_position_embeddings": spec.max_position_embeddings,
        "vocab_size": spec.vocab_size,
        "tie_word_embeddings": spec.tie_word_embeddings,
        "bos_token_id": vocab::added_id("<|endoftext|>"),
        "eos_token_id": vocab::added_id("<|im_end|>"),
        "hidden_act": "silu",
        "torch_dtype": "float32",
        "use_cache": true,
    });
    let extra = match spec.arch {
        TinyArch::Llama => json!({
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "rms_norm_eps": 1e-5,
            "attention_bias": false,
            "mlp_bias": false,
        }),
        TinyArch::Qwen2 => json!({
            "architectures": ["Qwen2ForCausalLM"],
            "model_type": "qwen2",
            "rms_norm_eps": 1e-6,
            "sliding_window": spec.max_position_embeddings,
            "max_window_layers": spec.num_layers,
            "use_sliding_window": false,
        }),
        TinyArch::Granite => {
            let [embedding, attention, residual, logits] = GRANITE_MULTIPLIERS;
            json!({
                "architectures": ["GraniteForCausalLM"],
                "model_type": "granite",
                "rms_norm_eps": 1e-5,
                "attention_bias": false,
                "mlp_bias": false,
                "embedding_multiplier": embedding,
                "attention_multiplier": attention,
                "residual_multiplier": residual,
                "logits_scaling": logits,
                "pad_token_id": vocab::added_id("<|endoftext|>"),
            })
        }
        TinyArch::Phi3 => json!({
            "architectures": ["Phi3ForCausalLM"],
            "model_type": "phi3",
            "rms_norm_eps": 1e-5,
            "sliding_window": null,
            "original_max_position_embeddings": spec.max_position_embeddings,
            "pad_token_id": vocab::added_id("<|endoftext|>"),
        }),
        TinyArch::Qwen3 => json!({
            "architectures": ["Qwen3ForCausalLM"],
            "model_type": "qwen3",
            "rms_norm_eps": 1e-6,
            "head_dim": spec.head_dim(),
            "attention_bias": false,
            "use_sliding_window": false,
            "sliding_window": null,
            "max_window_layers": spec.num_layers,
        }),
        TinyArch::Llama3 => json!({
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "rms_norm_eps": 1e-5,
            "attention_bias": false,
            "mlp_bias": false,
        }),
        TinyArch::Phi4Mini => json!({
            "architectures": ["Phi3ForCausalLM"],
            "model_type": "phi3",
            "rms_norm_eps": 1e-5,
            "sliding_window": PHI4_WINDOW,
            "original_max_position_embeddings": PHI4_ORIGINAL_CONTEXT,
            "pad_token_id": vocab::added_id("<|endoftext|>"),
        }),
        TinyArch::GraniteH | TinyArch::GraniteHybrid => granite_4_json(spec),
        TinyArch::Lfm2 => {
            let mut lfm2 = json!({
                "architectures": ["Lfm2ForCausalLM"],
                "model_type": "lfm2",
                "norm_eps": 1e-5,
                "conv_bias": false,
                "conv_L_cache": LFM2_CONV_KERNEL,
                // LFM2 takes two thirds of this, rounded up to a multiple
                // of `block_multiple_of`: the spec's width.
                "intermediate_size": spec.intermediate_size * 3 / 2,
                "block_auto_adjust_ff_dim": true,
                "block_ffn_dim_multiplier": 1.0,
                "block_multiple_of": LFM2_MULTIPLE_OF,
                "pad_token_id": vocab::added_id("<|endoftext|>"),
            });
            // Older configs list the attention layers, transformers 5
            // every layer's type.
            let key_value = match spec.config_style {
                ConfigStyle::Legacy => (
                    "full_attn_idxs",
                    json!((0..spec.num_layers)
                        .filter(|&l| spec.attention_layers()[l])
                        .collect::<Vec<_>>()),
                ),
                ConfigStyle::RopeParameters => (
                    "layer_types",
                    json!(spec
                        .attention_layers()
                        .iter()
                        .map(|&a| if a { "full_attention" } else { "conv" })
                        .collect::<Vec<_>>()),
                ),
            };
            lfm2[key_value.0] = key_value.1;
            lfm2
        }
        TinyArch::SmolLM3 => json!({
            "architectures": ["SmolLM3ForCausalLM"],
            "model_type": "smollm3",
            // transformers' default (128004) is past the tiny vocabulary.
            "pad_token_id": vocab::added_id("<|endoftext|>"),
            "rms_norm_eps": 1e-6,
            "attention_bias": false,
            "mlp_bias": false,
            "use_sliding_window": false,
            "sliding_window": null,
            "no_rope_layer_interval": SMOLLM3_NOPE_EVERY,
            // 1: the layer rotates; llama.cpp's converter keeps only the
            // interval, and every `SMOLLM3_NOPE_EVERY`th layer does not.
            "no_rope_layers": (0..spec.num_layers)
                .map(|l| u8::from((l + 1) % SMOLLM3_NOPE_EVERY != 0))
                .collect::<Vec<_>>(),
        }),
    };
    if let (Value::Object(config), Value::Object(extra)) = (&mut config, extra) {
        config.extend(extra);
        config.extend(rope_json(spec));
        if spec.arch == TinyArch::Lfm2 {
            // LFM2's configs have none: it always gates with SiLU.
            config.remove("hidden_act");
        }
    }
    config
}

/// The rotary settings of `spec`'s `config.json`, in its style.
fn rope_json(spec: &TinySpec) -> serde_json::Map<String, Value> {
    let theta = match spec.arch {
        TinyArch::Llama3 => 500_000.0,
        // LFM2's default, written out.
        TinyArch::Lfm2 => 1_000_000.0,
        _ => 10_000.0,
    };
    let (scaling, partial) = match spec.arch {
        TinyArch::Llama3 => (
            json!({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                   "high_freq_factor": 4.0, "original_max_position_embeddings": LLAMA3_ORIGINAL_CONTEXT}),
            None,
        ),
        TinyArch::Phi4Mini => {
            let [short, long] = PHI4_FACTORS;
            (
                json!({"type": "longrope", "short_factor": short, "long_factor": long}),
                Some(0.75),
            )
        }
        _ => (Value::Null, None),
    };
    let mut out = serde_json::Map::new();
    match spec.config_style {
        ConfigStyle::Legacy => {
            out.insert("rope_theta".into(), json!(theta));
            out.insert("rope_scaling".into(), scaling);
            if let Some(p) = partial {
                out.insert("partial_rotary_factor".into(), json!(p));
            }
        }
        ConfigStyle::RopeParameters => {
            // As transformers 5 saves them: the type, the base and the
            // share rotated inside, Phi-3's pretraining length both inside
            // and at the top level.
            let mut params = match scaling {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            if let Some(ty) = params.remove("type") {
                params.insert("rope_type".into(), ty);
            }
            params
                .entry("rope_type")
                .or_insert_with(|| json!("default"));
            params.insert("rope_theta".into(), json!(theta));
            if let Some(p) = partial {
                params.insert("partial_rotary_factor".into(), json!(p));
                out.insert("partial_rotary_factor".into(), json!(p));
            }
            if spec.arch == TinyArch::Phi4Mini {
                params.insert(
                    "original_max_position_embeddings".into(),
                    json!(PHI4_ORIGINAL_CONTEXT),
                );
            }
            out.insert("rope_parameters".into(), Value::Object(params));
        }
    }
    out
}

fn write_json(path: &Path, value: &Value) -> Result<(), ModelError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| ModelError::invalid(path, format!("cannot serialize: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| ModelError::io(path, e))
}
