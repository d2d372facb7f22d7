//! Sequences decoded together: continuous batching on the project's
//! decoder.
//!
//! A sequence's prompt runs alone, as in [`Model::generate`] (reusing what
//! the [pool](super::pool) holds), and the sequence is then taken out of
//! the model: its cache travels with it while it decodes. Each decode step
//! runs the next token of every sequence in flight in one pass, reading
//! each weight matrix once for all of them; a sequence's logits are bit
//! for bit those it gets decoding alone. A finished sequence goes back to
//! the model's pool, where a later prompt that continues it finds it.
//!
//! The bytes a sequence in flight may grow to are reserved when it is
//! taken out and count against the [KV budget](Model::kv_budget), so
//! sequences kept for reuse are dropped to make room for it, never the
//! other way round.

use super::prefix::KvState;
use super::GenerateError;
use crate::model::{KvCache, Model};

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
}

/// A sequence after its prompt: the sequence, the logits after the
/// prompt, and how many of the prompt's tokens the cache held.
pub(crate) type Prefilled = (Sequence, Vec<f32>, usize);

impl Model {
    /// Runs `prompt` as [`generate`](Self::generate) would, then takes its
    /// sequence out of the model, with room for `positions` positions in
    /// all, to decode with [`decode_together`](Self::decode_together).
    /// Returns the sequence, the logits after the prompt and how many of
    /// its tokens the cache held. `None` where the model cannot decode
    /// sequences together (candle's models).
    pub(crate) fn prefill_sequence(
        &mut self,
        prompt: &[u32],
        positions: usize,
    ) -> Option<Result<Prefilled, GenerateError>> {
        let fresh = self.backend.new_cache()?;
        Some(self.prefill(prompt).map(|(logits, reused)| {
            let mut cache = match self.backend.own_cache() {
                Some(active) => std::mem::replace(active, fresh),
                None => fresh,
            };
            cache.reserve(positions.max(cache.len()));
            let reserved = cache.bytes();
            self.pool.in_flight += reserved;
            let kv = std::mem::take(&mut self.kv);
            self.evict_to_budget();
            (
                Sequence {
                    cache,
                    kv,
                    reserved,
                },
                logits,
                reused,
            )
        }))
    }

    /// Runs `tokens[i]` after `sequences[i]`, all in one pass; returns the
    /// logits after each. On an error every sequence is left as it was.
    pub(crate) fn decode_together(
        &mut self,
        sequences: &mut [&mut Sequence],
        tokens: &[u32],
    ) -> Result<Vec<Vec<f32>>, GenerateError> {
        let mut caches: Vec<&mut KvCache> = sequences.iter_mut().map(|s| &mut s.cache).collect();
        let logits = match self.backend.decode_together(&mut caches, tokens) {
            Some(result) => result.map_err(GenerateError::Forward)?,
            None => {
                return Err(GenerateError::Forward(
                    "this model decodes one sequence at a time (internal error)".into(),
                ))
            }
        };
        for (sequence, &token) in sequences.iter_mut().zip(tokens) {
            sequence.kv.tokens.push(token);
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
                sequence.kv.tokens.truncate(keep);
                sequence.cache.truncate(keep);
                sequence.kv.logits = None;
            }
        }
        self.park(sequence.cache, sequence.kv);
    }
}
