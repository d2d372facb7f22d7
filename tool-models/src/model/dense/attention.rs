//! Rotary position embeddings and causal attention over the KV cache.

use super::kernels::{attend_row, gemm_strided, softmax, KvValue, Row};
use super::kv_rows::Kv;
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;

/// Up to this many query rows, attention goes row by row (a decode step);
/// above it, by matrix products.
const DIRECT_ROWS: usize = 4;

/// Query rows per attention task: each task is one head over one block of
/// rows, so a prompt's attention spreads over every thread, and a block's
/// scores only reach as far as its last row can see.
const ROW_BLOCK: usize = 64;

/// The shape of attention: query heads, key/value heads, head width.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Heads {
    pub query: usize,
    pub kv: usize,
    pub dim: usize,
}

impl Heads {
    pub(crate) fn query_width(&self) -> usize {
        self.query * self.dim
    }

    pub(crate) fn kv_width(&self) -> usize {
        self.kv * self.dim
    }
}

/// The rotary angles' cosines and sines at `position`, into `cos` and `sin`
/// (as transformers: the angle in f32, then its cosine and sine, each
/// multiplied by `scale`, LongRoPE's attention factor).
pub(crate) fn rotary_angles(
    position: usize,
    inv_freq: &[f32],
    scale: f32,
    cos: &mut [f32],
    sin: &mut [f32],
) {
    for ((f, c), s) in inv_freq.iter().zip(cos.iter_mut()).zip(sin.iter_mut()) {
        let angle = position as f32 * f;
        *c = angle.cos() * scale;
        *s = angle.sin() * scale;
    }
}

/// Rotates the first `rotated` values of each `dim`-wide head of `row` by
/// transformers' "rotate half" convention: value `j` pairs with value
/// `j + rotated/2`; the rest of the head passes through (partial rotary).
pub(crate) fn rope(row: &mut [f32], dim: usize, rotated: usize, cos: &[f32], sin: &[f32]) {
    let half = rotated / 2;
    for head in row.chunks_exact_mut(dim) {
        let (a, b) = head[..rotated].split_at_mut(half);
        for j in 0..half {
            let (x1, x2) = (a[j], b[j]);
            a[j] = x1 * cos[j] - x2 * sin[j];
            b[j] = x2 * cos[j] + x1 * sin[j];
        }
    }
}

thread_local! {
    /// Each thread's attention scores, kept between calls.
    static SCORES: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// What one attention call reads.
#[derive(Clone, Copy)]
pub(crate) struct Queries<'a> {
    /// `n` query rows of `heads.query_width()`, at positions
    /// `start..start + n`.
    pub q: &'a [f32],
    /// The cached keys and values, rows of `heads.kv_width()` at
    /// positions `0..start + n`.
    pub kv: Kv<'a>,
    /// The position of the first query row.
    pub start: usize,
    /// How many query rows.
    pub n: usize,
    /// The shape of the heads.
    pub heads: Heads,
    /// Each position sees only the last `window` positions up to itself
    /// (Gemma's local layers); `None`, every position before it.
    pub window: Option<usize>,
    /// The scores' scale: 1/√head, or the architecture's own.
    pub scale: f32,
    /// Each row attends as a decode step's does, whatever `n`: with the
    /// matrices' products also a decode step's, a short prompt then gives
    /// bit for bit the logits of its tokens run one by one.
    pub row_by_row: bool,
}

/// Causal attention of the `queries` over the cache. The result goes to
/// `out` head by head: `heads.query` blocks of `n` rows of `heads.dim`.
pub(crate) fn attend(queries: Queries<'_>, out: &mut [f32]) {
    match queries.kv {
        Kv::F32 { keys, values } => attend_typed(queries, keys, values, out),
        Kv::F16 { keys, values } => attend_typed(queries, keys, values, out),
    }
}

