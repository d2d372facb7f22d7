#!/usr/bin/env python3
"""Build tests/data/tool_call_families.jsonl from the collected family vectors.

Usage: scripts/family_vectors.py [SOURCE_DIR]   (default /work/notes/families)

Reads SOURCE_DIR/<family>.jsonl (never the *.probes.jsonl files, which are
behaviour probes, not test vectors) and writes one record per kept vector, in
the schema described in tests/data/README.md. Output order: families in the
order of FAMILIES below, then source-file order. Kept/skipped counts and every
skipped source with its reason go to stderr. Python 3 standard library only.
"""

import json
import os
import sys

FAMILIES = [
    ("minimax-m2.jsonl", "minimax_m2"),
    ("nemotron.jsonl", "nemotron_v2"),
    ("functionary-v3-1.jsonl", "functionary_v31"),
    ("functionary-v3-2.jsonl", "functionary_v32"),
    ("glm.jsonl", "glm45"),
    ("seed-oss.jsonl", "seed_oss"),
    ("apertus.jsonl", "apertus"),
    ("lfm2.jsonl", "lfm2"),
]

OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "tests", "data", "tool_call_families.jsonl",
)

OPEN_TAGS = ("<think>", "<seed:think>")
CLOSE_TAGS = ("</think>", "</seed:think>")
NOTE_MAX = 300
CROSS_STR_MAX = 200


class Skip(Exception):
    pass


def reference(source):
    if source.startswith("llama.cpp "):
        return "llama.cpp"
    if source.startswith("vllm rust/"):
        return "vllm-rust"
    if source.startswith("vllm tests/"):
        return "vllm"
    raise Skip("unknown source prefix")


def unmatched_close(output):
    """True when the output closes a reasoning block it did not open."""
    for o, c in zip(OPEN_TAGS, CLOSE_TAGS):
        i = output.find(c)
        if i >= 0 and output.rfind(o, 0, i) < 0:
            return True
    return False


def is_reasoning_test(source):
    return (
        source.startswith("vllm tests/reasoning/")
        or source.startswith("vllm rust/src/parser/src/reasoning/")
        # The engine's extract_reasoning tests (MiniMax-M2): reasoning-parser
        # tests living in a tool-parser module.
        or "::TestReasoning::" in source
    )


def vllm_reasoning_start(d, fmt):
    source = d["source"]
    if is_reasoning_test(source):
        p = d.get("prompt_ends_with")
        if p in OPEN_TAGS:
            return "open"
        if p in CLOSE_TAGS:
            return "closed"  # the prompt already closed the block
        if fmt == "minimax_m2":
            return "open"  # its generation prompt always opens <think>
        kw = d.get("chat_template_kwargs")
        if "glm47_template_honors_thinking_disable" in source and kw == {
            "enable_thinking": False
        }:
            # GLM-4.7 with thinking off: the prompt ends `<|assistant|></think>`.
            return "closed"
        return "auto"
    return "auto" if unmatched_close(d["output"]) else "closed"


def llama_reasoning_start(prompt):
    return "open" if prompt.rstrip().endswith(OPEN_TAGS) else "closed"


def continuation(d):
    """(prefix kind, prefix, prompt without it) for continuation vectors."""
    mode = (d.get("options") or {}).get("continue_final_message")
    prompt = d["generation_prompt"]
    if not mode:
        return None, None, prompt
    msgs = d.get("messages") or []
    if not msgs or msgs[-1].get("role") != "assistant":
        raise Skip("continuation without a final assistant message")
    last = msgs[-1]
    if mode == "content":
        prefix = last.get("content") or ""
        expected = d.get("content")
    elif mode == "reasoning":
        prefix = last.get("reasoning_content") or ""
        expected = d.get("reasoning")
    else:
        raise Skip("unknown continue_final_message %r" % mode)
    if not prefix or not prompt.endswith(prefix):
        raise Skip("continuation prefix not at the end of the generation prompt")
    if expected is None or not expected.startswith(prefix):
        raise Skip("expected %s does not start with the continuation prefix" % mode)
    return mode, prefix, prompt[: -len(prefix)]


def tool_calls(d):
    unchecked = d.get("unchecked") or []
    tcs = d.get("tool_calls")
    if "tool_calls" in unchecked or tcs is None:
        return None
    out = []
    for tc in tcs:
        e = {"name": tc["name"]}
        if "arguments_exact" in tc:
            args = json.loads(tc["arguments_exact"])
            if "arguments" in tc and tc["arguments"] != args:
                raise Skip("arguments_exact disagrees with arguments")
            e["arguments"] = args
        elif "arguments" in tc:
            e["arguments"] = tc["arguments"]
        elif "arguments_subset" in tc:
            e["arguments_subset"] = tc["arguments_subset"]
        elif "arguments_partial" in tc:
            e["arguments_partial"] = tc["arguments_partial"]
        if "id" in tc:
            e["id"] = tc["id"]
        out.append(e)
    return out


def short(v):
    if isinstance(v, str) and len(v) > CROSS_STR_MAX:
        return v[:CROSS_STR_MAX] + "…"
    return v


def crosscheck(entries):
    agrees = any(e.get("agrees_with_vllm_expectation") for e in entries)
    pick = next(
        (e for e in entries if e.get("agrees_with_vllm_expectation")), entries[0]
    )
    if pick.get("result") is not None:
        r = pick["result"]
        result = {
            "content": short(r.get("content")),
            "reasoning": short(r.get("reasoning")),
            "tool_calls": [
                {"name": t.get("name"), "arguments": short(t.get("arguments"))}
                for t in r.get("tool_calls") or []
            ],
        }
    else:
        result = {"error": short(pick.get("error"))}
    s = {"agrees": agrees, "template": pick.get("template")}
    if pick.get("input_prefix"):
        s["input_prefix"] = pick["input_prefix"]
    s["result"] = result
    return s


