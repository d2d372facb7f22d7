//! GGUF's block-quantized weights (Q8_0, Q5_0, Q5_1, Q4_0, Q4_1, Q2_K,
//! Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS) computed with as they are stored. A matrix-vector product quantizes the vector to 8 bits
//! in blocks of 32 once, then takes integer dot products against each row
//! (AVX2 where the CPU has it), so a decode step streams a quarter to a half
//! of the bytes of f16 and never widens a weight.
//!
//! Block layouts are ggml's (`ggml-common.h`); the tests check every
//! dequantized value against candle's reading of the same bytes, and the
//! IQ4 formats (which candle does not read) against ggml's formula.

use super::kernels::{isa, Isa};

/// Values per block of a quantized vector.
const QK: usize = 32;

/// A quantized weight format the decoder computes with directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quant {
    /// Blocks of 32: an f16 scale and 32 signed bytes.
    Q8_0,
    /// Blocks of 32: an f16 scale, the fifth bits, and 32 nibbles (value − 16).
    Q5_0,
    /// Blocks of 32: f16 scale and minimum, the fifth bits, 32 nibbles.
    Q5_1,
    /// Blocks of 32: an f16 scale and 32 nibbles (value − 8).
    Q4_0,
    /// Blocks of 32: f16 scale and minimum, and 32 nibbles.
    Q4_1,
    /// Blocks of 256: sixteen 4-bit sub-scales and sub-minimums, 256
    /// two-bit values, f16 scale and minimum.
    Q2K,
    /// Blocks of 256: the third bits, 256 two-bit values (value − 4 where
    /// the third bit is clear), sixteen 6-bit sub-scales (− 32), an f16 scale.
    Q3K,
    /// Blocks of 256: f16 scale and minimum, eight 6-bit sub-scales and
    /// sub-minimums, 256 nibbles.
    Q4K,
    /// Blocks of 256: as Q4_K, with the fifth bits of the 256 values.
    Q5K,
    /// Blocks of 256: 256 six-bit values (value − 32), sixteen 8-bit
    /// sub-scales, an f16 scale.
    Q6K,
    /// Blocks of 32: an f16 scale and 32 nibbles, each an index into
    /// [`IQ4_VALUES`].
    Iq4Nl,
    /// Blocks of 256: an f16 scale, eight 6-bit sub-scales (− 32) and 256
    /// nibbles indexing [`IQ4_VALUES`].
    Iq4Xs,
}

/// The sixteen values an IQ4 nibble stands for (`kvalues_iq4nl`): spaced
/// closer near zero, where most weights are.
const IQ4_VALUES: [i8; 16] = [
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
];

impl Quant {
    /// Every format, in the order errors list them.
    pub(crate) const ALL: [Quant; 12] = [
        Quant::Q8_0,
        Quant::Q5_0,
        Quant::Q5_1,
        Quant::Q4_0,
        Quant::Q4_1,
        Quant::Q2K,
        Quant::Q3K,
        Quant::Q4K,
        Quant::Q5K,
        Quant::Q6K,
        Quant::Iq4Nl,
        Quant::Iq4Xs,
    ];

    /// The format ggml calls `name` (`Q4_K`), if the decoder computes with it.
    pub(crate) fn of(name: &str) -> Option<Quant> {
        Quant::ALL.into_iter().find(|q| q.name() == name)
    }

    /// Values per block.
    pub(crate) fn block_values(self) -> usize {
        match self {
            Quant::Q8_0 | Quant::Q5_0 | Quant::Q5_1 | Quant::Q4_0 | Quant::Q4_1 | Quant::Iq4Nl => {
                32
            }
            Quant::Q2K | Quant::Q3K | Quant::Q4K | Quant::Q5K | Quant::Q6K | Quant::Iq4Xs => 256,
        }
    }

    /// Bytes per block.
    pub(crate) fn block_bytes(self) -> usize {
        match self {
            Quant::Q8_0 => 34,
            Quant::Q5_0 => 22,
            Quant::Q5_1 => 24,
            Quant::Q4_0 => 18,
            Quant::Q4_1 => 20,
            Quant::Q2K => 84,
            Quant::Q3K => 110,
            Quant::Q4K => 144,
            Quant::Q5K => 176,
            Quant::Q6K => 210,
            Quant::Iq4Nl => 18,
            Quant::Iq4Xs => 136,
        }
    }

    /// ggml's name of the format.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Quant::Q8_0 => "Q8_0",
            Quant::Q5_0 => "Q5_0",
            Quant::Q5_1 => "Q5_1",
            Quant::Q4_0 => "Q4_0",
            Quant::Q4_1 => "Q4_1",
            Quant::Q2K => "Q2_K",
            Quant::Q3K => "Q3_K",
            Quant::Q4K => "Q4_K",
            Quant::Q5K => "Q5_K",
            Quant::Q6K => "Q6_K",
            Quant::Iq4Nl => "IQ4_NL",
            Quant::Iq4Xs => "IQ4_XS",
        }
    }

    /// Bytes of a row of `cols` values (a multiple of [`block_values`](Self::block_values)).
    pub(crate) fn row_bytes(self, cols: usize) -> usize {
        cols / self.block_values() * self.block_bytes()
    }
}

/// A vector quantized for the dot products: `x[i] ≈ scales[i / 32] · values[i]`.
#[derive(Debug, Default)]
pub(crate) struct Q8Vector {
    values: Vec<i8>,
    scales: Vec<f32>,
    /// The sum of `values` over each 16, for formats stored with an offset.
    sums: Vec<i32>,
}

