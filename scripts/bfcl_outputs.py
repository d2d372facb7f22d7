#!/usr/bin/env python3
"""Write tests/bfcl/outputs.jsonl: decoded outputs that BFCL's checker judges.

Usage: python scripts/bfcl_outputs.py [--out PATH]
           [--add-model NAME REPORT.json]... [--per-model N]

Our Rust reimplementation of BFCL's AST checker and relevance logic is tested
against BFCL's own code (tests/bfcl/verdicts.py) on this committed set. The
set holds only ids and decoded outputs (never questions or function docs):
one line per output, {"id", "source", "decoded": [...]} or
{"id", "source", "decode_error": "..."}, where `source` says where it came from:

  answer              a right answer built from BFCL's possible answers
  mutation:<what>     a deliberately wrong answer aimed at one check
  variable:<what>     a possible answer whose type differs from the parameter's,
                      which BFCL treats as a variable name
  quirk:<what>        BFCL behaviour a careful reimplementation could miss
  relevance:<what>    an output shape for the (ir)relevance categories
  model:<NAME>        a case from one of our eval reports (--add-model)

Every line is checked here with verdicts.verdict, so the set holds no
line on which BFCL's code raises: answers must pass, and each mutation must
fail with the error it aims at (else another test entry is tried).

Deterministic: each category has its own RNG seeded from SEED and its name,
so the set depends only on this script and bfcl-eval's data. A summary goes
to stderr. Needs the same Python as verdicts.py (bfcl_eval installed).
"""

import argparse
import collections
import copy
import itertools
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'bfcl'))
import verdicts as bv  # noqa: E402  (also stubs BFCL's model registry)

from bfcl_eval.eval_checker.ast_eval.ast_checker import (  # noqa: E402
    PYTHON_TYPE_MAPPING,
    standardize_string,
)
from bfcl_eval.utils import extract_test_category_from_id  # noqa: E402

SEED = 20260323
OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "tests", "bfcl", "outputs.jsonl",
)
AST_CATEGORIES = [
    "simple_python", "multiple", "parallel", "parallel_multiple",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
]
RELEVANCE_CATEGORIES = ["irrelevance", "live_irrelevance", "live_relevance"]
CATEGORIES = AST_CATEGORIES + RELEVANCE_CATEGORIES
# Right answers per category; the small live parallel files get fewer.
ANSWERS = {c: 12 for c in AST_CATEGORIES}
ANSWERS.update(live_parallel=8, live_parallel_multiple=8)

PARALLEL_MISMATCH = "parallel_function_checker_no_order:cannot_find_match"
DECODE_ERRORS = [
    "no tool call found in the output",
    "tool call arguments are not valid JSON: expected value at line 1 column 9",
    "unterminated tool call: missing </tool_call>",
]


def checker_kind(category):
    """Which of ast_checker's three paths judges the category (by its name)."""
    if "parallel" in category:
        return "parallel"
    return "multiple" if "multiple" in category else "simple"


def wrong_count(category):
    return {
        "simple": "simple_function_checker:wrong_count",
        "multiple": "multiple_function_checker:wrong_count",
        "parallel": "parallel_function_checker_no_order:wrong_count",
    }[checker_kind(category)]


def tool_name(name):
    """The name a tool API lets the model call (see verdicts.MODEL_NAME)."""
    return name.replace(".", "_")


# ---------------------------------------------------------------- answers


def is_variable(allowed, ptype):
    """BFCL's test: the first non-"" possible answer has another type."""
    for a in allowed:
        if a != "":
            return type(a) is not PYTHON_TYPE_MAPPING.get(ptype)
    return False


def vary_string(rng, s):
    """A spelling standardize_string maps to the same thing, else s itself."""
    if not s:
        return s
    v = rng.choice([
        s.upper(), s.lower(), s.replace(" ", ""), s.replace(" ", "_"),
        s.replace('"', "'"), s.replace(", ", ","), s.title(),
    ])
    # Unicode case maps do not always round-trip (e.g. "ß".upper() == "SS").
    return v if standardize_string(v) == standardize_string(s) else s


