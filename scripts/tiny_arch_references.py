#!/usr/bin/env python3
"""Records Python transformers' logits for tiny random models of the
architectures the project's decoder runs (SmolLM3, Granite 3, Granite 4 and its
Mamba-2 hybrid, Phi-3, Qwen 3, LFM2,
Llama 3.x's rotary scaling, Phi-4-mini's partial rotary, LongRoPE and
window), for `tool-models/tests/model_architectures.rs`.

Each model is written by the `tiny_model` example (seeded, so the test
writes the same weights again, as a directory in both config styles and as
GGUF), loaded here as a Hugging Face directory, and run in float32 on a
fixed prompt; the logits of every position are kept, rounded to 6
decimals. The directory is written in both config styles (`rope_theta` and
`rope_scaling` as before transformers 5, and transformers 5's
`rope_parameters`): transformers must give the same logits from both.

Kept per model: `logits`, the whole prompt in one pass; `incremental`, its
first `SPLIT` tokens in one pass and the rest one at a time through the
cache; `prefixes`, the last logits of each prefix of the prompt run as a
prompt of its own; and `greedy`, the tokens `generate` writes after the
first `SPLIT` tokens. They differ only where LongRoPE switches from its
short to its long factors: a pass that reaches past the pretraining length
rotates every position of the pass with the long ones, while positions
already cached keep the rotation they were computed with.

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
SHAPES = ["smollm3", "granite", "phi3", "qwen3", "llama3", "phi4-mini", "lfm2", "granite4", "granite4-h"]
STYLES = ["legacy", "rope-parameters"]
# Where the incremental run starts decoding one token at a time: the tiny
# Phi-4-mini's pretraining length, so that its first pass uses the short
# factors and every later one the long.
SPLIT = 8
# Greedy tokens generated after the first SPLIT tokens of the prompt.
GREEDY = 12


def rows(tensor):
    return [[round(v, 6) for v in row.tolist()] for row in tensor]


def run(folder):
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    model.eval()
    with torch.no_grad():
        whole = model(torch.tensor([PROMPT])).logits[0]
        first = model(torch.tensor([PROMPT[:SPLIT]]), use_cache=True)
        cache, steps = first.past_key_values, [first.logits[0]]
        for token in PROMPT[SPLIT:]:
            out = model(torch.tensor([[token]]), past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            steps.append(out.logits[0])
        incremental = torch.cat(steps)
        # Each prefix of the prompt as a prompt of its own: one pass.
        prefixes = torch.stack(
            [model(torch.tensor([PROMPT[: n + 1]])).logits[0, -1] for n in range(len(PROMPT))]
        )
        greedy = model.generate(
            torch.tensor([PROMPT[:SPLIT]]), max_new_tokens=GREEDY, do_sample=False,
            min_new_tokens=GREEDY, pad_token_id=0, eos_token_id=None,
        )[0, SPLIT:].tolist()
    return type(model).__name__, whole, incremental, prefixes, greedy


def logits(shape):
    results = []
    for style in STYLES:
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run(
                ["cargo", "run", "-q", "--release", "-p", "tool-models", "--example",
                 "tiny_model", "--", folder, "--shape", shape, "--config-style", style],
                check=True, capture_output=True,
            )
            results.append(run(folder))
    (name, *first), (other, *second) = results
    assert name == other, (name, other)
    # Both styles are one model to transformers.
    for a, b in zip(first, second):
        assert (torch.equal(a, b) if torch.is_tensor(a) else a == b), f"{shape}: the config styles differ"
    whole, incremental, prefixes, greedy = first
    return name, rows(whole), rows(incremental), rows(prefixes), greedy


def main():
    torch.manual_seed(0)
    models = {}
    for shape in SHAPES:
        name, whole, incremental, prefixes, greedy = logits(shape)
        models[shape] = {"class": name, "logits": whole, "incremental": incremental,
                         "prefixes": prefixes, "greedy": greedy}
    json.dump(
        {"transformers": transformers.__version__, "torch": torch.__version__,
         "prompt": PROMPT, "split": SPLIT, "models": models},
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
