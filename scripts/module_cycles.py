#!/usr/bin/env python3
"""Import circles between modules of the workspace's library crates.

Each source file is a module (`a/b.rs` and `a/b/mod.rs` are `a::b`), and a
module declared inline (`mod grammar { ... }`) belongs to its file: its
imports are the file's, and `super`/`self` inside it are resolved from
where it sits. A file depends on another when it names it in a path:
`use crate::a::b::X`, `super::b::f()`, `self::c::Y`, a path relative to the
module (`use registry::FAMILIES` in `parse/mod.rs`), grouped `use` trees
included. A name a module re-exports (`pub use b::X`) is followed to the
module that defines it, so a circle through a re-export is seen.

A child using what its ancestors define is by design (a parent declares its
children and holds what they share), so edges up to an ancestor are left
out. An ancestor using a descendant is kept (apart from its re-exports):
`parse` calling its registry, which lists the families, is an edge, so
`constrain::syntax -> parse -> parse::registry -> parse::hermes ->
constrain::syntax` is a circle. A circle is a strongly connected component
of two or more files.

tool-models is also layered (`LAYERS`, lowest first): a module may use
its own layer and those below, never one above; each import upward is
printed.

Prints each circle and each upward import, and exits 1 if there is one;
`--graph` prints every edge.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["src", "tool-macros/src", "tool-runtime/src", "tool-models/src",
          "tool-mcp/src", "tool-train/src", "models/tool-use-mini/src"]

# tool-models' layers, lowest first: a top-level module's place. The floor
# holds leaves any layer may use.
LAYERS = {
    "tool-models/src": [
        ["lib", "setters", "schema_types", "stats", "gguf"],
        ["template"],
        ["hub"],
        ["model"],
        ["generate"],
        ["constrain"],
        ["parse"],
        ["chat"],
        ["agent", "local"],
        ["wire", "eval"],
        ["remote", "server"],
    ],
}

PATH = re.compile(r"\b(crate|super|self)((?:::\w+)+)")
USE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
INLINE_MOD = re.compile(r"\bmod\s+(\w+)\s*\{")
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*mod\s+\w+\s*\{")


def files(src: Path):
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
    return [re.split(r"\bas\b", tree)[0]]


def strip(text: str) -> str:
    """The code without comments, string literals and test modules (where
    `super` is the file itself and imports are the tests' own)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = "\n".join(line.split("//")[0] for line in text.splitlines())
    text = re.sub(r'r#*"(?:[^"\\]|\\.)*"#*|"(?:[^"\\]|\\.)*"', '""', text, flags=re.S)
    while True:
        m = TEST_MOD.search(text)
        if not m:
            return text
        end = close_of(text, m.end() - 1)
        text = text[: m.start()] + text[end + 1:]


def close_of(text: str, open_at: int) -> int:
    """The index of the brace closing the one at `open_at`."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(text) - 1


def scopes(here: tuple, text: str):
    """(module path, code) for the file's own code and each inline module,
    the inline ones cut out of their parent's code."""
    out, own, pos = [], [], 0
    while True:
        m = INLINE_MOD.search(text, pos)
        if not m:
            own.append(text[pos:])
            break
        own.append(text[pos: m.start()])
        end = close_of(text, m.end() - 1)
        out += scopes(here + (m.group(1),), text[m.end(): end])
        pos = end + 1
    return [(here, "".join(own))] + out


class Crate:
    def __init__(self, src: Path):
        self.files = files(src)
        self.owner = {}  # module path (inline ones too) -> file's module path
        self.code = {}  # file's module path -> [(scope path, code)]
        self.reexports = {}  # module path -> {name: path tuple of its source}
        for m, f in self.files.items():
            self.code[m] = scopes(m, strip(f.read_text()))
            for scope, code in self.code[m]:
                self.owner[scope] = m
        for m, parts in self.code.items():
            for scope, code in parts:
                for u in USE.finditer(code):
                    if not u.group(1):
                        continue
                    for p in expand(u.group(2)):
                        segs = p.split("::")
                        name = segs[-1]
                        if name in ("*", "self"):
                            continue
                        full = self.absolute(scope, segs)
                        if full:
                            self.reexports.setdefault(scope, {})[name] = full

    def absolute(self, here: tuple, segs: list):
        """The path as segments from the crate root, or None (an outside crate)."""
        if segs[0] == "crate":
            return tuple(segs[1:])
        if segs[0] in ("super", "self"):
            base = here
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
            return base + tuple(segs)
        if here + (segs[0],) in self.owner:
            return here + tuple(segs)
        return None

    def resolve(self, full: tuple, hops: int = 0):
        """The file whose item the absolute path names."""
        best, cur = (), ()
        for i, s in enumerate(full):
            nxt = cur + (s,)
            if nxt in self.owner:
                cur = best = nxt
                continue
            again = self.reexports.get(cur, {}).get(s)
            if again and hops < 8 and again != full:
                return self.resolve(again + full[i + 1:], hops + 1)
            break
        return self.owner.get(best, ())

    def edges(self):
        out = {m: set() for m in self.files}
        for m, parts in self.code.items():
            for scope, code in parts:
                paths = []
                for u in USE.finditer(code):
                    if u.group(1):
                        continue  # a re-export is followed where it is named
                    paths += expand(u.group(2))
                code = USE.sub(lambda u: "" if u.group(1) else u.group(0), code)
                paths += [p.group(0) for p in PATH.finditer(code)]
                for p in paths:
                    full = self.absolute(scope, p.split("::"))
                    if full is None:
                        continue
                    target = self.resolve(full)
                    if target == m or target not in self.files:
                        continue
                    if m[: len(target)] == target:
                        continue  # up to an ancestor
                    out[m].add(target)
        return out


def main():
    show = "--graph" in sys.argv
    circles, upward = [], []
    for crate in CRATES:
        src = ROOT / crate
        if not src.is_dir():
            continue
        edges = Crate(src).edges()
        if show:
            for m in sorted(edges):
                for t in sorted(edges[m]):
                    print(f"{crate}: {'::'.join(m) or 'lib'} -> {'::'.join(t) or 'lib'}")
        circles += [(crate, c) for c in sccs(edges) if len(c) > 1]
        upward += upward_imports(crate, edges)
    for crate, m, t in upward:
        print(f"upward import in {crate}: {m} -> {t}")
    for crate, c in circles:
        print(f"circle in {crate} ({len(c)} files): "
              + " <-> ".join(sorted("::".join(m) or "lib" for m in c)))
    if circles or upward:
        sys.exit(1)
    print(f"no import circles between modules ({', '.join(CRATES)}), "
          f"no upward imports between layers ({', '.join(LAYERS)})")


def upward_imports(crate, edges):
    """(crate, from, to) for each edge from a layer to one above it."""
    layers = LAYERS.get(crate)
    if not layers:
        return []
    rank = {name: i for i, names in enumerate(layers) for name in names}

    def layer(m):
        top = m[0] if m else "lib"
        if top not in rank:
            sys.exit(f"{crate}: module `{top}` has no place in LAYERS")
        return rank[top]

    return [(crate, "::".join(m) or "lib", "::".join(t) or "lib")
            for m in sorted(edges) for t in sorted(edges[m])
            if layer(t) > layer(m)]
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
