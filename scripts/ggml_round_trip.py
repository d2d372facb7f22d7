"""Weights as ggml would store them, read back: each matrix quantized to
one of llama.cpp's block formats and widened again, as the decoder
computes with it. It measures what storing a model in fewer bits costs
(`--weights` of `call_parts.py` and `call_decision.py`) without writing a
GGUF file.

The formats follow ggml's reference quantizers (`quantize_row_*_ref`):
blocks of 32 along a row (the input dimension), an f16 scale each (values
are rounded with the scale before it is stored in f16, as ggml does).

- `q8_0`: a byte a weight, the scale from the block's largest magnitude.
- `q5_0`, `q4_0`: five or four bits, the scale from the block's largest
  magnitude with its sign, so that value lands on the end of the range.

The embedding (also the output head, as the model ties them) is kept in
Q8_0 in the smaller formats, as `llama-quantize` keeps the output in more
bits than the rest.
"""

import torch

FORMATS = ("f32", "q8_0", "q5_0", "q4_0")


def _f16(x):
    return x.to(torch.float16).to(torch.float32)


def _inverse(d):
    """1/d, and 0 where d is 0, as ggml's `id = d ? 1.0f/d : 0.0f`."""
    return torch.where(d == 0, 0, 1 / torch.where(d == 0, 1, d))


def round_trip(weight, fmt):
    """`weight` (rows × columns, columns a multiple of 32) stored in `fmt` and read back."""
    if fmt == "f32":
        return weight
    rows, cols = weight.shape
    if cols % 32:
        raise ValueError(f"expected rows of a multiple of 32 values, found {cols}")
    blocks = weight.float().reshape(-1, 32)
    if fmt == "q8_0":
        d = blocks.abs().amax(1, keepdim=True) / 127
        x = blocks * _inverse(d)
        # roundf: halves away from zero.
        q = torch.sign(x) * torch.floor(x.abs() + 0.5)
        out = q * _f16(d)
    elif fmt in ("q5_0", "q4_0"):
        half = 16 if fmt == "q5_0" else 8
        at = blocks.abs().argmax(1, keepdim=True)
        signed_max = blocks.gather(1, at)
        d = signed_max / -half
        # ggml truncates x/d + half + 0.5 toward zero; it is never negative.
        q = torch.clamp(torch.floor(blocks * _inverse(d) + half + 0.5), max=2 * half - 1)
        out = (q - half) * _f16(d)
    else:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return out.reshape(rows, cols).to(weight.dtype)


def apply(model, fmt):
    """Every matrix of `model` (a transformers Llama) stored in `fmt`, in place."""
    if fmt == "f32":
        return model
    with torch.no_grad():
        embedding = model.get_input_embeddings().weight
        for param in model.parameters():
            if param.dim() != 2:
                continue  # norms stay in f32, as ggml keeps them
            kept = "q8_0" if param is embedding else fmt
            param.copy_(round_trip(param, kept))
    return model
