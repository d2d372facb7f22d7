//! The corpus's random numbers: SplitMix64, written out so that a seed means
//! the same corpus on every platform and with every version of every crate.

/// A small seeded generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for example `index` of the corpus with `seed`: each example
    /// has a stream of its own, so a longer corpus starts with the shorter one.
    pub fn for_example(seed: u64, index: u64) -> Rng {
        let mut rng = Rng {
            state: seed ^ 0x5851_f42d_4c95_7f2d,
        };
        let base = rng.next_u64();
        Rng {
            state: base ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // Multiply-shift: unbiased enough for a corpus, and total.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: i64, high: i64) -> i64 {
        if high <= low {
            return low;
        }
        low + self.below((high - low) as usize + 1) as i64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// One item of a non-empty slice (the first when it is empty-safe).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len()).min(items.len().saturating_sub(1))]
    }

    /// A copy of one item of a non-empty slice.
    pub fn choose<T: Copy>(&mut self, items: &[T]) -> T {
        *self.pick(items)
    }

    /// An index drawn with the given weights.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut at = self.below(total as usize) as u64;
        for (i, &w) in weights.iter().enumerate() {
            if at < u64::from(w) {
                return i;
            }
            at -= u64::from(w);
        }
        weights.len().saturating_sub(1)
    }

    /// Shuffles in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// `count` distinct items (fewer if there are fewer), in random order.
    pub fn sample<T: Clone>(&mut self, items: &[T], count: usize) -> Vec<T> {
        let mut order: Vec<usize> = (0..items.len()).collect();
        self.shuffle(&mut order);
        order
            .into_iter()
            .take(count)
            .map(|i| items[i].clone())
            .collect()
    }
}

/// A stable 64-bit hash of a text (FNV-1a with a final mix), for splitting
/// values between train and held-out independent of any pool's order.
pub fn hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Rng::for_example(7, 3).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::for_example(7, 3).next_u64(),
            Rng::for_example(7, 4).next_u64()
        );
        assert_ne!(
            Rng::for_example(7, 3).next_u64(),
            Rng::for_example(8, 3).next_u64()
        );
    }

    #[test]
    fn draws_stay_in_range() {
        let mut rng = Rng::for_example(1, 1);
        for _ in 0..1000 {
            assert!(rng.below(7) < 7);
            let r = rng.range(-3, 3);
            assert!((-3..=3).contains(&r));
            assert!(rng.weighted(&[0, 5, 0]) == 1);
        }
        let mut v: Vec<u32> = (0..20).collect();
        rng.shuffle(&mut v);
        v.sort_unstable();
        assert_eq!(v, (0..20).collect::<Vec<_>>());
    }
}
