//! Sequences decoded together: continuous batching on the project's
//! decoder.
//!
//! A sequence is taken out of the model for its prompt (the cached
//! sequence it continues, from the [pool](super::pool), or a new one):
//! its cache travels with it while it runs. Prompts that arrive together
//! run together, each as it runs alone: short ones by the decode step's
//! products over matrices read once for all, longer ones from matrices
//! widened once for all. Each decode step runs the next token of every
//! sequence in flight in one pass, reading each weight matrix once for all
//! of them; a sequence's logits are bit for bit those it gets decoding
//! alone. A finished sequence goes back to
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

impl Model {
    /// Takes the sequence `prompt` continues out of the model (the cached
    /// one sharing most with it, cut back to what they share, or a new
    /// one), with room for `positions` positions in all, to run with
    /// [`prefill_together`](Self::prefill_together) and
    /// [`decode_together`](Self::decode_together). Returns it and how many
    /// of the prompt's tokens it holds. `None` where the model cannot
    /// decode sequences together (candle's models).
    pub(crate) fn take_sequence(
        &mut self,
        prompt: &[u32],
        positions: usize,
    ) -> Option<Result<(Sequence, usize), GenerateError>> {
        let fresh = self.backend.new_cache()?;
        Some(self.seat(prompt).map(|reused| {
            let mut cache = match self.backend.own_cache() {
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

    /// Runs the rest of each sequence's prompt (`prompts[i]` for
    /// `sequences[i]`, of which it holds the start), all in passes
    /// together, in the chunks [`generate`](Self::generate) takes; returns
    /// the logits after each prompt. Each sequence gets bit for bit what
    /// its prompt gives alone. On an error the sequences that failed hold
    /// no logits (see [`return_sequence`](Self::return_sequence)).
    pub(crate) fn prefill_together(
        &mut self,
        sequences: &mut [&mut Sequence],
        prompts: &[&[u32]],
    ) -> Result<Vec<Vec<f32>>, GenerateError> {
        let chunk = self.backend.prefill_chunk();
        let reused: Vec<usize> = sequences.iter().map(|s| s.kv.tokens.len()).collect();
        loop {
            let (mut caches, mut tokens, mut which) = (Vec::new(), Vec::new(), Vec::new());
            for (i, (sequence, prompt)) in sequences.iter_mut().zip(prompts).enumerate() {
                let held = sequence.kv.tokens.len();
                if held < prompt.len() {
                    let end = (held + chunk).min(prompt.len());
                    tokens.push(&prompt[held..end]);
                    caches.push(&mut sequence.cache);
                    which.push(i);
                }
            }
            if which.is_empty() {
                break;
            }
            let ran = self.backend.prefill_together(&mut caches, &tokens);
            let logits = match ran {
                Some(Ok(logits)) => logits,
                Some(Err(e)) => {
                    for &i in &which {
                        sequences[i].kv.logits = None;
                    }
                    return Err(GenerateError::Forward(e));
                }
                None => {
                    return Err(GenerateError::Forward(
                        "this model runs one sequence at a time (internal error)".into(),
                    ))
                }
            };
            for ((&i, tokens), logits) in which.iter().zip(&tokens).zip(logits) {
                sequences[i].kv.tokens.extend_from_slice(tokens);
                sequences[i].kv.logits = Some(logits);
            }
        }
        let mut out = Vec::with_capacity(sequences.len());
        for ((sequence, prompt), reused) in sequences.iter_mut().zip(prompts).zip(reused) {
            let logits = sequence.kv.logits.clone().ok_or_else(|| {
                GenerateError::Forward("no logits after the prompt (internal error)".into())
            })?;
            sequence.kv.ran_prompt(prompt, reused, &logits, None, true);
            out.push(logits);
        }
        Ok(out)
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
