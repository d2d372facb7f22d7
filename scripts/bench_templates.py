#!/usr/bin/env python3
"""Render the inputs of benches/templates.rs with transformers' own renderer.

Hermes 3, Qwen 2.5 and Llama 3.1, each with two tools and a tool round trip
(the `tool_round_trip` case of ../shared/fixtures/chat-templates), through
`transformers.utils.chat_template_utils.render_jinja_template`, the function
that produced the fixtures. Prints microseconds per render.

    python3 -m venv /tmp/tpl-venv && /tmp/tpl-venv/bin/pip install transformers jinja2
    /tmp/tpl-venv/bin/python scripts/bench_templates.py
"""

import json
import time
from datetime import datetime
from pathlib import Path
from unittest import mock

from transformers.utils import chat_template_utils as ctu

FIXTURES = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures" / "chat-templates"
TEMPLATES = [
    ("hermes3", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja"),
    ("qwen2.5", "Qwen-Qwen2.5-7B-Instruct.jinja"),
    ("llama3.1", "meta-llama-Llama-3.1-8B-Instruct.jinja"),
]


class FrozenDatetime(datetime):
    """The clock the fixtures were rendered with."""

    @classmethod
    def now(cls, tz=None):
        return cls(2026, 1, 15, 10, 30, 0)


def fixture(template, case):
    with open(FIXTURES / "cases.jsonl", encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            if c["template"] == template and c["case"] == case:
                return c["kwargs"], c["expected"]
    raise KeyError((template, case))


def render(source, kwargs):
    kwargs = dict(kwargs)
    messages = kwargs.pop("messages")
    rendered, _ = ctu.render_jinja_template(conversations=[messages], chat_template=source, **kwargs)
    return rendered[0]


def time_per_call(fn, min_seconds=2.0):
    # Warm up, then run batches until enough time has passed; best batch wins,
    # as criterion's estimate is robust to the odd slow batch too.
    for _ in range(100):
        fn()
    best = float("inf")
    spent = 0.0
    batch = 200
    while spent < min_seconds:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        elapsed = time.perf_counter() - start
        spent += elapsed
        best = min(best, elapsed / batch)
    return best


def main():
    import transformers

    print(f"transformers {transformers.__version__}")
    with mock.patch.object(ctu, "datetime", FrozenDatetime):
        for label, file in TEMPLATES:
            source = (FIXTURES / "templates" / file).read_text(encoding="utf-8")
            kwargs, expected = fixture(file, "tool_round_trip")
            assert render(source, kwargs) == expected, f"{label}: render differs from the fixture"
            seconds = time_per_call(lambda: render(source, kwargs))
            print(f"render tool_round_trip/{label}: {seconds * 1e6:.1f} µs")
        source = (FIXTURES / "templates" / TEMPLATES[0][1]).read_text(encoding="utf-8")
        seconds = time_per_call(lambda: ctu._compile_jinja_template.__wrapped__(source), 1.0)
        print(f"compile hermes3: {seconds * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
