//! A decoder for the Llama family (Llama, Qwen 2 and 3, Phi-3, Granite,
//! Gemma 3's variations on it) written for the CPU, and for the hybrids
//! whose layers mix positions otherwise: LFM2's short convolutions
//! (`conv.rs`) and Granite 4's Mamba-2 layers (`mamba.rs`).
//!
//! candle-transformers' models spend a small model's time in per-operation
//! overhead and rebuild their KV cache by concatenation at every step. This
//! one runs the same weights as a few large operations per layer: the q, k
//! and v projections fused into one matrix, the gate and up projections
//! into another, matrix-vector products compiled for the CPU's SIMD at run
//! time and split across threads, `gemm` for prompts, and a KV cache
//! written in place that can be cut back to any prefix. GGUF files run on
//! it with their block-quantized matrices as stored (`quant.rs`).

mod attention;
mod cache;
mod conv;
mod kernels;
mod kv_rows;
mod load;
mod load_gguf;
mod load_lfm2;
mod mamba;
mod matrix;
mod quant;

pub(crate) use cache::KvCache;
pub use kv_rows::CacheType;
pub(crate) use load::Storage;

use super::rope::Rotary;
use attention::{attend, interleave_heads, rope, rotary_angles, Heads, Queries};
use conv::ShortConv;
pub(crate) use kernels::Activation;
use kernels::{gated, rms_norm, ROWS_PER_TASK};
use mamba::Mamba2;
use matrix::Matrix;
use rayon::prelude::*;

/// SmolLM3's every this-many-th layer has no rotary embedding: llama.cpp
/// fixes it at 4, and its files do not say.
pub(crate) const SMOLLM3_NOPE_EVERY: usize = 4;

/// The widest head this decoder runs (rotary tables live on the stack).
const MAX_HALF_HEAD: usize = 256;

/// The hyperparameters a forward pass needs.
#[derive(Clone, Debug)]
pub(crate) struct DenseConfig {
    hidden: usize,
    intermediate: usize,
    heads: Heads,
    vocab: usize,
    eps: f32,
    /// How queries and keys rotate.
    rotary: Rotary,
    /// The most positions the model attends to.
    context: usize,
    /// The embeddings are multiplied by this (Gemma: √hidden; Granite:
    /// its `embedding_multiplier`).
    embed_scale: f32,
    /// The attention scores' scale: 1/√head, or Granite's own.
    attention_scale: f32,
    /// Each layer's attention and MLP outputs are multiplied by this before
    /// they are added to the residual (Granite).
    residual_scale: f32,
    /// The logits are divided by this (Granite).
    logit_scale: f32,
    activation: Activation,
    /// Gemma 3's local layers: how many positions each sees, and their own
    /// rotary frequencies.
    local: Option<LocalAttention>,
}

/// Sliding-window attention, as Gemma 3's local layers run it (and every
/// layer of a model with one window throughout).
#[derive(Clone, Debug)]
pub(crate) struct LocalAttention {
    window: usize,
    rotary: Rotary,
}

/// One decoder layer's weights, each matrix row-major as stored.
#[derive(Debug)]
struct Layer {
    /// The norm before the mixer (attention or convolution).
    attn_norm: Vec<f32>,
    /// What mixes positions: attention, or LFM2's short convolution.
    mixer: Mixer,
    mlp_norm: Vec<f32>,
    /// gate and up projections stacked: rows `2·intermediate`.
    gate_up: Matrix,
    down: Matrix,
    /// Gemma: norms of the mixer's and the MLP's outputs before each is
    /// added back.
    post_norms: Option<(Vec<f32>, Vec<f32>)>,
}

/// How a layer mixes information across positions.
#[derive(Debug)]
enum Mixer {
    Attention(Attention),
    ShortConv(ShortConv),
    Mamba(Mamba2),
}

