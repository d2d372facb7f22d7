//! The training loop: seeded data order, gradient accumulation, clipping, AdamW with the
//! schedule, the loss log, and checkpoints.

use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::{Tensor, Var};

use super::adamw::AdamW;
use super::batch::{Batch, Example};
use super::checkpoint::{self, CheckpointState};
use super::config::ModelConfig;
use super::data::{DataOrder, DataPosition, TrainData};
use super::error::{io_err, TensorContext, TrainError};
use super::export::export_hf;
use super::files::Precision;
use super::llama::Llama;
use super::log::{StepStats, TrainLog};
use super::train_config::TrainConfig;

/// A training run living in a directory: `checkpoint/` (see [`Trainer::save_checkpoint`])
/// and `train_log.jsonl` (one [`StepStats`] per step).
#[derive(Debug)]
pub struct Trainer {
    run_dir: PathBuf,
    model: Llama,
    params: Vec<(String, Var)>,
    optimizer: AdamW,
    config: TrainConfig,
    state: CheckpointState,
    log: TrainLog,
}

impl Trainer {
    /// Starts a fresh run in `run_dir` with a model initialised from `config.seed`.
    ///
    /// # Errors
    /// [`TrainError::Config`] for invalid configurations or when `run_dir` already holds a
    /// checkpoint (use [`Trainer::resume`] or [`Trainer::open`]); [`TrainError::Io`].
    pub fn new(
        run_dir: &Path,
        model_config: &ModelConfig,
        config: TrainConfig,
    ) -> Result<Self, TrainError> {
        // Refused before a model is built for it.
        config.validate()?;
        check_fits(&config, model_config)?;
        let model = Llama::new_seeded(model_config, config.seed)?;
        Self::new_from(run_dir, model, config, 0)
    }

    /// Starts a fresh run in `run_dir` from `model`'s weights (a finished model, to train it
    /// further) instead of a seeded initialisation. The optimizer's moments start at zero and
    /// the schedule at its step 0; the first `skip` examples of the seeded data order are
    /// passed over (those the model was already trained on, when its corpus and seed are
    /// this run's). Resume it with [`Trainer::open`] like any other run.
    ///
    /// # Errors
    /// As [`Trainer::new`].
    pub fn new_from(
        run_dir: &Path,
        model: Llama,
        config: TrainConfig,
        skip: usize,
    ) -> Result<Self, TrainError> {
        config.validate()?;
        check_fits(&config, model.config())?;
        if let Some(found) = checkpoint::find(run_dir) {
            return Err(TrainError::Config(format!(
                "expected a directory without a checkpoint for a new run, found {}",
                found.display()
            )));
        }
        std::fs::create_dir_all(run_dir).map_err(io_err("create", run_dir))?;
        let params = model.named_parameters();
        let optimizer = AdamW::new(config.adamw, &params)?;
        let mut state = checkpoint::initial_state(model.config(), &config);
        state.data = DataPosition {
            epoch: 0,
            cursor: skip,
        };
        Self::assemble(run_dir, model, optimizer, config, state)
    }

    /// Whether `run_dir` holds a checkpoint to resume.
    pub fn has_checkpoint(run_dir: &Path) -> bool {
        checkpoint::find(run_dir).is_some()
    }

    /// Continues the run in `run_dir` from its checkpoint, with the configuration it was
    /// saved with. Training on from here gives bit-for-bit the parameters an uninterrupted
    /// run would have.
    ///
    /// # Errors
    /// [`TrainError::Checkpoint`] when there is no checkpoint or it is unreadable.
    pub fn resume(run_dir: &Path) -> Result<Self, TrainError> {
        let loaded = checkpoint::load(run_dir)?.ok_or_else(|| TrainError::Checkpoint {
            path: run_dir.join("checkpoint"),
            message: "expected a checkpoint to resume, found none".into(),
        })?;
        let config = loaded.state.train.clone();
        Self::from_loaded(run_dir, loaded, config)
    }

