//! Integer products for a prompt chunk: `out = X Wᵀ` with the weights and
//! the activations both as 8-bit integers, as a decode step multiplies
//! them, but many tokens at once: with `vpdpbusd` where the CPU has
//! AVX-512 VNNI, with `vpmaddubsw` where it has AVX2 (a CPU with neither
//! widens the matrix to f32, see `Matrix::matmul_t_parts`).
//!
//! Once per chunk, each quantized row is unpacked into bytes (value + 128,
//! so that they fit the unsigned side of `vpdpbusd`) with the scale and
//! minimum of each sub-block of 32 values (16 in Q2_K, Q3_K and Q6_K)
//! ([`Packed`]), sixteen rows interleaved four values at a time: one
//! register holds four values of sixteen rows, and one `vpdpbusd` against
//! four of a token's values broadcast adds sixteen rows' partial dot
//! products at once. Formats whose values span sixteen or fewer (Q4_0,
//! Q4_1, Q4_K, Q2_K, Q3_K) are packed two values a byte, as nibbles
//! lifted into 0–15, and split in registers: half the bytes to read. Each token's activations are quantized as
//! [`Q8Vector`]s, as for a decode step.
//!
//! The integer sums are exact; each sub-block's sum is then scaled and
//! added in f32, in the same order in the portable reference and the
//! AVX-512 and AVX2 kernels, so the three agree bit for bit. Against a token-by-token
//! [`dot_rows`](super::dot_rows) only the order of the f32 additions
//! differs.

use super::super::kernels::{avx512_vnni, isa, Isa};
use super::{Q8Vector, Quant, Unpacked, QK};

/// Rows packed side by side: the sixteen f32 lanes of one AVX-512 register.
pub(crate) const GROUP: usize = 16;

/// The values that share one scale and minimum in `quant`: 16 in the
/// formats with sixteen sub-scales a block, 32 in the others. Each such
/// sub-block's integer sum is scaled once.
fn sub_values(quant: Quant) -> usize {
    match quant {
        Quant::Q2K | Quant::Q3K | Quant::Q6K => 16,
        _ => 32,
    }
}

/// Whether `quant` stores values with a minimum (`scale · q − min`);
/// the others' minimums are all zero, and their term is skipped.
fn has_minimums(quant: Quant) -> bool {
    matches!(
        quant,
        Quant::Q5_1 | Quant::Q4_1 | Quant::Q2K | Quant::Q4K | Quant::Q5K
    )
}

/// What a stored value is lifted by, to make it unsigned: the packed
/// byte is `q + 128`, and `128 · Σx` comes off each sum.
const LIFT: i32 = 128;

/// What lifts `quant`'s values into 0–15, for the formats whose values
/// span at most sixteen: they are packed two a byte, as nibbles, which
/// halves the bytes a product reads.
fn nibble_lift(quant: Quant) -> Option<i32> {
    match quant {
        Quant::Q4_0 => Some(8),
        Quant::Q3K => Some(4),
        Quant::Q4_1 | Quant::Q4K | Quant::Q2K => Some(0),
        _ => None,
    }
}

/// A quantized matrix unpacked for [`product`].
#[derive(Debug, Default)]
pub(crate) struct Packed {
    rows: usize,
    cols: usize,
    /// Values per sub-block ([`sub_values`]).
    sub: usize,
    /// Per group of [`GROUP`] rows and per sub-block: its bytes,
    /// laid out `[value / 4][row][value % 4]`; as nibbles, word `k` of
    /// the sub-block's `W` in the low nibbles of word `k % (W / 2)`'s
    /// bytes where `k < W / 2`, in the high nibbles otherwise.
    values: Vec<u8>,
    /// Per group and per sub-block: each row's scale.
    scales: Vec<f32>,
    /// As `scales`: each row's minimum (`value = scale · q − min`).
    mins: Vec<f32>,
    /// Whether the format stores a minimum ([`has_minimums`]).
    has_mins: bool,
    /// What each value was lifted by (`128`, or a [`nibble_lift`]).
    lift: i32,
    /// Whether the values are nibbles ([`nibble_lift`]).
    nibbles: bool,
}

