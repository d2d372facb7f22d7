//! Every supported architecture loads from a Hugging Face directory, and
//! its KV cache gives the logits of a full recomputation.
//!
//! Each model here is a random 2-layer network under the architecture's own
//! tensor names, with the tiny tokenizer.

mod common;

use common::{gguf, max_diff};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use tool_models::generate::{GenerateOptions, Session};
use tool_models::model::tiny::{write_tiny_model, TinySpec, TINY_VOCAB_SIZE};
use tool_models::model::Model;

const H: usize = 64;
const HEADS: usize = 4;
const KV_HEADS: usize = 2;
const HEAD_DIM: usize = 16;
const I: usize = 128;
const LAYERS: usize = 2;
const Q: usize = HEADS * HEAD_DIM;
const KV: usize = KV_HEADS * HEAD_DIM;

/// A seeded uniform generator, so that every run tests the same weights.
struct Lcg(u64);

impl Lcg {
    fn uniform(&mut self, scale: f32) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
    }
}

/// Tensors named `{layer}` per layer, with their shapes; `norm` marks
/// norm weights (around 1, or around 0 for Gemma's `1 + w`).
struct Layout {
    global: Vec<(&'static str, Vec<usize>)>,
    layer: Vec<(&'static str, Vec<usize>)>,
}

fn base_config(arch: &str, model_type: &str) -> Value {
    json!({
        "architectures": [arch],
        "model_type": model_type,
        "hidden_size": H,
        "intermediate_size": I,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "max_position_embeddings": 512,
        "vocab_size": TINY_VOCAB_SIZE,
        "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0,
        "hidden_act": "silu",
        "eos_token_id": 278,
        "bos_token_id": 276,
        "tie_word_embeddings": false,
    })
}

fn common_layer() -> Vec<(&'static str, Vec<usize>)> {
    vec![
        ("input_layernorm.weight", vec![H]),
        ("post_attention_layernorm.weight", vec![H]),
        ("mlp.down_proj.weight", vec![H, I]),
    ]
}

fn attention(q_norm: bool) -> Vec<(&'static str, Vec<usize>)> {
    let mut t = vec![
        ("self_attn.q_proj.weight", vec![Q, H]),
        ("self_attn.k_proj.weight", vec![KV, H]),
        ("self_attn.v_proj.weight", vec![KV, H]),
        ("self_attn.o_proj.weight", vec![H, Q]),
        ("mlp.gate_proj.weight", vec![I, H]),
        ("mlp.up_proj.weight", vec![I, H]),
    ];
    if q_norm {
        t.push(("self_attn.q_norm.weight", vec![HEAD_DIM]));
        t.push(("self_attn.k_norm.weight", vec![HEAD_DIM]));
    }
    t
}

fn gemma_norms() -> Vec<(&'static str, Vec<usize>)> {
    vec![
        ("pre_feedforward_layernorm.weight", vec![H]),
        ("post_feedforward_layernorm.weight", vec![H]),
    ]
}

/// `(architecture, config, layout)` for each architecture besides the tiny
/// writer's own Llama and Qwen2.
fn architectures() -> Vec<(&'static str, Value, Layout)> {
    let with_head = vec![
        ("model.embed_tokens.weight", vec![TINY_VOCAB_SIZE, H]),
        ("model.norm.weight", vec![H]),
        ("lm_head.weight", vec![TINY_VOCAB_SIZE, H]),
    ];
    let tied = with_head[..2].to_vec();

    let mut qwen3 = base_config("Qwen3ForCausalLM", "qwen3");
    qwen3["head_dim"] = json!(HEAD_DIM);
    qwen3["attention_bias"] = json!(false);

    let mistral = base_config("MistralForCausalLM", "mistral");

    let phi3 = base_config("Phi3ForCausalLM", "phi3");
    let mut phi3_layer = common_layer();
    phi3_layer.push(("self_attn.qkv_proj.weight", vec![Q + 2 * KV, H]));
    phi3_layer.push(("self_attn.o_proj.weight", vec![H, Q]));
    phi3_layer.push(("mlp.gate_up_proj.weight", vec![2 * I, H]));

    let mut gemma2 = base_config("Gemma2ForCausalLM", "gemma2");
    gemma2["head_dim"] = json!(HEAD_DIM);
    gemma2["query_pre_attn_scalar"] = json!(HEAD_DIM);
    gemma2["hidden_activation"] = json!("gelu_pytorch_tanh");
    gemma2["tie_word_embeddings"] = json!(true);

    // A short sliding window, so that prompts run past it and the rotating
    // cache of the sliding layers is exercised.
    let mut gemma3 = base_config("Gemma3ForCausalLM", "gemma3_text");
    gemma3["head_dim"] = json!(HEAD_DIM);
    gemma3["query_pre_attn_scalar"] = json!(HEAD_DIM);
    gemma3["hidden_activation"] = json!("gelu_pytorch_tanh");
    gemma3["sliding_window"] = json!(8);
    gemma3["sliding_window_pattern"] = json!(2);
    gemma3["rope_local_base_freq"] = json!(10000.0);
    gemma3["tie_word_embeddings"] = json!(true);

    let layer = |extra: Vec<(&'static str, Vec<usize>)>| {
        let mut l = common_layer();
        l.extend(extra);
        l
    };
    vec![
        (
            "Qwen3ForCausalLM",
            qwen3,
            Layout {
                global: with_head.clone(),
                layer: layer(attention(true)),
            },
        ),
        (
            "MistralForCausalLM",
            mistral,
            Layout {
                global: with_head.clone(),
                layer: layer(attention(false)),
            },
        ),
        (
            "Phi3ForCausalLM",
            phi3,
            Layout {
                global: with_head,
                layer: phi3_layer,
            },
        ),
        (
            "Gemma2ForCausalLM",
            gemma2,
            Layout {
                global: tied.clone(),
                layer: layer([attention(false), gemma_norms()].concat()),
            },
        ),
        (
            "Gemma3ForCausalLM",
            gemma3,
            Layout {
                global: tied,
                layer: layer([attention(true), gemma_norms()].concat()),
            },
        ),
    ]
}

/// Writes a model directory: the tiny tokenizer files, `config` and random weights.
fn write(dir: &Path, config: &Value, layout: &Layout, seed: u64) {
    write_tiny_model(dir, &TinySpec::llama(1)).unwrap();
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let mut rng = Lcg(seed);
    let gemma = config["model_type"].as_str().unwrap().starts_with("gemma");
    let mut tensors = HashMap::new();
    let mut add = |name: String, shape: &[usize]| {
        let n: usize = shape.iter().product();
        let is_norm = name.contains("norm");
        let data: Vec<f32> = (0..n)
            .map(|_| match (is_norm, gemma) {
                (true, true) => rng.uniform(0.1),
                (true, false) => 1.0 + rng.uniform(0.1),
                (false, _)
                    if shape.len() == 2 && !name.contains("embed") && !name.contains("lm_head") =>
                {
                    rng.uniform(2.0 / (shape[1] as f32).sqrt())
                }
                (false, _) => rng.uniform(0.5),
            })
            .collect();
        let t = candle_core::Tensor::from_vec(data, shape, &candle_core::Device::Cpu).unwrap();
        tensors.insert(name, t);
    };
    for (name, shape) in &layout.global {
        add((*name).to_owned(), shape);
    }
    for layer in 0..LAYERS {
        for (name, shape) in &layout.layer {
            add(format!("model.layers.{layer}.{name}"), shape);
        }
    }
    candle_core::safetensors::save(&tensors, dir.join("model.safetensors")).unwrap();
}

#[test]
fn every_architecture_loads_and_its_cache_matches_recomputation() {
    for (arch, config, layout) in architectures() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), &config, &layout, 42);
        let mut cached =
            Session::new(Model::load(tmp.path()).unwrap_or_else(|e| panic!("{arch}: {e}")));
        let mut fresh = Session::new(Model::load(tmp.path()).unwrap());
        assert_eq!(cached.model().architecture(), arch);
        assert_eq!(cached.model().context_length(), 512);
        let tokens = cached
            .model()
            .tokenizer()
            .encode(
                "<|im_start|>user\nWeather in Paris, France?<|im_end|>\n<|im_start|>assistant\n",
            )
            .unwrap();
        assert!(tokens.len() > 16, "longer than the sliding window");
        let start = 3;
        cached.logits(&tokens[..start]).unwrap();
        for end in start + 1..=tokens.len() {
            let step = cached.logits(&tokens[..end]).unwrap();
            fresh.reset_cache();
            let full = fresh.logits(&tokens[..end]).unwrap();
            let d = max_diff(&step, &full);
            assert!(d < 1e-4, "{arch} step {end}: logits differ by {d}");
            assert!(
                step.iter().all(|l| l.is_finite()),
                "{arch}: non-finite logits"
            );
        }
        // Distinct positions give distinct logits: the network is not degenerate.
        assert!(
            max_diff(
                &cached.logits(&tokens).unwrap(),
                &cached.logits(&tokens[..5]).unwrap()
            ) > 1e-3
        );
    }
}