def one_line(s):
    return " ".join((s or "").split())


# The partial assertions a source test may make, kept as the test wrote them.
PARTIAL_ASSERTIONS = (
    "content_contains",
    "content_not_contains",
    "content_in",
    "reasoning_contains",
    "tool_calls_contains",
)


def convert(d, fmt):
    source = d["source"]
    ref = reference(source)
    output = d["output"]
    if output == "":
        raise Skip("empty output")
    unchecked = set(d.get("unchecked") or [])
    asserts_something = (
        {"content", "reasoning", "tool_calls"} - unchecked
        or d.get("expect_error")
        or any(d.get(k) for k in PARTIAL_ASSERTIONS)
    )
    if not asserts_something:
        extra = sorted((d.get("extra_expectations") or {}).keys())
        if d.get("delta_token_ids"):
            extra.append("delta_token_ids")
        raise Skip(
            "no content/reasoning/tool-call assertion (only %s)"
            % (", ".join(extra) or "nothing")
        )

    content = d.get("content")
    reasoning = d.get("reasoning")
    extra_notes = []
    cont = None
    if ref == "llama.cpp":
        mode, prefix, prompt = continuation(d)
        if mode == "content":
            cont = {"content_prefix": prefix}
            content = content[len(prefix):]
            if reasoning is not None:
                # The whole reasoning block is in the prompt, before the prefill.
                if reasoning not in prompt:
                    raise Skip("continuation: expected reasoning not in the prompt")
                extra_notes.append(
                    "reasoning %r is in the prompt, so output alone has none"
                    % reasoning
                )
                reasoning = ""
        elif mode == "reasoning":
            cont = {"reasoning_prefix": prefix}
            reasoning = reasoning[len(prefix):]
        rstart = llama_reasoning_start(prompt)
    else:
        rstart = vllm_reasoning_start(d, fmt)

    rec = {"format": fmt, "source": source, "output": output}
    tools = d.get("tools")
    if tools:
        if all(isinstance(t, dict) and t.get("type") == "function" and "function" in t
               for t in tools):
            rec["tools"] = tools
        else:
            extra_notes.append("non-OpenAI (Responses namespace) tool list omitted")
    rec["reasoning_start"] = rstart
    expect_error = bool(d.get("expect_error"))
    rec["expected_tool_calls"] = tool_calls(d)

    if "content" in unchecked:
        rec["expected_content"] = None
    elif content is None or content == "":
        rec["expected_content"] = None if content is None else ""
        rec["content_is_none"] = True
    else:
        rec["expected_content"] = content

    if "reasoning" not in unchecked:
        if reasoning is None:
            rec["reasoning_is_none"] = True
        else:
            rec["expected_reasoning"] = reasoning

    rec["expect_error"] = expect_error
    for k in PARTIAL_ASSERTIONS:
        if k in d:
            v = d[k]
            if k == "tool_calls_contains":
                v = tool_calls({"tool_calls": v})
            rec[k] = v

    chunks = d.get("chunks")
    if chunks is not None:
        if "".join(chunks) == output:
            rec["stream_deltas"] = chunks
        else:
            extra_notes.append("source chunks dropped: they do not concatenate to output")
    if cont:
        rec["continuation"] = cont
    rec["reference"] = ref
    if d.get("llama_cpp_crosscheck"):
        rec["llama_cpp"] = crosscheck(d["llama_cpp_crosscheck"])

    note = one_line(d.get("notes"))
    if len(note) > NOTE_MAX:
        note = note[: NOTE_MAX - 1].rstrip() + "…"
    parts = []
    if d.get("family_variant"):
        parts.append("[%s]" % one_line(d["family_variant"]))
    if note:
        parts.append(note)
    parts.extend("(%s)" % n for n in extra_notes)
    if parts:
        rec["note"] = " ".join(parts)
    return rec


def dump(rec):
    line = json.dumps(rec, ensure_ascii=False)
    # Keep one record per physical line for every line splitter.
    return line.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def main(argv):
    src = argv[1] if len(argv) > 1 else "/work/notes/families"
    lines = []
    seen = {}
    report = []
    skipped_all = []
    for fname, fmt in FAMILIES:
        kept = skipped = 0
        with open(os.path.join(src, fname), encoding="utf-8") as f:
            for n, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                d = json.loads(raw)
                try:
                    rec = convert(d, fmt)
                except Skip as e:
                    skipped += 1
                    skipped_all.append((fmt, d.get("source", "%s:%d" % (fname, n)), str(e)))
                    continue
                base = rec["source"]
                seen[base] = seen.get(base, 0) + 1
                if seen[base] > 1:
                    rec["source"] = "%s #%d" % (base, seen[base])
                lines.append(dump(rec))
                kept += 1
        report.append((fmt, kept, skipped))

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")

    err = sys.stderr
    for fmt, kept, skipped in report:
        print("%-16s kept %3d  skipped %2d" % (fmt, kept, skipped), file=err)
    print("total            kept %3d  skipped %2d" % (
        sum(r[1] for r in report), sum(r[2] for r in report)), file=err)
    for fmt, source, why in skipped_all:
        print("skipped [%s] %s: %s" % (fmt, source, why), file=err)
    print("wrote %s" % OUT, file=err)


if __name__ == "__main__":
    main(sys.argv)