impl Packed {
    /// Unpacks the rows of `cols` values of `quant` in `w`, reusing the
    /// buffers; groups of rows are unpacked on rayon's threads.
    pub(crate) fn pack(&mut self, quant: Quant, w: &[u8], cols: usize) {
        use rayon::prelude::*;
        let row_bytes = quant.row_bytes(cols);
        let rows = w.len() / row_bytes.max(1);
        let sub = sub_values(quant);
        let subs = cols / sub;
        self.rows = rows;
        self.cols = cols;
        self.sub = sub;
        self.nibbles = nibble_lift(quant).is_some();
        self.lift = nibble_lift(quant).unwrap_or(LIFT);
        let groups = rows.div_ceil(GROUP);
        // Padding rows have a zero scale and minimum: they add nothing.
        self.values.clear();
        self.values.resize(groups * subs * self.sub_bytes(), 0);
        self.scales.clear();
        self.scales.resize(groups * subs * GROUP, 0.0);
        self.mins.clear();
        self.mins.resize(groups * subs * GROUP, 0.0);
        let (sub_bytes, lift) = (self.sub_bytes(), self.lift);
        self.values
            .par_chunks_mut(subs * sub_bytes)
            .zip(self.scales.par_chunks_mut(subs * GROUP))
            .zip(self.mins.par_chunks_mut(subs * GROUP))
            .zip(w.par_chunks(GROUP * row_bytes))
            .for_each(|(((values, scales), mins), rows)| {
                let into = Into {
                    values,
                    scales,
                    mins,
                    sub_bytes,
                    lift,
                };
                pack_group(quant, sub, rows, row_bytes, into)
            });
        self.has_mins = has_minimums(quant);
    }

    /// Bytes of one group's sub-block.
    fn sub_bytes(&self) -> usize {
        if self.nibbles {
            GROUP * self.sub / 2
        } else {
            GROUP * self.sub
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.values.len() + 4 * (self.scales.len() + self.mins.len())
    }

    /// Groups of [`GROUP`] rows (the last may be short).
    pub(crate) fn groups(&self) -> usize {
        self.rows.div_ceil(GROUP)
    }
}

/// One group's share of [`Packed`]'s buffers, and how its values are laid.
struct Into<'a> {
    values: &'a mut [u8],
    scales: &'a mut [f32],
    mins: &'a mut [f32],
    sub_bytes: usize,
    lift: i32,
}

/// One group's rows (`rows`, whole rows of `row_bytes`) into its share of
/// [`Packed`]'s buffers.
fn pack_group(quant: Quant, sub: usize, rows: &[u8], row_bytes: usize, into: Into<'_>) {
    let Into {
        values,
        scales,
        mins,
        sub_bytes,
        lift,
    } = into;
    let half = sub / 8;
    let mut u = Unpacked::default();
    let per_block = quant.block_values() / sub;
    for (lane, row) in rows.chunks_exact(row_bytes).enumerate() {
        for (b, block) in row.chunks_exact(quant.block_bytes()).enumerate() {
            u.unpack(quant, block);
            for s in 0..per_block {
                let at = b * per_block + s;
                // `Unpacked` keeps a scale per 16 values; a sub-block of 32
                // has the same one twice.
                scales[at * GROUP + lane] = u.scale[s * sub / 16];
                mins[at * GROUP + lane] = u.min[s * sub / 16];
                let out = &mut values[at * sub_bytes..][..sub_bytes];
                let q = &u.q[sub * s..sub * (s + 1)];
                if sub_bytes < GROUP * sub {
                    // Nibbles: word `k` low, word `k + half` high; no
                    // carry crosses a byte, each nibble being at most 15.
                    let lifted = |at: usize| {
                        u32::from_le_bytes(std::array::from_fn(|i| (q[at + i] as i32 + lift) as u8))
                    };
                    for (k, out) in out.chunks_exact_mut(4 * GROUP).enumerate() {
                        let word = lifted(4 * k) | lifted(4 * (k + half)) << 4;
                        out[4 * lane..][..4].copy_from_slice(&word.to_le_bytes());
                    }
                    continue;
                }
                let words = q.chunks_exact(4);
                // Four values a word: flipping the sign bit adds 128.
                for (out, q) in out.chunks_exact_mut(4 * GROUP).zip(words) {
                    let word = u32::from_le_bytes([q[0], q[1], q[2], q[3]].map(|q| q as u8));
                    let at = &mut out[4 * lane..][..4];
                    at.copy_from_slice(&(word ^ 0x8080_8080).to_le_bytes());
                }
            }
        }
    }
}

