#!/usr/bin/env python3
"""The bundled model's training recipe in PyTorch, for a GPU.

`tool-train train` runs the recipe on the CPU (about 2,500 tokens/s on two
cores). This script runs the same recipe where PyTorch has a GPU: the same
model (a tied-embedding Llama, read and written as the Hugging Face model
directory `tool-train` exports), the same examples and loss weights (the
files `tool-train corpus` writes), the same loss (the weighted mean cross
entropy of a step's counted tokens), AdamW with the same betas, epsilon and
decoupled weight decay of the matrices and the embedding, the same global
gradient clipping, and the same warmup and cosine schedule. What differs:
the order the examples are visited in (NumPy's seeded permutation, not
Rust's), and on a GPU the arithmetic (bfloat16 matrix products under
autocast; weights, optimizer and loss in float32).

What it writes is a model directory `tool-train eval`, `tool-train train
--init-from` and `tool-use` read as they read the shipped one.

    tool-train corpus --dir C --practice schemas ...      # the examples
    tool-train train --out START --until 0 ...            # a seeded start
    python3 scripts/train_torch.py --corpus C --start START --out OUT \\
        --run-dir RUN --steps 3600 --lr 2e-3 --batch-size 8

`--check` only prints the held-out loss of `--start`, which must equal the
one `tool-train train` prints for the same model and corpus (it does to
the four digits it prints: 0.0499 for v19). Interrupting (Ctrl-C,
SIGTERM) or running out of `--minutes` writes a checkpoint and the model;
running the command again resumes from the checkpoint.

Needs torch, transformers, safetensors and numpy.
"""

import argparse
import json
import math
import shutil
import signal
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import save_file
from transformers import LlamaForCausalLM

FORMAT = 1
# `--steps 0`: the first steps warm the device up and are not timed.
CALIBRATION_WARMUP = 5
# Seconds kept for the last checkpoint, the held-out loss and the export.
EXPORT_MARGIN_S = 30
# Files of a model directory that training does not change.
CARRIED = ["config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"]


class Split:
    """One split of `tool-train corpus`'s files: ids and weights per example."""

    def __init__(self, corpus: Path, name: str, max_len: int):
        self.ids = np.fromfile(corpus / f"{name}.ids", dtype="<u4")
        self.weights = np.fromfile(corpus / f"{name}.weights", dtype="<f4")
        self.offsets = np.fromfile(corpus / f"{name}.offsets", dtype="<u8")
        if len(self.ids) != len(self.weights) or int(self.offsets[-1]) != len(self.ids):
            raise SystemExit(
                f"{corpus}: expected {name}.ids, .weights and .offsets of one corpus, found "
                f"{len(self.ids)} ids, {len(self.weights)} weights and offsets to {int(self.offsets[-1])}"
            )
        self.max_len = max_len

    def __len__(self):
        return len(self.offsets) - 1

    def example(self, i):
        """Token ids and weights of example `i`, cut to `max_len` as `tool-train` cuts them."""
        start = int(self.offsets[i])
        end = min(int(self.offsets[i + 1]), start + self.max_len)
        return self.ids[start:end], self.weights[start:end]


def micro_batches(examples, tokens_per_micro):
    """`examples` ((ids, weights) pairs), sorted by length and padded in groups
    of at most `tokens_per_micro` tokens: (ids, weights) tensors, right-padded
    with 0."""
    examples = sorted(examples, key=lambda e: len(e[0]))
    group = []
    for ids, weights in examples:
        if group and len(ids) * (len(group) + 1) > tokens_per_micro:
            yield pad(group)
            group = []
        group.append((ids, weights))
    if group:
        yield pad(group)


def pad(group):
    width = max(len(ids) for ids, _ in group)
    ids = np.zeros((len(group), width), dtype=np.int64)
    weights = np.zeros((len(group), width), dtype=np.float32)
    for row, (i, w) in enumerate(group):
        ids[row, : len(i)] = i
        weights[row, : len(w)] = w
    return torch.from_numpy(ids), torch.from_numpy(weights)


def loss_sum(model, ids, weights, device, autocast):
    """The weighted sum of the cross entropy of every counted prediction:
    the output at position t predicts token t + 1, with its weight."""
    ids, weights = ids.to(device), weights.to(device)
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
        hidden = model.model(input_ids=ids, use_cache=False).last_hidden_state
    targets_w = weights[:, 1:]
    picked = targets_w > 0
    if not picked.any():
        return hidden.sum() * 0.0
    rows = hidden[:, :-1][picked].float()
    logits = rows @ model.model.embed_tokens.weight.float().t()
    ce = F.cross_entropy(logits, ids[:, 1:][picked], reduction="none")
    return (ce * targets_w[picked]).sum()


