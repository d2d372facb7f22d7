//! Fused CPU kernels, each with its backward pass, for the operations of the decoder that
//! dominate training time when written as chains of primitive tensor operations.
//!
//! candle's own fused kernels (`candle_nn::ops::rms_norm`, `softmax_last_dim`,
//! `rotary_emb::rope`) have no backward pass, so gradients would silently stop at them;
//! the primitive-operation versions (see `reference.rs`, used by the tests) are correct but
//! make many passes over large tensors and allocate a buffer for each. Every kernel here
//! computes each output row in a fixed order of operations on one thread, so results do not
//! depend on the number of threads or on scheduling (resuming a run stays bit-exact).

use std::sync::Arc;

use candle_core::{bail, CpuStorage, CustomOp1, CustomOp2, Layout, Result, Shape, Storage, Tensor};

/// Below this many output values a kernel runs on the calling thread alone.
const PARALLEL_MIN: usize = 32 * 1024;

/// The contiguous f32 values of a CPU storage seen through `layout`.
fn cpu_values<'a>(storage: &'a CpuStorage, layout: &Layout, op: &str) -> Result<&'a [f32]> {
    let all = storage.as_slice::<f32>()?;
    match layout.contiguous_offsets() {
        Some((start, end)) => Ok(&all[start..end]),
        None => bail!("{op}: expected a contiguous input"),
    }
}

/// The contiguous f32 values of a two-input kernel's inputs.
fn both_values<'a>(
    (s1, l1): (&'a CpuStorage, &Layout),
    (s2, l2): (&'a CpuStorage, &Layout),
    op: &str,
) -> Result<(&'a [f32], &'a [f32])> {
    Ok((cpu_values(s1, l1, op)?, cpu_values(s2, l2, op)?))
}

/// Runs `f` on the contiguous f32 values of `t`.
fn with_values<R>(t: &Tensor, op: &str, f: impl FnOnce(&[f32]) -> Result<R>) -> Result<R> {
    let t = t.contiguous()?;
    let (storage, layout) = t.storage_and_layout();
    match &*storage {
        Storage::Cpu(cpu) => f(cpu_values(cpu, layout, op)?),
        _ => bail!("{op}: expected a tensor on the CPU"),
    }
}

/// Fills `out`, `row_len` values per row, calling `f(row_index, row)` for every row, on as
/// many threads as candle uses when the rows cost `row_cost` operations or more in all.
///
/// Rows are dealt to threads in small interleaved blocks, so that rows of uneven cost (the
/// causal softmax's grow with the position) are shared evenly.
fn parallel_rows<F>(out: &mut [f32], row_len: usize, row_cost: usize, f: F)
where
    F: Fn(usize, &mut [f32]) + Sync,
{
    if row_len == 0 {
        return;
    }
    let rows = out.len() / row_len;
    let threads = candle_core::utils::get_num_threads().clamp(1, rows.max(1));
    if threads == 1 || rows * row_cost < PARALLEL_MIN {
        for (r, row) in out.chunks_mut(row_len).enumerate() {
            f(r, row);
        }
        return;
    }
    let block = rows.div_ceil(threads * 16).max(1);
    let mut shares: Vec<Vec<(usize, &mut [f32])>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, chunk) in out.chunks_mut(block * row_len).enumerate() {
        shares[i % threads].push((i * block, chunk));
    }
    std::thread::scope(|scope| {
        for share in shares {
            let f = &f;
            scope.spawn(move || {
                for (first, chunk) in share {
                    for (i, row) in chunk.chunks_mut(row_len).enumerate() {
                        f(first + i, row);
                    }
                }
            });
        }
    });
}

/// What a kernel's `cpu_fwd` returns: the output's values and shape.
type Forward = Result<(CpuStorage, Shape)>;

fn output(values: Vec<f32>, shape: impl Into<Shape>) -> (CpuStorage, Shape) {
    (CpuStorage::F32(values), shape.into())
}

// ---------------------------------------------------------------------------------------
// RMS norm

/// `x / sqrt(mean(x²) + eps) * w` over the last dimension (Hugging Face's `LlamaRMSNorm`).
struct RmsNorm {
    eps: f32,
}

fn inv_rms(row: &[f32], eps: f32) -> f32 {
    let sum: f32 = row.iter().map(|v| v * v).sum();
    1.0 / (sum / row.len() as f32 + eps).sqrt()
}