/// An attention layer's weights.
#[derive(Debug)]
struct Attention {
    /// q, k and v projections stacked: rows `q + 2·kv`, columns `hidden`.
    qkv: Matrix,
    qkv_bias: Option<Vec<f32>>,
    o: Matrix,
    /// Gemma 3, Qwen 3, LFM2: RMS norms of each query and key head before
    /// rotation.
    qk_norms: Option<(Vec<f32>, Vec<f32>)>,
    /// Attends locally (see [`DenseConfig::local`]).
    sliding: bool,
    /// Rotates queries and keys; SmolLM3's every fourth layer does not
    /// (NoPE).
    rotary: bool,
}

/// The weights of a model.
#[derive(Debug)]
pub(crate) struct Dense {
    cfg: DenseConfig,
    embed: Matrix,
    layers: Vec<Layer>,
    norm: Vec<f32>,
    /// `None` when the output projection is the embedding.
    lm_head: Option<Matrix>,
}

/// Buffers a forward pass reuses from one call to the next.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    x: Vec<f32>,
    normed: Vec<f32>,
    qkv: Vec<f32>,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    attn: Vec<f32>,
    by_head: Vec<f32>,
    proj: Vec<f32>,
    gate_up: Vec<f32>,
    act: Vec<f32>,
    /// LFM2's convolutions: the input projection's rows, and the gated
    /// outputs.
    conv: Vec<f32>,
    gated: Vec<f32>,
    /// Mamba-2's convolved rows, and its outputs head by head.
    mixed: Vec<f32>,
    scan: Vec<f32>,
    /// The position of each row.
    positions: Vec<usize>,
    /// One past the last position of each row's step: LongRoPE picks its
    /// frequencies by how far a pass reaches.
    ends: Vec<usize>,
}

