//! Loading model directories and GGUF files, and the errors for broken ones.

mod common;

use common::{gguf, max_diff};
use serde_json::Value;
use std::path::{Path, PathBuf};
use tool_models::generate::Session;
use tool_models::model::tiny::{tiny_token_id, write_tiny_gguf, write_tiny_model, TinySpec};
use tool_models::model::{Model, ModelError};
use tool_models::parse::Format;
use tool_models::template::RenderOptions;
use tool_runtime::Message;

fn tiny(spec: &TinySpec) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("model");
    write_tiny_model(&dir, spec).unwrap();
    (tmp, dir)
}

fn load_err(path: &Path) -> String {
    Model::load(path)
        .expect_err("expected an error")
        .to_string()
}

/// Asserts that `err` mentions every one of `words`.
fn assert_mentions(err: &str, words: &[&str]) {
    assert!(words.iter().all(|w| err.contains(w)), "{err}");
}

fn edit_json(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn tiny_models_load_with_their_tokenizer_template_and_eos() {
    for (spec, arch) in [
        (TinySpec::llama(1), "LlamaForCausalLM"),
        (TinySpec::qwen2(1), "Qwen2ForCausalLM"),
    ] {
        let (_tmp, dir) = tiny(&spec);
        let model = Model::load(&dir).unwrap();
        assert_eq!(model.architecture(), arch);
        let im_end = tiny_token_id("<|im_end|>").unwrap();
        let eot = tiny_token_id("<|endoftext|>").unwrap();
        assert_eq!(model.eos_token_ids(), &[im_end, eot]);
        assert_eq!(model.bos_token_id(), Some(eot));
        assert_eq!(model.context_length(), spec.max_position_embeddings);
        assert_eq!(model.vocab_size(), model.tokenizer().vocab_size());
        assert_eq!(model.tool_format(), Some(Format::Hermes));

        let h = spec.hidden_size;
        let kv = h / spec.num_heads * spec.num_kv_heads;
        let layer = 2 * h + 2 * h * h + 2 * h * kv + 3 * h * spec.intermediate_size;
        let biases = if arch == "Qwen2ForCausalLM" {
            h + 2 * kv
        } else {
            0
        };
        let embed = model.vocab_size() * h;
        let head = if spec.tie_word_embeddings { 0 } else { embed };
        let expected = embed + head + h + spec.num_layers * (layer + biases);
        assert_eq!(model.parameter_count(), Some(expected as u64));

        let template = model.chat_template().expect("a chat template");
        let prompt = template
            .render(&RenderOptions::new(&[Message::user("Hi")]).add_generation_prompt(true))
            .unwrap()
            .text;
        assert_eq!(
            prompt,
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
        let ids = model.tokenizer().encode(&prompt).unwrap();
        let im_start = tiny_token_id("<|im_start|>").unwrap();
        assert_eq!(ids[0], im_start, "no BOS is added in front of the prompt");
        assert_eq!(ids.iter().filter(|&&t| t == im_start).count(), 2);
        assert_eq!(model.tokenizer().decode(&ids).unwrap(), prompt);
        let call = model
            .tokenizer()
            .encode("<tool_call>{\"a\": 1}</tool_call>")
            .unwrap();
        assert_eq!(call[0], tiny_token_id("<tool_call>").unwrap());
        assert_eq!(
            *call.last().unwrap(),
            tiny_token_id("</tool_call>").unwrap()
        );
    }
}

#[test]
fn the_same_seed_writes_the_same_files_and_another_seed_other_weights() {
    let (_a, a) = tiny(&TinySpec::llama(5));
    let (_b, b) = tiny(&TinySpec::llama(5));
    let (_c, c) = tiny(&TinySpec::llama(6));
    for file in [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "generation_config.json",
    ] {
        assert_eq!(
            std::fs::read(a.join(file)).unwrap(),
            std::fs::read(b.join(file)).unwrap(),
            "{file}"
        );
    }
    assert_ne!(
        std::fs::read(a.join("model.safetensors")).unwrap(),
        std::fs::read(c.join("model.safetensors")).unwrap()
    );
}

#[test]
fn missing_files_are_named() {
    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    std::fs::remove_file(dir.join("tokenizer.json")).unwrap();
    assert_mentions(&load_err(&dir), &["tokenizer.json", "missing"]);

    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    std::fs::remove_file(dir.join("config.json")).unwrap();
    assert_mentions(&load_err(&dir), &["config.json", "missing"]);

    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    std::fs::remove_file(dir.join("model.safetensors")).unwrap();
    assert_mentions(&load_err(&dir), &["model.safetensors", "index"]);

    assert_mentions(&load_err(&dir.join("nowhere")), &["nowhere", "missing"]);
}

#[test]
fn corrupt_files_are_named_with_what_is_wrong() {
    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    std::fs::write(
        dir.join("config.json"),
        "{\n  \"hidden_size\": 64,\n  oops\n}",
    )
    .unwrap();
    let err = Model::load(&dir).unwrap_err();
    assert!(matches!(err, ModelError::Json { .. }), "{err:?}");
    let err = err.to_string();
    assert!(
        err.contains("config.json") && err.contains("line 3"),
        "{err}"
    );

    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    let weights = dir.join("model.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
    assert_mentions(&load_err(&dir), &["model.safetensors", "truncated"]);

    let (_tmp, dir) = tiny(&TinySpec::qwen2(1));
    std::fs::write(dir.join("tokenizer.json"), "{\"model\": 3}").unwrap();
    assert_mentions(
        &load_err(&dir),
        &["tokenizer.json", "not a valid tokenizer"],
    );

    let (_tmp, dir) = tiny(&TinySpec::qwen2(1));
    std::fs::write(dir.join("generation_config.json"), "[1,").unwrap();
    assert_mentions(&load_err(&dir), &["generation_config.json", "line 1"]);
}

#[test]
fn inconsistent_files_are_errors_not_panics() {
    // The tokenizer has more tokens than the embedding has rows.
    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    edit_json(&dir.join("config.json"), |c| c["vocab_size"] = 100.into());
    assert_mentions(&load_err(&dir), &["tokenizer.json", "100"]);

    // A Llama layer tensor is missing (candle's loader would panic).
    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    edit_json(&dir.join("config.json"), |c| {
        c["num_hidden_layers"] = 3.into()
    });
    assert_mentions(&load_err(&dir), &["model.layers.2", "missing"]);

    // A shape that disagrees with config.json.
    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    edit_json(&dir.join("config.json"), |c| {
        c["intermediate_size"] = 96.into()
    });
    assert_mentions(&load_err(&dir), &["gate_proj", "shape"]);

    // Untied config without lm_head.weight.
    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    edit_json(&dir.join("config.json"), |c| {
        c["tie_word_embeddings"] = false.into()
    });
    assert_mentions(&load_err(&dir), &["lm_head.weight", "tie_word_embeddings"]);

    // tokenizer_config.json names an eos token the tokenizer lacks.
    let (_tmp, dir) = tiny(&TinySpec::qwen2(1));
    edit_json(&dir.join("tokenizer_config.json"), |c| {
        c["eos_token"] = "<eos>".into()
    });
    assert_mentions(&load_err(&dir), &["tokenizer_config.json", "<eos>"]);

    // added_tokens_decoder disagrees with tokenizer.json.
    let (_tmp, dir) = tiny(&TinySpec::qwen2(1));
    edit_json(&dir.join("tokenizer_config.json"), |c| {
        let id = tiny_token_id("<|im_end|>").unwrap().to_string();
        c["added_tokens_decoder"][&id]["content"] = "<|im_start|>".into();
    });
    assert_mentions(&load_err(&dir), &["tokenizer_config.json", "<|im_start|>"]);

    // An eos id beyond the vocabulary.
    let (_tmp, dir) = tiny(&TinySpec::qwen2(1));
    edit_json(&dir.join("generation_config.json"), |c| {
        c["eos_token_id"] = 100000.into()
    });
    assert_mentions(&load_err(&dir), &["100000", "outside"]);
}

#[test]
fn unsupported_architectures_list_the_supported_ones() {
    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    edit_json(&dir.join("config.json"), |c| {
        c["architectures"] = serde_json::json!(["GPTNeoXForCausalLM"])
    });
    let err = load_err(&dir);
    assert!(
        err.contains("GPTNeoXForCausalLM")
            && err.contains("Qwen3ForCausalLM")
            && err.contains("Gemma3ForCausalLM"),
        "{err}"
    );

    let (_tmp, dir) = tiny(&TinySpec::llama(1));
    // Linear scaling is computed now; YaRN is not, and says so.
    edit_json(&dir.join("config.json"), |c| {
        c["rope_scaling"] = serde_json::json!({"type": "yarn", "factor": 2.0})
    });
    assert_mentions(
        &load_err(&dir),
        &["rope_scaling", "yarn", "llama3", "longrope"],
    );
}

#[test]
fn model_type_is_the_fallback_for_a_missing_architectures_list() {
    let (_tmp, dir) = tiny(&TinySpec::qwen2(3));
    edit_json(&dir.join("config.json"), |c| {
        c.as_object_mut().unwrap().remove("architectures");
    });
    assert_eq!(
        Model::load(&dir).unwrap().architecture(),
        "Qwen2ForCausalLM"
    );
}

#[test]
fn llama3_rope_scaling_is_accepted() {
    let (_tmp, dir) = tiny(&TinySpec::llama(3));
    let prompt = [1u32, 2, 3];
    let plain = Session::new(Model::load(&dir).unwrap())
        .logits(&prompt)
        .unwrap();
    edit_json(&dir.join("config.json"), |c| {
        c["rope_scaling"] = serde_json::json!({
            "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8, "rope_type": "llama3"
        })
    });
    let scaled = Session::new(Model::load(&dir).unwrap())
        .logits(&prompt)
        .unwrap();
    assert_ne!(plain, scaled, "the scaling changes the rotary frequencies");
}

/// Splits `model.safetensors` into two shards with an index, as
/// `save_pretrained` does for large models.
fn shard(dir: &Path) {
    let tensors =
        candle_core::safetensors::load(dir.join("model.safetensors"), &candle_core::Device::Cpu)
            .unwrap();
    let mut names: Vec<&String> = tensors.keys().collect();
    names.sort();
    let (first, second) = names.split_at(names.len() / 2);
    let mut map = serde_json::Map::new();
    for (file, part) in [
        ("model-00001-of-00002.safetensors", first),
        ("model-00002-of-00002.safetensors", second),
    ] {
        let subset: std::collections::HashMap<String, candle_core::Tensor> = part
            .iter()
            .map(|n| ((*n).clone(), tensors[*n].clone()))
            .collect();
        candle_core::safetensors::save(&subset, dir.join(file)).unwrap();
        for n in part {
            map.insert((*n).clone(), file.into());
        }
    }
    let index = serde_json::json!({"metadata": {}, "weight_map": map});
    std::fs::write(dir.join("model.safetensors.index.json"), index.to_string()).unwrap();
    std::fs::remove_file(dir.join("model.safetensors")).unwrap();
}

#[test]
fn sharded_weights_load_the_same_model_and_a_missing_shard_is_named() {
    let (_tmp, dir) = tiny(&TinySpec::qwen2(4));
    let prompt = [1u32, 50, 60, 70];
    let whole = Session::new(Model::load(&dir).unwrap())
        .logits(&prompt)
        .unwrap();
    shard(&dir);
    let sharded = Session::new(Model::load(&dir).unwrap())
        .logits(&prompt)
        .unwrap();
    assert_eq!(whole, sharded);

    std::fs::remove_file(dir.join("model-00002-of-00002.safetensors")).unwrap();
    assert_mentions(
        &load_err(&dir),
        &["model-00002-of-00002.safetensors", "shard"],
    );
}

#[test]
fn gguf_files_load_with_the_same_tokenizer_template_and_logits() {
    for spec in [TinySpec::llama(9), TinySpec::qwen2(9)] {
        let (tmp, dir) = tiny(&spec);
        let gguf = tmp.path().join("tiny.gguf");
        write_tiny_gguf(&gguf, &spec).unwrap();
        let hf = Model::load(&dir).unwrap();
        let q = Model::load(&gguf).unwrap();
        assert!(
            q.architecture().starts_with("gguf:"),
            "{}",
            q.architecture()
        );
        assert_eq!(q.tool_format(), Some(Format::Hermes));
        assert_eq!(q.eos_token_ids(), &[tiny_token_id("<|im_end|>").unwrap()]);
        assert_eq!(q.vocab_size(), hf.vocab_size());
        for text in [
            "<|im_start|>user\nWhat's the weather in Paris?<|im_end|>\n",
            "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 12345}}\n</tool_call>",
            "  spaces\n\n\tand ünïcödé 🌍 there the",
        ] {
            assert_eq!(
                q.tokenizer().encode(text).unwrap(),
                hf.tokenizer().encode(text).unwrap(),
                "{text:?}"
            );
        }
        let prompt = hf
            .tokenizer()
            .encode("<|im_start|>user\nHi there<|im_end|>\n")
            .unwrap();
        let (mut hf, mut q) = (Session::new(hf), Session::new(q));
        let d = max_diff(&hf.logits(&prompt).unwrap(), &q.logits(&prompt).unwrap());
        assert!(d < 1e-4, "{:?}: GGUF logits differ by {d}", spec.arch);
    }
}

#[test]
fn a_corrupt_gguf_file_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("bad.gguf");
    write_tiny_gguf(&path, &TinySpec::llama(1)).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..200]).unwrap();
    let err = load_err(&path);
    assert!(err.contains("bad.gguf"), "{err}");
}

