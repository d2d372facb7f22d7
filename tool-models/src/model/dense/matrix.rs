//! A weight matrix in the precision its file stores: f32; f16 and bf16
//! kept as they are and widened as they are read, which halves the memory a
//! decode step streams and gives the same numbers as widening at load; or
//! one of GGUF's block quantizations (see `quant.rs`).

use super::kernels::{self, matmul_t};
use super::quant::gemm::{self, Packed, Tokens};
use super::quant::{self, Q8Vector, Quant};
use rayon::prelude::*;
use std::cell::RefCell;
use std::sync::OnceLock;

/// A row-major matrix of `cols` columns.
#[derive(Debug)]
pub(crate) struct Matrix {
    cols: usize,
    data: Data,
    /// The format the file stored, where it was widened to f32 at load.
    widened_from: Option<String>,
    /// The rows unpacked for integer products of many rows, kept once
    /// [`repack`](Self::repack)ed (else a product unpacks them per call).
    packed: OnceLock<Packed>,
}

#[derive(Debug)]
enum Data {
    F32(Vec<f32>),
    /// IEEE half precision, as bits.
    F16(Vec<u16>),
    /// bfloat16, as bits.
    Bf16(Vec<u16>),
    /// Whole blocks of a GGUF quantization, row after row.
    Quant(Quant, Vec<u8>),
    /// Matrices of one width but different formats, stacked row-wise.
    Stack(Vec<Matrix>),
}

