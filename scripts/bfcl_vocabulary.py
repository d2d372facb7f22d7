#!/usr/bin/env python3
"""How a tokenizer reads BFCL's prompts, and how much a larger vocabulary
drawn from the training corpus could make whole.

The bundled tokenizer spells every word it does not keep whole letter by
letter (so that the model can copy names and free text). This measures,
on the first LIMIT cases of BFCL categories (questions and function
definitions as JSON):

- tokens per prompt, and the share of them that are single letters;
- the share of BFCL's lower-case word occurrences the tokenizer keeps
  whole;
- the share that would be whole if the corpus's K most frequent
  lower-case words were kept whole too, and how much shorter the prompts
  would be, for several K: a vocabulary learnt from the corpus can make whole no word
  the corpus does not use (a token the model never sees in training has
  an untrained embedding).

It reads the corpus `tool-train corpus --dir DIR` writes (token ids and
offsets), decoded with the model directory's tokenizer. It only measures:
nothing here feeds back into the corpus or the tokenizer (BFCL is the test
set).

    target/torch-venv/bin/python scripts/bfcl_vocabulary.py \\
        --corpus target/rehearsal/work/corpus --model models/tool-use-mini
"""

import argparse
import collections
import glob
import json
import re
import statistics
import sys
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

CATEGORIES = ["simple_python", "multiple", "live_simple", "irrelevance"]
WORD = re.compile(r"[A-Za-z_]+")


def lower_words(text):
    return [w for w in WORD.findall(text) if w.islower()]


def bfcl_dir(given):
    if given:
        return Path(given)
    found = glob.glob("target/llama-venv/lib/python3*/site-packages/bfcl_eval/data")
    if not found:
        raise SystemExit("expected bfcl_eval's data (pip install bfcl-eval into target/llama-venv), or --bfcl DIR")
    return Path(found[0])


def prompts(data, category, limit):
    path = data / f"BFCL_v4_{category}.json"
    with open(path) as f:
        rows = [json.loads(line) for line in f][:limit]
    return [json.dumps(r["function"]) + " " + json.dumps(r["question"]) for r in rows]


def corpus_words(corpus, tokenizer, every):
    ids = np.fromfile(corpus / "train.ids", dtype=np.uint32)
    offsets = np.fromfile(corpus / "train.offsets", dtype=np.uint64)
    counts = collections.Counter()
    examples = len(offsets) - 1
    for i in range(0, examples, every):
        text = tokenizer.decode(ids[offsets[i] : offsets[i + 1]].tolist(), skip_special_tokens=False)
        counts.update(lower_words(text))
    return counts, (examples + every - 1) // every


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, required=True, help="a `tool-train corpus` directory")
    ap.add_argument("--model", type=Path, default=Path("models/tool-use-mini"), help="its tokenizer's model directory")
    ap.add_argument("--bfcl", help="bfcl_eval/data (default: the one in target/llama-venv)")
    ap.add_argument("--limit", type=int, default=100, help="cases per category")
    ap.add_argument("--every", type=int, default=24, help="read every this many corpus conversations")
    args = ap.parse_args()
    tokenizer = Tokenizer.from_file(str(args.model / "tokenizer.json"))
    data = bfcl_dir(args.bfcl)

    print(f"BFCL v4, first {args.limit} cases, questions and functions as JSON, {args.model}'s tokenizer:")
    texts = []
    for category in CATEGORIES:
        cases = prompts(data, category, args.limit)
        texts += cases
        tokens, letters = [], []
        for text in cases:
            enc = tokenizer.encode(text, add_special_tokens=False)
            tokens.append(len(enc.ids))
            letters.append(sum(len(t) == 1 and t.isalpha() for t in enc.tokens) / max(len(enc.ids), 1))
        print(f"  {category:15} {statistics.mean(tokens):6.0f} tokens a prompt (most {max(tokens)}),"
              f" {statistics.mean(letters):.0%} of them single letters")

    occurrences = [w for text in texts for w in lower_words(text)]
    pieces = {w: len(tokenizer.encode(w, add_special_tokens=False).ids) for w in set(occurrences)}
    whole = sum(pieces[w] == 1 for w in occurrences)
    total = sum(len(tokenizer.encode(t, add_special_tokens=False).ids) for t in texts)
    print(f"lower-case word occurrences in those prompts: {len(occurrences)},"
          f" {whole / len(occurrences):.1%} whole in the tokenizer")

    counts, read = corpus_words(args.corpus, tokenizer, args.every)
    print(f"the corpus ({read} conversations read): {len(counts)} distinct lower-case words")
    for top in [300, 1000, 2000, 4000, len(counts)]:
        kept = {w for w, _ in counts.most_common(top)}
        covered = sum(w in kept or pieces[w] == 1 for w in occurrences)
        # Each word made whole saves all but one of its pieces.
        saved = sum(pieces[w] - 1 for w in occurrences if w in kept)
        print(f"  its {top:5} most frequent words kept whole too: {covered / len(occurrences):.1%} of BFCL's"
              f" occurrences whole, prompts {saved / total:.0%} shorter")


if __name__ == "__main__":
    sys.exit(main())
