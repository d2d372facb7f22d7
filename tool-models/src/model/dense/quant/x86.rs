//! The AVX2 integer dot products of each format, four rows at a time.

use super::{iq4xs_scale, q4k_scale_min, Q8Vector, Quant, IQ4_VALUES, QK};
use std::arch::x86_64::*;

/// Runs `$body` with the block size, the unpacking and the [`Apply`] of
/// `$quant`, one of the 32-value formats, each its own code.
macro_rules! format32 {
    ($quant:expr, $table:expr, |$bytes:ident, $unpack:ident, $how:ident| $body:expr) => {{
        let table = $table;
        match $quant {
            Quant::Q8_0 => {
                let ($bytes, $unpack, $how) = (34, |b: &[u8]| q8_0(b), Apply::Signed);
                $body
            }
            Quant::Q5_0 => {
                let ($bytes, $unpack, $how) = (22, |b: &[u8]| q5(b, false), Apply::Shift(16.0));
                $body
            }
            Quant::Q5_1 => {
                let ($bytes, $unpack, $how) = (24, |b: &[u8]| q5(b, true), Apply::Min);
                $body
            }
            Quant::Q4_0 => {
                let ($bytes, $unpack, $how) = (18, |b: &[u8]| q4(b, false), Apply::Signed);
                $body
            }
            Quant::Q4_1 => {
                let ($bytes, $unpack, $how) = (20, |b: &[u8]| q4(b, true), Apply::Min);
                $body
            }
            _ => {
                let ($bytes, $unpack, $how) = (18, |b: &[u8]| iq4nl(b, table), Apply::Signed);
                $body
            }
        }
    }};
}