/// What [`product`] needs of each token's quantized activations, per
/// sub-block: `128 · Σx` (to take off the lifted sum), the block's scale,
/// and the scale times `Σx` (for the minimum).
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    lifted: Vec<i32>,
    scales: Vec<f32>,
    scaled_sums: Vec<f32>,
}

impl Tokens {
    /// The terms of `xs` for each sub-block of `w`.
    pub(crate) fn of(&mut self, w: &Packed, xs: &[Q8Vector]) {
        self.lifted.clear();
        self.scales.clear();
        self.scaled_sums.clear();
        // `Q8Vector` sums each 16 values.
        let halves = w.sub / 16;
        for x in xs {
            for (s, sums) in x.sums.chunks_exact(halves).enumerate() {
                let sum: i32 = sums.iter().sum();
                let scale = x.scales[s * w.sub / QK];
                self.lifted.push(w.lift * sum);
                self.scales.push(scale);
                self.scaled_sums.push(scale * sum as f32);
            }
        }
    }
}

/// Whether [`product`] has a SIMD kernel on this CPU (AVX-512 VNNI, or
/// AVX2); without one a chunk widens the matrix instead.
pub(crate) fn available() -> bool {
    avx512_vnni() || isa() != Isa::Portable
}

/// `out[t][lane] = row (GROUP · g + lane) · xs[t]`: group `g`'s rows
/// times every token, `out` holding [`GROUP`] values per token (padding
/// rows give 0).
pub(crate) fn product(w: &Packed, xs: &[Q8Vector], t: &Tokens, g: usize, out: &mut [f32]) {
    debug_assert_eq!(out.len(), xs.len() * GROUP);
    #[cfg(target_arch = "x86_64")]
    {
        if avx512_vnni() {
            // SAFETY: `avx512_vnni` saw AVX-512 F, BW and VNNI on this CPU.
            return unsafe { avx512::product(w, xs, t, g, out) };
        }
        if isa() == Isa::Avx2Fma {
            // SAFETY: `isa` saw AVX2 and FMA on this CPU.
            return unsafe { avx2::product(w, xs, t, g, out) };
        }
    }
    portable(w, xs, t, g, out);
}

/// [`product`]'s sums for every group of `w` (`sums`, group after group,
/// each the same tokens) into `out`: a row of `w`'s rows per token, the
/// tokens on rayon's threads.
pub(crate) fn place(w: &Packed, sums: &[f32], out: &mut [f32]) {
    use rayon::prelude::*;
    let width = out.len() / w.rows.max(1) * GROUP;
    out.par_chunks_exact_mut(w.rows)
        .enumerate()
        .for_each(|(t, out)| {
            let mut groups = out.chunks_exact_mut(GROUP);
            for (g, out) in (&mut groups).enumerate() {
                // A whole group is a fixed-size copy, not a call to memcpy.
                let sums: &[f32; GROUP] =
                    sums[g * width + t * GROUP..][..GROUP].try_into().unwrap();
                *<&mut [f32; GROUP]>::try_from(out).unwrap() = *sums;
            }
            let last = groups.into_remainder();
            if !last.is_empty() {
                let g = w.rows / GROUP;
                last.copy_from_slice(&sums[g * width + t * GROUP..][..last.len()]);
            }
        });
}

