//! The KV cache across calls: which tokens it holds, and prefix reuse.
//!
//! The model remembers the tokens its cache holds. A new prompt that
//! extends them runs only its new tokens. Where the cache can be cut back
//! (the Llama-family decoder), a prompt that leaves it anywhere (an agent
//! that re-renders the assistant turn differently, say) keeps the longest
//! shared prefix and runs the rest; that decoder also keeps other
//! conversations' sequences aside and continues the one that shares most
//! (see [`super::pool`]). candle-transformers' caches cannot be cut, so
//! for those models the whole state is cloned right after each prefill
//! (its tensors are shared, so this is cheap): a later prompt that extends
//! that prompt but not the tokens generated after it restarts from the
//! snapshot, and anything else clears the cache and recomputes.

use super::cached::{extends, shared_prefix, KvState};
use super::GenerateError;
use super::Session;
use crate::model::{candle_message, Runner, PREFILL_CHUNK};

impl Session {
    /// Runs `prompt`, reusing what the cache holds; returns the logits after
    /// it and how many of its tokens were reused.
    pub(crate) fn prefill(&mut self, prompt: &[u32]) -> Result<(Vec<f32>, usize), GenerateError> {
        let reused = self.seat(prompt)?;
        for chunk in prompt[reused..].chunks(self.prefill_chunk(prompt)) {
            self.run(chunk)?;
        }
        let logits = self.kv.logits.clone().ok_or_else(|| {
            GenerateError::Forward("no logits after the prompt (internal error)".into())
        })?;
        let runner = (reused < prompt.len())
            .then(|| self.runner.snapshot())
            .flatten();
        let cuts_back = self.runner.cuts_back();
        self.kv
            .ran_prompt(prompt, reused, &logits, runner, cuts_back);
        self.evict_to_budget();
        Ok((logits, reused))
    }

    /// Makes the cached sequence that `prompt` continues the active one,
    /// cut back to what it shares with it; returns how many of the
    /// prompt's tokens it holds (the logits after them known).
    pub(super) fn seat(&mut self, prompt: &[u32]) -> Result<usize, GenerateError> {
        self.check_prompt(prompt)?;
        self.select_sequence(prompt);
        let held = extends(prompt, &self.kv.tokens) && self.kv.logits.is_some();
        if !held && !self.cut_to_shared_prefix(prompt) {
            self.restore_snapshot(prompt)?;
        }
        // LongRoPE: transformers runs a prompt that reaches past the
        // pretraining length in one pass, every position with the long
        // factors, so nothing rotated with the short ones is reused.
        let switch = self.model.network().rope_switch();
        let long = switch.is_some_and(|s| prompt.len() > s);
        if long && self.runner.short_positions() > 0 {
            self.runner.clear();
            self.kv.tokens.clear();
            self.kv.logits = None;
        }
        Ok(self.kv.tokens.len())
    }

    /// How many of `prompt`'s tokens a prefill pass takes: all of it where
    /// LongRoPE rotates the prompt as one pass (see [`seat`](Self::seat)).
    pub(crate) fn prefill_chunk(&self, prompt: &[u32]) -> usize {
        match self.model.network().rope_switch() {
            Some(s) if prompt.len() > s => prompt.len(),
            _ => PREFILL_CHUNK,
        }
    }

    /// Cuts the cache back to what it shares with `prompt`, where the cache
    /// allows it; returns whether it did. The prompt's last token is run
    /// again for its logits unless the snapshot has them.
    fn cut_to_shared_prefix(&mut self, prompt: &[u32]) -> bool {
        let shared = shared_prefix(&self.kv.tokens, prompt);
        let snapshot_logits = self
            .kv
            .snapshot
            .as_ref()
            .filter(|snap| snap.runner.is_none() && snap.tokens == prompt && shared == prompt.len())
            .map(|snap| snap.logits.clone());
        let keep = if snapshot_logits.is_some() {
            shared
        } else {
            shared.min(prompt.len() - 1)
        };
        let Some(kept) = self.runner.truncate(keep) else {
            return false;
        };
        self.kv.tokens.truncate(kept);
        // The snapshot's logits follow the whole prompt only.
        self.kv.logits = snapshot_logits.filter(|_| kept == keep);
        true
    }

    /// Restarts from the snapshot when `prompt` extends it, else from an
    /// empty cache.
    fn restore_snapshot(&mut self, prompt: &[u32]) -> Result<(), GenerateError> {
        match self.kv.snapshot.take() {
            Some(snap) if extends(prompt, &snap.tokens) => {
                let copy = snap.runner.as_ref().and_then(Runner::snapshot);
                self.runner = copy.ok_or_else(|| {
                    GenerateError::Forward("snapshot cannot be copied (internal error)".into())
                })?;
                self.kv.tokens = snap.tokens.clone();
                self.kv.logits = Some(snap.logits.clone());
                self.kv.snapshot = Some(snap);
            }
            _ => {
                self.runner.clear();
                self.kv = KvState::default();
            }
        }
        Ok(())
    }

    /// Runs one more token after what the cache holds; returns the logits after it.
    pub(crate) fn advance(&mut self, token: u32) -> Result<Vec<f32>, GenerateError> {
        self.run(&[token])?;
        self.kv.logits.clone().ok_or_else(|| {
            GenerateError::Forward("no logits after a token (internal error)".into())
        })
    }

    fn run(&mut self, tokens: &[u32]) -> Result<(), GenerateError> {
        let offset = self.kv.tokens.len();
        match self.runner.forward(tokens, offset, &mut self.scratch) {
            Ok(logits) => {
                self.kv.tokens.extend_from_slice(tokens);
                self.kv.logits = Some(logits);
                Ok(())
            }
            Err(e) => {
                // The cache may hold part of the chunk now: start over next time.
                self.runner.clear();
                self.kv.tokens.clear();
                self.kv.logits = None;
                Err(GenerateError::Forward(candle_message(&e)))
            }
        }
    }

    pub(crate) fn check_prompt(&self, prompt: &[u32]) -> Result<(), GenerateError> {
        if prompt.is_empty() {
            return Err(GenerateError::EmptyPrompt);
        }
        if prompt.len() > self.model.context_length() {
            return Err(GenerateError::ContextOverflow {
                prompt_tokens: prompt.len(),
                context_length: self.model.context_length(),
            });
        }
        let vocab_size = self.model.vocab_size();
        if let Some((position, &token)) = prompt
            .iter()
            .enumerate()
            .find(|(_, &t)| t as usize >= vocab_size)
        {
            return Err(GenerateError::InvalidToken {
                token,
                position,
                vocab_size,
            });
        }
        Ok(())
    }
}
