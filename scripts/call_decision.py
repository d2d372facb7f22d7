#!/usr/bin/env python3
"""Does a model know when not to call, and which tool to call? Its
probability of starting a call on each request turn, split by what the
conversation does there; and, where one of several offered tools is
called, which offered name it finds likeliest.

At each assistant turn that follows a user's request (not a tool's
result), the model's probability of `<tool_call>` as the turn's first
token is read, and the turns are split into those whose conversation calls
a tool there and those that answer in words (a request no offered tool
covers, small talk). The AUROC says how well that one number separates
them (1: some threshold separates them exactly; 0.5: chance), and the
table what a threshold on it would keep and decline. A baseline that reads
no model comes first: how much of the best-matching offered tool's name
the request writes, word for word. Where it separates the turns and a
model does not, the model has not learnt to read the request against the
tools.

Which tool: at each request turn that calls one tool of several
offered, each offered name is scored by the model's log-probability of
writing it after `<tool_call>{"name": "` (as constrained decoding chooses
among the offered names), and the likeliest is set against the called
one, beside the word-overlap baseline's choice and chance. (TRAINING.md's
figures read 1,000 conversations: `-- 1000 1 schemas-held-out`.)

    cargo run --release -p tool-train --example rendered -- 300 1 schemas-held-out > /tmp/made-up.jsonl
    target/torch-venv/bin/python scripts/call_decision.py /tmp/made-up.jsonl MODEL_DIR...

The conversations are the `rendered` example's output (one JSON string a
line, rendered with the bundled template); each model directory is read
with transformers.
"""

import copy
import json
import re
import sys

import numpy as np
import torch

import rendered

# The bundled tokenizer's ids: `<|im_start|>`, `assistant`, the newline after
# it, `<tool_call>` and `<tool_response>`.
IM_START, ASSISTANT, NEWLINE, TOOL_CALL, TOOL_RESPONSE = 1, 382, 207, 3, 5


def decisions(model, conversations, context):
    """P(call) at each request turn, and whether the conversation calls there."""
    out = []
    for ids in conversations:
        ids = ids[:context]
        with torch.no_grad():
            probs = torch.softmax(model(torch.tensor(ids)[None]).logits[0].float(), -1)
        for p in range(2, len(ids) - 1):
            if (ids[p - 2], ids[p - 1], ids[p]) != (IM_START, ASSISTANT, NEWLINE):
                continue
            before = ids[: p - 2]
            turn = before[np.where(before == IM_START)[0][-1]:]
            if TOOL_RESPONSE in turn:
                continue  # after a tool's result, not a request
            out.append((probs[p, TOOL_CALL].item(), ids[p + 1] == TOOL_CALL))
    return out


# A model-free baseline: the words of a tool's name (split at `_`, `.` and
# camel case) that the request writes, as a share of them, for the offered
# tool that matches best. Verbs every tool author uses carry nothing.
COMMON = {"get", "set", "api", "tools", "tool"}
TOOLS = re.compile(r"<tools>\n(.*?)\n</tools>", re.S)
REQUEST = re.compile(r"<\|im_start\|>user\n(.*?)<\|im_end\|>\n<\|im_start\|>assistant\n(.)", re.S)


def name_words(text):
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w and w not in COMMON}


def offered_names(text):
    """The names of the tools a rendered conversation offers."""
    found = TOOLS.search(text)
    tools = [json.loads(line) for line in found.group(1).split("\n")] if found else []
    return [t.get("function", t)["name"] for t in tools]


def overlap(name, said):
    """The share of the tool name's words that the request's words `said` hold."""
    words = name_words(name)
    return len(words & said) / len(words) if words else 0.0


def name_overlap(texts):
    """At each request turn (as `decisions` finds them, without the model):
    the baseline's score, and whether the conversation calls there."""
    out = []
    for text in texts:
        names = offered_names(text)
        for request in REQUEST.finditer(text):
            if request.group(1).startswith("<tool_response>"):
                continue
            said = name_words(request.group(1))
            score = max((overlap(n, said) for n in names), default=0.0)
            out.append((score, request.group(2) == "<"))
    return out


