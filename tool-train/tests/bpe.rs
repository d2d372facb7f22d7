//! Byte-level BPE training: special tokens stay whole, any string round
//! trips, and the same texts always give the same tokenizer.

use proptest::prelude::*;
use std::sync::OnceLock;
use tool_train::train::bpe::{
    train_bpe, train_bpe_with, BpeOptions, SpecialToken, Tokenizer, SPLIT_PATTERN,
};

const SPECIALS: [&str; 4] = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>"];

/// A small chat-like corpus: enough repetition for merges to form.
fn corpus() -> Vec<String> {
    let cities = [
        "Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Quito", "Perth", "Dakar",
    ];
    (0..400)
        .map(|i| {
            let city = cities[i % cities.len()];
            format!(
                "<|im_start|>user\nWhat's the temperature in {city} right now?<|im_end|>\n\
                 <|im_start|>assistant\n<tool_call>{{\"name\": \"get_current_temperature\", \
                 \"arguments\": {{\"location\": \"{city}\", \"unit\": \"celsius\"}}}}</tool_call><|im_end|>\n\
                 The temperature in {city} is {}.{} °C.<|im_end|>",
                i % 40,
                i % 10
            )
        })
        .collect()
}

fn trained() -> &'static Tokenizer {
    static TOKENIZER: OnceLock<Tokenizer> = OnceLock::new();
    TOKENIZER.get_or_init(|| {
        let texts = corpus();
        let options = BpeOptions {
            vocab_size: 360,
            special_tokens: vec![
                SpecialToken::special(SPECIALS[0]),
                SpecialToken::special(SPECIALS[1]),
                SpecialToken::special(SPECIALS[2]),
                SpecialToken::added(SPECIALS[3]),
            ],
            min_frequency: 2,
            split_pattern: SPLIT_PATTERN.to_owned(),
        };
        train_bpe_with(texts.iter().map(String::as_str), &options).unwrap()
    })
}

#[test]
fn special_tokens_are_single_tokens_with_the_first_ids() {
    let tok = trained();
    for (id, token) in SPECIALS.iter().enumerate() {
        assert_eq!(tok.token_to_id(token), Some(id as u32), "{token}");
        let enc = tok.encode(*token, false).unwrap();
        assert_eq!(enc.get_ids(), [id as u32], "{token} is one token");
    }
    // Inside text too, and never merged with what surrounds them.
    let enc = tok.encode("x<|im_end|>\n<tool_call>{\"a\"", false).unwrap();
    let ids = enc.get_ids();
    assert!(ids.contains(&2) && ids.contains(&3), "{ids:?}");
    // `<|im_end|>` is dropped when skipping special tokens; `<tool_call>`,
    // which parsers must see, is kept.
    let decoded = tok.decode(ids, true).unwrap();
    assert_eq!(decoded, "x\n<tool_call>{\"a\"");
}

#[test]
fn the_vocabulary_has_the_asked_size_and_learns_the_corpus() {
    let tok = trained();
    assert_eq!(tok.get_vocab_size(true), 360);
    // Frequent words become single tokens.
    let enc = tok.encode("temperature", false).unwrap();
    assert_eq!(enc.len(), 1, "{:?}", enc.get_tokens());
    // Digits stay single (the split pattern), so numbers are spelt out.
    let enc = tok.encode("1234", false).unwrap();
    assert_eq!(enc.len(), 4);
    let line = "<|im_start|>user\nWhat's the temperature in Paris right now?<|im_end|>";
    let enc = tok.encode(line, false).unwrap();
    // 69 bytes; learnt words make it far fewer tokens.
    assert!(enc.len() <= line.len() / 4, "{:?}", enc.get_tokens());
}

#[test]
fn training_is_deterministic() {
    let texts = corpus();
    let a = train_bpe(texts.iter().map(String::as_str), 350, &SPECIALS).unwrap();
    let b = train_bpe(texts.iter().map(String::as_str), 350, &SPECIALS).unwrap();
    assert_eq!(a.to_string(false).unwrap(), b.to_string(false).unwrap());
    // And the JSON loads back as the same tokenizer.
    let json = a.to_string(true).unwrap();
    let reloaded: Tokenizer = json.parse().unwrap();
    assert_eq!(reloaded.to_string(true).unwrap(), json);
}

#[test]
fn the_json_is_what_transformers_expects() {
    let json: serde_json::Value =
        serde_json::from_str(&trained().to_string(false).unwrap()).unwrap();
    assert_eq!(json["model"]["type"], "BPE");
    assert_eq!(json["normalizer"], serde_json::Value::Null);
    assert_eq!(json["pre_tokenizer"]["type"], "Sequence");
    assert_eq!(
        json["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"],
        SPLIT_PATTERN
    );
    assert_eq!(json["decoder"]["type"], "ByteLevel");
    let added = json["added_tokens"].as_array().unwrap();
    assert_eq!(added.len(), 4);
    assert_eq!(added[2]["content"], "<|im_end|>");
    assert_eq!(added[2]["special"], true);
    assert_eq!(added[3]["special"], false);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_string_round_trips(text in any::<String>()) {
        let tok = trained();
        let enc = tok.encode(text.as_str(), false).unwrap();
        prop_assert_eq!(tok.decode(enc.get_ids(), false).unwrap(), text);
    }

    #[test]
    fn chat_like_strings_round_trip(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("<|im_start|>".to_owned()),
                Just("<|im_end|>".to_owned()),
                Just("<tool_call>".to_owned()),
                "[ -~]{0,12}",
                "\\PC{0,6}",
                Just("\n".to_owned()),
            ],
            0..12,
        )
    ) {
        let tok = trained();
        let text = parts.concat();
        let enc = tok.encode(text.as_str(), false).unwrap();
        prop_assert_eq!(tok.decode(enc.get_ids(), false).unwrap(), text);
    }
}
