//! Token environments from Hugging Face tokenizers: the bytes behind tokens.

mod constrain_util;

use constrain_util::{small, tokenizer, unsign_zeros, Bias, RandomModel, SPECIALS};
use serde_json::{json, Value};
use tokenizers::Tokenizer;
use tool_models::constrain::{ConstrainError, JsonConstraint, TokenEnv};

#[test]
fn byte_level_tokens_and_specials() {
    let (tok, env) = small();
    assert_eq!(env.vocab_size(), tok.get_vocab_size(true));
    let id = |s: &str| tok.token_to_id(s).unwrap();
    assert_eq!(env.token_bytes(id("Ġthe")), b" the");
    assert_eq!(env.token_bytes(id("Ċ")), b"\n");
    assert_eq!(env.token_bytes(id("ĊĊ")), b"\n\n");
    for s in SPECIALS {
        assert_eq!(env.special_token(s), Some(id(s)), "{s}");
        assert_eq!(env.token_bytes(id(s)), b"", "{s} is no text");
    }
    assert_eq!(env.eos_ids(), &[id("<|im_end|>")]);
}

#[test]
fn padding_and_eos_errors() {
    let tok = tokenizer(600, SPECIALS, 1);
    let n = tok.get_vocab_size(true);
    let env = TokenEnv::for_vocab_size(&tok, &[n as u32 - 1], n + 64).unwrap();
    assert_eq!(env.vocab_size(), n + 64);
    assert_eq!(env.token_bytes(n as u32 + 3), b"");
    assert_eq!(
        TokenEnv::for_vocab_size(&tok, &[0], n - 1).unwrap_err(),
        ConstrainError::VocabSize {
            model: n - 1,
            tokenizer: n
        }
    );
    assert_eq!(
        TokenEnv::new(&tok, &[]).unwrap_err().to_string(),
        "end-of-sequence tokens: expected at least one end-of-sequence id, found none"
    );
    assert_eq!(
        TokenEnv::new(&tok, &[n as u32]).unwrap_err().to_string(),
        format!("end-of-sequence tokens: id {n} is outside the vocabulary of {n} tokens")
    );
}

/// A SentencePiece-style BPE: `▁` for spaces, `<0xNN>` byte fallback.
fn sentencepiece() -> Tokenizer {
    let mut vocab = serde_json::Map::new();
    for (i, t) in ["<unk>", "<s>", "</s>"].iter().enumerate() {
        vocab.insert(t.to_string(), json!(i));
    }
    for b in 0..=255u32 {
        vocab.insert(format!("<0x{b:02X}>"), json!(3 + b));
    }
    let mut merges = Vec::new();
    let mut next = 259;
    let mut add = |t: &str, vocab: &mut serde_json::Map<String, Value>| {
        if !vocab.contains_key(t) {
            vocab.insert(t.to_owned(), json!(next));
            next += 1;
        }
    };
    for c in "▁abcdefghijklmnopqrstuvwxyz{}\":,0123456789".chars() {
        add(&c.to_string(), &mut vocab);
    }
    for w in ["▁hello", "{\"", "\":", "ok", "true"] {
        let cs: Vec<String> = w.chars().map(String::from).collect();
        let mut prefix = cs[0].clone();
        for c in &cs[1..] {
            let joined = format!("{prefix}{c}");
            add(&joined, &mut vocab);
            merges.push(json!([prefix, c]));
            prefix = joined;
        }
    }
    let added: Vec<Value> = ["<unk>", "<s>", "</s>"]
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"id": i, "content": s, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}))
        .collect();
    json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        "pre_tokenizer": null, "post_processor": null,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>",
                  "continuing_subword_prefix": null, "end_of_word_suffix": null,
                  "fuse_unk": true, "byte_fallback": true, "ignore_merges": false,
                  "vocab": vocab, "merges": merges}
    })
    .to_string()
    .parse()
    .unwrap()
}

#[test]
fn byte_fallback_vocabulary() {
    let tok = sentencepiece();
    let eos = tok.token_to_id("</s>").unwrap();
    let env = TokenEnv::new(&tok, &[eos]).unwrap();
    let id = |s: &str| tok.token_to_id(s).unwrap();
    assert_eq!(env.token_bytes(id("▁hello")), b" hello");
    assert_eq!(env.token_bytes(id("<0x0A>")), b"\n");
    assert_eq!(env.token_bytes(id("<0xE2>")), &[0xE2]);
    assert_eq!(env.token_bytes(id("{\"")), b"{\"");
    assert_eq!(env.special_token("</s>"), Some(eos));

    // Constrained generation works through it: outputs are valid JSON.
    let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"},
        "n": {"type": "integer"}, "s": {"type": "string", "maxLength": 8}},
        "required": ["ok", "n", "s"], "additionalProperties": false});
    let fresh = JsonConstraint::new(&env, &schema).unwrap();
    let bias = Bias {
        tokens: vec![("</s>".into(), 5.0)],
        closers: 3.0,
    };
    let mut model = RandomModel::new(&tok, &env, &bias, 5);
    for _ in 0..20 {
        let mut c = fresh.clone();
        let (ids, ended) = model.generate(&mut c, 500);
        assert!(ended);
        let bytes: Vec<u8> = ids
            .iter()
            .flat_map(|&t| env.token_bytes(t).to_vec())
            .collect();
        let text = String::from_utf8(bytes).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        unsign_zeros(&mut v);
        assert!(
            v["ok"].is_boolean() && v["n"].is_i64() && v["s"].is_string(),
            "{text}"
        );
    }
}

#[test]
fn unknown_decoder_is_an_error() {
    let t: Tokenizer = json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": null, "pre_tokenizer": null, "post_processor": null,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0, "a": 1}}
    })
    .to_string()
    .parse()
    .unwrap();
    let e = TokenEnv::new(&t, &[0]).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "tokenizer: expected a ByteLevel, ByteFallback or Metaspace decoder, found {"
        ),
        "{e}"
    );
}

#[test]
fn a_loaded_model_indexes_its_vocabulary_once_for_every_chat() {
    use std::sync::Arc;
    use tool_models::model::tiny::{write_tiny_model, TinySpec};
    use tool_models::model::Model;

    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), &TinySpec::llama(3)).unwrap();
    let model = Arc::new(Model::load(tmp.path()).unwrap());
    let first = TokenEnv::of_model(&model).unwrap();
    assert_eq!(first.vocab_size(), model.vocab_size());
    assert_eq!(first.eos_ids(), model.eos_token_ids());
    let shared = Arc::clone(&model);
    let again = std::thread::spawn(move || TokenEnv::of_model(&shared).unwrap())
        .join()
        .unwrap();
    assert!(TokenEnv::ptr_eq(&first, &again), "one build per model");
    // The same files loaded again are another model, with its own build.
    let other = Model::load(tmp.path()).unwrap();
    let theirs = TokenEnv::of_model(&other).unwrap();
    assert!(!TokenEnv::ptr_eq(&first, &theirs));
    assert_eq!(theirs.vocab_size(), first.vocab_size());
}
