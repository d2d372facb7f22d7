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
//! - [`bpe`]: byte-level BPE tokenizer training.

mod adamw;
mod batch;
pub mod bpe;
mod checkpoint;
mod config;
mod data;
mod error;
mod export;
mod files;
mod init;
mod kernels;
mod llama;
mod log;
#[cfg(test)]
mod reference;
mod schedule;
mod trainer;

pub use adamw::{AdamW, AdamWConfig};
pub use batch::{Batch, Example};
pub use config::ModelConfig;
pub use data::{DataPosition, TrainData};
pub use error::TrainError;
pub use export::export_hf;
pub use llama::Llama;
pub use log::StepStats;
pub use schedule::LrSchedule;
pub use trainer::{TrainConfig, Trainer};