def held_out_loss(model, split, device, autocast, tokens_per_micro):
    model.eval()
    total, weight = 0.0, 0.0
    with torch.no_grad():
        examples = [split.example(i) for i in range(len(split))]
        for ids, weights in micro_batches(examples, tokens_per_micro):
            total += float(loss_sum(model, ids, weights, device, autocast))
            weight += float(weights[:, 1:].sum())
    model.train()
    return total / weight


def lr_at(step, peak, steps):
    """`tool-train`'s schedule: linear warmup over a fiftieth of the steps,
    then cosine decay to a tenth of the peak."""
    warmup = max(steps // 50, 1)
    floor = peak / 10
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min((step - warmup) / max(steps - warmup, 1), 1.0)
    return floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * progress))


class Order:
    """The seeded visiting order: a fresh permutation per epoch, so a
    position (epoch, cursor) is all a checkpoint needs."""

    def __init__(self, seed, n, epoch=0, cursor=0):
        self.seed, self.n, self.epoch, self.cursor = seed, n, epoch, cursor
        self.perm = self._perm()

    def _perm(self):
        return np.random.default_rng([self.seed, self.epoch]).permutation(self.n)

    def take(self, k):
        out = []
        while len(out) < k:
            if self.cursor >= self.n:
                self.epoch, self.cursor = self.epoch + 1, 0
                self.perm = self._perm()
            out.append(int(self.perm[self.cursor]))
            self.cursor += 1
        return out


