//! Building a [`Dense`] model from a GGUF file (`llama`, `qwen2`,
//! `gemma3`): block-quantized matrices kept as stored (`quant.rs`), other
//! formats widened to f32, and Llama's q/k rows put back in Hugging Face's
//! order (llama.cpp's converter interleaves the two rotary halves of each
//! head; this decoder rotates halves).

use super::load::{Shape, Storage};
use super::matrix::Matrix;
use super::quant::{self, Quant};
use super::{
    Activation, Attention, Dense, Layer, LocalAttention, Mamba2, Mixer, ShortConv,
    SMOLLM3_NOPE_EVERY,
};
use crate::gguf::{TensorType, Tensors};
use crate::model::gguf_tokenizer::as_u64;
use crate::model::rope::{longrope_inv_freq, Rotary};
use crate::model::ModelError;
use candle_core::quantized::gguf_file::Value;
use half::{bf16, f16};
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

impl Dense {
    /// The model of a GGUF file whose `general.architecture` is `arch`, when
    /// it is one this decoder runs (`llama`, `qwen2` and `gemma3` without
    /// experts or rotary scaling other than Llama 3's frequency factors and
    /// Gemma 3's linear factor); `Ok(None)` otherwise. `vocab` is what the
    /// loader read off the tensor table; `storage`, how its matrices are
    /// kept.
    pub(crate) fn from_gguf(
        tensors: &Tensors,
        meta: &HashMap<String, Value>,
        path: &Path,
        arch: &str,
        context: usize,
        vocab: usize,
        storage: Storage,
    ) -> Result<Option<Dense>, ModelError> {
        if !matches!(
            arch,
            "llama"
                | "qwen2"
                | "qwen3"
                | "gemma3"
                | "smollm3"
                | "granite"
                | "phi3"
                | "lfm2"
                | "granitehybrid"
        ) {
            return Ok(None);
        }
        crate::model::keys::check_gguf_keys(meta, arch, path)?;
        let gemma = arch == "gemma3";
        let phi3 = arch == "phi3";
        let qwen3 = arch == "qwen3";
        let lfm2 = arch == "lfm2";
        let hybrid = arch == "granitehybrid";
        let number = |key: &str| meta.get(&format!("{arch}.{key}")).and_then(as_u64);
        let float = |key: &str| match meta.get(&format!("{arch}.{key}")) {
            Some(Value::F32(v)) => Some(*v as f64),
            Some(Value::F64(v)) => Some(*v),
            _ => None,
        };
        let required = |key: &str| {
            number(key)
                .map(|n| n as usize)
                .ok_or_else(|| ModelError::invalid(path, format!("missing metadata {arch}.{key}")))
        };
        let refuse = |what: String| {
            Err(ModelError::invalid(
                path,
                format!("{what}, which the decoder does not compute"),
            ))
        };
        let scaling = match meta.get(&format!("{arch}.rope.scaling.type")) {
            Some(Value::String(s)) if s != "none" => Some(s.as_str()),
            _ => None,
        };
        let longrope = tensors.contains_key("rope_factors_long.weight")
            || tensors.contains_key("rope_factors_short.weight");
        // Linear scaling (Gemma 3's larger models' global layers), and
        // LongRoPE's factors (Phi-3.5, Phi-4-mini), whatever the type says.
        let linear = match scaling {
            None => None,
            Some("linear") => Some(float("rope.scaling.factor").filter(|f| *f > 0.0).ok_or_else(
                || ModelError::invalid(path, format!("missing metadata {arch}.rope.scaling.factor, which linear scaling needs")),
            )?),
            Some("longrope" | "su") if longrope => None,
            Some(other) => return refuse(format!("metadata {arch}.rope.scaling.type is \"{other}\"")),
        };
        if let Some(experts) = number("expert_count").filter(|n| *n > 0) {
            return refuse(format!(
                "metadata {arch}.expert_count is {experts} (a mixture of experts)"
            ));
        }
        let heads = required("attention.head_count")?;
        // Key/value heads of each layer: one number for all, or (LFM2) a
        // list where 0 marks a layer that convolves.
        let layers = required("block_count")?;
        let kv_key = format!("{arch}.attention.head_count_kv");
        let kv_per_layer: Vec<usize> = match meta.get(&kv_key) {
            Some(Value::Array(items)) => (items.iter())
                .map(|v| as_u64(v).map(|n| n as usize))
                .collect::<Option<_>>()
                .filter(|list: &Vec<usize>| list.len() == layers)
                .ok_or_else(|| {
                    ModelError::invalid(
                        path,
                        format!("expected metadata {kv_key} to list a number for each of the {layers} layers"),
                    )
                })?,
            _ => vec![number("attention.head_count_kv").map_or(heads, |n| n as usize); layers],
        };
        let mut attending = kv_per_layer.iter().copied().filter(|&n| n > 0);
        let kv_heads = attending.next().unwrap_or(heads);
        if attending.any(|n| n != kv_heads) {
            return refuse(format!(
                "metadata {kv_key} gives layers different numbers of key/value heads"
            ));
        }
        if !lfm2 && !hybrid && kv_per_layer.contains(&0) {
            return refuse(format!(
                "metadata {kv_key} gives a layer no key/value heads"
            ));
        }
        let conv_kernel = number("shortconv.l_cache").map(|n| n as usize);
        let rope_finetuned = matches!(
            meta.get(&format!("{arch}.rope.scaling.finetuned")),
            Some(Value::Bool(true))
        );
        // A hybrid Granite 4's Mamba-2 layers, sized by the file.
        let ssm = |key: &str| -> Result<usize, ModelError> {
            number(&format!("ssm.{key}"))
                .map(|n| n as usize)
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    ModelError::invalid(
                        path,
                        format!("missing metadata {arch}.ssm.{key}, which Mamba-2 layers need"),
                    )
                })
        };
        let mamba = |reader: &mut Reader<'_>,
                     name: &dyn Fn(&str) -> String,
                     h: usize,
                     eps: f64|
         -> Result<Mamba2, ModelError> {
            let (inner, state, groups, heads, kernel) = (
                ssm("inner_size")?,
                ssm("state_size")?,
                ssm("group_count")?,
                ssm("time_step_rank")?,
                ssm("conv_kernel")?,
            );
            if !inner.is_multiple_of(heads) || !heads.is_multiple_of(groups) {
                return Err(ModelError::invalid(
                    path,
                    format!("expected metadata {arch}.ssm.inner_size ({inner}) to divide into {heads} heads, in groups of a whole number of heads ({groups} groups)"),
                ));
            }
            let width = inner + 2 * groups * state;
            let mut vector = |part: &str, shape: &[usize]| -> Result<Vec<f32>, ModelError> {
                let (ty, bytes) = reader.tensor(&name(part), shape)?;
                reader.widen(&name(part), ty, &bytes, shape.iter().product())
            };
            let conv_taps = vector("ssm_conv1d.weight", &[width, kernel])?;
            let conv_bias = vector("ssm_conv1d.bias", &[width])?;
            let dt_bias = vector("ssm_dt.bias", &[heads])?;
            // The converter stores A as -exp(A_log).
            let a = vector("ssm_a", &[heads, 1])?;
            let d = vector("ssm_d", &[heads, 1])?;
            let norm = vector("ssm_norm.weight", &[groups, inner / groups])?;
            Ok(Mamba2 {
                in_proj: reader.matrix(&name("ssm_in.weight"), inner + width + heads, h, None)?,
                conv_taps,
                conv_bias: Some(conv_bias),
                dt_bias,
                a,
                d,
                norm,
                out_proj: reader.matrix(&name("ssm_out.weight"), h, inner, None)?,
                heads,
                head_dim: inner / heads,
                state,
                groups,
                kernel,
                eps: eps as f32,
            })
        };
        let shape = Shape {
            hidden: required("embedding_length")?,
            intermediate: required("feed_forward_length")?,
            heads,
            kv_heads,
            layers,
            eps: float("attention.layer_norm_rms_epsilon").unwrap_or(1e-5),
            qkv_bias: tensors.contains_key("blk.0.attn_q.bias"),
            // Gemma's and Qwen 3's heads may be wider than hidden / heads.
            head_dim: number("attention.key_length")
                .filter(|_| gemma || qwen3)
                .map(|n| n as usize),
        };
        let head_dim = shape.head_dim.unwrap_or(shape.hidden / shape.heads.max(1));
        for key in ["attention.key_length", "attention.value_length"] {
            if let Some(n) = number(key).filter(|n| *n as usize != head_dim) {
                return refuse(format!(
                    "metadata {arch}.{key} is {n}, not the head width {head_dim}"
                ));
            }
        }
        // Phi-3's heads may rotate in part (Phi-4-mini: 96 of 128 values).
        let rotated = number("rope.dimension_count").map_or(head_dim, |n| n as usize);
        if rotated != head_dim && !phi3 {
            return refuse(format!(
                "metadata {arch}.rope.dimension_count is {rotated}, not the head width {head_dim} (partial rotation)"
            ));
        }
        let heads = shape.heads(path)?;
        let mut file = File::open(path).map_err(|e| ModelError::io(path, e))?;
        let mut reader = Reader {
            tensors,
            file: &mut file,
            path,
            storage,
        };
        let theta = float("rope.freq_base").unwrap_or(10_000.0) as f32;
        if rotated == 0 || rotated > head_dim || !rotated.is_multiple_of(2) {
            return Err(ModelError::invalid(
                path,
                format!("metadata {arch}.rope.dimension_count is {rotated}; expected an even number from 2 to {head_dim}"),
            ));
        }
        let mut rotary = Rotary::plain(theta, rotated);
        if let Some(factor) = linear {
            rotary.inv_freq.iter_mut().for_each(|f| *f /= factor as f32);
        }
        if tensors.contains_key("rope_freqs.weight") {
            // Llama 3's long-context scaling, stored as a divisor per frequency.
            let factors = reader.vector("rope_freqs.weight", rotated / 2)?;
            for (f, factor) in rotary.inv_freq.iter_mut().zip(factors) {
                *f /= factor;
            }
        }
        if longrope {
            // As transformers runs LongRoPE: the short factors while a pass
            // stays within the pretraining length, the long ones past it,
            // and the cosines and sines scaled by the attention factor.
            let original = number("rope.scaling.original_context_length").ok_or_else(|| {
                ModelError::invalid(path, format!("missing metadata {arch}.rope.scaling.original_context_length, which LongRoPE needs"))
            })? as usize;
            let mut factors = |name: &str| -> Result<Vec<f32>, ModelError> {
                let divisors = reader.vector(name, rotated / 2)?;
                let divisors: Vec<f64> = divisors.into_iter().map(f64::from).collect();
                Ok(longrope_inv_freq(theta, rotated, &divisors))
            };
            rotary.inv_freq = factors("rope_factors_short.weight")?;
            rotary.long = Some((original, factors("rope_factors_long.weight")?));
            rotary.scale = float("rope.scaling.attn_factor").unwrap_or(1.0) as f32;
        }
        let (h, i) = (shape.hidden, shape.intermediate);
        let (qw, kw) = (heads.query_width(), heads.kv_width());
        // llama.cpp's converter reorders Llama's q/k rows (SmolLM3 and
        // Granite are Llamas), not Qwen 2's.
        let interleaved = matches!(arch, "llama" | "smollm3" | "granite");
        let mut layers = Vec::new();
        for (layer, &kv) in kv_per_layer.iter().enumerate() {
            let name = |part: &str| format!("blk.{layer}.{part}");
            let norms = |reader: &mut Reader<'_>| -> Result<(Vec<f32>, Vec<f32>), ModelError> {
                Ok((
                    reader.vector(&name("attn_norm.weight"), h)?,
                    reader.vector(&name("ffn_norm.weight"), h)?,
                ))
            };
            // LFM2's short convolutions (their taps a matrix of `kernel`
            // columns) and Granite 4's Mamba-2 layers.
            let mixer = match kv {
                0 if hybrid => Some(Mixer::Mamba(mamba(&mut reader, &name, h, shape.eps)?)),
                0 if lfm2 => {
                    let kernel = conv_kernel.ok_or_else(|| {
                        ModelError::invalid(path, format!("missing metadata {arch}.shortconv.l_cache, which LFM2's convolutions need"))
                    })?;
                    let taps = name("shortconv.conv.weight");
                    let (ty, bytes) = reader.tensor(&taps, &[h, kernel])?;
                    Some(Mixer::ShortConv(ShortConv {
                        in_proj: reader.matrix(
                            &name("shortconv.in_proj.weight"),
                            3 * h,
                            h,
                            None,
                        )?,
                        taps: reader.widen(&taps, ty, &bytes, h * kernel)?,
                        out: reader.matrix(&name("shortconv.out_proj.weight"), h, h, None)?,
                        biases: None,
                        kernel,
                    }))
                }
                _ => None,
            };
            if let Some(mixer) = mixer {
                let (attn_norm, mlp_norm) = norms(&mut reader)?;
                layers.push(Layer {
                    attn_norm,
                    mixer,
                    mlp_norm,
                    gate_up: Matrix::stack(vec![
                        reader.matrix(&name("ffn_gate.weight"), i, h, None)?,
                        reader.matrix(&name("ffn_up.weight"), i, h, None)?,
                    ]),
                    down: reader.matrix(&name("ffn_down.weight"), h, i, None)?,
                    post_norms: None,
                });
                continue;
            }
            // Phi-3 stores q, k and v as one matrix.
            let qkv = if phi3 {
                reader.matrix(&name("attn_qkv.weight"), qw + 2 * kw, h, None)?
            } else {
                let q = reader.matrix(
                    &name("attn_q.weight"),
                    qw,
                    h,
                    interleaved.then_some(heads.query),
                )?;
                let k = reader.matrix(
                    &name("attn_k.weight"),
                    kw,
                    h,
                    interleaved.then_some(heads.kv),
                )?;
                let v = reader.matrix(&name("attn_v.weight"), kw, h, None)?;
                Matrix::stack(vec![q, k, v])
            };
            let qkv_bias = if shape.qkv_bias {
                let mut b = reader.vector(&name("attn_q.bias"), qw)?;
                b.extend(reader.vector(&name("attn_k.bias"), kw)?);
                b.extend(reader.vector(&name("attn_v.bias"), kw)?);
                Some(b)
            } else {
                None
            };
            let qk_norms = if gemma || qwen3 || lfm2 {
                Some((
                    reader.vector(&name("attn_q_norm.weight"), heads.dim)?,
                    reader.vector(&name("attn_k_norm.weight"), heads.dim)?,
                ))
            } else {
                None
            };
            let post_norms = if gemma {
                Some((
                    reader.vector(&name("post_attention_norm.weight"), h)?,
                    reader.vector(&name("post_ffw_norm.weight"), h)?,
                ))
            } else {
                None
            };
            layers.push(Layer {
                post_norms,
                mixer: Mixer::Attention(Attention {
                    qk_norms,
                    // Gemma 3: five local layers, then a global one.
                    sliding: gemma && layer % GEMMA3_PATTERN != GEMMA3_PATTERN - 1,
                    // SmolLM3: every fourth layer has no rotary embedding, as
                    // llama.cpp runs it (its files do not say which); a
                    // hybrid Granite 4 rotates where its file says so.
                    rotary: if hybrid {
                        rope_finetuned
                    } else {
                        arch != "smollm3" || (layer + 1) % SMOLLM3_NOPE_EVERY != 0
                    },
                    qkv,
                    qkv_bias,
                    o: reader.matrix(&name("attn_output.weight"), h, qw, None)?,
                }),
                attn_norm: reader.vector(&name("attn_norm.weight"), h)?,
                mlp_norm: reader.vector(&name("ffn_norm.weight"), h)?,
                // Phi-3's `ffn_up` holds the gate, then the up projection.
                gate_up: if phi3 {
                    reader.matrix(&name("ffn_up.weight"), 2 * i, h, None)?
                } else {
                    Matrix::stack(vec![
                        reader.matrix(&name("ffn_gate.weight"), i, h, None)?,
                        reader.matrix(&name("ffn_up.weight"), i, h, None)?,
                    ])
                },
                down: reader.matrix(&name("ffn_down.weight"), h, i, None)?,
            });
        }
        let embed = reader.matrix("token_embd.weight", vocab, h, None)?;
        // Without its own output matrix the head is the embedding.
        let lm_head = if tensors.contains_key("output.weight") {
            Some(reader.matrix("output.weight", vocab, h, None)?)
        } else {
            None
        };
        let mut cfg = shape.config(heads, vocab, rotary.clone(), context);
        if let Some(window) = number("attention.sliding_window")
            .map(|n| n as usize)
            .filter(|w| !gemma && *w < context)
        {
            // One window for every layer (Phi-3).
            cfg.local = Some(LocalAttention { window, rotary });
            for layer in &mut layers {
                if let Mixer::Attention(attention) = &mut layer.mixer {
                    attention.sliding = true;
                }
            }
        }
        if arch == "granite" || hybrid {
            // Granite's multipliers; a 0 (or none) means none, as llama.cpp
            // reads them.
            let scale = |key: &str| float(key).filter(|v| *v != 0.0).map(|v| v as f32);
            cfg.embed_scale = scale("embedding_scale").unwrap_or(1.0);
            cfg.residual_scale = scale("residual_scale").unwrap_or(1.0);
            if let Some(attention) = scale("attention.scale") {
                cfg.attention_scale = attention;
            }
            cfg.logit_scale = scale("logit_scale").unwrap_or(1.0);
        }
        if gemma {
            // As llama.cpp runs Gemma 3 (its converter stores the norms'
            // weights with Gemma's `1 +` folded in).
            cfg.embed_scale = (h as f32).sqrt();
            cfg.activation = Activation::GeluTanh;
            cfg.local = Some(LocalAttention {
                window: number("attention.sliding_window").map_or(GEMMA3_WINDOW, |n| n as usize),
                rotary: Rotary::plain(GEMMA3_LOCAL_ROPE_BASE, heads.dim),
            });
        }
        Ok(Some(Dense {
            cfg,
            // LFM2's final norm is named after the embedding's.
            norm: reader.vector(
                if lfm2 {
                    "token_embd_norm.weight"
                } else {
                    "output_norm.weight"
                },
                h,
            )?,
            embed,
            layers,
            lm_head,
        }))
    }
}

