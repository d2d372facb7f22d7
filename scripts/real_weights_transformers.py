#!/usr/bin/env python3
"""Records what Python transformers computes from the two real GGUF files,
for `tests/real_weights.rs`: the rendered chat text, the prompt ids and 32
greedy tokens.

transformers reads a GGUF file by widening every matrix to f32
(`from_pretrained(..., gguf_file=...)`), so the project's decoder is
compared with `tool-use generate --dequantize`, which does the same; the
default integer path is compared with llama.cpp instead (see the test).

- SmolLM2-135M-Instruct Q4_1 (an instruct model): each prompt is a user
  message rendered by the file's chat template with the demo tools offered
  (`tool-use generate --chat` renders the same, and this script asks it for
  the tools so that both sides offer the same ones).
- Gemma 3 270M Q4_K_M (a base model, no chat template): raw text.

Usage (transformers, torch, gguf and accelerate installed; CPU is enough):

    scripts/real_weights_transformers.py TOOL_USE_BIN SMOLLM2.gguf GEMMA3.gguf \\
        > tests/data/real_weights_transformers.json
"""

import json
import os
import subprocess
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

NEW_TOKENS = 32

SMOLLM2_PROMPTS = [
    "What's the temperature in Paris?",
    "Write a haiku about the sea.",
]
GEMMA3_PROMPTS = [
    "The capital of France is Paris. The capital of Germany is Berlin. The capital of Italy is",
    "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
]


def demo_tools(tool_use):
    """The tools `tool-use generate --chat` offers."""
    out = subprocess.run(
        [tool_use, "generate", "--chat", "--json", "--max-tokens", "1", "x"],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)["tools"]


def load(path):
    folder, name = os.path.split(os.path.abspath(path))
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    model.eval()
    return tokenizer, model


def greedy(tokenizer, model, prompt, special):
    """Greedy tokens after `prompt`; `special`: plain text, which gets the
    special tokens the tokenizer adds (Gemma's BOS), as `tool-use generate`
    gives raw text them; a rendered chat prompt holds its own."""
    ids = tokenizer(prompt, add_special_tokens=special, return_tensors="pt").input_ids
    with torch.no_grad():
        out = model.generate(
            ids,
            max_new_tokens=NEW_TOKENS,
            do_sample=False,
            pad_token_id=tokenizer.eos_token_id,
        )
    new = out[0, ids.shape[1]:].tolist()
    return {
        "prompt": prompt,
        "prompt_ids": ids[0].tolist(),
        "ids": new,
        "text": tokenizer.decode(new, skip_special_tokens=True),
    }


def main():
    tool_use, smollm2, gemma3 = sys.argv[1:4]
    torch.manual_seed(0)
    tools = demo_tools(tool_use)
    tokenizer, model = load(smollm2)
    smol = []
    for message in SMOLLM2_PROMPTS:
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": message}],
            tools=tools,
            tokenize=False,
            add_generation_prompt=True,
        )
        case = greedy(tokenizer, model, text, special=False)
        case["message"] = message
        smol.append(case)
    tokenizer, model = load(gemma3)
    gemma = [greedy(tokenizer, model, prompt, special=True) for prompt in GEMMA3_PROMPTS]
    import transformers

    json.dump(
        {
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "new_tokens": NEW_TOKENS,
            "tools": tools,
            "smollm2": smol,
            "gemma3": gemma,
        },
        sys.stdout,
        indent=1,
        ensure_ascii=False,
    )
    print()


if __name__ == "__main__":
    main()