def export(model, start: Path, out: Path, precision):
    """Writes the model directory: `start`'s config and tokenizer, and the
    weights by their Hugging Face names, the tied head left out."""
    out.mkdir(parents=True, exist_ok=True)
    for name in CARRIED:
        if (start / name).exists() and (start / name).resolve() != (out / name).resolve():
            shutil.copy(start / name, out / name)
    dtype = torch.float16 if precision == "f16" else torch.float32
    tensors = {
        k: v.detach().to("cpu", dtype).contiguous()
        for k, v in model.state_dict().items()
        if k != "lm_head.weight"
    }
    tmp = out / "model.safetensors.tmp"
    save_file(tensors, str(tmp), metadata={"format": "pt"})
    tmp.replace(out / "model.safetensors")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, required=True, help="what `tool-train corpus` wrote")
    ap.add_argument("--start", type=Path, required=True, help="the model directory to train from")
    ap.add_argument("--out", type=Path, help="where the trained model goes")
    ap.add_argument("--run-dir", type=Path, help="checkpoint and loss log")
    ap.add_argument("--steps", type=int, default=3600,
                    help="optimizer steps (sets the schedule); 0: as many as fit in --minutes")
    ap.add_argument("--lr", type=float, default=2e-3, help="peak learning rate")
    ap.add_argument("--batch-size", type=int, default=8, help="sequences per step")
    ap.add_argument("--tokens-per-micro", type=int, default=16384,
                    help="padded tokens per forward pass (memory, not the gradient)")
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1, help="seed of the visiting order")
    ap.add_argument("--calibration-steps", type=int, default=20,
                    help="steps timed to size the schedule of --steps 0")
    ap.add_argument("--minutes", type=float, help="stop (checkpoint and model) after this long")
    ap.add_argument("--checkpoint-every", type=int, default=200)
    ap.add_argument("--precision", choices=["f16", "f32"], default="f32",
                    help="of the exported weights (`tool-train convert` makes f16 later)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--check", action="store_true", help="only print --start's held-out loss")
    args = ap.parse_args()

    manifest = json.loads((args.corpus / "corpus.json").read_text())
    if manifest.get("format") != FORMAT:
        raise SystemExit(f"{args.corpus}: expected corpus format {FORMAT}, found {manifest.get('format')}")
    max_len = manifest["max_seq_len"]
    held_out = Split(args.corpus, "held_out", max_len)
    device = torch.device(args.device)
    autocast = device.type == "cuda"
    torch.manual_seed(args.seed)
    if autocast:
        torch.backends.cuda.matmul.allow_tf32 = True

    model = LlamaForCausalLM.from_pretrained(
        args.start, dtype=torch.float32, attn_implementation="sdpa"
    ).to(device)
    if model.config.vocab_size != manifest["vocab_size"]:
        raise SystemExit(
            f"expected a model with the corpus's {manifest['vocab_size']} tokens, "
            f"found {model.config.vocab_size} in {args.start}"
        )
    if not model.config.tie_word_embeddings:
        raise SystemExit(f"{args.start}: expected tied embeddings, as tool-train's models have")
    n_params = sum(p.numel() for n, p in model.named_parameters() if n != "lm_head.weight")
    if args.check:
        loss = held_out_loss(model, held_out, device, autocast, args.tokens_per_micro)
        print(f"{n_params} parameters, held-out loss {loss:.6f} on {len(held_out)} conversations")
        return
    if args.out is None or args.run_dir is None:
        raise SystemExit("--out and --run-dir are needed to train")

    train = Split(args.corpus, "train", max_len)
    args.run_dir.mkdir(parents=True, exist_ok=True)
    checkpoint = args.run_dir / "checkpoint.pt"
    fingerprint = manifest["train"]["fingerprint"]
    initial = {k: v.detach().clone() for k, v in model.state_dict().items()}
    opt = optimizer(model, args)
    step, order, steps = 0, Order(args.seed, len(train)), args.steps
    if checkpoint.exists():
        state = torch.load(checkpoint, map_location=device, weights_only=False)
        if state["fingerprint"] != fingerprint:
            raise SystemExit(f"{checkpoint}: trained on another corpus than {args.corpus}")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, steps = state["step"], state["steps"]
        order = Order(args.seed, len(train), state["epoch"], state["cursor"])
        print(f"resumed {args.run_dir} at step {step} of {steps}", file=sys.stderr)
    started = time.time()
    deadline = started + args.minutes * 60 if args.minutes else math.inf
    if steps == 0:
        # As many steps as fit: time a few (the first ones warm the device up),
        # then start again from the same weights with the schedule that fits.
        if not args.minutes:
            raise SystemExit("--steps 0 (as many as fit) needs --minutes")
        trial = Order(args.seed, len(train))
        for k in range(CALIBRATION_WARMUP + args.calibration_steps):
            if k == CALIBRATION_WARMUP:
                timed = time.time()
            step_once(model, opt, train, trial.take(args.batch_size), args, device, autocast, 1e-4)
        per_step = (time.time() - timed) / args.calibration_steps
        model.load_state_dict(initial)
        opt = optimizer(model, args)
        # What is left, less a margin for the checkpoint, held-out loss and export.
        left = deadline - time.time() - EXPORT_MARGIN_S
        steps = max(int(left / per_step), 1)
        print(f"{per_step * 1000:.1f} ms a step: {steps} steps fit", file=sys.stderr)
    del initial

    def save():
        tmp = checkpoint.with_suffix(".tmp")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                    "steps": steps, "epoch": order.epoch, "cursor": order.cursor,
                    "fingerprint": fingerprint}, tmp)
        tmp.replace(checkpoint)

    stop = {"now": False}
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.update(now=True))
    print(f"{n_params} parameters, {len(train)} conversations, {manifest['train']['tokens']} tokens, "
          f"on {device}", file=sys.stderr)
    log = open(args.run_dir / "train_log.jsonl", "a")
    started, tokens = time.time(), 0
    while step < steps and not stop["now"] and time.time() < deadline:
        lr = lr_at(step, args.lr, steps)
        loss, ran = step_once(model, opt, train, order.take(args.batch_size), args, device, autocast, lr)
        tokens += ran
        step += 1
        if step % 10 == 0 or step == steps:
            elapsed = time.time() - started
            print(f"step {step:>6}  loss {loss:.4f}  lr {lr:.2e}  {tokens / elapsed:.0f} tok/s  "
                  f"{elapsed:.0f}s", file=sys.stderr)
            log.write(json.dumps({"step": step, "loss": loss, "lr": lr,
                                  "tokens_per_s": tokens / elapsed}) + "\n")
            log.flush()
        if step % args.checkpoint_every == 0:
            save()
    save()
    loss = held_out_loss(model, held_out, device, autocast, args.tokens_per_micro)
    print(f"step {step:>6} of {steps}  held-out loss {loss:.4f}", file=sys.stderr)
    log.write(json.dumps({"step": step, "steps": steps, "held_out_loss": loss}) + "\n")
    export(model, args.start, args.out, args.precision)
    print(f"exported step {step} to {args.out}", file=sys.stderr)


def optimizer(model, args):
    """AdamW as `tool-train` has it: decay on the matrices and the embedding."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay}, {"params": rest, "weight_decay": 0.0}],
        lr=args.lr, betas=(0.9, 0.95), eps=1e-8, fused=next(model.parameters()).is_cuda,
    )


def step_once(model, opt, train, indices, args, device, autocast, lr):
    """One optimizer step over the examples `indices`: the weighted mean loss
    of all their counted tokens, gradients clipped to a global norm of 1.
    Returns the loss and the tokens the examples hold."""
    for group in opt.param_groups:
        group["lr"] = lr
    examples = [train.example(i) for i in indices]
    batches = list(micro_batches(examples, args.tokens_per_micro))
    weight = sum(float(w[:, 1:].sum()) for _, w in batches)
    total = 0.0
    for ids, weights in batches:
        loss = loss_sum(model, ids, weights, device, autocast) / weight
        loss.backward()
        total += float(loss.detach())
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    return total, sum(len(ids) for ids, _ in examples)


if __name__ == "__main__":
    main()