/// Gemma 3's layers come in runs of this many, the last one global.
const GEMMA3_PATTERN: usize = 6;
/// Gemma 3's local attention window, when the file does not say.
const GEMMA3_WINDOW: usize = 512;
/// The rotary base of Gemma 3's local layers (the file's is the global
/// layers').
const GEMMA3_LOCAL_ROPE_BASE: f32 = 10_000.0;

/// Reads tensors of one GGUF file.
struct Reader<'a> {
    tensors: &'a Tensors,
    file: &'a mut File,
    path: &'a Path,
    storage: Storage,
}

impl Reader<'_> {
    /// A tensor's type and bytes, after checking its shape (`[rows, cols]`
    /// as Hugging Face writes it).
    fn tensor(&mut self, name: &str, shape: &[usize]) -> Result<(TensorType, Vec<u8>), ModelError> {
        let Some(info) = self.tensors.get(name) else {
            return Err(ModelError::invalid(
                self.path,
                format!("missing tensor {name}"),
            ));
        };
        if info.dims != shape {
            return Err(ModelError::inconsistent(
                self.path,
                format!(
                    "tensor {name} has shape {:?}, expected {shape:?} from the metadata",
                    info.dims
                ),
            ));
        }
        let bytes = info.read(self.file).map_err(|e| {
            ModelError::invalid(self.path, format!("cannot read tensor {name}: {e}"))
        })?;
        Ok((info.ty, bytes))
    }

    /// A one-dimensional tensor's values.
    fn vector(&mut self, name: &str, len: usize) -> Result<Vec<f32>, ModelError> {
        let (ty, bytes) = self.tensor(name, &[len])?;
        self.widen(name, ty, &bytes, len)
    }

    /// The `count` values of a tensor of type `ty` stored as `bytes`, as f32.
    fn widen(
        &self,
        name: &str,
        ty: TensorType,
        bytes: &[u8],
        count: usize,
    ) -> Result<Vec<f32>, ModelError> {
        Ok(match (ty.name, Quant::of(ty.name)) {
            ("F32", _) => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            ("F16", _) => halves(bytes).map(|h| f16::from_bits(h).to_f32()).collect(),
            ("BF16", _) => halves(bytes).map(|h| bf16::from_bits(h).to_f32()).collect(),
            (_, Some(quant)) if count.is_multiple_of(quant.block_values()) => {
                let mut values = vec![0.0; count];
                quant::dequantize(quant, bytes, &mut values);
                values
            }
            _ => {
                return Err(ModelError::invalid(
                    self.path,
                    format!(
                        "tensor {name} is {}, which the decoder does not read; it reads F32, F16, BF16, {}",
                        ty.name,
                        Quant::ALL.map(Quant::name).join(", ")
                    ),
                ))
            }
        })
    }

    /// A weight matrix, its rows first put back in Hugging Face's order
    /// when `interleaved_heads` says how many heads they hold.
    fn matrix(
        &mut self,
        name: &str,
        rows: usize,
        cols: usize,
        interleaved_heads: Option<usize>,
    ) -> Result<Matrix, ModelError> {
        let (ty, mut bytes) = self.tensor(name, &[rows, cols])?;
        if let Some(heads) = interleaved_heads {
            bytes = deinterleave_heads(&bytes, rows, heads);
        }
        Ok(match (ty.name, Quant::of(ty.name)) {
            (_, Some(q)) if !self.storage.dequantize && cols.is_multiple_of(q.block_values()) => {
                Matrix::quantized(q, bytes, cols)
            }
            ("F32", _) => Matrix::f32(self.widen(name, ty, &bytes, rows * cols)?, cols),
            ("F16", _) if self.storage.keep_half => Matrix::f16(halves(&bytes).collect(), cols),
            ("BF16", _) if self.storage.keep_half => Matrix::bf16(halves(&bytes).collect(), cols),
            // Any other format: widened once.
            _ => Matrix::widened(
                self.widen(name, ty, &bytes, rows * cols)?,
                cols,
                ty.name.to_string(),
            ),
        })
    }
}

