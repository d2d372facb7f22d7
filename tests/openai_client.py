"""The official OpenAI Python client against `tool-use serve`.

Run by tests/openai_client.rs with the server's base URL and API key:
    python tests/openai_client.py http://127.0.0.1:PORT/v1 KEY
Exits non-zero on the first failed check.
"""

import json

import openai
from openai import OpenAI

from clients import MODEL, CHAT_TOOLS, check, checks, connect

client, base_url = connect(OpenAI)
TOOLS = CHAT_TOOLS


def ask(prompt, **kwargs):
    return client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": prompt}],
        tools=TOOLS,
        **kwargs,
    )


def stream(prompt, **kwargs):
    """Merges a stream as a client would; checks each call's id and name come once."""
    content, calls, finish, usage, roles = "", {}, [], None, 0
    for chunk in client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": prompt}],
        tools=TOOLS,
        stream=True,
        stream_options={"include_usage": True},
        **kwargs,
    ):
        if chunk.usage is not None:
            check(chunk.choices == [], "the usage chunk has no choices")
            usage = chunk.usage
            continue
        choice = chunk.choices[0]
        if choice.delta.role:
            roles += 1
        if choice.finish_reason:
            finish.append(choice.finish_reason)
        if choice.delta.content:
            content += choice.delta.content
        for call in choice.delta.tool_calls or []:
            if call.index not in calls:
                check(call.id and call.function.name, "a call's first fragment has id and name")
                calls[call.index] = {"id": call.id, "name": call.function.name, "arguments": ""}
            else:
                check(call.id is None and call.function.name is None, "id and name come once")
            calls[call.index]["arguments"] += call.function.arguments or ""
    check(roles == 1, f"one role delta, found {roles}")
    check(len(finish) == 1, f"one finish reason, found {finish}")
    check(usage is not None and usage.total_tokens > 0, "usage arrives when asked for")
    return content, [calls[i] for i in sorted(calls)], finish[0]


# The model list.
models = client.models.list()
check([m.id for m in models.data] == [MODEL], f"models: {models}")

# tool_choice required: a call, arguments as a JSON string.
weather = "What's the temperature in Paris right now?"
r = ask(weather, tool_choice="required", temperature=0)
msg = r.choices[0].message
check(r.choices[0].finish_reason == "tool_calls", f"finish: {r}")
call = msg.tool_calls[0]
check(call.function.name == "get_current_temperature", f"call: {call}")
args = json.loads(call.function.arguments)
check(args["unit"] == "celsius" and "Paris" in args["location"], f"arguments: {args}")
check(len(call.id) >= 9 and call.id.isalnum(), f"call id: {call.id}")
check(r.usage.prompt_tokens > 100 and r.usage.completion_tokens > 0, f"usage: {r.usage}")

# Streamed: the same calls; arguments streamed equal the non-streamed ones.
content, calls, finish = stream(weather, tool_choice="required", temperature=0)
check(finish == "tool_calls", f"stream finish: {finish}")
check(
    [(c["name"], c["arguments"]) for c in calls] == [(call.function.name, call.function.arguments)],
    f"streamed calls {calls} differ from {msg.tool_calls}",
)

# A full round trip: the assistant message as the client returns it, then
# the tool's result; the conversation continues the previous request, so
# its prompt comes from the KV cache.
messages = [{"role": "user", "content": weather}, msg.model_dump(exclude_none=True)]
messages.append({"role": "tool", "tool_call_id": call.id, "content": "22.0"})
r = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS, temperature=0)
answer = r.choices[0].message.content
check(r.choices[0].finish_reason == "stop" and "22" in answer, f"answer: {r}")
check(r.usage.prompt_tokens_details.cached_tokens > 100, f"prefix reuse: {r.usage}")

# A named function, none, auto.
r = ask(weather, tool_choice={"type": "function", "function": {"name": "get_current_wind_speed"}})
check([c.function.name for c in r.choices[0].message.tool_calls] == ["get_current_wind_speed"], f"named: {r}")
r = ask(weather, tool_choice="none")
check(r.choices[0].message.tool_calls is None and r.choices[0].message.content, f"none: {r}")
check(r.choices[0].finish_reason == "stop", f"none: {r}")
r = ask(weather, tool_choice="auto")
check(r.choices[0].finish_reason in ("stop", "tool_calls"), f"auto: {r}")

# Parallel calls, and parallel_tool_calls=False keeping the first.
two = "What's the temperature in Paris and in Tokyo, in celsius?"
r = ask(two, tool_choice="required")
both = r.choices[0].message.tool_calls
check(len(both) == 2, f"parallel: {r}")
_, streamed, _ = stream(two, tool_choice="required")
check([c["arguments"] for c in streamed] == [c.function.arguments for c in both], "parallel, streamed")
r = ask(two, tool_choice="required", parallel_tool_calls=False)
check(len(r.choices[0].message.tool_calls) == 1, f"parallel_tool_calls=False: {r}")

# Structured output.
schema = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 24}}, "required": ["city"], "additionalProperties": False}
r = client.chat.completions.create(
    model=MODEL,
    messages=[{"role": "user", "content": "Name a city as JSON."}],
    response_format={"type": "json_schema", "json_schema": {"name": "city", "schema": schema}},
    max_tokens=128,
)
check(isinstance(json.loads(r.choices[0].message.content)["city"], str), f"json_schema: {r}")

# Errors arrive as the client's exception types.
for call_, kind in [
    (lambda: client.chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "Hi"}]), openai.NotFoundError),
    (lambda: ask(weather, tool_choice={"type": "function", "function": {"name": "nope"}}), openai.BadRequestError),
    (lambda: OpenAI(base_url=base_url, api_key="wrong", max_retries=0).models.list(), openai.AuthenticationError),
]:
    try:
        call_()
        check(False, f"expected {kind.__name__}")
    except kind as e:
        check(e.body and e.body.get("message"), f"{kind.__name__} carries a message: {e}")

print(f"ok: {checks()} checks")
