"""The official MCP Python SDK (PyPI `mcp`, 2.x) as a client of `tool-use mcp`.

    python tests/mcp_client.py stdio PATH/TO/tool-use
    python tests/mcp_client.py http http://127.0.0.1:PORT/mcp

Prints one line per check and `ok N checks`; exits non-zero at the first
failure. Run by tests/mcp.rs.
"""

import asyncio
import json
import sys
from contextlib import asynccontextmanager

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

CHECKS = 0


def check(condition, what, found=None):
    global CHECKS
    if not condition:
        raise AssertionError(f"{what}: found {found!r}")
    CHECKS += 1
    print(f"ok: {what}", flush=True)


@asynccontextmanager
async def session(mode, target, args=("mcp",), message_handler=None):
    """A session with the server: `target` started with `args` (stdio), or
    the server at the URL `target` (http). `message_handler` hears the
    server's notifications."""
    if mode == "stdio":
        params = StdioServerParameters(command=target, args=list(args))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, message_handler=message_handler) as s:
                yield s
    else:
        async with streamable_http_client(target) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, message_handler=message_handler) as s:
                yield s


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


async def main(mode, target):
    async with session(mode, target) as s:
        init = await s.initialize()
        check(init.server_info.name == "tool-use-demo", "the server names itself", init.server_info)
        check(init.capabilities.tools is not None, "the server offers tools", init.capabilities)
        check("demonstration" in (init.instructions or ""), "instructions reach the host", init.instructions)

        listed = (await s.list_tools()).tools
        names = sorted(t.name for t in listed)
        check(
            names == sorted(["get_current_temperature", "get_current_wind_speed", "calculate", "convert_units", "get_current_time"]),
            "tools/list gives the five demo tools",
            names,
        )
        for tool in listed:
            schema = tool.input_schema
            check(schema.get("type") == "object" and "$schema" not in schema, f"{tool.name}: the schema's root is an object, no $schema", schema)
            check(bool(tool.description), f"{tool.name}: has a description", tool.description)
        temperature = next(t for t in listed if t.name == "get_current_temperature")
        check(
            temperature.input_schema["properties"]["unit"].get("enum") == ["celsius", "fahrenheit"],
            "the doc comment's choices are the schema's enum",
            temperature.input_schema,
        )
        check(temperature.input_schema.get("required") == ["location", "unit"], "required arguments are listed", temperature.input_schema)

        result = await s.call_tool("calculate", {"operation": "multiply", "a": 6, "b": 7})
        check(not result.is_error and text_of(result) == "42", "a call returns the tool's result as text", result)

        result = await s.call_tool("get_current_temperature", {"location": "Paris, France", "unit": "celsius"})
        check(not result.is_error and float(text_of(result)) == float(text_of(result)), "a weather call returns a number", result)

        result = await s.call_tool("calculate", {"operation": "divide", "a": 1, "b": 0})
        check(result.is_error is True, "a tool's own failure is an isError result", result)
        check(text_of(result) == "Error: division by zero", "with the text the agent reads", text_of(result))

        result = await s.call_tool("calculate", {"operation": "add", "a": 1})
        check(result.is_error is True, "missing arguments are an isError result", result)
        check(
            text_of(result).startswith("Error: invalid arguments for `calculate`") and "`b`" in text_of(result),
            "that names the tool and the argument",
            text_of(result),
        )

        result = await s.call_tool("calculate", {"operation": "add", "a": "2", "b": 3})
        check(not result.is_error and text_of(result) == "5", "a number sent as text is repaired (lenient)", result)

        result = await s.call_tool("convert_units", {"value": 1, "from_unit": "km", "to_unit": "celsius"})
        check(result.is_error is True and "cannot convert" in text_of(result), "an impossible conversion is explained", result)

        try:
            result = await s.call_tool("calculat", {"operation": "add", "a": 1, "b": 2})
            check(False, "an unknown tool is a protocol error", result)
        except Exception as e:  # the SDK raises its MCPError for JSON-RPC errors
            message = str(e)
            check("unknown tool `calculat`" in message and "Did you mean `calculate`?" in message, "an unknown tool is a protocol error with a suggestion", message)

        # Several calls in flight at once on one session.
        results = await asyncio.gather(*[s.call_tool("calculate", {"operation": "add", "a": i, "b": i}) for i in range(8)])
        check([text_of(r) for r in results] == [str(2 * i) for i in range(8)], "concurrent calls each get their own answer", [text_of(r) for r in results])

    print(f"ok {CHECKS} checks")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
