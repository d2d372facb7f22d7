//! Differentiable building blocks of the decoder.
//!
//! candle's fused kernels (`candle_nn::ops::rms_norm`, `softmax_last_dim`,
//! `rotary_emb::rope`) have no backward pass, so gradients would silently stop at them.
//! Everything here is made of operations candle can differentiate.

use candle_core::{Result, Tensor, D};

/// RMS normalisation over the last dimension, scaled by `weight`, as Hugging Face's
/// `LlamaRMSNorm`: `x / sqrt(mean(x²) + eps) * weight`.
pub(crate) fn rms_norm(x: &Tensor, weight: &Tensor, eps: f64) -> Result<Tensor> {
    let mean_square = x.sqr()?.mean_keepdim(D::Minus1)?;
    let inv_rms = (mean_square + eps)?.sqrt()?.recip()?;
    x.broadcast_mul(&inv_rms)?.broadcast_mul(weight)
}

/// Rotary position embedding with the `rotate_half` convention of Hugging Face's Llama:
/// the first and second halves of each head are the two coordinates of each rotation.
///
/// `x` is `(batch, heads, seq, head_dim)`; `cos` and `sin` are `(seq, head_dim / 2)`.
pub(crate) fn rope(x: &Tensor, cos: &Tensor, sin: &Tensor) -> Result<Tensor> {
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
pub(crate) fn softmax_last(x: &Tensor) -> Result<Tensor> {
    let max = x.max_keepdim(D::Minus1)?.detach();
    let exp = x.broadcast_sub(&max)?.exp()?;
    let sum = exp.sum_keepdim(D::Minus1)?;
    exp.broadcast_div(&sum)
}

/// Per-row cross entropy: `logsumexp(logits[i]) - logits[i, targets[i]]`.
///
/// `logits` is `(n, vocab)`, `targets` is `(n,)` of `u32`; the result is `(n,)`.
pub(crate) fn cross_entropy_rows(logits: &Tensor, targets: &Tensor) -> Result<Tensor> {
    // As in softmax, the shift by the maximum cancels out of the value and the gradient.
    let max = logits.max_keepdim(D::Minus1)?.detach();
    let shifted = logits.broadcast_sub(&max)?;
    let log_sum = shifted.exp()?.sum_keepdim(D::Minus1)?.log()?;
    let picked = shifted.gather(&targets.unsqueeze(1)?, D::Minus1)?;
    (log_sum - picked)?.squeeze(1)
}

/// SiLU-gated product of the MLP: `silu(gate) * up`.
pub(crate) fn swiglu(gate: &Tensor, up: &Tensor) -> Result<Tensor> {
    gate.silu()? * up
}
