//! `tool-train init`: the first weights `train` would start from, seeded or
//! grown from another model, written as a model directory.

mod common;

use common::scratch_path;
use std::path::Path;
use std::process::{Command, Output};

use candle_core::{Device, Tensor};
use tool_train::train::Llama;

fn tool_train(command: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tool-train"))
        .arg(command)
        .args(args)
        .output()
        .unwrap()
}

fn init(args: &[&str]) -> Output {
    tool_train("init", args)
}

/// `tool-train init --out OUT ARGS`, which must succeed.
#[track_caller]
fn init_into(out: &Path, args: &[&str]) {
    assert!(succeeded(&init(&[&["--out", path(out)], args].concat())));
}

fn succeeded(output: &Output) -> bool {
    if !output.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    }
    output.status.success()
}

/// `tool-train COMMAND` with `args`, which must fail: its error output.
fn refused(command: &str, args: &[&str]) -> String {
    let output = tool_train(command, args);
    assert!(!output.status.success(), "expected {args:?} to be refused");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn logits(model: &Llama, ids: &[u32]) -> Vec<f32> {
    let ids = Tensor::new(ids, &Device::Cpu)
        .unwrap()
        .unsqueeze(0)
        .unwrap();
    model
        .logits(&ids)
        .unwrap()
        .flatten_all()
        .unwrap()
        .to_vec1()
        .unwrap()
}

#[test]
fn seeded_weights_are_those_train_starts_from() {
    let dir = scratch_path("init-seeded");
    let (made, trained, run) = (dir.join("init"), dir.join("train"), dir.join("run"));
    let shape = ["--hidden", "64", "--layers", "2", "--seed", "3"];
    init_into(&made, &shape);

    std::fs::create_dir_all(&trained).unwrap();
    let bundled = tool_use::bundled::model_dir();
    for file in ["tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(bundled.join(file), trained.join(file)).unwrap();
        // The tokenizer is the bundled one, copied beside the weights.
        assert_eq!(
            std::fs::read(made.join(file)).unwrap(),
            std::fs::read(bundled.join(file)).unwrap(),
            "{file}"
        );
    }
    let until_zero = [
        "--out",
        path(&trained),
        "--run-dir",
        path(&run),
        "--examples",
        "2",
        "--held-out",
        "1",
        "--until",
        "0",
        "--extend",
        "--precision",
        "f32",
    ];
    assert!(succeeded(&tool_train(
        "train",
        &[&until_zero[..], &shape[..]].concat()
    )));
    for file in ["config.json", "model.safetensors"] {
        assert_eq!(
            std::fs::read(made.join(file)).unwrap(),
            std::fs::read(trained.join(file)).unwrap(),
            "{file}: init and train's step 0 differ"
        );
    }

    // Another seed, other weights.
    let other = dir.join("other");
    init_into(&other, &["--hidden", "64", "--layers", "2", "--seed", "4"]);
    assert_ne!(
        std::fs::read(made.join("model.safetensors")).unwrap(),
        std::fs::read(other.join("model.safetensors")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_model_grown_deeper_predicts_as_the_one_it_grew_from() {
    let dir = scratch_path("init-deepen");
    let (small, deep) = (dir.join("small"), dir.join("deep"));
    init_into(&small, &["--hidden", "64", "--layers", "1"]);
    init_into(&deep, &["--init-from", path(&small), "--layers", "3"]);
    let small = Llama::load_hf_dir(&small).unwrap();
    let deep = Llama::load_hf_dir(&deep).unwrap();
    assert_eq!(deep.config().num_hidden_layers, 3);
    assert!(deep.config().num_parameters() > small.config().num_parameters());
    let ids = [1, 40, 7, 300, 12, 2];
    let (a, b) = (logits(&small, &ids), logits(&deep, &ids));
    let worst = common::max_abs_diff(&a, &b);
    assert!(worst < 1e-5, "logits differ by up to {worst}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_cannot_be_made_is_refused_and_nothing_is_overwritten() {
    let dir = scratch_path("init-refused");
    let model = dir.join("model");
    init_into(&model, &["--hidden", "64", "--layers", "2"]);
    let weights = std::fs::read(model.join("model.safetensors")).unwrap();

    // A directory that holds a model already (the bundled one, by mistake).
    let error = refused("init", &["--out", path(&model), "--hidden", "64"]);
    assert!(
        error.contains("expected a directory without a model"),
        "{error}"
    );
    assert_eq!(
        std::fs::read(model.join("model.safetensors")).unwrap(),
        weights
    );

    let fresh = dir.join("fresh");
    let none = dir.join("none");
    let cases: [(&[&str], &str); 3] = [
        // Shallower than the model it starts from.
        (
            &["--init-from", path(&model), "--layers", "1"],
            "expected --layers of at least",
        ),
        // A shape flag the model it starts from contradicts.
        (
            &["--init-from", path(&model), "--hidden", "128"],
            "expected --hidden 64",
        ),
        // A tokenizer directory without a tokenizer.
        (
            &["--tokenizer", path(&none)],
            "expected a model directory with a tokenizer",
        ),
    ];
    for (args, expected) in cases {
        let error = refused("init", &[&["--out", path(&fresh)], args].concat());
        assert!(error.contains(expected), "{args:?}: {error}");
    }
    assert!(!fresh.exists(), "a refused init wrote {}", fresh.display());

    // `train` reads the shape flags the same way.
    let error = refused(
        "train",
        &[
            "--out",
            path(&model),
            "--run-dir",
            path(&dir.join("run")),
            "--held-out",
            "1",
            "--init-from",
            path(&model),
            "--heads",
            "2",
        ],
    );
    assert!(error.contains("expected --heads 1"), "{error}");
    assert_eq!(
        std::fs::read(model.join("model.safetensors")).unwrap(),
        weights
    );
    let _ = std::fs::remove_dir_all(&dir);
}
