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
//!
//! v8's remaining misses were mostly turns that called a tool where none was
//! due (thanks after an answer, a greeting in words the pools lack, a request
//! for a tool not offered), units after a comma read as part of the place,
//! and quoted texts cut at their inner comma. [`Practice::Wide`] adds to
//! value-end practice wording the pools do not hold: thanks and greetings
//! put together from parts (never a held-out text), thanks after finished
//! requests, more requests for tools not offered, units after a comma, texts
//! with inner punctuation, and email requests that name the address first.

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
    /// Value-end practice and wider wording: composed thanks and greetings,
    /// units after a comma, texts with inner punctuation, more requests for
    /// tools not offered.
    Wide,
    /// Wide practice without units after a comma: from those v9 learnt
    /// that a comma may end a place, and cut `Zagreb, Croatia` short.
    Wording,
}

impl std::str::FromStr for Practice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "standard" => Ok(Practice::Standard),
            "ends" => Ok(Practice::ValueEnds),
            "wide" => Ok(Practice::Wide),
            "wording" => Ok(Practice::Wording),
            _ => Err(format!(
                "expected a practice, `ends`, `wide`, `wording` or `standard`, found `{s}`"
            )),
        }
    }
}

impl std::fmt::Display for Practice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Practice::Standard => "standard",
            Practice::ValueEnds => "ends",
            Practice::Wide => "wide",
            Practice::Wording => "wording",
        })
    }
}

