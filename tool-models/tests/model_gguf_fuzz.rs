//! GGUF files damaged the ways files are damaged (bytes flipped, lengths
//! and counts overwritten, cut short) load with an error or, where the
//! damage only touched weights, as a model: never a panic, never an
//! allocation of a claimed size. And the errors for what a reader must
//! refuse name the tensor and what was found.

use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;
use tool_models::generate::Session;
use tool_models::model::tiny::{write_tiny_gguf_as, GgufWeights, TinySpec};
use tool_models::model::Model;

/// A tiny Llama in Q8_0, as bytes.
fn original() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny.gguf");
        write_tiny_gguf_as(&path, &TinySpec::llama(3), GgufWeights::Q8_0).unwrap();
        std::fs::read(path).unwrap()
    })
}

/// Where the tensor table lists `name`: the byte after its name.
fn table_entry(bytes: &[u8], name: &str) -> usize {
    let mut needle = (name.len() as u64).to_le_bytes().to_vec();
    needle.extend_from_slice(name.as_bytes());
    bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("{name} is in the table"))
        + needle.len()
}

/// The load of `bytes` written as a file: the model's first logits, or the
/// error's message.
fn load(bytes: &[u8]) -> Result<usize, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.gguf");
    std::fs::write(&path, bytes).unwrap();
    load_path(&path)
}

fn load_path(path: &Path) -> Result<usize, String> {
    let mut session = Session::new(Model::load(path).map_err(|e| e.to_string())?);
    session
        .logits(&[1, 2, 3])
        .map(|l| l.len())
        .map_err(|e| e.to_string())
}

/// A damage: bytes overwritten at a place, with values that lengths and
/// counts are made of.
#[derive(Clone, Debug)]
enum Damage {
    Byte(usize, u8),
    U32(usize, u32),
    U64(usize, u64),
    CutAt(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    let len = original().len();
    // Most of a tiny file's header is its vocabulary; the table and the
    // first tensors lie in the first tens of kilobytes.
    let place = prop_oneof![0..len.min(64 * 1024), 0..len];
    let big = prop_oneof![
        Just(0u64),
        Just(1),
        Just(u64::MAX),
        Just(u64::MAX / 2),
        Just(1 << 40),
        Just(len as u64),
        any::<u64>()
    ];
    prop_oneof![
        (place.clone(), any::<u8>()).prop_map(|(at, b)| Damage::Byte(at, b)),
        (place.clone(), big.clone()).prop_map(|(at, v)| Damage::U32(at, v as u32)),
        (place.clone(), big).prop_map(|(at, v)| Damage::U64(at, v)),
        (0..len).prop_map(Damage::CutAt),
    ]
}

fn apply(bytes: &mut Vec<u8>, damage: &Damage) {
    let mut put = |at: usize, v: &[u8]| {
        // A place a cut before this damage removed.
        if at >= bytes.len() {
            return;
        }
        let end = (at + v.len()).min(bytes.len());
        bytes[at..end].copy_from_slice(&v[..end - at]);
    };
    match *damage {
        Damage::Byte(at, b) => put(at, &[b]),
        Damage::U32(at, v) => put(at, &v.to_le_bytes()),
        Damage::U64(at, v) => put(at, &v.to_le_bytes()),
        Damage::CutAt(len) => bytes.truncate(len),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_damaged_file_loads_or_says_why(damages in prop::collection::vec(damage(), 1..4)) {
        let mut bytes = original().to_vec();
        for d in &damages {
            apply(&mut bytes, d);
        }
        let outcome = std::panic::catch_unwind(|| load(&bytes));
        prop_assert!(outcome.is_ok(), "loading panicked after {damages:?}");
        if let Ok(Err(message)) = outcome {
            prop_assert!(message.contains("damaged.gguf"), "{message}");
        }
    }
}

#[test]
fn the_undamaged_file_loads() {
    assert_eq!(
        load(original()),
        Ok(tool_models::model::tiny::TINY_VOCAB_SIZE)
    );
}

#[test]
fn a_file_cut_inside_a_tensor_names_the_tensor() {
    let bytes = original();
    let err = load(&bytes[..bytes.len() - 10]).unwrap_err();
    assert!(err.contains("truncated file: tensor"), "{err}");
    assert!(err.contains("ends past the file's"), "{err}");
}

/// The error loading the file with `blk.0.attn_q.weight`'s ggml type
/// overwritten with `ggml_type`, after checking that it says `message`.
#[track_caller]
fn attn_q_type_error(ggml_type: u32, message: &str) -> String {
    let mut bytes = original().to_vec();
    // Two dimensions, then the type.
    let at = table_entry(&bytes, "blk.0.attn_q.weight") + 4 + 16;
    bytes[at..at + 4].copy_from_slice(&ggml_type.to_le_bytes());
    let err = load(&bytes).unwrap_err();
    assert!(err.contains(message), "{err}");
    err
}

#[test]
fn a_type_ggml_does_not_define_is_named() {
    attn_q_type_error(
        99,
        "tensor blk.0.attn_q.weight has ggml type 99, which is not one ggml defines",
    );
}

#[test]
fn a_format_the_decoder_does_not_compute_with_is_named_with_those_it_does() {
    // Q8_0 → IQ2_XXS would change the size; Q8_1 (36 bytes a block) is
    // also larger, so the tensor would overrun. IQ4_NL is the same size as
    // Q4_0, and MXFP4 (17 bytes) smaller than Q8_0 (34): a format ggml
    // defines that the decoder does not read, whose data lies in the file.
    let err = attn_q_type_error(
        39,
        "tensor blk.0.attn_q.weight is MXFP4, which the decoder does not read",
    );
    assert!(err.contains("IQ4_NL, IQ4_XS"), "{err}");
}

#[test]
fn a_count_past_the_file_is_refused_before_it_is_allocated() {
    let mut bytes = original().to_vec();
    // The tensor count, after the magic and version.
    bytes[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    let err = load(&bytes).unwrap_err();
    assert!(
        err.contains("more than its") && err.contains("bytes can hold"),
        "{err}"
    );
}
