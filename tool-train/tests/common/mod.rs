//! Helpers shared by the training tests.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use tool_train::train::{Llama, ModelConfig, StepStats};

/// A two-layer Llama small enough to train in a test: 32 wide, four query
/// heads sharing two key/value heads, ids 0, 1 and 2 for bos, eos and pad.
pub fn tiny_config(vocab_size: usize, intermediate_size: usize) -> ModelConfig {
    ModelConfig {
        vocab_size,
        hidden_size: 32,
        intermediate_size,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        max_position_embeddings: 64,
        rope_theta: 10_000.0,
        rms_norm_eps: 1e-5,
        bos_token_id: 0,
        eos_token_id: 1,
        pad_token_id: 2,
        initializer_range: 0.02,
    }
}

/// A path in the temporary directory for `name`, unique to this process,
/// with nothing left there from an earlier run (it is not created: some
/// tests need the directory to be absent).
pub fn scratch_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tool-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The steps of a run's `train_log.jsonl`.
pub fn log_lines(path: &Path) -> Vec<StepStats> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A model's parameters, by name, as plain numbers.
pub fn params(model: &Llama) -> Vec<(String, Vec<f32>)> {
    model
        .named_parameters()
        .into_iter()
        .map(|(n, v)| (n, v.as_tensor().flatten_all().unwrap().to_vec1().unwrap()))
        .collect()
}

/// The largest absolute difference between two equally long rows of
/// logits (the rows are compared element by element).
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "rows of different lengths");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max)
}
