//! A tool made up on the spot: its name in one of the styles tool authors
//! use, its description, and its parameters drawn from the parameter table,
//! as the definition the chat template shows.

use super::super::rng::Rng;
use super::super::scenarios::{and_list, lowercase_first};
use super::super::values as v;
use super::super::Split;
use super::WORDS;
use serde_json::{json, Map, Value};

/// What a parameter holds: its JSON type and how its values are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    /// A string drawn by the named kind.
    String,
    /// A whole number drawn by the named kind.
    Integer,
    /// A number drawn by the named kind, written as the request writes it.
    Number,
    /// `true` or `false`, said with "with …" or "without …".
    Boolean,
    /// A list of strings, numbers or integers (the item type).
    Array(&'static str),
    /// One of a few strings, listed in the schema.
    Enum,
}

/// One parameter of a made-up tool.
#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub(crate) name: &'static str,
    pub(crate) ty: Type,
    /// How values are drawn (`city`, `money`, …); for an enum, its choices
    /// separated by `|`.
    pub(crate) kind: &'static str,
    /// How a request names the value: a preposition ("in", "from"), or
    /// `of`, `count`, `named`, `flag`, `enum`.
    pub(crate) style: &'static str,
    /// The words a request uses for the parameter ("start date").
    pub(crate) words: &'static str,
    pub(crate) required: bool,
}

impl Param {
    /// An enum's choices.
    pub(crate) fn choices(&self) -> Vec<&'static str> {
        if self.ty == Type::Enum {
            self.kind.split('|').collect()
        } else {
            Vec::new()
        }
    }
}

/// A made-up tool.
#[derive(Clone, Debug)]
pub(crate) struct Tool {
    pub(crate) name: String,
    /// Which row of the action table it does.
    pub(crate) action: usize,
    /// What it acts on ("weather report"), as requests name it.
    pub(crate) object: String,
    pub(crate) params: Vec<Param>,
    /// The definition in transformers' form.
    pub(crate) definition: Value,
}

impl Tool {
    /// A new tool for `split`; `action` and `object` when given, else drawn.
    pub(crate) fn draw(
        rng: &mut Rng,
        split: Split,
        action: Option<usize>,
        object: Option<String>,
    ) -> Tool {
        let actions = actions();
        let action = action.unwrap_or_else(|| rng.below(actions.len()));
        let object = object.unwrap_or_else(|| draw_object(rng, split));
        let params = draw_params(rng, split);
        let name = tool_name(rng, actions[action][0], &object);
        let definition = definition(rng, split, &name, action, &object, &params);
        Tool {
            name,
            action,
            object,
            params,
            definition,
        }
    }

    /// The definition's length as JSON text.
    pub(crate) fn size(&self) -> usize {
        self.definition.to_string().len()
    }

    /// The verb a refusal uses ("get", "book").
    pub(crate) fn verb(&self) -> &'static str {
        actions()[self.action][0][0]
    }

    /// The object's plural ("weather reports", "addresses").
    pub(crate) fn objects(&self) -> String {
        plural(&self.object)
    }
}

/// The action table: per action, name verbs, description templates and
/// request templates.
pub(crate) fn actions() -> &'static [[&'static [&'static str]; 3]] {
    WORDS.get("actions")
}

/// `word`'s plural, by English's regular rules.
pub(crate) fn plural(word: &str) -> String {
    let consonant_y = word.ends_with('y')
        && !word.ends_with("ay")
        && !word.ends_with("ey")
        && !word.ends_with("oy")
        && !word.ends_with("uy");
    if consonant_y {
        format!("{}ies", &word[..word.len() - 1])
    } else if ["s", "x", "ch", "sh", "z"]
        .iter()
        .any(|e| word.ends_with(e))
    {
        format!("{word}es")
    } else {
        format!("{word}s")
    }
}

/// What a tool acts on: a noun phrase of the table, or a made-up word
/// before a common head ("velmor index"), so that only reading the
/// definition tells what the tool is for.
fn draw_object(rng: &mut Rng, split: Split) -> String {
    if rng.chance(0.6) {
        (*v::pick(rng, WORDS.list("objects"), split)).to_owned()
    } else {
        v::draw(rng, split, |rng| {
            let syllables = rng.range(1, 3);
            format!(
                "{} {}",
                v::made_up_word(rng, syllables),
                rng.choose(WORDS.list("heads"))
            )
        })
    }
}

/// One to five parameters, none named by the same words or read from the
/// request by the same cue as another.
fn draw_params(rng: &mut Rng, split: Split) -> Vec<Param> {
    let table: &[[&str; 5]] = WORDS.get("params");
    let count = [1, 2, 2, 2, 3, 3, 3, 4, 4, 5][rng.below(10)];
    let mut params: Vec<Param> = Vec::new();
    let mut tries = 0;
    while params.len() < count && tries < 50 {
        tries += 1;
        let [name, ty, kind, style, words] = *v::pick(rng, table, split);
        let ty = match ty {
            "string" => Type::String,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "boolean" => Type::Boolean,
            "enum" => Type::Enum,
            array => Type::Array(array.trim_start_matches("array:")),
        };
        let clash = params.iter().any(|p| {
            p.name == name
                || p.words == words
                // Two values read by the same cue ("in …") would be a guess.
                || (p.style == style && !matches!(style, "of" | "count" | "flag" | "enum"))
                || (p.kind == kind && ty != Type::Number && ty != Type::Integer)
        });
        if clash {
            continue;
        }
        params.push(Param {
            name,
            ty,
            kind,
            style,
            words,
            // Flags are options; the first parameter is always required.
            required: params.is_empty() || (ty != Type::Boolean && rng.chance(0.6)),
        });
    }
    // Required parameters usually come first, as most tools list them.
    if rng.chance(0.7) {
        params.sort_by_key(|p| !p.required);
    }
    params
}

