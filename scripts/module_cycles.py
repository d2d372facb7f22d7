#!/usr/bin/env python3
"""Import circles between modules of the workspace's library crates.

Each source file is a module (`a/b.rs` and `a/b/mod.rs` are `a::b`). A file
depends on another when it names it in a path: `use crate::a::b::X`,
`super::b::f()`, `self::c::Y`, grouped `use` trees included. Edges between a
module and its own ancestors are left out: a parent declares and re-exports
its children, and children use what the parent defines, by design. What is
left is what the issue calls a circle: siblings (or cousins) that each use
the other, as `template/python.rs` and `template/env.rs` did through
`PyRange`. An item a parent re-exports from a sibling is counted as the
parent's, so a circle through a re-export is not seen.

Prints each circle (a strongly connected component of two or more files)
and exits 1 if there is one; `--graph` prints every edge too.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["src", "tool-macros/src", "tool-runtime/src", "tool-models/src",
          "tool-mcp/src", "tool-train/src", "models/tool-use-mini/src"]

PATH = re.compile(r"\b(crate|super|self)((?:::\w+)+)")
USE = re.compile(r"\buse\s+([^;]+);", re.S)


def modules(src: Path):
    """Module path (tuple) -> file, for one crate's source folder."""
    out = {}
    for f in src.rglob("*.rs"):
        rel = f.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        if "bin" in parts[:1]:
            continue
        out[tuple(parts)] = f
    return out


def expand(tree: str):
    """The paths of a `use` tree: `a::{b, c::{d, e}}` -> a::b, a::c::d, a::c::e."""
    tree = re.sub(r"\s+", "", tree)
    depth, start = 0, None
    for i, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                prefix, inner, rest = tree[:start], tree[start + 1:i], tree[i + 1:]
                items, d, cur = [], 0, ""
                for c in inner:
                    if c == "," and d == 0:
                        items.append(cur)
                        cur = ""
                        continue
                    d += c == "{"
                    d -= c == "}"
                    cur += c
                items.append(cur)
                out = []
                for item in filter(None, items):
                    out += expand(prefix + item + rest)
                return out
    return [tree.split(" as ")[0]]


def strip_comments(text: str) -> str:
    """The file's code without comments and without its inline test module
    (where `super` means the file itself, not its parent)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.split(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)[0]
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def resolve(here: tuple, path: str, mods: dict):
    """The module a path like `super::b::X` names, or None."""
    segs = path.split("::")
    if segs[0] == "crate":
        base, rest = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base = here
        rest = segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        return None
    best = base if base in mods else None
    cur = base
    for s in rest:
        cur = cur + (s,)
        if cur in mods:
            best = cur
        else:
            break
    return best


def main():
    show = "--graph" in sys.argv
    circles = []
    for crate in CRATES:
        src = ROOT / crate
        if not src.is_dir():
            continue
        mods = modules(src)
        edges = {m: set() for m in mods}
        for m, f in mods.items():
            text = strip_comments(f.read_text())
            paths = []
            for u in USE.finditer(text):
                paths += expand(u.group(1))
            paths += [m2.group(0) for m2 in PATH.finditer(text)]
            # `use` trees relative to the file (`use hermes::X` in mod.rs).
            for p in paths:
                target = resolve(m, p, mods)
                if target is None or target == m:
                    continue
                if target == m[: len(target)] or m == target[: len(m)]:
                    continue  # an ancestor or a descendant
                edges[m].add(target)
        if show:
            for m in sorted(edges):
                for t in sorted(edges[m]):
                    print(f"{crate}: {'::'.join(m) or 'lib'} -> {'::'.join(t) or 'lib'}")
        circles += [(crate, c) for c in sccs(edges) if len(c) > 1]
    for crate, c in circles:
        print(f"circle in {crate}: " + " <-> ".join(sorted("::".join(m) for m in c)))
    if circles:
        sys.exit(1)
    print(f"no import circles between modules ({', '.join(CRATES)})")


def sccs(edges):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    main()
