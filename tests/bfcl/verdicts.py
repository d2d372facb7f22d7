#!/usr/bin/env python3
"""BFCL's own verdicts on decoded model outputs, for cross-checking our checker.

Usage: python tests/bfcl/verdicts.py OUTPUTS.jsonl

Each input line is {"id", "source", "decoded": [...]} or {"id", "source",
"decode_error": "..."} (see tests/bfcl/outputs.jsonl, written by
scripts/bfcl_outputs.py). For each, in order, one JSON line goes to stdout:
{"id", "source", "valid": true|false, "error_type": null|"..."}, judged by
bfcl-eval's own code (bfcl-eval==2026.3.23) exactly as its eval runner
(`_evaluate_single_relevance_entry`, `_evaluate_single_ast_entry`) judges a
decoded output. If BFCL's code raises, the line reads "valid": null,
"error_type": "exception: <repr>" so that one odd output cannot hide the rest.

Needs only the standard library and bfcl_eval (installed --no-deps, plus the
filelock its utils import).
"""

import json
import os
import sys
import tempfile
import types

# Importing bfcl_eval's constants creates result/, score/ and .file_locks/
# under BFCL_PROJECT_ROOT (by default the site-packages folder); keep those out
# of the installed package, which may be read-only in CI.
_SCRATCH = None
if "BFCL_PROJECT_ROOT" not in os.environ:
    _SCRATCH = tempfile.TemporaryDirectory(prefix="bfcl_verdicts_")
    os.environ["BFCL_PROJECT_ROOT"] = _SCRATCH.name

# ast_checker imports MODEL_CONFIG_MAPPING only to ask one question of the model
# under test: whether its API forced dots in function names to underscores
# (`convert_func_name`). The real module imports every provider SDK, none of
# which is installed, so stand in a registry with our single model. Tool APIs
# allow only ^[a-zA-Z0-9_-]{1,64}$ as a tool name, so we send BFCL's
# `math.factorial` as `math_factorial` and the model must call it that way:
# underscore_to_dot=True makes BFCL expect exactly that name.
MODEL_NAME = "tool-use"


class _ToolUseConfig:
    underscore_to_dot = True


_model_config = types.ModuleType("bfcl_eval.constants.model_config")
_model_config.MODEL_CONFIG_MAPPING = {MODEL_NAME: _ToolUseConfig()}
sys.modules["bfcl_eval.constants.model_config"] = _model_config

from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.utils import (  # noqa: E402
    extract_test_category_from_id,
    is_empty_output,
    is_function_calling_format_output,
    is_java,
    is_js,
    is_relevance_or_irrelevance,
    load_dataset_entry,
    load_ground_truth_entry,
)

_CACHE = {}


def load_category(category):
    """{id: (test entry, possible answer or None)} for one category.

    BFCL's evaluate_task loads the questions with include_prereq=False and
    include_language_specific_hint=False (the hint is only added when
    prompting). That matters for Java and JavaScript, whose hint also turns
    every parameter's type into "string": the checker reads the types as
    written (HashMap, ArrayList…) to convert the model's strings. We mirror
    the runner. Possible answers pair with
    questions by line index, not by id (BFCL's _subset_entries_by_model_ids
    does the same, as some answer ids differ in format).
    """
    if category not in _CACHE:
        entries = load_dataset_entry(
            category, include_prereq=False, include_language_specific_hint=False
        )
        if is_relevance_or_irrelevance(category):
            answers = [None] * len(entries)
        else:
            answers = load_ground_truth_entry(category)
            assert len(answers) == len(entries), category
        _CACHE[category] = {e["id"]: (e, a) for e, a in zip(entries, answers)}
    return _CACHE[category]


def judge(line):
    """(valid, error_type) for one input line, as BFCL's runner decides it."""
    category = extract_test_category_from_id(line["id"])
    entry, answer = load_category(category)[line["id"]]
    decode_failed = "decoded" not in line
    decoded = line.get("decoded")

    if is_relevance_or_irrelevance(category):
        # The runner counts an output as a call when decode_ast succeeded and
        # the result is not empty ([] or [{}] or anything not in call format).
        contain_func_call = not decode_failed and not is_empty_output(decoded)
        if "irrelevance" in category:
            valid = not contain_func_call
            return valid, None if valid else "irrelevance_error:decoder_success"
        return contain_func_call, (
            None if contain_func_call else "relevance_error:decoder_failed"
        )

    if decode_failed:
        return False, "ast_decoder:decoder_failed"
    if not is_function_calling_format_output(decoded):
        return False, "ast_decoder:decoder_wrong_output_format"
    # The runner's choice of language (eval_runner.py), by the name.
    if is_java(category):
        language = Language.JAVA
    elif is_js(category):
        language = Language.JAVASCRIPT
    else:
        language = Language.PYTHON
    result = ast_checker(
        entry["function"],
        decoded,
        answer["ground_truth"],
        language,
        category,
        MODEL_NAME,
    )
    # A passing result still carries a placeholder error_type
    # ("simple_function_checker:unclear"); it means nothing, so drop it.
    return result["valid"], None if result["valid"] else result["error_type"]


def verdict(line):
    """The output record for one input line; BFCL exceptions become data."""
    try:
        valid, error_type = judge(line)
    except Exception as e:  # report, don't stop: the rest still need verdicts
        valid, error_type = None, f"exception: {e!r}"
    return {
        "id": line["id"],
        "source": line.get("source"),
        "valid": valid,
        "error_type": error_type,
    }


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: bfcl_verdicts.py OUTPUTS.jsonl")
    with open(argv[1], encoding="utf-8") as f:
        for text in f:
            if text.strip():
                print(json.dumps(verdict(json.loads(text)), ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv)
