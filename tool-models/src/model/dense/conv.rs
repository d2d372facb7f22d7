//! LFM2's gated short convolution: a layer that mixes each position with
//! the few before it, channel by channel, instead of attending.
//!
//! The input projection gives three rows per position, `B`, `C` and `x`;
//! the convolution runs over `B·x` and its output is gated by `C`. The
//! cache keeps `B·x` of every position (as an attention layer keeps its
//! keys), so a sequence cut back to any prefix resumes exactly, and
//! decoding one token reads the last `kernel - 1` rows.

use super::matrix::Matrix;
use super::{add, resize, Product, Scratch, Step};
use rayon::prelude::*;

/// A short convolution layer's weights.
#[derive(Debug)]
pub(super) struct ShortConv {
    /// `B`, `C` and `x` projections stacked: rows `3·hidden`.
    pub in_proj: Matrix,
    /// Each channel's taps, the oldest position's first: `hidden × kernel`.
    pub taps: Vec<f32>,
    pub out: Matrix,
    /// `conv_bias`: biases of the input projection, the convolution and
    /// the output projection.
    pub biases: Option<ConvBiases>,
    /// Positions each output sees, its own included (`conv_L_cache`).
    pub kernel: usize,
}

/// A causal convolution of each channel over the last `kernel` rows of a
/// sequence (LFM2's, and Mamba-2's before its scan).
pub(super) struct Causal<'a> {
    /// Each channel's taps, the oldest position's first.
    pub taps: &'a [f32],
    pub bias: Option<&'a [f32]>,
    pub kernel: usize,
}

impl Causal<'_> {
    /// Into `out`, the convolution at `position` of the rows `history`
    /// holds (one of `out.len()` values a position, `position` included).
    pub(super) fn at(&self, history: &[f32], position: usize, out: &mut [f32]) {
        let (width, kernel) = (out.len(), self.kernel);
        // The taps that reach back before the first position see zeros
        // (transformers pads on the left).
        let skip = (kernel - 1).saturating_sub(position);
        let oldest = position + 1 + skip - kernel;
        for (c, y) in out.iter_mut().enumerate() {
            let taps = &self.taps[c * kernel..][..kernel];
            let mut sum = self.bias.map_or(0.0, |b| b[c]);
            for (k, tap) in taps.iter().enumerate().skip(skip) {
                sum += tap * history[(oldest + k - skip) * width + c];
            }
            *y = sum;
        }
    }
}

/// A short convolution's biases (`conv_bias: true`).
#[derive(Debug)]
pub(super) struct ConvBiases {
    pub input: Vec<f32>,
    pub conv: Vec<f32>,
    pub output: Vec<f32>,
}

impl ShortConv {
    /// Layer `index` on the normed rows `s.normed`: appends each step's
    /// `B·x` to its cache and leaves the layer's output in `s.proj`.
    pub(super) fn run(
        &self,
        index: usize,
        steps: &mut [Step<'_>],
        s: &mut Scratch,
        product: &Product<'_>,
    ) {
        let h = self.out.rows();
        let n = s.normed.len() / h;
        resize(&mut s.conv, n * 3 * h);
        resize(&mut s.gated, n * h);
        product(&self.in_proj, &s.normed, &mut s.conv);
        let biases = self.biases.as_ref();
        if let Some(b) = biases {
            s.conv
                .par_chunks_mut(3 * h)
                .for_each(|row| add(row, &b.input));
        }
        // B·x into the gated rows' room, to be appended to the caches.
        (s.gated.par_chunks_mut(h))
            .zip(s.conv.par_chunks(3 * h))
            .for_each(|(bx, row)| {
                for ((out, b), x) in bx.iter_mut().zip(&row[..h]).zip(&row[2 * h..]) {
                    *out = b * x;
                }
            });
        let mut first = 0;
        for step in steps.iter_mut() {
            let m = step.tokens.len();
            let start = step.cache.len();
            step.cache
                .append(index, &s.gated[first * h..][..m * h], &[]);
            let history = step.cache.history(index);
            let rows = &s.conv[first * 3 * h..][..m * 3 * h];
            let gated = &mut s.gated[first * h..][..m * h];
            let causal = Causal {
                taps: &self.taps,
                bias: biases.map(|b| &b.conv[..]),
                kernel: self.kernel,
            };
            (gated.par_chunks_mut(h))
                .zip(rows.par_chunks(3 * h))
                .enumerate()
                .for_each(|(j, (y, row))| {
                    causal.at(history, start + j, y);
                    for (y, gate) in y.iter_mut().zip(&row[h..2 * h]) {
                        *y *= gate;
                    }
                });
            first += m;
        }
        product(&self.out, &s.gated, &mut s.proj);
        if let Some(b) = biases {
            s.proj.par_chunks_mut(h).for_each(|row| add(row, &b.output));
        }
    }
}
