//! The decoder against candle-transformers' Llama and Qwen 2 on the same
//! tiny random weights: the logits at every step agree.

use super::{CacheType, Dense, Scratch};
use crate::model::config::{ArchConfig, HfConfig};
use crate::model::files::ModelFiles;
use crate::model::json::read_json_object;
use crate::model::tiny::{write_tiny_model, TinySpec};
use crate::model::weights::Weights;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::{llama, qwen2};

fn load(dir: &std::path::Path) -> (HfConfig, Weights) {
    let files = ModelFiles::Dir(dir);
    let raw = read_json_object(&files, "config.json", "config").unwrap();
    let config = HfConfig::parse(raw, &dir.join("config.json")).unwrap();
    let mut weights = Weights::load(&files).unwrap();
    if config.tie_word_embeddings {
        weights.tie_lm_head().unwrap();
    }
    (config, weights)
}

/// candle's logits after each prefix of `tokens`, run one token at a time.
fn candle_logits(config: &HfConfig, weights: &Weights, tokens: &[u32]) -> Vec<Vec<f32>> {
    let vb = VarBuilder::from_tensors(weights.tensors.clone(), DType::F32, &Device::Cpu);
    let mut step: Box<dyn FnMut(u32, usize) -> Tensor> = match &config.arch {
        ArchConfig::Llama(cfg) => {
            let model = llama::Llama::load(vb, cfg).unwrap();
            let mut cache = llama::Cache::new(true, DType::F32, cfg, &Device::Cpu).unwrap();
            Box::new(move |t, pos| {
                let input = Tensor::new(&[t], &Device::Cpu)
                    .unwrap()
                    .unsqueeze(0)
                    .unwrap();
                model.forward(&input, pos, &mut cache).unwrap()
            })
        }
        ArchConfig::Qwen2(cfg) => {
            let mut model = qwen2::ModelForCausalLM::new(cfg, vb).unwrap();
            Box::new(move |t, pos| {
                let input = Tensor::new(&[t], &Device::Cpu)
                    .unwrap()
                    .unsqueeze(0)
                    .unwrap();
                model.forward(&input, pos).unwrap()
            })
        }
        _ => unreachable!(),
    };
    tokens
        .iter()
        .enumerate()
        .map(|(pos, &t)| step(t, pos).flatten_all().unwrap().to_vec1().unwrap())
        .collect()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// The same weights stored in `dtype` (as a half-precision file holds them).
fn stored_as(weights: &Weights, dtype: DType) -> Weights {
    Weights {
        tensors: weights
            .tensors
            .iter()
            .map(|(name, t)| (name.clone(), t.to_dtype(dtype).unwrap()))
            .collect(),
        path: weights.path.clone(),
    }
}

#[test]
fn logits_match_candle_at_every_step_in_chunks_and_after_truncation() {
    let tokens: Vec<u32> = (0..40).map(|i| (i * 37 + 11) % 250).collect();
    let cases = [
        (TinySpec::llama(3), DType::F32),
        (TinySpec::qwen2(4), DType::F32),
        (TinySpec::llama(5), DType::F16),
        (TinySpec::qwen2(6), DType::BF16),
    ];
    for (spec, dtype) in cases {
        let tmp = tempfile::tempdir().unwrap();
        write_tiny_model(tmp.path(), &spec).unwrap();
        let (config, weights) = load(tmp.path());
        let weights = stored_as(&weights, dtype);
        let expected = candle_logits(&config, &weights, &tokens);
        let dense = Dense::from_hf_with(&config, &weights, true)
            .unwrap()
            .unwrap();
        let mut scratch = Scratch::default();

        // One token at a time.
        let mut cache = dense.new_cache(CacheType::F32);
        for (i, &t) in tokens.iter().enumerate() {
            let logits = dense.forward(&[t], &mut cache, &mut scratch).unwrap();
            let d = max_diff(&logits, &expected[i]);
            assert!(d < 1e-4, "{:?} {dtype:?} step {i}: {d}", spec.arch);
        }
        // A prompt in uneven chunks, then cut back and continued differently.
        let mut cache = dense.new_cache(CacheType::F32);
        let mut end = 0;
        for len in [1, 7, 13, 19] {
            let logits = dense
                .forward(&tokens[end..end + len], &mut cache, &mut scratch)
                .unwrap();
            end += len;
            let d = max_diff(&logits, &expected[end - 1]);
            assert!(d < 1e-4, "{:?} chunk ending {end}: {d}", spec.arch);
        }
        cache.truncate(20);
        let logits = dense
            .forward(&tokens[20..30], &mut cache, &mut scratch)
            .unwrap();
        assert!(max_diff(&logits, &expected[29]) < 1e-4, "{:?}", spec.arch);
        assert_eq!(cache.len(), 30);
    }
}

#[test]
fn bad_tokens_and_overflow_are_errors_that_leave_the_cache_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = TinySpec {
        max_position_embeddings: 8,
        ..TinySpec::llama(5)
    };
    write_tiny_model(tmp.path(), &spec).unwrap();
    let (config, weights) = load(tmp.path());
    let dense = Dense::from_hf(&config, &weights).unwrap().unwrap();
    let mut scratch = Scratch::default();
    let mut cache = dense.new_cache(CacheType::F32);
    dense.forward(&[1, 2, 3], &mut cache, &mut scratch).unwrap();
    let err = dense
        .forward(&[4, 1_000_000], &mut cache, &mut scratch)
        .unwrap_err();
    assert!(
        err.contains("token 1000000 is outside the vocabulary"),
        "{err}"
    );
    assert_eq!(cache.len(), 3);
    assert_eq!(cache.layer(0).keys_len(), 3 * dense.cfg.heads.kv_width());
    let err = dense
        .forward(&[1; 6], &mut cache, &mut scratch)
        .unwrap_err();
    assert!(
        err.contains("9 positions exceed the model's context of 8"),
        "{err}"
    );
    assert_eq!(cache.len(), 3);
    assert!(dense.forward(&[], &mut cache, &mut scratch).is_err());
}
