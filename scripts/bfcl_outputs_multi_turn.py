#!/usr/bin/env python3
"""Writes tests/bfcl/outputs_multi_turn.jsonl: recorded multi-turn
conversations on which our checker and BFCL's must agree.

Usage: python scripts/bfcl_outputs_multi_turn.py DATA_DIR [SOURCE=REPORT.json ...] > OUT

Every multi-turn case gets one conversation made from its ground truth by
one of the edits below (the edit chosen by the case's position, its
details by a generator seeded with the id), so that every verdict BFCL
gives comes up: calls split into steps, a call dropped, a turn left
without calls, the last turn missing, calls reordered, made a turn early,
an argument changed, a stray call, a call repeated. Each SOURCE=REPORT.json
adds the conversations a `tool-use eval bfcl --json` run recorded (its
steps' calls, as the harness wrote and ran them).

Each line: {"id", "source", "turns": [[[call, ...] per step] per turn]}.
"""

import ast
import json
import os
import random
import sys

CATEGORIES = ["base", "miss_func", "miss_param", "long_context"]


def split(turns, rng):
    return [[[c] for c in turn] for turn in turns]


def one_step(turns):
    return [[turn] if turn else [] for turn in turns]


def busy(turns, rng):
    """A random turn with calls."""
    return rng.choice([i for i, t in enumerate(turns) if t])


def drop_call(turns, rng):
    t = busy(turns, rng)
    turns[t].pop(rng.randrange(len(turns[t])))
    return one_step(turns)


def skip_turn(turns, rng):
    turns[busy(turns, rng)] = []
    return one_step(turns)


def stop_early(turns, rng):
    return one_step(turns[:-1])


def reorder(turns, rng):
    t = max(range(len(turns)), key=lambda i: len(turns[i]))
    turns[t].reverse()
    return one_step(turns)


def ahead(turns, rng):
    later = [i for i, t in enumerate(turns) if t and i > 0]
    if not later:
        return split(turns, rng)
    t = rng.choice(later)
    steps = one_step(turns)
    steps[t - 1].append(turns[t])
    steps[t] = []
    return steps


def wrong_value(turns, rng):
    spots = [
        (t, i)
        for t, turn in enumerate(turns)
        for i, c in enumerate(turn)
        if any(
            isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
            for k in ast.parse(c, mode="eval").body.keywords
        )
    ]
    if not spots:
        return drop_call(turns, rng)
    t, i = rng.choice(spots)
    tree = ast.parse(turns[t][i], mode="eval")
    for keyword in tree.body.keywords:
        if isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str):
            keyword.value.value += "_x"
            break
    turns[t][i] = ast.unparse(tree)
    return one_step(turns)


def stray(turns, rng):
    quiet = [i for i, t in enumerate(turns) if not t]
    t = rng.choice(quiet) if quiet else rng.randrange(len(turns))
    turns[t] = turns[t] + [rng.choice(["not_a_function(x=1)", "ls(a=True)", "pwd()"])]
    return one_step(turns)


def repeat(turns, rng):
    t = busy(turns, rng)
    turns[t].insert(0, rng.choice(turns[t]))
    return one_step(turns)


EDITS = [split, drop_call, skip_turn, stop_early, reorder, ahead, wrong_value, stray, repeat]


def main(argv):
    data = argv[1]
    index = 0
    for category in CATEGORIES:
        path = os.path.join(data, "possible_answer", f"BFCL_v4_multi_turn_{category}.json")
        with open(path, encoding="utf-8") as f:
            for text in f:
                entry = json.loads(text)
                edit = EDITS[index % len(EDITS)]
                index += 1
                rng = random.Random(entry["id"])
                turns = [list(t) for t in entry["ground_truth"]]
                record = {"id": entry["id"], "source": edit.__name__, "turns": edit(turns, rng)}
                print(json.dumps(record, ensure_ascii=False))
    for arg in argv[2:]:
        source, path = arg.split("=", 1)
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        for case in report["cases"]:
            if "turns" not in case or case.get("engine_error"):
                continue
            turns = [[step["calls"] for step in turn["steps"]] for turn in case["turns"]]
            print(json.dumps({"id": case["id"], "source": source, "turns": turns}, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv)
