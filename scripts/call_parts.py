#!/usr/bin/env python3
"""Which part of a call does a model get wrong? Each part of each call,
read with the conversation up to it given (teacher forcing).

For every call the conversations make, the model reads the conversation
up to each token of the call and the greedy choice there is compared
with the token the call writes. A part is right when all its tokens are:
the tool's name (given that a call starts there), each argument's name
(given the name and the arguments before it) and each value, by JSON type
(given everything before it). Free generation compounds these; here each
is measured alone, so the table says where reading a schema fails:
choosing the tool, naming its parameters, or copying values into them;
and, by a part's first token against the rest, whether a wrong part
starts wrong (which tool, which value) or goes wrong on the way (a name
or a value copied letter by letter, as the tokenizer spells words it does
not keep whole).

    cargo run --release -p tool-train --example rendered -- 300 1 schemas-held-out > /tmp/made-up.jsonl
    target/torch-venv/bin/python scripts/call_parts.py /tmp/made-up.jsonl MODEL_DIR...

The conversations are the `rendered` example's output (one JSON string a
line, rendered with the bundled template, calls written as
`<tool_call>{"name": ..., "arguments": {...}}</tool_call>`); each model
directory is read with transformers.
"""

import json
import re
import sys
from collections import defaultdict

import torch

import rendered

CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)
# The model's turns (the system prompt shows the call format with placeholders).
TURN = re.compile(r"<\|im_start\|>assistant\n(.*?)(?:<\|im_end\|>|$)", re.S)


class Spans:
    """Character spans of a call's parts, found by reading its JSON."""

    def __init__(self, text, start):
        self.text, self.at, self.parts = text, start, []

    def skip(self):
        while self.text[self.at] in " \n\t":
            self.at += 1

    def string(self):
        """A string's content span (without its quotes)."""
        assert self.text[self.at] == '"', self.text[self.at:self.at + 20]
        begin = self.at + 1
        self.at = begin
        while self.text[self.at] != '"':
            self.at += 2 if self.text[self.at] == "\\" else 1
        self.at += 1
        return begin, self.at - 1

    def value(self):
        """Any value's span (a string's without its quotes) and its JSON type."""
        self.skip()
        c = self.text[self.at]
        if c == '"':
            return (*self.string(), "string")
        begin = self.at
        decoded, end = json.JSONDecoder().raw_decode(self.text, begin)
        self.at = end
        kind = {bool: "boolean", int: "number", float: "number", list: "array",
                dict: "object", type(None): "null"}[type(decoded)]
        return begin, end, kind

    def expect(self, char):
        self.skip()
        assert self.text[self.at] == char, (char, self.text[self.at:self.at + 20])
        self.at += 1

    def call(self):
        """`{"name": N, "arguments": {K: V, ...}}` into (part, begin, end)."""
        self.expect("{")
        while True:
            self.skip()
            key = self.text[slice(*self.string())]
            self.expect(":")
            if key == "name":
                self.skip()
                self.parts.append(("tool name", *self.string()))
            elif key == "arguments":
                self.arguments()
            else:
                self.value()
            self.skip()
            if self.text[self.at] == "}":
                return self.parts
            self.expect(",")

    def arguments(self):
        self.expect("{")
        self.skip()
        if self.text[self.at] == "}":
            self.at += 1
            return
        while True:
            self.skip()
            self.parts.append(("argument name", *self.string()))
            self.expect(":")
            begin, end, kind = self.value()
            self.parts.append((f"value: {kind}", begin, end))
            self.skip()
            if self.text[self.at] == "}":
                self.at += 1
                return
            self.expect(",")


def parts_of(text):
    """Every call's parts in `text`, as (part, begin, end) character spans."""
    out = []
    for turn in TURN.finditer(text):
        for m in CALL.finditer(text, turn.start(1), turn.end(1)):
            out.extend(Spans(text, m.start(1)).call())
    return out


def score(model, tokenizer, conversations, context):
    """Per part: [parts right, parts, first tokens right, tokens right, tokens]."""
    counts = defaultdict(lambda: [0, 0, 0, 0, 0])
    for text in conversations:
        enc = tokenizer.encode(text, add_special_tokens=False)
        ids = enc.ids[:context]
        offsets = enc.offsets[:context]
        with torch.no_grad():
            greedy = model(torch.tensor(ids)[None]).logits[0].argmax(-1).numpy()
        for part, begin, end in parts_of(text):
            # The tokens that overlap the span; each is predicted from the one before.
            inside = [i for i, (b, e) in enumerate(offsets) if b < end and e > begin and i > 0]
            if not inside or (end > begin and offsets[-1][1] < end):
                continue  # empty, or cut by the context
            right = [greedy[i - 1] == ids[i] for i in inside]
            c = counts[part]
            c[0] += all(right)
            c[1] += 1
            c[2] += right[0]
            c[3] += sum(right)
            c[4] += len(right)
    return counts


def main():
    args, tokenizer, conversations = rendered.read(__doc__.split("\n")[0])
    if not any(parts_of(text) for text in conversations):
        raise SystemExit(f"{args.conversations}: expected conversations with calls, found none")
    for model_dir, model in rendered.models(args):
        counts = score(model, tokenizer, conversations, model.config.max_position_embeddings)
        print(f"{model_dir} ({args.weights}): teacher-forced, parts right; their first token right; "
              "the rest right where the first is; tokens right")
        for part in sorted(counts):
            whole, n, first, tokens, m = counts[part]
            rest = f"{whole / first:6.1%}" if first else "     -"
            print(f"  {part:<16} {whole / n:6.1%} of {n:<5} first {first / n:6.1%}  "
                  f"rest {rest}  tokens {tokens / m:6.1%} of {m}")


if __name__ == "__main__":
    sys.exit(main())