// Buffers are taken out of these while in use rather than borrowed: a
// thread waiting on parallel work may run another pass's step meanwhile,
// which then finds an empty buffer instead of a borrowed one.
thread_local! {
    /// A whole matrix widened to f32, for matrix products over many rows.
    static WIDE: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    /// Rows rounded for a quantized matrix's product.
    static ROUNDED: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    /// The vector of a quantized matrix-vector product.
    static QUANTIZED: RefCell<Q8Vector> = RefCell::new(Q8Vector::default());
    /// The vectors of a quantized product over a few vectors.
    static QUANTIZED_FEW: RefCell<Vec<Q8Vector>> = const { RefCell::new(Vec::new()) };
    /// A quantized matrix unpacked for integer products over many rows.
    static PACKED: RefCell<Packed> = RefCell::new(Packed::default());
    /// The tokens' terms of an integer product.
    static TOKENS: RefCell<Tokens> = RefCell::new(Tokens::default());
    /// An integer product's sums, group by group.
    static SUMS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Weight bytes in a tile of [`Matrix::matmul_few`]: small enough that the
/// tile stays in L1 (or at worst L2) while every vector passes over it, so
/// memory delivers it once rather than once per vector.
const TILE_BYTES: usize = 16 * 1024;

/// The most rows in a tile: past this the rows of a narrow matrix gain
/// nothing from a longer tile and each task's last tile grows uneven.
const TILE_MAX_ROWS: usize = 32;

impl Matrix {
    pub(crate) fn f32(values: Vec<f32>, cols: usize) -> Matrix {
        Matrix {
            cols,
            data: Data::F32(values),
            widened_from: None,
            packed: OnceLock::new(),
        }
    }

    pub(crate) fn f16(bits: Vec<u16>, cols: usize) -> Matrix {
        Matrix {
            cols,
            data: Data::F16(bits),
            widened_from: None,
            packed: OnceLock::new(),
        }
    }

    pub(crate) fn bf16(bits: Vec<u16>, cols: usize) -> Matrix {
        Matrix {
            cols,
            data: Data::Bf16(bits),
            widened_from: None,
            packed: OnceLock::new(),
        }
    }

    /// `bytes` in the block quantization `quant`, whole rows of `cols`
    /// values (a multiple of the format's block).
    pub(crate) fn quantized(quant: Quant, bytes: Vec<u8>, cols: usize) -> Matrix {
        debug_assert!(cols.is_multiple_of(quant.block_values()));
        debug_assert!(bytes.len().is_multiple_of(quant.row_bytes(cols).max(1)));
        Matrix {
            cols,
            data: Data::Quant(quant, bytes),
            widened_from: None,
            packed: OnceLock::new(),
        }
    }

    /// `values` that the file stored in `format` and the loader widened.
    pub(crate) fn widened(values: Vec<f32>, cols: usize, format: impl Into<String>) -> Matrix {
        Matrix {
            widened_from: Some(format.into()),
            ..Matrix::f32(values, cols)
        }
    }

    /// How each part of this matrix is computed with, counted into
    /// `counts`: `Q4_1`, `f16`… as stored, or `f32 (widened from …)`.
    pub(crate) fn count_formats(&self, counts: &mut std::collections::BTreeMap<String, usize>) {
        let format = match (&self.data, &self.widened_from) {
            (Data::Stack(parts), _) => {
                for part in parts {
                    part.count_formats(counts);
                }
                return;
            }
            (Data::F32(_), Some(from)) => format!("f32 (widened from {from})"),
            (Data::F32(_), None) => "f32".to_owned(),
            (Data::F16(_), _) => "f16".to_owned(),
            (Data::Bf16(_), _) => "bf16".to_owned(),
            (Data::Quant(q, _), _) => q.name().to_owned(),
        };
        *counts.entry(format).or_default() += 1;
    }

    /// Stacks matrices of the same width row-wise (fused projections): one
    /// matrix where all share a half precision or a quantization, f32
    /// where all are f32 or half, and a stack of parts otherwise (a GGUF
    /// file may quantize q, k and v differently).
    pub(crate) fn stack(parts: Vec<Matrix>) -> Matrix {
        let cols = parts.first().map_or(0, |m| m.cols);
        let quants: Vec<Option<Quant>> = parts
            .iter()
            .map(|m| match m.data {
                Data::Quant(q, _) => Some(q),
                _ => None,
            })
            .collect();
        if let Some(Some(first)) = quants.first() {
            if quants.iter().all(|q| *q == Some(*first)) {
                let mut bytes = Vec::new();
                for m in parts {
                    if let Data::Quant(_, b) = m.data {
                        bytes.extend_from_slice(&b);
                    }
                }
                return Matrix::quantized(*first, bytes, cols);
            }
        }
        if quants.iter().any(Option::is_some) {
            return Matrix {
                cols,
                data: Data::Stack(parts),
                widened_from: None,
                packed: OnceLock::new(),
            };
        }
        let all = |f: fn(&Data) -> bool| parts.iter().all(|m| f(&m.data));
        if all(|d| matches!(d, Data::F16(_))) || all(|d| matches!(d, Data::Bf16(_))) {
            let f16 = matches!(parts[0].data, Data::F16(_));
            let mut bits = Vec::new();
            for m in parts {
                if let Data::F16(b) | Data::Bf16(b) = m.data {
                    bits.extend_from_slice(&b);
                }
            }
            return if f16 {
                Matrix::f16(bits, cols)
            } else {
                Matrix::bf16(bits, cols)
            };
        }
        // Parts widened from one format stay reported as that format.
        let from = parts[0].widened_from.clone();
        let same_origin = parts.iter().all(|m| m.widened_from == from);
        let mut values = Vec::new();
        for m in &parts {
            let start = values.len();
            values.resize(start + m.len(), 0.0);
            m.widen_rows(0, &mut values[start..]);
        }
        match from {
            Some(from) if same_origin => Matrix::widened(values, cols, from),
            _ => Matrix::f32(values, cols),
        }
    }

    /// The number of values.
    fn len(&self) -> usize {
        self.rows() * self.cols
    }

    /// The number of rows.
    pub(crate) fn rows(&self) -> usize {
        match &self.data {
            Data::F32(v) => v.len() / self.cols.max(1),
            Data::F16(v) | Data::Bf16(v) => v.len() / self.cols.max(1),
            Data::Quant(q, b) => b.len() / q.row_bytes(self.cols).max(1),
            Data::Stack(parts) => parts.iter().map(Matrix::rows).sum(),
        }
    }

    /// Rows from `first` widened into `out` (whole rows).
    pub(crate) fn widen_rows(&self, first: usize, out: &mut [f32]) {
        let start = first * self.cols;
        let end = start + out.len();
        match &self.data {
            Data::F32(v) => out.copy_from_slice(&v[start..end]),
            Data::F16(v) => kernels::widen_f16(&v[start..end], out),
            Data::Bf16(v) => kernels::widen_bf16(&v[start..end], out),
            Data::Quant(q, b) => {
                let row_bytes = q.row_bytes(self.cols);
                let rows = out.len() / self.cols.max(1);
                quant::dequantize(*q, &b[first * row_bytes..][..rows * row_bytes], out);
            }
            Data::Stack(parts) => {
                let (mut first, mut out) = (first, out);
                for part in parts {
                    let rows = part.rows();
                    if first >= rows {
                        first -= rows;
                        continue;
                    }
                    let take = (rows - first).min(out.len() / self.cols.max(1));
                    let (now, rest) = out.split_at_mut(take * self.cols);
                    part.widen_rows(first, now);
                    (first, out) = (0, rest);
                    if out.is_empty() {
                        break;
                    }
                }
            }
        }
    }

    /// `out = M x`, split across threads when large enough.
    pub(crate) fn matvec(&self, x: &[f32], out: &mut [f32]) {
        let cols = self.cols;
        if let Some(kept) = self.packed.get() {
            return integer_product(kept, x, 1, cols, out);
        }
        match &self.data {
            Data::F32(w) => kernels::matvec(w, cols, x, out),
            Data::F16(w) => split_rows(w, cols, cols, out, |w, o| {
                kernels::matvec_f16_serial(w, cols, x, o)
            }),
            Data::Bf16(w) => split_rows(w, cols, cols, out, |w, o| {
                kernels::matvec_bf16_serial(w, cols, x, o)
            }),
            Data::Quant(q, w) => {
                let mut qx = QUANTIZED.take();
                qx.quantize(x);
                split_rows(w, q.row_bytes(cols), cols, out, |w, o| {
                    quant::dot_rows(*q, w, &qx, o)
                });
                QUANTIZED.set(qx);
            }
            Data::Stack(parts) => {
                let mut out = out;
                for part in parts {
                    let (now, rest) = out.split_at_mut(part.rows());
                    part.matvec(x, now);
                    out = rest;
                }
            }
        }
    }

    /// `out = X Mᵀ` for `n` rows of `X`.
    pub(crate) fn matmul_t(&self, x: &[f32], n: usize, out: &mut [f32]) {
        if n == 1 {
            return self.matvec(x, out);
        }
        if self.by_vectors(n) {
            return self.matmul_few(x, n, out);
        }
        match &self.data {
            Data::F32(w) => matmul_t(x, n, self.cols, w, out),
            Data::Stack(parts) => {
                let rows = self.rows();
                let mut first = 0;
                let mut part_out = Vec::new();
                for part in parts {
                    let part_rows = part.rows();
                    part_out.clear();
                    part_out.resize(n * part_rows, 0.0);
                    part.matmul_t(x, n, &mut part_out);
                    for (o, p) in out
                        .chunks_exact_mut(rows)
                        .zip(part_out.chunks_exact(part_rows))
                    {
                        o[first..first + part_rows].copy_from_slice(p);
                    }
                    first += part_rows;
                }
            }
            Data::F16(_) | Data::Bf16(_) | Data::Quant(..) => self.matmul_t_parts(x, &[n], out),
        }
    }

    /// `out = X Mᵀ` for a few (`n`) rows of `X`, such as one activation
    /// per sequence of a batched decode step: `out` is `n` rows of
    /// [`rows`](Self::rows). Each row of `out` is bit for bit the
    /// [`matvec`](Self::matvec) of that row of `X`, but the matrix is read
    /// from memory once: it is walked in tiles of a few rows, and every
    /// vector passes over a tile while it is in cache.
    pub(crate) fn matmul_few(&self, x: &[f32], n: usize, out: &mut [f32]) {
        let rows = self.rows();
        debug_assert_eq!(x.len(), n * self.cols);
        debug_assert_eq!(out.len(), n * rows);
        if n == 0 || rows == 0 {
            return;
        }
        if self.repacked() {
            // Into `out` as it is: no rows gathered from separate slices.
            return self.matmul_t_parts(x, &[n], out);
        }
        self.few_into(x, out.chunks_exact_mut(rows).collect());
    }

    /// [`matmul_few`](Self::matmul_few) into one slice of this matrix's
    /// rows per vector, which lets a stack hand each part its rows.
    fn few_into(&self, x: &[f32], outs: Vec<&mut [f32]>) {
        let cols = self.cols;
        let vector = |j: usize| &x[j * cols..][..cols];
        match &self.data {
            Data::F32(w) => tiled(w, cols, cols, outs, each(x, cols, kernels::matvec_serial)),
            Data::F16(w) => tiled(
                w,
                cols,
                cols,
                outs,
                each(x, cols, kernels::matvec_f16_serial),
            ),
            Data::Bf16(w) => tiled(
                w,
                cols,
                cols,
                outs,
                each(x, cols, kernels::matvec_bf16_serial),
            ),
            Data::Quant(..) if self.packed.get().is_some() => {
                let (n, rows) = (outs.len(), self.rows());
                let mut all = vec![0f32; n * rows];
                self.matmul_t_parts(&x[..n * cols], &[n], &mut all);
                for (out, row) in outs.into_iter().zip(all.chunks_exact(rows)) {
                    out.copy_from_slice(row);
                }
            }
            Data::Quant(q, w) => {
                let n = outs.len();
                let mut qx = QUANTIZED_FEW.take();
                if qx.len() < n {
                    qx.resize_with(n, Q8Vector::default);
                }
                for (j, v) in qx[..n].iter_mut().enumerate() {
                    v.quantize(vector(j));
                }
                let qx_used = &qx[..n];
                tiled(w, q.row_bytes(cols), cols, outs, |w, outs| {
                    quant::dot_rows_many(*q, w, qx_used, outs)
                });
                QUANTIZED_FEW.set(qx);
            }
            Data::Stack(parts) => {
                let mut rest = outs;
                for part in parts {
                    let rows = part.rows();
                    let (now, later): (Vec<_>, Vec<_>) =
                        rest.into_iter().map(|o| o.split_at_mut(rows)).unzip();
                    part.few_into(x, now);
                    rest = later;
                }
            }
        }
    }

    /// `out = X Mᵀ` for several sequences' rows of `X` at once (prompts,
    /// or a token each for a decode step), `parts` giving how many rows
    /// each has: each part's rows of `out` are bit for bit its own
    /// [`matmul_t`](Self::matmul_t) (which is this with one part).
    ///
    /// A part of one row, or of a few rows of a quantized matrix (see
    /// [`Quant::vector_rows`]), takes each row's
    /// [`matvec`](Self::matvec), such parts side by side reading the
    /// matrix once ([`matmul_few`](Self::matmul_few)); longer parts of a
    /// quantized matrix take integer products over many rows from the
    /// matrix unpacked once for all of them, where the CPU has AVX-512
    /// VNNI ([`gemm`]), and otherwise, as f16 and bf16 do, a product from
    /// the matrix widened once.
    pub(crate) fn matmul_t_parts(&self, x: &[f32], parts: &[usize], out: &mut [f32]) {
        let (rows, cols) = (self.rows(), self.cols);
        let narrow = matches!(self.data, Data::F16(_) | Data::Bf16(_) | Data::Quant(..));
        let quantized = matches!(self.data, Data::Quant(..));
        // Taken from their cells for the call, widened when a part first
        // needs them (see the thread-locals above).
        let (mut wide, mut rounded, mut packed) = (None, ROUNDED.take(), None);
        let (mut first, mut out, mut rest) = (0, out, parts);
        while !rest.is_empty() {
            // Consecutive parts multiplied as vectors share one read of
            // the matrix, and so do consecutive parts of a repacked one
            // (its integer products give each row the same bits,
            // whatever rows go with it).
            let vectors = rest.iter().take_while(|&&n| self.by_vectors(n)).count();
            let together = if vectors > 0 {
                vectors
            } else if self.repacked() {
                rest.len()
            } else {
                1
            };
            let n = rest[..together].iter().sum();
            rest = &rest[together..];
            let (into, later) = out.split_at_mut(n * rows);
            let span = first * cols..(first + n) * cols;
            if vectors > 0 {
                self.matmul_few(&x[span], n, into);
            } else if !narrow {
                self.matmul_t(&x[span], n, into);
            } else if let Some(kept) = self.packed.get() {
                integer_product(kept, &x[span], n, cols, into);
            } else if let Some((quant, w)) = self.integer_format() {
                // Unpacked once for all the parts, as widening is.
                let packed = packed.get_or_insert_with(|| {
                    let mut packed = PACKED.take();
                    packed.pack(quant, w, cols);
                    packed
                });
                integer_product(packed, &x[span], n, cols, into);
            } else {
                // Widening costs one pass over the matrix, against the
                // rows' multiply-adds each of its values takes part in.
                // Every value is written before it is read: no zeroing.
                let wide = wide.get_or_insert_with(|| {
                    let mut wide = WIDE.take();
                    grow(&mut wide, self.len());
                    self.widen_all(&mut wide[..self.len()]);
                    wide
                });
                let x = if quantized {
                    grow(&mut rounded, span.len());
                    quant::round_as_q8(&x[span.clone()], &mut rounded[..span.len()]);
                    &rounded[..span.len()]
                } else {
                    &x[span]
                };
                matmul_t(x, n, cols, &wide[..self.len()], into);
            }
            (first, out) = (first + n, later);
        }
        ROUNDED.set(rounded);
        if let Some(wide) = wide {
            WIDE.set(wide);
        }
        if let Some(packed) = packed {
            PACKED.set(packed);
        }
    }

    /// The format and bytes of a quantized matrix whose products over many
    /// rows are taken in integers ([`gemm`]: where the CPU has AVX-512 VNNI).
    fn integer_format(&self) -> Option<(Quant, &[u8])> {
        match &self.data {
            Data::Quant(quant, w) if gemm::available() => Some((*quant, w)),
            _ => None,
        }
    }

    /// Unpacks a quantized matrix's rows for the integer products of many
    /// rows once and keeps them (0.75–1.25 bytes a value), so that a
    /// prompt chunk or a batch of sequences no longer unpacks them per
    /// call; returns the bytes kept. A no-op where those products do not
    /// run (other formats, a CPU without AVX2).
    pub(crate) fn repack(&self) -> usize {
        match &self.data {
            Data::Stack(parts) => parts.iter().map(Matrix::repack).sum(),
            Data::Quant(quant, w) if gemm::available() => self
                .packed
                .get_or_init(|| {
                    let mut packed = Packed::default();
                    packed.pack(*quant, w, self.cols);
                    packed
                })
                .bytes(),
            _ => 0,
        }
    }

    /// Whether every quantized part of this matrix is [repacked](Self::repack).
    fn repacked(&self) -> bool {
        match &self.data {
            Data::Stack(parts) => parts.iter().all(Matrix::repacked),
            Data::Quant(..) => self.packed.get().is_some(),
            _ => false,
        }
    }

    /// Whether [`matmul_t_parts`](Self::matmul_t_parts) multiplies a part
    /// of `n` rows as `n` vectors.
    pub(crate) fn by_vectors(&self, n: usize) -> bool {
        match &self.data {
            // Repacked, every product is an integer product over many
            // rows: as fast as the vectors' for one row and faster from
            // two (a batch of sequences), and the same bits for a row
            // whatever rows go with it.
            Data::Quant(..) if self.packed.get().is_some() => false,
            Data::Quant(q, _) => n <= q.vector_rows(),
            Data::Stack(parts) => parts.iter().all(|p| p.by_vectors(n)),
            _ => n == 1,
        }
    }

    /// Whether a product over `n` rows gives each row the bits one decode
    /// step gives it, for `n` small enough that attention taken row by row
    /// pays too: a short prompt then gives bit for bit the logits of its
    /// tokens run one by one.
    pub(crate) fn as_decode_steps(&self, n: usize) -> bool {
        match &self.data {
            Data::Quant(q, _) if self.packed.get().is_some() => n <= q.vector_rows(),
            Data::Stack(parts) => parts.iter().all(|p| p.as_decode_steps(n)),
            _ => self.by_vectors(n),
        }
    }

    /// Every row widened into `out`, across threads for large matrices.
    fn widen_all(&self, out: &mut [f32]) {
        let (rows, cols) = (self.rows(), self.cols);
        if cols == 0 || !kernels::worth_splitting(rows * cols) {
            return self.widen_rows(0, out);
        }
        let block = kernels::row_block(rows);
        out.par_chunks_mut(block * cols)
            .enumerate()
            .for_each(|(i, out)| self.widen_rows(i * block, out));
    }
}

/// `out = X Mᵀ` for the `n` rows of `x` (`cols` wide) over `packed`'s
/// rows: each row of `x` quantized as a decode step quantizes it, each
/// group of rows taken on a thread, and the groups' sums put in place.
fn integer_product(packed: &Packed, x: &[f32], n: usize, cols: usize, out: &mut [f32]) {
    let mut qx = QUANTIZED_FEW.take();
    if qx.len() < n {
        qx.resize_with(n, Q8Vector::default);
    }
    qx[..n]
        .par_iter_mut()
        .zip(x.par_chunks_exact(cols))
        .for_each(|(q, x)| q.quantize(x));
    let xs = &qx[..n];
    let mut tokens = TOKENS.take();
    tokens.of(packed, xs);
    let width = n * gemm::GROUP;
    let mut sums = SUMS.take();
    grow(&mut sums, packed.groups() * width);
    sums[..packed.groups() * width]
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(g, sums)| gemm::product(packed, xs, &tokens, g, sums));
    gemm::place(packed, &sums[..packed.groups() * width], out);
    SUMS.set(sums);
    TOKENS.set(tokens);
    QUANTIZED_FEW.set(qx);
}