#[test]
fn every_architecture_reuses_prefixes_with_the_same_output() {
    for (arch, config, layout) in architectures() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), &config, &layout, 7);
        let mut model = Session::new(Model::load(tmp.path()).unwrap());
        let mut reference = Session::new(Model::load(tmp.path()).unwrap());
        let greedy = GenerateOptions {
            ignore_eos: true,
            ..GenerateOptions::greedy(6)
        };
        // What the reference model generates with nothing cached.
        let from_scratch = |reference: &mut Session, prompt: &[u32]| {
            reference.reset_cache();
            let out = reference.generate(prompt, &greedy, None, &mut |_| {});
            out.unwrap().tokens
        };
        let first = model
            .model()
            .tokenizer()
            .encode("<|im_start|>user\nHi<|im_end|>\n")
            .unwrap();
        let out1 = model.generate(&first, &greedy, None, &mut |_| {}).unwrap();
        let extension = model
            .model()
            .tokenizer()
            .encode("<|im_end|>\n<|im_start|>user\nOK<|im_end|>\n")
            .unwrap();

        // Extending the generation reuses the live cache.
        let mut second = first.clone();
        second.extend(&out1.tokens);
        second.extend(&extension);
        let out2 = model.generate(&second, &greedy, None, &mut |_| {}).unwrap();
        assert_eq!(
            out2.stats.reused_tokens,
            first.len() + out1.tokens.len() - 1,
            "{arch}"
        );
        assert_eq!(out2.tokens, from_scratch(&mut reference, &second), "{arch}");

        // Extending only the last prompt: from the snapshot where the
        // architecture's cache allows one, else recomputed; same output.
        let mut third = second.clone();
        third.extend(&extension);
        let out3 = model.generate(&third, &greedy, None, &mut |_| {}).unwrap();
        let snapshots = arch != "Gemma3ForCausalLM";
        assert_eq!(
            out3.stats.reused_tokens,
            if snapshots { second.len() } else { 0 },
            "{arch}"
        );
        assert_eq!(out3.tokens, from_scratch(&mut reference, &third), "{arch}");
    }
}

