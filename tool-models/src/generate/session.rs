//! A session: one user's generation state on a shared model.

use super::cached::{KvState, SequencePool};
use super::GenerateError;
use crate::model::{Model, Runner, Scratch};
use std::sync::Arc;

/// Generation on a [`Model`]: the KV cache of the conversation it
/// continues, and (within a [KV budget](Self::set_kv_budget)) those of
/// others it served recently, so that prompts continuing any of them reuse
/// what was computed (see [`crate::generate`]).
///
/// The model is shared, never changed: any number of sessions run on one
/// loaded model, on as many threads, each with its own caches.
///
/// ```
/// use std::sync::Arc;
/// use tool_models::generate::{GenerateOptions, Session};
/// use tool_models::model::tiny::{write_tiny_model, TinySpec};
/// use tool_models::model::Model;
///
/// let dir = std::env::temp_dir().join(format!("tiny-session-doc-{}", std::process::id()));
/// write_tiny_model(&dir, &TinySpec::qwen2(1))?;
/// let model = Arc::new(Model::load(&dir)?);
/// let prompt = model.tokenizer().encode("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")?;
/// let answers: Vec<String> = std::thread::scope(|s| {
///     let runs: Vec<_> = (0..2)
///         .map(|_| {
///             let mut session = Session::new(Arc::clone(&model));
///             let prompt = &prompt;
///             s.spawn(move || session.generate(prompt, &GenerateOptions::greedy(8), None, &mut |_| {}))
///         })
///         .collect();
///     runs.into_iter().map(|r| r.join().unwrap().unwrap().text).collect()
/// });
/// assert_eq!(answers[0], answers[1]);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Session {
    pub(super) model: Arc<Model>,
    /// The active sequence running through the network.
    pub(super) runner: Runner,
    /// What the active sequence's cache holds.
    pub(super) kv: KvState,
    /// Sequences set aside for later prompts (the project's decoder only).
    pub(super) pool: SequencePool,
    /// Buffers the passes reuse.
    pub(super) scratch: Scratch,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("model", &self.model.path())
            .field("cached_tokens", &self.kv.tokens.len())
            .field("kv_budget", &self.pool.budget)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// A session on `model`, its caches empty.
    pub fn new(model: impl Into<Arc<Model>>) -> Session {
        let model = model.into();
        Session {
            runner: model.network().start(model.cache_type()),
            model,
            kv: KvState::default(),
            pool: SequencePool::default(),
            scratch: Scratch::default(),
        }
    }

    /// The model it runs.
    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// The logits after `tokens`: the scores of every possible next token.
    ///
    /// Reuses the KV cache where `tokens` extends what it holds (see
    /// [`crate::generate`]), and leaves `tokens` in the cache.
    pub fn logits(&mut self, tokens: &[u32]) -> Result<Vec<f32>, GenerateError> {
        self.prefill(tokens).map(|(logits, _)| logits)
    }

    /// Empties the KV cache, drops the snapshot and every sequence kept
    /// aside; the [KV budget](Self::kv_budget) stays.
    pub fn reset_cache(&mut self) {
        self.runner.clear();
        self.kv = KvState::default();
        self.pool.clear();
    }

    /// The tokens the KV cache holds: the sequence the last call continued
    /// (see [`cached_sequences`](Self::cached_sequences) for the others).
    pub fn cached_tokens(&self) -> &[u32] {
        &self.kv.tokens
    }
}
