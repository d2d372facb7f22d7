//! Where training examples come from, and the seeded order in which they are visited.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::batch::Example;
use super::error::TrainError;

/// A source of training examples, indexed from 0 to `len() - 1`.
///
/// The trainer decides the order; a source only has to give the same example for the same
/// index every time (which is what makes resuming exact).
pub trait TrainData {
    /// Number of examples.
    fn len(&self) -> usize;

    /// Whether there are no examples.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The example at `index`.
    ///
    /// # Errors
    /// Whatever producing the example can fail with, as a [`TrainError`].
    fn example(&self, index: usize) -> Result<Example, TrainError>;
}

impl TrainData for [Example] {
    fn len(&self) -> usize {
        <[Example]>::len(self)
    }

    fn example(&self, index: usize) -> Result<Example, TrainError> {
        self.get(index).cloned().ok_or_else(|| {
            TrainError::Data(format!(
                "expected an example index below {}, found {index}",
                self.len()
            ))
        })
    }
}

impl TrainData for Vec<Example> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }

    fn example(&self, index: usize) -> Result<Example, TrainError> {
        self.as_slice().example(index)
    }
}

/// A hash of every example's tokens, loss mask and loss weights, in order:
/// what resuming checks, so that a run never goes on with data that changed
/// underneath it (a corpus generator, a tokenizer, loss weights).
///
/// # Errors
/// Those of [`TrainData::example`].
pub fn fingerprint<D: TrainData + ?Sized>(data: &D) -> Result<u64, TrainError> {
    // FNV-1a over 32-bit words: fast, and stable across platforms and versions.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |word: u32| {
        h ^= u64::from(word);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    for i in 0..data.len() {
        let e = data.example(i)?;
        mix(e.ids.len() as u32);
        for (t, &id) in e.ids.iter().enumerate() {
            mix(id);
            mix(u32::from(e.mask.get(t).copied().unwrap_or(false)));
            mix(e
                .weights
                .as_ref()
                .and_then(|w| w.get(t))
                .map_or(1.0f32, |w| *w)
                .to_bits());
        }
    }
    Ok(h)
}

/// How far through the data training has gone: the epoch and the index within that epoch's
/// permutation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataPosition {
    /// Completed passes over the data.
    pub epoch: u64,
    /// Examples of the current epoch already used.
    pub cursor: usize,
}

/// The seeded visiting order: a fresh permutation per epoch, a function of the seed and the
/// epoch number alone, so that a position is all a checkpoint needs to store.
#[derive(Debug)]
pub(crate) struct DataOrder {
    seed: u64,
    len: usize,
    position: DataPosition,
    permutation: Vec<usize>,
}

impl DataOrder {
    /// The order from `position`; a cursor past the end of an epoch (a run
    /// that skips more examples than there are) goes on into later epochs.
    pub(crate) fn new(seed: u64, len: usize, position: DataPosition) -> Self {
        let position = match len {
            0 => position,
            _ => DataPosition {
                epoch: position.epoch + (position.cursor / len) as u64,
                cursor: position.cursor % len,
            },
        };
        let permutation = permutation(seed, len, position.epoch);
        Self {
            seed,
            len,
            position,
            permutation,
        }
    }

    pub(crate) fn position(&self) -> DataPosition {
        self.position
    }

    /// The next `n` example indices, moving into the next epoch when this one runs out.
    pub(crate) fn take(&mut self, n: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(n);
        if self.len == 0 {
            return out;
        }
        while out.len() < n {
            if self.position.cursor >= self.len {
                self.position = DataPosition {
                    epoch: self.position.epoch + 1,
                    cursor: 0,
                };
                self.permutation = permutation(self.seed, self.len, self.position.epoch);
            }
            out.push(self.permutation[self.position.cursor]);
            self.position.cursor += 1;
        }
        out
    }
}

fn permutation(seed: u64, len: usize, epoch: u64) -> Vec<usize> {
    // Mix the epoch into the seed so that consecutive epochs get unrelated orders.
    let mixed = seed ^ 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(epoch.wrapping_add(1));
    let mut rng = StdRng::seed_from_u64(mixed);
    let mut order: Vec<usize> = (0..len).collect();
    order.shuffle(&mut rng);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_changes_with_any_token_mask_entry_or_weight() {
        let base = vec![
            Example::new(vec![1, 2, 3], vec![false, true, true]).unwrap(),
            Example::new(vec![4, 5], vec![false, true]).unwrap(),
        ];
        let f = fingerprint(&base).unwrap();
        assert_eq!(f, fingerprint(&base.clone()).unwrap());
        let mut token = base.clone();
        token[1].ids[1] = 6;
        let mut mask = base.clone();
        mask[0].mask[1] = false;
        let weighted = vec![
            base[0].clone().with_weights(vec![1.0, 2.0, 1.0]).unwrap(),
            base[1].clone(),
        ];
        let uniform = vec![
            base[0].clone().with_weights(vec![1.0; 3]).unwrap(),
            base[1].clone(),
        ];
        let moved = vec![
            Example::new(vec![1, 2], vec![false, true]).unwrap(),
            Example::new(vec![3, 4, 5], vec![true, false, true]).unwrap(),
        ];
        for other in [&token, &mask, &weighted, &moved] {
            assert_ne!(f, fingerprint(other).unwrap());
        }
        assert_eq!(
            f,
            fingerprint(&uniform).unwrap(),
            "weights of 1 are no weights"
        );
    }

    #[test]
    fn every_epoch_visits_everything_once_and_positions_resume_exactly() {
        let mut order = DataOrder::new(3, 10, DataPosition::default());
        let first: Vec<usize> = order.take(10);
        let mut sorted = first.clone();
        sorted.sort();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
        let second = order.take(10);
        assert_ne!(first, second, "epochs are shuffled differently");

        let mut straight = DataOrder::new(3, 10, DataPosition::default());
        let all = straight.take(17);
        let mut half = DataOrder::new(3, 10, DataPosition::default());
        let mut resumed = half.take(7);
        let mut again = DataOrder::new(3, 10, half.position());
        resumed.extend(again.take(10));
        assert_eq!(all, resumed);
    }
}