#[test]
fn models_can_move_between_threads() {
    fn send<T: Send + 'static>() {}
    fn shared<T: Send + Sync + 'static>() {}
    shared::<Model>();
    send::<Session>();
    shared::<tool_models::model::Tokenizer>();
    let (_tmp, dir) = tiny(&TinySpec::qwen2(8));
    let mut session = Session::new(Model::load(&dir).unwrap());
    let logits = std::thread::spawn(move || session.logits(&[1, 2, 3]).unwrap())
        .join()
        .unwrap();
    assert_eq!(logits.len(), tool_models::model::tiny::TINY_VOCAB_SIZE);
}

/// Every file of `dir`, read into memory.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn from_memory(name: &str, files: &[(String, Vec<u8>)]) -> Result<Model, ModelError> {
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    Model::from_files(name, &borrowed)
}

#[test]
fn a_model_in_memory_loads_as_its_directory_does() {
    let (_tmp, dir) = tiny(&TinySpec::qwen2(3));
    let prompt = [1u32, 50, 60, 70];
    let on_disk = Model::load(&dir).unwrap();
    let files = files_of(&dir);
    let in_memory = from_memory("embedded-qwen", &files).unwrap();
    assert_eq!(in_memory.path(), Path::new("embedded-qwen"));
    assert_eq!(in_memory.architecture(), on_disk.architecture());
    assert_eq!(in_memory.eos_token_ids(), on_disk.eos_token_ids());
    assert_eq!(in_memory.bos_token_id(), on_disk.bos_token_id());
    assert_eq!(in_memory.tool_format(), on_disk.tool_format());
    assert_eq!(in_memory.parameter_count(), on_disk.parameter_count());
    let messages = [Message::user("Hi")];
    let render = |m: &Model| {
        m.chat_template()
            .unwrap()
            .render(&RenderOptions::new(&messages).add_generation_prompt(true))
            .unwrap()
            .text
    };
    assert_eq!(render(&in_memory), render(&on_disk));
    let (mut a, mut b) = (Session::new(on_disk), Session::new(in_memory));
    assert_eq!(a.logits(&prompt).unwrap(), b.logits(&prompt).unwrap());

    // Shards held in memory too.
    shard(&dir);
    let mut sharded = Session::new(from_memory("embedded-qwen", &files_of(&dir)).unwrap());
    assert_eq!(sharded.logits(&prompt).unwrap(), a.logits(&prompt).unwrap());
}