CALLED = re.compile(r'<tool_call>\{"name": "([^"]+)"')


def choices(model, tokenizer, texts):
    """At each request turn that calls one of several offered tools: whether
    the model's likeliest offered name, and the baseline's, is the called
    one, and how many were offered."""
    out = []
    for text in texts:
        names = offered_names(text)
        if len(names) < 2:
            continue
        for request in REQUEST.finditer(text):
            turn_at = request.end() - 1
            turn = text[turn_at:text.index("<|im_end|>", turn_at)]
            if request.group(1).startswith("<tool_response>") or turn.count("<tool_call>") != 1:
                continue
            called = CALLED.match(text, turn_at).group(1)
            prefix = tokenizer.encode(text[:turn_at], add_special_tokens=False).ids
            with torch.no_grad():
                # The conversation so far runs once; each name goes on from its cache.
                before = model(torch.tensor(prefix)[None], use_cache=True).past_key_values
                scores = []
                for name in names:
                    ids = tokenizer.encode(text[:turn_at] + '<tool_call>{"name": "' + name + '", "',
                                           add_special_tokens=False).ids
                    if ids[:len(prefix)] != prefix:
                        raise SystemExit(f"expected the turn to start a token of its own, before {name!r}")
                    written = ids[len(prefix):]
                    logits = model(torch.tensor(written)[None], past_key_values=copy.deepcopy(before)).logits[0]
                    logp = torch.log_softmax(logits.float(), -1)
                    # From the token after `<tool_call>`: the name, not the decision to call.
                    scores.append(sum(logp[j - 1, written[j]].item() for j in range(1, len(written))))
            said = name_words(request.group(1))
            out.append((names[int(np.argmax(scores))] == called,
                        names[int(np.argmax([overlap(n, said) for n in names]))] == called, len(names)))
    return out


def auroc(seen):
    """How well the score separates turns that call from those in words."""
    call = np.array([p for p, c in seen if c])
    words = np.array([p for p, c in seen if not c])
    if len(call) == 0 or len(words) == 0:
        raise SystemExit(f"expected request turns of both kinds, found {len(call)} calls and {len(words)} in words")
    return call, words, (call[:, None] > words[None, :]).mean() + 0.5 * (call[:, None] == words[None, :]).mean()


def main():
    args, tokenizer, texts = rendered.read(__doc__.split("\n")[0])
    conversations = [np.array(tokenizer.encode(text, add_special_tokens=False).ids) for text in texts]
    *_, baseline = auroc(name_overlap(texts))
    print(f"baseline (no model: the share of the best-matching tool name's words the request writes): AUROC {baseline:.3f}")
    for model_dir, model in rendered.models(args):
        context = model.config.max_position_embeddings
        call, words, separates = auroc(decisions(model, conversations, context))
        print(f"{model_dir} ({args.weights}): {len(call)} request turns that call, {len(words)} answered in words; AUROC {separates:.3f}")
        print("  P(call)       median when calling / in words: "
              f"{np.median(call):.3f} / {np.median(words):.3f}")
        for threshold in [0.5, 0.9, 0.99, 0.999]:
            print(f"  call only above {threshold}: calls kept {(call >= threshold).mean():.1%}, "
                  f"words kept {(words < threshold).mean():.1%}")
        picked = np.array(choices(model, tokenizer, texts), dtype=float)
        if len(picked):
            offered = picked[:, 2]
            print(f"  which tool, {len(picked)} single calls among {offered.min():.0f}-{offered.max():.0f} "
                  "offered: the model's likeliest name "
                  f"{picked[:, 0].mean():.1%}, word overlap {picked[:, 1].mean():.1%}, chance {(1 / offered).mean():.1%}")


if __name__ == "__main__":
    sys.exit(main())
