#!/usr/bin/env python3
"""Write tests/bfcl/outputs_java_js.jsonl: Java and JavaScript outputs that
BFCL's checker judges, for cross-checking our converters and checker.

Usage: python scripts/bfcl_outputs_java_js.py [--out PATH]

In BFCL's simple_java and simple_javascript categories every parameter is
shown to the model as a string "in Java 8 SDK / JavaScript syntax", and
BFCL's checker converts what the model writes back into values
(java_type_converter, js_type_converter) before comparing them with the
possible answers. Each line here is {"id", "source", "decoded": [...]} as in
tests/bfcl/outputs.jsonl, with `source`:

  answer              the possible answer written in the language's syntax
  answer:<form>       the same in another of the syntaxes BFCL reads
                      (ArrayList's double-brace adds, `new Array(...)`, quotes)
  mutation:<what>     a deliberately wrong answer aimed at one check: a value
                      that is not a string, a string outside the type's syntax,
                      another value, a missing or unexpected parameter, a
                      wrong name
  quirk:<what>        BFCL behaviour a careful reimplementation could miss

Every line is judged here with verdicts.verdict, and lines on which BFCL's
code raises are left out. Deterministic: one RNG per category, seeded from
SEED and the category's name. Needs the same Python as verdicts.py.
"""

import argparse
import copy
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "bfcl"))
import verdicts as bv  # noqa: E402  (also stubs BFCL's model registry)

SEED = 20261129
OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "tests", "bfcl", "outputs_java_js.jsonl",
)
CATEGORIES = ["simple_java", "simple_javascript"]


def tool_name(name):
    return name.replace(".", "_")


def first(allowed):
    """The first possible value that is not "" (the optional marker)."""
    for a in allowed:
        if a != "":
            return a
    return None


# ------------------------------------------------------------------ Java


