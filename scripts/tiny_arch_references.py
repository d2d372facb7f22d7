#!/usr/bin/env python3
"""Records Python transformers' logits for the tiny random models of the
architectures the decoder runs from GGUF files only (SmolLM3, Granite, Phi-3), for
`tool-models/tests/tiny_arch_transformers.rs`.

Each model is written by the `tiny_model` example (seeded, so the test
writes the same weights again, as GGUF), loaded here as a Hugging Face
directory, and run in float32 on a fixed prompt; the logits of every
position are kept, rounded to 6 decimals.

Usage (transformers and torch installed; CPU is enough):

    scripts/tiny_arch_references.py > tool-models/tests/data/tiny_arch_logits.json
"""

import json
import subprocess
import sys
import tempfile

import torch
import transformers
from transformers import AutoModelForCausalLM

# Token ids of the tiny vocabulary (bytes, merges and added tokens: 283).
PROMPT = [276, 72, 101, 108, 108, 111, 256, 261, 44, 32, 119, 111, 114, 108, 100, 278]
SHAPES = ["smollm3", "granite", "phi3"]


def logits(shape):
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            ["cargo", "run", "-q", "--release", "-p", "tool-models", "--example",
             "tiny_model", "--", folder, "--shape", shape],
            check=True, capture_output=True,
        )
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
        model.eval()
        with torch.no_grad():
            out = model(torch.tensor([PROMPT])).logits[0]
        return type(model).__name__, [[round(v, 6) for v in row.tolist()] for row in out]


def main():
    torch.manual_seed(0)
    models = {}
    for shape in SHAPES:
        name, values = logits(shape)
        models[shape] = {"class": name, "logits": values}
    json.dump(
        {"transformers": transformers.__version__, "torch": torch.__version__,
         "prompt": PROMPT, "models": models},
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
