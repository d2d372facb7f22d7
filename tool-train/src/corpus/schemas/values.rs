//! Values for made-up tools' parameters, by kind: the JSON a call carries
//! and the text a request writes it as. A call copies the request: strings
//! as written, numbers as JSON reads their text.

use super::super::rng::Rng;
use super::super::scenarios::{and_list, num};
use super::super::values::{self as v, NumberKind};
use super::super::Split;
use super::tool::{Param, Type};
use super::WORDS;
use serde_json::Value;

/// One drawn value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Drawn {
    /// What the call carries.
    pub(crate) value: Value,
    /// How the request writes it ("Paris", "3.5", "eggs, flour and milk").
    pub(crate) text: String,
}

impl Param {
    /// One value for this parameter: its JSON and its text in a request.
    pub(crate) fn draw(&self, rng: &mut Rng, split: Split) -> Drawn {
        draw(rng, split, self)
    }
}

/// A value for `param`, from `split`.
fn draw(rng: &mut Rng, split: Split, param: &Param) -> Drawn {
    match param.ty {
        Type::String => {
            let text = string(rng, split, param.kind);
            Drawn {
                value: Value::String(text.clone()),
                text,
            }
        }
        Type::Enum => {
            let text = (*rng.pick(&param.choices())).to_owned();
            Drawn {
                value: Value::String(text.clone()),
                text,
            }
        }
        Type::Integer | Type::Number => {
            let text = number(rng, split, param.kind);
            Drawn {
                value: num(&text),
                text,
            }
        }
        Type::Boolean => {
            let on = rng.chance(0.6);
            Drawn {
                value: Value::Bool(on),
                text: on.to_string(),
            }
        }
        Type::Array(item) => {
            let count = rng.range(2, 4) as usize;
            let mut texts: Vec<String> = Vec::new();
            while texts.len() < count {
                let text = if item == "string" {
                    string(rng, split, param.kind)
                } else {
                    number(rng, split, param.kind)
                };
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
            let value = texts
                .iter()
                .map(|t| {
                    if item == "string" {
                        Value::String(t.clone())
                    } else {
                        num(t)
                    }
                })
                .collect();
            Drawn {
                value: Value::Array(value),
                text: and_list(&texts),
            }
        }
    }
}

/// A string of `kind`.
fn string(rng: &mut Rng, split: Split, kind: &str) -> String {
    match kind {
        "city" => city(rng, split),
        "place" => {
            if rng.chance(0.5) {
                let (city, country) = *v::pick_named(rng, v::CITIES, split, |c| c.0);
                format!("{city}, {country}")
            } else {
                city(rng, split)
            }
        }
        "country" => {
            if rng.chance(0.5) {
                v::pick_named(rng, v::CITIES, split, |c| c.1).1.to_owned()
            } else {
                v::invented_place(rng, split)
            }
        }
        "address" => format!(
            "{} {} {}",
            rng.range(1, 999),
            v::invented_name(rng, split),
            rng.choose(WORDS.list("streets"))
        ),
        "person" => {
            let first = if rng.chance(0.5) {
                (*v::pick(rng, v::FIRST_NAMES, split)).to_owned()
            } else {
                v::invented_name(rng, split)
            };
            if rng.chance(0.6) {
                format!(
                    "{first} {}",
                    v::capitalized(v::choose(rng, v::LAST_NAMES, split))
                )
            } else {
                first
            }
        }
        "username" => {
            let syllables = rng.range(1, 3);
            format!("{}{}", v::made_up_word(rng, syllables), rng.range(1, 999))
        }
        "title" => v::invented_text(rng, split, 2, 4)
            .split(' ')
            .map(v::capitalized)
            .collect::<Vec<_>>()
            .join(" "),
        "words" => v::invented_text(rng, split, 1, 3),
        "sentence" => v::invented_text(rng, split, 3, 7),
        "word" => v::invented_text(rng, split, 1, 1),
        "company" => {
            let name = v::invented_name(rng, split);
            rng.choose(&["{} Inc", "{}", "{} Labs", "{} Group", "{}Tech"])
                .replace("{}", &name)
        }
        "team" => format!(
            "{} {}",
            city(rng, split),
            rng.choose(WORDS.list("team_nouns"))
        ),
        "id" => {
            let letters: String = (0..rng.range(1, 3))
                .map(|_| (b'A' + rng.below(26) as u8) as char)
                .collect();
            match rng.below(3) {
                0 => format!("{letters}-{}", rng.range(100, 99_999)),
                1 => format!("{letters}{}", rng.range(1000, 999_999)),
                _ => rng.range(10_000, 9_999_999).to_string(),
            }
        }
        "code" => (0..rng.range(2, 4))
            .map(|_| (b'A' + rng.below(26) as u8) as char)
            .collect(),
        "currency" => v::pick(rng, v::CURRENCIES, split).0.to_owned(),
        "language" => (*v::pick(rng, WORDS.list("languages"), split)).to_owned(),
        "date" => v::date(rng, split),
        "time" => v::time_of_day(rng),
        "email" => {
            if rng.chance(0.5) {
                v::email(rng, split)
            } else {
                v::invented_email(rng, split)
            }
        }
        "phone" => format!(
            "+{} {} {}",
            rng.range(1, 99),
            rng.range(100, 999),
            rng.range(1000, 9999)
        ),
        "url" => {
            let site = v::made_up_word(rng, 2);
            let page = v::made_up_word(rng, 2);
            format!("https://{site}.{}/{page}", rng.choose(WORDS.list("tlds")))
        }
        "path" => {
            let dir = v::made_up_word(rng, 2);
            let file = v::made_up_word(rng, 2);
            format!("/home/{dir}/{file}")
        }
        "filename" => {
            let file = v::made_up_word(rng, 2);
            format!("{file}.{}", rng.choose(WORDS.list("extensions")))
        }
        "color" => (*v::pick(rng, WORDS.list("colors"), split)).to_owned(),
        "version" => format!(
            "{}.{}.{}",
            rng.range(0, 9),
            rng.range(0, 20),
            rng.range(0, 9)
        ),
        "season" => (rng.choose(WORDS.list("seasons"))).to_owned(),
        other => panic!("tool-train/data/schemas.json: no string kind {other:?}"),
    }
}

fn city(rng: &mut Rng, split: Split) -> String {
    if rng.chance(0.5) {
        v::pick_named(rng, v::CITIES, split, |c| c.0).0.to_owned()
    } else {
        v::invented_place(rng, split)
    }
}

/// A number's text, of `kind`.
fn number(rng: &mut Rng, split: Split, kind: &str) -> String {
    match kind {
        "tiny" => v::number(rng, split, NumberKind::Tiny),
        "small" => v::number(rng, split, NumberKind::Small),
        "large" => v::number(rng, split, NumberKind::Large),
        "year" => rng.range(1950, 2035).to_string(),
        "age" => rng.range(1, 95).to_string(),
        "rating" => rng.range(1, 5).to_string(),
        "money" => match rng.below(3) {
            0 => v::number(rng, split, NumberKind::Large),
            // Two places, the last not 0 (JSON would drop it).
            1 => format!(
                "{}.{}{}",
                rng.range(1, 9999),
                rng.range(0, 9),
                rng.range(1, 9)
            ),
            _ => v::number(rng, split, NumberKind::Huge),
        },
        "coordinate" => format!(
            "{}.{}{}",
            rng.range(-89, 89),
            rng.range(0, 999),
            rng.range(1, 9)
        ),
        "decimal" => {
            let number = if rng.chance(0.4) {
                v::number(rng, split, NumberKind::Small)
            } else {
                v::number(rng, split, NumberKind::Decimal)
            };
            if rng.chance(0.1) {
                format!("-{number}")
            } else {
                number
            }
        }
        other => panic!("tool-train/data/schemas.json: no number kind {other:?}"),
    }
}