/// Makes `v` at least `len` long.
fn grow(v: &mut Vec<f32>, len: usize) {
    if v.len() < len {
        v.resize(len, 0.0);
    }
}

/// Runs `f` over blocks of rows of `w` (`stride` elements each) and `out`,
/// across threads when the matrix of `cols` columns is large.
fn split_rows<T, F>(w: &[T], stride: usize, cols: usize, out: &mut [f32], f: F)
where
    T: Sync,
    F: Fn(&[T], &mut [f32]) + Sync,
{
    let rows = out.len();
    if cols == 0 {
        return out.fill(0.0);
    }
    if !kernels::worth_splitting(rows * cols) {
        return f(w, out);
    }
    let block = kernels::row_block(rows);
    out.par_chunks_mut(block)
        .zip(w.par_chunks(block * stride))
        .for_each(|(o, w)| f(w, o));
}

/// A tile's products with each of the vectors of `x` (`cols` values each),
/// one vector at a time by `kernel` (a matrix-vector product on this
/// thread).
fn each<'x, T: 'x>(
    x: &'x [f32],
    cols: usize,
    kernel: fn(&[T], usize, &[f32], &mut [f32]),
) -> impl Fn(&[T], &mut [&mut [f32]]) + Sync + 'x {
    move |w, outs| {
        for (o, x) in outs.iter_mut().zip(x.chunks_exact(cols)) {
            kernel(w, cols, x, o)
        }
    }
}