def java_scalar(value, jtype):
    """A Python value in Java syntax for a declared type."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if jtype == "long" and isinstance(value, int):
        return f"{value}L"
    if jtype == "float" and isinstance(value, (int, float)):
        return f"{float(value)}f"
    if jtype == "double" and isinstance(value, (int, float)):
        return str(float(value))
    if isinstance(value, str):
        return f'"{value}"' if jtype in ("String", None) else value
    return str(value)


def java_loose(value):
    """A value of no declared type (a HashMap's), as parse_java_value reads it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def java_value(value, prop, rng, form):
    jtype = prop["type"]
    nested = (prop.get("items") or {}).get("type")
    if jtype in ("Array", "ArrayList") and isinstance(value, list):
        if jtype == "Array":
            inner = ", ".join(java_scalar(v, nested) for v in value)
            element = {"String": "String", "integer": "int", "long": "long", "char": "char"}.get(nested, "Object")
            return f"new {element}[]{{{inner}}}"
        items = [f"'{v}'" if nested == "char" else java_scalar(v, nested) for v in value]
        if not items:
            return "new ArrayList<>()"
        if form == "adds":
            return "new ArrayList<>() {{ " + " ".join(f"add({i});" for i in items) + " }}"
        return f"new ArrayList<>(Arrays.asList({', '.join(items)}))"
    if jtype == "HashMap" and isinstance(value, dict):
        puts = " ".join(f'put("{k}", {java_loose(first(v) if isinstance(v, list) else v)});'
                        for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}" if puts else "new HashMap<>()"
    if jtype in ("String", "any", "char"):
        return value if isinstance(value, str) else java_loose(value)
    return java_scalar(value, jtype)


# ------------------------------------------------------------ JavaScript


def js_loose(value, quote):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"{quote}{value}{quote}"
    if isinstance(value, list):
        return "[" + ", ".join(js_loose(v, quote) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {js_loose(v, quote)}" for k, v in value.items()) + "}"
    return str(value)


def js_value(value, prop, rng, form):
    jtype = prop["type"]
    quote = "'" if form == "single_quotes" else '"'
    if jtype == "array" and isinstance(value, list):
        inner = ", ".join(js_loose(v, quote) for v in value)
        return f"new Array({inner})" if form == "new_array" else f"[{inner}]"
    if jtype == "dict" and isinstance(value, dict):
        plain = {k: (first(v) if isinstance(v, list) else v) for k, v in value.items()}
        return js_loose(plain, quote)
    if jtype == "Bigint" and isinstance(value, int) and not isinstance(value, bool):
        return f"{value}n"
    if jtype == "String" and isinstance(value, str) and form == "quoted":
        return f"{quote}{value}{quote}"
    if isinstance(value, str):
        return value
    return js_loose(value, quote)


# ------------------------------------------------------------------ cases


def answer_args(entry, answer, category, rng, form, drop_optional):
    (name, params), = answer["ground_truth"][0].items()
    doc = next(f for f in entry["function"] if f["name"] == name)
    props = doc["parameters"]["properties"]
    write = java_value if category == "simple_java" else js_value
    args = {}
    for p, allowed in params.items():
        if p not in props:
            continue
        value = first(allowed)
        if value is None or ("" in allowed and drop_optional):
            continue
        args[p] = write(copy.deepcopy(value), props[p], rng, form)
    return tool_name(name), doc, args


def mutations(category, name, doc, args, rng):
    """(source, decoded) pairs, each wrong in one way."""
    props = doc["parameters"]["properties"]
    out = []
    typed = [p for p in args if props[p]["type"] not in ("String", "any", "char")]
    if args:
        p = rng.choice(list(args))
        raw = {"boolean": True, "Boolean": True, "integer": 7, "long": 7, "float": 1.5,
               "double": 1.5, "Array": ["a"], "ArrayList": ["a"], "array": ["a"],
               "HashMap": {"a": 1}, "dict": {"a": 1}}.get(props[p]["type"], 7)
        out.append(("mutation:not_a_string", {name: {**args, p: raw}}))
        out.append(("mutation:wrong_value", {name: {**args, p: args[p] + "x"}}))
        required = [q for q in doc["parameters"].get("required", []) if q in args]
        if required:
            q = rng.choice(required)
            out.append(("mutation:missing_required", {name: {k: v for k, v in args.items() if k != q}}))
    if typed:
        p = rng.choice(typed)
        bad = {"long": "12", "float": "1.5", "integer": "1.0", "boolean": "yes", "Boolean": "True",
               "double": "1.5f", "Array": "[1, 2]", "ArrayList": "[1, 2]", "HashMap": "{a: 1}",
               "array": "1, 2", "dict": "a=1", "Bigint": "12"}.get(props[p]["type"], "?")
        out.append(("mutation:bad_syntax", {name: {**args, p: bad}}))
    out.append(("mutation:unexpected_param", {name: {**args, "unexpected_arg": "value"}}))
    out.append(("mutation:wrong_name", {name + "_v2": args}))
    return out


def lines_for(category):
    rng = random.Random(f"{SEED}:{category}")
    entries = bv.load_category(category)
    forms = {"simple_java": ["adds"], "simple_javascript": ["single_quotes", "new_array", "quoted"]}[category]
    for case_id, (entry, answer) in entries.items():
        name, doc, args = answer_args(entry, answer, category, rng, None, False)
        yield {"id": case_id, "source": "answer", "decoded": [{name: args}]}
        form = rng.choice(forms)
        _, _, alt = answer_args(entry, answer, category, rng, form, rng.random() < 0.5)
        if alt != args:
            yield {"id": case_id, "source": f"answer:{form}", "decoded": [{name: alt}]}
        for source, call in mutations(category, name, doc, args, rng):
            if rng.random() < 0.35:
                yield {"id": case_id, "source": source, "decoded": [call]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=OUT)
    out = parser.parse_args().out
    kept, raised, tally = [], 0, {}
    for category in CATEGORIES:
        for line in lines_for(category):
            verdict = bv.verdict(line)
            if verdict["valid"] is None:
                raised += 1
                continue
            kept.append(line)
            key = (category, line["source"].split(":")[0], verdict["valid"])
            tally[key] = tally.get(key, 0) + 1
    with open(out, "w", encoding="utf-8") as f:
        for line in kept:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    for key in sorted(tally, key=str):
        print(*key, tally[key], file=sys.stderr)
    print(f"{len(kept)} lines, {raised} left out (BFCL raised)", file=sys.stderr)


if __name__ == "__main__":
    main()
