//! Token generation: KV cache with prefix reuse, sampling, stop conditions,
//! streaming, and the interface to constrained decoding.
//!
//! A [`Session`] on a loaded [`Model`](crate::model::Model) continues a
//! prompt of token ids:
//!
//! ```
//! use tool_models::generate::{GenerateOptions, Session};
//! use tool_models::model::tiny::{write_tiny_model, TinySpec};
//! use tool_models::model::Model;
//!
//! let dir = std::env::temp_dir().join(format!("tiny-gen-doc-{}", std::process::id()));
//! write_tiny_model(&dir, &TinySpec::qwen2(1))?;
//! let mut session = Session::new(Model::load(&dir)?);
//! let prompt = session.model().tokenizer().encode("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")?;
//! let mut streamed = String::new();
//! let out = session.generate(&prompt, &GenerateOptions::greedy(8), None, &mut |d| streamed.push_str(d))?;
//! assert_eq!(streamed, out.text);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **KV cache and prefix reuse.** The session keeps the KV cache of its
//! last call and remembers which tokens it holds: the prompt and the
//! generated tokens except the last. When the next prompt extends those
//! tokens (an agent appending a tool result to the conversation), only the
//! new tokens are run. When it extends the previous *prompt* but not what
//! was generated after it, the session restarts from a snapshot taken right
//! after the previous prompt. Otherwise the cache is cleared and the prompt
//! recomputed. [`Generation::stats`] says how many prompt tokens were
//! reused.
//!
//! On the project's decoder (Llama-family models) the cache is also cut
//! back to any prefix the prompt shares with it, and the session keeps the
//! sequences of several conversations within a
//! [budget](Session::set_kv_budget) ([`DEFAULT_KV_BUDGET`]): each prompt
//! continues the one sharing the longest prefix with it, so agents taking
//! turns each reuse their own history.
//!
//! **Stopping.** Generation stops at the model's end-of-sequence tokens
//! (plus [`GenerateOptions::eos_token_ids`]), at a stop string, after
//! `max_new_tokens`, when the constraint is finished, or when the context is
//! full, or when [`GenerateOptions::cancel`] is raised. A prompt longer
//! than the context is an error before anything runs.

// Only the server decodes sequences together.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
mod batch;
mod cached;
mod decoding;
mod error;
mod mask;
mod options;
mod pool;
mod prefix;
mod run;
mod sampler;
mod session;
mod stop;

pub use cached::DEFAULT_KV_BUDGET;
pub use error::GenerateError;
pub use mask::{TokenConstraint, TokenConstraintError, TokenSet};
pub use options::{GenerateOptions, Generation, StopReason};
pub use pool::CachedSequence;
pub use session::Session;

#[cfg(feature = "server")]
pub(crate) use batch::Sequence;
#[cfg(feature = "server")]
pub(crate) use decoding::Decoding;
