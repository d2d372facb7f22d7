//! The values requests are made of: cities, people, dates, numbers, stock
//! symbols, currencies, phrases to translate, ...
//!
//! Every pool is split: one item in five (by position) is held out, so the
//! held-out split asks about other cities, other people, other numbers.
//! Numbers and dates are split by a hash of their text.

use super::rng::{hash, Rng};
use super::Split;

mod chat;
mod markets;
mod people;
mod phrases;
mod places;
mod texts;

pub use chat::{OUT_OF_SCOPE, SMALL_TALK, SYSTEM_PROMPTS, THANKS};
pub use markets::{CURRENCIES, NO_CURRENCIES, NO_STOCKS, STOCKS};
pub use people::{EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES};
pub use phrases::{LANGUAGES, PHRASES, UNKNOWN_PHRASES};
pub use places::{CITIES, NOWHERE, TIME_PLACES};
pub use texts::{AIRLINES, EMAILS, EVENT_TITLES, QUERIES, REMINDERS, ROOMS};

/// The items of `pool` that belong to `split`.
pub fn part<T>(pool: &[T], split: Split) -> impl Iterator<Item = &T> {
    pool.iter()
        .enumerate()
        .filter(move |(i, _)| (i % 5 == 4) == (split == Split::HeldOut))
        .map(|(_, item)| item)
}

/// One item of `pool` from `split`.
pub fn pick<'a, T>(rng: &mut Rng, pool: &'a [T], split: Split) -> &'a T {
    let n = pool.len();
    // Positions 4, 9, 14, ... are held out: draw a rank within the split.
    let held = n / 5;
    match split {
        Split::HeldOut if held > 0 => &pool[rng.below(held) * 5 + 4],
        _ => {
            let k = rng.below(n - held);
            // The k-th position that is not 4 mod 5.
            &pool[k / 4 * 5 + k % 4]
        }
    }
}

/// One item of `pool` whose name (`key`) is in `split` by its hash: for
/// pools that share names (a city is a weather location and a time zone),
/// so that a name is on the same side in all of them.
pub fn pick_named<'a, T>(
    rng: &mut Rng,
    pool: &'a [T],
    split: Split,
    key: impl Fn(&T) -> &str,
) -> &'a T {
    let candidates: Vec<&T> = pool.iter().filter(|t| in_split(key(t), split)).collect();
    match candidates.as_slice() {
        [] => rng.pick(pool),
        some => some[rng.below(some.len())],
    }
}

/// A copy of one item of `pool` from `split`.
pub fn choose<T: Copy>(rng: &mut Rng, pool: &[T], split: Split) -> T {
    *pick(rng, pool, split)
}

/// `count` distinct items of `pool` from `split`, in random order.
pub fn pick_distinct<'a, T>(
    rng: &mut Rng,
    pool: &'a [T],
    split: Split,
    count: usize,
) -> Vec<&'a T> {
    let items: Vec<&T> = part(pool, split).collect();
    rng.sample(&items, count)
}

/// Whether a value's text belongs to `split` (for values made up on the spot).
pub fn in_split(text: &str, split: Split) -> bool {
    hash(text).is_multiple_of(5) == (split == Split::HeldOut)
}

/// Draws texts from `make` until one falls in `split`.
pub fn draw(rng: &mut Rng, split: Split, mut make: impl FnMut(&mut Rng) -> String) -> String {
    loop {
        let text = make(rng);
        if in_split(&text, split) {
            return text;
        }
    }
}

/// A number written as JSON writes it, drawn by `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberKind {
    /// 1 to 20.
    Tiny,
    /// 2 to 99.
    Small,
    /// 100 to 9999.
    Large,
    /// A decimal with one or two places, under 1000.
    Decimal,
    /// 10,000 to 9,999,999, or a decimal with three or four digits before
    /// the point: numbers a model must copy digit by digit.
    Huge,
}

