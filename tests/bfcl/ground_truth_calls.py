#!/usr/bin/env python3
"""BFCL's multi-turn ground truth as tool calls a model would write.

Usage: python tests/bfcl/ground_truth_calls.py DATA_DIR

BFCL writes each turn's ground truth as Python calls (`cd(folder='document')`).
This prints one JSON object, {id: [turn, ...]}, each turn a list of
{"name", "arguments"}: the calls as a tool API hands them over, the
arguments read with Python's own `ast.literal_eval` and named by the tool
class's own signature (a few ground-truth calls pass them by position).
tests/eval_oracle.rs answers with them.
"""

import ast
import importlib
import inspect
import json
import os
import sys

from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

CATEGORIES = ["base", "miss_func", "miss_param", "long_context"]


def method(classes, name):
    for class_name in classes:
        module = importlib.import_module(CLASS_FILE_PATH_MAPPING[class_name])
        found = getattr(getattr(module, class_name), name, None)
        if found is not None:
            return found
    raise ValueError(f"no class of {classes} has {name}")


def call(text, classes):
    tree = ast.parse(text, mode="eval").body
    if not isinstance(tree, ast.Call):
        raise ValueError(f"not a call: {text}")
    name = ast.unparse(tree.func)
    args = [ast.literal_eval(a) for a in tree.args]
    kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in tree.keywords}
    if args:
        bound = inspect.signature(method(classes, name)).bind(None, *args, **kwargs)
        kwargs = {k: v for k, v in bound.arguments.items() if k != "self"}
    return {"name": name, "arguments": kwargs}


def main():
    data = sys.argv[1]
    calls = {}
    for category in CATEGORIES:
        name = f"BFCL_v4_multi_turn_{category}.json"
        with open(os.path.join(data, name)) as lines:
            classes = {e["id"]: e["involved_classes"] for e in map(json.loads, lines)}
        with open(os.path.join(data, "possible_answer", name)) as lines:
            for line in lines:
                entry = json.loads(line)
                mine = classes[entry["id"]]
                turns = entry["ground_truth"]
                calls[entry["id"]] = [[call(c, mine) for c in turn] for turn in turns]
    json.dump(calls, sys.stdout)


if __name__ == "__main__":
    main()
