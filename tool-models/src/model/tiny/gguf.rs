//! The tiny models as GGUF files, converted as llama.cpp's
//! `convert_hf_to_gguf.py` converts: GGUF tensor names, Llama's q/k rows
//! permuted for its interleaved rotary embedding, f32 tensors or quantized
//! matrices, and the tokenizer and chat template in the metadata.

use super::{vocab, weights, TinyArch, TinySpec};
use crate::model::error::candle_message;
use crate::model::ModelError;
use candle_core::quantized::gguf_file::{self, Value};
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::Tensor;
use std::path::Path;

/// How a GGUF file of a tiny model stores its matrices (norms and biases
/// stay f32, as llama.cpp keeps them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GgufWeights {
    /// f32: the Hugging Face model's exact values.
    F32,
    /// Q8_0 (8 bits per value and a scale per 32).
    Q8_0,
    /// llama.cpp's `Q4_K_M` mix: Q4_K, with the value projection and the
    /// MLP's down projection of every other layer in Q6_K, and the
    /// embedding and output matrix in Q6_K; where a row is not a multiple
    /// of 256 values, Q5_0 for Q4_K and Q8_0 for Q6_K, as llama.cpp falls
    /// back.
    Q4K,
    /// Q4_1 (4 bits, a scale and a minimum per 32), as SmolLM2-135M's
    /// `Q4_1` file stores its matrices.
    Q4_1,
    /// Q4_0 (4 bits and a scale per 32) for every matrix.
    Q4_0,
    /// Q5_K for every matrix whose rows are whole 256-value blocks, Q5_0
    /// for the others, as llama.cpp falls back.
    Q5K,
    /// Every other block format, one per kind of matrix: q Q4_0, k Q5_1,
    /// v Q2_K, the attention output Q3_K, the MLP Q5_K (Q4_0 where a row
    /// is not a multiple of 256 values), the embedding and output Q8_0.
    Mixed,
}

impl GgufWeights {
    /// The format of tensor `name` with rows of `cols` values.
    fn format(self, name: &str, cols: usize) -> GgmlDType {
        let fits = |t: GgmlDType| cols.is_multiple_of(t.block_size());
        let more_bits = name == "token_embd.weight"
            || name == "output.weight"
            || ((name.ends_with("attn_v.weight") || name.ends_with("ffn_down.weight"))
                && layer_of(name).is_some_and(|l| l % 2 == 0));
        let wanted = match self {
            GgufWeights::F32 => GgmlDType::F32,
            GgufWeights::Q8_0 => GgmlDType::Q8_0,
            GgufWeights::Q4K if more_bits && fits(GgmlDType::Q6K) => GgmlDType::Q6K,
            GgufWeights::Q4K if more_bits => GgmlDType::Q8_0,
            GgufWeights::Q4K if fits(GgmlDType::Q4K) => GgmlDType::Q4K,
            GgufWeights::Q4K => GgmlDType::Q5_0,
            GgufWeights::Q4_1 => GgmlDType::Q4_1,
            GgufWeights::Q4_0 => GgmlDType::Q4_0,
            GgufWeights::Q5K if fits(GgmlDType::Q5K) => GgmlDType::Q5K,
            GgufWeights::Q5K => GgmlDType::Q5_0,
            GgufWeights::Mixed => {
                let kinds = [
                    ("attn_q.", GgmlDType::Q4_0),
                    ("attn_k.", GgmlDType::Q5_1),
                    ("attn_v.", GgmlDType::Q2K),
                    ("attn_output.", GgmlDType::Q3K),
                    ("ffn_", GgmlDType::Q5K),
                ];
                match kinds.iter().find(|(kind, _)| name.contains(kind)) {
                    Some(&(_, t)) if fits(t) => t,
                    Some(_) => GgmlDType::Q4_0,
                    None => GgmlDType::Q8_0,
                }
            }
        };
        if name.ends_with(".weight") && !name.contains("norm") && fits(wanted) {
            wanted
        } else {
            GgmlDType::F32
        }
    }
}

/// The layer of a GGUF tensor name (`blk.N.…`).
fn layer_of(name: &str) -> Option<usize> {
    name.strip_prefix("blk.")?.split('.').next()?.parse().ok()
}