/// A number's text, from `split`; it reads back as the same JSON number.
pub fn number(rng: &mut Rng, split: Split, kind: NumberKind) -> String {
    draw(rng, split, |rng| match kind {
        NumberKind::Tiny => rng.range(1, 20).to_string(),
        NumberKind::Small => rng.range(2, 99).to_string(),
        NumberKind::Large => rng.range(100, 9999).to_string(),
        NumberKind::Decimal => {
            let whole = rng.range(0, 999);
            if rng.chance(0.5) {
                format!("{whole}.{}", rng.range(1, 9))
            } else {
                // Two places, the last not 0 (JSON would drop it).
                format!("{whole}.{}{}", rng.range(0, 9), rng.range(1, 9))
            }
        }
        NumberKind::Huge => {
            if rng.chance(0.7) {
                let digits = rng.range(5, 7) as u32;
                rng.range(10i64.pow(digits - 1), 10i64.pow(digits) - 1)
                    .to_string()
            } else {
                format!("{}.{}", rng.range(100, 9999), rng.range(1, 9))
            }
        }
    })
}

/// A date `YYYY-MM-DD` in 2025 to 2027, from `split`.
pub fn date(rng: &mut Rng, split: Split) -> String {
    draw(rng, split, |rng| {
        let year = rng.range(2025, 2027);
        let month = rng.range(1, 12);
        let day = rng.range(1, 28);
        format!("{year}-{month:02}-{day:02}")
    })
}

/// A time of day `HH:MM` on the quarter hour, 07:00 to 21:45.
pub fn time_of_day(rng: &mut Rng) -> String {
    format!("{:02}:{:02}", rng.range(7, 21), rng.range(0, 3) * 15)
}

/// An email address, from `split`.
pub fn email(rng: &mut Rng, split: Split) -> String {
    let name = pick(rng, FIRST_NAMES, split).to_lowercase();
    let domain = pick(rng, EMAIL_DOMAINS, split);
    match rng.below(3) {
        0 => format!("{name}@{domain}"),
        1 => {
            let last = pick(rng, LAST_NAMES, split).to_lowercase();
            format!("{name}.{last}@{domain}")
        }
        _ => format!("{name}{}@{domain}", rng.range(1, 99)),
    }
}

/// A made-up word of `syllables` syllables, lower case ("velmor", "tarbisk").
pub(crate) fn made_up_word(rng: &mut Rng, syllables: i64) -> String {
    const ONSETS: &[&str] = &[
        "b", "br", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "r", "s", "st",
        "t", "tr", "v", "z", "sh", "ch", "",
    ];
    const VOWELS: &[&str] = &["a", "e", "i", "o", "u", "ai", "ei", "ou", "y"];
    const CODAS: &[&str] = &["", "", "n", "r", "l", "s", "sk", "nd", "m", "th", "x"];
    let mut word = String::new();
    for _ in 0..syllables {
        word.push_str(rng.pick::<&str>(ONSETS));
        word.push_str(rng.pick::<&str>(VOWELS));
    }
    word.push_str(rng.pick::<&str>(CODAS));
    word
}

/// `text` with its first letter in upper case.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A made-up place name ("Velmora", "Port Tarbisk"), from `split`.
///
/// A small model can memorise a few hundred real cities instead of learning
/// to copy the one the user named; names it has never seen leave copying as
/// the only way to get the call right. Only the training split uses them.
pub fn invented_place(rng: &mut Rng, split: Split) -> String {
    const PREFIXES: &[&str] = &["Port ", "San ", "New ", "Lake ", "Fort ", "Saint "];
    draw(rng, split, |rng| {
        let syllables = rng.range(2, 3);
        let name = capitalized(&made_up_word(rng, syllables));
        if rng.chance(0.15) {
            format!("{}{name}", *rng.pick(PREFIXES))
        } else {
            name
        }
    })
}

/// The words of the training part of the free-text pools (queries, titles,
/// reminders, e-mails, phrases), lower case, sorted.
fn training_words() -> &'static [String] {
    static WORDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        let texts = part(QUERIES, Split::Train)
            .chain(part(EVENT_TITLES, Split::Train))
            .chain(part(REMINDERS, Split::Train))
            .copied()
            .chain(part(EMAILS, Split::Train).flat_map(|e| [e.0, e.1]))
            .chain(part(PHRASES, Split::Train).map(|p| p.0));
        let words: std::collections::BTreeSet<String> = texts
            .flat_map(str::split_whitespace)
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                    .to_lowercase()
            })
            .filter(|w| w.chars().any(char::is_alphabetic))
            .collect();
        words.into_iter().collect()
    })
}