/// [`Q8Vector::quantize`] into buffers of the right lengths, eight values
/// a register: bit for bit the portable one (the largest magnitude is
/// order-free, `max_ps` keeps the running maximum where a value is NaN as
/// `f32::max` does, the truncation of a rounded value within ±127.5 is
/// C's, and NaN becomes 0 in both).
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn quantize(q: &mut Q8Vector, x: &[f32]) {
    let sign = _mm256_set1_ps(-0.0);
    let half = _mm256_set1_ps(0.5);
    let blocks = x
        .chunks_exact(QK)
        .zip(q.values.chunks_exact_mut(QK))
        .zip(&mut q.scales)
        .zip(q.sums.chunks_exact_mut(2));
    for (((block, values), scale), sums) in blocks {
        // SAFETY: `block` holds 32 floats, four registers' worth.
        let v: [__m256; 4] =
            std::array::from_fn(|i| unsafe { _mm256_loadu_ps(block.as_ptr().add(8 * i)) });
        let mut amax = _mm256_setzero_ps();
        for v in v {
            amax = _mm256_max_ps(_mm256_andnot_ps(sign, v), amax);
        }
        let amax = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
        let amax = _mm_max_ps(amax, _mm_movehl_ps(amax, amax));
        let amax = _mm_max_ss(amax, _mm_movehdup_ps(amax));
        let inverse;
        (*scale, inverse) = super::scale_of(_mm_cvtss_f32(amax));
        let inverse = _mm256_set1_ps(inverse);
        let q: [__m256i; 4] = v.map(|v| {
            let v = _mm256_mul_ps(v, inverse);
            let q =
                _mm256_cvttps_epi32(_mm256_add_ps(v, _mm256_or_ps(half, _mm256_and_ps(sign, v))));
            // NaN truncates to i32::MIN here and to 0 in Rust.
            _mm256_and_si256(q, _mm256_castps_si256(_mm256_cmp_ps::<_CMP_ORD_Q>(v, v)))
        });
        for (sum, pair) in sums.iter_mut().zip(q.chunks_exact(2)) {
            let s = _mm256_add_epi32(pair[0], pair[1]);
            let s = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
            *sum = _mm_cvtsi128_si32(s);
        }
        // Packing works within each 128-bit lane: the words of four values
        // come out in the order 0 2 4 6 1 3 5 7, put back by the
        // permutation.
        let words = _mm256_packs_epi16(
            _mm256_packs_epi32(q[0], q[1]),
            _mm256_packs_epi32(q[2], q[3]),
        );
        let words = _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        // SAFETY: `values` holds 32 bytes.
        unsafe { _mm256_storeu_si256(values.as_mut_ptr().cast(), words) };
    }
}

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
            Quant::Q8_0 | Quant::Q5_0 | Quant::Q5_1 | Quant::Q4_0 | Quant::Q4_1 | Quant::Iq4Nl => {
                format32!(quant, table, |bytes, unpack, how| {
                    by_rows(w, row_bytes, bytes, out, |b, i, s, o| {
                        add32(apply32(unpack(b), how, x, i), s, o)
                    })
                })
            }
            Quant::Q4K => by_rows(w, row_bytes, 144, out, |b, i, s, o| {
                apply256(&q4k(b, false), Apply256::K4, x, i, s, o)
            }),
            Quant::Q5K => by_rows(w, row_bytes, 176, out, |b, i, s, o| {
                apply256(&q4k(b, true), Apply256::K4, x, i, s, o)
            }),
            Quant::Q6K => by_rows(w, row_bytes, 210, out, |b, i, s, o| {
                apply256(&q6k(b), Apply256::K6, x, i, s, o)
            }),
            Quant::Iq4Xs => by_rows(w, row_bytes, 136, out, |b, i, s, o| {
                apply256(&iq4xs(b, table), Apply256::Iq4Xs, x, i, s, o)
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

/// The most vectors [`dot_rows_many`] multiplies a row by at once: their
/// sums stay in registers beside the unpacked block.
const VECTORS: usize = 4;

/// `outs[j][r] = row r · xs[j]` for the rows of `w`: each block unpacked
/// once for up to [`VECTORS`] vectors, and each vector's sums taking
/// exactly the steps [`dot_rows`] takes, so each row of `outs` is bit for
/// bit that vector's [`dot_rows`] (Q2_K and Q3_K, rare, take one vector
/// at a time).
///
/// # Safety
/// As [`dot_rows`], for each vector; `outs` holds one slice per vector,
/// each a value per row of `w`.
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn dot_rows_many(
    quant: Quant,
    w: &[u8],
    row_bytes: usize,
    xs: &[Q8Vector],
    outs: &mut [&mut [f32]],
) {
    // SAFETY (each arm): as this function's contract.
    unsafe {
        let table = iq4_table();
        let go = (w, row_bytes, xs, outs);
        match quant {
            Quant::Q8_0 | Quant::Q5_0 | Quant::Q5_1 | Quant::Q4_0 | Quant::Q4_1 | Quant::Iq4Nl => {
                format32!(quant, table, |bytes, unpack, how| {
                    many(go, bytes, &unpack, &|u: &Block32, x, i, s, o| {
                        add32(apply32(*u, how, x, i), s, o)
                    })
                })
            }
            Quant::Q4K => many(go, 144, &|b| q4k(b, false), &|u, x, i, s, o| {
                apply256(u, Apply256::K4, x, i, s, o)
            }),
            Quant::Q5K => many(go, 176, &|b| q4k(b, true), &|u, x, i, s, o| {
                apply256(u, Apply256::K4, x, i, s, o)
            }),
            Quant::Q6K => many(go, 210, &|b| q6k(b), &|u, x, i, s, o| {
                apply256(u, Apply256::K6, x, i, s, o)
            }),
            Quant::Iq4Xs => many(go, 136, &|b| iq4xs(b, table), &|u, x, i, s, o| {
                apply256(u, Apply256::Iq4Xs, x, i, s, o)
            }),
            Quant::Q2K | Quant::Q3K => {
                let (w, row_bytes, xs, outs) = go;
                for (x, out) in xs.iter().zip(outs.iter_mut()) {
                    dot_rows(quant, w, row_bytes, x, out);
                }
            }
        }
    }
}

/// The rows, their bytes, the vectors and their outputs (see
/// [`dot_rows_many`]).
type Many<'a, 'b, 'o> = (&'a [u8], usize, &'a [Q8Vector], &'b mut [&'o mut [f32]]);

/// [`by_vectors`] over the vectors of `go`, [`VECTORS`] at a time.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn many<U, FU, FA>(
    (w, row_bytes, xs, outs): Many<'_, '_, '_>,
    bytes: usize,
    unpack: &FU,
    apply: &FA,
) where
    FU: Fn(&[u8]) -> U,
    FA: Fn(&U, &Q8Vector, usize, &mut __m256, &mut f32),
{
    for (xs, outs) in xs.chunks(VECTORS).zip(outs.chunks_mut(VECTORS)) {
        let go = (w, row_bytes, bytes, xs, outs);
        match xs.len() {
            4 => by_vectors::<4, _, _, _>(go, unpack, apply),
            3 => by_vectors::<3, _, _, _>(go, unpack, apply),
            2 => by_vectors::<2, _, _, _>(go, unpack, apply),
            _ => by_vectors::<1, _, _, _>(go, unpack, apply),
        }
    }
}

/// What [`by_vectors`] works on: the rows, their bytes, a block's bytes,
/// the `K` vectors and their outputs.
type Vectors<'a, 'o> = (
    &'a [u8],
    usize,
    usize,
    &'a [Q8Vector],
    &'a mut [&'o mut [f32]],
);

/// Each row times `K` vectors, block by block: a block unpacked once,
/// then `apply` adds its product with each vector to that vector's sums,
/// as [`by_rows`]' block function does for one.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn by_vectors<const K: usize, U, FU, FA>(
    (w, row_bytes, bytes, xs, outs): Vectors<'_, '_>,
    unpack: &FU,
    apply: &FA,
) where
    FU: Fn(&[u8]) -> U,
    FA: Fn(&U, &Q8Vector, usize, &mut __m256, &mut f32),
{
    for (r, row) in w.chunks_exact(row_bytes).enumerate() {
        let mut acc = [_mm256_setzero_ps(); K];
        let mut offset = [0f32; K];
        for (i, b) in row.chunks_exact(bytes).enumerate() {
            prefetch(b, AHEAD);
            let u = unpack(b);
            for j in 0..K {
                apply(&u, &xs[j], i, &mut acc[j], &mut offset[j]);
            }
        }
        for j in 0..K {
            outs[j][r] = hsum(acc[j]) - offset[j];
        }
    }
}

