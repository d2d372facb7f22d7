"""The official Anthropic Python SDK against `tool-use serve`.

Run by tests/anthropic_client.rs with the server's base URL (without
`/v1`: the SDK posts to `{base_url}/v1/messages`) and API key:
    python tests/anthropic_client.py http://127.0.0.1:PORT KEY
Exits non-zero on the first failed check.
"""

import anthropic
from anthropic import Anthropic

from clients import MODEL, MESSAGES_TOOLS, check, checks, connect

client, base_url = connect(Anthropic)
TOOLS = MESSAGES_TOOLS


def ask(prompt, **kwargs):
    return client.messages.create(
        model=MODEL,
        max_tokens=256,
        messages=[{"role": "user", "content": prompt}],
        tools=TOOLS,
        **kwargs,
    )


def stream(prompt, **kwargs):
    """The SDK's own accumulation of a stream; checks the event order on the way."""
    names = []
    with client.messages.stream(
        model=MODEL,
        max_tokens=256,
        messages=[{"role": "user", "content": prompt}],
        tools=TOOLS,
        **kwargs,
    ) as s:
        for event in s:
            names.append(event.type)
        final = s.get_final_message()
    check(names[0] == "message_start", f"first event: {names}")
    check(names[-1] == "message_stop", f"last event: {names}")
    check(names.count("message_delta") == 1, f"one message_delta: {names}")
    check(names.count("content_block_start") == names.count("content_block_stop"), f"blocks close: {names}")
    return final, names


def calls(message):
    return [(b.name, b.input) for b in message.content if b.type == "tool_use"]


def text(message):
    return "".join(b.text for b in message.content if b.type == "text")


# tool_choice any: a call, its input an object.
weather = "What's the temperature in Paris right now?"
r = ask(weather, tool_choice={"type": "any"})
check(r.type == "message" and r.role == "assistant" and r.model == MODEL, f"message: {r}")
check(r.id.startswith("msg_"), f"id: {r.id}")
check(r.stop_reason == "tool_use" and r.stop_sequence is None, f"stop: {r}")
made = calls(r)
check(len(made) == 1 and made[0][0] == "get_current_temperature", f"call: {r}")
check(made[0][1]["unit"] == "celsius" and "Paris" in made[0][1]["location"], f"input: {made}")
use = [b for b in r.content if b.type == "tool_use"][0]
check(use.id.startswith("toolu_"), f"call id: {use.id}")
check(r.usage.input_tokens + (r.usage.cache_read_input_tokens or 0) > 100 and r.usage.output_tokens > 0, f"usage: {r.usage}")

# Streamed: the SDK's final message is the whole answer.
final, names = stream(weather, tool_choice={"type": "any"})
check(names.count("content_block_delta") > 5, f"input in pieces: {names}")
check(final.stop_reason == r.stop_reason, f"stream stop: {final}")
check(calls(final) == calls(r), f"streamed calls {calls(final)} differ from {calls(r)}")
check(final.usage.output_tokens == r.usage.output_tokens, f"stream usage: {final.usage} vs {r.usage}")
check(final.usage.cache_read_input_tokens > 100, f"the same prompt from the cache: {final.usage}")

# A named tool, streamed and whole.
named = {"type": "tool", "name": "get_current_wind_speed"}
r2 = ask(weather, tool_choice=named)
check([c[0] for c in calls(r2)] == ["get_current_wind_speed"], f"named: {r2}")
final, _ = stream(weather, tool_choice=named)
check(calls(final) == calls(r2), f"named, streamed: {final}")

# The round trip: the answer goes back as the SDK gives it, then the tool's
# result; the model answers from it.
messages = [
    {"role": "user", "content": weather},
    r.to_param(),
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "22.0"}]},
]
a = client.messages.create(model=MODEL, max_tokens=256, messages=messages, tools=TOOLS)
check(a.stop_reason == "end_turn" and "22" in text(a), f"answer: {a}")
check(a.usage.cache_read_input_tokens > 100, f"prefix reuse: {a.usage}")
with client.messages.stream(model=MODEL, max_tokens=256, messages=messages, tools=TOOLS) as s:
    streamed_text = "".join(s.text_stream)
    final = s.get_final_message()
check(streamed_text == text(a) and text(final) == text(a), f"streamed answer: {streamed_text!r} vs {text(a)!r}")

# Parallel calls, and disable_parallel_tool_use keeping the first.
two = "What's the temperature in Paris and in Tokyo, in celsius?"
both = calls(ask(two, tool_choice={"type": "any"}))
check(len(both) == 2, f"parallel: {both}")
one = ask(two, tool_choice={"type": "any", "disable_parallel_tool_use": True})
check(calls(one) == both[:1] and one.stop_reason == "tool_use", f"disable_parallel_tool_use: {one}")

# tool_choice none: text only.
r = ask(weather, tool_choice={"type": "none"})
check(calls(r) == [] and text(r) and r.stop_reason == "end_turn", f"none: {r}")

# Errors arrive as the SDK's exception types, with messages.
for call_, kind, needle in [
    (lambda: client.messages.create(model="claude-9", max_tokens=8, messages=[{"role": "user", "content": "Hi"}]), anthropic.NotFoundError, "claude-9"),
    (lambda: ask(weather, tool_choice={"type": "tool", "name": "nope"}), anthropic.BadRequestError, "nope"),
    (
        lambda: client.messages.create(
            model=MODEL,
            max_tokens=8,
            messages=[{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}]}],
        ),
        anthropic.BadRequestError,
        "image",
    ),
    (
        lambda: Anthropic(base_url=base_url, api_key="wrong", max_retries=0).messages.create(
            model=MODEL, max_tokens=8, messages=[{"role": "user", "content": "Hi"}]
        ),
        anthropic.AuthenticationError,
        "API key",
    ),
]:
    try:
        call_()
        check(False, f"expected {kind.__name__}")
    except kind as e:
        body = e.body or {}
        message = body.get("error", {}).get("message", "")
        check(needle in message, f"{kind.__name__} carries a message naming {needle!r}: {e}")
        check(body.get("type") == "error", f"{kind.__name__}: Anthropic's error shape: {body}")

print(f"ok: {checks()} checks")