    /// Resumes the run in `run_dir` if it has a checkpoint, else starts it.
    ///
    /// On resume, `config` replaces the saved training configuration (to train longer, say);
    /// the continuation is exact only if it is unchanged. The model configuration must
    /// match the checkpoint's.
    ///
    /// # Errors
    /// As [`Trainer::new`] and [`Trainer::resume`]; [`TrainError::Config`] when
    /// `model_config` differs from the checkpoint's.
    pub fn open(
        run_dir: &Path,
        model_config: &ModelConfig,
        config: TrainConfig,
    ) -> Result<Self, TrainError> {
        config.validate()?;
        match checkpoint::load(run_dir)? {
            None => Self::new(run_dir, model_config, config),
            Some(loaded) => {
                if &loaded.state.model != model_config {
                    return Err(TrainError::Config(format!(
                        "expected the model configuration of the checkpoint in {}: {:?}, found {:?}",
                        run_dir.display(),
                        loaded.state.model,
                        model_config
                    )));
                }
                Self::from_loaded(run_dir, loaded, config)
            }
        }
    }

    fn from_loaded(
        run_dir: &Path,
        loaded: checkpoint::Loaded,
        config: TrainConfig,
    ) -> Result<Self, TrainError> {
        let checkpoint::Loaded {
            model,
            moments,
            mut state,
            optimizer_path,
        } = loaded;
        check_fits(&config, model.config())?;
        let params = model.named_parameters();
        let optimizer = AdamW::from_state(config.adamw, &params, moments, state.optimizer_updates)
            .map_err(|e| TrainError::Checkpoint {
                path: optimizer_path,
                message: e.to_string(),
            })?;
        state.train = config.clone();
        Self::assemble(run_dir, model, optimizer, config, state)
    }

    /// The trainer of a started or resumed run; its log continues after `state.step`.
    fn assemble(
        run_dir: &Path,
        model: Llama,
        optimizer: AdamW,
        config: TrainConfig,
        state: CheckpointState,
    ) -> Result<Self, TrainError> {
        let log = TrainLog::open(run_dir, state.step)?;
        let params = model.named_parameters();
        Ok(Self {
            run_dir: run_dir.to_path_buf(),
            model,
            params,
            optimizer,
            config,
            state,
            log,
        })
    }

    /// The model being trained.
    pub fn model(&self) -> &Llama {
        &self.model
    }

    /// The training configuration.
    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// Optimizer steps completed.
    pub fn step(&self) -> u64 {
        self.state.step
    }

    /// Where [`Trainer::run`] stands in the seeded data order.
    pub fn data_position(&self) -> DataPosition {
        self.state.data
    }

    /// Goes on with other data than the checkpoint was trained on (a new
    /// corpus, or more of it): the next [`Trainer::run`] starts that data's
    /// seeded order from its beginning, and accepts any size. The weights,
    /// optimizer moments and step count are kept.
    pub fn start_new_data(&mut self) {
        self.state.data = DataPosition::default();
        self.state.data_len = None;
        self.state.data_fingerprint = None;
    }

    /// Real tokens trained on so far.
    pub fn tokens_seen(&self) -> u64 {
        self.state.tokens_seen
    }

    /// The run directory.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// The loss log, `train_log.jsonl` in the run directory.
    pub fn log_path(&self) -> &Path {
        self.log.path()
    }

