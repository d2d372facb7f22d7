//! The arithmetic of a forward pass: dot products and matrix-vector products
//! compiled for the widest SIMD the CPU has (chosen at run time, so a
//! default build is fast everywhere), matrix products through `gemm`, and
//! the small element-wise steps.

use rayon::prelude::*;
use std::sync::OnceLock;

/// Whether this CPU has AVX-512 F, BW and VNNI (and `TOOL_USE_CPU` allows
/// them), for the integer products of prompt chunks.
pub(crate) fn avx512_vnni() -> bool {
    static VNNI: OnceLock<bool> = OnceLock::new();
    *VNNI.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        if cap() >= 2 {
            return std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vnni");
        }
        false
    })
}

/// The widest attention head: a key or value row widens on the stack.
pub(crate) const MAX_HEAD: usize = 512;

/// Below this many multiply-adds a matrix-vector product stays on one thread:
/// handing work to another costs a few microseconds.
const PARALLEL_MIN_WORK: usize = 1 << 15;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Isa {
    #[cfg(target_arch = "x86_64")]
    /// AVX2 with FMA and F16C (every CPU with AVX2 since 2013).
    Avx2Fma,
    Portable,
}

/// The environment variable that caps the instruction sets the kernels
/// use below what the CPU has: `portable`, `avx2` (no AVX-512). For
/// measuring and testing the narrower paths on a wider CPU.
pub(crate) const CPU_ENV: &str = "TOOL_USE_CPU";

/// The cap `TOOL_USE_CPU` sets: 0 portable, 1 AVX2, 2 everything.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn cap() -> u8 {
    static CAP: OnceLock<u8> = OnceLock::new();
    *CAP.get_or_init(|| match std::env::var(CPU_ENV).as_deref() {
        Ok("portable") => 0,
        Ok("avx2") => 1,
        _ => 2,
    })
}

/// The widest instruction set of the element-wise and vector kernels that
/// this CPU has (and `TOOL_USE_CPU` allows).
pub(super) fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        if cap() >= 1
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            return Isa::Avx2Fma;
        }
        Isa::Portable
    })
}

/// Lanes per accumulator: two AVX2 registers, which LLVM keeps in registers.
const LANES: usize = 16;

/// `a · b` over the shorter length. With `FMA` the products are fused
/// (`mul_add`), which only pays where the CPU has the instruction.
#[inline(always)]
fn dot_body<const FMA: bool>(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc0 = [0f32; LANES];
    let mut acc1 = [0f32; LANES];
    let mut ac = a.chunks_exact(2 * LANES);
    let mut bc = b.chunks_exact(2 * LANES);
    for (x, y) in (&mut ac).zip(&mut bc) {
        for j in 0..LANES {
            acc0[j] = madd::<FMA>(x[j], y[j], acc0[j]);
            acc1[j] = madd::<FMA>(x[LANES + j], y[LANES + j], acc1[j]);
        }
    }
    let mut tail = 0f32;
    for (x, y) in ac.remainder().iter().zip(bc.remainder()) {
        tail = madd::<FMA>(*x, *y, tail);
    }
    for j in 0..LANES {
        acc0[j] += acc1[j];
    }
    let mut sum = 0f32;
    for v in acc0 {
        sum += v;
    }
    sum + tail
}

#[inline(always)]
fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `a · x` for bfloat16 bits `a`: widening is a shift, so it fuses into
/// the multiply-adds.
#[inline(always)]
fn dot_bf16_body<const FMA: bool>(a: &[u16], x: &[f32]) -> f32 {
    let n = a.len().min(x.len());
    let (a, x) = (&a[..n], &x[..n]);
    let mut acc = [0f32; LANES];
    let mut ac = a.chunks_exact(LANES);
    let mut xc = x.chunks_exact(LANES);
    for (a, x) in (&mut ac).zip(&mut xc) {
        for j in 0..LANES {
            acc[j] = madd::<FMA>(f32::from_bits((a[j] as u32) << 16), x[j], acc[j]);
        }
    }
    let mut sum = 0f32;
    for (a, x) in ac.remainder().iter().zip(xc.remainder()) {
        sum = madd::<FMA>(f32::from_bits((*a as u32) << 16), *x, sum);
    }
    sum + acc.iter().sum::<f32>()
}

