//! Field-cue practice: requests with several text values, worded from
//! parts, so that the words before a value say which argument it is.
//!
//! v12 wrote an email's body as its subject when a request named the
//! subject with a word no training request used ("titled"), and copied the
//! language into the text when the language came first ("Spanisht
//! tomorrow" for "See you tomorrow"). Training named each field with a
//! handful of fixed words in a fixed order. Composed requests cue each
//! field in many words, in both orders, and never with a held-out
//! phrasing's words.

use super::unseen;
use crate::corpus::rng::Rng;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/fields.json");

/// How often an email or translation request is composed.
const COMPOSED: f64 = 0.4;

/// How often a composed email names its body before its subject.
const BODY_FIRST: f64 = 0.25;

/// Whether an email or translation request should be composed.
pub(crate) fn wants_composed_fields(rng: &mut Rng) -> bool {
    rng.chance(COMPOSED)
}

/// An email request to `to` with `subject` and `body`, then `extra` (cc,
/// urgency), its fields cued in words put together from parts; never a
/// text `held_out` knows.
pub(crate) fn email(
    rng: &mut Rng,
    [to, subject, body, extra]: [&str; 4],
    held_out: impl Fn(&str) -> bool,
) -> String {
    unseen(
        || {
            let opener = rng.pick(WORDS.list("email_openers")).replace("{to}", to);
            let subject = rng
                .pick(WORDS.list("subject_cues"))
                .replace("{subject}", subject);
            let body = rng.pick(WORDS.list("body_cues")).replace("{body}", body);
            if rng.chance(BODY_FIRST) {
                format!("{opener}{body}{subject}{extra}")
            } else {
                format!("{opener}{subject}{body}{extra}")
            }
        },
        held_out,
    )
}

/// A request to translate `text` into `lang` that names the language
/// first; never a text `held_out` knows.
pub(crate) fn language_first(
    rng: &mut Rng,
    text: &str,
    lang: &str,
    held_out: impl Fn(&str) -> bool,
) -> String {
    unseen(
        || {
            rng.pick(WORDS.list("language_first"))
                .replace("{lang}", lang)
                .replace("{text}", text)
        },
        held_out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::practice::same_words;

    #[test]
    fn composed_emails_cue_each_field_once_in_both_orders() {
        let mut rng = Rng::for_example(31, 0);
        let fields = [
            "ana@acme.com",
            "Budget",
            "Please review it.",
            " It's urgent.",
        ];
        let forbidden = |t: &str| t.contains("headed");
        let mut seen = std::collections::HashSet::new();
        let mut body_first = 0;
        for _ in 0..500 {
            let text = email(&mut rng, fields, forbidden);
            for field in fields {
                assert_eq!(text.matches(field).count(), 1, "{text}");
            }
            assert!(text.ends_with(" It's urgent."), "{text}");
            assert!(!forbidden(&text), "{text}");
            body_first += usize::from(text.find("Please") < text.find("Budget"));
            seen.insert(text);
        }
        assert!(seen.len() > 300, "only {} different texts", seen.len());
        assert!((75..=175).contains(&body_first), "{body_first} body first");
    }

    #[test]
    fn language_first_requests_name_the_language_before_the_text() {
        let mut rng = Rng::for_example(32, 0);
        let forbidden = |t: &str| same_words(t, "In German: \"I am lost\"");
        for _ in 0..300 {
            let request = language_first(&mut rng, "I am lost", "German", forbidden);
            let (lang, text) = (request.find("German"), request.find("I am lost"));
            assert!(lang < text && lang.is_some(), "{request}");
            assert!(!forbidden(&request), "{request}");
        }
    }
}