    /// One optimizer step over `micro_batches`: the mean loss over all their counted
    /// tokens (weighted, where the examples have loss weights) is back-propagated batch by batch (gradients summed), the global gradient norm
    /// clipped, and AdamW applied at the schedule's learning rate. The step is logged.
    ///
    /// # Errors
    /// [`TrainError::Data`] when no token of the step counts; tensor errors.
    pub fn train_step(&mut self, micro_batches: &[Batch]) -> Result<StepStats, TrainError> {
        let start = Instant::now();
        let counted: usize = micro_batches.iter().map(Batch::counted).sum();
        let weight: f64 = micro_batches.iter().map(Batch::weight).sum();
        let tokens: usize = micro_batches.iter().map(Batch::tokens).sum();
        if counted == 0 || weight <= 0.0 {
            return Err(TrainError::Data(
                "expected at least one counted token in a training step, found none".into(),
            ));
        }
        let mut sums: Vec<Option<Tensor>> = vec![None; self.params.len()];
        let mut loss_sum = 0.0f64;
        for batch in micro_batches.iter().filter(|b| b.counted() > 0) {
            let loss = self.model.loss_sum(batch)?;
            loss_sum += f64::from(loss.to_scalar::<f32>().ctx("reading the loss")?);
            let grads = (loss / weight)
                .and_then(|l| l.backward())
                .ctx("back-propagating the loss")?;
            for ((_, var), sum) in self.params.iter().zip(sums.iter_mut()) {
                if let Some(grad) = grads.get(var.as_tensor()) {
                    *sum = Some(match sum.take() {
                        None => grad.clone(),
                        Some(previous) => (previous + grad).ctx("accumulating gradients")?,
                    });
                }
            }
        }
        let mut grads = Vec::with_capacity(sums.len());
        for ((_, var), sum) in self.params.iter().zip(sums) {
            grads.push(match sum {
                Some(grad) => grad,
                None => var.as_tensor().zeros_like().ctx("a zero gradient")?,
            });
        }
        let grad_norm = global_norm(&grads)?;
        if self.config.grad_clip > 0.0 && grad_norm > self.config.grad_clip {
            let scale = self.config.grad_clip / (grad_norm + 1e-6);
            grads = grads
                .iter()
                .map(|g| g * scale)
                .collect::<candle_core::Result<_>>()
                .ctx("clipping gradients")?;
        }
        let lr = self.config.schedule.lr_at(self.state.step);
        self.optimizer.update(&self.params, &grads, lr)?;

        let seconds = start.elapsed().as_secs_f64();
        self.state.step += 1;
        self.state.optimizer_updates = self.optimizer.updates();
        self.state.tokens_seen += tokens as u64;
        self.state.elapsed_s += seconds;
        let stats = StepStats {
            step: self.state.step,
            loss: loss_sum / weight,
            lr,
            grad_norm,
            tokens,
            counted,
            seconds,
            tokens_per_s: tokens as f64 / seconds.max(1e-9),
            elapsed_s: self.state.elapsed_s,
        };
        self.log.append(&stats)?;
        Ok(stats)
    }

    /// Trains on `data` until `schedule.total_steps`, visiting it in the seeded order
    /// (a new permutation each epoch), saving a checkpoint every `checkpoint_every` steps
    /// and at the end. Each step takes `batch_size · grad_accum` examples, sorted by length
    /// into micro-batches so that little is padding. `on_step` sees every step's statistics.
    ///
    /// # Errors
    /// [`TrainError::Data`] when `data` is empty or is not the size the checkpoint was
    /// trained on; errors of [`Trainer::train_step`] and of saving checkpoints.
    pub fn run<D: TrainData + ?Sized>(
        &mut self,
        data: &D,
        on_step: &mut dyn FnMut(&StepStats),
    ) -> Result<(), TrainError> {
        self.run_until(data, self.config.schedule.total_steps, on_step)
    }

    /// As [`Trainer::run`], stopping after step `until` (at most `total_steps`) with a
    /// checkpoint; the schedule is still the one of the whole run.
    ///
    /// # Errors
    /// As [`Trainer::run`].
    pub fn run_until<D: TrainData + ?Sized>(
        &mut self,
        data: &D,
        until: u64,
        on_step: &mut dyn FnMut(&StepStats),
    ) -> Result<(), TrainError> {
        if data.is_empty() {
            return Err(TrainError::Data(
                "expected training examples, found none".into(),
            ));
        }
        if let Some(len) = self.state.data_len {
            if len != data.len() {
                return Err(TrainError::Data(format!(
                    "expected the {len} examples this run was trained on, found {}",
                    data.len()
                )));
            }
        }
        let fingerprint = super::data::fingerprint(data)?;
        if let Some(known) = self.state.data_fingerprint {
            if known != fingerprint {
                return Err(TrainError::Data(format!(
                    "the training data differ from those this run was trained on \
                     (fingerprint {known:016x}, found {fingerprint:016x}): the corpus, the \
                     tokenizer or the loss weights changed; start another run, or go on \
                     with these data from the checkpoint with `--new-data`"
                )));
            }
        }
        self.state.data_len = Some(data.len());
        self.state.data_fingerprint = Some(fingerprint);
        let until = until.min(self.config.schedule.total_steps);
        let mut order = DataOrder::new(self.config.seed, data.len(), self.state.data);
        while self.state.step < until {
            let batches = self.next_batches(data, &mut order)?;
            let stats = self.train_step(&batches)?;
            self.state.data = order.position();
            on_step(&stats);
            if self.state.step.is_multiple_of(self.config.checkpoint_every)
                || self.state.step == until
            {
                self.save_checkpoint()?;
            }
        }
        Ok(())
    }

