//! A decoder for the Llama family (Llama, Qwen 2) written for the CPU.
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
mod kernels;
mod load;
mod load_gguf;
mod matrix;
mod quant;

pub(crate) use cache::KvCache;

use attention::{attend, interleave_heads, rope, rotary_angles, Heads};
use kernels::{rms_norm, silu_mul, ROWS_PER_TASK};
use matrix::Matrix;
use rayon::prelude::*;

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
    /// The rotary frequencies of each pair of a head's values.
    inv_freq: Vec<f32>,
    /// The most positions the model attends to.
    context: usize,
}

/// One decoder layer's weights, each matrix row-major as stored.
#[derive(Debug)]
struct Layer {
    attn_norm: Vec<f32>,
    /// q, k and v projections stacked: rows `q + 2·kv`, columns `hidden`.
    qkv: Matrix,
    qkv_bias: Option<Vec<f32>>,
    o: Matrix,
    mlp_norm: Vec<f32>,
    /// gate and up projections stacked: rows `2·intermediate`.
    gate_up: Matrix,
    down: Matrix,
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
}

impl Dense {
    /// How many of the model's matrices are computed with in each format
    /// (see [`Matrix::count_formats`]); fused projections count once per
    /// stored format.
    pub(crate) fn matrix_formats(&self) -> std::collections::BTreeMap<String, usize> {
        let mut counts = std::collections::BTreeMap::new();
        self.embed.count_formats(&mut counts);
        for layer in &self.layers {
            for m in [&layer.qkv, &layer.o, &layer.gate_up, &layer.down] {
                m.count_formats(&mut counts);
            }
        }
        if let Some(head) = &self.lm_head {
            head.count_formats(&mut counts);
        }
        counts
    }

    /// An empty cache for this model.
    pub(crate) fn new_cache(&self) -> KvCache {
        KvCache::new(self.layers.len(), self.cfg.heads.kv_width())
    }

    /// Runs `tokens` after the positions `cache` holds, appends them to it,
    /// and returns the logits after the last one.
    pub(crate) fn forward(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        s: &mut Scratch,
    ) -> Result<Vec<f32>, String> {
        // On a pool thread, the many parallel steps of a pass hand work to
        // the other threads directly, instead of each waking them from outside.
        let result = rayon::scope(|_| self.run(tokens, cache, s));
        match &result {
            Ok(_) => cache.commit(tokens.len()),
            Err(_) => cache.rollback(),
        }
        result
    }

    fn run(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        s: &mut Scratch,
    ) -> Result<Vec<f32>, String> {
        let cfg = &self.cfg;
        let (n, h, start) = (tokens.len(), cfg.hidden, cache.len());
        if n == 0 {
            return Err("no tokens to run".into());
        }
        if start + n > cfg.context {
            return Err(format!(
                "{} positions exceed the model's context of {}",
                start + n,
                cfg.context
            ));
        }
        let (qw, kw) = (cfg.heads.query_width(), cfg.heads.kv_width());
        resize(&mut s.x, n * h);
        for (row, &token) in s.x.chunks_exact_mut(h).zip(tokens) {
            let t = token as usize;
            if t >= cfg.vocab {
                return Err(format!(
                    "token {token} is outside the vocabulary of {}",
                    cfg.vocab
                ));
            }
            self.embed.widen_rows(t, row);
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
            layer.qkv.matmul_t(&s.normed, n, &mut s.qkv);
            let heads = cfg.heads;
            let bias = layer.qkv_bias.as_deref();
            let half = heads.dim / 2;
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
                    q.copy_from_slice(&row[..qw]);
                    k.copy_from_slice(&row[qw..qw + kw]);
                    v.copy_from_slice(&row[qw + kw..]);
                    let mut angles = [0f32; 2 * MAX_HALF_HEAD];
                    let (cos, sin) = angles.split_at_mut(MAX_HALF_HEAD);
                    let (cos, sin) = (&mut cos[..half], &mut sin[..half]);
                    rotary_angles(start + i, &cfg.inv_freq, cos, sin);
                    rope(q, heads.dim, cos, sin);
                    rope(k, heads.dim, cos, sin);
                });
            cache.append(index, &s.k, &s.v);
            let (keys, values) = cache.layer(index);
            attend(&s.q, keys, values, start, n, heads, &mut s.by_head);
            interleave_heads(&s.by_head, n, heads.query, heads.dim, &mut s.attn);
            layer.o.matmul_t(&s.attn, n, &mut s.proj);
            add(&mut s.x, &s.proj);
            rms_norm(&s.x, &layer.mlp_norm, cfg.eps, &mut s.normed);
            layer.gate_up.matmul_t(&s.normed, n, &mut s.gate_up);
            silu_mul(&s.gate_up, cfg.intermediate, &mut s.act);
            layer.down.matmul_t(&s.act, n, &mut s.proj);
            add(&mut s.x, &s.proj);
        }
        // Only the last position's logits are wanted.
        let last = &s.x[(n - 1) * h..];
        let mut normed = vec![0f32; h];
        rms_norm(last, &self.norm, cfg.eps, &mut normed);
        let mut logits = vec![0f32; cfg.vocab];
        self.lm_head
            .as_ref()
            .unwrap_or(&self.embed)
            .matvec(&normed, &mut logits);
        Ok(logits)
    }
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

#[cfg(test)]
mod tests;

#[cfg(test)]
mod gguf_tests;
