//! Wider wording: thanks and greetings composed from parts, texts with
//! inner punctuation, e-mail requests that name the address first.

use crate::corpus::rng::Rng;
use crate::corpus::values as v;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/wording.json");

/// How often a finished conversation gets thanks, a small-talk turn is
/// composed rather than drawn from the pools, and a text to copy gets
/// inner punctuation.
const THANKS_AFTER: f64 = 0.3;
const COMPOSED_SMALL_TALK: f64 = 0.6;
const PUNCTUATED: f64 = 0.4;
const ADDRESS_FIRST: f64 = 0.3;

/// Whether a finished request should get thanks next.
pub(crate) fn wants_thanks(rng: &mut Rng) -> bool {
    rng.chance(THANKS_AFTER)
}

/// Whether a small-talk turn should be composed from parts.
pub(crate) fn wants_composed_small_talk(rng: &mut Rng) -> bool {
    rng.chance(COMPOSED_SMALL_TALK)
}

/// Now and then, a phrasing of an email request that names the address
/// first.
pub(crate) fn email_phrasing(rng: &mut Rng) -> Option<&'static str> {
    rng.chance(ADDRESS_FIRST)
        .then(|| *rng.pick(WORDS.list("email_address_first")))
}

/// Thanks put together from parts ("Sweet, many thanks, talk soon") and
/// its reply; never a text `held_out` knows.
pub(crate) fn thanks(rng: &mut Rng, held_out: impl Fn(&str) -> bool) -> (String, &'static str) {
    loop {
        let opener = *rng.pick(WORDS.list("thanks_openers"));
        let words = *rng.pick(WORDS.list("thanks_words"));
        let end = *rng.pick(WORDS.list("thanks_ends"));
        let text = if opener.is_empty() {
            format!("{}{end}", v::capitalized(words))
        } else {
            format!("{opener}, {words}{end}")
        };
        if held_out(&text) {
            continue;
        }
        let parting = ["bye", "see you", "talk soon", "until", "good day"]
            .iter()
            .any(|w| end.to_lowercase().contains(w));
        let reply = if parting {
            *rng.pick(&[
                "Goodbye! Have a great day.",
                "See you! Have a good one.",
                "Bye! Take care.",
            ])
        } else {
            *rng.pick(&[
                "You're welcome!",
                "Any time!",
                "Glad I could help!",
                "Happy to help!",
            ])
        };
        return (text, reply);
    }
}

/// A greeting put together from parts ("Heya, all good?") and its reply;
/// never a text `held_out` knows.
pub(crate) fn greeting(rng: &mut Rng, held_out: impl Fn(&str) -> bool) -> (String, &'static str) {
    loop {
        let words = *rng.pick(WORDS.list("greeting_words"));
        let end = *rng.pick(WORDS.list("greeting_ends"));
        let text = format!("{words}{end}");
        if held_out(&text) {
            continue;
        }
        let reply = if end.contains("how") || end.contains("all good") {
            "I'm doing well, thanks! How can I help?"
        } else {
            *rng.pick(&[
                "Hi! What can I do for you?",
                "Hello! How can I help you today?",
                "Hey! How can I help?",
            ])
        };
        return (text, reply);
    }
}

/// `text` (made-up words, no punctuation) with a comma inside or a
/// question or exclamation mark at its end, now and then: v8 copied
/// `No, thank you` as `No`.
pub(crate) fn punctuated(rng: &mut Rng, text: String) -> String {
    if !rng.chance(PUNCTUATED) {
        return text;
    }
    let mut words: Vec<String> = text.split(' ').map(str::to_owned).collect();
    if words.len() >= 2 && rng.chance(0.6) {
        let at = rng.range(0, words.len() as i64 - 2) as usize;
        words[at].push(',');
    }
    let mut out = words.join(" ");
    if !out.ends_with(['.', '!', '?']) && rng.chance(0.6) {
        out.push(*rng.pick(&['?', '!', '.']));
    }
    out
}

/// Texts compared as a reader would: case, spaces and marks aside.
pub(crate) fn same_words(a: &str, b: &str) -> bool {
    let letters = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    letters(a) == letters(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composed_thanks_and_greetings_avoid_what_is_held_out() {
        let mut rng = Rng::for_example(6, 0);
        let forbidden = |t: &str| same_words(t, "Great, thanks!") || t.starts_with("Hi");
        let mut seen = std::collections::HashSet::new();
        for _ in 0..500 {
            let (thanks, reply) = thanks(&mut rng, forbidden);
            assert!(!same_words(&thanks, "great thanks"), "{thanks}");
            assert!(!reply.is_empty());
            let (hello, _) = greeting(&mut rng, forbidden);
            assert!(!hello.starts_with("Hi"), "{hello}");
            seen.insert(thanks);
            seen.insert(hello);
        }
        assert!(seen.len() > 400, "only {} different texts", seen.len());
        assert!(same_words("Hi, assistant!", "hi assistant"));
        assert!(!same_words("Hi there", "Hi"));
    }

    #[test]
    fn punctuation_goes_between_and_after_the_words() {
        let mut rng = Rng::for_example(8, 0);
        let (mut commas, mut marks) = (0, 0);
        for _ in 0..300 {
            let out = punctuated(&mut rng, "Velmo tarbisk sen".to_owned());
            assert_eq!(out.replace([',', '?', '!', '.'], ""), "Velmo tarbisk sen");
            assert!(!out.ends_with(','), "{out}");
            commas += usize::from(out.contains(','));
            marks += usize::from(out.ends_with(['?', '!', '.']));
        }
        assert!(commas > 30 && marks > 30, "{commas} commas, {marks} marks");
    }
}