/// A made-up free text of `min` to `max` words, lower case, from `split`:
/// known words in an order never seen, now and then a made-up word, so that
/// a call is only right when it copies the request.
pub fn invented_text(rng: &mut Rng, split: Split, min: i64, max: i64) -> String {
    let words = training_words();
    draw(rng, split, |rng| {
        let n = rng.range(min, max);
        let mut text = String::new();
        for i in 0..n {
            if i > 0 {
                text.push(' ');
            }
            if rng.chance(0.2) || words.is_empty() {
                let syllables = rng.range(1, 3);
                text.push_str(&made_up_word(rng, syllables));
            } else {
                text.push_str(rng.pick(words).as_str());
            }
        }
        text
    })
}

/// A made-up first name ("Tarbis"), from `split`.
pub fn invented_name(rng: &mut Rng, split: Split) -> String {
    draw(rng, split, |rng| {
        let syllables = rng.range(1, 3);
        capitalized(&made_up_word(rng, syllables))
    })
}

/// A made-up e-mail address ("velmor.tas@drouk.io"), from `split`.
pub fn invented_email(rng: &mut Rng, split: Split) -> String {
    draw(rng, split, |rng| {
        let syllables = rng.range(1, 3);
        let mut local = made_up_word(rng, syllables);
        match rng.below(3) {
            0 => {}
            1 => {
                local.push('.');
                local.push_str(&made_up_word(rng, 1));
            }
            _ => local.push_str(&rng.range(1, 99).to_string()),
        }
        let syllables = rng.range(1, 2);
        let domain = made_up_word(rng, syllables);
        let tld = *rng.pick(&["com", "org", "net", "io", "co"]);
        format!("{local}@{domain}.{tld}")
    })
}

/// A made-up ticker symbol and company ("VLMR", "Velmora Labs"), from
/// `split`: neither a listed stock nor one of [`NO_STOCKS`].
pub fn invented_stock(rng: &mut Rng, split: Split) -> (String, String) {
    const KINDS: &[&str] = &[
        "Labs", "Group", "Systems", "Holdings", "Inc.", "Energy", "Foods",
    ];
    let symbol = draw(rng, split, |rng| loop {
        let len = *rng.pick(&[2usize, 3, 3, 4, 4, 4, 5]);
        let symbol: String = (0..len)
            .map(|_| char::from(b'A' + rng.below(26) as u8))
            .collect();
        if !STOCKS.iter().any(|s| s.0 == symbol) && !NO_STOCKS.contains(&symbol.as_str()) {
            break symbol;
        }
    });
    let name = capitalized(&made_up_word(rng, 2));
    let company = format!("{name} {}", *rng.pick(KINDS));
    (symbol, company)
}

/// A made-up room ("the velmor room", "studio loft"), from `split`.
pub fn invented_room(rng: &mut Rng, split: Split) -> String {
    let words = training_words();
    draw(rng, split, |rng| {
        let word = if rng.chance(0.5) || words.is_empty() {
            let syllables = rng.range(1, 2);
            made_up_word(rng, syllables)
        } else {
            rng.pick(words).clone()
        };
        format!(
            "{word} {}",
            *rng.pick(&["room", "room", "loft", "study", "hall"])
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_stays_in_its_split() {
        let pool: Vec<usize> = (0..23).collect();
        let mut rng = Rng::for_example(1, 2);
        for _ in 0..500 {
            assert_ne!(*pick(&mut rng, &pool, Split::Train) % 5, 4);
            assert_eq!(*pick(&mut rng, &pool, Split::HeldOut) % 5, 4);
        }
        let train: Vec<&usize> = part(&pool, Split::Train).collect();
        assert_eq!(train.len(), 19);
    }

    #[test]
    fn numbers_read_back_as_written() {
        let mut rng = Rng::for_example(3, 3);
        for kind in [
            NumberKind::Tiny,
            NumberKind::Small,
            NumberKind::Large,
            NumberKind::Decimal,
        ] {
            for split in [Split::Train, Split::HeldOut] {
                for _ in 0..100 {
                    let text = number(&mut rng, split, kind);
                    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(value.to_string(), text);
                    assert!(in_split(&text, split));
                }
            }
        }
    }
}
