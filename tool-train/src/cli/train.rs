//! `tool-train train`: train the bundled model on the synthetic corpus.
//!
//! The run lives in a directory of checkpoints (`--run-dir`); running the
//! command again resumes from the last one, exactly. At the end (or at
//! `--until`) the model is exported into `--out` beside the committed
//! tokenizer and chat template. A run is one or more learning-rate cycles,
//! each after the first (`--extend`) training the model the one before
//! ends with further.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::average::{export_mean, load};
use super::corpus::{Corpus, CorpusArgs};
use super::shape::ShapeArgs;
use tool_train::corpus::Practice;
use tool_train::train::{
    deepen, AdamWConfig, Example, Llama, LrSchedule, ModelConfig, Precision, TrainConfig,
    TrainData, TrainError, Trainer,
};

/// Arguments of `tool-train train`.
#[derive(clap::Args)]
pub struct TrainArgs {
    /// The model directory: its tokenizer.json and tokenizer_config.json are
    /// read, and the trained model is written there.
    #[arg(long, default_value_os_t = tool_use::bundled::model_dir())]
    out: PathBuf,
    /// Checkpoints, the loss log (train_log.jsonl) and the run's configuration.
    #[arg(long, default_value = "target/train/tool-use-mini")]
    run_dir: PathBuf,
    /// The corpus: how many conversations, their seed and loss weights.
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Optimizer steps of the first learning-rate cycle (sets its schedule).
    #[arg(long, default_value_t = 3_600)]
    steps: u64,
    /// Stop (with a checkpoint) after this step, counting on across the
    /// cycles (the second's first step is `--steps` + 1); run again to go on.
    #[arg(long)]
    until: Option<u64>,
    /// Sequences per step.
    #[arg(long, default_value_t = 8)]
    batch_size: usize,
    /// Sequences per forward pass: a step's sequences are sorted by length
    /// and passed in groups this large, so that little is padding. Must
    /// divide `--batch-size`; the step's gradient is the same either way.
    #[arg(long, default_value_t = 1)]
    micro_batch: usize,
    /// Peak learning rate of the first cycle.
    #[arg(long, default_value_t = 2e-3)]
    lr: f64,
    /// What the first cycle's corpus adds to the standard conversations
    /// (`ends`: value-end practice, as `+ends` gives a later cycle; `wide`:
    /// value-end practice and wider wording, as `+wide`; `wording`: the same
    /// without units after a comma; `followups`: wide practice with composed
    /// follow-ups; `fields`: follow-up practice with email and translation
    /// requests whose fields are cued in composed words; `declines`:
    /// field-cue practice with composed writing requests no tool does and
    /// more requests that need no tool; `requests`: decline practice with
    /// composed temperature, statistics, two-call and two-step requests;
    /// `numbers`: request practice with composed arithmetic and lists that
    /// repeat a value; `lookalikes`: number practice with lookalike tools
    /// offered beside requests for a tool not offered, and composed
    /// forecasts; `bare`: lookalike practice with requests asked without
    /// their lead, "Average of …"; `chat`: bare practice with more small
    /// talk and thanks after answers).
    #[arg(long, default_value_t = Practice::Standard)]
    practice: Practice,
    /// The shape of a seeded model (`--init-from` gives its own).
    #[command(flatten)]
    shape: ShapeArgs,
    /// AdamW's weight decay (of the matrices and the embedding).
    #[arg(long, default_value_t = 0.1)]
    weight_decay: f64,
    /// Export the model every this many steps (0: only at the end).
    #[arg(long, default_value_t = 500)]
    export_every: u64,
    /// Further learning-rate cycles after the first, each `STEPS@PEAK_LR`
    /// (comma-separated; `--extend` alone: none). Cycle k trains the model
    /// cycle k-1 ends with, as exported (`RUN_DIR/cycleK/start`), with
    /// fresh optimizer moments and the learning rate warming up again to
    /// its peak and decaying, on conversations the cycles before it did not
    /// reach; its checkpoints are in `RUN_DIR/cycleK`. `+ends` after the
    /// peak trains the cycle on a corpus with value-end practice (places of
    /// several words, words after a place that are not part of it, numbers
    /// that repeat their digits), drawn from the same seed; `+wide` adds
    /// wider wording to it (thanks and greetings composed from parts,
    /// thanks after answered requests, more requests for tools not offered,
    /// units after a comma, texts with inner punctuation); `+wording` is
    /// `+wide` without units after a comma; `+followups` is `+wide` with
    /// follow-ups for another value composed from parts (some after
    /// thanks), and more follow-ups and chained requests; `+fields` is
    /// `+followups` with email and translation requests whose fields are
    /// cued in words composed from parts, in either order; `+declines` is
    /// `+fields` with writing requests no tool does composed from parts,
    /// thanks after sessions, and more requests that need no tool;
    /// `+requests` is `+declines` with temperature, statistics, two-call
    /// and two-step requests composed from parts; `+numbers` is `+requests`
    /// with arithmetic composed from parts, most of it ending on a number,
    /// and lists of numbers that repeat a value; `+lookalikes` is
    /// `+numbers` with a tool that shares words or arguments with the one
    /// asked for offered beside most requests for a tool not offered, and
    /// forecasts composed from parts; `+bare` is `+lookalikes` with
    /// requests asked without their lead, starting with what they ask for
    /// capitalised ("Average of …" for "What's the average of …"); `+chat`
    /// is `+bare` with more small talk and more thanks after answers.
    /// `+layers=N`
    /// grows the model the cycle starts from to N decoder layers, each new
    /// one a copy of the layer before it whose output projections are zero,
    /// so that the cycle starts from the same predictions; later cycles
    /// keep N.
    #[arg(long, value_name = "STEPS@PEAK_LR[+PRACTICE][+layers=N]", value_delimiter = ',', num_args = 0.., default_values_t = shipped_recipe())]
    extend: Vec<LrCycle>,
    /// Start from this model directory's weights (config.json and
    /// model.safetensors, as `train` exports them) instead of a seeded
    /// initialisation, with fresh optimizer moments and the first cycle's schedule:
    /// to train a finished model further. Its shape is the model's (a shape
    /// flag that contradicts it is refused); `--layers` above its own
    /// deepens it, as `+layers=N` deepens a later cycle's.
    #[arg(long)]
    init_from: Option<PathBuf>,
    /// Examples of the seeded data order to pass over at the start of a run
    /// (with `--init-from`: those the model was already trained on, steps
    /// times batch size when the corpus and seed are the same).
    #[arg(long, default_value_t = 0)]
    skip: usize,
    /// Resume on a corpus other than the checkpoint's (another `--examples`,
    /// or a changed generator): its order starts from the beginning.
    #[arg(long)]
    new_data: bool,
    /// When the last cycle is done, the exported model is the parameter-wise
    /// mean of the last this many cycles' ends (as each was exported; before
    /// the first cycle, the `--init-from` model counts as one): 1 exports
    /// the last cycle's own weights. Ends of another shape than the last
    /// (before a cycle that grew the model) are left out.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    average_last: u64,
    /// How the exported weights are stored: f16 (how the model ships, half
    /// the size) or f32 (the trained values exactly).
    #[arg(long, default_value = "f16")]
    precision: Precision,
}

