//! Apertus: `<|tools_prefix|>[{"get_weather": {"city": "Bern"}}, …]<|tools_suffix|>`,
//! each call an object whose one key is the tool's name.

use super::family::{grammar_fn, Family, Rule};
use super::jsonblock::{Block, End, Spec};
use super::partial_call::{name_key_prefix, BodyCalls};
use super::stream::{Emitter, Machine};
use super::Format;
use serde_json::Value;

const PREFIX: &str = "<|tools_prefix|>";
const SUFFIX: &str = "<|tools_suffix|>";

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed_streaming(
        Spec::new(&[PREFIX], End::Marker(SUFFIX)).handler(calls),
        BodyCalls::new(name_key_prefix),
    )
}

fn calls(body: &str, complete: bool, em: &mut Emitter) -> bool {
    let t = body.trim();
    if t.is_empty() {
        return true;
    }
    let items = match super::json::parse(t) {
        Ok(Value::Array(items)) => items,
        Ok(v @ Value::Object(_)) => vec![v],
        Ok(_) => {
            em.invalid(
                None,
                None,
                t,
                "expected a list of `{\"name\": {arguments}}`",
            );
            return true;
        }
        Err(_) if !complete => {
            em.invalid(None, None, t, "the tool call was cut off");
            return true;
        }
        Err(e) => {
            em.invalid(None, None, t, format!("tool call is not JSON: {e}"));
            return true;
        }
    };
    for item in items {
        let raw = item.to_string();
        match item {
            Value::Object(m) if m.len() == 1 => {
                let Some((name, args)) = m.into_iter().next() else {
                    continue;
                };
                if args.is_object() {
                    em.call(None, name, args);
                } else {
                    em.invalid(None, Some(name), &raw, "arguments must be an object");
                }
            }
            _ => em.invalid_item(&raw, "expected an object with one key, the tool's name"),
        }
    }
    true
}

/// Apertus.
pub(crate) const APERTUS: Family = Family::new(Format::Apertus, "apertus", |_| machine())
    .detect(&[Rule::at(150, &[PREFIX])])
    .grammar(grammar_fn!(grammar::syntax));

/// A list of `{"name": {arguments}}` objects.
#[cfg(feature = "local")]
mod grammar {
    use super::{PREFIX, SUFFIX};
    use crate::constrain::syntax::{Calls, Keys, Lark, Syntax};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = Syntax::json(&[PREFIX], Some(SUFFIX), true);
        s.calls = Calls::Json {
            keys: Keys::NameIsKey,
            list: true,
            fence: false,
            separator: None,
        };
        Some(s)
    }
}
