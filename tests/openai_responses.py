"""The official OpenAI Python client's Responses API against `tool-use serve`.

Run by tests/openai_responses.rs with the server's base URL and API key:
    python tests/openai_responses.py http://127.0.0.1:PORT/v1 KEY
Exits non-zero on the first failed check.
"""

import json
import sys

import openai
from openai import OpenAI

from clients import MODEL, RESPONSES_TOOLS, check, checks

base_url, key = sys.argv[1], sys.argv[2]
client = OpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=120)
TOOLS = RESPONSES_TOOLS


def calls_of(response):
    return [item for item in response.output if item.type == "function_call"]


def without_ids(response):
    out = []
    for item in response.output:
        d = item.model_dump(exclude_none=True)
        d.pop("id", None)
        d.pop("call_id", None)
        out.append(d)
    return out


weather = "What's the temperature in Paris right now?"

# tool_choice required: a function_call item, arguments as a JSON string.
r = client.responses.create(model=MODEL, input=weather, tools=TOOLS, tool_choice="required", temperature=0)
check(r.object == "response" and r.status == "completed", f"response: {r}")
calls = calls_of(r)
check(len(calls) == 1, f"one call: {r.output}")
call = calls[0]
check(call.name == "get_current_temperature", f"call: {call}")
args = json.loads(call.arguments)
check(args["unit"] == "celsius" and "Paris" in args["location"], f"arguments: {args}")
check(call.call_id and call.id.startswith("fc_"), f"ids: {call}")
check(r.output_text == "", f"no text with a required call: {r.output_text!r}")
check(r.usage.input_tokens > 100 and r.usage.output_tokens > 0, f"usage: {r.usage}")
check(r.usage.total_tokens == r.usage.input_tokens + r.usage.output_tokens, f"usage: {r.usage}")

# A named function.
r2 = client.responses.create(
    model=MODEL, input=weather, tools=TOOLS, tool_choice={"type": "function", "name": "get_current_wind_speed"}
)
check([c.name for c in calls_of(r2)] == ["get_current_wind_speed"], f"named: {r2.output}")

# Streamed with the SDK's helper: its final response is the whole answer,
# and the argument deltas add up to the arguments.
deltas, kinds = "", []
with client.responses.stream(model=MODEL, input=weather, tools=TOOLS, tool_choice="required", temperature=0) as s:
    for event in s:
        kinds.append(event.type)
        if event.type == "response.function_call_arguments.delta":
            deltas += event.delta
    final = s.get_final_response()
check(kinds[0] == "response.created" and kinds[-1] == "response.completed", f"events: {kinds}")
check(final.status == "completed", f"final: {final}")
check(without_ids(final) == without_ids(r), f"streamed {final.output} differs from {r.output}")
check(deltas == calls_of(final)[0].arguments == call.arguments, f"deltas {deltas!r}")

# create(stream=True): raw events, numbered from 0.
numbers = [e.sequence_number for e in client.responses.create(model=MODEL, input=weather, tools=TOOLS, tool_choice="required", stream=True)]
check(numbers == list(range(len(numbers))), f"sequence numbers: {numbers}")

# The round trip with the whole input: the output items go back as the SDK
# returns them, then the result; the model answers with it.
full_input = [{"role": "user", "content": weather}] + [item.model_dump(exclude_none=True) for item in r.output]
full_input.append({"type": "function_call_output", "call_id": call.call_id, "output": "22"})
answer = client.responses.create(model=MODEL, input=full_input, tools=TOOLS, temperature=0)
check(answer.status == "completed" and not calls_of(answer), f"answer: {answer.output}")
check("22" in answer.output_text, f"answer text: {answer.output_text!r}")

# The same by previous_response_id: only the result is sent.
continued = client.responses.create(
    model=MODEL,
    previous_response_id=r.id,
    input=[{"type": "function_call_output", "call_id": call.call_id, "output": "22"}],
    tools=TOOLS,
    temperature=0,
)
check(continued.previous_response_id == r.id, f"continued: {continued}")
check(continued.output_text == answer.output_text, f"{continued.output_text!r} != {answer.output_text!r}")

# parallel_tool_calls=False keeps one call.
two = "What's the temperature in Paris and in Tokyo, in celsius?"
both = client.responses.create(model=MODEL, input=two, tools=TOOLS, tool_choice="required")
check(len(calls_of(both)) == 2, f"parallel: {both.output}")
one = client.responses.create(model=MODEL, input=two, tools=TOOLS, tool_choice="required", parallel_tool_calls=False)
check(len(calls_of(one)) == 1, f"parallel_tool_calls=False: {one.output}")

# Structured output through text.format.
schema = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 24}}, "required": ["city"], "additionalProperties": False}
r = client.responses.create(
    model=MODEL,
    input="Name a city as JSON.",
    text={"format": {"type": "json_schema", "name": "city", "schema": schema, "strict": True}},
    max_output_tokens=128,
)
check(isinstance(json.loads(r.output_text)["city"], str), f"json_schema: {r.output_text!r}")

# Errors arrive as the SDK's exception classes, naming the field.
for make, kind, param in [
    (lambda: client.responses.create(model="gpt-9", input="Hi"), openai.NotFoundError, None),
    (
        lambda: client.responses.create(
            model=MODEL, input=[{"role": "user", "content": "Hi"}, {"type": "function_call_output", "call_id": "nope", "output": "1"}]
        ),
        openai.BadRequestError,
        "input[1].call_id",
    ),
    (lambda: client.responses.create(model=MODEL, input="Hi", tools=[{"type": "web_search"}]), openai.BadRequestError, "tools[0].type"),
    (lambda: client.responses.create(model=MODEL, input="Hi", previous_response_id="resp_gone"), openai.BadRequestError, "previous_response_id"),
    (lambda: OpenAI(base_url=base_url, api_key="wrong", max_retries=0).responses.create(model=MODEL, input="Hi"), openai.AuthenticationError, None),
]:
    try:
        make()
        check(False, f"expected {kind.__name__}")
    except kind as e:
        check(e.body and e.body.get("message"), f"{kind.__name__} carries a message: {e}")
        if param:
            check(e.body.get("param") == param, f"param {e.body.get('param')!r} != {param!r}")

print(f"ok: {checks()} checks")
