//! Training throughput of the differentiable Llama on the CPU, for choosing the size of the
//! bundled model.
//!
//! ```sh
//! cargo run --release -p tool-models --example train_throughput -- \
//!     hidden=256 layers=6 heads=4 kv=2 inter=768 vocab=3072 seq=512 batch=4 steps=5
//! ```
//!
//! Every option is `name=value`; `counted` is the fraction of tokens whose prediction counts
//! in the loss (the assistant share of a conversation). Sequences are random tokens: the
//! cost of a step does not depend on the values. Prints forward-only and full-step
//! (forward, backward, clipping, AdamW) tokens per second, medians over `steps` steps after
//! one warm-up step.

mod common;

use common::Options;
use std::time::Instant;

use tool_train::train::{Batch, Example, Llama, ModelConfig, TrainConfig, Trainer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let opts = Options::from_args()?;
    opts.choose_allocator();
    let hidden = opts.get::<usize>("hidden", 256)?;
    let heads = opts.get::<usize>("heads", 4)?;
    let config = ModelConfig {
        vocab_size: opts.get::<usize>("vocab", 3072)?,
        intermediate_size: opts.get::<usize>("inter", hidden * 3)?,
        num_hidden_layers: opts.get::<usize>("layers", 6)?,
        num_attention_heads: heads,
        num_key_value_heads: opts.get::<usize>("kv", heads / 2)?,
        ..ModelConfig::small(0, hidden, 0)
    };
    let seq = opts.get::<usize>("seq", 512)?;
    let batch_size = opts.get::<usize>("batch", 4)?;
    let steps = opts.get::<usize>("steps", 5)?;
    let counted: f64 = opts.get("counted", 0.3)?;

    println!(
        "config: vocab {} hidden {} layers {} heads {}/{} inter {} | {:.2} M parameters | seq {seq} x batch {batch_size}, {:.0}% counted | threads {}",
        config.vocab_size,
        config.hidden_size,
        config.num_hidden_layers,
        config.num_attention_heads,
        config.num_key_value_heads,
        config.intermediate_size,
        config.num_parameters() as f64 / 1e6,
        counted * 100.0,
        candle_core::utils::get_num_threads(),
    );

    let mut state = 12345u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let vocab = config.vocab_size as u32;
    let mut make_batch = || -> Result<Batch, Box<dyn std::error::Error>> {
        let examples: Vec<Example> = (0..batch_size)
            .map(|_| {
                let ids: Vec<u32> = (0..seq).map(|_| next() % vocab).collect();
                // The counted tokens come last, as assistant turns follow the prompt.
                let mask: Vec<bool> = (0..seq)
                    .map(|t| t as f64 >= seq as f64 * (1.0 - counted))
                    .collect();
                Example::new(ids, mask)
            })
            .collect::<Result<_, _>>()?;
        Ok(Batch::new(&examples, 0, seq, config.vocab_size)?)
    };

    let model = Llama::new_seeded(&config, 0)?;
    let mut forward = Vec::new();
    for _ in 0..=steps.min(3) {
        let batch = make_batch()?;
        let start = Instant::now();
        let loss = model.loss(&batch)?;
        let _ = loss.to_scalar::<f32>()?;
        forward.push((batch.tokens() as f64) / start.elapsed().as_secs_f64());
    }
    drop(model);

    let dir = std::env::temp_dir().join(format!("train-throughput-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let train = TrainConfig {
        batch_size,
        max_seq_len: seq,
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(&dir, &config, train)?;
    let mut full = Vec::new();
    let mut per_cpu_s = Vec::new();
    for i in 0..=steps {
        let batch = make_batch()?;
        let cpu_before = cpu_seconds();
        let stats = trainer.train_step(&[batch])?;
        let cpu = cpu_seconds().zip(cpu_before).map(|(a, b)| a - b);
        println!(
            "  step {i}: {:.2} s wall, {} CPU, {:.0} tokens/s, loss {:.3}",
            stats.seconds,
            cpu.map_or("?".to_string(), |c| format!("{c:.2} s")),
            stats.tokens_per_s,
            stats.loss
        );
        full.push(stats.tokens_per_s);
        if let Some(c) = cpu {
            per_cpu_s.push(stats.tokens as f64 / c.max(0.01));
        }
    }
    std::fs::remove_dir_all(&dir)?;

    let median = |v: &mut Vec<f64>| {
        v.remove(0);
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (fwd, step) = (median(&mut forward), median(&mut full));
    println!("forward only: {fwd:.0} tokens/s");
    println!(
        "training step: {step:.0} tokens/s -> {:.1} M tokens/hour",
        step * 3600.0 / 1e6
    );
    if per_cpu_s.len() == full.len() + 1 {
        // Less sensitive than wall time to other processes sharing the machine.
        println!(
            "training step: {:.0} tokens per CPU-second",
            median(&mut per_cpu_s)
        );
    }
    Ok(())
}

/// User + system CPU time of this process so far, from `/proc/self/stat` (Linux only).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}
