//! Requests for made-up tools: the action's words for the object, then each
//! value with the cue its parameter is read by ("in Paris", "3 nights",
//! "with a radius of 2.5"), and the answers that report the results.

use super::super::phrasing::fill;
use super::super::rng::Rng;
use super::super::scenarios::{and_list, lowercase_first};
use super::super::values as v;
use super::tool::{actions, Param, Tool, Type};
use super::values::Drawn;
use super::WORDS;

/// How the request says one value of `param`.
pub(crate) fn mention(rng: &mut Rng, param: &Param, drawn: &Drawn) -> String {
    let words = param.words;
    let value = drawn.text.as_str();
    // Programmers' requests name a value by its parameter: `a=1, b=-3`.
    if !matches!(param.ty, Type::Boolean) && rng.chance(0.08) {
        let eq = rng.choose(&["=", " = ", ": "]);
        let name = if rng.chance(0.5) { param.name } else { words };
        return format!("{name}{eq}{value}");
    }
    let template = match (param.ty, param.style) {
        (Type::Boolean, _) => {
            if drawn.value == serde_json::Value::Bool(true) {
                rng.choose(&["including {w}", "with {w}", "and include {w}"])
            } else {
                rng.choose(&["without {w}", "excluding {w}", "with no {w}"])
            }
        }
        (Type::Array(_), "of") => rng.choose(&["{w} {v}", "with {w} {v}", "of {v}"]),
        (_, "count") => rng.choose(&["{v} {w}", "for {v} {w}", "with {v} {w}"]),
        (Type::Number | Type::Integer, "of") if rng.chance(0.3) => {
            // Numbers often come with a unit the call leaves out.
            let unit = rng.choose(&[
                " units", " meters", " km", " kg", " dollars", "%", " cm", " seconds",
            ]);
            let number = if unit == " dollars" && rng.chance(0.5) {
                format!("${value}")
            } else {
                format!("{value}{unit}")
            };
            return fill(
                rng.choose(&["with a {w} of {v}", "{w} of {v}", "at a {w} of {v}"]),
                &[("w", words), ("v", &number)],
            );
        }
        (_, "of") => rng.choose(&[
            "with a {w} of {v}",
            "{w} of {v}",
            "with {w} {v}",
            "where the {w} is {v}",
        ]),
        (_, "named") => rng.choose(&["named {v}", "called \"{v}\"", "titled '{v}'", "{w} {v}"]),
        (_, "enum") => rng.choose(&["with {w} {v}", "{w}: {v}", "{w} set to {v}", "using {v}"]),
        (_, "saying") => rng.choose(&["saying \"{v}\"", "with the {w} \"{v}\"", "that says '{v}'"]),
        (_, style) => {
            return if rng.chance(0.8) {
                format!("{style} {value}")
            } else {
                format!("with {words} {value}")
            }
        }
    };
    fill(template, &[("w", words), ("v", value)])
}

/// The values one request gives a tool: required parameters always,
/// optional ones now and then.
pub(crate) struct Said {
    /// Per parameter: the value, if the call gives it.
    pub(crate) values: Vec<Option<Drawn>>,
    /// The request's texts for the given values, in the schema's order.
    pub(crate) mentions: Vec<String>,
}

/// Draws the values one request gives `tool`.
pub(crate) fn say(rng: &mut Rng, split: super::Split, tool: &Tool) -> Said {
    let mut values = Vec::new();
    let mut mentions = Vec::new();
    for param in &tool.params {
        if param.required || rng.chance(0.35) {
            let drawn = param.draw(rng, split);
            mentions.push(mention(rng, param, &drawn));
            values.push(Some(drawn));
        } else {
            values.push(None);
        }
    }
    // A lone value is often said as what the request is about ("the
    // factorial of 5"), without its parameter's words.
    let lone = values.iter().flatten().count() == 1;
    if lone && rng.chance(0.4) {
        if let Some((param, drawn)) = tool
            .params
            .iter()
            .zip(&values)
            .find_map(|(p, d)| Some((p, d.as_ref()?)))
        {
            if !matches!(param.ty, Type::Boolean) && !matches!(param.style, "count" | "saying") {
                let prep = rng.choose(&["of", "for", "on"]);
                mentions[0] = format!("{prep} {}", drawn.text);
            }
        }
    }
    Said { values, mentions }
}