/// Writes the model of `spec` (same weights as [`write_tiny_model`](super::write_tiny_model))
/// as a GGUF file with an f32 payload.
pub fn write_tiny_gguf(path: &Path, spec: &TinySpec) -> Result<(), ModelError> {
    write_tiny_gguf_as(path, spec, GgufWeights::F32)
}

/// Writes the model of `spec` as a GGUF file with its matrices stored as
/// `weights` says.
pub fn write_tiny_gguf_as(
    path: &Path,
    spec: &TinySpec,
    payload: GgufWeights,
) -> Result<(), ModelError> {
    spec.check()
        .map_err(|reason| ModelError::invalid(path, reason))?;
    let fail = |e: candle_core::Error| {
        ModelError::invalid(path, format!("cannot write GGUF: {}", candle_message(&e)))
    };
    let arch = spec.arch.gguf_name();
    let head_dim = spec.head_dim();
    // Phi-4-mini rotates three quarters of each head.
    let rotated = if spec.arch == TinyArch::Phi4Mini {
        head_dim * 3 / 4
    } else {
        head_dim
    };
    let u32v = |n: usize| Value::U32(n as u32);
    // llama.cpp wants a token per embedding row: rows past the tokenizer's
    // are unused tokens (type 5) that no text encodes to.
    let mut tokens = vocab::tokens();
    let real = tokens.len();
    tokens.extend((real..spec.vocab_size).map(|id| format!("<|unused_{id}|>")));
    let token_types: Vec<Value> = (0..tokens.len())
        .map(|id| {
            let added = id.checked_sub(vocab::FIRST_ADDED as usize);
            Value::I32(match added.map(|i| vocab::ADDED.get(i).map(|a| a.1)) {
                None => 1,
                Some(Some(true)) => 3,
                Some(Some(false)) => 4,
                Some(None) => 5,
            })
        })
        .collect();
    let mut metadata: Vec<(String, Value)> = vec![
        ("general.architecture".into(), Value::String(arch.into())),
        ("general.name".into(), Value::String(format!("tiny-{arch}"))),
        (
            format!("{arch}.context_length"),
            u32v(spec.max_position_embeddings),
        ),
        (format!("{arch}.embedding_length"), u32v(spec.hidden_size)),
        (format!("{arch}.block_count"), u32v(spec.num_layers)),
        (
            format!("{arch}.feed_forward_length"),
            u32v(spec.intermediate_size),
        ),
        (format!("{arch}.attention.head_count"), u32v(spec.num_heads)),
        (
            format!("{arch}.attention.head_count_kv"),
            u32v(spec.num_kv_heads),
        ),
        (
            format!("{arch}.attention.layer_norm_rms_epsilon"),
            Value::F32(match spec.arch {
                TinyArch::Llama
                | TinyArch::Llama3
                | TinyArch::Granite
                | TinyArch::Phi3
                | TinyArch::Phi4Mini
                | TinyArch::Lfm2
                | TinyArch::GraniteHybrid
                | TinyArch::GraniteH => 1e-5,
                TinyArch::Qwen2 | TinyArch::Qwen3 | TinyArch::SmolLM3 => 1e-6,
            }),
        ),
        (format!("{arch}.rope.dimension_count"), u32v(rotated)),
        (
            format!("{arch}.rope.freq_base"),
            Value::F32(match spec.arch {
                TinyArch::Llama3 => 500_000.0,
                TinyArch::Lfm2 => 1_000_000.0,
                _ => 10_000.0,
            }),
        ),
        ("tokenizer.ggml.model".into(), Value::String("gpt2".into())),
        // llama.cpp's name for GPT-2's split, so that llama.cpp loads the file too.
        ("tokenizer.ggml.pre".into(), Value::String("gpt-2".into())),
        (
            "tokenizer.ggml.tokens".into(),
            Value::Array(tokens.into_iter().map(Value::String).collect()),
        ),
        (
            "tokenizer.ggml.token_type".into(),
            Value::Array(token_types),
        ),
        (
            "tokenizer.ggml.merges".into(),
            Value::Array(vocab::merges().into_iter().map(Value::String).collect()),
        ),
        (
            "tokenizer.ggml.bos_token_id".into(),
            Value::U32(vocab::added_id("<|endoftext|>")),
        ),
        (
            "tokenizer.ggml.eos_token_id".into(),
            Value::U32(vocab::added_id("<|im_end|>")),
        ),
        (
            "tokenizer.chat_template".into(),
            Value::String(vocab::TINY_CHAT_TEMPLATE.into()),
        ),
    ];

    if matches!(
        spec.arch,
        TinyArch::Granite | TinyArch::GraniteHybrid | TinyArch::GraniteH
    ) {
        let [embedding, attention, residual, logits] = super::GRANITE_MULTIPLIERS;
        for (key, value) in [
            ("embedding_scale", embedding),
            ("attention.scale", attention),
            ("residual_scale", residual),
            ("logit_scale", logits),
        ] {
            metadata.push((format!("{arch}.{key}"), Value::F32(value)));
        }
    }

    if matches!(spec.arch, TinyArch::GraniteH | TinyArch::Lfm2) {
        // As llama.cpp's converter writes models whose layers are not all
        // attention: no key/value heads where a layer convolves or is
        // Mamba-2, and the vocabulary's size.
        let kv_heads = (spec.attention_layers().iter())
            .map(|&a| Value::U32(if a { spec.num_kv_heads as u32 } else { 0 }))
            .collect();
        for (key, value) in &mut metadata {
            if *key == format!("{arch}.attention.head_count_kv") {
                *value = Value::Array(kv_heads);
                break;
            }
        }
        metadata.push((format!("{arch}.vocab_size"), u32v(spec.vocab_size)));
    }
    if spec.arch == TinyArch::GraniteH {
        // A hybrid Granite 4: the Mamba-2 sizes, and no rotation (nor a
        // limit on the context).
        let [heads, head_dim, state, groups, kernel] = spec.mamba_sizes();
        metadata.retain(|(key, _)| *key != format!("{arch}.rope.dimension_count"));
        metadata.extend([
            (format!("{arch}.ssm.conv_kernel"), u32v(kernel)),
            (format!("{arch}.ssm.state_size"), u32v(state)),
            (format!("{arch}.ssm.group_count"), u32v(groups)),
            (format!("{arch}.ssm.inner_size"), u32v(heads * head_dim)),
            (format!("{arch}.ssm.time_step_rank"), u32v(heads)),
            (format!("{arch}.rope.scaling.finetuned"), Value::Bool(false)),
            (
                format!("{arch}.expert_shared_feed_forward_length"),
                u32v(spec.intermediate_size),
            ),
        ]);
        for (key, value) in &mut metadata {
            if *key == format!("{arch}.context_length") {
                *value = u32v(1 << 20);
            }
        }
    }
    if spec.arch == TinyArch::Lfm2 {
        metadata.push((
            format!("{arch}.shortconv.l_cache"),
            u32v(super::LFM2_CONV_KERNEL),
        ));
    }
    if spec.arch == TinyArch::Qwen3 {
        for key in ["attention.key_length", "attention.value_length"] {
            metadata.push((format!("{arch}.{key}"), u32v(head_dim)));
        }
    }
    let mut tensors: Vec<(String, QTensor)> = Vec::new();
    let f32_vector = |values: Vec<f32>| -> Result<QTensor, ModelError> {
        let n = values.len();
        let t = Tensor::from_vec(values, n, &candle_core::Device::Cpu).map_err(fail)?;
        QTensor::quantize(&t, GgmlDType::F32).map_err(fail)
    };
    if spec.arch == TinyArch::Llama3 {
        // As llama.cpp's converter stores Llama 3's scaling: a divisor per
        // frequency.
        let (factor, low, high) = (8.0f64, 1.0f64, 4.0f64);
        let original = super::LLAMA3_ORIGINAL_CONTEXT as f64;
        let divisors = (0..head_dim)
            .step_by(2)
            .map(|j| {
                let freq = 1.0 / 500_000f64.powf(j as f64 / head_dim as f64);
                let wavelen = 2.0 * std::f64::consts::PI / freq;
                if wavelen < original / high {
                    1.0
                } else if wavelen > original / low {
                    factor as f32
                } else {
                    let smooth = (original / wavelen - low) / (high - low);
                    (1.0 / ((1.0 - smooth) / factor + smooth)) as f32
                }
            })
            .collect();
        tensors.push(("rope_freqs.weight".into(), f32_vector(divisors)?));
    }
    if spec.arch == TinyArch::Phi4Mini {
        // As llama.cpp's converter stores LongRoPE: the factors as tensors,
        // the pretraining length and the attention factor as metadata.
        let [short, long] = super::PHI4_FACTORS;
        for (name, factors) in [
            ("rope_factors_short.weight", short),
            ("rope_factors_long.weight", long),
        ] {
            let values = factors.iter().map(|f| *f as f32).collect();
            tensors.push((name.into(), f32_vector(values)?));
        }
        let original = super::PHI4_ORIGINAL_CONTEXT;
        let scale = spec.max_position_embeddings as f64 / original as f64;
        let attn_factor = if scale > 1.0 {
            (1.0 + scale.ln() / (original as f64).ln()).sqrt()
        } else {
            1.0
        };
        metadata.extend([
            (
                format!("{arch}.rope.scaling.original_context_length"),
                u32v(original),
            ),
            (
                format!("{arch}.rope.scaling.attn_factor"),
                Value::F32(attn_factor as f32),
            ),
            (
                format!("{arch}.attention.sliding_window"),
                u32v(super::PHI4_WINDOW),
            ),
        ]);
    }
    let mut hf = weights::tensors(spec, spec.vocab_size).map_err(fail)?;
    if matches!(spec.arch, TinyArch::GraniteHybrid | TinyArch::GraniteH) {
        granite4_as_converted(&mut hf, spec).map_err(fail)?;
    }
    for (name, tensor) in &hf {
        let Some(gguf_name) = gguf_name(name) else {
            continue;
        };
        let reorder = spec.arch.reorders_qk() && name.ends_with("weight");
        let tensor = match name.rsplit('.').nth(1) {
            Some("q_proj") if reorder => permute(tensor, spec.num_heads).map_err(fail)?,
            Some("k_proj") if reorder => permute(tensor, spec.num_kv_heads).map_err(fail)?,
            // The converter keeps a convolution's taps as a matrix.
            Some("conv") => tensor.squeeze(1).map_err(fail)?,
            _ => tensor.clone(),
        };
        let cols = tensor.dims().last().copied().unwrap_or(0);
        let format = payload.format(&gguf_name, cols);
        tensors.push((gguf_name, QTensor::quantize(&tensor, format).map_err(fail)?));
    }

    let mut file = std::fs::File::create(path).map_err(|e| ModelError::io(path, e))?;
    let meta_refs: Vec<(&str, &Value)> = metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let tensor_refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
    gguf_file::write(&mut file, &meta_refs, &tensor_refs).map_err(fail)
}

