//! The AVX2/FMA/F16C bodies of the kernels in `mod.rs`, each compiled
//! with the features [`super::isa`] saw on this CPU.

/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn matvec(w: &[f32], cols: usize, x: &[f32], out: &mut [f32]) {
    super::matvec_body::<true>(w, cols, x, out)
}

/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn matvec_bf16(w: &[u16], cols: usize, x: &[f32], out: &mut [f32]) {
    super::matvec_bf16_body::<true>(w, cols, x, out)
}

/// `M x` for IEEE half-precision rows: each 8 values widened in a
/// register and multiplied in.
///
/// # Safety
/// The CPU must have AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn matvec_f16(w: &[u16], cols: usize, x: &[f32], out: &mut [f32]) {
    use std::arch::x86_64::*;
    for (o, row) in out.iter_mut().zip(w.chunks_exact(cols)) {
        let n = cols.min(x.len());
        let mut acc0 = _mm256_setzero_ps();
        let mut acc1 = _mm256_setzero_ps();
        let mut j = 0;
        // SAFETY: every load reads 16 (or 8) values at j < n - 15 (n - 7)
        // of `row` and `x`, both at least n long.
        unsafe {
            while j + 16 <= n {
                let a0 = _mm256_cvtph_ps(_mm_loadu_si128(row.as_ptr().add(j).cast()));
                let a1 = _mm256_cvtph_ps(_mm_loadu_si128(row.as_ptr().add(j + 8).cast()));
                acc0 = _mm256_fmadd_ps(a0, _mm256_loadu_ps(x.as_ptr().add(j)), acc0);
                acc1 = _mm256_fmadd_ps(a1, _mm256_loadu_ps(x.as_ptr().add(j + 8)), acc1);
                j += 16;
            }
            let mut lanes = [0f32; 8];
            _mm256_storeu_ps(lanes.as_mut_ptr(), _mm256_add_ps(acc0, acc1));
            let mut sum: f32 = lanes.iter().sum();
            for k in j..n {
                sum += half::f16::from_bits(row[k]).to_f32() * x[k];
            }
            *o = sum;
        }
    }
}

/// # Safety
/// The CPU must have AVX and F16C.
#[target_feature(enable = "avx,f16c")]
pub(super) unsafe fn widen_f16(bits: &[u16], out: &mut [f32]) {
    use std::arch::x86_64::{__m128i, _mm256_cvtph_ps, _mm256_storeu_ps, _mm_loadu_si128};
    let mut b = bits.chunks_exact(8);
    let mut o = out.chunks_exact_mut(8);
    for (b, o) in (&mut b).zip(&mut o) {
        // SAFETY: both chunks hold exactly 8 values; unaligned loads and stores.
        unsafe {
            let half = _mm_loadu_si128(b.as_ptr().cast::<__m128i>());
            _mm256_storeu_ps(o.as_mut_ptr(), _mm256_cvtph_ps(half));
        }
    }
    for (b, o) in b.remainder().iter().zip(o.into_remainder()) {
        *o = half::f16::from_bits(*b).to_f32();
    }
}

/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn exp_shifted(x: &mut [f32], max: f32) -> f32 {
    super::exp_shifted_body(x, max)
}

/// [`super::attend_row`] in registers: four positions' scores at a
/// time, each query register loaded once for the four keys, and the
/// output in blocks of 64 values that stay in registers over every
/// position. Heads whose width is not a multiple of 8 take the plain
/// body.
///
/// Keys and values are f32 or f16 rows, widened eight at a time as they
/// are loaded.
///
/// # Safety
/// The CPU must have AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn attend_row<T: super::KvValue>(
    row: super::Row<'_, T>,
    scores: &mut [f32],
    out: &mut [f32],
) {
    use std::arch::x86_64::*;
    let dim = row.q.len();
    if !dim.is_multiple_of(8) || row.seen == 0 {
        return super::attend_row_body::<true, T>(row, scores, out);
    }
    let (q, keys, values) = (row.q, row.keys, row.values);
    let (stride, offset, seen, scale) = (row.stride, row.offset, row.seen, row.scale);
    assert!(keys.len() >= (seen - 1) * stride + offset + dim);
    assert!(values.len() >= (seen - 1) * stride + offset + dim);
    let scores = &mut scores[..seen];
    let words = dim / 8;
    // SAFETY (the loads): `q` holds `dim` values; each position's key
    // and value rows hold `dim` from `j * stride + offset`, within the
    // lengths asserted above.
    let key =
        |j: usize, w: usize| unsafe { T::load8(keys.as_ptr().add(j * stride + offset + 8 * w)) };
    let query = |w: usize| unsafe { _mm256_loadu_ps(q.as_ptr().add(8 * w)) };
    let mut quads = scores.chunks_exact_mut(4);
    for (i, quad) in (&mut quads).enumerate() {
        let j = 4 * i;
        let mut acc = [_mm256_setzero_ps(); 4];
        for w in 0..words {
            let qw = query(w);
            for (p, acc) in acc.iter_mut().enumerate() {
                *acc = _mm256_fmadd_ps(qw, key(j + p, w), *acc);
            }
        }
        // Four sums of eight lanes, as the four lanes of one register.
        let h = _mm256_hadd_ps(
            _mm256_hadd_ps(acc[0], acc[1]),
            _mm256_hadd_ps(acc[2], acc[3]),
        );
        let sums = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
        // SAFETY: `quad` holds four floats.
        unsafe { _mm_storeu_ps(quad.as_mut_ptr(), _mm_mul_ps(sums, _mm_set1_ps(scale))) };
    }
    let done = seen - quads.into_remainder().len();
    for (j, s) in scores.iter_mut().enumerate().skip(done) {
        let mut acc = _mm256_setzero_ps();
        for w in 0..words {
            acc = _mm256_fmadd_ps(query(w), key(j, w), acc);
        }
        let h = _mm256_hadd_ps(acc, acc);
        let h = _mm256_hadd_ps(h, h);
        let sum = _mm_add_ss(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
        *s = _mm_cvtss_f32(sum) * scale;
    }
    let inv = 1.0 / super::exp_shifted_body(scores, super::max_of(scores));
    for block in (0..words).step_by(8) {
        let n = (words - block).min(8);
        let mut acc = [_mm256_setzero_ps(); 8];
        for (j, p) in scores.iter().enumerate() {
            let p = _mm256_set1_ps(p * inv);
            // SAFETY: as for the keys.
            let v = unsafe { values.as_ptr().add(j * stride + offset + 8 * block) };
            for (w, acc) in acc.iter_mut().enumerate().take(n) {
                // SAFETY: word `block + w` of the row, within `dim`.
                *acc = _mm256_fmadd_ps(p, unsafe { T::load8(v.add(8 * w)) }, *acc);
            }
        }
        for (w, acc) in acc.iter().enumerate().take(n) {
            // SAFETY: `out` holds `dim` floats.
            unsafe { _mm256_storeu_ps(out[8 * (block + w)..][..8].as_mut_ptr(), *acc) };
        }
    }
}

/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn silu_mul(gate: &[f32], up: &[f32], out: &mut [f32]) {
    super::silu_mul_body(gate, up, out)
}

/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn gelu_mul(gate: &[f32], up: &[f32], out: &mut [f32]) {
    super::gelu_mul_body(gate, up, out)
}
