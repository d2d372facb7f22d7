#!/usr/bin/env python3
"""Prefill and decode speed of a Hugging Face model directory: `tool-use
generate` against Python transformers on the same prompt ids, greedy, f32,
on the CPU, a fixed number of new tokens (end-of-sequence ignored, as
random weights stop anywhere).

Each side reports its best of three runs: ours with `--repeat 3`, theirs
timing the prompt's forward pass three times (only the last position's
logits, as `generate` computes them) and then one `generate` whose time
beyond that prefill is the decode.

    cargo build --release
    cargo run --release -p tool-models --example tiny_model -- target/qwen-shape --shape qwen2.5-0.5b
    python3 scripts/bench_generate.py --model target/qwen-shape
"""

import argparse
import json
import os
import subprocess
import time

# About 500 tokens of the tiny tokenizer (nearly byte-level).
PROMPT = ("The quick brown fox jumps over the lazy dog while the weather in "
          "Paris stays mild and the markets in Tokyo open early. ") * 4


def bf16_copy(model_dir):
    import shutil
    import torch
    from transformers import AutoModelForCausalLM
    out = model_dir.rstrip("/") + "-bf16"
    if not os.path.exists(os.path.join(out, "model.safetensors")):
        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
        model.to(torch.bfloat16).save_pretrained(out)
        for name in ["tokenizer.json", "tokenizer_config.json", "generation_config.json"]:
            shutil.copy(os.path.join(model_dir, name), out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--bin", default="target/release/tool-use")
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--bf16", action="store_true",
                    help="run a bf16 copy of the model (written beside it once), as real checkpoints ship")
    args = ap.parse_args()
    if args.bf16:
        args.model = bf16_copy(args.model)

    out = subprocess.run(
        [args.bin, "generate", "--json", "--model", args.model, "--ignore-eos",
         "--max-tokens", str(args.new_tokens), "--repeat", "3", PROMPT],
        check=True, capture_output=True, text=True,
    )
    ours = json.loads(out.stdout)

    import torch
    from transformers import AutoModelForCausalLM
    if args.threads:
        torch.set_num_threads(args.threads)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    model.eval()
    ids = torch.tensor([ours["prompt_ids"]])
    n = args.new_tokens
    with torch.no_grad():
        def prefill():
            start = time.perf_counter()
            model(ids, use_cache=True, logits_to_keep=1)
            return time.perf_counter() - start
        best_prefill = min(prefill() for _ in range(3))
        start = time.perf_counter()
        generated = model.generate(ids, max_new_tokens=n, min_new_tokens=n,
                                   do_sample=False, pad_token_id=0)
        total = time.perf_counter() - start
    theirs = generated[0][ids.shape[1]:].tolist()
    same = sum(a == b for a, b in zip(theirs, ours["ids"]))
    print(f"{args.model}: {ids.shape[1]} prompt tokens, {n} new tokens; "
          f"{same}/{n} greedy tokens the same")
    t_prefill = ids.shape[1] / best_prefill
    t_decode = (n - 1) / max(total - best_prefill, 1e-9)
    o_prefill, o_decode = ours["prefill_tokens_per_s"], ours["decode_tokens_per_s"]
    print(f"prefill tokens/s: ours {o_prefill:.0f}, transformers {t_prefill:.0f} ({o_prefill / t_prefill:.2f}x)")
    print(f"decode tokens/s:  ours {o_decode:.1f}, transformers {t_decode:.1f} ({o_decode / t_decode:.2f}x)")


if __name__ == "__main__":
    main()