/// [`attend`] over keys and values kept as `T`.
fn attend_typed<T: KvValue>(queries: Queries<'_>, keys: &[T], values: &[T], out: &mut [f32]) {
    let Queries {
        q,
        kv: _,
        start,
        n,
        heads,
        window,
        scale,
        row_by_row,
    } = queries;
    // The first position a query that sees `visible` positions attends to.
    let first_seen = |visible: usize| window.map_or(0, |w| visible.saturating_sub(w));
    let (qw, kw, dim) = (heads.query_width(), heads.kv_width(), heads.dim);
    assert!(q.len() >= n * qw && out.len() >= n * qw);
    assert!(keys.len() >= (start + n) * kw && values.len() >= (start + n) * kw);
    let group = heads.query / heads.kv;
    // The matrix products read f32: f16 rows are widened once per call,
    // and only when some block of rows takes that path.
    let len = (start + n) * kw;
    let (wide_keys, wide_values) = if !row_by_row && n > DIRECT_ROWS {
        (T::widened(&keys[..len]), T::widened(&values[..len]))
    } else {
        (Cow::Borrowed(&[][..]), Cow::Borrowed(&[][..]))
    };
    out[..n * qw]
        .par_chunks_mut(n * dim)
        .enumerate()
        .for_each(|(h, head_out)| {
            let g = h / group;
            head_out
                .par_chunks_mut(ROW_BLOCK * dim)
                .enumerate()
                .for_each(|(b, rows_out)| {
                    let first = b * ROW_BLOCK;
                    let rows = rows_out.len() / dim;
                    // The last row of the block sees this many positions.
                    let seen = start + first + rows;
                    SCORES.with_borrow_mut(|scores| {
                        scores.clear();
                        scores.resize(rows * seen, 0.0);
                        if rows <= DIRECT_ROWS || row_by_row {
                            for (i, row_out) in rows_out.chunks_exact_mut(dim).enumerate() {
                                let at = (first + i) * qw + h * dim;
                                let visible = start + first + i + 1;
                                let from = first_seen(visible) * kw;
                                let row = Row {
                                    q: &q[at..at + dim],
                                    keys: &keys[from..],
                                    values: &values[from..],
                                    stride: kw,
                                    offset: g * dim,
                                    seen: visible - first_seen(visible),
                                    scale,
                                };
                                attend_row(row, scores, row_out);
                            }
                            return;
                        }
                        // SAFETY: query reads are q[(first+i)*qw + h*dim + d]
                        // < n*qw for i < rows, d < dim; key and value reads
                        // are [j*kw + g*dim + d] < (start+n)*kw for j < seen;
                        // scores are rows×seen and rows_out is rows×dim.
                        unsafe {
                            gemm_strided(
                                rows,
                                seen,
                                dim,
                                scores,
                                (seen, 1),
                                &q[first * qw + h * dim..],
                                (qw, 1),
                                &wide_keys[g * dim..],
                                (1, kw),
                                scale,
                            );
                        }
                        for (i, row) in scores.chunks_exact_mut(seen).enumerate() {
                            let visible = start + first + i + 1;
                            let (seen_now, future) = row.split_at_mut(visible);
                            let (past, now) = seen_now.split_at_mut(first_seen(visible));
                            past.fill(0.0);
                            softmax(now);
                            future.fill(0.0);
                        }
                        // SAFETY: as above.
                        unsafe {
                            gemm_strided(
                                rows,
                                dim,
                                seen,
                                rows_out,
                                (dim, 1),
                                scores,
                                (seen, 1),
                                &wide_values[g * dim..],
                                (kw, 1),
                                1.0,
                            );
                        }
                    });
                });
        });
}

