//! The decoder's building blocks written with primitive tensor operations, which candle
//! differentiates itself: the reference the fused kernels of `kernels.rs` are tested against,
//! in value and in gradient.

use candle_core::{Result, Tensor, D};

/// RMS normalisation over the last dimension, scaled by `weight`, as Hugging Face's
/// `LlamaRMSNorm`: `x / sqrt(mean(x²) + eps) * weight`.
pub(super) fn rms_norm(x: &Tensor, weight: &Tensor, eps: f64) -> Result<Tensor> {
    let mean_square = x.sqr()?.mean_keepdim(D::Minus1)?;
    let inv_rms = (mean_square + eps)?.sqrt()?.recip()?;
    x.broadcast_mul(&inv_rms)?.broadcast_mul(weight)
}

/// Rotary position embedding with the `rotate_half` convention of Hugging Face's Llama:
/// the first and second halves of each head are the two coordinates of each rotation.
///
/// `x` is `(batch, heads, seq, head_dim)`; `cos` and `sin` are `(seq, head_dim / 2)`.
pub(super) fn rope(x: &Tensor, cos: &Tensor, sin: &Tensor) -> Result<Tensor> {
    let half = x.dim(D::Minus1)? / 2;
    let x1 = x.narrow(D::Minus1, 0, half)?;
    let x2 = x.narrow(D::Minus1, half, half)?;
    let first = (x1.broadcast_mul(cos)? - x2.broadcast_mul(sin)?)?;
    let second = (x1.broadcast_mul(sin)? + x2.broadcast_mul(cos)?)?;
    Tensor::cat(&[first, second], D::Minus1)
}

/// Softmax over the last dimension.
///
/// The row maximum is subtracted for stability and detached: softmax does not depend on
/// it, so its gradient is zero and computing it would only cost time.
pub(super) fn softmax_last(x: &Tensor) -> Result<Tensor> {
    let max = x.max_keepdim(D::Minus1)?.detach();
    let exp = x.broadcast_sub(&max)?.exp()?;
    let sum = exp.sum_keepdim(D::Minus1)?;
    exp.broadcast_div(&sum)
}

/// Per-row cross entropy: `logsumexp(logits[i]) - logits[i, targets[i]]`.
///
/// `logits` is `(n, vocab)`, `targets` is `(n,)` of `u32`; the result is `(n,)`.
pub(super) fn cross_entropy_rows(logits: &Tensor, targets: &Tensor) -> Result<Tensor> {
    // As in softmax, the shift by the maximum cancels out of the value and the gradient.
    let max = logits.max_keepdim(D::Minus1)?.detach();
    let shifted = logits.broadcast_sub(&max)?;
    let log_sum = shifted.exp()?.sum_keepdim(D::Minus1)?.log()?;
    let picked = shifted.gather(&targets.unsqueeze(1)?, D::Minus1)?;
    (log_sum - picked)?.squeeze(1)
}

