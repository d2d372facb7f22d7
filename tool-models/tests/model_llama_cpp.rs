//! The architectures new to the decoder run from GGUF as llama.cpp runs the
//! same file: tiny seeded Qwen 3 (per-head norms, wide heads), Llama 3.x
//! (its rotary scaling stored as `rope_freqs`), LFM2 (short convolutions
//! among attention layers) and Granite 4 (attention only, and hybrid with
//! Mamba-2 layers) files, written as llama.cpp's
//! converter writes them, give llama.cpp's next-token log-probabilities at
//! every step of its greedy continuation. llama-server keeps its cache in
//! f32 with flash attention off, so what is left to differ is the order of
//! f32 sums.
//!
//! Phi-4-mini is checked against transformers only
//! (`model_architectures.rs`): llama.cpp runs Phi-3 without its sliding
//! window ("Phi SWA is currently disabled"), picks LongRoPE's factors by
//! context size rather than by how far a pass reaches, and its Phi-3
//! vocabulary loader wants tokens the tiny vocabulary lacks.

#[path = "common/llama_server.rs"]
mod llama_server;

use serde_json::{json, Value};
use std::time::Duration;
use tool_models::generate::Session;
use tool_models::model::tiny::{write_tiny_gguf, TinySpec};
use tool_models::model::Model;

/// Greedy steps along which the log-probabilities are compared.
const STEPS: usize = 24;

/// The most a log-probability may differ from llama.cpp's.
const TOLERANCE: f32 = 1e-4;

const PROMPT: [u32; 16] = [
    276, 72, 101, 108, 108, 111, 256, 261, 44, 32, 119, 111, 114, 108, 100, 278,
];

/// POSTs `body` to `url` + `path` and reads the JSON reply, which must
/// come with status 200.
fn post(url: &str, path: &str, body: &Value) -> Value {
    let (status, reply) = llama_server::post_json(url, path, body, Duration::from_secs(60));
    assert!(status.starts_with("HTTP/1.1 200"), "{status}\n{reply}");
    serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: {reply}"))
}

fn log_softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = logits.iter().map(|l| (l - max).exp()).sum();
    let log_sum = sum.ln() + max;
    logits.iter().map(|l| l - log_sum).collect()
}

#[test]
fn new_architectures_files_give_llama_cpps_log_probabilities() {
    let Some(binary) = llama_server::find() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for (name, spec) in [
        ("qwen3", TinySpec::qwen3(7)),
        ("llama3", TinySpec::llama3(7)),
        ("lfm2", TinySpec::lfm2(7)),
        // Written as llama.cpp's converter writes Granite 4: a Granite
        // where no layer is Mamba-2, else a `granitehybrid`.
        ("granite4", TinySpec::granite_hybrid(7)),
        ("granite4-h", TinySpec::granite_h(7)),
    ] {
        let path = tmp.path().join(format!("{name}.gguf"));
        write_tiny_gguf(&path, &spec).unwrap();
        let log = tmp.path().join(format!("{name}.log"));
        let served = llama_server::serve(
            &binary,
            &path,
            &log,
            &[
                "--cache-type-k",
                "f32",
                "--cache-type-v",
                "f32",
                "-fa",
                "off",
            ],
        );
        // One request a step: the server reports no probabilities for a
        // token that ends inside a UTF-8 character (a byte-level
        // vocabulary's greedy path writes some), so those steps follow
        // the decoder's own greedy choice, and the others are compared.
        let mut session = Session::new(Model::load(&path).unwrap());
        let mut tokens = PROMPT.to_vec();
        let (mut worst, mut compared) = (0f32, 0);
        for step in 0..STEPS {
            let reply = post(
                &served.url,
                "/completion",
                &json!({
                    "prompt": tokens,
                    "n_predict": 1,
                    "n_probs": 8,
                    "post_sampling_probs": false,
                    "temperature": 0.0,
                    "cache_prompt": false,
                }),
            );
            let ours = log_softmax(&session.logits(&tokens).unwrap());
            let Some(expected) = reply["completion_probabilities"].get(0) else {
                let greedy = (0..ours.len()).max_by(|&a, &b| ours[a].total_cmp(&ours[b]));
                tokens.push(greedy.unwrap() as u32);
                continue;
            };
            compared += 1;
            for top in expected["top_logprobs"].as_array().unwrap() {
                let id = top["id"].as_u64().unwrap() as usize;
                let theirs = top["logprob"].as_f64().unwrap() as f32;
                let diff = (ours[id] - theirs).abs();
                worst = worst.max(diff);
                assert!(
                    diff < TOLERANCE,
                    "{name} step {step}: token {id} has log-probability {}, llama.cpp's {theirs}",
                    ours[id]
                );
            }
            tokens.push(expected["id"].as_u64().unwrap() as u32);
        }
        assert!(
            compared >= STEPS / 3,
            "{name}: llama.cpp reported {compared} of {STEPS} steps"
        );
        eprintln!(
            "{name}: log-probabilities within {worst} of llama.cpp's ({compared} of {STEPS} steps)"
        );
    }
}