#[test]
fn a_model_in_memory_names_what_is_missing_or_broken() {
    let (_tmp, dir) = tiny(&TinySpec::llama(2));
    let files = files_of(&dir);
    let without = |name: &str| -> Vec<(String, Vec<u8>)> {
        files.iter().filter(|(n, _)| n != name).cloned().collect()
    };
    for name in ["config.json", "tokenizer.json"] {
        let err = from_memory("<embedded>", &without(name))
            .expect_err("a missing file")
            .to_string();
        assert!(
            err.contains(&format!("<embedded>/{name}")) && err.contains("missing"),
            "{err}"
        );
    }
    let err = from_memory("<embedded>", &without("model.safetensors"))
        .expect_err("no weights")
        .to_string();
    assert!(err.contains("model.safetensors"), "{err}");

    // A truncated file is an error, not a panic.
    let truncated: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(n, b)| {
            let keep = if n == "model.safetensors" {
                b.len() / 2
            } else {
                b.len()
            };
            (n.clone(), b[..keep].to_vec())
        })
        .collect();
    let err = from_memory("<embedded>", &truncated)
        .expect_err("truncated weights")
        .to_string();
    assert!(err.contains("<embedded>/model.safetensors"), "{err}");

    // Text that is not UTF-8.
    let mut garbled = files.clone();
    for (n, b) in &mut garbled {
        if n == "config.json" {
            b.insert(0, 0xff);
        }
    }
    let err = from_memory("<embedded>", &garbled)
        .expect_err("not UTF-8")
        .to_string();
    assert!(
        err.contains("config.json") && err.contains("UTF-8"),
        "{err}"
    );
}

