//! Sequences decoded together: continuous batching on the project's
//! decoder.
//!
//! A sequence is taken out of the model for its prompt (the cached
//! sequence it continues, from the [pool](super::pool), or a new one):
//! its cache travels with it while it runs. One pass runs the next token
//! of every sequence decoding and the next chunk of prompts beside them:
//! each weight matrix is read once for all the tokens and short prompts
//! (the decode step's integer products), and widened once for all the long
//! ones. Each sequence runs its prompt in the chunks it takes alone, and
//! its logits are bit for bit those it gets alone. A finished sequence goes back to
//! the model's pool, where a later prompt that continues it finds it.
//!
//! The bytes a sequence in flight may grow to are reserved when it is
//! taken out and count against the [KV budget](Session::kv_budget), so
//! sequences kept for reuse are dropped to make room for it, never the
//! other way round.

use std::ops::Range;

use super::cached::KvState;
use super::{GenerateError, Session};
use crate::model::KvCache;

/// A sequence taken out of the model to decode in a batch.
pub(crate) struct Sequence {
    cache: KvCache,
    kv: KvState,
    /// The bytes reserved for it against the KV budget.
    reserved: usize,
}

impl std::fmt::Debug for Sequence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sequence")
            .field("positions", &self.cache.len())
            .field("reserved", &self.reserved)
            .finish()
    }
}

impl Sequence {
    /// The bytes reserved for it against the KV budget.
    pub(crate) fn reserved(&self) -> usize {
        self.reserved
    }

    /// The logits after the tokens it holds, where they are known: just
    /// taken, a prompt it holds whole ([`Session::run_together`] forgets
    /// them, the caller keeping those it returns).
    pub(crate) fn held_logits(&self) -> Option<&[f32]> {
        self.kv.logits.as_deref()
    }

    /// Records that it ran all of `prompt` (its first `reused` tokens from
    /// the cache), leaving `logits` after it: a later prompt that continues
    /// the prompt but not the answer finds them.
    pub(crate) fn ran_prompt(&mut self, prompt: &[u32], reused: usize, logits: &[f32]) {
        self.kv.ran_prompt(prompt, reused, logits, None, true);
    }
}

impl Session {
    /// Takes the sequence `prompt` continues out of the model (the cached
    /// one sharing most with it, cut back to what they share, or a new
    /// one), with room for `positions` positions in all, to run with
    /// [`next_chunk`](Self::next_chunk) and
    /// [`run_together`](Self::run_together). Returns it and how many
    /// of the prompt's tokens it holds. `None` where the model cannot
    /// decode sequences together (candle's models).
    pub(crate) fn take_sequence(
        &mut self,
        prompt: &[u32],
        positions: usize,
    ) -> Option<Result<(Sequence, usize), GenerateError>> {
        let fresh = self.model.network().new_cache(self.model.cache_type())?;
        Some(self.seat(prompt).map(|reused| {
            let mut cache = match self.runner.own_cache() {
                Some(active) => std::mem::replace(active, fresh),
                None => fresh,
            };
            cache.reserve(positions.max(cache.len()));
            let reserved = cache.bytes();
            self.pool.in_flight += reserved;
            let kv = std::mem::take(&mut self.kv);
            self.evict_to_budget();
            let sequence = Sequence {
                cache,
                kv,
                reserved,
            };
            (sequence, reused)
        }))
    }

    /// Where in `prompt` the next chunk `sequence` runs lies, in the
    /// chunks [`generate`](Self::generate) takes, so that the prompt gives
    /// bit for bit what it gives alone; `None` once the sequence holds all
    /// of it (its logits then in [`Sequence::held_logits`]).
    pub(crate) fn next_chunk(&self, sequence: &Sequence, prompt: &[u32]) -> Option<Range<usize>> {
        let held = sequence.kv.tokens.len();
        let end = (held + self.prefill_chunk(prompt)).min(prompt.len());
        (held < prompt.len()).then_some(held..end)
    }

    /// Runs `tokens[i]` after `sequences[i]` (a chunk of its prompt, or
    /// the token it sampled), all in one pass; returns the logits after
    /// each. On an error every sequence is left as it was.
    pub(crate) fn run_together(
        &mut self,
        sequences: &mut [&mut Sequence],
        tokens: &[&[u32]],
    ) -> Result<Vec<Vec<f32>>, GenerateError> {
        let mut caches: Vec<&mut KvCache> = sequences.iter_mut().map(|s| &mut s.cache).collect();
        let network = self.model.network();
        let logits = match network.run_together(&mut caches, tokens, &mut self.scratch) {
            Some(result) => result.map_err(GenerateError::Forward)?,
            None => {
                return Err(GenerateError::Forward(
                    "this model runs one sequence at a time (internal error)".into(),
                ))
            }
        };
        for (sequence, tokens) in sequences.iter_mut().zip(tokens) {
            sequence.kv.tokens.extend_from_slice(tokens);
            sequence.kv.logits = None;
        }
        Ok(logits)
    }

    /// Gives a finished sequence back to the model: kept for a later
    /// prompt that continues it, within the KV budget. `logits` are those
    /// after the last token it ran, `None` where they are lost (a failed
    /// step): the last token then runs again when the sequence is continued.
    pub(crate) fn return_sequence(&mut self, mut sequence: Sequence, logits: Option<Vec<f32>>) {
        self.pool.in_flight -= sequence.reserved.min(self.pool.in_flight);
        sequence.cache.shrink_to_fit();
        match logits {
            Some(logits) => sequence.kv.logits = Some(logits),
            None => {
                // The logits after the tokens held are unknown: hold one
                // token less, so that a continuing prompt runs it again.
                let keep = sequence.kv.tokens.len().saturating_sub(1);
                let kept = sequence.cache.truncate(keep);
                sequence.kv.tokens.truncate(kept);
                sequence.kv.logits = None;
            }
        }
        self.park(sequence.cache, sequence.kv);
    }
}
