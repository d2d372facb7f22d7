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

    /// The most rows of a prompt multiplied as vectors, each by integer
    /// dot products as a decode step takes them, rather than by a product
    /// over many rows from the matrix widened to f32: widening costs a
    /// pass over the matrix whatever the rows, so it pays only past this.
    /// Measured on SmolLM2-135M (Q4_1) and Gemma 3 270M (Q4_K_M, Q8_0),
    /// 2 threads: the two cross near 56 rows, and near 160 for Q8_0,
    /// whose blocks need no unpacking.
    pub(crate) fn vector_rows(self) -> usize {
        match self {
            Quant::Q8_0 => 128,
            _ => 48,
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
    /// Each block's scale times the sum of its 32 values: what a block's
    /// minimum or offset multiplies, taken once per vector rather than
    /// once per row.
    scaled_sums: Vec<f32>,
}

impl Q8Vector {
    /// Quantizes `x`, whose length is a multiple of 32, reusing the buffers.
    pub(crate) fn quantize(&mut self, x: &[f32]) {
        debug_assert!(x.len().is_multiple_of(QK));
        let blocks = x.len() / QK;
        // Sized first and written in place: pushing value by value keeps
        // the loop from vectorising.
        self.values.resize(x.len(), 0);
        self.scales.resize(blocks, 0.0);
        self.sums.resize(2 * blocks, 0);
        match isa() {
            // SAFETY: `isa` saw AVX2 and FMA on this CPU.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2Fma => unsafe { x86::quantize(self, x) },
            Isa::Portable => self.quantize_body(x),
        }
        self.scaled_sums.clear();
        let sums = self.sums.chunks_exact(2).zip(&self.scales);
        (self.scaled_sums).extend(sums.map(|(s, scale)| scale * (s[0] + s[1]) as f32));
    }

    /// [`quantize`](Self::quantize) into buffers of the right lengths.
    #[inline(always)]
    fn quantize_body(&mut self, x: &[f32]) {
        let blocks = x
            .chunks_exact(QK)
            .zip(self.values.chunks_exact_mut(QK))
            .zip(&mut self.scales)
            .zip(self.sums.chunks_exact_mut(2));
        for (((block, values), scale), sums) in blocks {
            let inverse;
            (*scale, inverse) = block_scale(block);
            let halves = block.chunks_exact(16).zip(values.chunks_exact_mut(16));
            for ((half, values), sum) in halves.zip(sums) {
                *sum = 0;
                for (v, q) in half.iter().zip(values) {
                    *q = round_to_i8(v * inverse);
                    *sum += *q as i32;
                }
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
    scale_of(block.iter().fold(0f32, |m, v| m.max(v.abs())))
}

/// The scale and its inverse of a block whose largest magnitude is `amax`.
#[inline(always)]
fn scale_of(amax: f32) -> (f32, f32) {
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

/// `outs[j][r] = row r · xs[j]` for the rows of `w`: each row of `outs`
/// bit for bit the [`dot_rows`] of its vector, with each block of the
/// common formats unpacked once for several vectors.
pub(crate) fn dot_rows_many(quant: Quant, w: &[u8], xs: &[Q8Vector], outs: &mut [&mut [f32]]) {
    let Some(first) = xs.first() else {
        return;
    };
    let row_bytes = quant.row_bytes(first.values.len());
    match isa() {
        // SAFETY: `isa` saw AVX2, FMA and F16C on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::dot_rows_many(quant, w, row_bytes, xs, outs) },
        Isa::Portable => {
            for (x, out) in xs.iter().zip(outs.iter_mut()) {
                dot_rows(quant, w, x, out);
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

pub(crate) mod gemm;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
pub(super) mod tests;
