//! Choosing the next token from the logits: masking, then greedy or
//! temperature / top-k / top-p sampling with a seeded generator.

use super::{GenerateOptions, TokenSet};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Picks tokens for one generation.
pub(crate) struct Sampler {
    temperature: f32,
    top_k: usize,
    top_p: f32,
    rng: StdRng,
}

impl Sampler {
    pub(crate) fn new(options: &GenerateOptions) -> Sampler {
        let rng = match options.seed {
            Some(seed) => StdRng::seed_from_u64(seed),
            None => StdRng::from_os_rng(),
        };
        Sampler {
            temperature: options.temperature,
            top_k: options.top_k,
            top_p: options.top_p,
            rng,
        }
    }

    /// The next token, or `None` when no token is allowed and finite.
    ///
    /// Tokens outside `allowed` (and, with a mask, ids beyond its
    /// vocabulary) get minus infinity first.
    pub(crate) fn sample(&mut self, logits: &mut [f32], allowed: Option<&TokenSet>) -> Option<u32> {
        if let Some(set) = allowed {
            for (id, logit) in logits.iter_mut().enumerate() {
                if !set.contains(id as u32) {
                    *logit = f32::NEG_INFINITY;
                }
            }
        }
        let best = argmax(logits)?;
        if self.temperature == 0.0 {
            return Some(best);
        }
        let mut candidates: Vec<(u32, f32)> = logits
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_finite())
            .map(|(id, &l)| (id as u32, l))
            .collect();
        // Most likely first; ties by id so the order never depends on the sort.
        candidates.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if self.top_k > 0 {
            candidates.truncate(self.top_k);
        }
        let max = candidates[0].1;
        let mut probs: Vec<f64> = candidates
            .iter()
            .map(|&(_, l)| (f64::from((l - max) / self.temperature)).exp())
            .collect();
        let total: f64 = probs.iter().sum();
        if self.top_p < 1.0 {
            let mut cumulative = 0.0;
            let mut keep = probs.len();
            for (i, p) in probs.iter().enumerate() {
                cumulative += p / total;
                if cumulative >= f64::from(self.top_p) {
                    keep = i + 1;
                    break;
                }
            }
            probs.truncate(keep);
        }
        let total: f64 = probs.iter().sum();
        let mut r = self.rng.random::<f64>() * total;
        for (i, p) in probs.iter().enumerate() {
            r -= p;
            if r < 0.0 {
                return Some(candidates[i].0);
            }
        }
        Some(candidates[probs.len() - 1].0)
    }
}

/// The id of the largest finite logit (the first on ties).
fn argmax(logits: &[f32]) -> Option<u32> {
    let mut best: Option<(u32, f32)> = None;
    for (id, &l) in logits.iter().enumerate() {
        if l.is_finite() && best.is_none_or(|(_, b)| l > b) {
            best = Some((id as u32, l));
        }
    }
    best.map(|(id, _)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(temperature: f32, top_k: usize, top_p: f32) -> GenerateOptions {
        GenerateOptions {
            temperature,
            top_k,
            top_p,
            seed: Some(3),
            ..GenerateOptions::default()
        }
    }

    #[test]
    fn greedy_takes_the_first_largest_finite_logit() {
        let mut s = Sampler::new(&options(0.0, 0, 1.0));
        assert_eq!(s.sample(&mut [1.0, 3.0, 3.0, f32::NAN], None), Some(1));
        assert_eq!(s.sample(&mut [f32::NEG_INFINITY, f32::NAN], None), None);
    }

    #[test]
    fn mask_excludes_tokens_and_ids_beyond_its_vocabulary() {
        let mut s = Sampler::new(&options(0.0, 0, 1.0));
        let mut set = TokenSet::empty(3);
        set.insert(0);
        assert_eq!(s.sample(&mut [1.0, 5.0, 2.0, 9.0], Some(&set)), Some(0));
        assert_eq!(s.sample(&mut [1.0, 5.0], Some(&TokenSet::empty(2))), None);
    }

    #[test]
    fn top_k_one_and_tiny_top_p_are_greedy() {
        let logits = [0.5, 2.0, 1.9, -1.0];
        for opts in [options(5.0, 1, 1.0), options(5.0, 0, 1e-6)] {
            let mut s = Sampler::new(&opts);
            for _ in 0..50 {
                assert_eq!(s.sample(&mut logits.clone(), None), Some(1));
            }
        }
    }

    #[test]
    fn sampling_follows_the_distribution() {
        // Logits ln(1), ln(3): token 1 should come up about 3 times in 4.
        let mut s = Sampler::new(&options(1.0, 0, 1.0));
        let n = 4000;
        let ones = (0..n)
            .filter(|_| s.sample(&mut [0.0, 3f32.ln()], None) == Some(1))
            .count();
        let share = ones as f64 / n as f64;
        assert!((share - 0.75).abs() < 0.03, "share {share}");
    }
}
