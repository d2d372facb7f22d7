//! How fast a model configuration learns to copy: a proxy for tool calling, where the
//! arguments of a call are mostly copied from the user's request.
//!
//! ```sh
//! cargo run --release -p tool-models --example train_copy -- \
//!     hidden=256 layers=6 heads=4 kv=2 inter=768 seq=512 batch=4 steps=300 lr=0.002
//! ```
//!
//! Each sequence is a run of segments `[1, a₁ … aₙ, 2, a₁ … aₙ]` with random tokens `aᵢ`
//! and random `n` in 8..=40; only the second copy of each segment is learnt, so the loss can
//! only fall below ln(vocab) by attending back to the first copy. Prints the training loss as
//! it goes, then the loss on held-out sequences and the wall time.

mod common;

use common::Options;
use std::time::Instant;

use tool_train::train::{
    AdamWConfig, Example, LrSchedule, ModelConfig, TrainConfig, TrainData, TrainError, Trainer,
};

/// Copy-task sequences, a pure function of (seed, index).
struct Copies {
    seed: u64,
    len: usize,
    seq: usize,
    vocab: u32,
}

impl TrainData for Copies {
    fn len(&self) -> usize {
        self.len
    }

    fn example(&self, index: usize) -> Result<Example, TrainError> {
        let mut state = self.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let mut ids = vec![0u32];
        let mut mask = vec![false];
        loop {
            let n = 8 + (next() % 33) as usize;
            if ids.len() + 2 * n + 2 > self.seq {
                break;
            }
            let segment: Vec<u32> = (0..n).map(|_| 3 + next() % (self.vocab - 3)).collect();
            ids.push(1);
            ids.extend(&segment);
            ids.push(2);
            ids.extend(&segment);
            mask.extend(std::iter::repeat_n(false, n + 2));
            mask.extend(std::iter::repeat_n(true, n));
        }
        Example::new(ids, mask)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let opts = Options::from_args()?;
    opts.choose_allocator();
    let hidden = opts.get("hidden", 256.0)? as usize;
    let heads = opts.get("heads", 4.0)? as usize;
    let config = ModelConfig {
        vocab_size: opts.get("vocab", 3072.0)? as usize,
        intermediate_size: opts.get("inter", (hidden * 3) as f64)? as usize,
        num_hidden_layers: opts.get("layers", 6.0)? as usize,
        num_attention_heads: heads,
        num_key_value_heads: opts.get("kv", (heads / 2).max(1) as f64)? as usize,
        ..ModelConfig::small(0, hidden, 0)
    };
    let seq = opts.get("seq", 512.0)? as usize;
    let steps = opts.get("steps", 300.0)? as u64;
    let train = TrainConfig {
        seed: 1,
        batch_size: opts.get("batch", 4.0)? as usize,
        grad_accum: opts.get("accum", 1.0)? as usize,
        max_seq_len: seq,
        schedule: LrSchedule {
            peak_lr: opts.get("lr", 2e-3)?,
            min_lr: opts.get("lr", 2e-3)? / 10.0,
            warmup_steps: opts.get("warmup", (steps / 10) as f64)? as u64,
            total_steps: steps,
        },
        adamw: AdamWConfig::default(),
        grad_clip: 1.0,
        checkpoint_every: steps.max(1),
    };
    println!(
        "{:.2} M parameters, {steps} steps of {} x {seq} tokens, peak lr {}",
        config.num_parameters() as f64 / 1e6,
        train.batch_size * train.grad_accum,
        train.schedule.peak_lr
    );
    let data = Copies {
        seed: 7,
        len: 100_000,
        seq,
        vocab: config.vocab_size as u32,
    };
    let held_out = Copies {
        seed: 8,
        len: 16,
        seq,
        vocab: config.vocab_size as u32,
    };
    let dir = std::env::temp_dir().join(format!("train-copy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut trainer = Trainer::new(&dir, &config, train)?;
    let start = Instant::now();
    let every = opts.get("print", 10.0)? as u64;
    trainer.run(&data, &mut |s| {
        if s.step % every == 0 || s.step == 1 {
            println!(
                "step {:>5}  loss {:.3}  lr {:.2e}  {:.0} tokens/s  {:.0} s",
                s.step,
                s.loss,
                s.lr,
                s.tokens_per_s,
                start.elapsed().as_secs_f64()
            );
        }
    })?;
    println!(
        "held-out loss {:.3} (ln vocab = {:.3}); {:.0} s, {} tokens",
        trainer.eval_loss(&held_out)?,
        (config.vocab_size as f64).ln(),
        start.elapsed().as_secs_f64(),
        trainer.tokens_seen()
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