/// The reference [`product`]: each sum taken in the kernel's order.
pub(crate) fn portable(w: &Packed, xs: &[Q8Vector], t: &Tokens, g: usize, out: &mut [f32]) {
    let subs = w.cols / w.sub;
    for (j, (x, out)) in xs.iter().zip(out.chunks_exact_mut(GROUP)).enumerate() {
        out.fill(0.0);
        for s in 0..subs {
            let sub = g * subs + s;
            let values = &w.values[sub * w.sub_bytes()..][..w.sub_bytes()];
            let xv = &x.values[s * w.sub..][..w.sub];
            let at = j * subs + s;
            let half = w.sub / 8;
            for (lane, acc) in out.iter_mut().enumerate() {
                let mut dot = 0i32;
                for (k, x) in xv.iter().enumerate() {
                    let q = if w.nibbles {
                        let (word, byte) = (k / 4, k % 4);
                        let b = values[(word % half) * GROUP * 4 + lane * 4 + byte];
                        if word < half {
                            b & 0xF
                        } else {
                            b >> 4
                        }
                    } else {
                        values[(k / 4) * GROUP * 4 + lane * 4 + k % 4]
                    };
                    dot += q as i32 * *x as i32;
                }
                let dot = (dot - t.lifted[at]) as f32;
                let scale = w.scales[sub * GROUP + lane] * t.scales[at];
                *acc = dot.mul_add(scale, *acc);
                if w.has_mins {
                    *acc = (-w.mins[sub * GROUP + lane]).mul_add(t.scaled_sums[at], *acc);
                }
            }
        }
    }
}