def build_dict(rng, spec, vary):
    """One dict from a possible-answer dict (key -> allowed values)."""
    out = {}
    for key, allowed in spec.items():
        choices = [a for a in allowed if a != ""]
        if not choices or ("" in allowed and vary and rng.random() < 0.5):
            continue
        value = copy.deepcopy(rng.choice(choices))
        # dict_checker standardises top-level string values only.
        if vary and isinstance(value, str) and rng.random() < 0.7:
            value = vary_string(rng, value)
        out[key] = value
    return out


OMIT = object()  # build_value's "leave the parameter out" (None is a value)


def build_value(rng, prop, allowed, vary):
    """One allowed value for a parameter, or OMIT to leave it out."""
    choices = [a for a in allowed if a != ""]
    if not choices or ("" in allowed and vary and rng.random() < 0.5):
        return OMIT
    value = copy.deepcopy(rng.choice(choices))
    ptype = prop["type"]
    if is_variable(allowed, ptype):
        return value  # a variable name is compared exactly, never standardised
    items = (prop.get("items") or {}).get("type")
    if ptype == "dict" and isinstance(value, dict):
        return build_dict(rng, value, vary)
    if ptype in ("array", "tuple") and items == "dict" and isinstance(value, list):
        return [build_dict(rng, d, vary) for d in value]
    if not vary:
        return value
    if ptype in ("string", "any") and isinstance(value, str) and rng.random() < 0.7:
        return vary_string(rng, value)
    if ptype == "float" and isinstance(value, float) and value.is_integer():
        if rng.random() < 0.5:
            return int(value)  # BFCL converts int to float for float params
    if ptype in ("array", "tuple") and isinstance(value, list):
        # list_checker standardises string items (one level deep only).
        return [vary_string(rng, v) if isinstance(v, str) and rng.random() < 0.7 else v
                for v in value]
    return value


class Case:
    """One AST test entry: its function docs and possible answers."""

    def __init__(self, category, entry, answer):
        self.category = category
        self.id = entry["id"]
        self.docs = {f["name"]: f for f in entry["function"]}
        self.gt = answer["ground_truth"]  # [{name: {param: [allowed]}}]

    def calls(self, rng, vary):
        """One call per possible answer: [{name, orig, args, doc, gt}]."""
        out = []
        for item in self.gt:
            (orig, params), = item.items()
            doc = self.docs[orig]
            props = doc["parameters"]["properties"]
            args = {}
            for p, allowed in params.items():
                if p not in props:
                    continue  # a few answers name undocumented params; see quirks
                value = build_value(rng, props[p], allowed, vary)
                if value is not OMIT:
                    args[p] = value
            out.append({"name": tool_name(orig), "orig": orig, "args": args,
                        "doc": doc, "gt": params})
        return out


def decoded_of(calls):
    return [{c["name"]: c["args"]} for c in calls]


# -------------------------------------------------------------- mutations
# A call mutation edits one call in place and returns False when the call has
# nothing it applies to. Each aims at one branch of simple_function_checker;
# its expected error_type is given where it is listed (CALL_MUTATIONS).


def infos(call):
    """Facts about each parameter the call passes, for mutations to choose."""
    doc = call["doc"]["parameters"]
    for p, value in call["args"].items():
        prop = doc["properties"].get(p)
        if prop is None:
            continue
        allowed = call["gt"].get(p, [])
        yield {
            "name": p, "value": value, "type": prop["type"],
            "items": (prop.get("items") or {}).get("type"),
            "allowed": allowed, "optional": "" in allowed,
            "required": p in doc["required"],
            "variable": is_variable(allowed, prop["type"]),
        }


def pick(rng, call, pred):
    found = [i for i in infos(call) if pred(i)]
    return rng.choice(found) if found else None


def typed(i, *types):
    """A plain (non-variable) parameter whose value has one of `types`."""
    return (not i["variable"] and type(i["value"]) in types
            and None not in i["allowed"])


def set_param(pred, make):
    """A mutation replacing one chosen parameter's value by make(rng, value)."""
    def mutate(rng, call):
        i = pick(rng, call, pred)
        if i is None:
            return False
        call["args"][i["name"]] = make(rng, i["value"])
        return True
    return mutate


def rename(rng, call):
    call["name"] += "_v2"
    return True


