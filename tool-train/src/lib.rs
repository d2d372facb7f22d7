//! How tool-use's bundled model is made: the synthetic conversations it
//! learns from ([`corpus`]), and the trainer ([`train`]: byte-level BPE, a
//! differentiable Llama, AdamW, exact checkpoints and resume, the Hugging
//! Face export). The `tool-train` command runs both and scores a model on
//! the corpus's held-out split (`tool-train eval`).
//!
//! No library user needs this crate: it is the bundled model's tooling,
//! kept apart so that `tool-use` carries none of it.
//!
//! ```
//! use tool_train::corpus::{self, Split};
//!
//! // Seeded conversations: a request, the calls, the tools' results, the answer.
//! let examples = corpus::generate(7, 2, Split::Train);
//! let template = corpus::bundled_template()?;
//! let (text, assistant_spans) = corpus::render(&template, &examples[0])?;
//! assert!(text.starts_with("<|im_start|>system\n"));
//! assert!(!assistant_spans.is_empty());
//! # Ok::<(), tool_train::corpus::CorpusError>(())
//! ```

#![deny(missing_docs)]

pub mod corpus;
pub mod train;
