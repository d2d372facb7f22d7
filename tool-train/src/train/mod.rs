//! Training a small tool-calling model on the CPU.
//!
//! - [`Llama`]: a Llama decoder (`LlamaForCausalLM`, tied embeddings) built from
//!   differentiable operations, with Hugging Face tensor names and seeded initialisation.
//! - [`Example`] / [`Batch`]: token ids with a per-token loss mask; the loss is the mean
//!   next-token cross entropy over the masked-in tokens.
//! - [`Trainer`]: AdamW ([`AdamW`]), warmup + cosine schedule ([`LrSchedule`]), gradient
//!   clipping and accumulation, a seeded data order over any [`TrainData`], exact
//!   checkpoint/resume, and a JSONL loss log.
//! - [`export_hf`]: the model as a Hugging Face directory that transformers and
//!   candle-transformers load.
//! - [`deepen`]: a trained model grown by layers that start out adding nothing.
//! - [`average`]: the parameter-wise mean of models of one shape.
//! - [`bpe`]: byte-level BPE tokenizer training.
//!
//! ```no_run
//! use std::path::Path;
//! use tool_train::train::{Example, ModelConfig, Precision, TrainConfig, Trainer};
//!
//! # fn main() -> Result<(), tool_train::train::TrainError> {
//! let model = ModelConfig::from_hf_file(Path::new("config.json"))?;
//! // Token ids and, per token, whether it is learnt (assistant tokens).
//! let data = vec![Example::new(vec![0, 5, 6, 7, 1], vec![false, false, true, true, true])?];
//! // Starts the run, or resumes it from its last checkpoint.
//! let mut trainer = Trainer::open(Path::new("runs/mini"), &model, TrainConfig::default())?;
//! trainer.run(&data, &mut |s| println!("step {} loss {:.3}", s.step, s.loss))?;
//! trainer.export_hf(Path::new("models/mini"), Precision::F16)?;
//! # Ok(())
//! # }
//! ```
//!
//! Throughput: training is a chain of f32 matrix products on the CPU, on as many threads as
//! candle uses (`RAYON_NUM_THREADS` / `CANDLE_NUM_THREADS`, default: the physical cores).
//! A training program should call [`keep_freed_memory`] first: by default glibc returns
//! the memory of freed tensors to the system, and faulting it back in costs about a quarter
//! of a step's CPU time.

mod adamw;
mod alloc;
mod average;
mod batch;
pub mod bpe;
mod checkpoint;
mod config;
mod data;
mod error;
mod export;
mod files;
mod grow;
mod init;
mod kernels;
mod llama;
mod log;
#[cfg(test)]
mod reference;
mod schedule;
mod train_config;
mod trainer;

pub use adamw::{AdamW, AdamWConfig};
pub use alloc::keep_freed_memory;
pub use average::average;
pub use batch::{Batch, Example};
pub use config::ModelConfig;
pub use data::{fingerprint, DataPosition, TrainData};
pub use error::TrainError;
pub use export::export_hf;
pub use files::Precision;
pub use grow::deepen;
pub use llama::Llama;
pub use log::StepStats;
pub use schedule::LrSchedule;
pub use train_config::TrainConfig;
pub use trainer::Trainer;
