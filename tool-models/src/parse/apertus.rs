//! Apertus: `<|tools_prefix|>[{"get_weather": {"city": "Bern"}}, …]<|tools_suffix|>`,
//! each call an object whose one key is the tool's name.

use super::jsonblock::{Block, End, Spec};
use super::partial_call::{name_key_prefix, BodyCalls};
use super::stream::{Emitter, Machine};
use serde_json::Value;

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed_streaming(
        Spec {
            starts: &["<|tools_prefix|>"],
            brackets: &[],
            end: End::Marker("<|tools_suffix|>"),
            after: &[],
            handler: calls,
        },
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