/// Bytes this far past a block are asked for early when a row is read
/// on its own: the hardware's own prefetch leaves a decode step waiting on
/// memory.
const AHEAD: usize = 2048;

/// Groups of rows ahead that [`rows_together`] asks for: it reads its rows
/// side by side, so the bytes it needs next are a group further on, not
/// the next bytes of a row (a fixed distance past each block fell inside
/// the group being read, and Gemma 3's Q8_0 decode ran at half speed).
const AHEAD_GROUPS: usize = 3;

/// Asks for the bytes `distance` past `block` (a hint only: an address
/// past the matrix is never read).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn prefetch(block: &[u8], distance: usize) {
    _mm_prefetch::<_MM_HINT_T0>(block.as_ptr().wrapping_add(distance).cast());
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
    for (o, rows) in out.chunks_mut(ROWS).zip(w.chunks(ROWS * row_bytes)) {
        if o.len() == ROWS {
            rows_together::<ROWS, F>(rows, row_bytes, bytes, o, &block);
        } else {
            for (o, row) in o.chunks_mut(1).zip(rows.chunks_exact(row_bytes)) {
                rows_together::<1, F>(row, row_bytes, bytes, o, &block);
            }
        }
    }
}

/// The `N` rows of `rows` times `x` into `out`, block by block across the
/// rows (see [`by_rows`]).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn rows_together<const N: usize, F>(
    rows: &[u8],
    row_bytes: usize,
    bytes: usize,
    out: &mut [f32],
    block: &F,
) where
    F: Fn(&[u8], usize, &mut __m256, &mut f32),
{
    let mut acc = [_mm256_setzero_ps(); N];
    let mut offset = [0f32; N];
    let ahead = AHEAD_GROUPS * N * row_bytes;
    for i in 0..row_bytes / bytes {
        for r in 0..N {
            let at = r * row_bytes + i * bytes;
            let b = &rows[at..at + bytes];
            prefetch(b, ahead);
            block(b, i, &mut acc[r], &mut offset[r]);
        }
    }
    for r in 0..N {
        out[r] = hsum(acc[r]) - offset[r];
    }
}

