//! Decline practice: writing requests no tool does, worded from parts.
//!
//! v13 called a tool for "Make up a joke about penguins." and "Draft a
//! tweet about our product launch.", filling an argument with the topic:
//! training asked for poems, jokes and posts in about fifty fixed
//! sentences, so a new one read like a request with a value to copy.
//! Composed requests ask for many kinds of writing, about many topics, in
//! many words, and are never a held-out text.

use super::unseen_by;
use crate::corpus::rng::Rng;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/declines.json");

/// How often a request no tool covers is a composed writing request.
const COMPOSED: f64 = 0.5;

/// What is asked for, with how an answer names what no tool does. The
/// held-out texts' kinds ("sonnet", "lyrics", "rhyme", "fairy tale") are
/// left out, so that the eval still asks for them in new words.
fn kinds() -> &'static [(&'static str, &'static str)] {
    WORDS.get("kinds")
}

/// Whether a request no tool covers should be a composed writing request.
pub(crate) fn wants_composed_decline(rng: &mut Rng) -> bool {
    rng.chance(COMPOSED)
}

/// A writing request about `topic` that no held-out text is, and what an
/// answer says cannot be done.
pub(crate) fn decline(
    rng: &mut Rng,
    topic: &str,
    held_out: impl Fn(&str) -> bool,
) -> (String, &'static str) {
    unseen_by(
        || {
            let (kind, task) = *rng.pick(kinds());
            let about = rng.pick(WORDS.list("topics")).replace("{topic}", topic);
            let text = format!(
                "{}{kind}{about}{}",
                rng.pick(WORDS.list("asks")),
                rng.pick(WORDS.list("ends"))
            );
            (text, task)
        },
        |(text, _)| text.as_str(),
        held_out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decline_names_its_topic_and_what_cannot_be_done() {
        let mut rng = Rng::for_example(41, 0);
        for _ in 0..200 {
            let (text, task) = decline(&mut rng, "Velmor tides", |_| false);
            assert!(text.contains("Velmor tides"), "{text}");
            let kind = kinds()
                .iter()
                .find(|(kind, _)| text.contains(&format!(" {kind} ")))
                .unwrap_or_else(|| panic!("no kind in {text:?}"));
            assert_eq!(kind.1, task, "{text}");
        }
    }

    #[test]
    fn a_held_out_text_is_drawn_again() {
        let mut rng = Rng::for_example(42, 0);
        let (text, _) = decline(&mut rng, "cats", |t| !t.starts_with("Write a joke"));
        assert!(text.starts_with("Write a joke"), "{text}");
    }
}