/// Runs `tool-train train`.
pub fn run(args: TrainArgs) -> Result<(), String> {
    if args.micro_batch == 0 || !args.batch_size.is_multiple_of(args.micro_batch) {
        return Err(format!(
            "--micro-batch must divide --batch-size {}, found {}",
            args.batch_size, args.micro_batch
        ));
    }
    if !(args.weight_decay.is_finite() && args.weight_decay >= 0.0) {
        return Err(format!(
            "--weight-decay must be a number of at least 0, found {}",
            args.weight_decay
        ));
    }
    // Fresh large tensors each step would otherwise page-fault: 20-30% of the time.
    tool_train::train::keep_freed_memory();
    let corpus = Corpus::new(&args.corpus, &args.out, "--out")?;
    // A corpus per practice the run's cycles ask for, made when one first needs it.
    let mut corpora: HashMap<Practice, Vec<Example>> = HashMap::new();
    let held_out = corpus.held_out()?;

    let mut initial = match &args.init_from {
        Some(dir) => Some(
            Llama::load_hf_dir(dir).map_err(|e| format!("--init-from {}: {e}", dir.display()))?,
        ),
        None => None,
    };
    let model = match &initial {
        Some(m) => {
            args.shape.check_against(m.config(), "--init-from")?;
            m.config().clone()
        }
        None => args.shape.config(corpus.vocab_size()),
    };
    if model.vocab_size != corpus.vocab_size() {
        return Err(format!(
            "expected a model with the tokenizer's {} tokens, found {}",
            corpus.vocab_size(),
            model.vocab_size
        ));
    }
    eprintln!("model: {} parameters", model.num_parameters());
    let until = args.until.unwrap_or(u64::MAX);
    let cycles: Vec<LrCycle> = std::iter::once(LrCycle {
        steps: args.steps,
        lr: args.lr,
        practice: args.practice,
        layers: args.shape.layers,
    })
    .chain(args.extend.iter().copied())
    .collect();
    // Each cycle's shape: the layers it asks for, or the cycle before's.
    let mut shapes: Vec<ModelConfig> = Vec::with_capacity(cycles.len());
    for (k, cycle) in cycles.iter().enumerate() {
        let before = shapes
            .last()
            .map_or(model.num_hidden_layers, |m| m.num_hidden_layers);
        let layers = match cycle.layers {
            Some(n) if n < before => {
                return Err(format!(
                    "expected cycle {} to keep at least the {before} layers of the model it starts from, found `{cycle}`",
                    k + 1
                ))
            }
            Some(n) => n,
            None => before,
        };
        shapes.push(ModelConfig {
            num_hidden_layers: layers,
            ..model.clone()
        });
    }
    // Once a cycle has a checkpoint, the ones before it are done.
    let current = (1..cycles.len())
        .rev()
        .find(|&k| Trainer::has_checkpoint(&cycle_dir(&args.run_dir, k)))
        .unwrap_or(0);
    for (k, lr_cycle) in cycles.iter().enumerate().skip(current) {
        let before: u64 = cycles[..k].iter().map(|s| s.steps).sum();
        if k == current && k > 0 && until <= before {
            return Err(format!(
                "the run is in cycle {} of {}, past step {before}: expected --until above it, found {until}",
                k + 1,
                cycles.len()
            ));
        }
        let dir = cycle_dir(&args.run_dir, k);
        let start = if k == 0 {
            initial.take().map_or(Start::Seeded, Start::Weights)
        } else {
            // From the exported file rather than the weights in memory, so
            // that a cycle starts from the model as the one before ships it.
            Start::Exported(dir.join("start"))
        };
        let skip = usize::try_from(before)
            .ok()
            .and_then(|steps| steps.checked_mul(args.batch_size))
            .and_then(|seen| seen.checked_add(args.skip))
            .ok_or("the steps before this cycle times --batch-size are too many")?;
        let cycle = Cycle {
            run_dir: dir,
            steps: lr_cycle.steps,
            lr: lr_cycle.lr,
            start,
            skip,
            until: (until - before).min(lr_cycle.steps),
        };
        let data = match corpora.remove(&lr_cycle.practice) {
            Some(data) => data,
            None => corpus.training(lr_cycle.practice)?,
        };
        let trainer = cycle.train(&args, &shapes[k], &data, &held_out)?;
        corpora.insert(lr_cycle.practice, data);
        // Stopped by --until (within or at the end of this cycle), or done.
        if until - before <= lr_cycle.steps || k + 1 == cycles.len() {
            break;
        }
        let next = cycle_dir(&args.run_dir, k + 1).join("start");
        trainer
            .export_hf(&next, args.precision)
            .map_err(|e| e.to_string())?;
    }
    let total: u64 = cycles.iter().map(|c| c.steps).sum();
    if until >= total {
        average_ends(&args, cycles.len())?;
    }
    Ok(())
}

