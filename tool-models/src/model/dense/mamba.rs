//! A Mamba-2 layer (Granite 4's hybrid models): a selective state space
//! model that carries one state per head from position to position,
//! instead of attending.
//!
//! The input projection gives, per position, the gate `z`, the rows `xBC`
//! that a short causal convolution mixes (then `x`, `B` and `C`), and one
//! time step per head. Each head's state (`head_dim × state`) decays by
//! `exp(dt·A)` and takes in `dt·x·Bᵀ`; the head's output reads it with
//! `C` and adds `D·x`. The outputs are gated by `silu(z)`, normalised per
//! group and projected back. transformers runs a prompt in chunks of
//! matrix products and a decoded token as one step of the recurrence: the
//! same sums in another order. Here every position is a step of the
//! recurrence.
//!
//! The cache keeps the convolution's inputs of every position (as
//! [`super::conv`] does) and the state after the positions held, with
//! copies of it at some positions (see [`super::KvCache`]).

use super::conv::Causal;
use super::kernels::ROWS_PER_TASK;
use super::{resize, Product, Scratch, Step};
use rayon::prelude::*;

/// A Mamba-2 layer's weights and sizes.
#[derive(Debug)]
pub(super) struct Mamba2 {
    /// `z` (intermediate), `xBC` (conv width) and `dt` (heads) stacked.
    pub in_proj: super::matrix::Matrix,
    /// Each `xBC` channel's taps, the oldest position's first.
    pub conv_taps: Vec<f32>,
    pub conv_bias: Option<Vec<f32>>,
    /// Added to each head's time step before its softplus.
    pub dt_bias: Vec<f32>,
    /// Each head's decay rate, `-exp(A_log)`.
    pub a: Vec<f32>,
    /// Each head's skip connection.
    pub d: Vec<f32>,
    /// The gated norm's weight (intermediate).
    pub norm: Vec<f32>,
    pub out_proj: super::matrix::Matrix,
    pub heads: usize,
    pub head_dim: usize,
    pub state: usize,
    pub groups: usize,
    pub kernel: usize,
    pub eps: f32,
}

impl Mamba2 {
    /// Values of `x` (heads × head_dim).
    fn inner(&self) -> usize {
        self.heads * self.head_dim
    }

    /// Width of the rows the convolution mixes: `x`, `B` and `C`.
    pub(super) fn conv_width(&self) -> usize {
        self.inner() + 2 * self.groups * self.state
    }

    /// Values of the recurrent state: a `head_dim × state` matrix a head.
    pub(super) fn state_size(&self) -> usize {
        self.heads * self.head_dim * self.state
    }

