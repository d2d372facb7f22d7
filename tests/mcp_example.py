"""The official MCP Python SDK against examples/mcp_server.rs: a long call's
progress and its cancellation, a structured result, and a tool added while
the server runs.

    python tests/mcp_example.py stdio PATH/TO/examples/mcp_server
    python tests/mcp_example.py http http://127.0.0.1:PORT/mcp

Prints one line per check and `ok N checks`; exits non-zero at the first
failure. Run by tests/mcp_python.rs, which also reads the server's log.
"""

import asyncio
import json
import sys
import time

import mcp_client
from mcp import types
from mcp_client import check, session, text_of


async def main(mode, target):
    list_changed = asyncio.Event()

    async def hear(message):
        if isinstance(message, types.ToolListChangedNotification):
            list_changed.set()

    async with session(mode, target, args=(), message_handler=hear) as s:
        init = await s.initialize()
        check(init.capabilities.tools.list_changed is True, "the server says its tool list may change", init.capabilities)

        listed = {t.name: t for t in (await s.list_tools()).tools}
        stats = listed["text_stats"]
        check(
            stats.output_schema is not None
            and stats.output_schema.get("type") == "object"
            and set(stats.output_schema["properties"]) == {"words", "sentences", "longest_word"},
            "a tool returning a struct has its outputSchema",
            stats.output_schema,
        )
        check(listed["count_words"].output_schema is None, "a tool returning a number has none", listed["count_words"])
        # The SDK checks structuredContent against the outputSchema itself.
        result = await s.call_tool("text_stats", {"text": "Hi there. Tools are wonderful!"})
        expected = {"words": 5, "sentences": 2, "longest_word": "wonderful!"}
        check(not result.is_error and result.structured_content == expected, "its result is structuredContent", result)
        check(json.loads(text_of(result)) == expected, "with the same value as text for older hosts", text_of(result))

        reports = []

        async def record(progress, total, message):
            reports.append((progress, total, message))

        result = await s.call_tool("countdown", {"steps": 3}, progress_callback=record)
        check(not result.is_error and text_of(result) == "liftoff", "countdown finishes", result)
        check([r[0] for r in reports] == [1, 2, 3], "progress arrives, increasing, before the answer", reports)
        check(all(r[1] == 3 for r in reports), "each report has the total", reports)
        check([r[2] for r in reports] == ["2 to go", "1 to go", "0 to go"], "and the tool's message", reports)

        started = asyncio.Event()

        async def first_step(progress, total, message):
            started.set()

        # Abandoning the call sends `notifications/cancelled` (the SDK's
        # courtesy cancel); the tool sees it and stops.
        call = asyncio.create_task(s.call_tool("countdown", {"steps": 50}, progress_callback=first_step))
        await asyncio.wait_for(started.wait(), 10)
        call.cancel()
        try:
            await call
        except asyncio.CancelledError:
            pass
        begun = time.monotonic()
        result = await s.call_tool("count_words", {"text": "one two three"})
        took = time.monotonic() - begun
        check(text_of(result) == "3" and took < 1.0, "the server answers the next request at once", (result, took))

        before = {t.name for t in (await s.list_tools()).tools}
        check("rot13" not in before and "enable_rot13" in before, "rot13 is not offered yet", before)
        result = await s.call_tool("enable_rot13", {})
        check(text_of(result) == "rot13 is available now", "a tool adds a tool", result)
        await asyncio.wait_for(list_changed.wait(), 5)
        check(True, "notifications/tools/list_changed arrives")
        after = {t.name for t in (await s.list_tools()).tools}
        check(after == before | {"rot13"}, "tools/list now has it", after)
        result = await s.call_tool("rot13", {"text": "Hello, World!"})
        check(not result.is_error and text_of(result) == "Uryyb, Jbeyq!", "and it runs", result)
        list_changed.clear()
        result = await s.call_tool("enable_rot13", {})
        check(text_of(result) == "rot13 was available already", "adding it again changes nothing", result)
        await asyncio.sleep(0.3)
        check(not list_changed.is_set(), "and tells no one", list_changed)

        # Time for the cancelled tool to log that it stopped.
        await asyncio.sleep(0.2)

    print(f"ok {mcp_client.CHECKS} checks")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