/// Replaces the exported model by the mean of the last `--average-last`
/// cycles' ends: the export itself, and the models the cycles before
/// started from (what the cycle before each exported, or `--init-from`),
/// back to the first of another shape (a cycle that grew the model).
fn average_ends(args: &TrainArgs, cycles: usize) -> Result<(), String> {
    let wanted = usize::try_from(args.average_last).unwrap_or(usize::MAX);
    if wanted <= 1 {
        return Ok(());
    }
    let mut ends = vec![(args.out.clone(), load(&args.out)?)];
    for k in (0..cycles).rev() {
        if ends.len() >= wanted {
            break;
        }
        let dir = match (k, &args.init_from) {
            (0, Some(init)) => init.clone(),
            (0, None) => break,
            _ => cycle_dir(&args.run_dir, k).join("start"),
        };
        let end = load(&dir)?;
        if end.config() != ends[0].1.config() {
            eprintln!(
                "averaging no further back than the model grew: {} has another shape",
                dir.display()
            );
            break;
        }
        ends.push((dir, end));
    }
    if ends.len() == 1 {
        return Ok(());
    }
    // Oldest first, so that the sum's order is the recipe's.
    ends.reverse();
    export_mean(&ends, &args.out, args.precision)
        .map_err(|e| format!("--average-last {}: {e}", args.average_last))
}

