//! Seeded random weights under Hugging Face tensor names.
//!
//! A small self-contained generator (SplitMix64) keeps the weights identical
//! across versions of `rand`. Scales are chosen so that the logits are
//! peaked (standard deviation of a few units): greedy choices are then far
//! from ties, and comparisons between cached and recomputed runs are stable.

use super::{TinyArch, TinySpec, LFM2_CONV_KERNEL};
use candle_core::{Device, Tensor};
use std::collections::BTreeMap;

const OUTPUT_GAIN: f32 = 6.0;

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-scale, scale).
    fn uniform(&mut self, scale: f32) -> f32 {
        let unit = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        (unit * 2.0 - 1.0) * scale
    }
}

/// The scale of a projection that reads `n` values.
fn fan_in(n: usize) -> Option<f32> {
    Some(1.0 / (n as f32).sqrt())
}

/// The scale of a layer's output projection that reads `n` values: large
/// enough to outweigh the token's own embedding in the residual stream
/// (with tied embeddings a small-output model only ever repeats its input
/// token).
fn out_scale(n: usize) -> Option<f32> {
    Some(OUTPUT_GAIN / (n as f32).sqrt())
}

/// Draws the q, k, v and output projections (named `output`) of the
/// attention `prefix` for a width of `h`, `q` query values and `kv`
/// key/value values, in that order.
fn attention(
    add: &mut impl FnMut(String, &[usize], Option<f32>) -> candle_core::Result<()>,
    prefix: &str,
    output: &str,
    [h, q, kv]: [usize; 3],
) -> candle_core::Result<()> {
    add(format!("{prefix}.q_proj.weight"), &[q, h], fan_in(h))?;
    add(format!("{prefix}.k_proj.weight"), &[kv, h], fan_in(h))?;
    add(format!("{prefix}.v_proj.weight"), &[kv, h], fan_in(h))?;
    add(format!("{prefix}.{output}.weight"), &[h, q], out_scale(q))
}

/// Draws the gate, up and down projections (`names`, in that order) of the
/// MLP `prefix` for a width of `h` and `i` inner values.
fn mlp(
    add: &mut impl FnMut(String, &[usize], Option<f32>) -> candle_core::Result<()>,
    prefix: &str,
    [gate, up, down]: [&str; 3],
    [h, i]: [usize; 2],
) -> candle_core::Result<()> {
    add(format!("{prefix}.{gate}.weight"), &[i, h], fan_in(h))?;
    add(format!("{prefix}.{up}.weight"), &[i, h], fan_in(h))?;
    add(format!("{prefix}.{down}.weight"), &[h, i], out_scale(i))
}

