//! `tool-train train` end to end on a tiny model: its learning-rate cycles,
//! where each keeps its checkpoints and starts from, resuming in them, and
//! growing the model deeper between them.

mod common;

use common::{log_lines, params, scratch_path};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tool_train::train::{average, export_hf, DataPosition, Llama, Precision, Trainer};

/// A model directory with the bundled tokenizer, for `--out`.
fn out_dir(name: &str) -> PathBuf {
    let out = scratch_path(name);
    std::fs::create_dir_all(&out).unwrap();
    let bundled = tool_use::bundled::model_dir();
    for file in ["tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(bundled.join(file), out.join(file)).unwrap();
    }
    out
}

/// A test's folders: `NAME-out` for `--out` (see [`out_dir`]), and
/// `NAME-run` for the run.
fn out_and_run(name: &str) -> (PathBuf, PathBuf) {
    (
        out_dir(&format!("{name}-out")),
        scratch_path(&format!("{name}-run")),
    )
}

/// `tool-train train` on a one-layer model (unless `extra` says otherwise),
/// two conversations a step.
fn train(out: &Path, run: &Path, extra: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tool-train"));
    command
        .arg("train")
        .arg("--out")
        .arg(out)
        .arg("--run-dir")
        .arg(run);
    command.args([
        "--examples",
        "16",
        "--held-out",
        "2",
        "--steps",
        "2",
        "--hidden",
        "64",
        "--batch-size",
        "2",
        "--export-every",
        "0",
    ]);
    if !extra.contains(&"--layers") {
        command.args(["--layers", "1"]);
    }
    command.args(extra).output().unwrap()
}

fn succeeded(output: &Output) -> bool {
    if !output.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    }
    output.status.success()
}

/// Trains the first cycle's two steps and one of the second, and loads the
/// model the second starts from: the first's one-layer export.
fn into_the_second_cycle(out: &Path, run: &Path, cycles: &[&str]) -> Llama {
    assert!(succeeded(&train(
        out,
        run,
        &[cycles, &["--until", "3"]].concat()
    )));
    let start2 = Llama::load_hf_dir(&run.join("cycle2/start")).unwrap();
    assert_eq!(start2.config().num_hidden_layers, 1);
    start2
}

