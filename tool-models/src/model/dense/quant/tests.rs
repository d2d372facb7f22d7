use super::*;
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use proptest::prelude::*;

/// Every format candle knows, with candle's name for it.
pub(in crate::model::dense) const ALL: [(Quant, GgmlDType); 10] = [
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

/// `n` pseudo-random values, wide and skewed.
pub(in crate::model::dense) fn values(n: usize, seed: u32) -> Vec<f32> {
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
pub(in crate::model::dense) fn candle_quantized(
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
pub(in crate::model::dense) fn iq4_quantized(
    quant: Quant,
    rows: usize,
    cols: usize,
    seed: u32,
) -> (Vec<u8>, Vec<f32>) {
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

/// A float drawn to reach the corners of quantizing: zeros, both signs,
/// values on the half steps, tiny and huge magnitudes, infinities and NaN.
fn any_activation() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => -8f32..8.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => (-254i32..=254).prop_map(|h| h as f32 * 0.5),
        1 => any::<f32>(),
    ]
}

proptest! {
    /// Quantizing on this CPU's path equals the portable reference bit for
    /// bit: each value, each block's scale and each sum of sixteen, for
    /// any floats, NaN and infinities included.
    #[test]
    fn a_vector_quantizes_as_the_portable_reference(
        all in proptest::collection::vec(any_activation(), 6 * QK),
        blocks in 1usize..=6,
        zero_block in any::<bool>(),
    ) {
        let mut x = all[..blocks * QK].to_vec();
        if zero_block {
            x[..32].fill(0.0);
        }
        let mut fast = Q8Vector::default();
        fast.quantize(&x);
        let mut reference = Q8Vector::default();
        // Buffers of the right lengths, as `quantize` sizes them.
        reference.quantize(&x);
        reference.values.fill(99);
        reference.scales.fill(f32::NAN);
        reference.sums.fill(-1);
        reference.quantize_body(&x);
        prop_assert_eq!(&fast.values, &reference.values);
        prop_assert_eq!(&fast.sums, &reference.sums);
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&fast.scales), bits(&reference.scales));
        prop_assert_eq!(fast.values.len(), x.len());
    }
}
