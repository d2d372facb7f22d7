//! The tests of `matrix.rs`: every path of a product against plain sums.
use super::*;
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};

/// `rows × 64` values, as a Q8_0 matrix and as the values it holds.
fn q8_0(rows: usize, seed: usize) -> (Matrix, Vec<f32>) {
    let values: Vec<f32> = (0..rows * 64)
        .map(|i| ((i * 7 + seed) % 23) as f32 / 11.0 - 1.0)
        .collect();
    let t = Tensor::from_vec(values, (rows, 64), &Device::Cpu).unwrap();
    let q = QTensor::quantize(&t, GgmlDType::Q8_0).unwrap();
    let wide = q.dequantize(&Device::Cpu).unwrap();
    let bytes = q.data().unwrap().into_owned();
    (
        Matrix::quantized(Quant::Q8_0, bytes, 64),
        wide.flatten_all().unwrap().to_vec1().unwrap(),
    )
}

#[test]
fn a_stack_of_formats_reads_and_multiplies_as_its_parts() {
    let (quantized, mut values) = q8_0(3, 1);
    let plain: Vec<f32> = (0..2 * 64).map(|i| (i % 5) as f32 - 2.0).collect();
    values.extend(&plain);
    let stack = Matrix::stack(vec![quantized, Matrix::f32(plain, 64)]);
    assert!(matches!(stack.data, Data::Stack(_)));
    assert_eq!(stack.rows(), 5);
    // Rows across the boundary between the parts.
    let mut rows = vec![0.0; 3 * 64];
    stack.widen_rows(2, &mut rows);
    assert_eq!(rows, values[2 * 64..]);

    let x: Vec<f32> = (0..2 * 64).map(|i| (i % 9) as f32 / 4.0 - 1.0).collect();
    let mut one = vec![0.0; 5];
    stack.matvec(&x[..64], &mut one);
    let mut two = vec![0.0; 2 * 5];
    stack.matmul_t(&x, 2, &mut two);
    // The rows of a product over two vectors are the products over each.
    assert!(one.iter().zip(&two[..5]).all(|(a, b)| (a - b).abs() < 1e-4));
    // The f32 rows are exact; the quantized ones carry the rounding of x.
    for (r, row) in values.chunks_exact(64).enumerate() {
        let exact: f32 = row.iter().zip(&x[..64]).map(|(w, v)| w * v).sum();
        let tolerance = if r < 3 { 0.05 } else { 1e-4 };
        assert!(
            (one[r] - exact).abs() < tolerance,
            "row {r}: {} vs {exact}",
            one[r]
        );
    }
}

/// `matrix.matmul_few` over `n` vectors, and `matrix.matvec` of each.
fn few_and_each(matrix: &Matrix, x: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
    let (rows, cols) = (matrix.rows(), matrix.cols);
    let mut few = vec![f32::NAN; n * rows];
    matrix.matmul_few(&x[..n * cols], n, &mut few);
    let mut each = vec![f32::NAN; n * rows];
    for (x, out) in x.chunks_exact(cols).zip(each.chunks_exact_mut(rows)) {
        matrix.matvec(x, out);
    }
    (few, each)
}

/// Bit patterns, so that a NaN left unwritten, or a difference in the
/// last bit, fails the comparison.
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

use super::super::quant::tests::{candle_quantized, iq4_quantized, values, ALL};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Rows up to 80 cross tiles (32 rows at most) and, with enough
    /// vectors, the threshold for splitting across threads.
    #[test]
    fn a_product_over_a_few_vectors_is_each_vectors_matvec_bit_for_bit(
        n in 1usize..=16,
        rows in 1usize..80,
        blocks in 1usize..=5,
        seed in 0u32..10_000,
    ) {
        let formats = ALL.map(|(quant, dtype)| (quant, Some(dtype)));
        for (quant, dtype) in formats.into_iter().chain([(Quant::Iq4Nl, None), (Quant::Iq4Xs, None)]) {
            let cols = quant.block_values() * blocks;
            let (bytes, _) = match dtype {
                Some(dtype) => candle_quantized(dtype, rows, cols, seed),
                // Formats candle does not write.
                None => iq4_quantized(quant, rows, cols, seed),
            };
            let matrix = Matrix::quantized(quant, bytes, cols);
            let x = values(n * cols, seed ^ 0x5555);
            let (few, each) = few_and_each(&matrix, &x, n);
            prop_assert_eq!(bits(&few), bits(&each), "{:?}, {} × {}, n = {}", quant, rows, cols, n);
        }
    }

    /// The same for the unquantized formats and for a stack of
    /// quantized and plain parts, with odd widths.
    #[test]
    fn every_other_format_multiplies_a_few_vectors_as_it_does_one(
        n in 1usize..=16,
        rows in 1usize..80,
        odd in 0usize..40,
        seed in 0u32..10_000,
    ) {
        let cols = 2 * odd + 33;
        let w = values(rows * cols, seed);
        let f16: Vec<u16> = w.iter().map(|v| half::f16::from_f32(*v).to_bits()).collect();
        let bf16: Vec<u16> = w.iter().map(|v| half::bf16::from_f32(*v).to_bits()).collect();
        let x = values(n * cols, seed ^ 0x5555);
        for (name, matrix) in [
            ("f32", Matrix::f32(w.clone(), cols)),
            ("f16", Matrix::f16(f16, cols)),
            ("bf16", Matrix::bf16(bf16, cols)),
        ] {
            let (few, each) = few_and_each(&matrix, &x, n);
            prop_assert_eq!(bits(&few), bits(&each), "{}, {} × {}, n = {}", name, rows, cols, n);
        }

        // A stack needs a width every part allows: 256 suits all.
        let cols = 256;
        let (q4k, _) = candle_quantized(GgmlDType::Q4K, rows, cols, seed);
        let (q8, _) = candle_quantized(GgmlDType::Q8_0, 3, cols, seed + 1);
        let plain = values(5 * cols, seed + 2);
        let stack = Matrix::stack(vec![
            Matrix::quantized(Quant::Q4K, q4k, cols),
            Matrix::quantized(Quant::Q8_0, q8, cols),
            Matrix::f32(plain, cols),
        ]);
        prop_assert!(matches!(stack.data, Data::Stack(_)));
        let x = values(n * cols, seed ^ 0x3333);
        let (few, each) = few_and_each(&stack, &x, n);
        prop_assert_eq!(bits(&few), bits(&each), "stack, {} rows, n = {}", rows + 8, n);
    }
}

#[test]
fn a_product_over_a_few_vectors_is_the_product_of_the_values() {
    // Equal to matvec proves nothing if both are wrong the same way:
    // check one case against the dequantized weights.
    let (matrix, w) = q8_0(40, 3);
    let x: Vec<f32> = (0..3 * 64).map(|i| (i % 13) as f32 / 6.0 - 1.0).collect();
    let mut out = vec![0.0; 3 * 40];
    matrix.matmul_few(&x, 3, &mut out);
    for (j, x) in x.chunks_exact(64).enumerate() {
        for (r, row) in w.chunks_exact(64).enumerate() {
            let exact: f32 = row.iter().zip(x).map(|(a, b)| a * b).sum();
            let got = out[j * 40 + r];
            assert!(
                (got - exact).abs() < 0.05,
                "vector {j}, row {r}: {got} vs {exact}"
            );
        }
    }
    // No vectors: nothing to write, and no panic.
    matrix.matmul_few(&[], 0, &mut []);
}