impl Q8Vector {
    /// Quantizes `x`, whose length is a multiple of 32, reusing the buffers.
    pub(crate) fn quantize(&mut self, x: &[f32]) {
        debug_assert!(x.len().is_multiple_of(QK));
        self.values.clear();
        self.scales.clear();
        self.sums.clear();
        for block in x.chunks_exact(QK) {
            let (scale, inverse) = block_scale(block);
            self.scales.push(scale);
            for half in block.chunks_exact(16) {
                let mut sum = 0;
                for v in half {
                    let q = round_to_i8(v * inverse);
                    sum += q as i32;
                    self.values.push(q);
                }
                self.sums.push(sum);
            }
        }
    }

    /// The values this vector stands for.
    #[cfg(test)]
    fn dequantize(&self) -> Vec<f32> {
        self.values
            .iter()
            .enumerate()
            .map(|(i, q)| self.scales[i / QK] * *q as f32)
            .collect()
    }
}

/// `v` (within ±127.5) rounded half away from zero, as C's `roundf`; a
/// truncation, which vectorises where `f32::round` is a library call.
#[inline(always)]
fn round_to_i8(v: f32) -> i8 {
    (v + 0.5f32.copysign(v)) as i32 as i8
}

/// A block's scale and its inverse (0 for a block of zeros).
fn block_scale(block: &[f32]) -> (f32, f32) {
    let amax = block.iter().fold(0f32, |m, v| m.max(v.abs()));
    let scale = amax / 127.0;
    (scale, if scale > 0.0 { 1.0 / scale } else { 0.0 })
}

/// `x` rounded as [`Q8Vector::quantize`] rounds it, in f32: a product with
/// widened weights then equals the integer one up to float rounding, so a
/// prompt gives the logits it gives token by token.
pub(crate) fn round_as_q8(x: &[f32], out: &mut [f32]) {
    for (block, out) in x.chunks_exact(QK).zip(out.chunks_exact_mut(QK)) {
        let (scale, inverse) = block_scale(block);
        for (v, o) in block.iter().zip(out) {
            *o = scale * round_to_i8(v * inverse) as f32;
        }
    }
}

/// `out[r] = row r · x` for the rows of `w` (each `quant.row_bytes(x's length)`).
pub(crate) fn dot_rows(quant: Quant, w: &[u8], x: &Q8Vector, out: &mut [f32]) {
    let row_bytes = quant.row_bytes(x.values.len());
    match isa() {
        // SAFETY: `isa` saw AVX2, FMA and F16C on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::dot_rows(quant, w, row_bytes, x, out) },
        Isa::Portable => {
            for (o, row) in out.iter_mut().zip(w.chunks_exact(row_bytes)) {
                *o = dot_portable(quant, row, x);
            }
        }
    }
}

/// The values of whole blocks `w` into `out` (as long as the values).
pub(crate) fn dequantize(quant: Quant, w: &[u8], out: &mut [f32]) {
    let mut u = Unpacked::default();
    let n = quant.block_values();
    for (block, out) in w
        .chunks_exact(quant.block_bytes())
        .zip(out.chunks_exact_mut(n))
    {
        u.unpack(quant, block);
        for (s, (out, q)) in out
            .chunks_exact_mut(16)
            .zip(u.q.chunks_exact(16))
            .enumerate()
        {
            let (scale, min) = (u.scale[s], u.min[s]);
            for (o, q) in out.iter_mut().zip(q) {
                *o = scale * *q as f32 - min;
            }
        }
    }
}

/// The little-endian f16 at `at`, widened. Inlined into every block's
/// loop: a block scale per 32 values made `half`'s call (which checks the
/// CPU each time when F16C is not enabled crate-wide) 14% of decoding.
#[inline(always)]
fn f16_at(bytes: &[u8], at: usize) -> f32 {
    f16_to_f32(u16::from_le_bytes([bytes[at], bytes[at + 1]]))
}

/// An f16's exact f32 value, by moving its bits into place (the exponent
/// rebiased; subnormals renormalised by one subtraction; infinities and
/// NaNs kept).
#[inline(always)]
fn f16_to_f32(h: u16) -> f32 {
    const SHIFTED_EXP: u32 = 0x7c00 << 13;
    let mut bits = u32::from(h & 0x7fff) << 13;
    let exp = bits & SHIFTED_EXP;
    bits += (127 - 15) << 23;
    let value = if exp == SHIFTED_EXP {
        f32::from_bits(bits + ((128 - 16) << 23))
    } else if exp == 0 {
        f32::from_bits(bits + (1 << 23)) - f32::from_bits(113 << 23)
    } else {
        f32::from_bits(bits)
    };
    f32::from_bits(value.to_bits() | (u32::from(h & 0x8000) << 16))
}

/// Q4_K's `j`th 6-bit sub-scale and sub-minimum, packed in 12 bytes.
fn q4k_scale_min(j: usize, s: &[u8]) -> (u8, u8) {
    if j < 4 {
        (s[j] & 63, s[j + 4] & 63)
    } else {
        (
            (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4),
            (s[j + 4] >> 4) | ((s[j] >> 6) << 4),
        )
    }
}

/// 32 IQ4 values from 16 bytes: the low nibbles are the first 16, the high
/// nibbles the next.
fn iq4_values(packed: &[u8], out: &mut [i8]) {
    for (j, v) in packed.iter().enumerate() {
        out[j] = IQ4_VALUES[(v & 0xF) as usize];
        out[j + 16] = IQ4_VALUES[(v >> 4) as usize];
    }
}