/// `each(tile, first, out)` for the tokens of `xs`, `tokens` at a time
/// from `first`, with their share of `out` ([`GROUP`] values a token).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn in_tiles(
    xs: &[Q8Vector],
    out: &mut [f32],
    tokens: usize,
    mut each: impl FnMut(&[Q8Vector], usize, &mut [f32]),
) {
    let tiles = xs.chunks(tokens).zip(out.chunks_mut(tokens * GROUP));
    for (i, (tile, out)) in tiles.enumerate() {
        each(tile, i * tokens, out);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Packed, Tokens, GROUP};
    use crate::model::dense::quant::Q8Vector;
    use std::arch::x86_64::*;

    /// Tokens whose sums stay in registers beside one sub-block's values.
    const TOKENS: usize = 8;

    /// # Safety
    /// The CPU must have AVX-512 F, BW and VNNI; as [`super::product`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn product(
        w: &Packed,
        xs: &[Q8Vector],
        t: &Tokens,
        g: usize,
        out: &mut [f32],
    ) {
        // SAFETY (each): as this function's contract.
        unsafe {
            match (w.sub, w.nibbles) {
                (16, false) => tiles::<4, false>(w, xs, t, g, out),
                (16, true) => tiles::<4, true>(w, xs, t, g, out),
                (_, false) => tiles::<8, false>(w, xs, t, g, out),
                (_, true) => tiles::<8, true>(w, xs, t, g, out),
            }
        }
    }

    /// [`tokens`] over the tokens, [`TOKENS`] at a time, for sub-blocks
    /// of `W` words (four values each).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tiles<const W: usize, const NIBBLES: bool>(
        w: &Packed,
        xs: &[Q8Vector],
        t: &Tokens,
        g: usize,
        out: &mut [f32],
    ) {
        super::in_tiles(xs, out, TOKENS, |tile, first, out| {
            // SAFETY (each): as this function's contract.
            unsafe {
                match tile.len() {
                    8 => tokens::<8, W, NIBBLES>(w, tile, t, g, first, out),
                    7 => tokens::<7, W, NIBBLES>(w, tile, t, g, first, out),
                    6 => tokens::<6, W, NIBBLES>(w, tile, t, g, first, out),
                    5 => tokens::<5, W, NIBBLES>(w, tile, t, g, first, out),
                    4 => tokens::<4, W, NIBBLES>(w, tile, t, g, first, out),
                    3 => tokens::<3, W, NIBBLES>(w, tile, t, g, first, out),
                    2 => tokens::<2, W, NIBBLES>(w, tile, t, g, first, out),
                    _ => tokens::<1, W, NIBBLES>(w, tile, t, g, first, out),
                }
            }
        });
    }

    /// Group `g`'s rows times the `K` tokens from `first`, in sub-blocks
    /// of `W` words: one register per word, four values of each row (as
    /// nibbles, one register per two words).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tokens<const K: usize, const W: usize, const NIBBLES: bool>(
        w: &Packed,
        xs: &[Q8Vector],
        t: &Tokens,
        g: usize,
        first: usize,
        out: &mut [f32],
    ) {
        let sub_values = 4 * W;
        let subs = w.cols / sub_values;
        // Each token's values as words of four, read through a pointer
        // fetched once: the sums below stay in registers.
        let x: [*const i32; K] = std::array::from_fn(|j| xs[j].values.as_ptr().cast());
        let mut acc = [_mm512_setzero_ps(); K];
        for s in 0..subs {
            let sub = g * subs + s;
            let values = &w.values[sub * w.sub_bytes()..][..w.sub_bytes()];
            let at: [usize; K] = std::array::from_fn(|j| (first + j) * subs + s);
            let mut dot: [__m512i; K] =
                std::array::from_fn(|j| _mm512_set1_epi32(-t.lifted[at[j]]));
            if NIBBLES {
                let low = _mm512_set1_epi8(0xF);
                for k in 0..W / 2 {
                    // SAFETY: `values` holds `W / 2` registers' bytes, and
                    // each token `cols` values, of which sub-block `s`'s
                    // `W` words.
                    let v = unsafe { _mm512_loadu_si512(values.as_ptr().add(64 * k).cast()) };
                    let (lo, hi) = (
                        _mm512_and_si512(v, low),
                        _mm512_and_si512(_mm512_srli_epi16(v, 4), low),
                    );
                    for j in 0..K {
                        // SAFETY: as above.
                        let (wl, wh) = unsafe {
                            (
                                x[j].add(s * W + k).read_unaligned(),
                                x[j].add(s * W + k + W / 2).read_unaligned(),
                            )
                        };
                        dot[j] = _mm512_dpbusd_epi32(dot[j], lo, _mm512_set1_epi32(wl));
                        dot[j] = _mm512_dpbusd_epi32(dot[j], hi, _mm512_set1_epi32(wh));
                    }
                }
            }
            for k in (0..W).filter(|_| !NIBBLES) {
                // SAFETY: `values` holds `W` registers' bytes, and each
                // token `cols` values, of which sub-block `s`'s `W` words.
                let v = unsafe { _mm512_loadu_si512(values.as_ptr().add(64 * k).cast()) };
                for j in 0..K {
                    // SAFETY: as above.
                    let word = unsafe { x[j].add(s * W + k).read_unaligned() };
                    dot[j] = _mm512_dpbusd_epi32(dot[j], v, _mm512_set1_epi32(word));
                }
            }
            // SAFETY: sixteen floats from `sub * GROUP` in each.
            let (scales, mins) = unsafe {
                (
                    _mm512_loadu_ps(w.scales.as_ptr().add(sub * GROUP)),
                    _mm512_loadu_ps(w.mins.as_ptr().add(sub * GROUP)),
                )
            };
            for j in 0..K {
                let scale = _mm512_mul_ps(scales, _mm512_set1_ps(t.scales[at[j]]));
                acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[j]), scale, acc[j]);
                if w.has_mins {
                    let sums = _mm512_set1_ps(t.scaled_sums[at[j]]);
                    acc[j] = _mm512_fnmadd_ps(mins, sums, acc[j]);
                }
            }
        }
        for (acc, out) in acc.iter().zip(out.chunks_exact_mut(GROUP)) {
            // SAFETY: `out` holds sixteen floats.
            unsafe { _mm512_storeu_ps(out.as_mut_ptr(), *acc) };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Packed, Tokens, GROUP};
    use crate::model::dense::quant::Q8Vector;
    use std::arch::x86_64::*;

    /// Tokens whose sums (two registers each) stay in registers.
    const TOKENS: usize = 4;

    /// [`super::product`] without VNNI: each packed byte made signed
    /// again (`q = byte − 128`), and `vpmaddubsw` taking |q| against the
    /// token's values with q's sign (ggml's trick: |q| ≤ 128 and |x| ≤
    /// 127, so no pair of products saturates 16 bits). The sums are the
    /// exact integers the reference takes, and the f32 steps its own.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn product(
        w: &Packed,
        xs: &[Q8Vector],
        t: &Tokens,
        g: usize,
        out: &mut [f32],
    ) {
        super::in_tiles(xs, out, TOKENS, |tile, first, out| {
            // SAFETY (each): as this function's contract.
            unsafe {
                match (tile.len(), w.nibbles) {
                    (4, false) => tokens::<4, false>(w, tile, t, g, first, out),
                    (3, false) => tokens::<3, false>(w, tile, t, g, first, out),
                    (2, false) => tokens::<2, false>(w, tile, t, g, first, out),
                    (_, false) => tokens::<1, false>(w, tile, t, g, first, out),
                    (4, true) => tokens::<4, true>(w, tile, t, g, first, out),
                    (3, true) => tokens::<3, true>(w, tile, t, g, first, out),
                    (2, true) => tokens::<2, true>(w, tile, t, g, first, out),
                    (_, true) => tokens::<1, true>(w, tile, t, g, first, out),
                }
            }
        });
    }

    /// Group `g`'s rows times the `K` tokens from `first`: each word of
    /// four values is two registers (rows 0–7 and 8–15); nibbles, small
    /// and unsigned, take `vpmaddubsw` as they are.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tokens<const K: usize, const NIBBLES: bool>(
        w: &Packed,
        xs: &[Q8Vector],
        t: &Tokens,
        g: usize,
        first: usize,
        out: &mut [f32],
    ) {
        let words = w.sub / 4;
        let subs = w.cols / w.sub;
        let x: [*const i32; K] = std::array::from_fn(|j| xs[j].values.as_ptr().cast());
        let (flip, ones) = (_mm256_set1_epi8(-128), _mm256_set1_epi16(1));
        let mut acc = [[_mm256_setzero_ps(); 2]; K];
        for s in 0..subs {
            let sub = g * subs + s;
            let values = &w.values[sub * w.sub_bytes()..][..w.sub_bytes()];
            let at: [usize; K] = std::array::from_fn(|j| (first + j) * subs + s);
            // The signed bytes' sums need no lift taken off; the
            // nibbles' do.
            let mut dot: [[__m256i; 2]; K] = std::array::from_fn(|j| {
                [_mm256_set1_epi32(if NIBBLES { -t.lifted[at[j]] } else { 0 }); 2]
            });
            if NIBBLES {
                let low = _mm256_set1_epi8(0xF);
                for k in 0..words / 2 {
                    for (h, half) in [0, 32].into_iter().enumerate() {
                        // SAFETY: as below, over `words / 2` words.
                        let v = unsafe {
                            _mm256_loadu_si256(values.as_ptr().add(64 * k + half).cast())
                        };
                        let lo = _mm256_and_si256(v, low);
                        let hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
                        for j in 0..K {
                            // SAFETY: each token holds `cols` values.
                            let (wl, wh) = unsafe {
                                (
                                    x[j].add(s * words + k).read_unaligned(),
                                    x[j].add(s * words + k + words / 2).read_unaligned(),
                                )
                            };
                            let pl = _mm256_maddubs_epi16(lo, _mm256_set1_epi32(wl));
                            let ph = _mm256_maddubs_epi16(hi, _mm256_set1_epi32(wh));
                            let sums = _mm256_madd_epi16(_mm256_add_epi16(pl, ph), ones);
                            dot[j][h] = _mm256_add_epi32(dot[j][h], sums);
                        }
                    }
                }
            }
            for k in (0..words).filter(|_| !NIBBLES) {
                for (h, half) in [0, 32].into_iter().enumerate() {
                    // SAFETY: `values` holds `words` words of sixteen
                    // rows' four bytes; each token `cols` values.
                    let v =
                        unsafe { _mm256_loadu_si256(values.as_ptr().add(64 * k + half).cast()) };
                    let q = _mm256_xor_si256(v, flip);
                    let magnitude = _mm256_abs_epi8(q);
                    for j in 0..K {
                        // SAFETY: as above.
                        let word = unsafe { x[j].add(s * words + k).read_unaligned() };
                        let signed = _mm256_sign_epi8(_mm256_set1_epi32(word), q);
                        let pairs = _mm256_maddubs_epi16(magnitude, signed);
                        let sums = _mm256_madd_epi16(pairs, ones);
                        dot[j][h] = _mm256_add_epi32(dot[j][h], sums);
                    }
                }
            }
            for (h, half) in [0, 8].into_iter().enumerate() {
                // SAFETY: eight floats from `sub * GROUP + half` in each.
                let (scales, mins) = unsafe {
                    (
                        _mm256_loadu_ps(w.scales.as_ptr().add(sub * GROUP + half)),
                        _mm256_loadu_ps(w.mins.as_ptr().add(sub * GROUP + half)),
                    )
                };
                for j in 0..K {
                    let scale = _mm256_mul_ps(scales, _mm256_set1_ps(t.scales[at[j]]));
                    let d = _mm256_cvtepi32_ps(dot[j][h]);
                    acc[j][h] = _mm256_fmadd_ps(d, scale, acc[j][h]);
                    if w.has_mins {
                        let sums = _mm256_set1_ps(t.scaled_sums[at[j]]);
                        acc[j][h] = _mm256_fnmadd_ps(mins, sums, acc[j][h]);
                    }
                }
            }
        }
        for (acc, out) in acc.iter().zip(out.chunks_exact_mut(GROUP)) {
            // SAFETY: `out` holds sixteen floats.
            unsafe {
                _mm256_storeu_ps(out.as_mut_ptr(), acc[0]);
                _mm256_storeu_ps(out.as_mut_ptr().add(8), acc[1]);
            }
        }
    }

    /// [`product`] for the tests, where the CPU has AVX2 and FMA.
    #[cfg(test)]
    pub(super) fn checked(w: &Packed, xs: &[Q8Vector], t: &Tokens, g: usize, out: &mut [f32]) {
        assert!(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"));
        // SAFETY: checked just above.
        unsafe { product(w, xs, t, g, out) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{candle_quantized, iq4_quantized, values, ALL};
    use super::super::{dequantize, dot_rows, Q8Vector, Quant};
    use super::*;
    use proptest::prelude::*;

    type Product = fn(&Packed, &[Q8Vector], &Tokens, usize, &mut [f32]);

    /// `xs` times the packed rows, token by token (`rows` values each).
    fn times(f: Product, w: &Packed, xs: &[Q8Vector]) -> Vec<f32> {
        let mut t = Tokens::default();
        t.of(w, xs);
        let width = xs.len() * GROUP;
        let mut sums = vec![0.0; w.groups() * width];
        for (g, sums) in sums.chunks_exact_mut(width).enumerate() {
            f(w, xs, &t, g, sums);
        }
        let mut out = vec![0.0; xs.len() * w.rows];
        place(w, &sums, &mut out);
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// A chunk's product equals each token's integer dot products as a
        /// decode step takes them (up to the order of the f32 additions),
        /// and the AVX-512 kernel, where the CPU has it, equals the
        /// portable reference bit for bit.
        #[test]
        fn a_chunks_product_is_each_tokens_dot_products(
            blocks in 1usize..3,
            rows in 1usize..40,
            n in 1usize..9,
            seed in 0u32..10_000,
        ) {
            let cols = 256 * blocks;
            let xs: Vec<Q8Vector> = (0..n as u32)
                .map(|j| {
                    let mut q = Q8Vector::default();
                    q.quantize(&values(cols, seed.wrapping_add(99 + j)));
                    q
                })
                .collect();
            let iq4 = [Quant::Iq4Nl, Quant::Iq4Xs].map(|q| (q, iq4_quantized(q, rows, cols, seed).0));
            let formats = ALL
                .into_iter()
                .map(|(quant, dtype)| (quant, candle_quantized(dtype, rows, cols, seed).0))
                .chain(iq4);
            for (quant, bytes) in formats {
                let mut w = Packed::default();
                w.pack(quant, &bytes, cols);
                let reference = times(portable, &w, &xs);
                let kernel = times(product, &w, &xs);
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                prop_assert_eq!(bits(&kernel), bits(&reference), "{:?}", quant);
                #[cfg(target_arch = "x86_64")]
                if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                    let kernel = times(avx2::checked, &w, &xs);
                    prop_assert_eq!(bits(&kernel), bits(&reference), "{:?} (AVX2)", quant);
                }
                let mut wv = vec![0.0; rows * cols];
                dequantize(quant, &bytes, &mut wv);
                for (x, got) in xs.iter().zip(reference.chunks_exact(rows)) {
                    let mut each = vec![0.0; rows];
                    dot_rows(quant, &bytes, x, &mut each);
                    let xv = x.dequantize();
                    for ((a, b), row) in got.iter().zip(&each).zip(wv.chunks_exact(cols)) {
                        let size: f32 = row.iter().zip(&xv).map(|(w, x)| (w * x).abs()).sum();
                        let tolerance = 1e-5 * size + 1e-6;
                        prop_assert!((a - b).abs() <= tolerance, "{:?}: {} vs {}", quant, a, b);
                    }
                }
            }
        }
    }
}