/// The GGUF name of a Hugging Face tensor name (Qwen 3 layout).
fn gguf_name(hf: &str) -> String {
    let fixed = [
        ("model.embed_tokens.weight", "token_embd.weight"),
        ("model.norm.weight", "output_norm.weight"),
        ("lm_head.weight", "output.weight"),
    ];
    if let Some((_, g)) = fixed.iter().find(|(h, _)| *h == hf) {
        return (*g).to_owned();
    }
    let rest = hf.strip_prefix("model.layers.").unwrap();
    let (layer, rest) = rest.split_once('.').unwrap();
    let short = match rest {
        "input_layernorm.weight" => "attn_norm",
        "post_attention_layernorm.weight" => "ffn_norm",
        "self_attn.q_proj.weight" => "attn_q",
        "self_attn.k_proj.weight" => "attn_k",
        "self_attn.v_proj.weight" => "attn_v",
        "self_attn.o_proj.weight" => "attn_output",
        "self_attn.q_norm.weight" => "attn_q_norm",
        "self_attn.k_norm.weight" => "attn_k_norm",
        "mlp.gate_proj.weight" => "ffn_gate",
        "mlp.up_proj.weight" => "ffn_up",
        "mlp.down_proj.weight" => "ffn_down",
        other => panic!("unexpected tensor {other}"),
    };
    format!("blk.{layer}.{short}.weight")
}

