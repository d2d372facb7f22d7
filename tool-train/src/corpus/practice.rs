//! Practice a training corpus can add to the standard conversations.
//!
//! v7's wrong places were mostly right where they start and wrong where they
//! end: `Abu` for `Abu Dhabi`, `Gdansk, please` for `Gdansk`, `Las Vegas,
//! Celsius` for `Las Vegas`. In the standard corpus a place is one made-up
//! word (or "Port …"), and a comma after it always goes on with a country,
//! so stopping at a space and copying on past a comma were both right.
//! [`Practice::ValueEnds`] writes training requests where neither holds:
//! made-up places of two or three words, and words after a place that are
//! not part of it (", please", ", in Celsius"), besides numbers whose digits
//! repeat (`1121`, which v7 copied as `1121121`). The held-out split never
//! changes.

use super::rng::Rng;
use super::values::{self as v, NumberKind};
use super::Split;

/// What a training corpus adds to the standard conversations
/// (`tool-train train --extend STEPS@PEAK_LR+ends`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Practice {
    /// The conversations alone.
    #[default]
    Standard,
    /// Where a copied value ends: places of several words, words after a
    /// place that are not part of it, numbers that repeat their digits.
    ValueEnds,
}

impl std::str::FromStr for Practice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "standard" => Ok(Practice::Standard),
            "ends" => Ok(Practice::ValueEnds),
            _ => Err(format!(
                "expected a practice, `ends` or `standard`, found `{s}`"
            )),
        }
    }
}

impl std::fmt::Display for Practice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Practice::Standard => "standard",
            Practice::ValueEnds => "ends",
        })
    }
}

/// How often a made-up place has several words, a place asked about is
/// followed by words that are not part of it, and a large number repeats
/// its digits.
const LONG_PLACE: f64 = 0.35;
const TRAILER: f64 = 0.4;
const REPEATING: f64 = 0.25;

/// Words that can follow a place in a request without being part of it.
const TRAILERS: &[&str] = &[
    ", please",
    ", thanks",
    " please",
    ", thank you",
    ", if you can",
    " for me",
    ", quickly",
    " today",
    ", by the way",
    " again",
    ", my friend",
    " (thanks!)",
    ", cheers",
    " now",
    ", ok",
    " as well",
];

impl Practice {
    /// Whether a conversation of `split` gets value-end practice.
    pub(crate) fn ends(self, split: Split) -> bool {
        self == Practice::ValueEnds && split == Split::Train
    }
}