/// The 32 nibbles of the 16 bytes at `at` in `block`, one a byte: the low
/// nibbles first, then the high ones (ggml's order in every 32-value
/// format).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn nibbles(block: &[u8], at: usize) -> __m256i {
    debug_assert!(at + 16 <= block.len());
    // SAFETY: the caller keeps 16 bytes from `at` inside `block`.
    let packed = unsafe { _mm_loadu_si128(block.as_ptr().add(at).cast()) };
    let low = _mm_set1_epi8(0xF);
    _mm256_set_m128i(
        _mm_and_si128(_mm_srli_epi16(packed, 4), low),
        _mm_and_si128(packed, low),
    )
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

/// A 32-value block's weights unpacked: its values as bytes, its scale
/// and its minimum, the same for every vector they multiply.
#[derive(Clone, Copy)]
pub(super) struct Block32 {
    w: __m256i,
    d: f32,
    m: f32,
}

/// How a 32-value format's unpacked bytes multiply a vector's block.
#[derive(Clone, Copy)]
pub(super) enum Apply {
    /// Signed values (Q8_0, Q4_0 less 8, IQ4_NL's table).
    Signed,
    /// Unsigned values, less a minimum (Q4_1, Q5_1: value = d · q + m).
    Min,
    /// Unsigned values stored with this shift added (Q5_0: + 16).
    Shift(f32),
}

/// An unpacked block times `x`'s block `i`: the integer dot product, the
/// scale to multiply it by and the offset to subtract (see [`add32`]).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn apply32(u: Block32, how: Apply, x: &Q8Vector, i: usize) -> (__m256i, f32, f32) {
    let scale = u.d * x.scales[i];
    let v = load_x(x, i * QK);
    match how {
        // |w| times v with w's sign: the unsigned-by-signed multiply.
        Apply::Signed => (
            dot_u8_i8(_mm256_sign_epi8(u.w, u.w), _mm256_sign_epi8(v, u.w)),
            scale,
            0.0,
        ),
        Apply::Min => (dot_u8_i8(u.w, v), scale, -u.m * x.scaled_sums[i]),
        Apply::Shift(shift) => (dot_u8_i8(u.w, v), scale, u.d * shift * x.scaled_sums[i]),
    }
}

/// A Q8_0 block unpacked.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q8_0(block: &[u8]) -> Block32 {
    Block32 {
        w: load(block, 2),
        d: f16(block, 0),
        m: 0.0,
    }
}

#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn iq4_table() -> __m256i {
    let lane = _mm_loadu_si128(IQ4_VALUES.as_ptr().cast());
    _mm256_set_m128i(lane, lane)
}

/// An IQ4_NL block unpacked: its nibbles looked up in `table`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn iq4nl(block: &[u8], table: __m256i) -> Block32 {
    Block32 {
        w: _mm256_shuffle_epi8(table, nibbles(block, 2)),
        d: f16(block, 0),
        m: 0.0,
    }
}

/// A Q5_0 or Q5_1 block unpacked.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q5(block: &[u8], with_min: bool) -> Block32 {
    // Q5_1 adds a minimum after the scale; Q5_0 stores value + 16.
    let at = if with_min { 4 } else { 2 };
    let high = u32::from_le_bytes([block[at], block[at + 1], block[at + 2], block[at + 3]]);
    let fifth = _mm256_and_si256(bytes_from_bits(high), _mm256_set1_epi8(0x10));
    Block32 {
        w: _mm256_or_si256(nibbles(block, at + 4), fifth),
        d: f16(block, 0),
        m: if with_min { f16(block, 2) } else { 0.0 },
    }
}

/// A Q4_0 or Q4_1 block unpacked: Q4_0's values less 8, signed (the
/// multiply Q8_0 takes, with no offset to subtract).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q4(block: &[u8], with_min: bool) -> Block32 {
    if with_min {
        Block32 {
            w: nibbles(block, 4),
            d: f16(block, 0),
            m: f16(block, 2),
        }
    } else {
        Block32 {
            w: _mm256_sub_epi8(nibbles(block, 2), _mm256_set1_epi8(8)),
            d: f16(block, 0),
            m: 0.0,
        }
    }
}

