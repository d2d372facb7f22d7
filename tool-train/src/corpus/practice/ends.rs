//! Value-end practice: places of several words, words after a place that
//! are not part of it, numbers that repeat their digits.

use crate::corpus::rng::Rng;
use crate::corpus::values::{self as v, NumberKind};
use crate::corpus::words::{words, Words};
use crate::corpus::Split;

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/ends.json");

/// How often a long made-up place contains a known city's name, with
/// [`Practice::Wide`](super::Practice::Wide).
const WITH_CITY: f64 = 0.35;

/// How often a made-up place has several words, a place asked about is
/// followed by words that are not part of it, and a large number repeats
/// its digits.
const LONG_PLACE: f64 = 0.35;
const TRAILER: f64 = 0.4;
const REPEATING: f64 = 0.25;

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

/// A made-up place of two words, one of them a known city's name ("Lima
/// Tarbisk", "Velmo Oslo"), from `split`: v8 wrote `Porto` for Porto
/// Alegre, stopping where a name it knew ended.
pub(crate) fn place_with_city(rng: &mut Rng, split: Split) -> String {
    v::draw(rng, split, |rng| {
        let known = v::pick_named(rng, v::CITIES, split, |c| c.0).0;
        let syllables = rng.range(1, 2);
        let other = v::capitalized(&v::made_up_word(rng, syllables));
        if rng.chance(0.7) {
            format!("{known} {other}")
        } else {
            format!("{other} {known}")
        }
    })
}

/// Whether a long made-up place should be a [`place_with_city`].
pub(crate) fn wants_place_with_city(rng: &mut Rng) -> bool {
    rng.chance(WITH_CITY)
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
/// on with a unit (" in Celsius" becomes ", in Celsius", or with
/// `unit_forms` one of the `unit_after_place` forms); `None` where neither
/// is so, or the draw leaves the request as it is.
pub(crate) fn with_trailer(
    rng: &mut Rng,
    text: &str,
    place: &str,
    unit_forms: bool,
) -> Option<String> {
    if place.is_empty() || !rng.chance(TRAILER) {
        return None;
    }
    let mut from = 0;
    while let Some(found) = text[from..].find(place) {
        let end = from + found + place.len();
        let rest = &text[end..];
        if rest.is_empty() || rest.starts_with(['?', '.', '!']) {
            let trailer = *rng.pick(WORDS.list("trailers"));
            return Some(format!("{}{trailer}{rest}", &text[..end]));
        }
        if let Some(unit) = rest.strip_prefix(" in ") {
            if unit_forms {
                let word = unit.trim_end_matches(['?', '.', '!']);
                let mark = &unit[word.len()..];
                let form = *rng.pick(WORDS.list("unit_after_place"));
                return Some(format!(
                    "{}{}{mark}",
                    &text[..end],
                    form.replace("{unit}", word)
                ));
            }
            return Some(format!("{}, in {unit}", &text[..end]));
        }
        from = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` training places `draw` makes, from the seed `seed`.
    fn places(seed: u64, n: usize, draw: fn(&mut Rng, Split) -> String) -> Vec<String> {
        let mut rng = Rng::for_example(seed, 0);
        (0..n).map(|_| draw(&mut rng, Split::Train)).collect()
    }

    #[test]
    fn long_places_have_several_capitalised_words() {
        for place in places(3, 200, long_place) {
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
            if let Some(out) = with_trailer(&mut rng, text, "Velmo Tarbisk", false) {
                seen += 1;
                let rest = out
                    .strip_prefix("How windy is it in Velmo Tarbisk")
                    .expect("the place is kept");
                assert!(rest.ends_with('?') && rest.len() > 1, "{out}");
                assert!(
                    WORDS.list("trailers").contains(&&rest[..rest.len() - 1]),
                    "{out}"
                );
            }
        }
        assert!((40..120).contains(&seen), "{seen} of 200");
        let unit = (0..50).find_map(|_| {
            with_trailer(
                &mut rng,
                "Temperature in Oslo in Fahrenheit?",
                "Oslo",
                false,
            )
        });
        assert_eq!(unit.as_deref(), Some("Temperature in Oslo, in Fahrenheit?"));
        // Mid-sentence, the place is left alone.
        assert!(
            (0..50).all(|_| with_trailer(&mut rng, "Is Oslo cold today?", "Oslo", false).is_none())
        );
    }

    #[test]
    fn wide_practice_puts_the_unit_after_the_place_in_several_ways() {
        let mut rng = Rng::for_example(10, 0);
        let mut forms = std::collections::HashSet::new();
        for _ in 0..300 {
            let text = "Temperature in Velmo Oslo in degrees Fahrenheit?";
            let Some(out) = with_trailer(&mut rng, text, "Velmo Oslo", true) else {
                continue;
            };
            let rest = out
                .strip_prefix("Temperature in Velmo Oslo")
                .expect("the place is kept");
            assert!(rest.ends_with('?'), "{out}");
            let form = rest[..rest.len() - 1].replace("degrees Fahrenheit", "{unit}");
            assert!(
                WORDS.list("unit_after_place").contains(&form.as_str()),
                "{out}"
            );
            forms.insert(form);
        }
        assert!(forms.len() >= 5, "{forms:?}");
    }

    #[test]
    fn places_with_a_city_name_a_known_city_and_a_made_up_word() {
        for place in places(4, 100, place_with_city) {
            let words: Vec<&str> = place.split(' ').collect();
            assert!(
                v::CITIES
                    .iter()
                    .any(|c| place.starts_with(c.0) || place.ends_with(c.0)),
                "{place}"
            );
            assert!(words.len() >= 2, "{place}");
            assert!(v::in_split(&place, Split::Train));
        }
    }
}