/// IQ4_XS's sub-scale of the `sub`th 32 values of block `b`: its low four
/// bits in byte 4 + sub / 2, its high two in the u16 at byte 2.
#[inline(always)]
fn iq4xs_scale(b: &[u8], sub: usize) -> i32 {
    let high = u16::from_le_bytes([b[2], b[3]]);
    let low = (b[4 + sub / 2] >> (4 * (sub % 2))) & 0xF;
    (i32::from(low) | (i32::from((high >> (2 * sub)) & 3) << 4)) - 32
}

/// One block as small integers with the scale and offset of each 16 of
/// them: value `i` is `scale[i / 16] · q[i] − min[i / 16]`.
struct Unpacked {
    q: [i8; 256],
    scale: [f32; 16],
    min: [f32; 16],
}

impl Default for Unpacked {
    fn default() -> Unpacked {
        Unpacked {
            q: [0; 256],
            scale: [0.0; 16],
            min: [0.0; 16],
        }
    }
}

impl Unpacked {
    fn unpack(&mut self, quant: Quant, b: &[u8]) {
        match quant {
            Quant::Q8_0 => {
                let d = f16_at(b, 0);
                self.scale[..2].fill(d);
                self.min[..2].fill(0.0);
                for (q, v) in self.q.iter_mut().zip(&b[2..34]) {
                    *q = *v as i8;
                }
            }
            Quant::Q5_0 | Quant::Q5_1 => {
                // Q5_1 stores the values as they are, with a minimum;
                // Q5_0 stores value + 16 and has none.
                let (offset, min, at) = match quant {
                    Quant::Q5_0 => (16, 0.0, 2),
                    _ => (0, -f16_at(b, 2), 4),
                };
                self.scale[..2].fill(f16_at(b, 0));
                self.min[..2].fill(min);
                let high = u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
                for (j, v) in b[at + 4..at + 20].iter().enumerate() {
                    let low = v & 0xF | (((high >> j) & 1) << 4) as u8;
                    let up = v >> 4 | (((high >> (j + 16)) & 1) << 4) as u8;
                    self.q[j] = low as i8 - offset;
                    self.q[j + 16] = up as i8 - offset;
                }
            }
            Quant::Q4_0 | Quant::Q4_1 => {
                let (offset, min, at) = match quant {
                    Quant::Q4_0 => (8, 0.0, 2),
                    _ => (0, -f16_at(b, 2), 4),
                };
                self.scale[..2].fill(f16_at(b, 0));
                self.min[..2].fill(min);
                for (j, v) in b[at..at + 16].iter().enumerate() {
                    self.q[j] = (v & 0xF) as i8 - offset;
                    self.q[j + 16] = (v >> 4) as i8 - offset;
                }
            }
            Quant::Q2K => {
                let (scales, qs) = (&b[..16], &b[16..80]);
                let (d, dmin) = (f16_at(b, 80), f16_at(b, 82));
                for (s, sc) in scales.iter().enumerate() {
                    self.scale[s] = d * (sc & 0xF) as f32;
                    self.min[s] = dmin * (sc >> 4) as f32;
                }
                // Each 32 bytes hold four 2-bit layers of 32 values, each
                // layer two groups of 16.
                for (n, qs) in qs.chunks_exact(32).enumerate() {
                    for layer in 0..4 {
                        for (l, v) in qs.iter().enumerate() {
                            self.q[128 * n + 32 * layer + l] = ((v >> (2 * layer)) & 3) as i8;
                        }
                    }
                }
            }
            Quant::Q3K => {
                let (hmask, qs, packed) = (&b[..32], &b[32..96], &b[96..108]);
                let d = f16_at(b, 108);
                for s in 0..16 {
                    // Sixteen 6-bit scales: low nibbles in the first eight
                    // bytes, high pairs in the last four.
                    let low = if s < 8 {
                        packed[s] & 0xF
                    } else {
                        packed[s - 8] >> 4
                    };
                    let high = (packed[8 + s % 4] >> (2 * (s / 4))) & 3;
                    self.scale[s] = d * ((low | high << 4) as i8 - 32) as f32;
                    self.min[s] = 0.0;
                }
                for (n, qs) in qs.chunks_exact(32).enumerate() {
                    for layer in 0..4 {
                        let bit = 4 * n + layer;
                        for (l, v) in qs.iter().enumerate() {
                            let low = ((v >> (2 * layer)) & 3) as i8;
                            let third = hmask[l] >> bit & 1;
                            self.q[128 * n + 32 * layer + l] = low - if third == 1 { 0 } else { 4 };
                        }
                    }
                }
            }
            Quant::Q4K | Quant::Q5K => {
                let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
                let scales = &b[4..16];
                for sub in 0..8 {
                    let (sc, m) = q4k_scale_min(sub, scales);
                    self.scale[2 * sub..2 * sub + 2].fill(d * sc as f32);
                    self.min[2 * sub..2 * sub + 2].fill(dmin * m as f32);
                }
                // Q5_K puts the fifth bits of all 256 values between the
                // scales and the nibbles: bit 2·chunk (low half) and
                // 2·chunk + 1 (high half) of byte `l`.
                let (qh, nibbles) = match quant {
                    Quant::Q4K => (None, &b[16..144]),
                    _ => (Some(&b[16..48]), &b[48..176]),
                };
                for (chunk, qs) in nibbles.chunks_exact(32).enumerate() {
                    for (l, v) in qs.iter().enumerate() {
                        let (low, high) = match qh {
                            Some(qh) => (
                                (qh[l] >> (2 * chunk) & 1) << 4,
                                (qh[l] >> (2 * chunk + 1) & 1) << 4,
                            ),
                            None => (0, 0),
                        };
                        self.q[64 * chunk + l] = (v & 0xF | low) as i8;
                        self.q[64 * chunk + 32 + l] = (v >> 4 | high) as i8;
                    }
                }
            }
            Quant::Iq4Nl => {
                self.scale[..2].fill(f16_at(b, 0));
                self.min[..2].fill(0.0);
                iq4_values(&b[2..18], &mut self.q[..32]);
            }
            Quant::Iq4Xs => {
                let d = f16_at(b, 0);
                for sub in 0..8 {
                    let scale = d * iq4xs_scale(b, sub) as f32;
                    self.scale[2 * sub..2 * sub + 2].fill(scale);
                    self.min[2 * sub..2 * sub + 2].fill(0.0);
                    iq4_values(
                        &b[8 + 16 * sub..24 + 16 * sub],
                        &mut self.q[32 * sub..32 * sub + 32],
                    );
                }
            }
            Quant::Q6K => {
                let (ql, qh, scales) = (&b[..128], &b[128..192], &b[192..208]);
                let d = f16_at(b, 208);
                for (s, sc) in scales.iter().enumerate() {
                    self.scale[s] = d * (*sc as i8) as f32;
                    self.min[s] = 0.0;
                }
                for n in 0..2 {
                    let (ql, qh) = (&ql[64 * n..], &qh[32 * n..]);
                    let q = &mut self.q[128 * n..];
                    for l in 0..32 {
                        let h = qh[l];
                        q[l] = ((ql[l] & 0xF) | ((h & 3) << 4)) as i8 - 32;
                        q[l + 32] = ((ql[l + 32] & 0xF) | (((h >> 2) & 3) << 4)) as i8 - 32;
                        q[l + 64] = ((ql[l] >> 4) | (((h >> 4) & 3) << 4)) as i8 - 32;
                        q[l + 96] = ((ql[l + 32] >> 4) | (((h >> 6) & 3) << 4)) as i8 - 32;
                    }
                }
            }
        }
    }
}

