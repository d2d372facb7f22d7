#!/usr/bin/env python3
"""One GPU lease, start to end: corpus, start models, training, models back.

A task lent a GPU machine gets about 15 minutes of it, and a machine starts
bare, so everything happens in one call of the device tool (at most ten
minutes a command): `tool-train` (built here, carried) writes the corpus
on the machine's cores and the models the recipes start from, then every
recipe trains at once on the one GPU (`scripts/train_torch.py`, as many
steps as fit in `--minutes`), and each trained model comes back in f16
with its loss log:

    cargo build --release -p tool-train
    # the device tool's run, carrying target/release/tool-train:
    python3 scripts/train_device.py --minutes 6 --out $OUT pilot deep10

Then here, for each recipe NAME:

    python3 scripts/train_device.py --join FILES_AT/NAME target/gpu/NAME
    cargo run --release -p tool-train -- eval --model target/gpu/NAME --schemas 100
    cargo run --release -- eval bfcl --model target/gpu/NAME ...

What comes back is limited to 8 files of at most 16 MiB: each model comes
in parts of 15 MiB at most, which `--join` puts together, and the configs,
loss logs and the end of each run's output are in one `summary.json`. `--dry-run` runs
everything on the CPU in a minute, to check the script before a lease.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "models" / "tool-use-mini"
PART_BYTES = 15 * 1024 * 1024

# What each recipe tests, and how. `start`: the `tool-train init` flags
# that make its first weights; `train`: `train_torch.py`'s. All train on
# the same corpus.
RECIPES = {
    # The CPU pilot's recipe (v19 with made-up tools) with a GPU's worth of
    # steps: is 4.25M parameters short of data or of capacity?
    "pilot": {
        "start": ["--init-from", str(BUNDLED)],
        "train": ["--lr", "1e-3", "--batch-size", "32", "--tokens-per-micro", "65536"],
    },
    # v19 deepened to ten layers (8.2M parameters; the new layers start as
    # the identity), the same data: what capacity adds.
    "deep10": {
        "start": ["--init-from", str(BUNDLED), "--layers", "10"],
        "train": ["--lr", "1e-3", "--batch-size", "32", "--tokens-per-micro", "65536"],
    },
    # From scratch at 128 wide, four layers (0.95M parameters): on the CPU
    # its parts of a call rose with every export up to 58M tokens and
    # matched the larger models' (TRAINING.md, "Tokens against
    # parameters"); does the rise go on with a GPU's tokens?
    "tiny": {
        "start": ["--hidden", "128", "--layers", "4", "--heads", "2", "--kv-heads", "1",
                  "--intermediate", "384"],
        "train": ["--lr", "2e-3", "--batch-size", "32", "--tokens-per-micro", "65536"],
    },
    # From scratch at 384 wide, eight layers (13M parameters, 7.6 MB as
    # Q4_0; rows of 384 fit no K-quant's blocks): what the recipe gives a
    # model that never learnt only the seventeen tools.
    "scratch384": {
        "start": ["--hidden", "384", "--layers", "8", "--heads", "6", "--kv-heads", "2",
                  "--intermediate", "1024"],
        "train": ["--lr", "2e-3", "--batch-size", "32", "--tokens-per-micro", "65536"],
    },
}


def run(cmd, log):
    print("+", " ".join(map(str, cmd)), file=sys.stderr, flush=True)
    # tool-train's default model directory is where it was built; on the
    # lent machine the checkout is elsewhere.
    env = {**os.environ, "TOOL_USE_MODEL": str(BUNDLED)}
    subprocess.run(list(map(str, cmd)), check=True, stdout=log, stderr=subprocess.STDOUT, env=env)


def start_model(tool_train, recipe, work, log):
    """The recipe's first weights, as `tool-train train` would start from
    them (`tool-train init`: seeded, or the bundled model, deepened)."""
    out = work / "start"
    run([tool_train, "init", "--out", out, *recipe["start"]], log)
    return out


def send_back(work, dest):
    """The trained weights in f16 parts of at most 15 MiB in `dest`; their
    config, loss log and the end of the output for the summary."""
    dest.mkdir(parents=True, exist_ok=True)
    weights = (work / "model" / "model.safetensors").read_bytes()
    for k in range(0, len(weights), PART_BYTES):
        (dest / f"model.safetensors.part{k // PART_BYTES}").write_bytes(weights[k : k + PART_BYTES])
    return {
        "config": json.loads((work / "model" / "config.json").read_text()),
        "train_log": [json.loads(l) for l in (work / "run" / "train_log.jsonl").read_text().splitlines()],
    }


def join(sent: Path, dest: Path):
    """A model directory from what `send_back` wrote for one recipe (`sent`:
    its folder beside `summary.json`): the bundled tokenizer, the config,
    and the weights joined from their parts."""
    summary = json.loads((sent.parent / "summary.json").read_text())
    report = summary["recipes"].get(sent.name)
    if report is None or "config" not in report:
        raise SystemExit(f"{sent.parent / 'summary.json'}: expected a trained recipe {sent.name}")
    parts = sorted(sent.glob("model.safetensors.part*"), key=lambda p: int(p.name.rsplit("part", 1)[1]))
    if not parts:
        raise SystemExit(f"{sent}: expected model.safetensors.part0 and on, found none")
    dest.mkdir(parents=True, exist_ok=True)
    for name in ["tokenizer.json", "tokenizer_config.json", "generation_config.json"]:
        shutil.copy(BUNDLED / name, dest / name)
    (dest / "config.json").write_text(json.dumps(report["config"], indent=2) + "\n")
    with open(dest / "model.safetensors", "wb") as f:
        for p in parts:
            f.write(p.read_bytes())
    print(f"joined {len(parts)} parts into {dest}")


def tail(path, lines=30):
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("recipes", nargs="*", help=f"which to train, together: {', '.join(RECIPES)}")
    ap.add_argument("--out", type=Path, help="where the models come back ($OUT)")
    ap.add_argument("--minutes", type=float, default=6.0, help="of training, for each recipe")
    ap.add_argument("--practice", default="schemas", help="the corpus, as `tool-train train --practice`")
    ap.add_argument("--examples", type=int, default=120_000, help="conversations of the corpus")
    ap.add_argument("--work", type=Path, default=Path("/tmp/train-device"))
    ap.add_argument("--tool-train", type=Path, default=ROOT / "target" / "release" / "tool-train")
    ap.add_argument("--python", default=sys.executable, help="the Python with torch")
    ap.add_argument("--dry-run", action="store_true", help="tiny, on the CPU: checks the script")
    ap.add_argument("--join", nargs=2, type=Path, metavar=("SENT", "MODEL_DIR"),
                    help="only join what one recipe sent back into a model directory")
    args = ap.parse_args()
    if args.join:
        return join(*args.join)
    unknown = [r for r in args.recipes if r not in RECIPES]
    if unknown or not args.recipes or args.out is None:
        raise SystemExit(f"expected --out and recipes among {', '.join(RECIPES)}, found {args.recipes}")
    if not args.tool_train.exists():
        raise SystemExit(f"{args.tool_train}: expected tool-train (cargo build --release -p tool-train)")
    if args.dry_run:
        args.examples, args.minutes = 64, min(args.minutes, 0.75)
    began = time.time()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    corpus = args.work / "corpus"
    with open(args.work / "corpus.log", "w") as log:
        run([args.tool_train, "corpus", "--dir", corpus, "--model", BUNDLED,
             "--practice", args.practice, "--examples", args.examples], log)
    print(f"corpus in {time.time() - began:.0f}s", file=sys.stderr, flush=True)

    jobs = []
    for name in args.recipes:
        work = args.work / name
        work.mkdir()
        log = open(work / "log.txt", "w")
        try:
            start = start_model(args.tool_train, RECIPES[name], work, log)
        except subprocess.CalledProcessError as e:
            # Its log goes back in the summary; the other recipes go on.
            log.close()
            jobs.append((name, work, None, e.returncode))
            continue
        cmd = [args.python, ROOT / "scripts" / "train_torch.py", "--corpus", corpus,
               "--start", start, "--out", work / "model", "--run-dir", work / "run",
               "--steps", "0", "--minutes", args.minutes, "--precision", "f16",
               *RECIPES[name]["train"]]
        if args.dry_run:
            cmd += ["--device", "cpu", "--batch-size", "2", "--calibration-steps", "1"]
        print("+", " ".join(map(str, cmd)), file=sys.stderr, flush=True)
        jobs.append((name, work, log, subprocess.Popen(list(map(str, cmd)), stdout=log,
                                                       stderr=subprocess.STDOUT,
                                                       env={**os.environ, "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1"})))
    reports = {}
    for name, work, log, proc in jobs:
        code = proc if log is None else proc.wait()
        if log is not None:
            log.close()
        report = {"recipe": RECIPES[name], "exit": code}
        if code == 0:
            report.update(send_back(work, args.out / name))
        report["log_tail"] = tail(work / "log.txt")
        reports[name] = report
    failed = [n for n, r in reports.items() if r["exit"] != 0]
    summary = {"recipes": reports, "failed": failed, "minutes": args.minutes,
               "examples": args.examples, "practice": args.practice,
               "seconds": round(time.time() - began)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    for name, report in reports.items():
        print(f"--- {name} (exit {report['exit']})\n{report['log_tail']}", file=sys.stderr)
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)} (their output is in summary.json)")


if __name__ == "__main__":
    main()
