//! Where a model's held-out loss is: the assistant's tokens split by kind
//! (the first token of a turn, argument values, tool results an answer
//! repeats, tool names, argument names, and the rest), each with its mean
//! loss, its share of the total and how often the model's first choice is
//! the right token.
//!
//! `cargo run --release -p tool-train --example loss_by_kind -- model=DIR [count=200] [seed=1001] [split=held-out|cases|train]`

mod common;

use candle_core::{Device, Tensor, D};
use common::Options;
use tool_train::corpus::{self, LossWeights, Split};
use tool_train::train::bpe::Tokenizer;
use tool_train::train::Llama;

/// Kinds in the order they are printed; the loss weights below mark them.
const KINDS: [&str; 6] = [
    "first token of a turn",
    "argument value",
    "result in an answer",
    "tool name",
    "argument name",
    "everything else",
];

// Distinct weights tag each byte with its kind (the largest wins, as in
// training): a value weighs 5 with the answers' facts and without them.
const TAGS: LossWeights = LossWeights {
    value: 5.0,
    name: 3.0,
    key: 2.0,
    decision: 7.0,
};

fn kind(with_facts: f32, calls_only: f32) -> usize {
    match (with_facts as u32, calls_only as u32) {
        (7, _) => 0,
        (5, 5) => 1,
        (5, _) => 2,
        (3, _) => 3,
        (2, _) => 4,
        _ => 5,
    }
}

#[derive(Default, Clone, Copy)]
struct Tally {
    tokens: usize,
    loss: f64,
    top1: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let opts = Options::from_args()?;
    opts.choose_allocator();
    let dir = std::path::PathBuf::from(opts.get("model", String::new())?);
    if dir.as_os_str().is_empty() {
        return Err(
            "usage: loss_by_kind model=DIR [count=200] [seed=1001] [split=held-out|cases|train]"
                .into(),
        );
    }
    let count: usize = opts.get("count", 200)?;
    let seed: u64 = opts.get("seed", 1001)?;
    let examples = match opts.get("split", "held-out".to_string())?.as_str() {
        "cases" => corpus::generate_cases(seed, count),
        "train" => corpus::generate(seed, count, Split::Train),
        _ => corpus::generate(seed, count, Split::HeldOut),
    };
    let tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
        .map_err(|e| format!("{}: {e}", dir.join("tokenizer.json").display()))?;
    let model = Llama::load_hf_dir(&dir)?;
    let template = corpus::bundled_template()?;
    let mut tally = [Tally::default(); KINDS.len()];
    for example in &examples {
        let tagged = corpus::encode_weighted(&tokenizer, &template, example, &TAGS)?;
        // Tagged again without the answers' facts: what is left at 5 is in calls.
        let mut bare = example.clone();
        for expectation in &mut bare.expectations {
            expectation.must_contain.clear();
        }
        let calls = corpus::encode_weighted(&tokenizer, &template, &bare, &TAGS)?;
        let ids = Tensor::new(tagged.ids.as_slice(), &Device::Cpu)?.unsqueeze(0)?;
        let logits = model.logits(&ids)?.squeeze(0)?;
        let log_probs = candle_nn::ops::log_softmax(&logits, D::Minus1)?.to_vec2::<f32>()?;
        for t in 1..tagged.ids.len() {
            if !tagged.mask[t] {
                continue;
            }
            let row = &log_probs[t - 1];
            let target = tagged.ids[t] as usize;
            let best = row
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map_or(0, |(i, _)| i);
            let k = &mut tally[kind(tagged.weights[t], calls.weights[t])];
            k.tokens += 1;
            k.loss -= f64::from(row[target]);
            k.top1 += usize::from(best == target);
        }
    }
    let total: f64 = tally.iter().map(|k| k.loss).sum();
    let tokens: usize = tally.iter().map(|k| k.tokens).sum();
    println!(
        "{} conversations, {tokens} assistant tokens, mean loss {:.3}",
        examples.len(),
        total / tokens.max(1) as f64
    );
    println!(
        "{:<24}{:>8}{:>11}{:>15}{:>14}",
        "kind", "tokens", "mean loss", "share of loss", "first choice"
    );
    for (name, k) in KINDS.iter().zip(tally) {
        println!(
            "{name:<24}{:>8}{:>11.3}{:>14.1}%{:>13.1}%",
            k.tokens,
            k.loss / k.tokens.max(1) as f64,
            100.0 * k.loss / total.max(f64::MIN_POSITIVE),
            100.0 * k.top1 as f64 / k.tokens.max(1) as f64
        );
    }
    Ok(())
}