impl Dense {
    /// How many of the model's matrices are computed with in each format
    /// (see [`Matrix::count_formats`]); fused projections count once per
    /// stored format.
    pub(crate) fn matrix_formats(&self) -> std::collections::BTreeMap<String, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for m in self.matrices() {
            m.count_formats(&mut counts);
        }
        counts
    }

    /// Every matrix: the embedding, each layer's, the output projection
    /// where it is not the embedding.
    fn matrices(&self) -> Vec<&Matrix> {
        let mut all = vec![&self.embed];
        for layer in &self.layers {
            let mixer = match &layer.mixer {
                Mixer::Attention(a) => [&a.qkv, &a.o],
                Mixer::ShortConv(c) => [&c.in_proj, &c.out],
                Mixer::Mamba(m) => [&m.in_proj, &m.out_proj],
            };
            all.extend(mixer.into_iter().chain([&layer.gate_up, &layer.down]));
        }
        all.extend(&self.lm_head);
        all
    }

    /// Every matrix that multiplies [repacked](Matrix::repack) (the
    /// embedding only where it is the output projection too); the bytes
    /// kept.
    pub(crate) fn repack(&self) -> usize {
        let products = self.matrices().into_iter();
        let products = products.skip(usize::from(self.lm_head.is_some()));
        products.map(Matrix::repack).sum()
    }

    /// LongRoPE's pretraining length: a pass reaching past it rotates with
    /// the long factors.
    pub(crate) fn rope_switch(&self) -> Option<usize> {
        self.cfg.rotary.long.as_ref().map(|(after, _)| *after)
    }

    /// An empty cache for this model: keys and values of each attention
    /// layer, kept as `kind`; each convolution's inputs, in f32.
    pub(crate) fn new_cache(&self, kind: CacheType) -> KvCache {
        let kv = self.cfg.heads.kv_width();
        let widths = self.layers.iter().map(|layer| match &layer.mixer {
            Mixer::Attention(_) => (kv, kv),
            Mixer::ShortConv(_) => (self.cfg.hidden, 0),
            Mixer::Mamba(m) => (m.conv_width(), 0),
        });
        let states: Vec<usize> = (self.layers.iter())
            .map(|layer| match &layer.mixer {
                Mixer::Mamba(m) => m.state_size(),
                _ => 0,
            })
            .collect();
        let types: Vec<CacheType> = (self.layers.iter())
            .map(|layer| match &layer.mixer {
                Mixer::Attention(_) => kind,
                Mixer::ShortConv(_) | Mixer::Mamba(_) => CacheType::F32,
            })
            .collect();
        KvCache::new(widths.collect())
            .with_types(&types)
            .with_states(&states)
    }

    /// Runs `tokens` after the positions `cache` holds, appends them to it,
    /// and returns the logits after the last one.
    pub(crate) fn forward(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        s: &mut Scratch,
    ) -> Result<Vec<f32>, String> {
        let mut steps = [Step { tokens, cache }];
        let logits = self.forward_steps(&mut steps, s)?;
        logits
            .into_iter()
            .next()
            .ok_or_else(|| "no logits (internal error)".to_owned())
    }

    /// Runs several sequences' steps in one pass, each after what its own
    /// cache holds, and returns the logits after each step's last token.
    ///
    /// Decode steps (a token each) and short prompts of a quantized model
    /// read every matrix once for all the sequences; longer prompts are
    /// multiplied by matrices widened once for all (see
    /// [`Matrix::matmul_t_parts`]). Attention runs over each sequence's
    /// own cache, and each sequence's logits are bit for bit what
    /// [`forward`](Self::forward) gives it alone. On an error no cache
    /// keeps any of the pass.
    pub(crate) fn forward_steps(
        &self,
        steps: &mut [Step<'_>],
        s: &mut Scratch,
    ) -> Result<Vec<Vec<f32>>, String> {
        // On a pool thread, the many parallel steps of a pass hand work to
        // the other threads directly, instead of each waking them from outside.
        let result = rayon::scope(|_| self.run(steps, s));
        let switch = self.rope_switch();
        for step in steps.iter_mut() {
            match &result {
                Ok(_) => {
                    step.cache.commit(step.tokens.len());
                    if switch.is_some_and(|s| step.cache.len() <= s) {
                        step.cache.mark_short();
                    }
                }
                Err(_) => step.cache.rollback(),
            }
        }
        result
    }

    fn run(&self, steps: &mut [Step<'_>], s: &mut Scratch) -> Result<Vec<Vec<f32>>, String> {
        let cfg = &self.cfg;
        let h = cfg.hidden;
        let n: usize = steps.iter().map(|step| step.tokens.len()).sum();
        s.positions.clear();
        s.ends.clear();
        for step in steps.iter() {
            let start = step.cache.len();
            if step.tokens.is_empty() {
                return Err("no tokens to run".into());
            }
            if start + step.tokens.len() > cfg.context {
                return Err(format!(
                    "{} positions exceed the model's context of {}",
                    start + step.tokens.len(),
                    cfg.context
                ));
            }
            s.positions.extend(start..start + step.tokens.len());
            let end = start + step.tokens.len();
            s.ends.extend(std::iter::repeat_n(end, step.tokens.len()));
        }
        // Several sequences' rows are multiplied together, each part as
        // it is alone (see `Matrix::matmul_t_parts`): a decode step's
        // token, or a short prompt of a quantized model, by integer dot
        // products over a matrix read once for all of them.
        let one = steps.len() == 1;
        let parts: Vec<usize> = steps.iter().map(|step| step.tokens.len()).collect();
        let product = |m: &Matrix, x: &[f32], out: &mut [f32]| {
            if one {
                m.matmul_t(x, n, out)
            } else {
                m.matmul_t_parts(x, &parts, out)
            }
        };
        let (qw, kw) = (cfg.heads.query_width(), cfg.heads.kv_width());
        resize(&mut s.x, n * h);
        let tokens = steps.iter().flat_map(|step| step.tokens.iter());
        for (row, &token) in s.x.chunks_exact_mut(h).zip(tokens) {
            let t = token as usize;
            if t >= cfg.vocab {
                return Err(format!(
                    "token {token} is outside the vocabulary of {}",
                    cfg.vocab
                ));
            }
            self.embed.widen_rows(t, row);
            if cfg.embed_scale != 1.0 {
                row.iter_mut().for_each(|v| *v *= cfg.embed_scale);
            }
        }
        resize(&mut s.normed, n * h);
        resize(&mut s.q, n * qw);
        resize(&mut s.k, n * kw);
        resize(&mut s.v, n * kw);
        resize(&mut s.qkv, n * (qw + 2 * kw));
        resize(&mut s.attn, n * qw);
        resize(&mut s.by_head, n * qw);
        resize(&mut s.proj, n * h);
        resize(&mut s.gate_up, n * 2 * cfg.intermediate);
        resize(&mut s.act, n * cfg.intermediate);
        for (index, layer) in self.layers.iter().enumerate() {
            rms_norm(&s.x, &layer.attn_norm, cfg.eps, &mut s.normed);
            match &layer.mixer {
                Mixer::Attention(attention) => {
                    self.attend(index, attention, steps, s, &product);
                    product(&attention.o, &s.attn, &mut s.proj);
                }
                Mixer::ShortConv(conv) => conv.run(index, steps, s, &product),
                Mixer::Mamba(mamba) => mamba.run(index, steps, s, &product),
            }
            let post_norms = layer.post_norms.as_ref();
            add_normed(
                &mut s.x,
                &s.proj,
                post_norms.map(|p| &p.0[..]),
                cfg,
                &mut s.normed,
            );
            rms_norm(&s.x, &layer.mlp_norm, cfg.eps, &mut s.normed);
            product(&layer.gate_up, &s.normed, &mut s.gate_up);
            gated(&s.gate_up, cfg.intermediate, cfg.activation, &mut s.act);
            product(&layer.down, &s.act, &mut s.proj);
            add_normed(
                &mut s.x,
                &s.proj,
                post_norms.map(|p| &p.1[..]),
                cfg,
                &mut s.normed,
            );
        }
        // Only each step's last position's logits are wanted.
        let mut last = Vec::with_capacity(steps.len() * h);
        let mut end = 0;
        for step in steps.iter() {
            end += step.tokens.len();
            last.extend_from_slice(&s.x[(end - 1) * h..end * h]);
        }
        let mut normed = vec![0f32; last.len()];
        rms_norm(&last, &self.norm, cfg.eps, &mut normed);
        let head = self.lm_head.as_ref().unwrap_or(&self.embed);
        let mut logits = vec![0f32; steps.len() * cfg.vocab];
        if one {
            head.matvec(&normed, &mut logits);
        } else {
            head.matmul_few(&normed, steps.len(), &mut logits);
        }
        if cfg.logit_scale != 1.0 {
            logits.iter_mut().for_each(|l| *l /= cfg.logit_scale);
        }
        Ok(logits
            .chunks_exact(cfg.vocab)
            .map(<[f32]>::to_vec)
            .collect())
    }

    /// Attention layer `index`: queries, keys and values of the normed
    /// rows `s.normed`, keys and values appended to each step's cache, and
    /// the heads' outputs side by side in `s.attn`.
    fn attend(
        &self,
        index: usize,
        attention: &Attention,
        steps: &mut [Step<'_>],
        s: &mut Scratch,
        product: &Product<'_>,
    ) {
        let cfg = &self.cfg;
        let (qw, kw) = (cfg.heads.query_width(), cfg.heads.kv_width());
        product(&attention.qkv, &s.normed, &mut s.qkv);
        let heads = cfg.heads;
        let bias = attention.qkv_bias.as_deref();
        let local = cfg.local.as_ref().filter(|_| attention.sliding);
        let rotary = local.map_or(&cfg.rotary, |l| &l.rotary);
        let half = rotary.dim / 2;
        let qk_norms = attention.qk_norms.as_ref();
        let (positions, ends) = (&s.positions, &s.ends);
        s.qkv
            .par_chunks_mut(qw + 2 * kw)
            .zip(s.q.par_chunks_mut(qw))
            .zip(s.k.par_chunks_mut(kw))
            .zip(s.v.par_chunks_mut(kw))
            .enumerate()
            .with_min_len(ROWS_PER_TASK)
            .for_each(|(i, (((row, q), k), v))| {
                if let Some(bias) = bias {
                    add(row, bias);
                }
                match qk_norms {
                    // Each head normalised on its own.
                    Some((q_norm, k_norm)) => {
                        rms_norm(&row[..qw], q_norm, cfg.eps, q);
                        rms_norm(&row[qw..qw + kw], k_norm, cfg.eps, k);
                    }
                    None => {
                        q.copy_from_slice(&row[..qw]);
                        k.copy_from_slice(&row[qw..qw + kw]);
                    }
                }
                v.copy_from_slice(&row[qw + kw..]);
                let mut angles = [0f32; 2 * MAX_HALF_HEAD];
                let (cos, sin) = angles.split_at_mut(MAX_HALF_HEAD);
                let (cos, sin) = (&mut cos[..half], &mut sin[..half]);
                if attention.rotary {
                    let freqs = rotary.freqs(ends[i]);
                    rotary_angles(positions[i], freqs, rotary.scale, cos, sin);
                    rope(q, heads.dim, rotary.dim, cos, sin);
                    rope(k, heads.dim, rotary.dim, cos, sin);
                }
            });
        let window = local.map(|l| l.window);
        let mut first = 0;
        for step in steps.iter_mut() {
            let m = step.tokens.len();
            let (start, cache) = (step.cache.len(), &mut *step.cache);
            cache.append(
                index,
                &s.k[first * kw..][..m * kw],
                &s.v[first * kw..][..m * kw],
            );
            let queries = Queries {
                q: &s.q[first * qw..][..m * qw],
                kv: cache.layer(index),
                start,
                n: m,
                heads,
                window,
                scale: cfg.attention_scale,
                row_by_row: attention.qkv.as_decode_steps(m),
            };
            let by_head = &mut s.by_head[first * qw..][..m * qw];
            attend(queries, by_head);
            let attn = &mut s.attn[first * qw..][..m * qw];
            interleave_heads(by_head, m, heads.query, heads.dim, attn);
            first += m;
        }
    }
}

/// A pass's matrix product: `out` gets `x`'s rows (every step's, side by
/// side) times the matrix, transposed.
type Product<'a> = dyn Fn(&Matrix, &[f32], &mut [f32]) + 'a;

/// One sequence's part of a forward pass: its new tokens, run after the
/// positions its cache holds.
pub(crate) struct Step<'a> {
    pub tokens: &'a [u32],
    pub cache: &'a mut KvCache,
}

fn resize(v: &mut Vec<f32>, len: usize) {
    v.clear();
    v.resize(len, 0.0);
}

fn add(x: &mut [f32], y: &[f32]) {
    for (x, y) in x.iter_mut().zip(y) {
        *x += y;
    }
}

/// Adds `y` to the residual `x`, after normalising it by `norm` when the
/// architecture does (`scratch` holds the normalised rows) and scaling it
/// by the configuration's residual scale.
fn add_normed(
    x: &mut [f32],
    y: &[f32],
    norm: Option<&[f32]>,
    cfg: &DenseConfig,
    scratch: &mut [f32],
) {
    let y = match norm {
        Some(w) => {
            rms_norm(y, w, cfg.eps, scratch);
            &*scratch
        }
        None => y,
    };
    if cfg.residual_scale == 1.0 {
        add(x, y);
    } else {
        for (x, y) in x.iter_mut().zip(y) {
            *x += cfg.residual_scale * y;
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod gguf_tests;