    /// Layer `index` on the normed rows `s.normed`: appends each step's
    /// `xBC` rows to its cache, runs its recurrence from the cached state,
    /// sets the new state, and leaves the layer's output in `s.proj`.
    pub(super) fn run(
        &self,
        index: usize,
        steps: &mut [Step<'_>],
        s: &mut Scratch,
        product: &Product<'_>,
    ) {
        let (inner, width, heads) = (self.inner(), self.conv_width(), self.heads);
        let row = inner + width + heads;
        let n = s.normed.len() / self.out_proj.rows();
        resize(&mut s.conv, n * row);
        resize(&mut s.gated, n * inner);
        resize(&mut s.mixed, n * width);
        product(&self.in_proj, &s.normed, &mut s.conv);
        let mut first = 0;
        for step in steps.iter_mut() {
            let m = step.tokens.len();
            let start = step.cache.len();
            let rows = &s.conv[first * row..][..m * row];
            // The xBC rows, gathered in the room of their convolution to be
            // appended to the cache, which the convolution then reads.
            let mixed = &mut s.mixed[first * width..][..m * width];
            for (xbc, r) in mixed.chunks_exact_mut(width).zip(rows.chunks_exact(row)) {
                xbc.copy_from_slice(&r[inner..inner + width]);
            }
            step.cache.append(index, mixed, &[]);
            let history = step.cache.history(index);
            self.convolve(history, start, mixed);
            let (before, after) = step.cache.states(index);
            // Head by head, each over every position: a head's state
            // stays in the core's cache while it runs through the step.
            let p = self.head_dim;
            resize(&mut s.scan, heads * m * p);
            (s.scan.par_chunks_mut(m * p))
                .zip(after.par_chunks_mut(p * self.state))
                .zip(before.par_chunks(p * self.state))
                .enumerate()
                .for_each(|(h, ((y, state), before))| {
                    state.copy_from_slice(before);
                    for (j, y) in y.chunks_exact_mut(p).enumerate() {
                        let mixed = &mixed[j * width..][..width];
                        let dt = rows[j * row + inner + width + h];
                        self.recur(h, state, mixed, dt, y);
                    }
                });
            let out = &mut s.gated[first * inner..][..m * inner];
            for (j, (y, row)) in out
                .chunks_exact_mut(inner)
                .zip(rows.chunks_exact(row))
                .enumerate()
            {
                for (h, y) in y.chunks_exact_mut(p).enumerate() {
                    y.copy_from_slice(&s.scan[(h * m + j) * p..][..p]);
                }
                self.gate_and_norm(y, &row[..inner]);
            }
            first += m;
        }
        product(&self.out_proj, &s.gated, &mut s.proj);
    }

    /// The causal convolution (and SiLU) of the `xBC` rows of positions
    /// `start..`, over the cached rows before them.
    fn convolve(&self, history: &[f32], start: usize, out: &mut [f32]) {
        let causal = Causal {
            taps: &self.conv_taps,
            bias: self.conv_bias.as_deref(),
            kernel: self.kernel,
        };
        out.par_chunks_mut(self.conv_width())
            .enumerate()
            .with_min_len(ROWS_PER_TASK)
            .for_each(|(j, y)| {
                causal.at(history, start + j, y);
                y.iter_mut().for_each(|v| *v = silu(*v));
            });
    }

    /// One step of head `h`'s recurrence: its `state` takes in the
    /// position's `x` and `B` (from `mixed`) at the time step `dt`, and `y`
    /// gets the head's read-out with `C` plus `D·x`.
    fn recur(&self, h: usize, state: &mut [f32], mixed: &[f32], dt: f32, y: &mut [f32]) {
        let (p, n) = (self.head_dim, self.state);
        let (x, bc) = mixed.split_at(self.inner());
        let (b, c) = bc.split_at(self.groups * n);
        let g = h / (self.heads / self.groups);
        let (b, c) = (&b[g * n..][..n], &c[g * n..][..n]);
        let dt = softplus(dt + self.dt_bias[h]);
        let decay = (dt * self.a[h]).exp();
        let x = &x[h * p..][..p];
        for ((row, y), &x) in state.chunks_exact_mut(n).zip(y.iter_mut()).zip(x) {
            let dx = dt * x;
            for (s, &b) in row.iter_mut().zip(b) {
                *s = *s * decay + dx * b;
            }
            *y = dot(row, c) + self.d[h] * x;
        }
    }

    /// `y · silu(z)`, then an RMS norm over each group of values.
    fn gate_and_norm(&self, y: &mut [f32], z: &[f32]) {
        for (y, &z) in y.iter_mut().zip(z) {
            *y *= silu(z);
        }
        let group = self.inner() / self.groups;
        for (y, w) in y.chunks_exact_mut(group).zip(self.norm.chunks_exact(group)) {
            let mean = y.iter().map(|v| v * v).sum::<f32>() / group as f32;
            let scale = 1.0 / (mean + self.eps).sqrt();
            for (y, w) in y.iter_mut().zip(w) {
                *y = w * (*y * scale);
            }
        }
    }
}

/// `a · b`, in eight running sums the compiler keeps in SIMD lanes.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = (a8.remainder().iter().zip(b8.remainder()))
        .map(|(x, y)| x * y)
        .sum();
    for (a, b) in a8.zip(b8) {
        for i in 0..8 {
            sums[i] += a[i] * b[i];
        }
    }
    sums.iter().sum::<f32>() + tail
}

fn silu(x: f32) -> f32 {
    x / (1.0 + (-x).exp())
}

/// torch's softplus: `ln(1 + eˣ)`, and `x` itself past 20.
fn softplus(x: f32) -> f32 {
    if x > 20.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}
