//! The incremental detokenizer: deltas never split a character and always
//! concatenate to the decoding of all the tokens.

use proptest::prelude::*;
use std::sync::OnceLock;
use tool_models::model::tiny::{write_tiny_model, TinySpec};
use tool_models::model::{Model, Tokenizer};

fn tokenizer() -> &'static Tokenizer {
    static TOKENIZER: OnceLock<Tokenizer> = OnceLock::new();
    TOKENIZER.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        write_tiny_model(tmp.path(), &TinySpec::llama(1)).unwrap();
        Model::load(tmp.path()).unwrap().tokenizer().clone()
    })
}

/// The token of each byte: the tiny vocabulary starts with the 256 bytes.
fn byte_tokens(bytes: &[u8]) -> Vec<u32> {
    bytes.iter().map(|&b| u32::from(b)).collect()
}

fn stream(tokenizer: &Tokenizer, ids: &[u32]) -> Vec<String> {
    let mut decoder = tokenizer.incremental();
    let mut deltas: Vec<String> = ids.iter().map(|&id| decoder.push(id).unwrap()).collect();
    deltas.push(decoder.finish().unwrap());
    deltas
}

#[test]
fn byte_tokens_are_the_bytes() {
    let t = tokenizer();
    assert_eq!(t.decode(&byte_tokens(b"hi \xc3\xa9")).unwrap(), "hi é");
}

#[test]
fn a_character_split_over_tokens_is_emitted_once_complete() {
    let t = tokenizer();
    let deltas = stream(t, &byte_tokens("a€b".as_bytes()));
    // a, then the three bytes of €, then b, then nothing left at the end.
    assert_eq!(deltas, ["a", "", "", "€", "b", ""]);
    // Bytes that can never complete a character are emitted as U+FFFD.
    let deltas = stream(t, &byte_tokens(b"\xe2\x82x"));
    assert_eq!(deltas.concat(), "\u{FFFD}x");
    // A dangling start byte is released at the end.
    let deltas = stream(t, &byte_tokens(b"ok\xf0"));
    assert_eq!(deltas, ["o", "k", "", "\u{FFFD}"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_stream_to_their_lossy_decoding(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let t = tokenizer();
        let deltas = stream(t, &byte_tokens(&bytes));
        prop_assert_eq!(deltas.concat(), String::from_utf8_lossy(&bytes).into_owned());
        // What was emitted after each byte stays a prefix of the text
        // whatever bytes come next: no partial character was emitted.
        let mut emitted = String::new();
        for (i, delta) in deltas[..bytes.len()].iter().enumerate() {
            emitted.push_str(delta);
            for next in [&b"\x80"[..], b"\x80\x80", b"\x80\x80\x80", b"a"] {
                let mut longer = bytes[..=i].to_vec();
                longer.extend_from_slice(next);
                let text = String::from_utf8_lossy(&longer);
                prop_assert!(text.starts_with(&emitted), "after byte {}: {:?} then {:?}", i, emitted, next);
            }
        }
    }

    #[test]
    fn encoded_text_streams_back_to_itself(text in "\\PC{0,40}") {
        let t = tokenizer();
        let ids = t.encode(&text).unwrap();
        let deltas = stream(t, &ids);
        prop_assert_eq!(deltas.concat(), text.clone());
        // Text that holds no U+FFFD never streams one (no partial character).
        if !text.contains(char::REPLACEMENT_CHARACTER) {
            let clean = deltas.iter().all(|d| !d.contains(char::REPLACEMENT_CHARACTER));
            prop_assert!(clean);
        }
    }

    #[test]
    fn special_tokens_in_text_stream_as_text(parts in proptest::collection::vec(
        prop_oneof![
            Just("<|im_start|>".to_string()),
            Just("<tool_call>".to_string()),
            Just("</tool_call>".to_string()),
            "[a-z é{}\":,\n]{0,8}",
        ],
        0..10,
    )) {
        let t = tokenizer();
        let text = parts.concat();
        let ids = t.encode(&text).unwrap();
        prop_assert_eq!(stream(t, &ids).concat(), text);
    }
}