/// Little-endian 16-bit values (f16 or bf16 bits).
fn halves(bytes: &[u8]) -> impl Iterator<Item = u16> + '_ {
    bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
}

/// Undoes llama.cpp's reordering of a q or k projection's `rows` (whole
/// rows of bytes): within each head, row `2i + j` of the file is row
/// `j·dim/2 + i` of the original.
fn deinterleave_heads(bytes: &[u8], rows: usize, heads: usize) -> Vec<u8> {
    let row_bytes = bytes.len() / rows.max(1);
    let dim = rows / heads.max(1);
    let half = dim / 2;
    let mut out = Vec::with_capacity(bytes.len());
    for row in 0..rows {
        let (head, r) = (row / dim, row % dim);
        let (j, i) = (r / half, r % half);
        let from = head * dim + 2 * i + j;
        out.extend_from_slice(&bytes[from * row_bytes..][..row_bytes]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::deinterleave_heads;

    #[test]
    fn deinterleaving_undoes_the_converters_order() {
        // Two heads of 4 rows: the converter writes rows 0,2,1,3 of each head.
        let file: Vec<u8> = [0u8, 2, 1, 3, 4, 6, 5, 7]
            .iter()
            .flat_map(|r| [*r, *r])
            .collect();
        let back = deinterleave_heads(&file, 8, 2);
        let expected: Vec<u8> = (0u8..8).flat_map(|r| [r, r]).collect();
        assert_eq!(back, expected);
    }
}