impl CustomOp2 for RmsNorm {
    fn name(&self) -> &'static str {
        "train-rms-norm"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Forward {
        let (x, w) = both_values((s1, l1), (s2, l2), self.name())?;
        let h = w.len();
        if l1.dims().last() != Some(&h) {
            bail!(
                "rms norm: expected rows of {h} values, found shape {:?}",
                l1.dims()
            );
        }
        let mut out = vec![0f32; x.len()];
        parallel_rows(&mut out, h, h, |r, y| {
            let row = &x[r * h..(r + 1) * h];
            let inv = inv_rms(row, self.eps);
            for ((y, &x), &w) in y.iter_mut().zip(row).zip(w) {
                *y = x * inv * w;
            }
        });
        Ok(output(out, l1.shape().clone()))
    }

    fn bwd(
        &self,
        x: &Tensor,
        w: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let h = w.elem_count();
        with_values(x, self.name(), |xs| {
            with_values(w, self.name(), |ws| {
                with_values(grad, self.name(), |gs| {
                    // dx = inv * (w·g - x̂ · mean(w·g·x̂)), with x̂ = x · inv.
                    let mut dx = vec![0f32; xs.len()];
                    parallel_rows(&mut dx, h, h, |r, dx| {
                        let row = &xs[r * h..(r + 1) * h];
                        let g = &gs[r * h..(r + 1) * h];
                        let inv = inv_rms(row, self.eps);
                        let dot: f32 = row
                            .iter()
                            .zip(g)
                            .zip(ws)
                            .map(|((x, g), w)| x * inv * g * w)
                            .sum();
                        let mean = dot / h as f32;
                        for (((d, &x), &g), &w) in dx.iter_mut().zip(row).zip(g).zip(ws) {
                            *d = inv * (w * g - x * inv * mean);
                        }
                    });
                    // dw = Σ_rows g · x̂, summed in row order.
                    let mut dw = vec![0f32; h];
                    for (row, g) in xs.chunks(h).zip(gs.chunks(h)) {
                        let inv = inv_rms(row, self.eps);
                        for ((d, &x), &g) in dw.iter_mut().zip(row).zip(g) {
                            *d += g * x * inv;
                        }
                    }
                    let dx = Tensor::from_vec(dx, x.shape(), x.device())?;
                    let dw = Tensor::from_vec(dw, w.shape(), w.device())?;
                    Ok((Some(dx), Some(dw)))
                })
            })
        })
    }
}

/// RMS normalisation of the last dimension of `x`, scaled by `weight`.
pub(crate) fn rms_norm(x: &Tensor, weight: &Tensor, eps: f64) -> Result<Tensor> {
    x.contiguous()?
        .apply_op2(&weight.contiguous()?, RmsNorm { eps: eps as f32 })
}

// ---------------------------------------------------------------------------------------
// Rotary position embedding

/// RoPE tables: `cos` and `sin` of `position · inv_freq`, `half` values per position.
#[derive(Debug, Clone)]
pub(crate) struct RopeTables {
    pub cos: Arc<Vec<f32>>,
    pub sin: Arc<Vec<f32>>,
    pub half: usize,
}

/// Takes `(batch, seq, heads, head_dim)` (a projection's output, reshaped), rotates each
/// head with the `rotate_half` convention of Hugging Face's Llama, multiplies by `scale`,
/// and returns `(batch, heads, seq, head_dim)`: the transpose attention needs, for free.
struct Rope {
    tables: RopeTables,
    scale: f32,
}

impl Rope {
    /// Moves between the `(b, t, h, d)` and `(b, h, t, d)` layouts, rotating by the angle
    /// (`inverse == false`) or by its opposite, which is the backward pass of a rotation.
    fn apply(&self, input: &[f32], dims: [usize; 4], from_bthd: bool, inverse: bool) -> Vec<f32> {
        let [_, t, h, d] = dims;
        let half = self.tables.half;
        let sign = if inverse { -1.0 } else { 1.0 };
        let mut out = vec![0f32; input.len()];
        // Output rows are (batch, head, position) when going forward, (batch, position, head)
        // when going back; either way, one row is one head at one position.
        parallel_rows(&mut out, d, d, |row, y| {
            let (bi, hi, ti) = if from_bthd {
                (row / (h * t), (row / t) % h, row % t)
            } else {
                (row / (t * h), row % h, (row / h) % t)
            };
            let src = if from_bthd {
                ((bi * t + ti) * h + hi) * d
            } else {
                ((bi * h + hi) * t + ti) * d
            };
            let x = &input[src..src + d];
            let cos = &self.tables.cos[ti * half..(ti + 1) * half];
            let sin = &self.tables.sin[ti * half..(ti + 1) * half];
            for j in 0..half {
                let (c, s) = (cos[j], sign * sin[j]);
                let (x1, x2) = (x[j], x[j + half]);
                y[j] = (x1 * c - x2 * s) * self.scale;
                y[j + half] = (x1 * s + x2 * c) * self.scale;
            }
        });
        out
    }
}

