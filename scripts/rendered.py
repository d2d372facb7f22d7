"""What the scripts that read the `rendered` example's conversations with
several models share (`call_decision.py`, `call_parts.py`): their
arguments, the conversations, and each model read with transformers."""

import argparse
import json

import torch
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM


def read(description):
    """The parsed arguments, the tokenizer and the conversations' texts."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("conversations", help="the `rendered` example's output")
    ap.add_argument("models", nargs="+", help="model directories")
    ap.add_argument("--tokenizer", default="models/tool-use-mini/tokenizer.json")
    args = ap.parse_args()
    tokenizer = Tokenizer.from_file(args.tokenizer)
    with open(args.conversations) as f:
        texts = [json.loads(line) for line in f]
    return args, tokenizer, texts


def models(dirs):
    """Each model directory with its model, in f32, one at a time."""
    for model_dir in dirs:
        yield model_dir, AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
