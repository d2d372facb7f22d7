//! What a session keeps cached: the active sequence's tokens and the
//! logits after them ([`KvState`], with the snapshot of the last prompt),
//! and the sequences parked beside it under the KV budget
//! ([`SequencePool`]). The session's behaviour over them is in
//! [`super::prefix`] (reusing a prefix) and [`super::pool`] (choosing and
//! evicting sequences).

use crate::model::{KvCache, Runner};

/// What the KV cache holds.
#[derive(Default)]
pub(crate) struct KvState {
    /// Tokens run through the model, in order.
    pub(super) tokens: Vec<u32>,
    /// Logits after the last of `tokens`.
    pub(super) logits: Option<Vec<f32>>,
    /// The state right after the last prefill.
    pub(super) snapshot: Option<Snapshot>,
    /// Length of the last prompt prefilled: tokens before it were sent by
    /// a client, tokens after it the model generated.
    pub(super) prompt_len: usize,
}

impl KvState {
    /// The state of a copy of the first `len` tokens' cache. The logits
    /// after `tokens[len - 1]` were never kept, so the prompt's last token
    /// runs again, unless it is the snapshot's prompt: the snapshot's
    /// logits follow from its tokens alone, and travel with the copy.
    pub(super) fn fork(&self, len: usize) -> KvState {
        let snapshot = self
            .snapshot
            .as_ref()
            .filter(|snap| snap.runner.is_none())
            .map(|snap| Snapshot {
                runner: None,
                tokens: snap.tokens.clone(),
                logits: snap.logits.clone(),
            });
        KvState {
            tokens: self.tokens[..len.min(self.tokens.len())].to_vec(),
            logits: None,
            snapshot,
            prompt_len: 0,
        }
    }

    /// Records that `prompt` ran (its first `reused` tokens from the
    /// cache), leaving `logits` after it: a snapshot of the state after a
    /// prompt that ran anything, where the cache can be cut back or
    /// `runner` is a copy of the session's.
    pub(super) fn ran_prompt(
        &mut self,
        prompt: &[u32],
        reused: usize,
        logits: &[f32],
        runner: Option<Runner>,
        cuts_back: bool,
    ) {
        if reused < prompt.len() {
            self.snapshot = (runner.is_some() || cuts_back).then(|| Snapshot {
                runner,
                tokens: prompt.to_vec(),
                logits: logits.to_vec(),
            });
        }
        self.prompt_len = prompt.len();
    }

    /// Bytes of the tokens and logits kept beside the cache.
    pub(super) fn bytes(&self) -> usize {
        let logits = self.logits.as_ref().map_or(0, Vec::capacity)
            + self.snapshot.as_ref().map_or(0, |s| s.logits.capacity());
        let tokens =
            self.tokens.capacity() + self.snapshot.as_ref().map_or(0, |s| s.tokens.capacity());
        (logits + tokens) * 4
    }
}

pub(super) struct Snapshot {
    /// `None` where the cache can be cut back instead.
    pub(super) runner: Option<Runner>,
    pub(super) tokens: Vec<u32>,
    pub(super) logits: Vec<f32>,
}

/// The KV budget a session starts with: 512 MiB.
///
/// Enough for some nine thousand tokens of a 1.5B model's cache in f32
/// (Qwen2.5-1.5B's is 56 KiB a token: 28 layers, keys and values of 256),
/// a few agent conversations of a few thousand tokens each, and small
/// beside the f32 weights such a model keeps in memory on the CPU (6 GB).
pub const DEFAULT_KV_BUDGET: usize = 512 << 20;

/// The sequences kept aside and the budget they share with the active one.
pub(crate) struct SequencePool {
    pub(super) parked: Vec<Parked>,
    pub(super) budget: usize,
    /// Counts prompts, to order sequences by last use.
    pub(super) clock: u64,
    /// Bytes reserved by sequences taken out to decode in a batch (see
    /// [`super::batch`]).
    pub(super) in_flight: usize,
}

impl Default for SequencePool {
    fn default() -> SequencePool {
        SequencePool {
            parked: Vec::new(),
            budget: DEFAULT_KV_BUDGET,
            clock: 0,
            in_flight: 0,
        }
    }
}

impl SequencePool {
    /// Drops every parked sequence, and forgets the bytes sequences in
    /// flight reserved (they are dropped with it).
    pub(crate) fn clear(&mut self) {
        self.parked.clear();
        self.in_flight = 0;
    }
}

/// A sequence set aside: its cache and what [`KvState`] knows of it.
pub(super) struct Parked {
    pub(super) cache: KvCache,
    pub(super) kv: KvState,
    /// The clock when it was last the active sequence.
    pub(super) last_used: u64,
}

impl Parked {
    pub(super) fn bytes(&self) -> usize {
        self.cache.bytes() + self.kv.bytes()
    }
}

/// Whether `prompt` starts with the non-empty `held`.
pub(super) fn extends(prompt: &[u32], held: &[u32]) -> bool {
    !held.is_empty() && prompt.starts_with(held)
}

/// How many leading tokens `a` and `b` share.
pub(super) fn shared_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
