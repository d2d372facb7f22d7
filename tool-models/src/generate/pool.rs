//! Several KV caches at once, so that interleaved conversations each
//! continue their own.
//!
//! With one cache, two agents taking turns (A1, B1, A2, B2, …) would each
//! recompute their whole history on every request: B1 cuts A's sequence
//! back to what the two share. The project's decoder keeps its cache
//! outside the weights, so besides the active sequence a session parks others, each
//! with its tokens and the logits after them. Before a prompt runs, the
//! sequence sharing the longest prefix with it becomes the active one.
//! Where the prompt leaves that sequence inside a prompt it was given (a
//! different conversation under the same system prompt, say), the sequence
//! stays parked whole and the prompt runs on a copy of the shared prefix;
//! where it leaves it only in what the model generated (the client wrote
//! the assistant turn back in other tokens), it is cut back as with one
//! cache, since that conversation has moved on. Least recently used
//! parked sequences are dropped until the bytes held fit the budget.
//!
//! candle-transformers' models keep their caches inside the model, where
//! they cannot be swapped cheaply: those keep one sequence (and the
//! snapshot of [`super::prefix`]) whatever the budget.

use super::cached::{shared_prefix, KvState, Parked};
use super::Session;
use crate::model::KvCache;

/// One sequence a session keeps cached (see [`Session::cached_sequences`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CachedSequence {
    /// The tokens it holds.
    pub tokens: Vec<u32>,
    /// The bytes it counts against the [KV budget](Session::kv_budget): keys
    /// and values of every layer (allocated room included), and the tokens
    /// and logits kept beside them. A cache inside a candle-transformers
    /// model is not counted (0).
    pub bytes: usize,
    /// Whether it is the sequence the last call continued.
    pub active: bool,
}

impl Session {
    /// Sets the bytes the KV caches may hold together (see
    /// [`kv_budget`](Self::kv_budget)), dropping least recently used
    /// sequences until they fit.
    pub fn set_kv_budget(&mut self, bytes: usize) {
        self.pool.budget = bytes;
        self.evict_to_budget();
    }

    /// The bytes the KV caches may hold together:
    /// [`DEFAULT_KV_BUDGET`](super::DEFAULT_KV_BUDGET) unless [set](Self::set_kv_budget).
    ///
    /// On the project's decoder (Llama and Qwen 2 from safetensors, and
    /// the GGUF architectures it runs) the session keeps the
    /// sequences of several conversations within this budget, and each
    /// prompt continues the one sharing the longest prefix with it, so that
    /// interleaved conversations each reuse their own history. The least
    /// recently used are dropped first; the sequence in use never is, even
    /// when it alone exceeds the budget. The budget is checked before and
    /// after each prompt runs (the sequence grows while generating). 0
    /// keeps one sequence, which each prompt cuts back to what it shares
    /// with it. Models that candle-transformers runs always keep one
    /// sequence.
    pub fn kv_budget(&self) -> usize {
        self.pool.budget
    }

    /// The sequences the KV caches hold: the active one first (when it
    /// holds any token), then the parked ones, most recently used first.
    pub fn cached_sequences(&self) -> Vec<CachedSequence> {
        let mut parked: Vec<&Parked> = self.pool.parked.iter().collect();
        parked.sort_by_key(|p| std::cmp::Reverse(p.last_used));
        let active = (!self.kv.tokens.is_empty()).then(|| CachedSequence {
            tokens: self.kv.tokens.clone(),
            bytes: self.active_bytes(),
            active: true,
        });
        active
            .into_iter()
            .chain(parked.into_iter().map(|p| CachedSequence {
                tokens: p.kv.tokens.clone(),
                bytes: p.bytes(),
                active: false,
            }))
            .collect()
    }

    /// Makes the sequence sharing the longest prefix with `prompt` the
    /// active one, keeping aside what running `prompt` would cut off a
    /// client's prompt.
    pub(crate) fn select_sequence(&mut self, prompt: &[u32]) {
        if self.pool.budget == 0 || self.runner.own_cache().is_none() {
            return;
        }
        self.pool.clock += 1;
        let now = self.pool.clock;
        let active_shared = shared_prefix(&self.kv.tokens, prompt);
        let best = (self.pool.parked.iter().enumerate())
            .map(|(i, p)| (shared_prefix(&p.kv.tokens, prompt), p.last_used, i))
            .max()
            .filter(|&(shared, _, _)| shared > active_shared);
        let shared = match best {
            Some((shared, _, i)) => {
                self.swap_with_parked(i, now);
                shared
            }
            None => active_shared,
        };
        if shared < self.kv.prompt_len && shared < self.kv.tokens.len() {
            self.fork_active(shared, now);
        }
        self.evict_to_budget();
    }

    /// Makes parked sequence `i` the active one and parks the active one
    /// in its place (or drops it when it holds nothing).
    fn swap_with_parked(&mut self, i: usize, now: u64) {
        let Some(cache) = self.runner.own_cache() else {
            return;
        };
        let parked = &mut self.pool.parked[i];
        std::mem::swap(cache, &mut parked.cache);
        std::mem::swap(&mut self.kv, &mut parked.kv);
        parked.last_used = now;
        if parked.kv.tokens.is_empty() {
            self.pool.parked.swap_remove(i);
        } else {
            parked.cache.shrink_to_fit();
        }
    }

    /// Parks the active sequence whole and continues on a copy of its
    /// first `len` tokens.
    fn fork_active(&mut self, len: usize, now: u64) {
        let Some(cache) = self.runner.own_cache() else {
            return;
        };
        // A copy of at most `len` positions: fewer where a recurrent
        // layer's state was kept only at earlier ones.
        let copy = cache.prefix(len);
        let len = copy.len();
        let mut kept = std::mem::replace(cache, copy);
        kept.shrink_to_fit();
        let kv = self.kv.fork(len);
        self.pool.parked.push(Parked {
            cache: kept,
            kv: std::mem::replace(&mut self.kv, kv),
            last_used: now,
        });
    }

    /// Sets a sequence aside for a later prompt that continues it (a
    /// sequence back from a batch), then keeps to the budget.
    #[cfg_attr(not(feature = "server"), allow(dead_code))] // The server's batch uses it.
    pub(super) fn park(&mut self, cache: KvCache, kv: KvState) {
        if kv.tokens.is_empty() {
            return;
        }
        self.pool.clock += 1;
        self.pool.parked.push(Parked {
            cache,
            kv,
            last_used: self.pool.clock,
        });
        self.evict_to_budget();
    }

    /// Drops least recently used parked sequences until everything held
    /// (sequences in flight included) fits the budget, or none is left.
    pub(crate) fn evict_to_budget(&mut self) {
        let mut held = self.active_bytes()
            + self.pool.in_flight
            + self.pool.parked.iter().map(Parked::bytes).sum::<usize>();
        while held > self.pool.budget {
            let Some(oldest) = (self.pool.parked.iter().enumerate())
                .min_by_key(|(_, p)| p.last_used)
                .map(|(i, _)| i)
            else {
                break;
            };
            held -= self.pool.parked.swap_remove(oldest).bytes();
        }
    }

    fn active_bytes(&self) -> usize {
        self.runner.cache_bytes() + self.kv.bytes()
    }
}