impl CustomOp1 for Rope {
    fn name(&self) -> &'static str {
        "train-rope"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Forward {
        let x = cpu_values(storage, layout, self.name())?;
        let (b, t, h, d) = layout.shape().dims4()?;
        if d != 2 * self.tables.half || t * self.tables.half > self.tables.cos.len() {
            bail!(
                "rope: expected head_dim {} and at most {} positions, found shape {:?}",
                2 * self.tables.half,
                self.tables.cos.len() / self.tables.half.max(1),
                layout.dims()
            );
        }
        Ok(output(
            self.apply(x, [b, t, h, d], true, false),
            (b, h, t, d),
        ))
    }

    fn bwd(&self, arg: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let (b, t, h, d) = arg.dims4()?;
        let dx = with_values(grad, self.name(), |g| {
            Ok(self.apply(g, [b, t, h, d], false, true))
        })?;
        Ok(Some(Tensor::from_vec(dx, (b, t, h, d), arg.device())?))
    }
}

/// RoPE on `(batch, seq, heads, head_dim)`, times `scale`, returned as
/// `(batch, heads, seq, head_dim)`.
pub(crate) fn rope_heads(x: &Tensor, tables: &RopeTables, scale: f64) -> Result<Tensor> {
    x.contiguous()?.apply_op1(Rope {
        tables: tables.clone(),
        scale: scale as f32,
    })
}

// ---------------------------------------------------------------------------------------
// Causal softmax

/// Softmax over the last dimension (keys) where query `i` sees keys `0..=i` only; the
/// query position of a row is its index modulo the number of keys, so several query heads
/// may be stacked along the row axis (grouped-query attention).
struct CausalSoftmax;

impl CustomOp1 for CausalSoftmax {
    fn name(&self) -> &'static str {
        "train-causal-softmax"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Forward {
        let x = cpu_values(storage, layout, self.name())?;
        let t = layout.dims().last().copied().unwrap_or(0);
        let rows_per_block = layout.dims().iter().rev().nth(1).copied().unwrap_or(0);
        if t == 0 || rows_per_block % t != 0 {
            bail!(
                "causal softmax: expected rows in multiples of the {t} keys, found shape {:?}",
                layout.dims()
            );
        }
        let mut out = vec![0f32; x.len()];
        parallel_rows(&mut out, t, t, |r, y| {
            let seen = r % t + 1;
            let row = &x[r * t..r * t + seen];
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0f32;
            for (y, &x) in y.iter_mut().zip(row) {
                *y = (x - max).exp();
                sum += *y;
            }
            let inv = 1.0 / sum;
            for y in &mut y[..seen] {
                *y *= inv;
            }
        });
        Ok(output(out, layout.shape().clone()))
    }

    fn bwd(&self, _arg: &Tensor, res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let t = res.dims().last().copied().unwrap_or(0);
        let dx = with_values(res, self.name(), |p| {
            with_values(grad, self.name(), |g| {
                let mut dx = vec![0f32; p.len()];
                parallel_rows(&mut dx, t, t, |r, d| {
                    let seen = r % t + 1;
                    let p = &p[r * t..r * t + seen];
                    let g = &g[r * t..r * t + seen];
                    let dot: f32 = p.iter().zip(g).map(|(p, g)| p * g).sum();
                    for ((d, &p), &g) in d.iter_mut().zip(p).zip(g) {
                        *d = p * (g - dot);
                    }
                });
                Ok(dx)
            })
        })?;
        Ok(Some(Tensor::from_vec(dx, res.shape(), res.device())?))
    }
}

/// Causal softmax of attention scores `(..., queries, keys)` (see [`CausalSoftmax`]).
pub(crate) fn causal_softmax(scores: &Tensor) -> Result<Tensor> {
    scores.contiguous()?.apply_op1(CausalSoftmax)
}

// ---------------------------------------------------------------------------------------
// SwiGLU