/// A made-up place of two or three words ("Velmo Tarbisk", "Sai Dran
/// Kelor"), from `split`.
pub(crate) fn long_place(rng: &mut Rng, split: Split) -> String {
    v::draw(rng, split, |rng| {
        let words = if rng.chance(0.7) { 2 } else { 3 };
        (0..words)
            .map(|_| {
                let syllables = rng.range(1, 2);
                v::capitalized(&v::made_up_word(rng, syllables))
            })
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// Whether a made-up place should be a [`long_place`].
pub(crate) fn wants_long_place(rng: &mut Rng) -> bool {
    rng.chance(LONG_PLACE)
}

/// A number of `kind` whose digits repeat ("1121", "454530"), from
/// `split`; `None` for kinds that are not large whole numbers, or when the
/// draw gives it the usual number.
pub(crate) fn repeating_number(rng: &mut Rng, split: Split, kind: NumberKind) -> Option<String> {
    let (low, high) = match kind {
        NumberKind::Large => (4, 4),
        NumberKind::Huge => (5, 7),
        _ => return None,
    };
    if !rng.chance(REPEATING) {
        return None;
    }
    Some(v::draw(rng, split, |rng| {
        let len = rng.range(low, high) as usize;
        let mut digits = vec![rng.range(1, 9) as u8];
        while digits.len() < len {
            let back = rng.range(1, 3) as usize;
            let digit = if digits.len() >= back && rng.chance(0.6) {
                digits[digits.len() - back]
            } else {
                rng.range(0, 9) as u8
            };
            digits.push(digit);
        }
        digits.iter().map(|d| char::from(b'0' + d)).collect()
    }))
}

/// `text` with words after `place` that are not part of it, where the
/// request ends right after the place (", please" before its `?`) or goes
/// on with a unit (" in Celsius" becomes ", in Celsius"); `None` where
/// neither is so, or the draw leaves the request as it is.
pub(crate) fn with_trailer(rng: &mut Rng, text: &str, place: &str) -> Option<String> {
    if place.is_empty() || !rng.chance(TRAILER) {
        return None;
    }
    let mut from = 0;
    while let Some(found) = text[from..].find(place) {
        let end = from + found + place.len();
        let rest = &text[end..];
        if rest.is_empty() || rest.starts_with(['?', '.', '!']) {
            let trailer = *rng.pick(TRAILERS);
            return Some(format!("{}{trailer}{rest}", &text[..end]));
        }
        if let Some(unit) = rest.strip_prefix(" in ") {
            return Some(format!("{}, in {unit}", &text[..end]));
        }
        from = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn practice_reads_back_what_it_writes() {
        for p in [Practice::Standard, Practice::ValueEnds] {
            assert_eq!(p.to_string().parse::<Practice>(), Ok(p));
        }
        let err = "end".parse::<Practice>().unwrap_err();
        assert!(err.contains("found `end`"), "{err}");
    }

    #[test]
    fn long_places_have_several_capitalised_words() {
        let mut rng = Rng::for_example(3, 0);
        for _ in 0..200 {
            let place = long_place(&mut rng, Split::Train);
            let words: Vec<&str> = place.split(' ').collect();
            assert!((2..=3).contains(&words.len()), "{place}");
            assert!(words.iter().all(|w| w.starts_with(char::is_uppercase)));
            assert!(v::in_split(&place, Split::Train));
        }
    }

    #[test]
    fn repeating_numbers_are_json_numbers_of_the_kind() {
        let mut rng = Rng::for_example(5, 0);
        let mut repeats = 0;
        for _ in 0..400 {
            let Some(n) = repeating_number(&mut rng, Split::Train, NumberKind::Huge) else {
                continue;
            };
            let value: u64 = n.parse().expect("digits");
            assert_eq!(value.to_string(), n, "no leading zero");
            assert!((10_000..10_000_000).contains(&value), "{n}");
            let bytes = n.as_bytes();
            if bytes.windows(2).any(|w| w[0] == w[1]) || bytes.windows(3).any(|w| w[0] == w[2]) {
                repeats += 1;
            }
        }
        assert!(repeats > 60, "only {repeats} numbers repeat a digit");
        assert_eq!(
            repeating_number(&mut rng, Split::Train, NumberKind::Decimal),
            None
        );
    }

    #[test]
    fn a_trailer_goes_after_the_place_and_leaves_it_whole() {
        let mut rng = Rng::for_example(9, 0);
        let mut seen = 0;
        for _ in 0..200 {
            let text = "How windy is it in Velmo Tarbisk?";
            if let Some(out) = with_trailer(&mut rng, text, "Velmo Tarbisk") {
                seen += 1;
                let rest = out
                    .strip_prefix("How windy is it in Velmo Tarbisk")
                    .expect("the place is kept");
                assert!(rest.ends_with('?') && rest.len() > 1, "{out}");
                assert!(TRAILERS.contains(&&rest[..rest.len() - 1]), "{out}");
            }
        }
        assert!((40..120).contains(&seen), "{seen} of 200");
        let unit = (0..50)
            .find_map(|_| with_trailer(&mut rng, "Temperature in Oslo in Fahrenheit?", "Oslo"));
        assert_eq!(unit.as_deref(), Some("Temperature in Oslo, in Fahrenheit?"));
        // Mid-sentence, the place is left alone.
        assert!((0..50).all(|_| with_trailer(&mut rng, "Is Oslo cold today?", "Oslo").is_none()));
    }
}
