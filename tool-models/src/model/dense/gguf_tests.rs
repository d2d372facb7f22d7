//! The decoder on quantized GGUF files against candle's quantized models
//! reading the same files, and a prompt against the same tokens one by one.

#[path = "../../../tests/common/gguf.rs"]
mod gguf;

use super::{CacheType, Dense, Scratch};
use crate::model::gguf::candle_metadata;
use crate::model::tiny::{write_tiny_gguf_as, GgufWeights, TinyArch, TinySpec};
use candle_core::quantized::gguf_file::Content;
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use candle_transformers::models::{quantized_llama, quantized_qwen2};
use std::collections::BTreeSet;
use std::fs::File;
use std::path::Path;

/// Rows of 256 values, so Q4_K and Q6_K fit; an MLP width of 576 values,
/// so the down projection falls back to Q5_0 and Q8_0.
fn spec(arch: TinyArch) -> TinySpec {
    TinySpec {
        arch,
        // The hybrid Granite 4's Mamba-2 is sized for its own width.
        hidden_size: if arch == TinyArch::GraniteH { 64 } else { 256 },
        intermediate_size: 576,
        tie_word_embeddings: arch == TinyArch::Llama,
        num_layers: if matches!(arch, TinyArch::Lfm2 | TinyArch::GraniteH) {
            3
        } else {
            2
        },
        ..TinySpec::llama(11)
    }
}

fn dense(path: &Path, arch: TinyArch) -> Dense {
    let gguf = crate::gguf::read_file(path).unwrap();
    let vocab = gguf.tensors["token_embd.weight"].dims[0];
    Dense::from_gguf(
        &gguf.tensors,
        &candle_metadata(gguf.metadata),
        path,
        arch.gguf_name(),
        1024,
        vocab,
        super::Storage::default(),
    )
    .unwrap()
    .expect("the decoder runs this file")
}

/// One token of candle's model at a position.
type Step = dyn FnMut(&Tensor, usize) -> Tensor;

/// candle's logits after each token of `tokens`, run one at a time.
fn candle_steps(path: &Path, arch: TinyArch, tokens: &[u32]) -> Vec<Vec<f32>> {
    let mut file = File::open(path).unwrap();
    let content = Content::read(&mut file).unwrap();
    let mut step: Box<Step> = match arch {
        TinyArch::Llama => {
            let mut m =
                quantized_llama::ModelWeights::from_gguf(content, &mut file, &Device::Cpu).unwrap();
            Box::new(move |x, pos| m.forward(x, pos).unwrap())
        }
        TinyArch::Qwen2 => {
            let mut m =
                quantized_qwen2::ModelWeights::from_gguf(content, &mut file, &Device::Cpu).unwrap();
            Box::new(move |x, pos| m.forward(x, pos).unwrap())
        }
        // Checked against transformers instead (`tests/model_architectures.rs`).
        TinyArch::SmolLM3
        | TinyArch::Granite
        | TinyArch::Phi3
        | TinyArch::Qwen3
        | TinyArch::Llama3
        | TinyArch::Phi4Mini
        | TinyArch::Lfm2
        | TinyArch::GraniteHybrid
        | TinyArch::GraniteH => {
            panic!("checked against transformers instead")
        }
    };
    tokens
        .iter()
        .enumerate()
        .map(|(pos, &t)| {
            let x = Tensor::new(&[t], &Device::Cpu)
                .unwrap()
                .unsqueeze(0)
                .unwrap();
            step(&x, pos).flatten_all().unwrap().to_vec1().unwrap()
        })
        .collect()
}

fn dense_steps(model: &Dense, tokens: &[u32]) -> Vec<Vec<f32>> {
    let mut cache = model.new_cache(CacheType::F32);
    let mut scratch = Scratch::default();
    tokens
        .iter()
        .map(|t| model.forward(&[*t], &mut cache, &mut scratch).unwrap())
        .collect()
}

/// The largest difference, relative to the largest logit.
fn relative_diff(a: &[f32], b: &[f32]) -> f32 {
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
        / scale
}

const TOKENS: [u32; 12] = [1, 50, 60, 70, 80, 90, 100, 33, 7, 250, 120, 3];

/// The file at `path` with every tensor widened to f32: the same weights
/// without the quantization of the activations.
fn widened(path: &Path, to: &Path) {
    let (content, tensors) = gguf::read(path);
    let tensors: Vec<(String, QTensor)> = tensors
        .into_iter()
        .map(|(name, t)| {
            let wide = t.dequantize(&Device::Cpu).unwrap();
            (name, QTensor::quantize(&wide, GgmlDType::F32).unwrap())
        })
        .collect();
    let metadata = content.metadata.iter().map(|(k, v)| (k.as_str(), v));
    gguf::write(to, metadata, &tensors);
}

