#!/usr/bin/env python3
"""A Markdown table of `tool-use eval bfcl --json` reports, side by side:
one column per report, one row per category (right/total and the time its
cases took), then BFCL's group means and the run's wall time.

Usage: python3 scripts/bfcl_table.py "TITLE=REPORT.json" ...
"""

import json
import sys

CATEGORIES = [
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "irrelevance",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
    "live_irrelevance", "live_relevance",
]
GROUPS = ["non_live_ast", "live_ast", "irrelevance_mean", "relevance_mean"]


def main(args):
    columns = []
    for arg in args:
        title, path = arg.split("=", 1)
        with open(path, encoding="utf-8") as f:
            columns.append((title, json.load(f)))
    print("| category | " + " | ".join(t for t, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for category in CATEGORIES:
        cells = []
        for _, report in columns:
            score = next((s for s in report["summary"]["categories"] if s["category"] == category), None)
            if score is None:
                cells.append("–")
                continue
            errors = f", {score['errors']} err" if score["errors"] else ""
            cells.append(f"{score['right']}/{score['total']} ({score['seconds']:.0f} s{errors})")
        print(f"| {category} | " + " | ".join(cells) + " |")
    for group in GROUPS:
        cells = []
        for _, report in columns:
            g = next((g for g in report["summary"]["groups"] if g["group"] == group), None)
            cells.append("–" if g is None else f"**{100 * g['accuracy']:.1f}%**")
        print(f"| {group} | " + " | ".join(cells) + " |")
    print("| wall time | " + " | ".join(f"{r['wall_s']:.0f} s" for _, r in columns) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
