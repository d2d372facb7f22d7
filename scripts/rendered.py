"""What the scripts that read the `rendered` example's conversations with
several models share (`call_decision.py`, `call_parts.py`): their
arguments, the conversations, and each model read with transformers."""

import argparse
import json

import torch
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM

import ggml_round_trip


def read(description):
    """The parsed arguments, the tokenizer and the conversations' texts."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("conversations", help="the `rendered` example's output")
    ap.add_argument("models", nargs="+", help="model directories")
    ap.add_argument("--tokenizer", default="models/tool-use-mini/tokenizer.json")
    ap.add_argument("--weights", choices=ggml_round_trip.FORMATS, default="f32",
                    help="read each model as stored in this ggml format (ggml_round_trip.py)")
    args = ap.parse_args()
    tokenizer = Tokenizer.from_file(args.tokenizer)
    with open(args.conversations) as f:
        texts = [json.loads(line) for line in f]
    return args, tokenizer, texts


def models(args):
    """Each model directory of `args` with its model, one at a time: in f32,
    its matrices as stored in `args.weights`."""
    for model_dir in args.models:
        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
        yield model_dir, ggml_round_trip.apply(model, args.weights)
