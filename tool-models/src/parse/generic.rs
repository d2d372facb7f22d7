//! The generic JSON answer, for chat models whose template shows no tools:
//! the whole answer is one JSON object, `{"tool_calls": [{"name",
//! "arguments"}, …]}` (or one `"tool_call"`) or `{"response": "…"}`, as
//! llama.cpp's generic format has it. The prompt asks for it and the
//! grammar keeps to it; text that is not such an object is content.

use super::family::Family;
use super::jsonblock::{Block, BodyStream, End, Spec};
use super::stream::{Emitter, Machine};
use super::think::THINK;
use super::Format;
use serde_json::Value;

/// What a model is told to answer, after the tools' definitions.
pub const INSTRUCTIONS: &str = "Respond in JSON format, either with `tool_calls` (a list of calls to the tools above, each {\"name\": ..., \"arguments\": {...}}) or with `response` (your reply to the user's request).";

pub(crate) fn machine() -> Box<dyn Machine> {
    // Only an object whose first key starts right away is an answer.
    let spec = Spec::new(&[], End::Json)
        .brackets(&[("{", b'"')])
        .handler(answer);
    Block::boxed_streaming(spec, Whole)
}

/// The answer is read when its object closes.
struct Whole;

impl BodyStream for Whole {
    fn feed(&mut self, _: &str, _: &mut Emitter) {}
    fn finish(&mut self, _: &str, _: &mut Emitter) {}
    fn reset(&mut self) {}
}

/// One answer object: its calls, or its response as content; `false` (the
/// text stays content) for any other JSON.
fn answer(body: &str, complete: bool, em: &mut Emitter) -> bool {
    let Ok(Value::Object(mut answer)) = super::json::parse(body) else {
        if !complete && body.contains("\"tool_call") {
            em.invalid(None, None, body, "the tool call was cut off");
            return true;
        }
        return false;
    };
    if let Some(calls) = answer
        .remove("tool_calls")
        .or_else(|| answer.remove("tool_call"))
    {
        em.json_calls(&calls.to_string());
        return true;
    }
    match answer.remove("response") {
        Some(Value::String(text)) => em.content(&text),
        Some(other) => em.content(&other.to_string()),
        None => return false,
    }
    true
}

/// The generic JSON answer. No template names it: it is chosen when a
/// template ignores `tools`, or by name.
pub(crate) const GENERIC: Family =
    Family::new(Format::Generic, "generic", |_| machine()).think(THINK);