/// Rows of `heads` blocks of `n × dim` (what [`attend`] writes) laid out
/// as `n` rows of `heads × dim`.
pub(crate) fn interleave_heads(
    by_head: &[f32],
    n: usize,
    heads: usize,
    dim: usize,
    out: &mut [f32],
) {
    for (h, block) in by_head.chunks_exact(n * dim).enumerate().take(heads) {
        for (i, row) in block.chunks_exact(dim).enumerate() {
            out[i * heads * dim + h * dim..][..dim].copy_from_slice(row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Attention as written in the papers, one query row at a time, each
    /// position seeing the `window` positions up to itself (or all).
    fn naive(queries: Queries<'_>) -> Vec<f32> {
        let Kv::F32 { keys, values } = queries.kv else {
            unreachable!("the definition reads f32 rows");
        };
        let q = queries.q;
        let (start, n, heads, window) = (queries.start, queries.n, queries.heads, queries.window);
        let (qw, kw, dim) = (heads.query_width(), heads.kv_width(), heads.dim);
        let group = heads.query / heads.kv;
        let mut out = vec![0f32; n * qw];
        for h in 0..heads.query {
            let g = h / group;
            for i in 0..n {
                let visible = start + i + 1;
                let first = window.map_or(0, |w| visible.saturating_sub(w));
                let query = &q[i * qw + h * dim..][..dim];
                let scores: Vec<f64> = (first..visible)
                    .map(|j| {
                        let key = &keys[j * kw + g * dim..][..dim];
                        query
                            .iter()
                            .zip(key)
                            .map(|(a, b)| (a * b) as f64)
                            .sum::<f64>()
                            / (dim as f64).sqrt()
                    })
                    .collect();
                let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                let total: f64 = weights.iter().sum();
                // `attend` writes head by head: block h, row i.
                let row = &mut out[h * n * dim + i * dim..][..dim];
                for (w, j) in weights.iter().zip(first..visible) {
                    let value = &values[j * kw + g * dim..][..dim];
                    for (o, v) in row.iter_mut().zip(value) {
                        *o += (w / total * *v as f64) as f32;
                    }
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn windowed_and_full_attention_match_the_definition(
            start in 0usize..40,
            n in 1usize..80,
            window in prop::option::of(1usize..20),
            seed in 0u32..1000,
            // One register's width, widths that are not a multiple of
            // it, and past the 64 values the fast path keeps in registers.
            dim in prop::sample::select(vec![8usize, 12, 64, 72, 136]),
        ) {
            let heads = Heads { query: 4, kv: 2, dim };
            let mut state = seed.wrapping_mul(2_654_435_761).max(1);
            let mut values = |len: usize| -> Vec<f32> {
                (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        (state % 2001) as f32 / 1000.0 - 1.0
                    })
                    .collect()
            };
            let q = values(n * heads.query_width());
            let keys = values((start + n) * heads.kv_width());
            let vals = values((start + n) * heads.kv_width());
            let scale = 1.0 / (heads.dim as f32).sqrt();
            // Rows kept as f16 attend as their widened values do, bit
            // for bit: the f16 path only widens as it loads.
            let halves = |v: &[f32]| v.iter().map(|&x| half::f16::from_f32(x)).collect::<Vec<_>>();
            let (keys16, vals16) = (halves(&keys), halves(&vals));
            let widen = |v: &[half::f16]| v.iter().map(|x| x.to_f32()).collect::<Vec<_>>();
            let (keys_wide, vals_wide) = (widen(&keys16), widen(&vals16));
            // By matrix products over blocks of rows, and row by row.
            for row_by_row in [false, true] {
                let mut out = vec![0f32; n * heads.query_width()];
                let kv = Kv::F32 { keys: &keys, values: &vals };
                let queries = Queries { q: &q, kv, start, n, heads, window, scale, row_by_row };
                attend(queries, &mut out);
                let expected = naive(queries);
                for (a, b) in out.iter().zip(&expected) {
                    prop_assert!((a - b).abs() < 1e-4, "{a} vs {b} (row by row: {row_by_row})");
                }
                let mut out16 = vec![0f32; n * heads.query_width()];
                let kv = Kv::F16 { keys: &keys16, values: &vals16 };
                attend(Queries { kv, ..queries }, &mut out16);
                let mut wide = vec![0f32; n * heads.query_width()];
                let kv = Kv::F32 { keys: &keys_wide, values: &vals_wide };
                attend(Queries { kv, ..queries }, &mut wide);
                prop_assert!(
                    out16.iter().zip(&wide).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "f16 rows differ from their widened values (row by row: {row_by_row})"
                );
            }
        }
    }
}
