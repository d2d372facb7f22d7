//! The training loop: it learns, its checkpoints resume bit for bit, it logs the curve.

mod common;

use common::{log_lines, params, scratch_path};
use std::path::PathBuf;

use tool_train::train::{
    AdamWConfig, Batch, Example, Llama, LrSchedule, ModelConfig, Precision, TrainConfig, TrainData,
    Trainer,
};

fn tiny_config() -> ModelConfig {
    common::tiny_config(40, 64)
}

/// Four short "conversations": a prompt (not learnt) and an answer (learnt) that depends on
/// the prompt, of different lengths.
fn dataset() -> Vec<Example> {
    (0..4u32)
        .map(|k| {
            let prompt: Vec<u32> = (0..3 + k).map(|i| 3 + (k * 5 + i) % 11).collect();
            let answer: Vec<u32> = (0..6).map(|i| 15 + (k * 7 + i * 3) % 23).collect();
            let mut ids = vec![0];
            ids.extend(&prompt);
            ids.extend(&answer);
            ids.push(1);
            let mut mask = vec![false; 1 + prompt.len()];
            mask.extend(vec![true; answer.len() + 1]);
            Example::new(ids, mask).unwrap()
        })
        .collect()
}

fn train_config(total_steps: u64) -> TrainConfig {
    TrainConfig {
        seed: 11,
        batch_size: 2,
        grad_accum: 2,
        max_seq_len: 64,
        schedule: LrSchedule {
            peak_lr: 1e-2,
            min_lr: 1e-3,
            warmup_steps: 3,
            total_steps,
        },
        adamw: AdamWConfig::default(),
        grad_clip: 1.0,
        checkpoint_every: 1000,
    }
}

/// A new run of `steps` steps on the tiny model, in a fresh scratch folder.
fn new_run(name: &str, steps: u64) -> (Trainer, PathBuf) {
    let dir = scratch_path(name);
    let trainer = Trainer::new(&dir, &tiny_config(), train_config(steps)).unwrap();
    (trainer, dir)
}