#[test]
fn a_qwen3_gguf_gives_the_logits_of_its_safetensors_original() {
    use candle_core::quantized::gguf_file::{self, Value as G};
    use candle_core::quantized::{GgmlDType, QTensor};

    let (_, config, layout) = architectures()
        .into_iter()
        .find(|(a, _, _)| *a == "Qwen3ForCausalLM")
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hf");
    write(&dir, &config, &layout, 99);

    // The tokenizer metadata of the tiny GGUF, with Qwen 3 weights.
    let tiny = tmp.path().join("tiny.gguf");
    tool_models::model::tiny::write_tiny_gguf(&tiny, &TinySpec::qwen2(1)).unwrap();
    let content = gguf_file::Content::read(&mut std::fs::File::open(&tiny).unwrap()).unwrap();
    let mut meta: Vec<(String, G)> = content
        .metadata
        .into_iter()
        .filter(|(k, _)| k.starts_with("tokenizer."))
        .collect();
    let u = |n: usize| G::U32(n as u32);
    meta.extend([
        ("general.architecture".to_owned(), G::String("qwen3".into())),
        ("qwen3.context_length".to_owned(), u(512)),
        ("qwen3.embedding_length".to_owned(), u(H)),
        ("qwen3.block_count".to_owned(), u(LAYERS)),
        ("qwen3.feed_forward_length".to_owned(), u(I)),
        ("qwen3.attention.head_count".to_owned(), u(HEADS)),
        ("qwen3.attention.head_count_kv".to_owned(), u(KV_HEADS)),
        ("qwen3.attention.key_length".to_owned(), u(HEAD_DIM)),
        ("qwen3.attention.value_length".to_owned(), u(HEAD_DIM)),
        (
            "qwen3.attention.layer_norm_rms_epsilon".to_owned(),
            G::F32(1e-6),
        ),
        ("qwen3.rope.freq_base".to_owned(), G::F32(10000.0)),
    ]);
    let hf =
        candle_core::safetensors::load(dir.join("model.safetensors"), &candle_core::Device::Cpu)
            .unwrap();
    let mut names: Vec<&String> = hf.keys().collect();
    names.sort();
    let tensors: Vec<(String, QTensor)> = names
        .into_iter()
        .map(|n| {
            (
                gguf_name(n),
                QTensor::quantize(&hf[n], GgmlDType::F32).unwrap(),
            )
        })
        .collect();
    let path = tmp.path().join("qwen3.gguf");
    gguf::write(&path, meta.iter().map(|(k, v)| (k.as_str(), v)), &tensors);

    let mut original = Session::new(Model::load(&dir).unwrap());
    let mut quantized = Session::new(Model::load(&path).unwrap());
    let mut fresh = Session::new(Model::load(&path).unwrap());
    assert_eq!(quantized.model().architecture(), "gguf:qwen3");
    let tokens = original
        .model()
        .tokenizer()
        .encode("<|im_start|>user\nWind in Oslo?<|im_end|>\n<|im_start|>assistant\n")
        .unwrap();
    for end in 2..=tokens.len() {
        let q = quantized.logits(&tokens[..end]).unwrap();
        let d = max_diff(&q, &original.logits(&tokens[..end]).unwrap());
        assert!(
            d < 1e-4,
            "step {end}: GGUF and safetensors logits differ by {d}"
        );
        fresh.reset_cache();
        let d = max_diff(&q, &fresh.logits(&tokens[..end]).unwrap());
        assert!(
            d < 1e-4,
            "step {end}: cached and recomputed GGUF logits differ by {d}"
        );
    }
}