def keep_dots(rng, call):
    if "." not in call["orig"]:
        return False
    call["name"] = call["orig"]
    return True


def drop(pred):
    def mutate(rng, call):
        i = pick(rng, call, pred)
        if i is None:
            return False
        del call["args"][i["name"]]
        return True
    return mutate


def add_unknown(rng, call):
    call["args"]["unexpected_arg"] = "value"
    return True


def call_with_dummies(doc, with_args=True):
    """A call of a documented function, its required params given dummies."""
    props = doc["parameters"]["properties"]
    required = doc["parameters"]["required"] if with_args else []
    return {tool_name(doc["name"]): {p: dummy(props.get(p, {})) for p in required}}


def dummy(prop):
    """A plausible value of a documented parameter's type."""
    if prop.get("enum"):
        return prop["enum"][0]
    return {"integer": 1, "float": 1.5, "boolean": True, "array": [],
            "tuple": [], "dict": {}}.get(prop.get("type"), "example")


def add_documented(rng, call):
    """A parameter the docs offer but the possible answer does not expect."""
    props = call["doc"]["parameters"]["properties"]
    spare = [p for p in props if p not in call["gt"] and p not in call["args"]]
    if not spare:
        return False
    p = rng.choice(spare)
    call["args"][p] = dummy(props[p])
    return True


