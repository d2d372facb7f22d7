//! Follow-up practice: short requests for another value after an answer,
//! put together from parts.
//!
//! v9 answered "Now do Montreal." with "Happy to help!": wide practice
//! thanks after 30% of answered requests, and a short turn after an
//! answer, in words the pools lack, read as thanks. Composed follow-ups
//! name the next value in many short forms, some of them after thanks
//! ("Thanks! Now Lima?"), and each gets its call.

use super::unseen;
use crate::corpus::rng::Rng;
use crate::corpus::values as v;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/follow_ups.json");

/// How often a follow-up asking about another value is composed.
const COMPOSED: f64 = 0.45;

/// Whether a follow-up about another value should be composed.
pub(crate) fn wants_composed_follow_up(rng: &mut Rng) -> bool {
    rng.chance(COMPOSED)
}

/// A follow-up asking the same about `value` ("Thanks! Lima next?"),
/// never a text `held_out` knows.
pub(crate) fn follow_up(rng: &mut Rng, value: &str, held_out: impl Fn(&str) -> bool) -> String {
    unseen(
        || {
            let opener = *rng.pick(WORDS.list("openers"));
            let core = rng.pick(WORDS.list("cores")).replace("{x}", value);
            let end = *rng.pick(WORDS.list("ends"));
            if opener.is_empty() {
                format!("{}{end}", v::capitalized(&core))
            } else {
                format!("{opener}{core}{end}")
            }
        },
        held_out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::practice::same_words;

    #[test]
    fn composed_follow_ups_name_the_value_once_in_many_forms() {
        let mut rng = Rng::for_example(21, 0);
        let forbidden = |t: &str| same_words(t, "Now Velmo Tarbisk.");
        let mut seen = std::collections::HashSet::new();
        let mut thanked = 0;
        for _ in 0..600 {
            let text = follow_up(&mut rng, "Velmo Tarbisk", forbidden);
            assert_eq!(text.matches("Velmo Tarbisk").count(), 1, "{text}");
            assert!(text.starts_with(char::is_uppercase), "{text}");
            assert!(!forbidden(&text), "{text}");
            thanked += usize::from(text.starts_with("Thank"));
            seen.insert(text);
        }
        assert!(seen.len() > 300, "only {} different texts", seen.len());
        assert!(thanked > 40, "{thanked} after thanks");
    }
}