/// Plain text gets the BOS a GGUF file asks for with
/// `tokenizer.ggml.add_bos_token` (and none where it says false or, for a
/// byte-level BPE tokenizer, says nothing, as llama.cpp reads it); a
/// rendered prompt, which holds its own special tokens, never does.
#[test]
fn plain_text_gets_the_bos_a_gguf_file_asks_for() {
    use candle_core::quantized::gguf_file::Value as G;
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain.gguf");
    write_tiny_gguf(&plain, &TinySpec::qwen2(1)).unwrap();
    let (content, tensors) = gguf::read(&plain);
    let with_flag = |name: &str, flag: Option<bool>| -> PathBuf {
        let path = tmp.path().join(name);
        let mut meta: Vec<(&str, G)> = content
            .metadata
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        if let Some(flag) = flag {
            meta.push(("tokenizer.ggml.add_bos_token", G::Bool(flag)));
        }
        gguf::write(&path, meta.iter().map(|(k, v)| (*k, v)), &tensors);
        path
    };
    let bos = tiny_token_id("<|endoftext|>").unwrap();
    for (path, adds) in [
        (with_flag("bos.gguf", Some(true)), true),
        (with_flag("no-bos.gguf", Some(false)), false),
        (plain, false),
    ] {
        let model = Model::load(&path).unwrap();
        let tokenizer = model.tokenizer();
        let text = tokenizer.encode("Hello").unwrap();
        let plain_text = tokenizer.encode_text("Hello").unwrap();
        if adds {
            assert_eq!(plain_text[0], bos, "{path:?}");
            assert_eq!(plain_text[1..], text[..], "{path:?}");
        } else {
            assert_eq!(plain_text, text, "{path:?}");
        }
        assert_ne!(
            text[0], bos,
            "{path:?}: a rendered prompt gets nothing added"
        );
    }
}

/// A Qwen 2 with its sliding window on runs on candle-transformers, whose
/// cache is f32: an f16 cache is refused by name, at load and after.
#[test]
fn a_model_candle_runs_refuses_an_f16_cache_by_name() {
    use tool_models::model::{CacheType, LoadOptions};
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), &TinySpec::qwen2(5)).unwrap();
    let path = tmp.path().join("config.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["use_sliding_window"] = serde_json::json!(true);
    std::fs::write(&path, config.to_string()).unwrap();
    let half = LoadOptions::default().cache_type(CacheType::F16);
    let err = Model::load_with(tmp.path(), &half).unwrap_err().to_string();
    assert!(err.contains("f16") && err.contains("candle"), "{err}");
    let mut model = Model::load(tmp.path()).unwrap();
    assert_eq!(model.kv_bytes_per_position(), None, "runs on candle");
    assert!(model.set_cache_type(CacheType::F16).is_err());
    model.set_cache_type(CacheType::F32).unwrap();
    assert_eq!(model.cache_type(), CacheType::F32);
}
