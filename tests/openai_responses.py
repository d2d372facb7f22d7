"""The official OpenAI Python client's Responses API against `tool-use serve`.

Run by tests/openai_responses.rs with the server's base URL and API key:
    python tests/openai_responses.py http://127.0.0.1:PORT/v1 KEY
Exits non-zero on the first failed check.
"""

import json
from concurrent.futures import ThreadPoolExecutor

import openai
from openai import OpenAI

from clients import MODEL, RESPONSES_TOOLS, check, checks, connect

client, base_url = connect(OpenAI)
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

# allowed_tools: every tool is offered (the prompt holds all four
# definitions), calls go only to the listed ones. Two more demo tools beside
# the weather ones, so that the list can leave out what a question wants.
CALCULATE = {
    "type": "function",
    "name": "calculate",
    "description": "Do arithmetic on two numbers.",
    "parameters": {
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide", "power"], "description": "The operation."},
            "a": {"type": "number", "description": "The first number"},
            "b": {"type": "number", "description": "The second number"},
        },
        "required": ["operation", "a", "b"],
    },
}
TIME = {
    "type": "function",
    "name": "get_current_time",
    "description": "Get the current date and time.",
    "parameters": {
        "type": "object",
        "properties": {"timezone": {"type": "string", "description": 'A city or IANA time zone, e.g. "Tokyo"; UTC if omitted'}},
    },
}
ALL_TOOLS = TOOLS + [CALCULATE, TIME]


def allowed(mode, *names):
    return {"type": "allowed_tools", "mode": mode, "tools": [{"type": "function", "name": n} for n in names]}


def check_calculate(calls, what):
    """Calls to `calculate` only, each with arguments its schema admits."""
    check(calls and all(c.name == "calculate" for c in calls), f"{what}: {calls}")
    for c in calls:
        a = json.loads(c.arguments)
        ok = a["operation"] in CALCULATE["parameters"]["properties"]["operation"]["enum"]
        check(ok and all(isinstance(a[k], (int, float)) for k in "ab"), f"{what}: arguments {a}")


# Required, naming one tool a weather question would not pick: the calls are
# to it, and the choice is echoed in the API's form.
only_calculate = allowed("required", "calculate")
forced = client.responses.create(model=MODEL, input=weather, tools=ALL_TOOLS, tool_choice=only_calculate, temperature=0)
check(forced.status == "completed", f"allowed_tools required: {forced}")
check_calculate(calls_of(forced), "allowed_tools required")
check(forced.tool_choice.model_dump() == only_calculate, f"echoed tool_choice: {forced.tool_choice}")
check([t.name for t in forced.tools] == [t["name"] for t in ALL_TOOLS], f"echoed tools: {forced.tools}")
# Unconstrained, the same question calls the temperature tool; the list
# changes the answer, not the prompt: as many input tokens as with every
# tool allowed, more than with `calculate` alone offered.
free = client.responses.create(model=MODEL, input=weather, tools=ALL_TOOLS, tool_choice="required", temperature=0)
check([c.name for c in calls_of(free)] == ["get_current_temperature"], f"without a list: {free.output}")
alone = client.responses.create(model=MODEL, input=weather, tools=[CALCULATE], tool_choice="required", temperature=0)
tokens = [x.usage.input_tokens for x in (forced, free, alone)]
check(tokens[0] == tokens[1] > tokens[2], f"input tokens (listed, all, calculate alone): {tokens}")

# Streamed: the items announced and the final response call the allowed tool
# only, and they are the non-streamed answer.
announced, deltas = [], ""
with client.responses.stream(model=MODEL, input=weather, tools=ALL_TOOLS, tool_choice=only_calculate, temperature=0) as s:
    for event in s:
        if event.type == "response.output_item.added" and event.item.type == "function_call":
            announced.append(event.item.name)
        elif event.type == "response.function_call_arguments.delta":
            deltas += event.delta
    streamed = s.get_final_response()
check(streamed.status == "completed", f"streamed allowed_tools: {streamed}")
check_calculate(calls_of(streamed), "streamed allowed_tools required")
check(announced == [c.name for c in calls_of(streamed)], f"announced {announced}")
check(deltas == "".join(c.arguments for c in calls_of(streamed)), f"deltas {deltas!r}")
check(without_ids(streamed) == without_ids(forced), f"streamed {streamed.output} differs from {forced.output}")

# Required among two: every call is to one of them.
pair = ("get_current_wind_speed", "get_current_time")
r = client.responses.create(model=MODEL, input=weather, tools=ALL_TOOLS, tool_choice=allowed("required", *pair), temperature=0)
check(calls_of(r) and all(c.name in pair for c in calls_of(r)), f"required among {pair}: {r.output}")

# Auto: text or calls, but never a call to a tool outside the list, greedy or
# sampled, whatever the question wants. Sent together (the server batches
# them).
runs = [
    (question, names, temperature)
    for question, names in [
        (weather, pair),
        (two, pair),
        ("What is 12 times 7?", pair),
        ("What time is it in Tokyo?", ("calculate",)),
        ("What's the wind speed in Tokyo?", ("get_current_temperature", "calculate")),
    ]
    for temperature in (0, 1.0)
]


def auto_among(run):
    question, names, temperature = run
    return client.responses.create(
        model=MODEL, input=question, tools=ALL_TOOLS, tool_choice=allowed("auto", *names), temperature=temperature, max_output_tokens=64
    )


called = set()
with ThreadPoolExecutor(max_workers=len(runs)) as pool:
    for (question, names, temperature), r in zip(runs, pool.map(auto_among, runs)):
        outside = [c.name for c in calls_of(r) if c.name not in names]
        check(not outside, f"auto among {names}, temperature {temperature}, {question!r}: called {outside}: {r.output}")
        called.update(c.name for c in calls_of(r))
check(len(called) >= 3, f"auto with a list still calls the listed tools: {called}")
# …and still lets the model answer in words.
r = client.responses.create(model=MODEL, input="Hello! Who are you?", tools=ALL_TOOLS, tool_choice=allowed("auto", *pair), temperature=0)
check(not calls_of(r) and r.output_text, f"auto answers in words: {r.output}")

# A listed tool that is not offered: 400, naming it, streamed or not.
for stream in (False, True):
    try:
        client.responses.create(model=MODEL, input=weather, tools=ALL_TOOLS, tool_choice=allowed("required", "get_rain"), stream=stream)
        check(False, f"expected BadRequestError (stream={stream})")
    except openai.BadRequestError as e:
        check(e.status_code == 400 and e.body.get("param") == "tool_choice", f"unknown allowed tool: {e.body}")
        check("unknown tool `get_rain`" in e.body.get("message", ""), f"message names the tool: {e.body}")

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
