#!/usr/bin/env python3
"""BFCL's own verdicts on recorded multi-turn conversations, for
cross-checking our multi-turn checker.

Usage: python tests/bfcl/multi_turn_verdicts.py DATA_DIR OUTPUTS.jsonl

Each input line is {"id", "source", "turns": [[[call, ...], ...], ...]}: per
turn, per step, the calls as BFCL writes them for execution
(`cd(folder='x')`), as tests/bfcl/outputs_multi_turn.jsonl holds them. For
each, in order, one JSON line goes to stdout: {"id", "source", "valid",
"error_type"}, judged by bfcl-eval's own code (bfcl-eval==2026.3.23) as its
runner's `_evaluate_single_multi_turn_entry` judges a result: turns counted
first (`multi_turn:force_terminated`), steps whose decoded calls are empty
dropped, then `multi_turn_checker`. If BFCL's code raises, the line reads
"valid": null, "error_type": "exception: <repr>".

Needs the standard library, bfcl_eval (installed --no-deps) and mpmath (its
math class imports it).
"""

import json
import os
import sys

from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
    is_empty_execute_response,
)

_CACHE = {}


def load_category(data, category):
    """{id: (test entry, ground truth)}, answers paired by line as BFCL does."""
    if category not in _CACHE:
        name = f"BFCL_v4_{category}.json"
        with open(os.path.join(data, name), encoding="utf-8") as f:
            entries = [json.loads(line) for line in f if line.strip()]
        with open(os.path.join(data, "possible_answer", name), encoding="utf-8") as f:
            answers = [json.loads(line) for line in f if line.strip()]
        assert len(entries) == len(answers), category
        _CACHE[category] = {
            e["id"]: (e, a["ground_truth"]) for e, a in zip(entries, answers)
        }
    return _CACHE[category]


def judge(data, line, model_name):
    category = line["id"].rsplit("_", 1)[0]
    entry, truth = load_category(data, category)[line["id"]]
    turns = line["turns"]
    if len(turns) != len(truth):
        return False, "multi_turn:force_terminated"
    decoded = [[step for step in turn if not is_empty_execute_response(step)] for turn in turns]
    result = multi_turn_checker(decoded, truth, entry, category, model_name)
    return result["valid"], None if result["valid"] else result["error_type"]


def forget(model_name):
    """Drops the instances BFCL keeps in its module's globals for a run."""
    for name in [n for n in vars(multi_turn_utils) if n.startswith(model_name)]:
        del vars(multi_turn_utils)[name]


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: multi_turn_verdicts.py DATA_DIR OUTPUTS.jsonl")
    answers = sys.stdout
    # What the tool classes print must not mix with the verdicts.
    sys.stdout = sys.stderr
    with open(argv[2], encoding="utf-8") as f:
        for index, text in enumerate(f):
            if not text.strip():
                continue
            line = json.loads(text)
            # Each line its own instances: BFCL names them by model and id.
            model_name = f"xcheck{index}"
            try:
                valid, error_type = judge(argv[1], line, model_name)
            except Exception as e:  # report, don't stop
                valid, error_type = None, f"exception: {e!r}"
            forget(model_name)
            record = {
                "id": line["id"],
                "source": line.get("source"),
                "valid": valid,
                "error_type": error_type,
            }
            answers.write(json.dumps(record, ensure_ascii=False) + "\n")
    answers.flush()


if __name__ == "__main__":
    main(sys.argv)
