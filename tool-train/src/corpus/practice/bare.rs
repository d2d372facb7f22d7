//! Bare practice: requests that start with what they ask for, capitalised
//! ("Average of 3, 4 and 9?" for "What's the average of 3, 4 and 9?").
//!
//! The tokenizer spells a capitalised word letter by letter, the way it
//! spells names, so "Average" at the start of a request shares no token
//! with " average" inside one. Training's requests start with a lead ("What's
//! the …", "Tell me the …") or a verb, so v17 knew "average" and "sum" but
//! not "Average of 64, 68, 50?" (the median) or "Sum these numbers: …" (the
//! mean or the maximum), all eight of its wrong enums in words training
//! shows on the larger draw.

use super::capitalised;
use crate::corpus::rng::Rng;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/bare.json");

/// How often a request with a lead is asked bare.
const BARE: f64 = 0.5;

/// Whether a request with a lead should be asked bare.
pub(crate) fn wants_bare(rng: &mut Rng) -> bool {
    rng.chance(BARE)
}

/// `text` without its lead and the "the" after it, capitalised; none when
/// it has no such lead, what follows is not a lower-case word, or the lead
/// is part of the question.
pub(crate) fn bare(text: &str) -> Option<String> {
    let (lead, rest) = match text.strip_prefix("The ") {
        Some(rest) => ("", rest),
        None => {
            let at = text.find(" the ")?;
            (&text[..at], &text[at + " the ".len()..])
        }
    };
    let lead_only = lead.is_empty()
        || lead.split(' ').all(|w| {
            WORDS
                .list("lead_words")
                .contains(&w.to_lowercase().as_str())
        });
    let first = rest.split([' ', ',']).next().unwrap_or_default();
    let word = !first.is_empty() && first.chars().all(|c| c.is_ascii_lowercase());
    let verb = rest
        .split(|c: char| !c.is_alphabetic())
        .any(|w| WORDS.list("lead_verbs").contains(&w));
    (lead_only && word && !verb).then(|| capitalised(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lead_and_its_the_are_dropped_and_the_cue_word_capitalised() {
        for (asked, bare_text) in [
            (
                "What's the average of 3, 4 and 9?",
                "Average of 3, 4 and 9?",
            ),
            ("Can you tell me the sum of 1 and 2?", "Sum of 1 and 2?"),
            ("Give me the temperature in Ulm.", "Temperature in Ulm."),
            ("Tell me the time in Oslo", "Time in Oslo"),
            ("The maximum of 3 and 4?", "Maximum of 3 and 4?"),
            (
                "Please calculate the median, 3, 4 and 9.",
                "Median, 3, 4 and 9.",
            ),
        ] {
            assert_eq!(bare(asked).as_deref(), Some(bare_text), "{asked}");
        }
    }

    #[test]
    fn requests_whose_lead_is_a_request_or_a_value_stay_as_they_are() {
        for asked in [
            "Set the lights in the kitchen to 40%.",
            "Convert 5 km to miles.",
            "What's it like in the city of Ulm?",
            "How hot is the weather in Ulm?",
            "What is the Ulm temperature?",
            "What's the 3rd day like?",
            "What's the average high in Ulm going to be this week?",
            "What is the time in Oslo now that it is summer?",
            "the sum of 1 and 2",
        ] {
            assert_eq!(bare(asked), None, "{asked}");
        }
    }
}