def change_item(rng, v):
    """A different value of the same type."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        return v + 1
    if isinstance(v, str):
        return v + " wrong"
    return v


def list_item_changed(rng, v):
    v = list(v)
    k = rng.randrange(len(v))
    v[k] = change_item(rng, v[k])
    return v


def nested_wrong(rng, v):
    v = list(v)
    v[0] = 123 if isinstance(v[0], str) else "wrong"
    return v


def floats_to_ints(rng, v):
    return [int(x) if isinstance(x, float) else x for x in v]


def plain_list(i):
    return (typed(i, list) and i["value"]
            and i["items"] in ("string", "integer", "float", "boolean"))


def dict_edit(how, in_list=False):
    """Edit one dict parameter, or one dict of a list-of-dicts parameter."""
    def mutate(rng, call):
        def ok(i):
            if i["variable"] or None in i["allowed"]:
                return False
            if in_list:
                return i["items"] == "dict" and bool(i["value"])
            return i["type"] == "dict" and isinstance(i["value"], dict)
        i = pick(rng, call, ok)
        if i is None:
            return False
        value = i["value"]
        target = value if isinstance(value, dict) else rng.choice(value)
        spec = next((s for s in i["allowed"] if isinstance(s, (dict, list)) and s), None)
        if isinstance(spec, list):  # list of dicts: the spec of the same position
            spec = spec[value.index(target)] if len(spec) == len(value) else None
        if how == "unexpected_key":
            target["unexpected_key"] = "value"
        elif how == "wrong_value":
            keys = [k for k, v in target.items() if isinstance(v, (str, int, float))
                    and not isinstance(v, bool)]
            if not keys:
                return False
            k = rng.choice(keys)
            target[k] = change_item(rng, target[k])
        elif how == "missing_key":
            keys = [k for k in target if spec and "" not in spec.get(k, [""])]
            if not keys:
                return False
            del target[rng.choice(keys)]
        return True
    return mutate


def list_dict_count(rng, call):
    i = pick(rng, call, lambda i: i["items"] == "dict" and not i["variable"]
             and isinstance(i["value"], list) and i["value"])
    if i is None:
        return False
    v = i["value"]
    call["args"][i["name"]] = v[:-1] if len(v) > 1 else v + [copy.deepcopy(v[0])]
    return True


def two_errors(first):
    """A wrong type and an unexpected param: BFCL reports the first it meets
    in the model's argument order, so a reimplementation must keep that order;
    a missing required param is reported before either."""
    def mutate(rng, call):
        i = pick(rng, call, lambda i: typed(i, int, float, str, bool)
                 and not (first == "missing" and i["required"]))
        if i is None:
            return False
        args = dict(call["args"])
        if first == "missing":
            req = [p for p in args if p in call["doc"]["parameters"]["required"]]
            if not req:
                return False
            del args[rng.choice(req)]
        bad = {i["name"]: [i["value"]]}
        extra = {"unexpected_arg": "value"}
        rest = {k: v for k, v in args.items() if k != i["name"]}
        order = [extra, bad, rest] if first != "type" else [bad, rest, extra]
        call["args"] = {k: v for part in order for k, v in part.items()}
        return True
    return mutate


CALL_MUTATIONS = [
    ("wrong_func_name", "simple_function_checker:wrong_func_name", rename),
    ("dotted_name", "simple_function_checker:wrong_func_name", keep_dots),
    ("missing_required", "simple_function_checker:missing_required",
     drop(lambda i: i["required"])),
    ("unexpected_param", "simple_function_checker:unexpected_param", add_unknown),
    ("unexpected_documented_param", "simple_function_checker:unexpected_param",
     add_documented),
    ("missing_optional", "simple_function_checker:missing_optional",
     drop(lambda i: not i["required"] and not i["optional"])),
    ("str_for_int", "type_error:simple",
     set_param(lambda i: i["type"] == "integer" and typed(i, int), lambda r, v: str(v))),
    ("bool_for_int", "type_error:simple",
     set_param(lambda i: i["type"] == "integer" and typed(i, int), lambda r, v: True)),
    ("float_for_int", "type_error:simple",
     set_param(lambda i: i["type"] == "integer" and typed(i, int), lambda r, v: v + 0.5)),
    ("int_for_bool", "type_error:simple",
     set_param(lambda i: i["type"] == "boolean" and typed(i, bool), lambda r, v: int(v))),
    ("str_for_bool", "type_error:simple",
     set_param(lambda i: i["type"] == "boolean" and typed(i, bool),
               lambda r, v: "true" if v else "false")),
    ("str_for_float", "type_error:simple",
     set_param(lambda i: i["type"] == "float" and typed(i, float), lambda r, v: str(v))),
    ("list_for_str", "type_error:simple",
     set_param(lambda i: i["type"] == "string" and typed(i, str), lambda r, v: [v])),
    ("int_for_str", "type_error:simple",
     set_param(lambda i: i["type"] == "string" and typed(i, str),
               lambda r, v: int(v) if v.isdigit() else 7)),
    ("str_for_list", "type_error:simple",
     set_param(lambda i: i["type"] == "array" and typed(i, list),
               lambda r, v: ", ".join(map(str, v)))),
    ("str_for_dict", "type_error:simple",
     set_param(lambda i: i["type"] == "dict" and typed(i, dict), lambda r, v: json.dumps(v))),
    ("null", "type_error:simple",
     set_param(lambda i: typed(i, int, float, str, bool, list, dict), lambda r, v: None)),
    ("nested_wrong_type", "type_error:nested",
     set_param(lambda i: plain_list(i) and not i["optional"], nested_wrong)),
    ("int_items_in_float_array", "type_error:nested",
     set_param(lambda i: plain_list(i) and i["items"] == "float" and not i["optional"]
               and any(isinstance(x, float) for x in i["value"]), floats_to_ints)),
    ("wrong_string", "value_error:string",
     set_param(lambda i: i["type"] in ("string", "any") and typed(i, str),
               lambda r, v: v + " wrong")),
    ("wrong_number", "value_error:others",
     set_param(lambda i: i["type"] in ("integer", "float") and typed(i, int, float),
               change_item)),
    ("wrong_bool", "value_error:others",
     set_param(lambda i: i["type"] == "boolean" and typed(i, bool), lambda r, v: not v)),
    ("wrong_list_value", "value_error:list/tuple",
     set_param(lambda i: plain_list(i), list_item_changed)),
    ("wrong_list_order", "value_error:list/tuple",
     set_param(lambda i: plain_list(i) and len(i["value"]) > 1
               and i["value"] != i["value"][::-1], lambda r, v: v[::-1])),
    ("list_missing_item", "value_error:list/tuple",
     set_param(lambda i: plain_list(i) and len(i["value"]) > 1, lambda r, v: v[:-1])),
    ("dict_unexpected_key", "value_error:dict_key", dict_edit("unexpected_key")),
    ("dict_wrong_value", "value_error:dict_value", dict_edit("wrong_value")),
    ("dict_missing_key", "value_error:dict_key", dict_edit("missing_key")),
    ("list_dict_wrong_item", "value_error:dict_value", dict_edit("wrong_value", True)),
    ("list_dict_wrong_count", "value_error:list_dict_count", list_dict_count),
    ("two_errors_type_first", "type_error:simple", two_errors("type")),
    ("two_errors_unexpected_first", "simple_function_checker:unexpected_param",
     two_errors("unexpected")),
    ("missing_required_before_others", "simple_function_checker:missing_required",
     two_errors("missing")),
]

# Not wrong answers but BFCL behaviour to pin down: (name, valid, error_type
# for simple/multiple categories, mutation).
QUIRKS = [
    # A "" given for an optional string equals the "" that marks it optional.
    ("empty_string_optional", True, None,
     set_param(lambda i: i["type"] == "string" and i["optional"] and typed(i, str),
               lambda r, v: "")),
    # Optional arrays skip the nested type check ("" is not a list, so it
    # "matches"), leaving the wrong item to list_checker.
    ("nested_wrong_type_optional", False, "value_error:list/tuple",
     set_param(lambda i: plain_list(i) and i["optional"], nested_wrong)),
    # Dict values are compared with Python's ==, where True == 1 and 2.0 == 2.
    ("dict_bool_for_int", True, None, None),
    ("dict_float_for_int", True, None, None),
    ("dict_int_for_bool", True, None, None),
    # ...and strings inside a list-valued dict entry are not standardised.
    ("dict_list_value_case", False, "value_error:dict_value", None),
    # A "" for an optional dict key is standardised like any string value.
    ("dict_empty_string_value", True, None, None),
    # A dict nested in a dict value is compared whole: key order and 50 vs
    # 50.0 do not matter.
    ("nested_dict_reordered", True, None, None),
]


def dict_value_quirk(name):
    """Edit one value inside a dict parameter, as the quirk `name` needs."""
    def wants(v, allowed):
        if name == "dict_bool_for_int":
            return type(v) is int and v in (0, 1)
        if name == "dict_float_for_int":
            return type(v) is int
        if name == "dict_int_for_bool":
            return type(v) is bool
        if name == "dict_list_value_case":
            return isinstance(v, list) and v and isinstance(v[0], str) and v[0] != v[0].upper()
        if name == "dict_empty_string_value":
            return "" in allowed and isinstance(v, str)
        if name == "nested_dict_reordered":
            return isinstance(v, dict) and len(v) > 1
        return False

    def change(v):
        if name == "dict_bool_for_int":
            return bool(v)
        if name == "dict_float_for_int":
            return float(v)
        if name == "dict_int_for_bool":
            return int(v)
        if name == "dict_list_value_case":
            return [v[0].upper()] + v[1:]
        if name == "dict_empty_string_value":
            return ""
        return {k: float(x) if type(x) is int else x for k, x in reversed(v.items())}

    def mutate(rng, call):
        for i in infos(call):
            if i["type"] != "dict" or not isinstance(i["value"], dict) or i["variable"]:
                continue
            spec = next((s for s in i["allowed"] if isinstance(s, dict)), {})
            for k, v in i["value"].items():
                if wants(v, spec.get(k, [])):
                    i["value"][k] = change(v)
                    return True
        return False
    return mutate


def whole_mutations(category):
    """Mutations of the whole output: (name, expected error_type, fn(rng, calls))."""
    kind = checker_kind(category)
    out = [
        ("empty", wrong_count(category), lambda rng, calls: []),
        ("extra_call", wrong_count(category),
         lambda rng, calls: decoded_of(calls) + [decoded_of(calls)[0]]),
    ]
    if kind == "parallel":
        out += [
            ("missing_call", wrong_count(category),
             lambda rng, calls: decoded_of(calls)[:-1] if len(calls) > 1 else None),
            # Right count, but one expected call is matched by nothing.
            ("duplicate_call", PARALLEL_MISMATCH,
             lambda rng, calls: decoded_of(calls)[:-1] + decoded_of(calls)[:1]
             if len(calls) > 1 else None),
        ]
    if "multiple" in category:
        out.append(("other_function",
                    PARALLEL_MISMATCH if kind == "parallel"
                    else "simple_function_checker:wrong_func_name", other_function))
    return out


def other_function(rng, calls):
    """Replace one call with a call to another function the entry offers."""
    k = rng.randrange(len(calls))
    docs = calls[k]["docs"]
    others = [n for n in docs if n != calls[k]["orig"]]
    if not others:
        return None
    doc = docs[rng.choice(others)]
    out = decoded_of(calls)
    out[k] = call_with_dummies(doc)
    return out


def malformed(calls):
    """Decoded outputs is_function_calling_format_output rejects."""
    name, args = calls[0]["name"], calls[0]["args"]
    return [
        ("malformed_two_keys", [{name: args, "other_function": {}}]),
        ("malformed_args_list", [{name: list(args.values())}]),
        ("malformed_args_string", [{name: json.dumps(args)}]),
        ("malformed_not_dict", [f"{name}()"]),
        ("malformed_empty_item", [{}]),
    ]


# ------------------------------------------------------------- generation


class Builder:
    """Lines for one category, each checked against BFCL before it is kept."""

    def __init__(self, category):
        self.category = category
        self.rng = random.Random(f"{SEED}:{category}")
        self.lines = []
        self.missed = []

    def accept(self, line, valid, error_type):
        # Judge and keep what the file will hold: a copy through JSON, so that
        # later edits of shared dicts cannot change a kept line.
        line = json.loads(json.dumps(line))
        got = bv.verdict(line)
        if got["valid"] is None or got["valid"] != valid:
            return False
        if error_type is not None and got["error_type"] != error_type:
            return False
        self.lines.append(line)
        return True

    def line(self, case_id, source, decoded):
        return {"id": case_id, "source": source, "decoded": decoded}


def load_cases(category):
    return [Case(category, e, a) for e, a in bv.load_category(category).values()]


def shuffled(rng, items):
    items = list(items)
    rng.shuffle(items)
    return items


def ast_lines(category):
    b = Builder(category)
    rng = b.rng
    cases = shuffled(rng, load_cases(category))
    parallel = checker_kind(category) == "parallel"

    def base(case):
        calls = case.calls(rng, vary=False)
        for c in calls:
            c["docs"] = case.docs
        return calls

    def finish(calls):
        decoded = decoded_of(calls)
        if parallel:
            rng.shuffle(decoded)  # the parallel checker ignores order
        return decoded

    # Right answers, varied in the ways BFCL's comparison ignores.
    for case in cases[:ANSWERS[category]]:
        if not any(b.accept(b.line(case.id, "answer", finish(case.calls(rng, vary))), True, None)
                   for vary in (True, False)):
            b.missed.append(f"answer for {case.id}")

    def try_each(source, valid, error_type, make):
        """Try make(case) over the cases (from a rotating start) until one is kept."""
        start = rng.randrange(len(cases))
        for case in cases[start:] + cases[:start]:
            decoded = make(case)
            if decoded is not None and b.accept(b.line(case.id, source, decoded), valid, error_type):
                return
        b.missed.append(source)

    def on_one_call(fn):
        def make(case):
            calls = base(case)
            for k in shuffled(rng, range(len(calls))):
                trial = copy.deepcopy(calls)
                if fn(rng, trial[k]):
                    return finish(trial)
            return None
        return make

    for name, error_type, fn in CALL_MUTATIONS:
        try_each(f"mutation:{name}", False,
                 PARALLEL_MISMATCH if parallel else error_type, on_one_call(fn))
    for name, error_type, fn in whole_mutations(category):
        try_each(f"mutation:{name}", False, error_type, lambda case: fn(rng, base(case)))
    for name, decoded in malformed(base(cases[0])):
        b.accept(b.line(cases[0].id, f"mutation:{name}", decoded),
                 False, "ast_decoder:decoder_wrong_output_format")
    b.accept({"id": cases[1].id, "source": "mutation:decode_error",
              "decode_error": rng.choice(DECODE_ERRORS)}, False, "ast_decoder:decoder_failed")

    for name, valid, error_type, fn in QUIRKS:
        fn = fn or dict_value_quirk(name)
        if parallel and not valid:
            error_type = PARALLEL_MISMATCH
        try_each(f"quirk:{name}", valid, error_type, on_one_call(fn))
    list_dict_optional(b, cases, parallel)
    undocumented_answer_params(b, cases, parallel)
    variables(b, cases, parallel)
    return b


def list_dict_optional(b, cases, parallel):
    """An optional list-of-dicts param (possible answers "" or []) given []:
    list_dict_checker compares lengths with len("") == 0, so [] passes and a
    non-empty list fails on its count."""
    for case in cases:
        calls = copy.deepcopy(case.calls(b.rng, vary=False))
        for c in calls:
            props = c["doc"]["parameters"]["properties"]
            for p, allowed in c["gt"].items():
                if (p in props and (props[p].get("items") or {}).get("type") == "dict"
                        and "" in allowed):
                    c["args"][p] = []
                    b.accept(b.line(case.id, "quirk:list_dict_optional_empty", decoded_of(calls)),
                             True, None)
                    c["args"][p] = [{"unexpected_key": "value"}]
                    b.accept(b.line(case.id, "quirk:list_dict_optional_nonempty",
                                    decoded_of(calls)), False,
                             PARALLEL_MISMATCH if parallel else "value_error:list_dict_count")
                    return


def undocumented_answer_params(b, cases, parallel):
    """A few possible answers name a parameter the function docs lack; giving
    it is an unexpected param, so when it is not optional no answer passes."""
    for case in cases:
        calls = case.calls(b.rng, vary=False)
        for c in calls:
            props = c["doc"]["parameters"]["properties"]
            extra = [p for p in c["gt"] if p not in props]
            if extra:
                c["args"][extra[0]] = next(a for a in c["gt"][extra[0]] if a != "")
                b.accept(b.line(case.id, "quirk:answer_param_undocumented", decoded_of(calls)),
                         False, PARALLEL_MISMATCH if parallel
                         else "simple_function_checker:unexpected_param")
                break


def variables(b, cases, parallel):
    """Possible answers of another type than the parameter's (True for a
    string, "dontcare" for an integer, None for a string, a Python expression
    for an array): BFCL takes them as variable names and compares the value
    exactly, without standardising or type-checking it."""
    seen = collections.Counter()
    done = set()
    for case in cases:
        calls = case.calls(b.rng, vary=False)
        for k, c in enumerate(calls):
            props = c["doc"]["parameters"]["properties"]
            for p, allowed in c["gt"].items():
                if p not in props or p not in c["args"]:
                    continue
                ptype, value = props[p]["type"], c["args"][p]
                if not is_variable(allowed, ptype) or (ptype == "float" and type(value) is int):
                    continue
                kind = (ptype, type(value).__name__)
                if seen[kind] >= 2 or case.id in done:  # a few per kind are plenty
                    continue
                done.add(case.id)
                seen[kind] += 1
                bad = PARALLEL_MISMATCH if parallel else "value_error:others"
                label = "null" if value is None else "literal"
                b.accept(b.line(case.id, f"variable:{label}", decoded_of(calls)), True, None)
                # The declared type's spelling of the same value is not the variable.
                as_declared = {"string": str(value), "any": str(value), "integer": 0,
                               "float": 0.0, "boolean": bool(value),
                               "array": [value], "tuple": [value], "dict": {}}[ptype]
                trial = copy.deepcopy(calls)
                trial[k]["args"][p] = as_declared
                b.accept(b.line(case.id, "variable:declared_type", decoded_of(trial)), False, bad)
                if isinstance(value, str) and value != value.upper():
                    trial[k]["args"][p] = value.upper()
                    b.accept(b.line(case.id, "variable:case_changed", decoded_of(trial)),
                             False, bad)


def relevance_lines(category):
    """Output shapes for the (ir)relevance categories, whose only question is
    whether the output holds a function call."""
    b = Builder(category)
    rng = b.rng
    entries = shuffled(rng, [e for e, _ in bv.load_category(category).values()])
    calls_expected = category == "live_relevance"
    pool = itertools.cycle(entries)  # live_relevance has fewer entries than lines
    call = call_with_dummies

    def add(source, is_call, decoded=None, decode_error=None):
        e = next(pool)
        decoded = decoded(e) if callable(decoded) else decoded
        line = {"id": e["id"], "source": source}
        if decode_error is None:
            line["decoded"] = decoded
        else:
            line["decode_error"] = decode_error
        b.accept(line, is_call == calls_expected, None)

    for _ in range(8):
        add("relevance:call", True, lambda e: [call(rng.choice(e["function"]))])
    for _ in range(2):
        add("relevance:call_no_args", True, lambda e: [call(rng.choice(e["function"]), False)])
    add("relevance:call_unknown_function", True, [{"unknown_function": {"query": "weather"}}])
    add("relevance:two_calls", True,
        lambda e: [call(rng.choice(e["function"])), call(rng.choice(e["function"]))])
    for _ in range(3):
        add("relevance:empty", False, [])
    for k in range(3):
        add("relevance:decode_error", False, decode_error=DECODE_ERRORS[k])
    for name, decoded in malformed([{"name": "get_weather", "args": {"city": "Paris"}}]):
        add(f"relevance:{name}", False, decoded)
    return b


def model_lines(name, path, per_model):
    """Up to per_model cases of one eval report, spread over the categories
    round-robin and, within one, alternating BFCL passes and failures."""
    rng = random.Random(f"{SEED}:model:{name}")
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    pools = {c: [[], []] for c in CATEGORIES}
    skipped = collections.Counter()
    for case in report["cases"]:
        category = case.get("category") or extract_test_category_from_id(case["id"])
        if category not in pools:
            skipped["category not cross-checked"] += 1
            continue
        if case.get("engine_error") is not None:
            # No output to judge: the engine failed (a prompt over the
            # model's context, say), which the eval counts wrong by itself.
            skipped["engine error"] += 1
            continue
        line = {"id": case["id"], "source": f"model:{name}"}
        if case.get("decoded") is not None:
            line["decoded"] = case["decoded"]
        else:
            line["decode_error"] = case["decode_error"]
        valid = bv.verdict(line)["valid"]
        if valid is None:
            skipped["BFCL raised"] += 1
            continue
        pools[category][valid].append(line)
    queues = []
    for category in CATEGORIES:
        fails, passes = (shuffled(rng, p) for p in pools[category])
        mixed = [x for pair in zip(passes, fails) for x in pair]
        rest = passes[len(fails):] + fails[len(passes):]
        queues.append(collections.deque(mixed + rest))
    out = []
    while len(out) < per_model and any(queues):
        for q in queues:
            if q and len(out) < per_model:
                out.append(q.popleft())
    for why, count in sorted(skipped.items()):
        print(f"model {name}: skipped {count} cases ({why})", file=sys.stderr)
    return out


def summary(lines):
    """Counts of what the set holds, by BFCL's verdicts, to stderr."""
    verdicts = [bv.verdict(line) for line in lines]
    tables = {
        "category": collections.Counter(extract_test_category_from_id(v["id"]) for v in verdicts),
        "source kind": collections.Counter(v["source"].split(":")[0] for v in verdicts),
        "verdict": collections.Counter(str(v["valid"]) for v in verdicts),
        "error_type": collections.Counter(str(v["error_type"]) for v in verdicts),
    }
    for title, counts in tables.items():
        print(f"-- by {title}", file=sys.stderr)
        for key, count in sorted(counts.items()):
            print(f"{count:5d}  {key}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=OUT, help="default: tests/bfcl/outputs.jsonl")
    ap.add_argument("--add-model", nargs=2, action="append", default=[],
                    metavar=("NAME", "REPORT.json"),
                    help="add cases from one of our eval's JSON reports (repeatable)")
    ap.add_argument("--per-model", type=int, default=40,
                    help="cases taken from each report (default 40)")
    args = ap.parse_args()

    lines = []
    for category in AST_CATEGORIES + RELEVANCE_CATEGORIES:
        b = ast_lines(category) if category in AST_CATEGORIES else relevance_lines(category)
        lines += b.lines
        if b.missed:
            print(f"{category}: no entry fits {', '.join(b.missed)}", file=sys.stderr)
    for name, path in args.add_model:
        lines += model_lines(name, path, args.per_model)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {len(lines)} lines to {args.out}", file=sys.stderr)
    summary(lines)


if __name__ == "__main__":
    main()