/// SmolLM3, Granite, Phi-3, Qwen 3, Llama 3.x's rotary scaling and
/// Phi-4-mini's shape run on the project's decoder from GGUF (as
/// llama.cpp's converter writes them) and from Hugging Face directories
/// in both config styles (`rope_theta`/`rope_scaling`, and transformers
/// 5's `rope_parameters`): each tiny seeded model gives at every position
/// the logits Python transformers computes from the same weights
/// (`tests/data/tiny_arch_logits.json`, written by
/// `scripts/tiny_arch_references.py`). That covers SmolLM3's NoPE layers,
/// Granite's multipliers, Phi-3's fused matrices, Qwen 3's per-head norms
/// and wide heads, Llama 3's frequency scaling, and Phi-4-mini's partial
/// rotation, LongRoPE and window.
///
/// Each prefix of the prompt, run as a prompt of its own, gives
/// transformers' one pass over it; the whole prompt after its prefixes
/// were cached gives the same; and greedy generation after the first
/// tokens gives transformers' `generate` tokens. The three differ for
/// Phi-4-mini alone: a pass reaching past its pretraining length rotates
/// every position of the pass with LongRoPE's long factors (so a prompt
/// that does reuses nothing rotated with the short ones), while a token
/// decoded past it leaves the cached positions as they were.
#[test]
fn every_decoder_architecture_gives_transformers_logits_from_gguf_and_both_config_styles() {
    use tool_models::model::tiny::ConfigStyle;
    let reference: Value =
        serde_json::from_str(include_str!("data/tiny_arch_logits.json")).unwrap();
    let prompt: Vec<u32> = serde_json::from_value(reference["prompt"].clone()).unwrap();
    let split = reference["split"].as_u64().unwrap() as usize;
    let tmp = tempfile::tempdir().unwrap();
    for (name, class, spec) in [
        ("smollm3", "SmolLM3ForCausalLM", TinySpec::smollm3(7)),
        ("granite", "GraniteForCausalLM", TinySpec::granite(7)),
        ("phi3", "Phi3ForCausalLM", TinySpec::phi3(7)),
        ("qwen3", "Qwen3ForCausalLM", TinySpec::qwen3(7)),
        ("llama3", "LlamaForCausalLM", TinySpec::llama3(7)),
        ("phi4-mini", "Phi3ForCausalLM", TinySpec::phi4_mini(7)),
        ("lfm2", "Lfm2ForCausalLM", TinySpec::lfm2(7)),
        (
            "granite4",
            "GraniteMoeHybridForCausalLM",
            TinySpec::granite_hybrid(7),
        ),
        (
            "granite4-h",
            "GraniteMoeHybridForCausalLM",
            TinySpec::granite_h(7),
        ),
    ] {
        let expected = &reference["models"][name];
        assert_eq!(expected["class"], class);
        let rows = |key: &str| -> Vec<Vec<f32>> {
            let rows: Vec<Vec<f32>> = serde_json::from_value(expected[key].clone()).unwrap();
            assert_eq!(rows.len(), prompt.len());
            rows
        };
        let (whole, prefixes) = (rows("logits"), rows("prefixes"));
        let greedy: Vec<u32> = serde_json::from_value(expected["greedy"].clone()).unwrap();
        let gguf = tmp.path().join(format!("{name}.gguf"));
        tool_models::model::tiny::write_tiny_gguf(&gguf, &spec).unwrap();
        let mut paths = vec![gguf];
        for style in [ConfigStyle::Legacy, ConfigStyle::RopeParameters] {
            let dir = tmp.path().join(format!("{name}-{style:?}"));
            write_tiny_model(&dir, &spec.clone().with_config_style(style)).unwrap();
            paths.push(dir);
        }
        for path in paths {
            let mut model = Session::new(Model::load(&path).unwrap());
            assert!(
                model.model().matrix_formats().is_some(),
                "{path:?} runs on the decoder"
            );
            for (n, row) in prefixes.iter().enumerate() {
                let ours = model.logits(&prompt[..=n]).unwrap();
                let diff = max_diff(&ours, row);
                assert!(
                    diff < 1e-4,
                    "{path:?}, prefix of {}: logits differ by {diff}",
                    n + 1
                );
            }
            let ours = model.logits(&prompt).unwrap();
            let diff = max_diff(&ours, whole.last().unwrap());
            assert!(diff < 1e-4, "{path:?}, one pass: logits differ by {diff}");
            let options = GenerateOptions {
                ignore_eos: true,
                ..GenerateOptions::greedy(greedy.len())
            };
            model.reset_cache();
            let out = model
                .generate(&prompt[..split], &options, None, &mut |_| {})
                .unwrap();
            assert_eq!(out.tokens, greedy, "{path:?}: greedy tokens");
            // Cut back from what was generated to a prefix of the prompt:
            // the cache (an LFM2 convolution's inputs too) keeps exactly it.
            let ours = model.logits(&prompt[..split + 2]).unwrap();
            let diff = max_diff(&ours, &prefixes[split + 1]);
            assert!(diff < 1e-4, "{path:?}, cut back: logits differ by {diff}");
        }
    }
}