/// Where cycle `k` (from 0) keeps its checkpoints: the run directory for
/// the first, `cycle2`, `cycle3`, … in it for the others.
fn cycle_dir(run_dir: &Path, k: usize) -> PathBuf {
    if k == 0 {
        run_dir.to_path_buf()
    } else {
        run_dir.join(format!("cycle{}", k + 1))
    }
}

/// `--extend`'s default: the cycles after the first that trained the
/// shipped model, 2,000 steps each.
fn shipped_recipe() -> Vec<LrCycle> {
    use Practice::*;
    let cycle = |lr, practice| LrCycle {
        steps: 2_000,
        lr,
        practice,
        layers: None,
    };
    vec![
        cycle(6e-4, Standard),
        cycle(4e-4, Standard),
        cycle(3e-4, ValueEnds),
        cycle(3e-4, Wording),
        LrCycle {
            layers: Some(5),
            ..cycle(3e-4, Wording)
        },
        cycle(3e-4, FollowUps),
        cycle(3e-4, Fields),
        cycle(3e-4, Requests),
        cycle(3e-4, Numbers),
        cycle(3e-4, Numbers),
        cycle(3e-4, Lookalikes),
        cycle(3e-4, Lookalikes),
        cycle(3e-4, Bare),
        cycle(3e-4, Chat),
        cycle(3e-4, Chat),
        cycle(3e-4, Chat),
    ]
}

/// A learning-rate cycle's length, peak and corpus, as `--extend` gives
/// it: `STEPS@PEAK_LR[+PRACTICE]`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LrCycle {
    steps: u64,
    lr: f64,
    practice: Practice,
    /// Decoder layers to grow the starting model to.
    layers: Option<usize>,
}

impl std::str::FromStr for LrCycle {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let expected = || {
            format!("expected STEPS@PEAK_LR[+PRACTICE][+layers=N] such as 2000@6e-4, 2000@3e-4+ends or 2000@3e-4+wording+layers=5, found `{s}`")
        };
        let (mut practice, mut layers) = (None, None);
        let mut s_cycle = s;
        // `+` may also be an exponent's sign (6e+4): a suffix is a word.
        while let Some((head, suffix)) = s_cycle.rsplit_once('+') {
            let suffix = suffix.trim();
            if !suffix.starts_with(|c: char| c.is_alphabetic()) {
                break;
            }
            let twice = if let Some(n) = suffix.strip_prefix("layers=") {
                let n = n.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                    format!(
                        "expected a number of layers above 0 after `layers=`, found `{n}` in `{s}`"
                    )
                })?;
                layers.replace(n).is_some()
            } else {
                let p = suffix
                    .parse::<Practice>()
                    .map_err(|e| format!("{e} in `{s}`"))?;
                practice.replace(p).is_some()
            };
            if twice {
                return Err(format!(
                    "expected each of a cycle's suffixes once, found `{suffix}` again in `{s}`"
                ));
            }
            s_cycle = head;
        }
        let (steps, lr) = s_cycle.split_once('@').ok_or_else(expected)?;
        let steps: u64 = steps.trim().parse().map_err(|_| expected())?;
        let lr: f64 = lr.trim().parse().map_err(|_| expected())?;
        if steps == 0 || !(lr.is_finite() && lr > 0.0) {
            return Err(format!(
                "expected at least one step and a learning rate above 0, found `{s}`"
            ));
        }
        Ok(Self {
            steps,
            lr,
            practice: practice.unwrap_or_default(),
            layers,
        })
    }
}

impl std::fmt::Display for LrCycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{:e}", self.steps, self.lr)?;
        if self.practice != Practice::Standard {
            write!(f, "+{}", self.practice)?;
        }
        match self.layers {
            Some(n) => write!(f, "+layers={n}"),
            None => Ok(()),
        }
    }
}