/// A 256-value block's weights unpacked: each 32's values as bytes and
/// what multiplies them, the same for every vector.
#[derive(Clone, Copy)]
pub(super) struct Block256 {
    w: [__m256i; 8],
    /// Q4_K, Q5_K, IQ4_XS: each 32's scale (the block's times its own).
    scale: [f32; 8],
    /// Q4_K, Q5_K: each 32's minimum (the block's times its own).
    min: [f32; 8],
    /// Q6_K: each 16's scale, and the block's.
    q6: [(i16, i16); 8],
    d: f32,
}

/// How a 256-value format's unpacked block multiplies a vector.
#[derive(Clone, Copy)]
pub(super) enum Apply256 {
    /// Q4_K and Q5_K: unsigned values less a minimum.
    K4,
    /// Q6_K: signed values (stored + 32), a scale per 16.
    K6,
    /// IQ4_XS: signed values from the table.
    Iq4Xs,
}

/// An unpacked block times `x`'s blocks from `b · 8`, added to `sum` and
/// (what is to be subtracted) `offset`, 32 values at a time in order.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn apply256(
    u: &Block256,
    how: Apply256,
    x: &Q8Vector,
    b: usize,
    sum: &mut __m256,
    offset: &mut f32,
) {
    for sub in 0..8 {
        let k = b * 8 + sub;
        let (w, v) = (u.w[sub], load_x(x, k * QK));
        match how {
            Apply256::K4 => {
                let dot = dot_u8_i8(w, v);
                let scale = u.scale[sub] * x.scales[k];
                *sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(dot), *sum);
                *offset += u.min[sub] * x.scaled_sums[k];
            }
            Apply256::Iq4Xs => {
                let dot = dot_u8_i8(_mm256_sign_epi8(w, w), _mm256_sign_epi8(v, w));
                let scale = u.scale[sub] * x.scales[k];
                *sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(dot), *sum);
            }
            Apply256::K6 => {
                let (sc0, sc1) = u.q6[sub];
                // |w| times v with w's sign, as for the signed formats.
                let pairs = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(v, w));
                let by_scale = _mm256_set_m128i(_mm_set1_epi16(sc1), _mm_set1_epi16(sc0));
                let dot = _mm256_madd_epi16(pairs, by_scale);
                let scale = u.d * x.scales[k];
                *sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(dot), *sum);
            }
        }
    }
}

/// A block with nothing unpacked yet.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn empty256() -> Block256 {
    Block256 {
        w: [_mm256_setzero_si256(); 8],
        scale: [0.0; 8],
        min: [0.0; 8],
        q6: [(0, 0); 8],
        d: 0.0,
    }
}

/// A Q4_K block (Q5_K with `fifth_bits`) unpacked.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q4k(block: &[u8], fifth_bits: bool) -> Block256 {
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
    let mut u = empty256();
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
            let (sc, m) = q4k_scale_min(sub, scales);
            u.w[sub] = w;
            u.scale[sub] = d * sc as f32;
            u.min[sub] = dmin * m as f32;
        }
    }
    u
}

/// A Q6_K block unpacked.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q6k(block: &[u8]) -> Block256 {
    let (low, two) = (_mm256_set1_epi8(0xF), _mm256_set1_epi8(3));
    let scales = &block[192..208];
    let mut u = empty256();
    u.d = f16(block, 208);
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
            let sub = 4 * n + g;
            // Stored as value + 32: signed, the product needs no offset.
            u.w[sub] = _mm256_sub_epi8(w, _mm256_set1_epi8(32));
            u.q6[sub] = (
                scales[2 * sub] as i8 as i16,
                scales[2 * sub + 1] as i8 as i16,
            );
        }
    }
    u
}

/// An IQ4_XS block unpacked: its nibbles looked up in `table`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn iq4xs(block: &[u8], table: __m256i) -> Block256 {
    let d = f16(block, 0);
    let mut u = empty256();
    for sub in 0..8 {
        u.w[sub] = _mm256_shuffle_epi8(table, nibbles(block, 8 + 16 * sub));
        u.scale[sub] = d * iq4xs_scale(block, sub) as f32;
    }
    u
}