/// SiLU-gated product of the MLP: `silu(gate) * up`.
pub(super) fn swiglu(gate: &Tensor, up: &Tensor) -> Result<Tensor> {
    gate.silu()? * up
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use candle_core::{Device, Tensor, Var, D};

    use super::super::init::NormalSource;
    use super::super::kernels;

    fn random(seed: u64, shape: &[usize], std: f64) -> Var {
        let n = shape.iter().product();
        let values = NormalSource::new(seed).normal(n, std);
        Var::from_tensor(&Tensor::from_vec(values, shape, &Device::Cpu).unwrap()).unwrap()
    }

    /// The largest absolute value in `t`.
    fn max_abs(t: &Tensor) -> f32 {
        t.abs()
            .unwrap()
            .flatten_all()
            .unwrap()
            .max(0)
            .unwrap()
            .to_scalar()
            .unwrap()
    }

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        max_abs(&(a - b).unwrap())
    }

    /// The gradients of `sum(out * r)`.
    fn gradients(out: &Tensor, r: &Var) -> candle_core::backprop::GradStore {
        (out * r.as_tensor())
            .unwrap()
            .sum_all()
            .unwrap()
            .backward()
            .unwrap()
    }

    /// Compares two implementations of `out = f(inputs)`: the outputs, and the gradients of
    /// `sum(out * r)` for a random `r` with respect to every input.
    fn compare(inputs: &[Var], fused: &Tensor, reference: &Tensor, tol: f32) {
        assert_eq!(fused.dims(), reference.dims());
        let diff = max_diff(fused, reference);
        assert!(diff < tol, "outputs differ by {diff}");
        let r = random(99, fused.dims(), 1.0);
        let gf = gradients(fused, &r);
        let gr = gradients(reference, &r);
        for (i, input) in inputs.iter().enumerate() {
            let a = gf.get(input.as_tensor()).unwrap();
            let b = gr.get(input.as_tensor()).unwrap();
            let diff = max_diff(a, b);
            let size = max_abs(b);
            assert!(size > 0.0, "input {i}: zero reference gradient");
            assert!(
                diff < tol * (1.0 + size),
                "input {i}: gradients differ by {diff} (size {size})"
            );
        }
    }

    // Sizes above the kernels' threshold for threading, so that both paths are exercised.
    #[test]
    fn rms_norm_matches_the_reference() {
        for rows in [3, 300] {
            let x = random(1, &[rows, 160], 1.0);
            let w = random(2, &[160], 1.0);
            let fused = kernels::rms_norm(x.as_tensor(), w.as_tensor(), 1e-5).unwrap();
            let reference = super::rms_norm(x.as_tensor(), w.as_tensor(), 1e-5).unwrap();
            compare(&[x, w], &fused, &reference, 1e-4);
        }
    }

    #[test]
    fn rope_matches_the_reference() {
        let (b, t, h, d) = (4, 70, 3, 64);
        let half = d / 2;
        let cos: Vec<f32> = (0..t * half)
            .map(|i| ((i % 13) as f32 * 0.37).cos())
            .collect();
        let sin: Vec<f32> = (0..t * half)
            .map(|i| ((i % 13) as f32 * 0.37).sin())
            .collect();
        let tables = kernels::RopeTables {
            cos: Arc::new(cos.clone()),
            sin: Arc::new(sin.clone()),
            half,
        };
        let x = random(3, &[b, t, h, d], 1.0);
        let fused = kernels::rope_heads(x.as_tensor(), &tables, 0.5).unwrap();
        let cos = Tensor::from_vec(cos, (t, half), &Device::Cpu).unwrap();
        let sin = Tensor::from_vec(sin, (t, half), &Device::Cpu).unwrap();
        let reference = (super::rope(&x.as_tensor().transpose(1, 2).unwrap(), &cos, &sin).unwrap()
            * 0.5)
            .unwrap();
        compare(&[x], &fused, &reference, 1e-5);
    }

    #[test]
    fn causal_softmax_matches_masked_softmax() {
        // Two query heads stacked per key/value head, as the attention lays them out.
        let (b, g, rep, t) = (2, 2, 2, 100);
        let x = random(4, &[b, g, rep * t, t], 2.0);
        let fused = kernels::causal_softmax(x.as_tensor()).unwrap();
        let mask: Vec<f32> = (0..rep * t)
            .flat_map(|r| (0..t).map(move |j| if j > r % t { f32::NEG_INFINITY } else { 0.0 }))
            .collect();
        let mask = Tensor::from_vec(mask, (rep * t, t), &Device::Cpu).unwrap();
        let reference = super::softmax_last(&x.as_tensor().broadcast_add(&mask).unwrap()).unwrap();
        compare(&[x], &fused, &reference, 1e-5);
    }

    #[test]
    fn swiglu_matches_the_reference() {
        let gate = random(5, &[90, 400], 2.0);
        let up = random(6, &[90, 400], 1.0);
        let fused = kernels::swiglu(gate.as_tensor(), up.as_tensor()).unwrap();
        let reference = super::swiglu(gate.as_tensor(), up.as_tensor()).unwrap();
        compare(&[gate, up], &fused, &reference, 1e-5);
    }

    #[test]
    fn cross_entropy_matches_the_reference() {
        let logits = random(7, &[50, 700], 3.0);
        let targets: Vec<u32> = (0..50).map(|i| (i * 37 % 700) as u32).collect();
        let fused =
            kernels::cross_entropy_rows(logits.as_tensor(), &Arc::new(targets.clone())).unwrap();
        let targets = Tensor::new(targets.as_slice(), &Device::Cpu).unwrap();
        let reference = super::cross_entropy_rows(logits.as_tensor(), &targets).unwrap();
        compare(std::slice::from_ref(&logits), &fused, &reference, 1e-4);
        // Against the textbook definition too.
        let log_probs = candle_nn::ops::log_softmax(logits.as_tensor(), D::Minus1).unwrap();
        let picked = log_probs
            .gather(&targets.unsqueeze(1).unwrap(), 1)
            .unwrap()
            .squeeze(1)
            .unwrap()
            .neg()
            .unwrap();
        assert!(max_diff(&fused, &picked) < 1e-4);
    }
}
