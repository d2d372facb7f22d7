#!/usr/bin/env python3
"""Render small Jinja snippets with transformers' own template compiler.

Writes tool-models/tests/data/jinja2_parity.jsonl: one line per case with
the snippet, its variables and what transformers 5.23 printed (or the
exception it raised). tool-models/tests/template_jinja2.rs renders each with
our engine and requires the same text (or an error where Python raised).

    python3 -m venv /tmp/tpl-venv && /tmp/tpl-venv/bin/pip install transformers==5.23.0 jinja2
    /tmp/tpl-venv/bin/python scripts/jinja2_parity.py
"""

import json
from pathlib import Path

from transformers.utils import chat_template_utils as ctu

OUT = Path(__file__).resolve().parent.parent / "tool-models" / "tests" / "data" / "jinja2_parity.jsonl"

X = {"a": "<b>", "flag": True, "n": None, "f": 1.0, "l": [True, None], "q": "it's \"q\" & <x>"}

CASES = [
    # Markup: `|safe` / `|e` strings escape the plain side of `+` (not of `~`).
    ('{{ ("<a>"|safe) + \'"x"\' }}', "markup + str escapes the str"),
    ('{{ \'"x"\' + ("<a>"|safe) }}', "str + markup escapes the str"),
    ('{% set s = "a"|safe %}{{ s + {"k": "v"}|tojson }}', "markup + tojson (a plain str in transformers)"),
    ('{{ ("<a>"|safe) ~ \'"x"\' }}', "~ never escapes"),
    ('{{ ("<"|safe ~ "<") + "<" }}', "~ makes a plain str"),
    ('{{ "<"|e + "<" }}', "|e is markup"),
    ('{{ x.q|e }}', "markupsafe's entities"),
    ('{{ x.q|forceescape }}', "forceescape"),
    ('{{ (x.q|e) + x.q }}', "escaped + escaped"),
    ('{{ ("<a>"|safe) + 1 }}', "markup + int is a TypeError"),
    ('{{ ("<a>"|safe).upper() + "<" }}', "markup methods return markup"),
    ('{{ ("<a>"|safe).replace("a", "<") }}', "markup.replace escapes its arguments"),
    ('{{ ("<a>"|safe)|replace("a", "<") + "<" }}', "|replace makes a plain str"),
    ('{{ ("<a>"|safe)|trim + "<" }}', "|trim keeps markup"),
    ('{{ ["<"|safe, "<"] | join("") + "<" }}', "|join makes a plain str"),
    ('{{ ("%s"|safe) % "<" }}', "markup % escapes the argument"),
    ('{{ ("<a>"|safe).split("a")[0] + "<" }}', "markup.split gives markup"),
    ('{{ "a" + "b\\"" }}', "plain + plain"),
    ('{{ (x|tojson) + "<" }}', "tojson is a plain str"),
    ('{{ [1] + [2, 3] }}', "list + list"),
    ('{{ 1 + 2.5 }}', "int + float"),
    # Filters on None and undefined.
    ('{{ none | selectattr("x") | list }}', ""),
    ('{{ none | rejectattr("x") | list }}', ""),
    ('{{ none | select | list }}', ""),
    ('{{ none | reject | list }}', ""),
    ('{{ none | map(attribute="x") | list }}', ""),
    ('{{ none | list }}', ""),
    ('{{ none | length }}', ""),
    ('{{ none | join(",") }}', ""),
    ('{{ none | sort }}', ""),
    ('{{ none | unique | list }}', ""),
    ('{{ none | reverse | list }}', ""),
    ('{{ none | sum }}', ""),
    ('{{ none | min }}', ""),
    ('{{ none | max }}', ""),
    ('{{ none | batch(2) | list }}', ""),
    ('{{ none | first }}', ""),
    ('{{ x.n | list }}', "a None from the input"),
    ('{{ x.n | join(",") }}', ""),
    ('{{ x.n | selectattr("a") | list }}', ""),
    ('{{ undefined_var | selectattr("x") | list }}', ""),
    ('{{ undefined_var | list }}', ""),
    ('{{ undefined_var | length }}', ""),
    ('{{ undefined_var | count }}', ""),
    ('{{ undefined_var | join(",") }}', ""),
    ('{{ undefined_var | first }}', ""),
    ('{{ undefined_var | last }}', ""),
    ('{{ undefined_var | reverse | list }}', ""),
    ('{{ undefined_var | sort }}', ""),
    ('{{ undefined_var | items | list }}', ""),
    ('{{ x.missing | length }}', ""),
    ('{{ x.missing | map("upper") | list }}', ""),
    # Python printing.
    ('{{ "a" ~ true ~ none ~ 1.0 }}', ""),
    ('{{ "a" ~ x.flag ~ x.n ~ x.f }}', ""),
    ('{{ [true, none, 1.0, "x"] | join(",") }}', ""),
    ('{{ x.l | join(",") }}', ""),
    ('{{ x.l ~ "" }}', ""),
    ('{{ x ~ "" }}', ""),
    ('{{ [true, none] | string }}', ""),
    ('{{ {"a": true} }}', ""),
    ('{{ x.items() | list }}', "items are tuples"),
    ('{{ (x.items() | list)[0] }}', ""),
    ('{{ x | dictsort }}', "dictsort gives tuples"),
    ('{{ "a=b=c".rpartition("=") }}', "a tuple"),
    ('{{ range(3) }}', "range repr"),
    ('{{ range(0, 10, 3) }}', ""),
    ('{{ range(3) | list }}', ""),
    ('{{ "%s-%s" | format(x.flag, x.n) }}', ""),
    ('{{ "{}-{}".format(x.flag, x.n) }}', ""),
    # printf-style `%`.
    ('{{ "%d items" % 3 }}', ""),
    ('{{ "%s and %s" % ("a", "b") }}', ""),
    ('{{ "%.2f" % 3.14159 }}', ""),
    ('{{ "%05d" % 42 }}', ""),
    ('{{ "%s" % x.n }}', "None prints as None"),
    ('{{ "%s" % [1, "a"] }}', "a list is one argument"),
    ('{{ "%(k)s!" % {"k": "v"} }}', "mapping keys"),
    ('{{ -7 % 3 }}', "floored modulo"),
    ('{{ 7.5 % -2 }}', ""),
    ('{{ 7 % 0 }}', ""),
    ('{% if loop_var is undefined and 10 % 4 == 2 %}yes{% endif %}', "% inside a statement"),
    # Python string methods.
    ('{{ "ab".center(6, "*") }}', ""),
    ('{{ "abc".center(6, "*") }}', ""),
    ('{{ "ab".ljust(4, ".") ~ "|" ~ "ab".rjust(4) }}', ""),
    ('{{ "AbC".swapcase() }}', ""),
    ('{{ "-42".zfill(6) }}', ""),
    ('{{ "tool_x".removeprefix("tool_") }}', ""),
    ('{{ " a  b c ".rsplit(none, 1) }}', ""),
    ('{{ "a,b,c".rsplit(",", 1) }}', ""),
    ('{{ "a=b".partition("=") }}', ""),
    ('{{ "abc".index("c") }}', ""),
    ('{{ "abc".index("z") }}', ""),
    # Filters and tests minijinja lacks or spells differently.
    ('{{ "abc" | center(7) }}', ""),
    ('{{ "hello world" | wordcount }}', ""),
    ('{{ x.a is sequence }}', "a string is a sequence"),
    ('{{ x is sequence }}', "a dict is a sequence"),
    ('{{ 1 is sequence }}', ""),
    ('{{ none is iterable }}|{{ undefined_var is iterable }}|{{ "a" is iterable }}|{{ x is iterable }}', ""),
    ('{{ x.n is iterable }}|{{ tools is iterable }}', ""),
    ('{{ "x" | int }}', "int falls back to 0"),
    ('{{ "x" | int(7) }}', ""),
    ('{{ "3.7" | int }}', ""),
    ('{{ "0x1A" | int(0, 16) }}', ""),
    # Inputs as render_jinja_template passes them.
    ('{% for m in messages %}[{{ m.content }}|{{ m.content is none }}|{{ m.content is defined }}]{% endfor %}',
     "a null stays None", {"messages": [{"role": "assistant", "content": None, "tool_calls": []}]}),
    ('{% for m in messages %}{{ "x" in m.content }}{% endfor %}', "None is not a container",
     {"messages": [{"role": "assistant", "content": None}]}),
    ('{% for m in messages %}{{ m.content|tojson }}{% endfor %}', "",
     {"messages": [{"role": "assistant", "content": None}]}),
    ('{% for m in messages %}{{ m|tojson }}|{{ m.thinking }}\n{% endfor %}', "reasoning under both names",
     {"messages": [{"role": "assistant", "content": "a", "reasoning": "r1"},
                   {"role": "assistant", "reasoning_content": "r2", "content": "b", "thinking": "t"},
                   {"role": "assistant", "content": "c", "reasoning_content": None, "thinking": "t2"},
                   {"role": "user", "content": "d", "thinking": None}]}),
    ('{{ tools | selectattr("type", "equalto", "function") | list }}', "no tools: select yields nothing"),
    ('{{ tools | map(attribute="function") | list }}', ""),
    ('{{ tools | rejectattr("type") | list }}', ""),
    ('{{ tools == none }}|{{ tools != none }}|{{ none == tools }}|{{ documents == None }}', "no tools equal None"),
    ('{{ tools | length }}', "None has no length"),
    ('{% for t in tools %}{% endfor %}', "None is not iterable"),
    ('{{ tools == none }}', "given tools", {"tools": [{"type": "function"}]}),
    ('{% if x.n == none and not (x.f == none) %}ok{% endif %}', ""),
]


def render(source, variables):
    variables = dict(variables)
    messages = variables.pop("messages")
    try:
        rendered, _ = ctu.render_jinja_template(conversations=[messages], chat_template=source, **variables)
        return {"output": rendered[0]}
    except Exception as e:  # noqa: BLE001 - every exception is a refusal
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    with open(OUT, "w", encoding="utf-8") as f:
        for source, why, *given in CASES:
            variables = {"x": X, "messages": []}
            variables.update(given[0] if given else {})
            case = {"template": source, "vars": variables, "why": why}
            case.update(render(source, variables))
            f.write(json.dumps(case, ensure_ascii=False) + "\n")
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