/// The call's arguments: the given values, in the schema's order.
pub(crate) fn arguments(tool: &Tool, values: &[Option<Drawn>]) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (param, drawn) in tool.params.iter().zip(values) {
        if let Some(drawn) = drawn {
            map.insert(param.name.to_owned(), drawn.value.clone());
        }
    }
    serde_json::Value::Object(map)
}

/// The mentions joined into the tail of a request (" in Paris on
/// 2026-03-01"), now and then in another order; empty without any.
pub(crate) fn joined(rng: &mut Rng, mentions: &[String]) -> String {
    let mut mentions = mentions.to_vec();
    if rng.chance(0.3) {
        rng.shuffle(&mut mentions);
    }
    let mut tail = String::new();
    for (i, m) in mentions.iter().enumerate() {
        if i == 0 {
            tail.push(' ');
        } else if i + 1 == mentions.len() && mentions.len() > 1 && rng.chance(0.5) {
            tail.push_str(" and ");
        } else {
            tail.push_str(rng.choose(WORDS.list("joins")));
        }
        tail.push_str(m);
    }
    tail
}

/// A request to `tool`'s action on its object, ending with `tail`.
pub(crate) fn request(rng: &mut Rng, tool: &Tool, tail: &str) -> String {
    let template = rng.choose(actions()[tool.action][2]);
    fill(
        template,
        &[
            ("objs", &tool.objects()),
            ("obj", &tool.object),
            ("m", tail),
        ],
    )
}

/// A request for several things at once: `first` and the rest joined with
/// "and also", the later ones starting in lower case.
pub(crate) fn and_also(rng: &mut Rng, requests: &[String]) -> String {
    let mut text = String::new();
    for (i, r) in requests.iter().enumerate() {
        if i == 0 {
            text.push_str(r.trim_end_matches(['.', '?']));
        } else {
            text.push_str(rng.choose(WORDS.list("also")));
            let lower = if r.starts_with("I ") || r.starts_with("I'") {
                r.clone()
            } else {
                lowercase_first(r)
            };
            text.push_str(lower.trim_end_matches(['.', '?']));
        }
    }
    let question = requests.iter().any(|r| r.ends_with('?'));
    text.push(if question { '?' } else { '.' });
    text
}

/// A made-up result for a call of `tool`: its text (what the answer must
/// repeat) and the tool message's content.
pub(crate) fn result(rng: &mut Rng, split: super::Split, tool: &Tool) -> (String, String) {
    let text = match rng.below(4) {
        0 => v::number(rng, split, v::NumberKind::Decimal),
        1 => v::number(rng, split, v::NumberKind::Large),
        2 => format!(
            "{}-{}",
            v::made_up_word(rng, 1).to_uppercase(),
            rng.range(100, 9999)
        ),
        _ => v::invented_text(rng, split, 1, 2),
    };
    let key = tool.object.split_whitespace().last().unwrap_or("result");
    let content = match rng.below(3) {
        0 => text.clone(),
        1 => serde_json::json!({ key: text }).to_string(),
        _ => serde_json::json!({ "result": text, "status": "ok" }).to_string(),
    };
    (text, content)
}

/// The answer after one call's result `r`.
pub(crate) fn answer(rng: &mut Rng, tool: &Tool, first_mention: &str, r: &str) -> String {
    let template = rng.choose(WORDS.list("result_answers"));
    let tail = if first_mention.is_empty() {
        String::new()
    } else {
        format!(" {first_mention}")
    };
    fill(template, &[("obj", &tool.object), ("m", &tail), ("r", r)])
}

/// The answer after several results, each said with what it is for.
pub(crate) fn answer_many(rng: &mut Rng, tool: &Tool, results: &[String]) -> String {
    let template = rng.choose(WORDS.list("parallel_answers"));
    fill(
        template,
        &[
            ("objs", &tool.objects()),
            ("m", ""),
            ("r", &and_list(results)),
        ],
    )
}

/// A refusal: no offered tool does what `wanted` would.
pub(crate) fn decline(rng: &mut Rng, wanted: &Tool) -> String {
    let template = rng.choose(WORDS.list("declines"));
    fill(
        template,
        &[("verb", wanted.verb()), ("obj", &wanted.object)],
    )
}