/// The tool's name from its verb and object, in one of the styles tools
/// are named in: `get_weather_report`, `getWeatherReport`,
/// `weather_report_get`, `weather.get_report`, `api_get_weather_report`.
fn tool_name(rng: &mut Rng, verbs: &[&str], object: &str) -> String {
    let verb = *rng.pick(verbs);
    let words: Vec<&str> = object.split_whitespace().collect();
    let snake = words.join("_");
    let camel: String = words.iter().map(|w| v::capitalized(w)).collect();
    let verb_camel: String = verb.split('_').map(v::capitalized).collect();
    let namespace = rng.choose(WORDS.list("namespaces"));
    match rng.below(10) {
        0..=3 => format!("{verb}_{snake}"),
        4 | 5 => format!("{}{camel}", lowercase_first(&verb_camel)),
        6 => format!("{snake}_{verb}"),
        7 => format!("{namespace}.{verb}_{snake}"),
        8 => format!("{namespace}_{verb}_{snake}"),
        _ => format!("{camel}.{verb}"),
    }
}

/// The definition the template shows, in transformers' form.
fn definition(
    rng: &mut Rng,
    split: Split,
    name: &str,
    action: usize,
    object: &str,
    params: &[Param],
) -> Value {
    let fill = |t: &str| {
        t.replace("{objs}", &plural(object))
            .replace("{obj}", object)
    };
    let mut description = fill(rng.choose(actions()[action][1]));
    let required: Vec<&Param> = params.iter().filter(|p| p.required).collect();
    if !required.is_empty() && rng.chance(0.4) {
        let words: Vec<String> = required.iter().map(|p| p.words.to_owned()).collect();
        description = format!(
            "{} for the given {}.",
            description.trim_end_matches('.'),
            and_list(&words)
        );
    }
    let mut properties = Map::new();
    for param in params {
        properties.insert(param.name.to_owned(), property(rng, split, param, object));
    }
    let required: Vec<&str> = params
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name)
        .collect();
    json!({
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
            }
        }
    })
}

/// One parameter's schema.
fn property(rng: &mut Rng, split: Split, param: &Param, object: &str) -> Value {
    let words = param.words;
    let capital = v::capitalized(words);
    let mut description = match param.ty {
        Type::Integer if param.style == "count" => rng
            .choose(&["The number of {w}.", "How many {w}.", "Number of {w}."])
            .replace("{w}", words),
        Type::Boolean => rng
            .choose(&[
                "Whether to include {w}.",
                "Include {w} if true.",
                "If true, {w} are included.",
            ])
            .replace("{w}", words),
        Type::Enum => rng
            .choose(&["The {w}.", "The {w}: one of {c}.", "{W} to use."])
            .replace("{w}", words)
            .replace("{W}", &capital)
            .replace("{c}", &param.choices().join(", ")),
        Type::Array(_) => rng
            .choose(&["A list of {w}.", "The {w}, as a list.", "{W} to use."])
            .replace("{w}", words)
            .replace("{W}", &capital),
        _ => {
            let template = rng.choose(&[
                "The {w}.",
                "The {w} of the {obj}.",
                "The {w}, e.g. {ex}.",
                "{W} to use.",
                "The {w} for the {obj}.",
            ]);
            let example = if template.contains("{ex}") {
                param.draw(rng, split).text
            } else {
                String::new()
            };
            template
                .replace("{w}", words)
                .replace("{W}", &capital)
                .replace("{obj}", object)
                .replace("{ex}", &example)
        }
    };
    if !param.required && rng.chance(0.5) {
        description.push_str(match param.ty {
            Type::Boolean => {
                rng.choose(&[" Default is false.", " (optional)", " Defaults to false."])
            }
            _ => rng.choose(&[" (optional)", " Optional.", " Leave out for all."]),
        });
    }
    let mut schema = Map::new();
    let (ty, items) = match param.ty {
        Type::String | Type::Enum => ("string", None),
        Type::Integer => ("integer", None),
        Type::Number => ("number", None),
        Type::Boolean => ("boolean", None),
        Type::Array(item) => ("array", Some(item)),
    };
    schema.insert("type".into(), ty.into());
    schema.insert("description".into(), description.into());
    if param.ty == Type::Enum {
        schema.insert("enum".into(), param.choices().into());
    }
    if let Some(item) = items {
        schema.insert("items".into(), json!({ "type": item }));
    }
    Value::Object(schema)
}
