"""BFCL's multi-turn tool classes, run for `tool-use eval bfcl`.

tool-models/src/eval/tool_classes.rs starts this script and talks to it in
JSON lines: one request per line on stdin, one answer per line on stdout.
The classes (the file system, math, messaging, posting, ticket, trading,
travel and vehicle APIs) are the installed bfcl-eval package's own, and
calls run through its own `execute_multi_turn_func_call`, so what a call
does and answers is BFCL's by construction.

Requests (every answer is an object; {"error": "..."} when one fails):
  {"op": "import", "classes"}
      imports the classes' modules, to learn early that they load;
  {"op": "case", "id", "classes", "config", "long_context"}
      forget the last case's instances and take this one's;
  {"op": "write", "calls": [{"name", "arguments"}]}
      the calls as BFCL writes a tool API's calls for execution
      (`name(key=repr(value),...)`), or {"undecodable": why};
  {"op": "run", "side", "calls": ["cd(folder='x')", ...]}
      runs the calls in order on the side's instances (made from the
      case's config on first use), answering {"results": [...]};
  {"op": "compare", "side", "truth"}
      compares the two sides' instances as BFCL's state checker does,
      answering {"valid", "class", "differences": {attr: {model, ground_truth}}}.
"""

import importlib
import json
import sys

# What the classes print must not reach the answers.
ANSWERS = sys.stdout
sys.stdout = sys.stderr

from bfcl_eval.constants.executable_backend_config import (  # noqa: E402
    CLASS_FILE_PATH_MAPPING,
)
from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import (  # noqa: E402
    _compare_instances,
)

# Instances live in multi_turn_utils' globals under names made of these.
PREFIX = "tool_use_"

case = None
sides = {}


def forget():
    names = [n for n in vars(multi_turn_utils) if n.startswith(PREFIX)]
    for name in names:
        del vars(multi_turn_utils)[name]
    sides.clear()


def write(calls):
    # BFCL's tool-API handlers decode each call as {name: arguments}, the
    # arguments parsed from their JSON string, then write
    # `name(key=repr(value),...)`; anything else fails the whole step.
    written = []
    for call in calls:
        arguments = call["arguments"]
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError as e:
                return {"undecodable": f"the arguments of `{call['name']}` are not JSON: {e}"}
        if not isinstance(arguments, dict):
            return {"undecodable": f"the arguments of `{call['name']}` are not an object"}
        pairs = ",".join(f"{key}={value!r}" for key, value in arguments.items())
        written.append(f"{call['name']}({pairs})")
    return {"calls": written}


def run(side, calls):
    results, instances = multi_turn_utils.execute_multi_turn_func_call(
        func_call_list=calls,
        initial_config=case["config"],
        involved_classes=case["classes"],
        model_name=PREFIX + side,
        test_entry_id=case["id"],
        long_context=case["long_context"],
        is_evaL_run=False,
    )
    sides[side] = instances
    return {"results": [str(r) for r in results]}


def compare(side, truth):
    mine, theirs = sides.get(side, {}), sides.get(truth, {})
    for class_name, expected in theirs.items():
        valid, differences = _compare_instances(mine[class_name], expected)
        if not valid:
            return {
                "valid": False,
                "class": class_name,
                "differences": {
                    attr: {"model": repr(d["model"]), "ground_truth": repr(d["ground_truth"])}
                    for attr, d in differences.items()
                },
            }
    return {"valid": True}


def answer(request):
    global case
    op = request.get("op")
    if op == "import":
        for name in request["classes"]:
            if name not in CLASS_FILE_PATH_MAPPING:
                return {"error": f"BFCL has no tool class {name!r}"}
            importlib.import_module(CLASS_FILE_PATH_MAPPING[name])
        return {"ok": True}
    if op == "case":
        forget()
        case = {
            "id": request["id"],
            "classes": request["classes"],
            "config": request["config"],
            "long_context": bool(request["long_context"]),
        }
        return {"ok": True}
    if case is None:
        return {"error": "no case was given"}
    if op == "write":
        return write(request["calls"])
    if op == "run":
        return run(request["side"], request["calls"])
    if op == "compare":
        return compare(request["side"], request["truth"])
    return {"error": f"unknown op {op!r}"}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = answer(json.loads(line))
        except Exception as e:  # noqa: BLE001 - every failure becomes an answer
            reply = {"error": f"{type(e).__name__}: {e}"}
        ANSWERS.write(json.dumps(reply) + "\n")
        ANSWERS.flush()


if __name__ == "__main__":
    main()