/// The model's tensors by name, in f32.
pub(crate) fn tensors(
    spec: &TinySpec,
    vocab: usize,
) -> candle_core::Result<BTreeMap<String, Tensor>> {
    let mut rng = SplitMix64(spec.seed);
    let h = spec.hidden_size;
    let i = spec.intermediate_size;
    let head_dim = spec.head_dim();
    let q = head_dim * spec.num_heads;
    let kv = head_dim * spec.num_kv_heads;
    let mut out = BTreeMap::new();
    let mut add = |name: String, shape: &[usize], scale: Option<f32>| -> candle_core::Result<()> {
        let n: usize = shape.iter().product();
        let data: Vec<f32> = match scale {
            Some(s) => (0..n).map(|_| rng.uniform(s)).collect(),
            None => vec![1.0; n],
        };
        out.insert(name, Tensor::from_vec(data, shape, &Device::Cpu)?);
        Ok(())
    };
    add("model.embed_tokens.weight".into(), &[vocab, h], Some(0.5))?;
    if spec.arch == TinyArch::Lfm2 {
        for (layer, &attends) in spec.attention_layers().iter().enumerate() {
            let p = format!("model.layers.{layer}");
            add(format!("{p}.operator_norm.weight"), &[h], None)?;
            add(format!("{p}.ffn_norm.weight"), &[h], None)?;
            if attends {
                attention(&mut add, &format!("{p}.self_attn"), "out_proj", [h, q, kv])?;
                for part in ["q_layernorm", "k_layernorm"] {
                    add(format!("{p}.self_attn.{part}.weight"), &[head_dim], None)?;
                }
            } else {
                // B, C and x rows of unit scale: the gate and the
                // convolution's input are products of two of them.
                add(
                    format!("{p}.conv.in_proj.weight"),
                    &[3 * h, h],
                    Some(2.0 / (h as f32).sqrt()),
                )?;
                add(
                    format!("{p}.conv.conv.weight"),
                    &[h, 1, LFM2_CONV_KERNEL],
                    Some(0.8),
                )?;
                add(format!("{p}.conv.out_proj.weight"), &[h, h], out_scale(h))?;
            }
            let names = ["w1", "w3", "w2"];
            mlp(&mut add, &format!("{p}.feed_forward"), names, [h, i])?;
        }
        add("model.embedding_norm.weight".into(), &[h], None)?;
        if !spec.tie_word_embeddings {
            add("lm_head.weight".into(), &[vocab, h], Some(0.5))?;
        }
        return Ok(out);
    }
    for layer in 0..spec.num_layers {
        let p = format!("model.layers.{layer}");
        add(format!("{p}.input_layernorm.weight"), &[h], None)?;
        add(format!("{p}.post_attention_layernorm.weight"), &[h], None)?;
        attention(&mut add, &format!("{p}.self_attn"), "o_proj", [h, q, kv])?;
        if spec.arch == TinyArch::Qwen2 {
            add(format!("{p}.self_attn.q_proj.bias"), &[q], Some(0.1))?;
            add(format!("{p}.self_attn.k_proj.bias"), &[kv], Some(0.1))?;
            add(format!("{p}.self_attn.v_proj.bias"), &[kv], Some(0.1))?;
        }
        let names = ["gate_proj", "up_proj", "down_proj"];
        mlp(&mut add, &format!("{p}.mlp"), names, [h, i])?;
    }
    add("model.norm.weight".into(), &[h], None)?;
    if !spec.tie_word_embeddings {
        add("lm_head.weight".into(), &[vocab, h], Some(0.5))?;
    }
    if spec.arch == TinyArch::Qwen3 {
        // Per-head norm weights around 1, so that they matter; drawn apart,
        // so that the other tensors are those of a Llama of the same seed.
        let mut rng = SplitMix64(spec.seed ^ 0x5157_454E_3300);
        for layer in 0..spec.num_layers {
            for part in ["q_norm", "k_norm"] {
                let data: Vec<f32> = (0..head_dim).map(|_| 1.0 + rng.uniform(0.3)).collect();
                out.insert(
                    format!("model.layers.{layer}.self_attn.{part}.weight"),
                    Tensor::from_vec(data, head_dim, &Device::Cpu)?,
                );
            }
        }
    }
    if spec.arch.fused() {
        fuse_phi3(&mut out, spec.num_layers)?;
    }
    if spec.arch == TinyArch::GraniteH {
        // Mamba-2 in place of attention where the layer does not attend.
        let [heads, head_dim, state, groups, kernel] = spec.mamba_sizes();
        let inner = heads * head_dim;
        let width = inner + 2 * groups * state;
        let mut rng = SplitMix64(spec.seed ^ 0x4D41_4D42_4132);
        let tensor =
            |shape: &[usize], values: Vec<f32>| Tensor::from_vec(values, shape, &Device::Cpu);
        for (layer, &attends) in spec.attention_layers().iter().enumerate() {
            if attends {
                continue;
            }
            let p = format!("model.layers.{layer}");
            for part in ["q_proj", "k_proj", "v_proj", "o_proj"] {
                out.remove(&format!("{p}.self_attn.{part}.weight"));
            }
            let mut uniform =
                |n: usize, scale: f32| -> Vec<f32> { (0..n).map(|_| rng.uniform(scale)).collect() };
            let rows = inner + width + heads;
            let m = format!("{p}.mamba");
            let in_proj = uniform(rows * h, 1.5 / (h as f32).sqrt());
            let conv = uniform(width * kernel, 0.6);
            let conv_bias = uniform(width, 0.2);
            let dt_bias = uniform(heads, 1.0);
            let d: Vec<f32> = uniform(heads, 0.3).into_iter().map(|v| 1.0 + v).collect();
            let norm: Vec<f32> = uniform(inner, 0.3).into_iter().map(|v| 1.0 + v).collect();
            let out_proj = uniform(h * inner, OUTPUT_GAIN / (inner as f32).sqrt());
            // As transformers initialises it: A = -(1, 2, …, heads).
            let a_log: Vec<f32> = (1..=heads).map(|a| (a as f32).ln()).collect();
            for (name, shape, values) in [
                ("in_proj.weight", vec![rows, h], in_proj),
                ("conv1d.weight", vec![width, 1, kernel], conv),
                ("conv1d.bias", vec![width], conv_bias),
                ("dt_bias", vec![heads], dt_bias),
                ("A_log", vec![heads], a_log),
                ("D", vec![heads], d),
                ("norm.weight", vec![inner], norm),
                ("out_proj.weight", vec![h, inner], out_proj),
            ] {
                out.insert(format!("{m}.{name}"), tensor(&shape, values)?);
            }
        }
    }
    if matches!(spec.arch, TinyArch::GraniteHybrid | TinyArch::GraniteH) {
        // Granite 4's MLP: gate and up as one `input_linear`, the same
        // values as a Granite's.
        for layer in 0..spec.num_layers {
            let p = format!("model.layers.{layer}");
            let mut take = |part: &str| out.remove(&format!("{p}.mlp.{part}.weight"));
            if let (Some(gate), Some(up), Some(down)) =
                (take("gate_proj"), take("up_proj"), take("down_proj"))
            {
                out.insert(
                    format!("{p}.shared_mlp.input_linear.weight"),
                    Tensor::cat(&[gate, up], 0)?,
                );
                out.insert(format!("{p}.shared_mlp.output_linear.weight"), down);
            }
        }
    }
    Ok(out)
}

/// Phi-3 stores q, k and v as one `qkv_proj`, and the MLP's gate and up
/// projections as one `gate_up_proj` (gate first): the same values, drawn
/// as for a Llama, under its names.
fn fuse_phi3(tensors: &mut BTreeMap<String, Tensor>, layers: usize) -> candle_core::Result<()> {
    for layer in 0..layers {
        let p = format!("model.layers.{layer}");
        for (parts, fused) in [
            (
                &["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"][..],
                "self_attn.qkv_proj",
            ),
            (&["mlp.gate_proj", "mlp.up_proj"][..], "mlp.gate_up_proj"),
        ] {
            let pieces = parts
                .iter()
                .filter_map(|part| tensors.remove(&format!("{p}.{part}.weight")))
                .collect::<Vec<_>>();
            tensors.insert(format!("{p}.{fused}.weight"), Tensor::cat(&pieces, 0)?);
        }
    }
    Ok(())
}