#[test]
fn loss_falls_on_a_small_dataset_it_can_memorise() {
    let (mut trainer, dir) = new_run("memorise", 60);
    let data = dataset();
    let mut losses = Vec::new();
    trainer.run(&data, &mut |s| losses.push(s.loss)).unwrap();
    assert_eq!(losses.len(), 60);
    let first = losses[0];
    let last = *losses.last().unwrap();
    let eval = trainer.eval_loss(&data).unwrap();
    assert!(
        eval < 0.3,
        "the evaluation agrees with training, found {eval}"
    );
    assert!(
        first > 3.0,
        "an untrained model is near ln(40) = 3.7, found {first}"
    );
    assert!(
        last < 0.3,
        "the answers should be memorised, loss went {first} -> {last}"
    );
    // The log holds the curve, one line per step.
    let logged = log_lines(trainer.log_path());
    assert_eq!(logged.len(), 60);
    assert_eq!(
        logged.iter().map(|s| s.step).collect::<Vec<_>>(),
        (1..=60).collect::<Vec<_>>()
    );
    assert_eq!(logged.iter().map(|s| s.loss).collect::<Vec<_>>(), losses);
    assert!(logged
        .iter()
        .all(|s| s.tokens > 0 && s.tokens_per_s > 0.0 && s.lr > 0.0));
    // The final checkpoint exists, and nothing of the atomic swap is left behind.
    assert!(dir.join("checkpoint/state.json").is_file());
    assert!(dir.join("checkpoint/model.safetensors").is_file());
    assert!(dir.join("checkpoint/optimizer.safetensors").is_file());
    assert!(!dir.join("checkpoint.tmp").exists() && !dir.join("checkpoint.old").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resuming_from_a_checkpoint_is_bit_exact() {
    let data = dataset();
    let model_config = tiny_config();

    let straight_dir = scratch_path("straight");
    let mut straight = Trainer::new(&straight_dir, &model_config, train_config(4)).unwrap();
    straight.run(&data, &mut |_| {}).unwrap();

    let split_dir = scratch_path("split");
    let mut first = Trainer::new(&split_dir, &model_config, train_config(4)).unwrap();
    first.run_until(&data, 2, &mut |_| {}).unwrap();
    // A step taken after the checkpoint and then lost, as in a crash.
    let lost = Batch::new(&data[..1], 2, 64, 40).unwrap();
    first.train_step(&[lost]).unwrap();
    drop(first);
    assert_eq!(log_lines(&split_dir.join("train_log.jsonl")).len(), 3);

    let mut resumed = Trainer::resume(&split_dir).unwrap();
    assert_eq!(resumed.step(), 2);
    assert_eq!(resumed.data_position(), straight_position_after(2));
    resumed.run(&data, &mut |_| {}).unwrap();
    assert_eq!(resumed.step(), 4);

    assert_eq!(params(straight.model()), params(resumed.model()));
    assert_ne!(
        params(straight.model()),
        params(&Llama::new_seeded(&model_config, 11).unwrap()),
        "training changed the parameters"
    );
    // The log has each step once, with the losses of the uninterrupted run.
    let a = log_lines(&straight_dir.join("train_log.jsonl"));
    let b = log_lines(&split_dir.join("train_log.jsonl"));
    assert_eq!(
        b.iter().map(|s| s.step).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    assert_eq!(
        a.iter().map(|s| (s.loss, s.lr)).collect::<Vec<_>>(),
        b.iter().map(|s| (s.loss, s.lr)).collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&straight_dir).unwrap();
    std::fs::remove_dir_all(&split_dir).unwrap();
}

#[test]
fn resuming_on_changed_data_of_the_same_length_is_refused_unless_asked() {
    let data = dataset();
    let (mut first, dir) = new_run("changed", 4);
    first.run_until(&data, 2, &mut |_| {}).unwrap();
    drop(first);
    let mut changed = data.clone();
    changed[2].ids[3] = 7;
    let mut resumed = Trainer::resume(&dir).unwrap();
    let err = resumed.run(&changed, &mut |_| {}).unwrap_err().to_string();
    assert!(
        err.contains("differ from those this run was trained on"),
        "{err}"
    );
    assert_eq!(resumed.step(), 2, "nothing was trained");
    resumed.start_new_data();
    resumed.run(&changed, &mut |_| {}).unwrap();
    assert_eq!(resumed.step(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// 2 steps of 4 examples over a dataset of 4: two full epochs.
fn straight_position_after(steps: u64) -> tool_train::train::DataPosition {
    tool_train::train::DataPosition {
        epoch: steps - 1,
        cursor: 4,
    }
}

#[test]
fn open_resumes_or_starts_and_new_refuses_an_existing_run() {
    let data = dataset();
    let dir = scratch_path("open");
    let mut trainer = Trainer::open(&dir, &tiny_config(), train_config(2)).unwrap();
    assert_eq!(trainer.step(), 0);
    trainer.run(&data, &mut |_| {}).unwrap();
    let err = Trainer::new(&dir, &tiny_config(), train_config(2))
        .unwrap_err()
        .to_string();
    assert!(err.contains("checkpoint"), "{err}");
    // Reopening with a longer schedule continues from step 2.
    let mut again = Trainer::open(&dir, &tiny_config(), train_config(3)).unwrap();
    assert_eq!(again.step(), 2);
    again.run(&data, &mut |_| {}).unwrap();
    assert_eq!(again.step(), 3);
    let mut other = tiny_config();
    other.hidden_size = 64;
    assert!(Trainer::open(&dir, &other, train_config(3)).is_err());
    // A dataset of another size cannot continue the seeded order.
    let mut longer = Trainer::open(&dir, &tiny_config(), train_config(5)).unwrap();
    let err = longer.run(&data[..3], &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("4 examples"), "{err}");
    // ...unless the run is told the data is new: its order starts over.
    longer.start_new_data();
    assert_eq!(longer.data_position(), Default::default());
    longer.run(&data[..3], &mut |_| {}).unwrap();
    assert_eq!(longer.step(), 5);
    // Steps 4 and 5 took 8 examples: two passes over the 3 and 2 of a third.
    assert_eq!(
        longer.data_position(),
        tool_train::train::DataPosition {
            epoch: 2,
            cursor: 2
        }
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_from_a_trained_model_starts_from_its_weights_and_passes_over_its_examples() {
    let data = dataset();
    let (mut first, first_dir) = new_run("first", 2);
    first.run(&data, &mut |_| {}).unwrap();
    let exported = scratch_path("exported");
    first.export_hf(&exported, Precision::F32).unwrap();
    let trained = Llama::load_hf_dir(&exported).unwrap();
    assert_eq!(params(&trained), params(first.model()));

    let dir = scratch_path("further");
    // Six examples: one pass over the four and two of the next.
    let mut further = Trainer::new_from(&dir, trained, train_config(3), 6).unwrap();
    assert_eq!(further.step(), 0);
    assert_eq!(params(further.model()), params(first.model()));
    further.run_until(&data, 1, &mut |_| {}).unwrap();
    // The first step took examples 2 and 3 of the second pass and 0 and 1 of the third.
    assert_eq!(
        further.data_position(),
        tool_train::train::DataPosition {
            epoch: 2,
            cursor: 2
        }
    );
    let log = log_lines(further.log_path());
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].step, 1);
    assert_eq!(
        log[0].lr,
        train_config(3).schedule.lr_at(0),
        "the schedule starts over"
    );
    let err = Trainer::new_from(
        &dir,
        Llama::new_seeded(&tiny_config(), 1).unwrap(),
        train_config(3),
        0,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("checkpoint"), "{err}");
    drop(further);
    assert!(Trainer::has_checkpoint(&dir));
    let mut resumed = Trainer::open(&dir, &tiny_config(), train_config(3)).unwrap();
    assert_eq!(resumed.step(), 1);
    resumed.run(&data, &mut |_| {}).unwrap();
    assert_eq!(resumed.step(), 3);
    for d in [first_dir, exported, dir] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn train_data_is_generic() {
    /// Examples made on demand rather than held in memory.
    struct Generated;
    impl TrainData for Generated {
        fn len(&self) -> usize {
            8
        }
        fn example(&self, index: usize) -> Result<Example, tool_train::train::TrainError> {
            let ids: Vec<u32> = (0..10).map(|i| 3 + ((index as u32 + i) % 30)).collect();
            Ok(Example::unmasked(ids))
        }
    }
    let (mut trainer, dir) = new_run("generic", 3);
    let mut steps = 0;
    trainer
        .run(&Generated, &mut |s| {
            steps += 1;
            assert_eq!(s.counted, 4 * 9);
            assert_eq!(s.tokens, 4 * 10);
        })
        .unwrap();
    assert_eq!(steps, 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn micro_batches_take_the_same_step_as_one_padded_batch() {
    let data = dataset();
    let model_config = tiny_config();
    let mut runs = Vec::new();
    for (name, batch_size, grad_accum) in [("whole", 4, 1), ("micro", 1, 4)] {
        let dir = scratch_path(name);
        let config = TrainConfig {
            batch_size,
            grad_accum,
            ..train_config(3)
        };
        let mut trainer = Trainer::new(&dir, &model_config, config).unwrap();
        let mut losses = Vec::new();
        trainer.run(&data, &mut |s| losses.push(s.loss)).unwrap();
        runs.push((params(trainer.model()), losses));
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let (whole, micro) = (&runs[0], &runs[1]);
    for (a, b) in whole.1.iter().zip(&micro.1) {
        assert!((a - b).abs() < 1e-5, "losses {a} vs {b}");
    }
    for ((name, a), (_, b)) in whole.0.iter().zip(&micro.0) {
        let worst = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{name} differs by {worst}");
    }
}