/// Runs `f(tile, outs)` over tiles of rows of `w` (`stride` elements
/// each, `cols` values), `outs` holding each vector's slice of the tile's
/// rows: every vector passes over a tile while it is in cache. Blocks of
/// tiles go to threads as in [`split_rows`] when the product is large.
fn tiled<T, F>(w: &[T], stride: usize, cols: usize, mut outs: Vec<&mut [f32]>, f: F)
where
    T: Sync,
    F: Fn(&[T], &mut [&mut [f32]]) + Sync,
{
    let (n, rows) = (outs.len(), outs.first().map_or(0, |o| o.len()));
    if stride == 0 {
        return outs.iter_mut().for_each(|o| o.fill(0.0));
    }
    let tile = (TILE_BYTES / (stride * size_of::<T>())).clamp(1, TILE_MAX_ROWS);
    let run = |w: &[T], outs: &mut [&mut [f32]]| {
        let rows = outs.first().map_or(0, |o| o.len());
        for start in (0..rows).step_by(tile) {
            let end = (start + tile).min(rows);
            let mut now: Vec<&mut [f32]> = outs.iter_mut().map(|o| &mut o[start..end]).collect();
            f(&w[start * stride..end * stride], &mut now);
        }
    };
    // The arithmetic grows with n though the bytes read do not: n vectors
    // are worth a thread sooner than one.
    if !kernels::worth_splitting(n * rows * cols) {
        return run(w, &mut outs);
    }
    let block = kernels::row_block(rows);
    let mut per_vector: Vec<_> = outs.into_iter().map(|o| o.chunks_mut(block)).collect();
    // Block-major, so each task gets the n slices of its rows together.
    let mut by_block = Vec::with_capacity(rows.div_ceil(block) * n);
    for _ in 0..rows.div_ceil(block) {
        for chunks in &mut per_vector {
            by_block.extend(chunks.next());
        }
    }
    by_block
        .par_chunks_mut(n)
        .zip(w.par_chunks(block * stride))
        .for_each(|(outs, w)| run(w, outs));
}

#[cfg(test)]
#[path = "matrix_tests.rs"]
mod tests;
