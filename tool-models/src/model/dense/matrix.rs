//! A weight matrix in the precision its file stores: f32, or f16 and bf16
//! kept as they are and widened as they are read, which halves the memory a
//! decode step streams and gives the same numbers as widening at load.

use super::kernels::{self, matmul_t};
use rayon::prelude::*;
use std::cell::RefCell;

/// A row-major matrix of `cols` columns.
#[derive(Debug)]
pub(crate) struct Matrix {
    cols: usize,
    data: Data,
}

#[derive(Debug)]
enum Data {
    F32(Vec<f32>),
    /// IEEE half precision, as bits.
    F16(Vec<u16>),
    /// bfloat16, as bits.
    Bf16(Vec<u16>),
}

thread_local! {
    /// A whole matrix widened to f32, for matrix products over many rows.
    static WIDE: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

impl Matrix {
    pub(crate) fn f32(values: Vec<f32>, cols: usize) -> Matrix {
        Matrix {
            cols,
            data: Data::F32(values),
        }
    }

    pub(crate) fn f16(bits: Vec<u16>, cols: usize) -> Matrix {
        Matrix {
            cols,
            data: Data::F16(bits),
        }
    }

    pub(crate) fn bf16(bits: Vec<u16>, cols: usize) -> Matrix {
        Matrix {
            cols,
            data: Data::Bf16(bits),
        }
    }

    /// Stacks matrices of the same width row-wise (fused projections); the
    /// result is f32 unless all share one half precision.
    pub(crate) fn stack(parts: Vec<Matrix>) -> Matrix {
        let cols = parts.first().map_or(0, |m| m.cols);
        let all = |f: fn(&Data) -> bool| parts.iter().all(|m| f(&m.data));
        if all(|d| matches!(d, Data::F16(_))) || all(|d| matches!(d, Data::Bf16(_))) {
            let f16 = matches!(parts[0].data, Data::F16(_));
            let bits = parts
                .into_iter()
                .flat_map(|m| match m.data {
                    Data::F16(b) | Data::Bf16(b) => b,
                    Data::F32(_) => Vec::new(),
                })
                .collect();
            return if f16 {
                Matrix::f16(bits, cols)
            } else {
                Matrix::bf16(bits, cols)
            };
        }
        let mut values = Vec::new();
        for m in &parts {
            let start = values.len();
            values.resize(start + m.len(), 0.0);
            m.widen_rows(0, &mut values[start..]);
        }
        Matrix::f32(values, cols)
    }

    fn len(&self) -> usize {
        match &self.data {
            Data::F32(v) => v.len(),
            Data::F16(v) | Data::Bf16(v) => v.len(),
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
        }
    }

    /// `out = M x`, split across threads when large enough.
    pub(crate) fn matvec(&self, x: &[f32], out: &mut [f32]) {
        let cols = self.cols;
        match &self.data {
            Data::F32(w) => kernels::matvec(w, cols, x, out),
            Data::F16(w) => split_rows(w, cols, out, |w, o| {
                kernels::matvec_f16_serial(w, cols, x, o)
            }),
            Data::Bf16(w) => split_rows(w, cols, out, |w, o| {
                kernels::matvec_bf16_serial(w, cols, x, o)
            }),
        }
    }

    /// `out = X Mᵀ` for `n` rows of `X`.
    pub(crate) fn matmul_t(&self, x: &[f32], n: usize, out: &mut [f32]) {
        if n == 1 {
            return self.matvec(x, out);
        }
        match &self.data {
            Data::F32(w) => matmul_t(x, n, self.cols, w, out),
            // Widening once costs one pass over the matrix, against the n
            // multiply-adds each of its values takes part in.
            _ => WIDE.with_borrow_mut(|wide| {
                wide.clear();
                wide.resize(self.len(), 0.0);
                self.widen_rows(0, wide);
                matmul_t(x, n, self.cols, wide, out);
            }),
        }
    }
}

/// Runs `f` over blocks of rows of `w` and `out`, across threads when the
/// matrix is large.
fn split_rows<F>(w: &[u16], cols: usize, out: &mut [f32], f: F)
where
    F: Fn(&[u16], &mut [f32]) + Sync,
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
        .zip(w.par_chunks(block * cols))
        .for_each(|(o, w)| f(w, o));
}
