#!/usr/bin/env python3
"""Side by side: OpenAI-compatible servers on the same model file.

    python scripts/bench_serve.py NAME=URL [NAME=URL ...]

Each URL is a server's `/v1` base. For each server, in one run:
- time to first token and decode speed of one streamed plain answer (128
  tokens, `ignore_eos`), median of 5;
- a 3-round tool conversation (call, result, answer, next question), each
  round continuing the last: wall time and prompt tokens served from cache;
- 8 such conversations interleaved (round 1 of each, then round 2 of each,
  then round 3): the share of each later request's previous prompt that
  was served from cache;
- 1, 4, 8 and 16 concurrent streamed clients (64 tokens each, `ignore_eos`,
  each its own question, no tools): aggregate tokens/s, and time to first
  token at the median and the 95th percentile.
Standard library only; prints two Markdown tables.
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
    """(time to first token, decode tokens/s, completion tokens) of a plain
    chat answer (no tools: with tools, how much of an answer streams before
    its call is complete differs by format, and a constrained call ends
    before `max_tokens`)."""
    body = {"model": model, "messages": messages, "max_tokens": max_tokens,
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


def interleaved(url, model, conversations=8):
    """Rounds 2 and 3 of interleaved conversations: cached tokens over the
    tokens of each conversation's previous prompt, summed."""
    talks = [[{"role": "user", "content": f"What's the temperature in city number {i}, in celsius?"}]
             for i in range(conversations)]
    previous = [0] * conversations
    cached = shared = 0
    for round_ in range(3):
        for i, messages in enumerate(talks):
            out = whole(url, model, messages, 32)
            usage = out["usage"]
            if round_ > 0:
                shared += previous[i]
                cached += min(previous[i], (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
            previous[i] = usage["prompt_tokens"]
            text = out["choices"][0]["message"].get("content") or ""
            messages.append({"role": "assistant", "content": text})
            messages.append({"role": "user", "content": f"And in city number {i + 10 * (round_ + 1)}?"})
    return cached / shared if shared else 0.0


def concurrent(url, model, clients):
    """(aggregate generated tokens/s, TTFT p50, TTFT p95) for `clients`
    streamed requests at once."""
    results = []

    def one(i):
        messages = [{"role": "user", "content": f"Tell me a story about the number {i}."}]
        started = time.perf_counter()
        ttft, _, tokens = streamed(url, model, messages, 64)
        results.append((ttft, tokens, time.perf_counter() - started))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    ttfts = sorted(r[0] for r in results)
    p95 = ttfts[min(len(ttfts) - 1, round(0.95 * (len(ttfts) - 1)))]
    return sum(r[1] for r in results) / wall, statistics.median(ttfts), p95


def main():
    servers = [a.split("=", 1) for a in sys.argv[1:]]
    rows = []
    for name, url in servers:
        model = model_name(url)
        messages = [{"role": "user", "content": "Tell me about Paris."}]
        streamed(url, model, messages, 8)  # warm up
        runs = [streamed(url, model, messages, 128) for _ in range(5)]
        ttft = statistics.median(r[0] for r in runs)
        decode = statistics.median(r[1] for r in runs)
        wall, cached, prompt = conversation(url, model)
        share = interleaved(url, model)
        load = {n: concurrent(url, model, n) for n in (1, 4, 8, 16)}
        rows.append((name, ttft, decode, wall, cached, prompt, share, load))
    print("| server | time to first token | decode | 3-round conversation | cached prompt tokens | 8 interleaved: previous prompt from cache |")
    print("|---|---|---|---|---|---|")
    for name, ttft, decode, wall, cached, prompt, share, _ in rows:
        print(f"| {name} | {ttft * 1000:.1f} ms | {decode:.0f} tok/s | {wall * 1000:.0f} ms | {cached}/{prompt} | {share:.0%} |")
    print()
    print("| server | clients | aggregate | TTFT p50 | TTFT p95 |")
    print("|---|---|---|---|---|")
    for name, *_, load in rows:
        for n, (tps, p50, p95) in load.items():
            print(f"| {name} | {n} | {tps:.0f} tok/s | {p50 * 1000:.0f} ms | {p95 * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