/// How often a long made-up place contains a known city's name, with
/// [`Practice::Wide`].
const WITH_CITY: f64 = 0.35;

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
        self != Practice::Standard && split == Split::Train
    }

    /// Whether a conversation of `split` gets the wider wording of
    /// [`Practice::Wide`].
    pub(crate) fn wide(self, split: Split) -> bool {
        matches!(self, Practice::Wide | Practice::Wording) && split == Split::Train
    }

    /// Whether a unit after a place is named after a comma or in brackets
    /// in more ways than ", in Celsius".
    pub(crate) fn unit_after_comma(self, split: Split) -> bool {
        self == Practice::Wide && split == Split::Train
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
/// `unit_forms` one of [`UNIT_AFTER_PLACE`]); `None` where neither is so,
/// or the draw leaves the request as it is.
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
            let trailer = *rng.pick(TRAILERS);
            return Some(format!("{}{trailer}{rest}", &text[..end]));
        }
        if let Some(unit) = rest.strip_prefix(" in ") {
            if unit_forms {
                let word = unit.trim_end_matches(['?', '.', '!']);
                let mark = &unit[word.len()..];
                let form = *rng.pick(UNIT_AFTER_PLACE);
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

/// How [`Practice::Wide`] names a unit after a place, in place of
/// " in Celsius": the unit is not part of the place.
const UNIT_AFTER_PLACE: &[&str] = &[
    ", in {unit}",
    ", {unit}",
    " ({unit})",
    ", in {unit} if you can",
    " - {unit}",
    ", {unit} thanks",
    "; {unit}",
];

/// How often a finished conversation gets thanks, a small-talk turn is
/// composed rather than drawn from the pools, and a text to copy gets
/// inner punctuation.
const THANKS_AFTER: f64 = 0.3;
const COMPOSED_SMALL_TALK: f64 = 0.6;
const PUNCTUATED: f64 = 0.4;
const ADDRESS_FIRST: f64 = 0.3;

const THANKS_OPENERS: &[&str] = &[
    "",
    "",
    "",
    "Great",
    "Perfect",
    "Lovely",
    "Nice",
    "OK",
    "Okay",
    "Awesome",
    "Cool",
    "Wonderful",
    "Excellent",
    "Fantastic",
    "Splendid",
    "Right",
    "Sweet",
    "Brilliant",
    "Super",
    "Got it",
    "Alright",
    "Good",
    "Ah",
    "Oh nice",
    "Understood",
];
const THANKS_WORDS: &[&str] = &[
    "thanks",
    "thank you",
    "cheers",
    "many thanks",
    "thanks so much",
    "thank you very much",
    "much obliged",
    "thanks a ton",
    "appreciated",
    "thanks heaps",
    "I appreciate it",
    "thank you kindly",
    "ta",
    "that's helpful",
    "that helps a lot",
    "you're a star",
    "big thanks",
    "thanks a million",
    "that's what I needed",
    "very kind",
];
const THANKS_ENDS: &[&str] = &[
    "",
    "",
    "!",
    ".",
    "!!",
    ", bye",
    ". Bye!",
    ", see you",
    ", that's all",
    ", that's all for today",
    ". That's all I needed.",
    ", have a good day",
    ", talk soon",
    ", goodbye",
    " :)",
    ". Nothing else for now.",
    ", until next time",
];
const GREETING_WORDS: &[&str] = &[
    "Hi",
    "Hello",
    "Hey",
    "Good morning",
    "Good afternoon",
    "Good evening",
    "Morning",
    "Hiya",
    "Howdy",
    "Greetings",
    "Yo",
    "Heya",
    "Hello there",
    "Hi again",
    "Well hello",
];
const GREETING_ENDS: &[&str] = &[
    "",
    "!",
    ".",
    ", assistant",
    ", bot",
    " friend",
    ", how are you?",
    ", how's it going?",
    ", are you around?",
    ", what's new?",
    ", how's your day?",
    ", nice to see you",
    " :)",
    ", quick hello",
    ", all good?",
];

/// Email requests that name the address before anything else.
const EMAIL_ADDRESS_FIRST: &[&str] = &[
    "Send {to} a message with the subject \"{subject}\" and the text \"{body}\"{extra}",
    "Mail {to} about \"{subject}\": \"{body}\"{extra}",
    "Shoot {to} an email, subject \"{subject}\", reading \"{body}\"{extra}",
    "{to} should get an email with subject \"{subject}\" and body \"{body}\"{extra}",
    "Email {to} this: \"{body}\" Subject: \"{subject}\"{extra}",
    "Message {to} by email, subject \"{subject}\", body \"{body}\"{extra}",
];

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
        .then(|| *rng.pick(EMAIL_ADDRESS_FIRST))
}

/// Thanks put together from parts ("Sweet, many thanks, talk soon") and
/// its reply; never a text `held_out` knows.
pub(crate) fn thanks(rng: &mut Rng, held_out: impl Fn(&str) -> bool) -> (String, &'static str) {
    loop {
        let opener = *rng.pick(THANKS_OPENERS);
        let words = *rng.pick(THANKS_WORDS);
        let end = *rng.pick(THANKS_ENDS);
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
        let words = *rng.pick(GREETING_WORDS);
        let end = *rng.pick(GREETING_ENDS);
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
    fn practice_reads_back_what_it_writes() {
        for p in [
            Practice::Standard,
            Practice::ValueEnds,
            Practice::Wide,
            Practice::Wording,
        ] {
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
            if let Some(out) = with_trailer(&mut rng, text, "Velmo Tarbisk", false) {
                seen += 1;
                let rest = out
                    .strip_prefix("How windy is it in Velmo Tarbisk")
                    .expect("the place is kept");
                assert!(rest.ends_with('?') && rest.len() > 1, "{out}");
                assert!(TRAILERS.contains(&&rest[..rest.len() - 1]), "{out}");
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
            assert!(UNIT_AFTER_PLACE.contains(&form.as_str()), "{out}");
            forms.insert(form);
        }
        assert!(forms.len() >= 5, "{forms:?}");
    }

    #[test]
    fn places_with_a_city_name_a_known_city_and_a_made_up_word() {
        let mut rng = Rng::for_example(4, 0);
        for _ in 0..100 {
            let place = place_with_city(&mut rng, Split::Train);
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
