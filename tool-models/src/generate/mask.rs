//! The interface between generation and constrained decoding.

/// A set of token ids, stored as a bitset over the vocabulary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenSet {
    words: Vec<u32>,
    len: usize,
}

impl TokenSet {
    /// The empty set over a vocabulary of `len` tokens.
    pub fn empty(len: usize) -> TokenSet {
        TokenSet {
            words: vec![0; len.div_ceil(32)],
            len,
        }
    }

    /// Every token of a vocabulary of `len` tokens.
    pub fn full(len: usize) -> TokenSet {
        let mut set = TokenSet::empty(len);
        for id in 0..len as u32 {
            set.insert(id);
        }
        set
    }

    /// Size of the vocabulary the set ranges over.
    pub fn vocab_len(&self) -> usize {
        self.len
    }

    /// Adds `id`; ids outside the vocabulary are ignored.
    pub fn insert(&mut self, id: u32) {
        if (id as usize) < self.len {
            self.words[id as usize / 32] |= 1 << (id % 32);
        }
    }

    /// Removes `id`.
    pub fn remove(&mut self, id: u32) {
        if (id as usize) < self.len {
            self.words[id as usize / 32] &= !(1 << (id % 32));
        }
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: u32) -> bool {
        (id as usize) < self.len && self.words[id as usize / 32] & (1 << (id % 32)) != 0
    }

    /// Number of ids in the set.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set has no ids.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The ids in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len as u32).filter(|&id| self.contains(id))
    }
}

/// A constraint's failure: the grammar could not be built, or generation
/// committed a token the constraint did not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("constrained decoding: {0}")]
pub struct TokenConstraintError(pub String);

/// Decides, before each sampled token, which tokens may come next.
///
/// Generation calls [`allowed`](TokenConstraint::allowed) before sampling,
/// masks every other token's logit to minus infinity, samples, then calls
/// [`commit`](TokenConstraint::commit) with the chosen token.
pub trait TokenConstraint: Send {
    /// Tokens allowed at the next position, or `None` while unconstrained.
    fn allowed(&mut self) -> Result<Option<TokenSet>, TokenConstraintError>;

    /// Records the token that was generated.
    fn commit(&mut self, token: u32) -> Result<(), TokenConstraintError>;

    /// Whether generation must stop now: the constrained text is complete
    /// and nothing may follow it.
    fn finished(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitset_insert_remove_count() {
        let mut set = TokenSet::empty(70);
        for id in [0, 31, 32, 69, 70, 1000] {
            set.insert(id);
        }
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![0, 31, 32, 69]);
        set.remove(31);
        assert_eq!(set.count(), 3);
        assert!(!set.contains(31) && set.contains(32) && !set.contains(70));
        assert_eq!(TokenSet::full(70).count(), 70);
        assert!(TokenSet::empty(5).is_empty());
    }
}