/// A Granite 4's tensors as llama.cpp's converter changes them: the MLP's
/// fused gate and up split in two (under Llama's names), and Mamba-2's
/// `A` stored as `-exp(A_log)`, `A` and `D` as columns, the norm's weight
/// as one row a group, the convolution's taps as a matrix.
fn granite4_as_converted(
    tensors: &mut std::collections::BTreeMap<String, Tensor>,
    spec: &TinySpec,
) -> candle_core::Result<()> {
    let i = spec.intermediate_size;
    let groups = spec.mamba_sizes()[3];
    let names: Vec<String> = tensors.keys().cloned().collect();
    for name in names {
        let Some(tensor) = tensors.remove(&name) else {
            continue;
        };
        let (p, rest) = name
            .split_once(".shared_mlp.")
            .map_or((name.as_str(), ""), |x| x);
        let converted = match rest {
            "input_linear.weight" => {
                // Copies: a view into the fused tensor would quantize all of it.
                let half = |start| -> candle_core::Result<Tensor> {
                    let part = tensor.narrow(0, start, i)?;
                    Tensor::from_vec(
                        part.flatten_all()?.to_vec1::<f32>()?,
                        part.dims(),
                        part.device(),
                    )
                };
                tensors.insert(format!("{p}.mlp.gate_proj.weight"), half(0)?);
                tensors.insert(format!("{p}.mlp.up_proj.weight"), half(i)?);
                continue;
            }
            "output_linear.weight" => {
                tensors.insert(format!("{p}.mlp.down_proj.weight"), tensor);
                continue;
            }
            _ if name.ends_with(".mamba.A_log") => tensor.exp()?.neg()?.unsqueeze(1)?,
            _ if name.ends_with(".mamba.D") => tensor.unsqueeze(1)?,
            _ if name.ends_with(".mamba.norm.weight") => {
                let n = tensor.dims1()?;
                tensor.reshape((groups, n / groups))?
            }
            _ if name.ends_with(".mamba.conv1d.weight") => tensor.squeeze(1)?,
            _ => tensor,
        };
        tensors.insert(name, converted);
    }
    Ok(())
}

