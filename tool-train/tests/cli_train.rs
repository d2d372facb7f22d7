//! `tool-train train` end to end on a tiny model: its two learning-rate
//! cycles, where each keeps its checkpoints, and resuming in the second.

mod common;

use common::{log_lines, params, scratch_path};
use std::path::Path;
use std::process::Command;

use tool_train::train::{DataPosition, Llama, Trainer};

fn train(out: &Path, run: &Path, extra: &[&str]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tool-train"));
    command
        .arg("train")
        .arg("--out")
        .arg(out)
        .arg("--run-dir")
        .arg(run);
    command.args([
        "--examples",
        "12",
        "--held-out",
        "2",
        "--steps",
        "2",
        "--extend-steps",
        "2",
        "--extend-lr",
        "5e-4",
        "--hidden",
        "64",
        "--layers",
        "1",
        "--batch-size",
        "2",
        "--export-every",
        "0",
    ]);
    command.args(extra).output().unwrap()
}

#[test]
fn train_runs_two_cycles_the_second_from_the_first_ones_model() {
    let out = scratch_path("cli-out");
    std::fs::create_dir_all(&out).unwrap();
    let bundled = tool_use::bundled::model_dir();
    for file in ["tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(bundled.join(file), out.join(file)).unwrap();
    }
    let run = scratch_path("cli-run");

    // The first cycle's two steps and one of the second.
    let first = train(&out, &run, &["--until", "3"]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let cycle1 = Llama::load_hf_dir(&run.join("cycle1")).unwrap();
    assert_eq!(cycle1.config().num_hidden_layers, 1);
    assert_eq!(log_lines(&run.join("train_log.jsonl")).len(), 2);
    let second = log_lines(&run.join("extend/train_log.jsonl"));
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].step, 1);
    // Its own schedule: one warmup step to its own peak.
    assert!((second[0].lr - 5e-4).abs() < 1e-12, "{}", second[0].lr);
    let resumed = Trainer::resume(&run.join("extend")).unwrap();
    // After the first cycle's four conversations and its own two.
    assert_eq!(
        resumed.data_position(),
        DataPosition {
            epoch: 0,
            cursor: 6
        }
    );
    drop(resumed);

    // Going back into the first cycle is refused, and changes nothing.
    let back = train(&out, &run, &["--until", "1"]);
    assert!(!back.status.success());
    let err = String::from_utf8_lossy(&back.stderr);
    assert!(err.contains("second cycle"), "{err}");

    let rest = train(&out, &run, &[]);
    assert!(
        rest.status.success(),
        "{}",
        String::from_utf8_lossy(&rest.stderr)
    );
    assert_eq!(log_lines(&run.join("train_log.jsonl")).len(), 2);
    assert_eq!(log_lines(&run.join("extend/train_log.jsonl")).len(), 2);
    let finished = Trainer::resume(&run.join("extend")).unwrap();
    assert_eq!(finished.step(), 2);
    let exported = Llama::load_hf_dir(&out).unwrap();
    assert_ne!(
        params(&exported),
        params(&cycle1),
        "the second cycle trained the first one's model"
    );
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_dir_all(&run).unwrap();
}
