//! `tool-train corpus`: the files hold exactly the examples `train` trains
//! on (drawn and encoded on several threads, joined in order), in the
//! layout `scripts/train_torch.py` reads.

mod common;

use common::scratch_path;
use std::path::Path;
use std::process::{Command, Output};

use tool_train::corpus::{self, LossWeights, Practice, Split};
use tool_train::train::bpe::Tokenizer;
use tool_train::train::{fingerprint, Example};

/// `tool-train corpus --dir DIR` with `args`.
fn corpus(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tool-train"))
        .arg("corpus")
        .arg("--dir")
        .arg(dir)
        .args(args)
        .output()
        .unwrap()
}

/// `tool-train corpus --dir DIR` with `args`, which must fail: its error
/// output.
fn refused(dir: &Path, args: &[&str]) -> String {
    let output = corpus(dir, args);
    assert!(!output.status.success(), "expected {args:?} to be refused");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The file at `path` as little-endian numbers of `N` bytes each.
fn read_le<T, const N: usize>(path: &Path, from_le_bytes: fn([u8; N]) -> T) -> Vec<T> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len() % N, 0, "{}", path.display());
    bytes
        .chunks_exact(N)
        .map(|b| from_le_bytes(b.try_into().unwrap()))
        .collect()
}

fn read_u32(path: &Path) -> Vec<u32> {
    read_le(path, u32::from_le_bytes)
}

fn read_f32(path: &Path) -> Vec<f32> {
    read_u32(path).into_iter().map(f32::from_bits).collect()
}

fn read_u64(path: &Path) -> Vec<u64> {
    read_le(path, u64::from_le_bytes)
}

/// The examples as one thread draws and encodes them, as `train` did
/// before its corpus was made on several threads.
fn expected(split: Split, seed: u64, count: usize, practice: Practice) -> Vec<Example> {
    let tokenizer =
        Tokenizer::from_file(tool_use::bundled::model_dir().join("tokenizer.json")).unwrap();
    let template = corpus::bundled_template().unwrap();
    let (weights, prompt_loss) = match split {
        Split::Train => (LossWeights::default(), 0.1),
        Split::HeldOut => (LossWeights::UNIFORM, 0.0),
    };
    corpus::generate_with(seed, count, split, practice)
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut enc = corpus::encode_weighted(&tokenizer, &template, e, &weights).unwrap();
            enc.train_on_prompt(prompt_loss, 1, i as u64);
            let example = Example::new(enc.ids, enc.mask).unwrap();
            if weights.is_uniform() {
                example
            } else {
                example.with_weights(enc.weights).unwrap()
            }
        })
        .collect()
}

/// Checks one split's files against `examples`, and returns its manifest entry.
fn check_split(dir: &Path, name: &str, examples: &[Example], manifest: &serde_json::Value) {
    let ids = read_u32(&dir.join(format!("{name}.ids")));
    let weights = read_f32(&dir.join(format!("{name}.weights")));
    let offsets = read_u64(&dir.join(format!("{name}.offsets")));
    assert_eq!(offsets.len(), examples.len() + 1);
    assert_eq!(ids.len(), weights.len());
    assert_eq!(*offsets.last().unwrap() as usize, ids.len());
    for (k, example) in examples.iter().enumerate() {
        let (start, end) = (offsets[k] as usize, offsets[k + 1] as usize);
        assert_eq!(ids[start..end], example.ids[..], "{name} example {k}'s ids");
        for (t, &w) in weights[start..end].iter().enumerate() {
            let counted = t > 0 && example.mask[t];
            let want = match (&example.weights, counted) {
                (_, false) => 0.0,
                (Some(ws), true) => ws[t],
                (None, true) => 1.0,
            };
            assert_eq!(w, want, "{name} example {k}, token {t}");
        }
    }
    let entry = &manifest[name];
    assert_eq!(entry["examples"], examples.len());
    assert_eq!(entry["tokens"], ids.len());
    let counted: usize = examples.iter().map(Example::counted).sum();
    assert_eq!(entry["counted"], counted);
    assert_eq!(
        entry["fingerprint"],
        format!("{:016x}", fingerprint(examples).unwrap())
    );
}

#[test]
fn the_files_hold_the_examples_train_trains_on_in_order() {
    let dir = scratch_path("corpus-files");
    // More conversations than threads, and not a multiple of their number.
    let output = corpus(
        &dir,
        &[
            "--examples",
            "37",
            "--held-out",
            "3",
            "--practice",
            "schemas",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("corpus.json")).unwrap()).unwrap();
    assert_eq!(manifest["format"], 1);
    assert_eq!(manifest["practice"], "schemas");
    assert_eq!(manifest["max_seq_len"], 1536);
    assert_eq!(
        manifest["vocab_size"],
        Tokenizer::from_file(tool_use::bundled::model_dir().join("tokenizer.json"))
            .unwrap()
            .get_vocab_size(true)
    );
    let train = expected(Split::Train, 1, 37, Practice::Schemas);
    assert!(
        train.iter().any(|e| e.weights.is_some()),
        "the training split is weighted"
    );
    check_split(&dir, "train", &train, &manifest);
    check_split(
        &dir,
        "held_out",
        &expected(Split::HeldOut, 1001, 3, Practice::Standard),
        &manifest,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_and_paths_are_named_and_nothing_is_written() {
    let dir = scratch_path("corpus-bad");
    let stderr = refused(&dir, &["--examples", "2", "--prompt-loss", "1.5"]);
    assert!(
        stderr.contains("--prompt-loss must be between 0 and 1, found 1.5"),
        "{stderr}"
    );
    assert!(!dir.exists(), "nothing is written for bad arguments");

    // A file where the directory should be.
    std::fs::write(&dir, "not a directory").unwrap();
    let stderr = refused(&dir, &["--examples", "2"]);
    assert!(stderr.contains(dir.to_str().unwrap()), "{stderr}");
    std::fs::remove_file(&dir).unwrap();

    // A model directory without a tokenizer.
    let empty = scratch_path("corpus-no-tokenizer");
    std::fs::create_dir_all(&empty).unwrap();
    let stderr = refused(&dir, &["--model", empty.to_str().unwrap()]);
    assert!(
        stderr.contains("--model") && stderr.contains("tokenizer.json"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&empty).unwrap();
}