/// Each quantized file, run by the decoder and by candle, against the
/// same weights widened to f32: both carry the rounding of the activations
/// to 8 bits (1–2% of the largest logit on these random weights), ours no
/// more than candle's (whose blocks keep an f16 scale, ours an f32 one).
#[test]
fn quantized_files_agree_with_their_widened_weights_as_closely_as_candle() {
    let tmp = tempfile::tempdir().unwrap();
    for arch in [TinyArch::Llama, TinyArch::Qwen2] {
        for (payload, formats) in [
            (GgufWeights::Q8_0, vec![GgmlDType::F32, GgmlDType::Q8_0]),
            (
                GgufWeights::Q4K,
                vec![
                    GgmlDType::F32,
                    GgmlDType::Q8_0,
                    GgmlDType::Q5_0,
                    GgmlDType::Q4K,
                    GgmlDType::Q6K,
                ],
            ),
            (GgufWeights::Q4_1, vec![GgmlDType::F32, GgmlDType::Q4_1]),
            (
                GgufWeights::Mixed,
                vec![
                    GgmlDType::F32,
                    GgmlDType::Q8_0,
                    GgmlDType::Q4_0,
                    GgmlDType::Q5_1,
                    GgmlDType::Q2K,
                    GgmlDType::Q3K,
                    GgmlDType::Q5K,
                ],
            ),
        ] {
            let path = tmp.path().join(format!("{arch:?}-{payload:?}.gguf"));
            write_tiny_gguf_as(&path, &spec(arch), payload).unwrap();
            let content = Content::read(&mut File::open(&path).unwrap()).unwrap();
            let stored: BTreeSet<String> = content
                .tensor_infos
                .values()
                .map(|t| format!("{:?}", t.ggml_dtype))
                .collect();
            let wanted: BTreeSet<String> = formats.iter().map(|f| format!("{f:?}")).collect();
            assert_eq!(stored, wanted, "{arch:?} {payload:?}");
            let exact_path = tmp.path().join("widened.gguf");
            widened(&path, &exact_path);

            let model = dense(&path, arch);
            // Every stored format is computed with as stored, none widened.
            let formats = model.matrix_formats();
            assert!(
                formats.keys().all(|f| !f.contains("widened")),
                "{arch:?} {payload:?}: {formats:?}"
            );
            assert_eq!(formats.len(), wanted.len() - 1, "{formats:?}"); // norms: f32 vectors
            let ours = dense_steps(&model, &TOKENS);
            let theirs = candle_steps(&path, arch, &TOKENS);
            let exact = dense_steps(&dense(&exact_path, arch), &TOKENS);
            let (mut worst_ours, mut worst_theirs) = (0f32, 0f32);
            for (step, exact) in exact.iter().enumerate() {
                worst_ours = worst_ours.max(relative_diff(&ours[step], exact));
                worst_theirs = worst_theirs.max(relative_diff(&theirs[step], exact));
            }
            assert!(
                worst_ours < 0.03 && worst_ours <= 1.5 * worst_theirs,
                "{arch:?} {payload:?}: ours differs by {worst_ours}, candle by {worst_theirs}"
            );
        }
    }
}

#[test]
fn a_quantized_prompt_gives_the_logits_of_its_tokens_one_by_one() {
    let tmp = tempfile::tempdir().unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    // Past `Quant::vector_rows` (48 for Q4_K), so the rest of the prompt
    // takes the widened product.
    let tokens: Vec<u32> = (0..60).map(|i| (i * 37 + 11) % 200).collect();
    // Repacked, every product is an integer product over many rows,
    // whatever the rows: the same bits for a row with others or alone.
    for (arch, repack) in [
        (TinyArch::Llama, false),
        (TinyArch::Qwen2, false),
        (TinyArch::Llama, true),
        (TinyArch::Qwen2, true),
    ] {
        let path = tmp.path().join("model.gguf");
        write_tiny_gguf_as(&path, &spec(arch), GgufWeights::Q4K).unwrap();
        let model = dense(&path, arch);
        if repack {
            assert!(model.repack() > 0, "the Q4_K matrices repack");
        }
        let steps = dense_steps(&model, &tokens);
        let mut cache = model.new_cache(CacheType::F32);
        let mut scratch = Scratch::default();
        let (head, tail) = tokens.split_at(7);
        // A short prompt takes the decode step's integer products, and
        // attends row by row as it does.
        let first = model.forward(head, &mut cache, &mut scratch).unwrap();
        assert_eq!(
            bits(&first),
            bits(&steps[6]),
            "{arch:?}, repacked {repack}: a short prompt"
        );
        let last = model.forward(tail, &mut cache, &mut scratch).unwrap();
        let d = relative_diff(&last, &steps[59]);
        // A long prompt's products use the widened weights, on activations
        // rounded as the integer kernels round them; each activation that
        // float noise puts across a rounding step moves a logit by about
        // 1e-3 (over 53 positions, a few do), a wrong weight by far more.
        assert!(
            d < 2e-2,
            "{arch:?}, repacked {repack}: a long prompt differs by {d}"
        );
    }
}