/// `silu(gate) * up`.
struct SwiGlu;

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl CustomOp2 for SwiGlu {
    fn name(&self) -> &'static str {
        "train-swiglu"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Forward {
        let (gate, up) = both_values((s1, l1), (s2, l2), self.name())?;
        if l1.dims() != l2.dims() {
            bail!(
                "swiglu: expected gate and up of one shape, found {:?} and {:?}",
                l1.dims(),
                l2.dims()
            );
        }
        let width = l1.dims().last().copied().unwrap_or(1);
        let mut out = vec![0f32; gate.len()];
        parallel_rows(&mut out, width, width, |r, y| {
            let span = r * width..(r + 1) * width;
            for ((y, &g), &u) in y.iter_mut().zip(&gate[span.clone()]).zip(&up[span]) {
                *y = g * sigmoid(g) * u;
            }
        });
        Ok(output(out, l1.shape().clone()))
    }

    fn bwd(
        &self,
        gate: &Tensor,
        up: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let width = gate.dims().last().copied().unwrap_or(1);
        let (d_gate, d_up) = with_values(gate, self.name(), |gs| {
            with_values(up, self.name(), |us| {
                with_values(grad, self.name(), |os| {
                    let mut d_gate = vec![0f32; gs.len()];
                    let mut d_up = vec![0f32; gs.len()];
                    parallel_rows(&mut d_gate, width, width, |r, d| {
                        let span = r * width..(r + 1) * width;
                        for (((d, &g), &u), &o) in d
                            .iter_mut()
                            .zip(&gs[span.clone()])
                            .zip(&us[span.clone()])
                            .zip(&os[span])
                        {
                            let s = sigmoid(g);
                            *d = o * u * s * (1.0 + g * (1.0 - s));
                        }
                    });
                    parallel_rows(&mut d_up, width, width, |r, d| {
                        let span = r * width..(r + 1) * width;
                        for ((d, &g), &o) in d.iter_mut().zip(&gs[span.clone()]).zip(&os[span]) {
                            *d = o * g * sigmoid(g);
                        }
                    });
                    Ok((d_gate, d_up))
                })
            })
        })?;
        Ok((
            Some(Tensor::from_vec(d_gate, gate.shape(), gate.device())?),
            Some(Tensor::from_vec(d_up, up.shape(), up.device())?),
        ))
    }
}

/// `silu(gate) * up`, elementwise.
pub(crate) fn swiglu(gate: &Tensor, up: &Tensor) -> Result<Tensor> {
    gate.contiguous()?.apply_op2(&up.contiguous()?, SwiGlu)
}

// ---------------------------------------------------------------------------------------
// Cross entropy

/// Per-row `logsumexp(logits) - logits[target]` of `(n, vocab)` logits.
struct CrossEntropy {
    targets: Arc<Vec<u32>>,
}

impl CustomOp1 for CrossEntropy {
    fn name(&self) -> &'static str {
        "train-cross-entropy"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Forward {
        let x = cpu_values(storage, layout, self.name())?;
        let (n, v) = layout.shape().dims2()?;
        if n != self.targets.len() {
            bail!(
                "cross entropy: expected {} rows of logits, found {n}",
                self.targets.len()
            );
        }
        let mut out = vec![0f32; n];
        // One value per row: rows are grouped so that each thread gets a share of them.
        parallel_rows(&mut out, 1, v, |r, y| {
            let row = &x[r * v..(r + 1) * v];
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let sum: f32 = row.iter().map(|&x| (x - max).exp()).sum();
            let target = self.targets[r] as usize;
            y[0] = sum.ln() + max - row.get(target).copied().unwrap_or(f32::NAN);
        });
        Ok(output(out, n))
    }

    fn bwd(&self, arg: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let (_, v) = arg.dims2()?;
        let dx = with_values(arg, self.name(), |x| {
            with_values(grad, self.name(), |g| {
                let mut dx = vec![0f32; x.len()];
                parallel_rows(&mut dx, v, v, |r, d| {
                    let row = &x[r * v..(r + 1) * v];
                    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    let mut sum = 0f32;
                    for (d, &x) in d.iter_mut().zip(row) {
                        *d = (x - max).exp();
                        sum += *d;
                    }
                    let scale = g[r] / sum;
                    for d in d.iter_mut() {
                        *d *= scale;
                    }
                    if let Some(d) = d.get_mut(self.targets[r] as usize) {
                        *d -= g[r];
                    }
                });
                Ok(dx)
            })
        })?;
        Ok(Some(Tensor::from_vec(dx, arg.shape(), arg.device())?))
    }
}

/// Per-row cross entropy of `(n, vocab)` logits against `n` target ids, `(n,)`.
pub(crate) fn cross_entropy_rows(logits: &Tensor, targets: &Arc<Vec<u32>>) -> Result<Tensor> {
    logits.contiguous()?.apply_op1(CrossEntropy {
        targets: targets.clone(),
    })
}