    fn next_batches<D: TrainData + ?Sized>(
        &self,
        data: &D,
        order: &mut DataOrder,
    ) -> Result<Vec<Batch>, TrainError> {
        let indices = order.take(self.config.batch_size * self.config.grad_accum);
        let mut examples: Vec<Example> = indices
            .iter()
            .map(|&i| data.example(i))
            .collect::<Result<_, _>>()?;
        // A stable sort keeps equal-length examples in data order, so batching stays seeded.
        examples.sort_by_key(|e| e.ids.len());
        let cfg = self.model.config();
        examples
            .chunks(self.config.batch_size)
            .map(|chunk| {
                Batch::new(
                    chunk,
                    cfg.pad_token_id,
                    self.config.max_seq_len,
                    cfg.vocab_size,
                )
            })
            .collect()
    }

    /// Mean next-token cross entropy over every counted token of `data` (a held-out split,
    /// say; weighted where its examples have loss weights), in batches of `batch_size` sequences truncated to `max_seq_len`. Nothing is
    /// learnt.
    ///
    /// # Errors
    /// [`TrainError::Data`] when `data` has no counted token; errors of the examples.
    pub fn eval_loss<D: TrainData + ?Sized>(&self, data: &D) -> Result<f64, TrainError> {
        let cfg = self.model.config();
        let mut total = 0.0f64;
        let mut counted = 0f64;
        let indices: Vec<usize> = (0..data.len()).collect();
        for chunk in indices.chunks(self.config.batch_size) {
            let examples: Vec<Example> = chunk
                .iter()
                .map(|&i| data.example(i))
                .collect::<Result<_, _>>()?;
            let batch = Batch::new(
                &examples,
                cfg.pad_token_id,
                self.config.max_seq_len,
                cfg.vocab_size,
            )?;
            let loss = self.model.loss_sum(&batch)?.detach();
            total += f64::from(loss.to_scalar::<f32>().ctx("reading the loss")?);
            counted += batch.weight();
        }
        if counted <= 0.0 {
            return Err(TrainError::Data(
                "expected counted tokens to evaluate the loss on, found none".into(),
            ));
        }
        Ok(total / counted)
    }

    /// Saves the run's checkpoint (model, optimizer moments, step, data position,
    /// configurations) into `<run_dir>/checkpoint/`, atomically.
    ///
    /// # Errors
    /// [`TrainError::Io`] when it cannot be written.
    pub fn save_checkpoint(&mut self) -> Result<(), TrainError> {
        self.state.optimizer_updates = self.optimizer.updates();
        checkpoint::save(&self.run_dir, &self.model, &self.optimizer, &self.state)
    }

    /// Writes the current model as a Hugging Face directory (see [`export_hf`]).
    ///
    /// # Errors
    /// As [`export_hf`].
    pub fn export_hf(&self, dir: &Path, precision: Precision) -> Result<(), TrainError> {
        export_hf(&self.model, dir, precision)
    }
}

/// Sequences of `max_seq_len` tokens must fit the model's positions.
fn check_fits(config: &TrainConfig, model: &ModelConfig) -> Result<(), TrainError> {
    if config.max_seq_len > model.max_position_embeddings {
        return Err(TrainError::Config(format!(
            "max_seq_len ({}) must not exceed the model's max_position_embeddings ({})",
            config.max_seq_len, model.max_position_embeddings
        )));
    }
    Ok(())
}

/// The Euclidean norm of all gradients taken as one vector.
fn global_norm(grads: &[Tensor]) -> Result<f64, TrainError> {
    let mut total = 0.0f64;
    for grad in grads {
        let sq = grad
            .sqr()
            .and_then(|g| g.sum_all())
            .and_then(|g| g.to_scalar::<f32>())
            .ctx("computing the gradient norm")?;
        total += f64::from(sq);
    }
    Ok(total.sqrt())
}