/// The weights a cycle starts from.
enum Start {
    /// The seeded initialisation.
    Seeded,
    /// These (`--init-from`).
    Weights(Llama),
    /// The model directory the cycle before exported.
    Exported(PathBuf),
}

/// One learning-rate schedule of a run, in its own directory of checkpoints.
struct Cycle {
    run_dir: PathBuf,
    steps: u64,
    lr: f64,
    /// The weights the cycle starts from, if it has no checkpoint yet.
    start: Start,
    /// Examples of the seeded data order a new run passes over.
    skip: usize,
    /// Stop (with a checkpoint) after this step.
    until: u64,
}

impl Cycle {
    /// Starts or resumes the cycle and trains it to `until`, exporting the
    /// model into `--out` every `--export-every` steps and at the end.
    fn train(
        self,
        args: &TrainArgs,
        model: &ModelConfig,
        data: &[Example],
        held_out: &[Example],
    ) -> Result<Trainer, String> {
        let config = TrainConfig {
            seed: args.corpus.seed,
            batch_size: args.micro_batch,
            grad_accum: args.batch_size / args.micro_batch,
            max_seq_len: args.corpus.max_seq_len,
            schedule: LrSchedule {
                peak_lr: self.lr,
                min_lr: self.lr / 10.0,
                warmup_steps: (self.steps / 50).max(1),
                total_steps: self.steps,
            },
            checkpoint_every: 100,
            adamw: AdamWConfig {
                weight_decay: args.weight_decay,
                ..AdamWConfig::default()
            },
            ..TrainConfig::default()
        };
        let mut trainer = if Trainer::has_checkpoint(&self.run_dir) {
            Trainer::open(&self.run_dir, model, config)
        } else {
            let from = match self.start {
                Start::Seeded => {
                    Llama::new_seeded(model, args.corpus.seed).map_err(|e| e.to_string())?
                }
                Start::Weights(weights) => weights,
                Start::Exported(dir) => {
                    Llama::load_hf_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?
                }
            };
            let from = if from.config().num_hidden_layers == model.num_hidden_layers {
                from
            } else {
                let deeper = deepen(&from, model.num_hidden_layers).map_err(|e| e.to_string())?;
                eprintln!(
                    "deepened the model from {} to {} layers ({} parameters)",
                    from.config().num_hidden_layers,
                    model.num_hidden_layers,
                    model.num_parameters()
                );
                deeper
            };
            if from.config() != model {
                return Err(format!(
                    "expected the cycle to start from a model of shape {model:?}, found {:?}",
                    from.config()
                ));
            }
            Trainer::new_from(&self.run_dir, from, config, self.skip)
        }
        .map_err(|e| e.to_string())?;
        if args.new_data {
            trainer.start_new_data();
        }
        eprintln!(
            "run {} at step {} of {}",
            self.run_dir.display(),
            trainer.step(),
            self.steps
        );
        let export_every = if args.export_every == 0 {
            u64::MAX
        } else {
            args.export_every
        };
        if trainer.step() >= self.until {
            // Already there (a copied checkpoint, say): export it as it stands.
            export(&trainer, held_out, &args.out, args.precision)?;
        }
        while trainer.step() < self.until {
            let next = (trainer.step() / export_every + 1)
                .saturating_mul(export_every)
                .min(self.until);
            trainer
                .run_until(data, next, &mut |s| {
                    if s.step % 10 == 0 {
                        eprintln!(
                            "step {:>5}  loss {:.4}  lr {:.2e}  {:.0} tok/s  {:.0}s",
                            s.step, s.loss, s.lr, s.tokens_per_s, s.elapsed_s
                        );
                    }
                })
                .map_err(|e| e.to_string())?;
            export(&trainer, held_out, &args.out, args.precision)?;
        }
        Ok(trainer)
    }
}

/// Reports the held-out loss and writes the model into `out`.
fn export(
    trainer: &Trainer,
    held_out: &(impl TrainData + ?Sized),
    out: &Path,
    precision: Precision,
) -> Result<(), String> {
    let loss = trainer
        .eval_loss(held_out)
        .map_err(|e: TrainError| e.to_string())?;
    eprintln!("step {:>5}  held-out loss {loss:.4}", trainer.step());
    trainer
        .export_hf(out, precision)
        .map_err(|e| e.to_string())?;
    eprintln!("exported step {} to {}", trainer.step(), out.display());
    Ok(())
}