#[test]
fn train_runs_its_cycles_each_from_the_one_before_its_model() {
    let (out, run) = out_and_run("cli");
    // The third on the corpus with value-end practice.
    let cycles = ["--extend", "2@5e-4,2@3e-4+ends"];

    let start2 = into_the_second_cycle(&out, &run, &cycles);
    assert_eq!(log_lines(&run.join("train_log.jsonl")).len(), 2);
    let second = log_lines(&run.join("cycle2/train_log.jsonl"));
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].step, 1);
    // Its own schedule: one warmup step to its own peak.
    assert!((second[0].lr - 5e-4).abs() < 1e-12, "{}", second[0].lr);
    let resumed = Trainer::resume(&run.join("cycle2")).unwrap();
    // After the first cycle's four conversations and its own two.
    assert_eq!(
        resumed.data_position(),
        DataPosition {
            epoch: 0,
            cursor: 6
        }
    );
    drop(resumed);
    assert!(!run.join("cycle3").exists());

    // Going back into the first cycle is refused, and changes nothing.
    let back = train(&out, &run, &[&cycles[..], &["--until", "1"]].concat());
    assert!(!back.status.success());
    let err = String::from_utf8_lossy(&back.stderr);
    assert!(err.contains("cycle 2 of 3"), "{err}");
    assert_eq!(log_lines(&run.join("cycle2/train_log.jsonl")).len(), 1);

    // On through the second cycle into the third, which makes its corpus.
    let on = train(&out, &run, &[&cycles[..], &["--until", "5"]].concat());
    assert!(succeeded(&on));
    let err = String::from_utf8_lossy(&on.stderr);
    assert!(err.contains("corpus (standard): 16 conversations"), "{err}");
    assert!(err.contains("corpus (ends): 16 conversations"), "{err}");
    assert_eq!(log_lines(&run.join("train_log.jsonl")).len(), 2);
    assert_eq!(log_lines(&run.join("cycle2/train_log.jsonl")).len(), 2);
    let third = log_lines(&run.join("cycle3/train_log.jsonl"));
    assert_eq!(third.len(), 1);
    assert!((third[0].lr - 3e-4).abs() < 1e-12, "{}", third[0].lr);
    let start3 = Llama::load_hf_dir(&run.join("cycle3/start")).unwrap();
    assert_ne!(
        params(&start3),
        params(&start2),
        "the third cycle starts from what the second trained"
    );
    assert_eq!(
        Trainer::resume(&run.join("cycle3"))
            .unwrap()
            .data_position(),
        DataPosition {
            epoch: 0,
            cursor: 10
        }
    );

    assert!(succeeded(&train(&out, &run, &cycles)));
    assert_eq!(log_lines(&run.join("cycle3/train_log.jsonl")).len(), 2);
    assert_eq!(Trainer::resume(&run.join("cycle3")).unwrap().step(), 2);
    let exported = Llama::load_hf_dir(&out).unwrap();
    assert_ne!(params(&exported), params(&start3));
    for dir in [&out, &run] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn extend_alone_is_one_cycle_and_a_malformed_cycle_is_refused() {
    let (out, run) = out_and_run("cli-one");
    assert!(succeeded(&train(&out, &run, &["--extend"])));
    assert_eq!(log_lines(&run.join("train_log.jsonl")).len(), 2);
    assert!(!run.join("cycle2").exists());
    Llama::load_hf_dir(&out).unwrap();

    for (bad, expected) in [
        ("2000", "STEPS@PEAK_LR"),
        ("2000@fast", "STEPS@PEAK_LR"),
        ("0@6e-4", "at least one step"),
        ("10@-1e-3", "above 0"),
        (
            "10@6e-4+end",
            "expected a practice, `ends`, `wide`, `wording`, `followups`, `fields`, `declines`, `requests`, `numbers`, `lookalikes`, `bare`, `chat`, `schemas` or `standard`, found `end`",
        ),
        ("10@6e+4+", "STEPS@PEAK_LR"),
        ("10@6e-4+layers=0", "layers above 0"),
        ("10@6e-4+layers=two", "found `two`"),
        ("10@6e-4+ends+layers=2+ends", "found `ends` again"),
    ] {
        let refused = train(&out, &scratch_path("cli-bad-run"), &["--extend", bad]);
        assert!(!refused.status.success(), "{bad}");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(err.contains(expected) && err.contains(bad), "{bad}: {err}");
    }
    let refused = train(
        &out,
        &scratch_path("cli-bad-practice"),
        &["--practice", "end"],
    );
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("expected a practice") && err.contains("`end`"),
        "{err}"
    );
    // A model directory without the tokenizer is named as what is wrong.
    let bare = scratch_path("cli-bare-out");
    std::fs::create_dir_all(&bare).unwrap();
    let refused = train(&bare, &scratch_path("cli-bare-run"), &[]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("--out") && err.contains("expected a model directory with a tokenizer"),
        "{err}"
    );
    assert!(!bare.join("model.safetensors").exists());
    for dir in [&bare, &out, &run] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_cycle_can_grow_the_model_deeper_and_later_cycles_keep_it() {
    let (out, run) = out_and_run("cli-grow");
    let cycles = ["--extend", "2@5e-4+wording+layers=3,2@3e-4"];

    into_the_second_cycle(&out, &run, &cycles);
    let grown = Trainer::resume(&run.join("cycle2")).unwrap();
    assert_eq!(grown.model().config().num_hidden_layers, 3);
    drop(grown);

    // Resumed to the end: the third cycle keeps three layers.
    let on = train(&out, &run, &cycles);
    assert!(succeeded(&on));
    let err = String::from_utf8_lossy(&on.stderr);
    assert!(
        !err.contains("deepened"),
        "a resumed cycle is not grown again: {err}"
    );
    assert_eq!(
        Llama::load_hf_dir(&run.join("cycle3/start"))
            .unwrap()
            .config()
            .num_hidden_layers,
        3
    );
    assert_eq!(
        Llama::load_hf_dir(&out).unwrap().config().num_hidden_layers,
        3
    );

    // A cycle cannot take layers away, and --init-from with more --layers grows.
    let shrink = train(
        &out,
        &scratch_path("cli-grow-shrink"),
        &[
            "--init-from",
            out.to_str().unwrap(),
            "--layers",
            "2",
            "--extend",
        ],
    );
    assert!(!shrink.status.success());
    let err = String::from_utf8_lossy(&shrink.stderr);
    assert!(err.contains("at least the 3 layers"), "{err}");
    let init = out_dir("cli-grow-init");
    let again = scratch_path("cli-grow-again");
    let grow = train(
        &init,
        &again,
        &[
            "--init-from",
            out.to_str().unwrap(),
            "--layers",
            "4",
            "--extend",
        ],
    );
    assert!(succeeded(&grow));
    let err = String::from_utf8_lossy(&grow.stderr);
    assert!(
        err.contains("deepened the model from 3 to 4 layers"),
        "{err}"
    );
    // The model it grew from is not averaged with the grown one.
    assert!(err.contains("averaging no further back"), "{err}");
    assert!(!err.contains("mean of"), "{err}");
    assert_eq!(
        Llama::load_hf_dir(&init)
            .unwrap()
            .config()
            .num_hidden_layers,
        4
    );
    for dir in [&out, &run, &init, &again] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn the_default_recipe_ends_with_the_bundled_models_shape() {
    let help = Command::new(env!("CARGO_BIN_EXE_tool-train"))
        .args(["train", "--help"])
        .output()
        .unwrap();
    assert!(succeeded(&help));
    let help = String::from_utf8(help.stdout).unwrap();
    let default = |option: &str| -> String {
        let after = &help[help
            .find(option)
            .unwrap_or_else(|| panic!("{option}: {help}"))..];
        let from = after.find("[default: ").unwrap() + "[default: ".len();
        after[from..from + after[from..].find(']').unwrap()].to_owned()
    };
    // The last cycle that names its layers sets the shipped depth, or else
    // the first cycle's.
    let cycles = default("--extend [");
    // The shape flags' defaults are in their help ("(default: 4)"): given
    // or not is what `--init-from` is checked against.
    let shape_default = |flag_help: &str| -> &str {
        help.split(flag_help)
            .nth(1)
            .and_then(|rest| rest.split(')').next())
            .unwrap_or_else(|| panic!("{flag_help}: {help}"))
    };
    let first = shape_default("Decoder layers (default: ");
    let layers: usize = cycles
        .split(' ')
        .rev()
        .find_map(|cycle| {
            cycle
                .split('+')
                .find_map(|part| part.strip_prefix("layers="))
        })
        .unwrap_or(first)
        .parse()
        .unwrap();
    let bundled = Llama::load_hf_dir(&tool_use::bundled::model_dir()).unwrap();
    let shipped = bundled.config();
    assert_eq!(shipped.num_hidden_layers, layers, "{cycles}");
    assert_eq!(
        shipped.hidden_size.to_string(),
        shape_default("Width of the model (default: "),
        "{help}"
    );
}

#[test]
fn the_export_is_the_mean_of_the_last_cycles_ends() {
    let (out, run) = out_and_run("cli-avg");
    let cycles = ["--extend", "2@5e-4,2@3e-4"];
    // The last cycle's own end, then the mean of it and the one before's.
    assert!(succeeded(&train(
        &out,
        &run,
        &[&cycles[..], &["--average-last", "1"]].concat()
    )));
    let own = Llama::load_hf_dir(&out).unwrap();
    let before = Llama::load_hf_dir(&run.join("cycle3/start")).unwrap();
    let first = Llama::load_hf_dir(&run.join("cycle2/start")).unwrap();
    let averaged = train(
        &out,
        &run,
        &[&cycles[..], &["--average-last", "2"]].concat(),
    );
    assert!(succeeded(&averaged));
    let err = String::from_utf8_lossy(&averaged.stderr);
    assert!(err.contains("exported the mean of"), "{err}");
    let mean = Llama::load_hf_dir(&out).unwrap();
    // f16 values: the mean of two is exact before it is rounded again.
    let want = average(&[&before, &own]).unwrap();
    assert_eq!(params(&mean), params(&round_f16(&want)));
    assert_ne!(params(&mean), params(&own));

    // Three ends; more than the run has is all of them (no seeded start).
    assert!(succeeded(&train(
        &out,
        &run,
        &[&cycles[..], &["--average-last", "3"]].concat()
    )));
    let three = average(&[&first, &before, &own]).unwrap();
    assert_eq!(
        params(&Llama::load_hf_dir(&out).unwrap()),
        params(&round_f16(&three))
    );
    assert!(succeeded(&train(
        &out,
        &run,
        &[&cycles[..], &["--average-last", "9"]].concat()
    )));
    assert_eq!(
        params(&Llama::load_hf_dir(&out).unwrap()),
        params(&round_f16(&three))
    );

    // `tool-train average` takes the same mean of ends kept anywhere, and
    // names a directory it cannot load.
    let own_dir = scratch_path("cli-avg-own");
    export_hf(&own, &own_dir, Precision::F16).unwrap();
    let apart = scratch_path("cli-avg-apart");
    let ends = [
        run.join("cycle2/start"),
        run.join("cycle3/start"),
        own_dir.clone(),
    ];
    let averaged = Command::new(env!("CARGO_BIN_EXE_tool-train"))
        .arg("average")
        .arg("--out")
        .arg(&apart)
        .args(&ends)
        .output()
        .unwrap();
    assert!(succeeded(&averaged));
    assert_eq!(
        params(&Llama::load_hf_dir(&apart).unwrap()),
        params(&round_f16(&three))
    );
    let missing = scratch_path("cli-avg-missing");
    let refused = Command::new(env!("CARGO_BIN_EXE_tool-train"))
        .args(["average", "--out"])
        .arg(&apart)
        .arg(&own_dir)
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains(&missing.display().to_string()), "{err}");
    for dir in [&own_dir, &apart] {
        std::fs::remove_dir_all(dir).unwrap();
    }

    // Stopped before the end, nothing is averaged.
    let run2 = scratch_path("cli-avg-run2");
    let early = train(&out, &run2, &[&cycles[..], &["--until", "3"]].concat());
    assert!(succeeded(&early));
    assert!(!String::from_utf8_lossy(&early.stderr).contains("mean of"));
    assert!(!train(&out, &run2, &["--average-last", "0"])
        .status
        .success());
    for dir in [&out, &run, &run2] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// `model` as `train` stores it (f16) and loads it again.
fn round_f16(model: &Llama) -> Llama {
    let dir = scratch_path("cli-f16");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("model.safetensors");
    model.save_safetensors_as(&file, Precision::F16).unwrap();
    let back = Llama::load_safetensors(model.config(), &file).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    back
}