#[inline(always)]
fn matvec_bf16_body<const FMA: bool>(w: &[u16], cols: usize, x: &[f32], out: &mut [f32]) {
    for (o, row) in out.iter_mut().zip(w.chunks_exact(cols)) {
        *o = dot_bf16_body::<FMA>(row, x);
    }
}

#[inline(always)]
fn matvec_body<const FMA: bool>(w: &[f32], cols: usize, x: &[f32], out: &mut [f32]) {
    for (o, row) in out.iter_mut().zip(w.chunks_exact(cols)) {
        *o = dot_body::<FMA>(row, x);
    }
}

/// `e^x` by a degree-6 polynomial on `x - k·ln 2` times `2^k`: branch-free
/// integer and float arithmetic, so loops over it vectorise (relative
/// error under 5e-7).
#[inline(always)]
fn exp_approx(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Adding 1.5·2²³ rounds to an integer, which the low bits then hold.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.3, 88.3);
    let shifted = x * LOG2E + ROUND;
    let k = shifted - ROUND;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (0.166_666_67 + r * (0.041_666_5 + r * (0.008_333_6 + r * 0.001_394_9)))));
    // 2^k built from k's bits: its exponent field is k + 127.
    let k_bits = shifted.to_bits().wrapping_sub(ROUND.to_bits());
    p * f32::from_bits(k_bits.wrapping_add(127) << 23)
}

/// `x[i] = e^(x[i] - max)`; returns their sum.
#[inline(always)]
fn exp_shifted_body(x: &mut [f32], max: f32) -> f32 {
    let mut lanes = [0f32; LANES];
    let mut chunks = x.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        for j in 0..LANES {
            chunk[j] = exp_approx(chunk[j] - max);
            lanes[j] += chunk[j];
        }
    }
    let mut sum = 0.0;
    for v in chunks.into_remainder() {
        *v = exp_approx(*v - max);
        sum += *v;
    }
    sum + lanes.iter().sum::<f32>()
}

/// The largest of `x` (lane-wise first, so it vectorises).
fn max_of(x: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; LANES];
    let mut chunks = x.chunks_exact(LANES);
    for chunk in &mut chunks {
        for j in 0..LANES {
            lanes[j] = lanes[j].max(chunk[j]);
        }
    }
    let tail = chunks.remainder().iter().copied();
    lanes
        .into_iter()
        .chain(tail)
        .fold(f32::NEG_INFINITY, f32::max)
}

#[inline(always)]
fn silu_mul_body(gate: &[f32], up: &[f32], out: &mut [f32]) {
    for ((o, g), u) in out.iter_mut().zip(gate).zip(up) {
        *o = g / (1.0 + exp_approx(-g)) * u;
    }
}

/// `GELU(gate) * up` with GELU's tanh approximation (Gemma's
/// `gelu_pytorch_tanh`): `½g(1 + tanh y)` is `g / (1 + e^(−2y))`, which
/// takes [`exp_approx`] and vectorises as SiLU does, where a call to
/// `tanhf` per value does not (and has no cancellation where `tanh y`
/// nears −1).
#[inline(always)]
fn gelu_mul_body(gate: &[f32], up: &[f32], out: &mut [f32]) {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    for ((o, &g), u) in out.iter_mut().zip(gate).zip(up) {
        let inner = SQRT_2_OVER_PI * (g + 0.044_715 * g * g * g);
        *o = g / (1.0 + exp_approx(-2.0 * inner)) * u;
    }
}

/// A value as a KV cache keeps it: f32, or IEEE half precision
/// (`half::f16`, llama.cpp's default cache type), widened as it is read.
pub(crate) trait KvValue: Copy + Send + Sync + 'static {
    /// `row` as f32: itself, or widened into `buf` (at least as long).
    fn as_f32<'a>(row: &'a [Self], buf: &'a mut [f32]) -> &'a [f32];

    /// `rows` as f32, borrowed where they are f32 already.
    fn widened(rows: &[Self]) -> std::borrow::Cow<'_, [f32]>;

    /// Eight values from `p`, widened.
    ///
    /// # Safety
    /// Eight values must be readable at `p`, and the CPU must have AVX and
    /// F16C; the caller is compiled with them, so this inlines.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load8(p: *const Self) -> std::arch::x86_64::__m256;
}