/// A LongRoPE GGUF file that does not say its pretraining length (where
/// the short factors give way to the long) is refused, naming the key,
/// rather than run with either set throughout.
#[test]
fn a_longrope_gguf_without_its_original_context_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("phi4.gguf");
    tool_models::model::tiny::write_tiny_gguf(&good, &TinySpec::phi4_mini(7)).unwrap();
    let (content, tensors) = gguf::read(&good);
    let bad = tmp.path().join("phi4-no-original.gguf");
    let metadata = content
        .metadata
        .iter()
        .filter(|(k, _)| k.as_str() != "phi3.rope.scaling.original_context_length")
        .map(|(k, v)| (k.as_str(), v));
    gguf::write(&bad, metadata, &tensors);
    assert!(Model::load(&good).is_ok());
    let e = Model::load(&bad).unwrap_err().to_string();
    assert!(
        e.contains("phi4-no-original.gguf")
            && e.contains("phi3.rope.scaling.original_context_length"),
        "{e}"
    );
}

/// A SmolLM3 or Granite `config.json` whose NoPE layers or multipliers
/// make no sense is refused, naming the key and what was found.
#[test]
fn smollm3_and_granite_configs_that_make_no_sense_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for (spec, key, value, expected) in [
        (
            TinySpec::smollm3(7),
            "no_rope_layers",
            json!([1, 0]),
            "one flag per layer",
        ),
        (
            TinySpec::smollm3(7),
            "no_rope_layers",
            json!([1, 2, 1, 0]),
            "to hold 0 or 1, found 2",
        ),
        (
            TinySpec::granite(7),
            "logits_scaling",
            json!(0),
            "\"logits_scaling\" to be a non-zero number, found 0",
        ),
    ] {
        let dir = tmp.path().join(format!("{key}-{value}"));
        write_tiny_model(&dir, &spec).unwrap();
        let path = dir.join("config.json");
        let mut config: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        config[key] = value;
        std::fs::write(&path, config.to_string()).unwrap();
        let e = Model::load(&dir).unwrap_err().to_string();
        assert!(e.contains("config.json") && e.contains(expected), "{e}");
    }
}
