//! The encoded corpus `train` trains on, and `tool-train corpus`, which
//! writes it to files for another trainer.
//!
//! `train` and `corpus` share [`CorpusArgs`] and [`Corpus`], so the files
//! hold exactly the token ids and loss weights `train` would train on for
//! the same arguments: a GPU trainer (`scripts/train_torch.py`) then runs
//! the recipe on other hardware, and `tool-train train --init-from` goes on
//! from what it exports.
//!
//! The files, in `--dir`, little-endian, one set per split (`train`,
//! `held_out`):
//! - `SPLIT.ids`: every example's token ids one after the other, `u32`;
//! - `SPLIT.weights`: one `f32` per token, the loss weight of predicting it
//!   from the tokens before (0 where it does not count, and for each
//!   example's first token);
//! - `SPLIT.offsets`: `u64`, where each example starts in the two files
//!   above, and their length at the end (examples + 1 entries);
//! - `corpus.json`: what made them (arguments, counts, the fingerprint
//!   `train` checks when it resumes).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;
use tool_train::corpus::{self, LossWeights, Practice, Split};
use tool_train::train::bpe::Tokenizer;
use tool_train::train::{fingerprint, Example};

/// Version of the files' layout, in `corpus.json`.
const FORMAT: u32 = 1;

/// The corpus arguments `train` and `corpus` share.
#[derive(clap::Args)]
pub struct CorpusArgs {
    /// Training conversations drawn from the corpus.
    #[arg(long, default_value_t = 60_000)]
    pub examples: usize,
    /// Held-out conversations for the evaluation loss.
    #[arg(long, default_value_t = 200)]
    pub held_out: usize,
    /// Loss weight of argument values in calls, and of the tool results an
    /// answer repeats (1: no more than any other token).
    #[arg(long, default_value_t = LossWeights::default().value)]
    pub value_weight: f32,
    /// Loss weight of the tool's name in a call.
    #[arg(long, default_value_t = LossWeights::default().name)]
    pub name_weight: f32,
    /// Loss weight of argument names in a call.
    #[arg(long, default_value_t = LossWeights::default().key)]
    pub key_weight: f32,
    /// Loss weight of a turn's first token, where it chooses between a call
    /// and an answer in words.
    #[arg(long, default_value_t = LossWeights::default().decision)]
    pub decision_weight: f32,
    /// Seed of the corpus, the initialisation and the data order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Longer conversations are cut to this many tokens.
    #[arg(long, default_value_t = 1536)]
    pub max_seq_len: usize,
    /// Fraction of the prompt's tokens (system, user and tool turns) that
    /// also count in the loss, drawn per token from the seed; 0: the
    /// assistant's tokens only. Tokens that are never a target otherwise
    /// (names only ever seen in requests) keep distinct embeddings, so the
    /// model can copy them.
    #[arg(long, default_value_t = 0.1)]
    pub prompt_loss: f64,
}

impl CorpusArgs {
    /// The loss weights the arguments give, checked.
    ///
    /// # Errors
    /// A weight that is not a number above 0, or a prompt fraction outside
    /// 0..=1, named by its flag.
    pub fn weights(&self) -> Result<LossWeights, String> {
        if !(0.0..=1.0).contains(&self.prompt_loss) {
            return Err(format!(
                "--prompt-loss must be between 0 and 1, found {}",
                self.prompt_loss
            ));
        }
        let weights = LossWeights {
            value: self.value_weight,
            name: self.name_weight,
            key: self.key_weight,
            decision: self.decision_weight,
        };
        for (flag, w) in [
            ("--value-weight", weights.value),
            ("--name-weight", weights.name),
            ("--key-weight", weights.key),
            ("--decision-weight", weights.decision),
        ] {
            if !(w.is_finite() && w > 0.0) {
                return Err(format!("{flag} must be a number above 0, found {w}"));
            }
        }
        Ok(weights)
    }
}

/// The tokenizer of the model directory `dir`, given by the option `flag`.
///
/// # Errors
/// A directory without a `tokenizer.json` this trainer reads, named with
/// the option and the file.
pub fn read_tokenizer(dir: &Path, flag: &str) -> Result<Tokenizer, String> {
    let path = dir.join("tokenizer.json");
    Tokenizer::from_file(&path).map_err(|e| {
        format!(
            "{flag} {}: expected a model directory with a tokenizer, but {}: {e}",
            dir.display(),
            path.display()
        )
    })
}