#[test]
fn sequences_decoded_together_get_the_logits_each_gets_alone_bit_for_bit() {
    use super::{KvCache, Step};
    let tmp = tempfile::tempdir().unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    // Repacked, the batch's products are integer products over many rows
    // where a sequence alone takes them over one: the same bits.
    for (arch, weights, repack) in [
        (TinyArch::Llama, GgufWeights::Q4K, false),
        (TinyArch::Qwen2, GgufWeights::Q4_1, false),
        (TinyArch::Llama, GgufWeights::F32, false),
        // Convolutions among attention layers.
        (TinyArch::Lfm2, GgufWeights::Q4K, false),
        // Mamba-2 layers around an attention layer.
        (TinyArch::GraniteH, GgufWeights::Q8_0, false),
        (TinyArch::Llama, GgufWeights::Q4K, true),
        (TinyArch::Qwen2, GgufWeights::Q4_1, true),
        (TinyArch::GraniteH, GgufWeights::Q8_0, true),
    ] {
        let path = tmp.path().join("model.gguf");
        write_tiny_gguf_as(&path, &spec(arch), weights).unwrap();
        let model = dense(&path, arch);
        if repack {
            assert!(model.repack() > 0);
        }
        // `tokens[i]` after `caches[i]`, in one pass.
        let together = |caches: &mut [KvCache], tokens: &[&[u32]], scratch: &mut Scratch| {
            let mut steps: Vec<Step<'_>> = (caches.iter_mut().zip(tokens))
                .map(|(cache, tokens)| Step { tokens, cache })
                .collect();
            model.forward_steps(&mut steps, scratch).unwrap()
        };
        // Prompts of different lengths, so the sequences sit at different
        // positions, then three decode steps.
        let prompts: [&[u32]; 4] = [&TOKENS[..5], &TOKENS[2..3], &TOKENS[..9], &TOKENS[4..11]];
        let next: [[u32; 3]; 4] = [[9, 8, 7], [200, 1, 2], [5, 5, 5], [31, 41, 59]];
        let mut scratch = Scratch::default();
        let alone: Vec<Vec<Vec<f32>>> = (prompts.iter().zip(&next))
            .map(|(prompt, next)| {
                let mut cache = model.new_cache(CacheType::F32);
                model.forward(prompt, &mut cache, &mut scratch).unwrap();
                next.iter()
                    .map(|t| model.forward(&[*t], &mut cache, &mut scratch).unwrap())
                    .collect()
            })
            .collect();
        let mut caches: Vec<_> = prompts
            .iter()
            .map(|prompt| {
                let mut cache = model.new_cache(CacheType::F32);
                model.forward(prompt, &mut cache, &mut scratch).unwrap();
                cache
            })
            .collect();
        for step in 0..3 {
            let tokens: Vec<[u32; 1]> = next.iter().map(|n| [n[step]]).collect();
            let tokens: Vec<&[u32]> = tokens.iter().map(|t| &t[..]).collect();
            let together = together(&mut caches, &tokens, &mut scratch);
            for (s, logits) in together.iter().enumerate() {
                assert_eq!(
                    bits(logits),
                    bits(&alone[s][step]),
                    "{arch:?} {weights:?} repacked {repack}: sequence {s}, step {step}"
                );
            }
        }
        for (cache, prompt) in caches.iter().zip(prompts) {
            assert_eq!(cache.len(), prompt.len() + 3);
        }
        // Prompts run together as they run alone (one token, two, a few,
        // more than a quantized matrix multiplies as vectors), after caches
        // of different lengths.
        let long: Vec<u32> = (0..60).map(|i| (i * 13 + 5) % 200).collect();
        let more: [&[u32]; 4] = [&TOKENS[1..4], &long, &TOKENS[6..8], &TOKENS[3..4]];
        let alone: Vec<Vec<f32>> = (caches.iter().zip(&more))
            .map(|(cache, tokens)| {
                let mut cache = cache.clone();
                model.forward(tokens, &mut cache, &mut scratch).unwrap()
            })
            .collect();
        let together = together(&mut caches, &more, &mut scratch);
        for (s, logits) in together.iter().enumerate() {
            assert_eq!(
                bits(logits),
                bits(&alone[s]),
                "{arch:?} {weights:?} repacked {repack}: prompt {s}"
            );
        }
        // A step past the context fails and leaves every cache as it was.
        let mut long = model.new_cache(CacheType::F32);
        let filler: Vec<u32> = (0..1024).map(|i| i % 200).collect();
        model.forward(&filler, &mut long, &mut scratch).unwrap();
        let mut short = model.new_cache(CacheType::F32);
        model.forward(&[1, 2], &mut short, &mut scratch).unwrap();
        let mut steps = [
            Step {
                tokens: &[3],
                cache: &mut short,
            },
            Step {
                tokens: &[3],
                cache: &mut long,
            },
        ];
        let err = model.forward_steps(&mut steps, &mut scratch).unwrap_err();
        assert!(err.contains("context"), "{err}");
        assert_eq!((short.len(), long.len()), (2, 1024));
    }
}