/// A row's dot product with `x` block by block: the reference the SIMD
/// versions are tested against.
fn dot_portable(quant: Quant, row: &[u8], x: &Q8Vector) -> f32 {
    let mut u = Unpacked::default();
    let n = quant.block_values();
    let mut sum = 0f32;
    for (b, block) in row.chunks_exact(quant.block_bytes()).enumerate() {
        u.unpack(quant, block);
        for s in 0..n / 16 {
            let at = b * n + 16 * s;
            let dot: i32 = u.q[16 * s..16 * s + 16]
                .iter()
                .zip(&x.values[at..at + 16])
                .map(|(w, v)| *w as i32 * *v as i32)
                .sum();
            let min_term = u.min[s] * x.sums[at / 16] as f32;
            sum += x.scales[at / QK] * (u.scale[s] * dot as f32 - min_term);
        }
    }
    sum
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{f16_at, iq4xs_scale, q4k_scale_min, Q8Vector, Quant, IQ4_VALUES, QK};
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must have AVX2, FMA and F16C; `w` holds whole rows of
    /// `row_bytes`, each as long as `x`.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe fn dot_rows(
        quant: Quant,
        w: &[u8],
        row_bytes: usize,
        x: &Q8Vector,
        out: &mut [f32],
    ) {
        // SAFETY (each arm): as this function's contract.
        unsafe {
            let table = iq4_table();
            match quant {
                Quant::Q8_0 => by_rows(w, row_bytes, 34, out, |b, i, s, o| {
                    add32(q8_0(b, x, i), s, o)
                }),
                Quant::Q5_0 => by_rows(w, row_bytes, 22, out, |b, i, s, o| {
                    add32(q5(b, x, i, false), s, o)
                }),
                Quant::Q5_1 => by_rows(w, row_bytes, 24, out, |b, i, s, o| {
                    add32(q5(b, x, i, true), s, o)
                }),
                Quant::Q4_0 => by_rows(w, row_bytes, 18, out, |b, i, s, o| {
                    add32(q4(b, x, i, false), s, o)
                }),
                Quant::Q4_1 => by_rows(w, row_bytes, 20, out, |b, i, s, o| {
                    add32(q4(b, x, i, true), s, o)
                }),
                Quant::Iq4Nl => by_rows(w, row_bytes, 18, out, |b, i, s, o| {
                    add32(iq4nl(b, table, x, i), s, o)
                }),
                Quant::Q4K => by_rows(w, row_bytes, 144, out, |b, i, s, o| {
                    q4k(b, x, i, false, s, o)
                }),
                Quant::Q5K => by_rows(w, row_bytes, 176, out, |b, i, s, o| {
                    q4k(b, x, i, true, s, o)
                }),
                Quant::Q6K => by_rows(w, row_bytes, 210, out, |b, i, s, o| q6k(b, x, i, s, o)),
                Quant::Iq4Xs => by_rows(w, row_bytes, 136, out, |b, i, s, _| {
                    iq4xs(b, table, x, i, s)
                }),
                // Rare in files, and small: the portable reference.
                Quant::Q2K | Quant::Q3K => {
                    for (o, row) in out.iter_mut().zip(w.chunks_exact(row_bytes)) {
                        *o = super::dot_portable(quant, row, x);
                    }
                }
            }
        }
    }

    /// Bytes this far past a block are asked for early: the hardware's own
    /// prefetch leaves a decode step waiting on memory.
    const AHEAD: usize = 2048;

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn prefetch(block: &[u8]) {
        // A hint only: an address past the matrix is never read.
        _mm_prefetch::<_MM_HINT_T0>(block.as_ptr().wrapping_add(AHEAD).cast());
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn f16(bytes: &[u8], at: usize) -> f32 {
        let bits = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(bits as i32)))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn load(bytes: &[u8], at: usize) -> __m256i {
        debug_assert!(at + 32 <= bytes.len());
        // SAFETY: the caller keeps 32 bytes from `at` inside `bytes`.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().add(at).cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn load_x(x: &Q8Vector, at: usize) -> __m256i {
        debug_assert!(at + 32 <= x.values.len());
        // SAFETY: the caller keeps 32 values from `at` inside `x`.
        unsafe { _mm256_loadu_si256(x.values.as_ptr().add(at).cast()) }
    }

    /// Pairwise sums of unsigned `a` times signed `b` bytes, widened to 8 i32.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn dot_u8_i8(a: __m256i, b: __m256i) -> __m256i {
        _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), _mm256_set1_epi16(1))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn hsum(v: __m256) -> f32 {
        let pair = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let pair = _mm_add_ps(pair, _mm_movehl_ps(pair, pair));
        _mm_cvtss_f32(_mm_add_ss(pair, _mm_movehdup_ps(pair)))
    }

    /// 32 bytes, each 0xFF where bit `i` of `bits` is set.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn bytes_from_bits(bits: u32) -> __m256i {
        let spread = _mm256_shuffle_epi8(
            _mm256_set1_epi32(bits as i32),
            _mm256_set_epi64x(
                0x0303_0303_0303_0303,
                0x0202_0202_0202_0202,
                0x0101_0101_0101_0101,
                0,
            ),
        );
        let mask = _mm256_set1_epi64x(0x7fbf_dfef_f7fb_fdfe);
        _mm256_cmpeq_epi8(_mm256_or_si256(spread, mask), _mm256_set1_epi64x(-1))
    }

    /// Rows taken together by [`by_rows`]: as many memory streams and
    /// independent sums at once, where one row at a time waits on each
    /// block's first load.
    const ROWS: usize = 4;

    /// `out[r] = row r · x` for a format of blocks of `bytes`, [`ROWS`]
    /// rows at a time: `block(block, i, sum, offset)` adds block `i`'s
    /// product with `x` to `sum` (eight lanes, added up at the end), and
    /// to `offset` what is to be subtracted for the offset or minimum its
    /// values are stored with.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn by_rows<F>(w: &[u8], row_bytes: usize, bytes: usize, out: &mut [f32], block: F)
    where
        F: Fn(&[u8], usize, &mut __m256, &mut f32),
    {
        let blocks = row_bytes / bytes;
        for (o, rows) in out.chunks_mut(ROWS).zip(w.chunks(ROWS * row_bytes)) {
            if o.len() == ROWS {
                let mut acc = [_mm256_setzero_ps(); ROWS];
                let mut offset = [0f32; ROWS];
                for i in 0..blocks {
                    for r in 0..ROWS {
                        let at = r * row_bytes + i * bytes;
                        let b = &rows[at..at + bytes];
                        prefetch(b);
                        block(b, i, &mut acc[r], &mut offset[r]);
                    }
                }
                for r in 0..ROWS {
                    o[r] = hsum(acc[r]) - offset[r];
                }
            } else {
                for (o, row) in o.iter_mut().zip(rows.chunks_exact(row_bytes)) {
                    let mut acc = _mm256_setzero_ps();
                    let mut offset = 0f32;
                    for (i, b) in row.chunks_exact(bytes).enumerate() {
                        block(b, i, &mut acc, &mut offset);
                    }
                    *o = hsum(acc) - offset;
                }
            }
        }
    }

    /// A 32-value block's integer dot product, the scale to multiply it by
    /// and its offset (as `q8_0`, `q5`, `q4` and `iq4nl` give them), added
    /// to a row's sums.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn add32((dot, scale, off): (__m256i, f32, f32), sum: &mut __m256, offset: &mut f32) {
        *sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(dot), *sum);
        *offset += off;
    }

    /// A Q8_0 block times `x`'s block `i` (see [`by_rows`]).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn q8_0(block: &[u8], x: &Q8Vector, i: usize) -> (__m256i, f32, f32) {
        let w = load(block, 2);
        let v = load_x(x, i * QK);
        // |w| times v with w's sign: the unsigned-by-signed multiply.
        let dot = dot_u8_i8(_mm256_sign_epi8(w, w), _mm256_sign_epi8(v, w));
        (dot, f16(block, 0) * x.scales[i], 0.0)
    }

    /// 32 IQ4 weights times 32 of `x`'s values from `at`: the 16 bytes
    /// of nibbles at `packed` looked up in `table` (IQ4's values in both
    /// lanes), then multiplied as Q8_0's signed bytes are.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn dot_iq4_32(packed: &[u8], table: __m256i, x: &Q8Vector, at: usize) -> __m256i {
        debug_assert!(packed.len() >= 16);
        // SAFETY: the caller passes 16 bytes of nibbles.
        let packed = unsafe { _mm_loadu_si128(packed.as_ptr().cast()) };
        let low = _mm_set1_epi8(0xF);
        let nibbles = _mm256_set_m128i(
            _mm_and_si128(_mm_srli_epi16(packed, 4), low),
            _mm_and_si128(packed, low),
        );
        let w = _mm256_shuffle_epi8(table, nibbles);
        let v = load_x(x, at);
        dot_u8_i8(_mm256_sign_epi8(w, w), _mm256_sign_epi8(v, w))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn iq4_table() -> __m256i {
        let lane = _mm_loadu_si128(IQ4_VALUES.as_ptr().cast());
        _mm256_set_m128i(lane, lane)
    }

    /// An IQ4_NL block times `x`'s block `i` (see [`by_rows`]).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn iq4nl(block: &[u8], table: __m256i, x: &Q8Vector, i: usize) -> (__m256i, f32, f32) {
        let dot = dot_iq4_32(&block[2..], table, x, i * QK);
        (dot, f16(block, 0) * x.scales[i], 0.0)
    }

    /// An IQ4_XS block times `x`'s blocks from `b · 8`, added to `sum`.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn iq4xs(block: &[u8], table: __m256i, x: &Q8Vector, b: usize, sum: &mut __m256) {
        let d = f16(block, 0);
        for sub in 0..8 {
            let at = b * 256 + 32 * sub;
            let scale = d * iq4xs_scale(block, sub) as f32 * x.scales[at / QK];
            let dot = dot_iq4_32(&block[8 + 16 * sub..], table, x, at);
            *sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(dot), *sum);
        }
    }

    /// A Q5_0 or Q5_1 block times `x`'s block `i` (see [`by_rows`]).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn q5(block: &[u8], x: &Q8Vector, i: usize, with_min: bool) -> (__m256i, f32, f32) {
        let low = _mm_set1_epi8(0xF);
        // Q5_1 adds a minimum after the scale; Q5_0 stores value + 16.
        let at = if with_min { 4 } else { 2 };
        let scale = f16(block, 0) * x.scales[i];
        let high = u32::from_le_bytes([block[at], block[at + 1], block[at + 2], block[at + 3]]);
        // SAFETY: 16 bytes from `at + 4` lie within the block.
        let packed = unsafe { _mm_loadu_si128(block.as_ptr().add(at + 4).cast()) };
        let nibbles = _mm256_set_m128i(
            _mm_and_si128(_mm_srli_epi16(packed, 4), low),
            _mm_and_si128(packed, low),
        );
        let fifth = _mm256_and_si256(bytes_from_bits(high), _mm256_set1_epi8(0x10));
        let w = _mm256_or_si256(nibbles, fifth);
        let dot = dot_u8_i8(w, load_x(x, i * QK));
        (dot, scale, block_offset(block, with_min, 16.0, scale, x, i))
    }

    /// What a 32-value block's stored values are off by, times `x`: the
    /// minimum (Q4_1, Q5_1: value = scale · q + min), or the `shift` the
    /// values are stored with (Q4_0: + 8, Q5_0: + 16).
    #[inline(always)]
    fn block_offset(
        block: &[u8],
        with_min: bool,
        shift: f32,
        scale: f32,
        x: &Q8Vector,
        b: usize,
    ) -> f32 {
        let sum = (x.sums[2 * b] + x.sums[2 * b + 1]) as f32;
        if with_min {
            -f16_at(block, 2) * x.scales[b] * sum
        } else {
            scale * shift * sum
        }
    }

    /// A Q4_0 or Q4_1 block times `x`'s block `i` (see [`by_rows`]).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn q4(block: &[u8], x: &Q8Vector, i: usize, with_min: bool) -> (__m256i, f32, f32) {
        let low = _mm_set1_epi8(0xF);
        let at = if with_min { 4 } else { 2 };
        let scale = f16(block, 0) * x.scales[i];
        // SAFETY: 16 bytes from `at` lie within the block.
        let packed = unsafe { _mm_loadu_si128(block.as_ptr().add(at).cast()) };
        let w = _mm256_set_m128i(
            _mm_and_si128(_mm_srli_epi16(packed, 4), low),
            _mm_and_si128(packed, low),
        );
        let v = load_x(x, i * QK);
        if with_min {
            let offset = block_offset(block, true, 8.0, scale, x, i);
            (dot_u8_i8(w, v), scale, offset)
        } else {
            // Q4_0's values less 8, signed: the multiply Q8_0 takes, with
            // no offset to subtract.
            let w = _mm256_sub_epi8(w, _mm256_set1_epi8(8));
            (
                dot_u8_i8(_mm256_sign_epi8(w, w), _mm256_sign_epi8(v, w)),
                scale,
                0.0,
            )
        }
    }

    /// A Q4_K block (Q5_K with `fifth_bits`) times `x`'s blocks from
    /// `b · 8` (see [`by_rows`]).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn q4k(
        block: &[u8],
        x: &Q8Vector,
        b: usize,
        fifth_bits: bool,
        sum: &mut __m256,
        offset: &mut f32,
    ) {
        let low = _mm256_set1_epi8(0xF);
        let one = _mm256_set1_epi8(1);
        // Q5_K: the fifth bits of the block's 256 values come first.
        let nibbles = if fifth_bits { 48 } else { 16 };
        let (d, dmin) = (f16(block, 0), f16(block, 2));
        let scales = &block[4..16];
        let qh = if fifth_bits {
            load(block, 16)
        } else {
            _mm256_setzero_si256()
        };
        for chunk in 0..4 {
            let q = load(block, nibbles + 32 * chunk);
            let mut halves = [
                _mm256_and_si256(q, low),
                _mm256_and_si256(_mm256_srli_epi16(q, 4), low),
            ];
            if fifth_bits {
                for (half, w) in halves.iter_mut().enumerate() {
                    let shift = _mm_cvtsi32_si128((2 * chunk + half) as i32);
                    let bit = _mm256_and_si256(_mm256_srl_epi16(qh, shift), one);
                    *w = _mm256_or_si256(*w, _mm256_slli_epi16(bit, 4));
                }
            }
            for (half, w) in halves.into_iter().enumerate() {
                let sub = 2 * chunk + half;
                let k = b * 8 + sub;
                let (sc, m) = q4k_scale_min(sub, scales);
                let dot = dot_u8_i8(w, load_x(x, k * QK));
                let scale = d * sc as f32 * x.scales[k];
                *sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(dot), *sum);
                let sums = (x.sums[2 * k] + x.sums[2 * k + 1]) as f32;
                *offset += dmin * m as f32 * x.scales[k] * sums;
            }
        }
    }

    /// A Q6_K block times `x`'s blocks from `b · 8` (see [`by_rows`]).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn q6k(block: &[u8], x: &Q8Vector, b: usize, sum: &mut __m256, offset: &mut f32) {
        let (low, two) = (_mm256_set1_epi8(0xF), _mm256_set1_epi8(3));
        let d = f16(block, 208);
        let scales = &block[192..208];
        for n in 0..2 {
            let ql0 = load(block, 64 * n);
            let ql1 = load(block, 64 * n + 32);
            let qh = load(block, 128 + 32 * n);
            // The two top bits of each value, moved to bits 4 and 5.
            let top = [
                _mm256_slli_epi16(_mm256_and_si256(qh, two), 4),
                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), two), 4),
                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), two), 4),
                _mm256_and_si256(_mm256_srli_epi16(qh, 2), _mm256_set1_epi8(0x30)),
            ];
            let groups = [
                _mm256_or_si256(_mm256_and_si256(ql0, low), top[0]),
                _mm256_or_si256(_mm256_and_si256(ql1, low), top[1]),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low), top[2]),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low), top[3]),
            ];
            for (g, w) in groups.into_iter().enumerate() {
                let k = b * 8 + 4 * n + g;
                let s = 8 * n + 2 * g;
                let (sc0, sc1) = (scales[s] as i8 as i16, scales[s + 1] as i8 as i16);
                let pairs = _mm256_maddubs_epi16(w, load_x(x, k * QK));
                let by_scale = _mm256_set_m128i(_mm_set1_epi16(sc1), _mm_set1_epi16(sc0));
                let dot = _mm256_madd_epi16(pairs, by_scale);
                let scale = d * x.scales[k];
                *sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(dot), *sum);
                // Stored values are value + 32.
                let sums = sc0 as i32 * x.sums[2 * k] + sc1 as i32 * x.sums[2 * k + 1];
                *offset += scale * 32.0 * sums as f32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::quantized::{GgmlDType, QTensor};
    use candle_core::{Device, Tensor};
    use proptest::prelude::*;

    const ALL: [(Quant, GgmlDType); 10] = [
        (Quant::Q8_0, GgmlDType::Q8_0),
        (Quant::Q5_0, GgmlDType::Q5_0),
        (Quant::Q5_1, GgmlDType::Q5_1),
        (Quant::Q4_0, GgmlDType::Q4_0),
        (Quant::Q4_1, GgmlDType::Q4_1),
        (Quant::Q2K, GgmlDType::Q2K),
        (Quant::Q3K, GgmlDType::Q3K),
        (Quant::Q4K, GgmlDType::Q4K),
        (Quant::Q5K, GgmlDType::Q5K),
        (Quant::Q6K, GgmlDType::Q6K),
    ];

    #[test]
    fn every_f16_widens_exactly() {
        for h in 0..=u16::MAX {
            let expected = half::f16::from_bits(h).to_f32();
            let ours = f16_to_f32(h);
            if expected.is_nan() {
                assert!(ours.is_nan(), "{h:#06x}");
            } else {
                assert_eq!(ours.to_bits(), expected.to_bits(), "{h:#06x}");
            }
        }
    }

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| {
                let h = (i as u32 ^ seed)
                    .wrapping_mul(2_654_435_761)
                    .rotate_left(13);
                let u = (h >> 8) as f32 / (1 << 24) as f32;
                // Wide and skewed, so sub-scales and minimums differ by block.
                (u - 0.4) * (1.0 + (i / 37 % 5) as f32)
            })
            .collect()
    }

    /// `rows × cols` values quantized by candle, its bytes and its dequantized values.
    fn candle_quantized(
        dtype: GgmlDType,
        rows: usize,
        cols: usize,
        seed: u32,
    ) -> (Vec<u8>, Vec<f32>) {
        let t = Tensor::from_vec(values(rows * cols, seed), (rows, cols), &Device::Cpu).unwrap();
        let q = QTensor::quantize(&t, dtype).unwrap();
        let deq = q.dequantize(&Device::Cpu).unwrap();
        let bytes = q.data().unwrap().into_owned();
        (bytes, deq.flatten_all().unwrap().to_vec1().unwrap())
    }

    #[test]
    fn dequantized_values_equal_candles_for_every_format() {
        for (quant, dtype) in ALL {
            let (bytes, expected) = candle_quantized(dtype, 3, 512, 7);
            assert_eq!(bytes.len(), 3 * quant.row_bytes(512), "{quant:?}");
            let mut got = vec![0.0; expected.len()];
            dequantize(quant, &bytes, &mut got);
            assert_eq!(got, expected, "{quant:?}");
        }
    }

    /// `rows × cols` values in an IQ4 format from bytes drawn from `seed`
    /// (any nibbles and sub-scales, a scale of moderate size), and their
    /// values by ggml's formula (`dequantize_row_iq4_nl`/`_xs`).
    fn iq4_quantized(quant: Quant, rows: usize, cols: usize, seed: u32) -> (Vec<u8>, Vec<f32>) {
        let n = rows * quant.row_bytes(cols);
        let mut bytes: Vec<u8> = (0..n as u32)
            .map(|i| ((i ^ seed).wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let mut values = Vec::new();
        for (k, block) in bytes.chunks_exact_mut(quant.block_bytes()).enumerate() {
            let d = half::f16::from_f32(0.001 + (k as u32 % 7 + seed % 5) as f32 * 0.003);
            block[..2].copy_from_slice(&d.to_bits().to_le_bytes());
            let d = d.to_f32();
            let (scales, qs): (Vec<f32>, &[u8]) = match quant {
                Quant::Iq4Nl => (vec![d], &block[2..]),
                _ => {
                    let h = u16::from_le_bytes([block[2], block[3]]) as i32;
                    let scales = (0..8)
                        .map(|ib| {
                            let l = (block[4 + ib / 2] as i32 >> (4 * (ib % 2))) & 0xF;
                            d * ((l | ((h >> (2 * ib)) & 3) << 4) - 32) as f32
                        })
                        .collect();
                    (scales, &block[8..])
                }
            };
            for (dl, qs) in scales.iter().zip(qs.chunks_exact(16)) {
                let mut sub = [0f32; 32];
                for j in 0..16 {
                    sub[j] = dl * IQ4_VALUES[(qs[j] & 0xF) as usize] as f32;
                    sub[j + 16] = dl * IQ4_VALUES[(qs[j] >> 4) as usize] as f32;
                }
                values.extend(sub);
            }
        }
        (bytes, values)
    }

    #[test]
    fn iq4_dequantized_values_follow_ggmls_formula() {
        for quant in [Quant::Iq4Nl, Quant::Iq4Xs] {
            let (bytes, expected) = iq4_quantized(quant, 3, 512, 7);
            let mut got = vec![0.0; expected.len()];
            dequantize(quant, &bytes, &mut got);
            assert_eq!(got, expected, "{quant:?}");
            assert!(expected.iter().any(|v| *v < 0.0) && expected.iter().any(|v| *v > 0.0));
        }
    }

    #[test]
    fn every_format_is_found_by_ggmls_name() {
        for quant in Quant::ALL {
            assert_eq!(Quant::of(quant.name()), Some(quant));
        }
        assert_eq!(Quant::of("IQ2_XXS"), None);
    }

    #[test]
    fn a_quantized_vector_is_within_half_a_step_of_the_original() {
        let x = values(96, 3);
        let mut q = Q8Vector::default();
        q.quantize(&x);
        for (i, (a, b)) in q.dequantize().iter().zip(&x).enumerate() {
            assert!((a - b).abs() <= q.scales[i / QK] * 0.5 + 1e-6, "{i}");
        }
        q.quantize(&[0.0; 32]);
        assert_eq!(q.dequantize(), vec![0.0; 32]);
    }

    proptest! {
        /// The integer dot products (SIMD where the CPU has it, and the
        /// portable reference) equal the float dot product of the values
        /// both operands stand for.
        #[test]
        fn integer_dot_products_equal_the_dequantized_ones(blocks in 1usize..4, rows in 1usize..10, seed in 0u32..10_000) {
            let cols = 256 * blocks;
            let x = values(cols, seed.wrapping_add(99));
            let mut qx = Q8Vector::default();
            qx.quantize(&x);
            let xs = qx.dequantize();
            let iq4 = [Quant::Iq4Nl, Quant::Iq4Xs].map(|q| (q, iq4_quantized(q, rows, cols, seed)));
            let formats = ALL
                .into_iter()
                .map(|(quant, dtype)| (quant, candle_quantized(dtype, rows, cols, seed)))
                .chain(iq4);
            for (quant, (bytes, w)) in formats {
                let mut got = vec![0.0; rows];
                dot_rows(quant, &bytes, &qx, &mut got);
                for (r, row) in w.chunks_exact(cols).enumerate() {
                    let expected: f64 = row.iter().zip(&xs).map(|(a, b)| *a as f64 * *b as f64).sum();
                    let size: f64 = row.iter().zip(&xs).map(|(a, b)| (*a as f64 * *b as f64).abs()).sum();
                    let tolerance = 1e-5 * size + 1e-6;
                    prop_assert!((got[r] as f64 - expected).abs() <= tolerance, "{quant:?}: {} vs {expected}", got[r]);
                    let reference = dot_portable(quant, &bytes[r * quant.row_bytes(cols)..][..quant.row_bytes(cols)], &qx);
                    prop_assert!((reference as f64 - expected).abs() <= tolerance, "{quant:?} portable: {reference} vs {expected}");
                }
            }
        }
    }
}