/// Turns the corpus's conversations into training examples with one
/// model directory's tokenizer and the bundled chat template.
pub struct Corpus<'a> {
    args: &'a CorpusArgs,
    weights: LossWeights,
    tokenizer: Tokenizer,
    template: tool_use::template::ChatTemplate,
}

impl<'a> Corpus<'a> {
    /// The encoder for `args`, with the tokenizer of the model directory
    /// `model` (given by the option `flag`).
    ///
    /// # Errors
    /// Bad arguments ([`CorpusArgs::weights`]), or a directory without a
    /// tokenizer this trainer reads.
    pub fn new(args: &'a CorpusArgs, model: &Path, flag: &str) -> Result<Self, String> {
        let weights = args.weights()?;
        let tokenizer = read_tokenizer(model, flag)?;
        let template = corpus::bundled_template().map_err(|e| e.to_string())?;
        Ok(Self {
            args,
            weights,
            tokenizer,
            template,
        })
    }

    /// Tokens in the tokenizer's vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.tokenizer.get_vocab_size(true)
    }

    /// The training split of `practice`, weighted and with the drawn share
    /// of prompt tokens counted, as `train` trains on it.
    ///
    /// # Errors
    /// A conversation the template or tokenizer cannot encode.
    pub fn training(&self, practice: Practice) -> Result<Vec<Example>, String> {
        let started = Instant::now();
        let count = self.args.examples as u64;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        let per_thread = count.div_ceil(threads).max(1);
        // Each conversation depends on its index alone: the parts, joined in
        // order, are the corpus one thread would make.
        let parts: Vec<Result<Vec<Example>, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..count)
                .step_by(per_thread as usize)
                .map(|start| {
                    let range = start..(start + per_thread).min(count);
                    scope.spawn(move || {
                        let examples = corpus::generate_range(
                            self.args.seed,
                            range.clone(),
                            Split::Train,
                            practice,
                        );
                        self.encode(&examples, range.start, self.args.prompt_loss, &self.weights)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a corpus thread panicked".into()))
                })
                .collect()
        });
        let mut data = Vec::with_capacity(self.args.examples);
        for part in parts {
            data.extend(part?);
        }
        let tokens: usize = data.iter().map(|e| e.ids.len()).sum();
        let counted: usize = data.iter().map(Example::counted).sum();
        eprintln!(
            "corpus ({practice}): {} conversations, {tokens} tokens ({counted} trained), encoded in {:.1}s",
            data.len(),
            started.elapsed().as_secs_f64()
        );
        Ok(data)
    }

    /// The held-out conversations of the evaluation loss: unweighted and
    /// assistant tokens only, so that the loss compares across recipes.
    ///
    /// # Errors
    /// As [`Corpus::training`].
    pub fn held_out(&self) -> Result<Vec<Example>, String> {
        let examples = corpus::generate(self.args.seed + 1000, self.args.held_out, Split::HeldOut);
        self.encode(&examples, 0, 0.0, &LossWeights::UNIFORM)
    }

    /// Encodes `examples`, the first of which is conversation `first` of
    /// its split (the index the prompt tokens' draw is seeded with).
    fn encode(
        &self,
        examples: &[corpus::Example],
        first: u64,
        prompt_loss: f64,
        weights: &LossWeights,
    ) -> Result<Vec<Example>, String> {
        examples
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let mut enc = corpus::encode_weighted(&self.tokenizer, &self.template, e, weights)
                    .map_err(|e| e.to_string())?;
                enc.train_on_prompt(prompt_loss, self.args.seed, first + i as u64);
                let example = Example::new(enc.ids, enc.mask).map_err(|e| e.to_string())?;
                if weights.is_uniform() {
                    Ok(example)
                } else {
                    example.with_weights(enc.weights).map_err(|e| e.to_string())
                }
            })
            .collect()
    }
}

