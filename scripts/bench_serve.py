#!/usr/bin/env python3
"""Side by side: OpenAI-compatible servers on the same model file.

    python scripts/bench_serve.py NAME=URL [NAME=URL ...]

Each URL is a server's `/v1` base. For each server, in one run:
- time to first token and decode speed of one streamed answer (128 tokens,
  `ignore_eos`, the demo tools in the prompt), median of 5;
- a 3-round tool conversation (call, result, answer, next question), each
  round continuing the last: wall time and prompt tokens served from cache;
- throughput with 1, 4 and 16 concurrent clients (64 tokens each).
Standard library only; prints a Markdown table.
"""

import http.client
import json
import statistics
import sys
import threading
import time
from urllib.parse import urlparse

TOOLS = [{"type": "function", "function": {
    "name": "get_current_temperature",
    "description": "Get the current temperature at a location.",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "description": "City, Country"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["location", "unit"]}}}]


def post(url, body, stream=False):
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    conn.request("POST", u.path + "/chat/completions", json.dumps(body),
                 {"Content-Type": "application/json"})
    r = conn.getresponse()
    if r.status != 200:
        raise RuntimeError(f"{url}: {r.status} {r.read()[:300]!r}")
    return conn, r


def model_name(url):
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("GET", u.path + "/models")
    return json.loads(conn.getresponse().read())["data"][0]["id"]


def streamed(url, model, messages, max_tokens):
    """(time to first token, decode tokens/s, completion tokens)."""
    body = {"model": model, "messages": messages, "tools": TOOLS, "max_tokens": max_tokens,
            "temperature": 0, "ignore_eos": True, "stream": True,
            "stream_options": {"include_usage": True}}
    start = time.perf_counter()
    conn, r = post(url, body)
    first = None
    tokens = 0
    for line in r:
        line = line.strip()
        if not line.startswith(b"data: ") or line == b"data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        if chunk.get("usage"):
            tokens = chunk["usage"]["completion_tokens"]
        for c in chunk.get("choices", []):
            d = c.get("delta", {})
            if first is None and (d.get("content") or d.get("tool_calls") or d.get("reasoning_content")):
                first = time.perf_counter()
    end = time.perf_counter()
    conn.close()
    return first - start, (tokens - 1) / (end - first), tokens


def whole(url, model, messages, max_tokens, tools=TOOLS):
    body = {"model": model, "messages": messages, "tools": tools, "max_tokens": max_tokens,
            "temperature": 0, "ignore_eos": True}
    conn, r = post(url, body)
    out = json.loads(r.read())
    conn.close()
    return out


def conversation(url, model):
    """Three rounds, each continuing the last: (seconds, cached prompt tokens, prompt tokens)."""
    messages = [{"role": "user", "content": "What's the temperature in Paris in celsius?"}]
    cached = prompt = 0
    start = time.perf_counter()
    for round_ in range(3):
        out = whole(url, model, messages, 32)
        usage = out["usage"]
        prompt += usage["prompt_tokens"]
        cached += (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        text = out["choices"][0]["message"].get("content") or ""
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": f"And in city number {round_ + 2}?"})
    return time.perf_counter() - start, cached, prompt


def throughput(url, model, clients):
    """Generated tokens per second over all clients."""
    totals = []

    def one(i):
        out = whole(url, model, [{"role": "user", "content": f"Question {i}: the weather?"}], 64)
        totals.append(out["usage"]["completion_tokens"])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(totals) / (time.perf_counter() - start)


def main():
    servers = [a.split("=", 1) for a in sys.argv[1:]]
    rows = []
    for name, url in servers:
        model = model_name(url)
        messages = [{"role": "user", "content": "What's the temperature in Paris in celsius?"}]
        streamed(url, model, messages, 8)  # warm up
        runs = [streamed(url, model, messages, 128) for _ in range(5)]
        ttft = statistics.median(r[0] for r in runs)
        decode = statistics.median(r[1] for r in runs)
        wall, cached, prompt = conversation(url, model)
        tp = {n: throughput(url, model, n) for n in (1, 4, 16)}
        rows.append((name, ttft, decode, wall, cached, prompt, tp))
    print("| server | time to first token | decode | 3-round conversation | cached prompt tokens | 1 client | 4 clients | 16 clients |")
    print("|---|---|---|---|---|---|---|---|")
    for name, ttft, decode, wall, cached, prompt, tp in rows:
        print(f"| {name} | {ttft * 1000:.1f} ms | {decode:.0f} tok/s | {wall * 1000:.0f} ms | {cached}/{prompt} | "
              f"{tp[1]:.0f} tok/s | {tp[4]:.0f} tok/s | {tp[16]:.0f} tok/s |")


if __name__ == "__main__":
    main()