impl KvValue for f32 {
    #[inline(always)]
    fn as_f32<'a>(row: &'a [f32], _: &'a mut [f32]) -> &'a [f32] {
        row
    }

    fn widened(rows: &[f32]) -> std::borrow::Cow<'_, [f32]> {
        std::borrow::Cow::Borrowed(rows)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const f32) -> std::arch::x86_64::__m256 {
        // SAFETY: the caller's contract.
        unsafe { std::arch::x86_64::_mm256_loadu_ps(p) }
    }
}

impl KvValue for half::f16 {
    #[inline(always)]
    fn as_f32<'a>(row: &'a [half::f16], buf: &'a mut [f32]) -> &'a [f32] {
        let buf = &mut buf[..row.len()];
        for (o, v) in buf.iter_mut().zip(row) {
            *o = v.to_f32();
        }
        buf
    }

    fn widened(rows: &[half::f16]) -> std::borrow::Cow<'_, [f32]> {
        use half::slice::HalfFloatSliceExt;
        let mut wide = vec![0f32; rows.len()];
        widen_f16(rows.reinterpret_cast(), &mut wide);
        std::borrow::Cow::Owned(wide)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const half::f16) -> std::arch::x86_64::__m256 {
        use std::arch::x86_64::*;
        // SAFETY: the caller's contract.
        unsafe { _mm256_cvtph_ps(_mm_loadu_si128(p.cast::<__m128i>())) }
    }
}

/// One query row's attention over `seen` cached positions: `keys` and
/// `values` hold rows of `stride` values, of which this head reads
/// `q.len()` from `offset`.
#[derive(Clone, Copy)]
pub(crate) struct Row<'a, T> {
    /// The query row of one head.
    pub q: &'a [f32],
    /// The cached keys.
    pub keys: &'a [T],
    /// The cached values.
    pub values: &'a [T],
    /// Values in a row of `keys` and `values`.
    pub stride: usize,
    /// Where this head's values start in a row.
    pub offset: usize,
    /// How many positions the row sees.
    pub seen: usize,
    /// The dot products' scale.
    pub scale: f32,
}