/// Arguments of `tool-train corpus`.
#[derive(clap::Args)]
pub struct CorpusExportArgs {
    /// Where the files go (created if needed; files of the same names are
    /// replaced).
    #[arg(long)]
    dir: PathBuf,
    /// The model directory whose tokenizer encodes the corpus.
    #[arg(long, default_value_os_t = tool_use::bundled::model_dir())]
    model: PathBuf,
    /// What the corpus adds to the standard conversations, as `train
    /// --practice` takes it.
    #[arg(long, default_value_t = Practice::Standard)]
    practice: Practice,
    /// The corpus's size, seed and loss weights, as `train` takes them.
    #[command(flatten)]
    corpus: CorpusArgs,
}

/// Runs `tool-train corpus`.
pub fn run(args: CorpusExportArgs) -> Result<(), String> {
    let corpus = Corpus::new(&args.corpus, &args.model, "--model")?;
    let training = corpus.training(args.practice)?;
    let held_out = corpus.held_out()?;
    std::fs::create_dir_all(&args.dir).map_err(|e| format!("{}: {e}", args.dir.display()))?;
    let train_counts = write_split(&args.dir, "train", &training)?;
    let held_out_counts = write_split(&args.dir, "held_out", &held_out)?;
    let c = &args.corpus;
    let manifest = json!({
        "format": FORMAT,
        "vocab_size": corpus.vocab_size(),
        "practice": args.practice.to_string(),
        "seed": c.seed,
        "max_seq_len": c.max_seq_len,
        "prompt_loss": c.prompt_loss,
        "loss_weights": {
            "value": c.value_weight,
            "name": c.name_weight,
            "key": c.key_weight,
            "decision": c.decision_weight,
        },
        "train": train_counts.to_json(fingerprint(&training).map_err(|e| e.to_string())?),
        "held_out": held_out_counts.to_json(fingerprint(&held_out).map_err(|e| e.to_string())?),
    });
    let path = args.dir.join("corpus.json");
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!(
        "wrote {} training and {} held-out conversations ({} and {} tokens) to {}",
        train_counts.examples,
        held_out_counts.examples,
        train_counts.tokens,
        held_out_counts.tokens,
        args.dir.display()
    );
    Ok(())
}

/// What a split's files hold.
struct Counts {
    examples: usize,
    tokens: usize,
    counted: usize,
}

impl Counts {
    fn to_json(&self, fingerprint: u64) -> serde_json::Value {
        json!({
            "examples": self.examples,
            "tokens": self.tokens,
            "counted": self.counted,
            // As a string: a u64 does not survive a JSON reader's doubles.
            "fingerprint": format!("{fingerprint:016x}"),
        })
    }
}

/// Writes one split's `.ids`, `.weights` and `.offsets`.
fn write_split(dir: &Path, name: &str, examples: &[Example]) -> Result<Counts, String> {
    let open = |ext: &str| -> Result<(PathBuf, BufWriter<std::fs::File>), String> {
        let path = dir.join(format!("{name}.{ext}"));
        let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((path, BufWriter::new(file)))
    };
    let (ids_path, mut ids) = open("ids")?;
    let (weights_path, mut weights) = open("weights")?;
    let (offsets_path, mut offsets) = open("offsets")?;
    let failed = |path: &Path| {
        let path = path.display().to_string();
        move |e: std::io::Error| format!("{path}: {e}")
    };
    let mut counts = Counts {
        examples: examples.len(),
        tokens: 0,
        counted: 0,
    };
    for example in examples {
        offsets
            .write_all(&(counts.tokens as u64).to_le_bytes())
            .map_err(failed(&offsets_path))?;
        for (t, &id) in example.ids.iter().enumerate() {
            ids.write_all(&id.to_le_bytes())
                .map_err(failed(&ids_path))?;
            let counted = t > 0 && example.mask[t];
            let w = match (&example.weights, counted) {
                (_, false) => 0.0f32,
                (Some(w), true) => w[t],
                (None, true) => 1.0,
            };
            weights
                .write_all(&w.to_le_bytes())
                .map_err(failed(&weights_path))?;
        }
        counts.tokens += example.ids.len();
        counts.counted += example.counted();
    }
    offsets
        .write_all(&(counts.tokens as u64).to_le_bytes())
        .map_err(failed(&offsets_path))?;
    for (path, mut file) in [
        (ids_path, ids),
        (weights_path, weights),
        (offsets_path, offsets),
    ] {
        file.flush().map_err(failed(&path))?;
    }
    Ok(counts)
}
