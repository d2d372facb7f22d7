//! Llama 3.1/3.3 JSON calls: `{"name": …, "parameters"|"arguments": {…}}`,
//! optionally after `<|python_tag|>`, several separated by `;`. A JSON object
//! in the text that is not a call stays content.

use super::jsonblock::{Block, End, Spec};
use super::stream::{Emitter, Machine};
use serde_json::Value;

fn handler(body: &str, complete: bool, em: &mut Emitter) -> bool {
    if !complete {
        return false;
    }
    let Ok(v) = super::json::parse(body) else {
        return false;
    };
    let is_call = v.get("name").is_some_and(Value::is_string)
        && (v.get("parameters").is_some() || v.get("arguments").is_some());
    if !is_call {
        return false;
    }
    em.json_call(v, body);
    true
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed(Spec {
        starts: &["<|python_tag|>"],
        // Only an object whose first key starts right away can be a call.
        brackets: &[("{", b'"')],
        end: End::Json,
        after: &[";"],
        handler,
    })
}
