#!/usr/bin/env python3
"""Greedy generation of the bundled model: ours against Python transformers.

For each prompt, `tool-use generate --chat --json` renders the conversation
with the demo tools, tokenises it and generates greedily; this script renders
the same conversation with transformers' `apply_chat_template`, tokenises it
with the same `tokenizer.json`, generates greedily with
`LlamaForCausalLM.generate` on the CPU in float32, and checks that the
prompt text, the prompt ids and the generated ids are identical. It then
compares decode speed.

    pip install torch transformers   # CPU wheels are enough
    cargo build --release
    python3 scripts/parity_transformers.py [--model models/tool-use-mini]
"""

import argparse
import json
import subprocess
import sys
import time

PROMPTS = [
    "What's the temperature in Paris right now?",
    "What is 12.5 times 4?",
    "How windy is it in Oslo, Norway?",
    "Convert 10 miles to km.",
    "Tell me a joke about penguins.",
]


def timed(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="models/tool-use-mini")
    ap.add_argument("--bin", default="target/release/tool-use")
    ap.add_argument("--max-tokens", type=int, default=64)
    args = ap.parse_args()

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    model.eval()

    failures = 0
    ours_rates, theirs_rates = [], []
    for prompt in PROMPTS:
        out = subprocess.run(
            [args.bin, "generate", "--chat", "--json", "--model", args.model,
             "--max-tokens", str(args.max_tokens), "--repeat", "3", prompt],
            check=True, capture_output=True, text=True,
        )
        ours = json.loads(out.stdout)
        text = tok.apply_chat_template(
            [{"role": "user", "content": prompt}],
            tools=ours["tools"], add_generation_prompt=True, tokenize=False,
        )
        ids = tok(text, add_special_tokens=False)["input_ids"]
        same_text = text == ours["prompt"]
        same_ids = ids == ours["prompt_ids"]

        input_ids = torch.tensor([ours["prompt_ids"]])
        with torch.no_grad():
            # Prefill alone (best of 3, as ours), then the whole generation:
            # the difference is transformers' decode time.
            prefill = min(timed(lambda: model(input_ids, use_cache=True, logits_to_keep=1)) for _ in range(3))
            start = time.perf_counter()
            generated = model.generate(
                input_ids, max_new_tokens=args.max_tokens, do_sample=False,
                eos_token_id=model.generation_config.eos_token_id,
                pad_token_id=tok.pad_token_id,
            )
            seconds = time.perf_counter() - start
        theirs = generated[0][input_ids.shape[1]:].tolist()
        same_gen = theirs == ours["ids"]
        n_prompt = input_ids.shape[1]
        theirs_rates.append((n_prompt / prefill, max(len(theirs) - 1, 1) / max(seconds - prefill, 1e-9)))
        ours_rates.append((ours["prefill_tokens_per_s"], ours["decode_tokens_per_s"]))
        ok = same_text and same_ids and same_gen
        failures += not ok
        print(f"{'OK ' if ok else 'BAD'} {prompt!r}: prompt text {same_text}, "
              f"prompt ids {same_ids}, generated ids {same_gen} ({len(ours['ids'])} tokens)")
        if not same_gen:
            print(f"    ours:   {ours['ids']}\n    theirs: {theirs}")

    def mean(rates, i):
        return sum(r[i] for r in rates) / len(rates)

    print(f"prefill tokens/s: ours {mean(ours_rates, 0):.0f}, transformers {mean(theirs_rates, 0):.0f}")
    print(f"decode tokens/s:  ours {mean(ours_rates, 1):.0f}, transformers {mean(theirs_rates, 1):.0f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