/// [`attend_row`]; `scores` is scratch of at least `row.seen`.
#[inline(always)]
fn attend_row_body<const FMA: bool, T: KvValue>(
    row: Row<'_, T>,
    scores: &mut [f32],
    out: &mut [f32],
) {
    let Row {
        q,
        keys,
        values,
        stride,
        offset,
        seen,
        scale,
    } = row;
    let dim = q.len();
    let scores = &mut scores[..seen];
    let mut wide = [0f32; MAX_HEAD];
    for (j, s) in scores.iter_mut().enumerate() {
        let k = T::as_f32(&keys[j * stride + offset..][..dim], &mut wide);
        *s = dot_body::<FMA>(q, k) * scale;
    }
    let inv = 1.0 / exp_shifted_body(scores, max_of(scores));
    out.fill(0.0);
    for (j, p) in scores.iter().enumerate() {
        let v = T::as_f32(&values[j * stride + offset..][..dim], &mut wide);
        let p = p * inv;
        for (o, v) in out.iter_mut().zip(v) {
            *o = madd::<FMA>(p, *v, *o);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

/// `out = W x` for a row-major f32 `W` of `out.len()` rows, on this thread.
pub(crate) fn matvec_serial(w: &[f32], cols: usize, x: &[f32], out: &mut [f32]) {
    match isa() {
        // SAFETY: `isa` saw AVX2 and FMA on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::matvec(w, cols, x, out) },
        Isa::Portable => matvec_body::<false>(w, cols, x, out),
    }
}

/// IEEE half-precision bits widened to f32 (`out` as long as `bits`).
pub(crate) fn widen_f16(bits: &[u16], out: &mut [f32]) {
    match isa() {
        // SAFETY: `isa` saw F16C on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::widen_f16(bits, out) },
        Isa::Portable => {
            for (b, o) in bits.iter().zip(out) {
                *o = half::f16::from_bits(*b).to_f32();
            }
        }
    }
}

/// `out = W x` for a row-major matrix of IEEE half-precision bits.
pub(crate) fn matvec_f16_serial(w: &[u16], cols: usize, x: &[f32], out: &mut [f32]) {
    match isa() {
        // SAFETY: `isa` saw AVX2, FMA and F16C on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::matvec_f16(w, cols, x, out) },
        Isa::Portable => {
            let mut wide = vec![0f32; cols];
            for (o, row) in out.iter_mut().zip(w.chunks_exact(cols)) {
                widen_f16(row, &mut wide);
                *o = dot_body::<false>(&wide, x);
            }
        }
    }
}

/// `out = W x` for a row-major matrix of bfloat16 bits.
pub(crate) fn matvec_bf16_serial(w: &[u16], cols: usize, x: &[f32], out: &mut [f32]) {
    match isa() {
        // SAFETY: `isa` saw AVX2 and FMA on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::matvec_bf16(w, cols, x, out) },
        Isa::Portable => matvec_bf16_body::<false>(w, cols, x, out),
    }
}

/// bfloat16 bits widened to f32: the top half of an f32.
pub(crate) fn widen_bf16(bits: &[u16], out: &mut [f32]) {
    for (b, o) in bits.iter().zip(out) {
        *o = f32::from_bits((*b as u32) << 16);
    }
}

/// One query row's attention (scaled dot products, softmax, weighted sum of
/// values) over the first `row.seen` cached rows, into `out`; `scores` is
/// scratch of at least `row.seen`.
pub(crate) fn attend_row<T: KvValue>(row: Row<'_, T>, scores: &mut [f32], out: &mut [f32]) {
    match isa() {
        // SAFETY: `isa` saw AVX2, FMA and F16C on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::attend_row(row, scores, out) },
        Isa::Portable => attend_row_body::<false, T>(row, scores, out),
    }
}

/// `out = W x` for a row-major `W` of `out.len()` rows and `cols` columns,
/// split across threads when it is large enough to gain from it.
pub(crate) fn matvec(w: &[f32], cols: usize, x: &[f32], out: &mut [f32]) {
    let rows = out.len();
    debug_assert_eq!(w.len(), rows * cols);
    if cols == 0 {
        return out.fill(0.0);
    }
    if !worth_splitting(rows * cols) {
        return matvec_serial(w, cols, x, out);
    }
    let block = row_block(rows);
    out.par_chunks_mut(block)
        .zip(w.par_chunks(block * cols))
        .for_each(|(o, w)| matvec_serial(w, cols, x, o));
}

/// Whether `work` multiply-adds gain from more than one thread.
pub(crate) fn worth_splitting(work: usize) -> bool {
    rayon::current_num_threads() > 1 && work >= PARALLEL_MIN_WORK
}

/// Rows per task of a matrix-vector product over `rows` rows: a few
/// blocks per thread, so one slow thread does not hold up the rest.
pub(crate) fn row_block(rows: usize) -> usize {
    rows.div_ceil(rayon::current_num_threads() * 4).max(8)
}

/// `out = X Wᵀ`: `X` is `n` rows of `k`, `W` is `rows` rows of `k` (a
/// linear layer's weight as stored), `out` is `n` rows of `rows`.
pub(crate) fn matmul_t(x: &[f32], n: usize, k: usize, w: &[f32], out: &mut [f32]) {
    let rows = w.len() / k.max(1);
    debug_assert_eq!(x.len(), n * k);
    debug_assert_eq!(out.len(), n * rows);
    if n == 1 {
        return matvec(w, k, x, out);
    }
    // SAFETY: the strides describe `x` (n×k, row-major), `Wᵀ` (k×rows: W
    // read by columns) and `out` (n×rows, row-major), all within their
    // slices as the assertions above check.
    unsafe {
        gemm::gemm(
            n,
            rows,
            k,
            out.as_mut_ptr(),
            1,
            rows as isize,
            false,
            x.as_ptr(),
            1,
            k as isize,
            w.as_ptr(),
            k as isize,
            1,
            0.0,
            1.0,
            false,
            false,
            false,
            parallelism(n * rows * k),
        )
    }
}

/// `out (m×n) = scale · A (m×k) · B (k×n)` over strided operands: `(row
/// stride, column stride)` for each, in elements, on the calling thread.
///
/// # Safety
/// Every element the strides reach must lie within its slice.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm_strided(
    m: usize,
    n: usize,
    k: usize,
    out: &mut [f32],
    out_strides: (usize, usize),
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    b_strides: (usize, usize),
    scale: f32,
) {
    gemm::gemm(
        m,
        n,
        k,
        out.as_mut_ptr(),
        out_strides.1 as isize,
        out_strides.0 as isize,
        false,
        a.as_ptr(),
        a_strides.1 as isize,
        a_strides.0 as isize,
        b.as_ptr(),
        b_strides.1 as isize,
        b_strides.0 as isize,
        0.0,
        scale,
        false,
        false,
        false,
        gemm::Parallelism::None,
    )
}

fn parallelism(work: usize) -> gemm::Parallelism {
    if worth_splitting(work) {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    }
}

/// Rows per task when a row-by-row step is split across threads.
pub(crate) const ROWS_PER_TASK: usize = 16;

/// Root-mean-square normalisation of each `weight.len()`-wide row of `x`
/// into `out`, scaled by `weight` (transformers' `LlamaRMSNorm`, in f32).
pub(crate) fn rms_norm(x: &[f32], weight: &[f32], eps: f32, out: &mut [f32]) {
    let width = weight.len();
    if out.len() <= width * ROWS_PER_TASK {
        return rms_norm_rows(x, weight, eps, out);
    }
    out.par_chunks_mut(width * ROWS_PER_TASK)
        .zip(x.par_chunks(width * ROWS_PER_TASK))
        .for_each(|(out, x)| rms_norm_rows(x, weight, eps, out));
}

fn rms_norm_rows(x: &[f32], weight: &[f32], eps: f32, out: &mut [f32]) {
    let width = weight.len();
    for (row, out) in x.chunks_exact(width).zip(out.chunks_exact_mut(width)) {
        let mean_square = dot_body::<false>(row, row) / width as f32;
        let scale = 1.0 / (mean_square + eps).sqrt();
        for ((o, v), w) in out.iter_mut().zip(row).zip(weight) {
            *o = w * (v * scale);
        }
    }
}

/// Softmax of `x` in place.
pub(crate) fn softmax(x: &mut [f32]) {
    let max = max_of(x);
    let sum = match isa() {
        // SAFETY: `isa` saw AVX2 and FMA on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::exp_shifted(x, max) },
        Isa::Portable => exp_shifted_body(x, max),
    };
    let inv = 1.0 / sum;
    for v in x.iter_mut() {
        *v *= inv;
    }
}

/// The nonlinearity of a gated MLP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Activation {
    /// SiLU (Llama, Qwen).
    Silu,
    /// GELU, tanh approximation (Gemma).
    GeluTanh,
}

/// `act(gate) * up` for each row of `gate_up` (the gate's `width` values,
/// then the up projection's), into `out`.
pub(crate) fn gated(gate_up: &[f32], width: usize, act: Activation, out: &mut [f32]) {
    let rows = |gate_up: &[f32], out: &mut [f32]| {
        for (row, out) in gate_up
            .chunks_exact(2 * width)
            .zip(out.chunks_exact_mut(width))
        {
            let (gate, up) = row.split_at(width);
            match (act, isa()) {
                // SAFETY (both): `isa` saw AVX2 and FMA on this CPU.
                #[cfg(target_arch = "x86_64")]
                (Activation::GeluTanh, Isa::Avx2Fma) => unsafe { x86::gelu_mul(gate, up, out) },
                (Activation::GeluTanh, Isa::Portable) => gelu_mul_body(gate, up, out),
                #[cfg(target_arch = "x86_64")]
                (Activation::Silu, Isa::Avx2Fma) => unsafe { x86::silu_mul(gate, up, out) },
                (Activation::Silu, Isa::Portable) => silu_mul_body(gate, up, out),
            }
        }
    };
    if out.len() <= width * ROWS_PER_TASK {
        return rows(gate_up, out);
    }
    out.par_chunks_mut(width * ROWS_PER_TASK)
        .zip(gate_up.par_chunks(2 * width * ROWS_PER_TASK))
        .for_each(|(out, gate_up)| rows(gate_up, out));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive_dot(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
    }

    proptest! {
        /// Both gated activations, on this CPU's path and the portable
        /// one, within a few float roundings of their definitions in f64
        /// (PyTorch's `silu` and `gelu(x, approximate="tanh")`), for gates
        /// far into both tails.
        #[test]
        fn gated_activations_match_their_definitions(
            v in proptest::collection::vec((-30f32..30.0, -4f32..4.0), 1..80),
        ) {
            let (gate, up): (Vec<f32>, Vec<f32>) = v.into_iter().unzip();
            let width = gate.len();
            let gate_up = [gate.clone(), up.clone()].concat();
            let silu = |x: f64| x / (1.0 + (-x).exp());
            let gelu = |x: f64| {
                0.5 * x * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3))).tanh())
            };
            for act in [Activation::Silu, Activation::GeluTanh] {
                let exact: fn(f64) -> f64 = match act {
                    Activation::Silu => silu,
                    Activation::GeluTanh => gelu,
                };
                let portable = match act {
                    Activation::Silu => silu_mul_body,
                    Activation::GeluTanh => gelu_mul_body,
                };
                let mut fast = vec![0.0; width];
                gated(&gate_up, width, act, &mut fast);
                let mut reference = vec![0.0; width];
                portable(&gate, &up, &mut reference);
                for (i, (g, u)) in gate.iter().zip(&up).enumerate() {
                    let want = exact(*g as f64) * *u as f64;
                    let tolerance = 2e-6 * (*g as f64 * *u as f64).abs() + 1e-30;
                    for got in [fast[i], reference[i]] {
                        prop_assert!((got as f64 - want).abs() <= tolerance, "{:?}({}) · {}: {} vs {}", act, g, u, got, want);
                    }
                }
            }
        }

        /// A row attending over f16 keys and values gives, bit for bit,
        /// what it gives over their widened f32 values, on the portable
        /// path as on this CPU's.
        #[test]
        fn f16_rows_attend_as_their_widened_values(
            dim in prop::sample::select(vec![4usize, 8, 12, 64, 72]),
            seen in 1usize..40,
            seed in 0u32..1000,
        ) {
            let value = |i: usize| (((i as u32).wrapping_mul(2654435761).wrapping_add(seed) >> 16) % 2001) as f32 / 1000.0 - 1.0;
            let stride = 2 * dim;
            let q: Vec<f32> = (0..dim).map(value).collect();
            let halves: Vec<half::f16> = (0..2 * seen * stride).map(|i| half::f16::from_f32(3.0 * value(i + 1))).collect();
            let wide: Vec<f32> = halves.iter().map(|x| x.to_f32()).collect();
            let (keys16, values16) = halves.split_at(seen * stride);
            let (keys, values) = wide.split_at(seen * stride);
            let r16 = Row { q: &q, keys: keys16, values: values16, stride, offset: dim, seen, scale: 0.3 };
            let r32 = Row { q: &q, keys, values, stride, offset: dim, seen, scale: 0.3 };
            let mut scores = vec![0f32; seen];
            let (mut a, mut b) = (vec![0f32; dim], vec![0f32; dim]);
            attend_row_body::<false, _>(r16, &mut scores, &mut a);
            attend_row_body::<false, _>(r32, &mut scores, &mut b);
            prop_assert_eq!(&a, &b);
            attend_row(r16, &mut scores, &mut a);
            attend_row(r32, &mut scores, &mut b);
            prop_assert_eq!(&a, &b);
        }

        #[test]
        fn dot_matches_a_plain_sum(v in proptest::collection::vec((-4f32..4.0, -4f32..4.0), 1..300)) {
            let (a, b): (Vec<f32>, Vec<f32>) = v.into_iter().unzip();
            let expected = naive_dot(&a, &b);
            let mut out = [0.0];
            matvec_serial(&a, a.len(), &b, &mut out);
            prop_assert!((out[0] as f64 - expected).abs() < 1e-3, "{} vs {expected}", out[0]);
            prop_assert!((dot_body::<false>(&a, &b) as f64 - expected).abs() < 1e-3);
        }

        #[test]
        fn matmul_matches_rows_of_dots(n in 1usize..6, k in 1usize..70, rows in 1usize..90, seed in 0u32..1000) {
            let value = |i: usize| (((i as u32).wrapping_mul(2654435761).wrapping_add(seed) >> 16) % 200) as f32 / 100.0 - 1.0;
            let x: Vec<f32> = (0..n * k).map(value).collect();
            let w: Vec<f32> = (0..rows * k).map(|i| value(i + 7919)).collect();
            let mut out = vec![0.0; n * rows];
            matmul_t(&x, n, k, &w, &mut out);
            for i in 0..n {
                for r in 0..rows {
                    let expected = naive_dot(&x[i * k..(i + 1) * k], &w[r * k..(r + 1) * k]);
                    prop_assert!((out[i * rows + r] as f64 - expected).abs() < 1e-3);
                }
            }
        }
    }

    #[test]
    fn the_fast_exp_is_within_a_few_ulps() {
        let mut worst = 0f32;
        for i in -8730..=8830 {
            let x = i as f32 / 100.0;
            let rel = (exp_approx(x) - x.exp()).abs() / x.exp();
            worst = worst.max(rel);
        }
        assert!(worst < 5e-7, "relative error {worst}");
        assert!(exp_approx(-1000.0) < 1e-37);
        assert!(exp_approx(f32::NEG_INFINITY) < 1e-37);
    }

    #[test]
    fn half_precision_widens_exactly() {
        let values: Vec<f32> = (0..37).map(|i| (i as f32 - 18.0) * 0.375).collect();
        let f16: Vec<u16> = values
            .iter()
            .map(|v| half::f16::from_f32(*v).to_bits())
            .collect();
        let bf16: Vec<u16> = values
            .iter()
            .map(|v| half::bf16::from_f32(*v).to_bits())
            .collect();
        let mut out = vec![0.0; values.len()];
        widen_f16(&f16, &mut out);
        assert_eq!(out, values);
        widen_bf16(&bf16, &mut out);
        assert_eq!(out, values);
        // Matrix-vector products over the halves equal those over their
        // widened values, rows of any length.
        let x: Vec<f32> = (0..37).map(|i| (i % 5) as f32 - 2.0).collect();
        for cols in [1, 8, 16, 37] {
            let rows = 37 / cols;
            let n = rows * cols;
            let mut expected = vec![0.0; rows];
            matvec_serial(&values[..n], cols, &x, &mut expected);
            let mut got = vec![0.0; rows];
            matvec_f16_serial(&f16[..n], cols, &x, &mut got);
            assert!(got.iter().zip(&expected).all(|(a, b)| (a - b).abs() < 1e-4));
            matvec_bf16_serial(&bf16[..n], cols, &x, &mut got);
            assert!(got.iter().zip(&expected).all(|(a, b)| (a - b).abs() < 1e-4));
        }
    }

    #[test]
    fn a_large_matvec_splits_across_threads_with_the_same_result() {
        let (rows, cols) = (1000, 96);
        let w: Vec<f32> = (0..rows * cols)
            .map(|i| ((i % 17) as f32 - 8.0) / 8.0)
            .collect();
        let x: Vec<f32> = (0..cols).map(|i| (i % 5) as f32 - 2.0).collect();
        let mut parallel = vec![0.0; rows];
        matvec(&w, cols, &x, &mut parallel);
        let mut serial = vec![0.0; rows];
        matvec_serial(&w, cols, &x, &mut serial);
        assert_eq!(parallel, serial);
    }

    #[test]
    fn softmax_and_activations_match_their_definitions() {
        let mut x = vec![1.0, 2.0, 3.0];
        softmax(&mut x);
        let z: f32 = [1f32, 2.0, 3.0].iter().map(|v| v.exp()).sum();
        assert!((x[2] - 3f32.exp() / z).abs() < 1e-6);
        let mut out = [0.0; 2];
        gated(&[1.0, -2.0, 3.0, 0.5], 2, Activation::Silu, &mut out);
        assert!((out[0] - 3.0 / (1.0 + (-1f32).exp())).abs() < 1e-6);
        assert!((out[1] - (-2.0 / (1.0 + 2f32.exp())) * 0.5).abs() < 1e-6);
        // PyTorch's gelu(x, approximate="tanh"), in f64.
        let gelu = |x: f64| {
            0.5 * x
                * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3))).tanh())
        };
        gated(&[1.0, -2.0, 3.0, 0.5], 2, Activation::GeluTanh, &mut out);
        assert!((out[0] as f64 - gelu(1.0) * 3.0).abs() < 1e-6);
        assert!((out[1] as f64 - gelu(-2.0) * 0.5).abs() < 1e-6);
    }
}
