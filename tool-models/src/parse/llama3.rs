//! Llama 3.1/3.3 JSON calls: `{"name": …, "parameters"|"arguments": {…}}`,
//! optionally after `<|python_tag|>`, several separated by `;`. A JSON object
//! in the text that is not a call stays content.

use super::family::{grammar_fn, Family, Rule};
use super::jsonblock::{Block, End, Spec};
use super::stream::{Emitter, Machine};
use super::think::THINK;
use super::Format;
use serde_json::Value;

const PYTHON_TAG: &str = "<|python_tag|>";

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
    Block::boxed(
        Spec::new(&[PYTHON_TAG], End::Json)
            // Only an object whose first key starts right away can be a call.
            .brackets(&[("{", b'"')])
            .after(&[";"])
            .handler(handler),
    )
}

/// Llama 3.1/3.3 JSON.
pub(crate) const LLAMA3_JSON: Family =
    Family::new(Format::Llama3Json, "llama3_json", |_| machine())
        .detect(&[
            Rule::at(250, &[PYTHON_TAG]),
            Rule::at(260, &["\"parameters\": dictionary of argument"]),
        ])
        .think(THINK)
        .grammar(grammar_fn!(grammar::syntax));

/// `;`-separated call objects, the marker optional.
#[cfg(feature = "local")]
mod grammar {
    use super::PYTHON_TAG;
    use crate::constrain::syntax::{lit, named, Calls, Lark, Syntax};

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        Some(Syntax {
            open: &[PYTHON_TAG],
            bare: true,
            ws_after_open: false,
            close: None,
            calls: Calls::Json {
                keys: named("name", "parameters"),
                list: false,
                fence: false,
                separator: Some(";"),
            },
            // The parser takes any `{"` as the start of a call.
            text_forbidden: vec![lit("{\"")],
            value_forbidden: Vec::new(),
        })
    }
}
