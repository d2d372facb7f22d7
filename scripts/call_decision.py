#!/usr/bin/env python3
"""Does a model know when not to call? Its probability of starting a call
on each request turn, split by what the conversation does there.

At each assistant turn that follows a user's request (not a tool's
result), the model's probability of `<tool_call>` as the turn's first
token is read, and the turns are split into those whose conversation calls
a tool there and those that answer in words (a request no offered tool
covers, small talk). The AUROC says how well that one number separates
them (1: some threshold separates them exactly; 0.5: chance), and the
table what a threshold on it would keep and decline.

    cargo run --release -p tool-train --example rendered -- 300 1 schemas-held-out > /tmp/made-up.jsonl
    target/torch-venv/bin/python scripts/call_decision.py /tmp/made-up.jsonl MODEL_DIR...

The conversations are the `rendered` example's output (one JSON string a
line, rendered with the bundled template); each model directory is read
with transformers.
"""

import sys

import numpy as np
import torch

import rendered

# The bundled tokenizer's ids: `<|im_start|>`, `assistant`, the newline after
# it, `<tool_call>` and `<tool_response>`.
IM_START, ASSISTANT, NEWLINE, TOOL_CALL, TOOL_RESPONSE = 1, 382, 207, 3, 5


def decisions(model, conversations, context):
    """P(call) at each request turn, and whether the conversation calls there."""
    out = []
    for ids in conversations:
        ids = ids[:context]
        with torch.no_grad():
            probs = torch.softmax(model(torch.tensor(ids)[None]).logits[0].float(), -1)
        for p in range(2, len(ids) - 1):
            if (ids[p - 2], ids[p - 1], ids[p]) != (IM_START, ASSISTANT, NEWLINE):
                continue
            before = ids[: p - 2]
            turn = before[np.where(before == IM_START)[0][-1]:]
            if TOOL_RESPONSE in turn:
                continue  # after a tool's result, not a request
            out.append((probs[p, TOOL_CALL].item(), ids[p + 1] == TOOL_CALL))
    return out


def main():
    args, tokenizer, texts = rendered.read(__doc__.split("\n")[0])
    conversations = [np.array(tokenizer.encode(text, add_special_tokens=False).ids) for text in texts]
    for model_dir, model in rendered.models(args):
        context = model.config.max_position_embeddings
        seen = decisions(model, conversations, context)
        call = np.array([p for p, c in seen if c])
        words = np.array([p for p, c in seen if not c])
        if len(call) == 0 or len(words) == 0:
            raise SystemExit(f"expected request turns of both kinds, found {len(call)} calls and {len(words)} in words")
        auroc = (call[:, None] > words[None, :]).mean() + 0.5 * (call[:, None] == words[None, :]).mean()
        print(f"{model_dir} ({args.weights}): {len(call)} request turns that call, {len(words)} answered in words; AUROC {auroc:.3f}")
        print("  P(call)       median when calling / in words: "
              f"{np.median(call):.3f} / {np.median(words):.3f}")
        for threshold in [0.5, 0.9, 0.99, 0.999]:
            print(f"  call only above {threshold}: calls kept {(call >= threshold).mean():.1%}, "
                  f"words kept {(words < threshold).mean():.1%}")


if __name__ == "__main__":
    sys.exit(main())