/// The GGUF name of a Hugging Face tensor name.
fn gguf_name(hf: &str) -> Option<String> {
    match hf {
        "model.embed_tokens.weight" => return Some("token_embd.weight".into()),
        "model.norm.weight" => return Some("output_norm.weight".into()),
        // LFM2's final norm.
        "model.embedding_norm.weight" => return Some("token_embd_norm.weight".into()),
        "lm_head.weight" => return Some("output.weight".into()),
        _ => {}
    }
    let rest = hf.strip_prefix("model.layers.")?;
    let (layer, rest) = rest.split_once('.')?;
    let (module, kind) = rest.rsplit_once('.')?;
    let short = match module {
        "input_layernorm" => "attn_norm",
        "post_attention_layernorm" => "ffn_norm",
        "self_attn.q_proj" => "attn_q",
        "self_attn.k_proj" => "attn_k",
        "self_attn.v_proj" => "attn_v",
        "self_attn.qkv_proj" => "attn_qkv",
        "self_attn.o_proj" => "attn_output",
        "self_attn.q_norm" => "attn_q_norm",
        "self_attn.k_norm" => "attn_k_norm",
        "mlp.gate_proj" => "ffn_gate",
        "mlp.up_proj" => "ffn_up",
        // Phi-3's gate and up, as one matrix.
        "mlp.gate_up_proj" => "ffn_up",
        "mlp.down_proj" => "ffn_down",
        // LFM2's names.
        "operator_norm" => "attn_norm",
        "ffn_norm" => "ffn_norm",
        "self_attn.out_proj" => "attn_output",
        "self_attn.q_layernorm" => "attn_q_norm",
        "self_attn.k_layernorm" => "attn_k_norm",
        "conv.in_proj" => "shortconv.in_proj",
        "conv.conv" => "shortconv.conv",
        "conv.out_proj" => "shortconv.out_proj",
        "feed_forward.w1" => "ffn_gate",
        "feed_forward.w3" => "ffn_up",
        "feed_forward.w2" => "ffn_down",
        // Granite 4's Mamba-2 (as `granite4_as_converted` leaves it).
        "mamba.in_proj" => "ssm_in",
        "mamba.conv1d" => "ssm_conv1d",
        "mamba.out_proj" => "ssm_out",
        "mamba.norm" => "ssm_norm",
        _ => match rest {
            "mamba.A_log" => return Some(format!("blk.{layer}.ssm_a")),
            "mamba.D" => return Some(format!("blk.{layer}.ssm_d")),
            "mamba.dt_bias" => return Some(format!("blk.{layer}.ssm_dt.bias")),
            _ => return None,
        },
    };
    Some(format!("blk.{layer}.{short}.{kind}"))
}

/// llama.cpp's reordering of q/k rows: within each head, the two rotary
/// halves are interleaved.
fn permute(w: &Tensor, heads: usize) -> candle_core::Result<Tensor> {
    let (rows, cols) = w.dims2()?;
    w.reshape((heads, 2, rows / heads / 2, cols))?
        .transpose(1, 2)?
        .contiguous()?
        .reshape((rows, cols))
}
