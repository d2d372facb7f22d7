//! The generic JSON answer, for chat models whose template shows no tools:
//! the whole answer is one JSON object, `{"tool_call": {"name",
//! "arguments"}}` (or a list, `"tool_calls"`) or `{"response": "…"}`, as
//! llama.cpp's generic format has it. The prompt asks for one call a turn
//! and the grammar keeps to it; text that is not such an object is
//! content. A `response` is streamed as text while it is written.

use super::family::{grammar_fn, Family};
use super::jsonblock::{Block, BodyStream, End, Spec};
use super::stream::{Emitter, Machine};
use super::think::THINK;
use super::Format;
use serde_json::{json, Value};
use tool_runtime::{Message, Role};

/// What a model is told to answer, after the tools' definitions: one call
/// a turn (llama.cpp's form without parallel calls), which small models
/// keep to where a list of calls runs on.
pub const INSTRUCTIONS: &str = "Respond in JSON format, either with `tool_call` (a request to call one of the tools: {\"name\": ..., \"arguments\": {...}}) or with `response` (your reply to the user's request).";

/// The system prompt that tells a model its tools (their `function`
/// objects, one a line, when `list_tools`: the template does not show
/// them) and how to answer.
pub fn system_prompt<'a>(tools: impl IntoIterator<Item = &'a Value>, list_tools: bool) -> String {
    let mut prompt = String::new();
    if list_tools {
        prompt.push_str("You can call these tools:\n");
        for tool in tools {
            let function = tool.get("function").unwrap_or(tool);
            prompt.push_str(&function.to_string());
            prompt.push('\n');
        }
    }
    prompt.push_str(INSTRUCTIONS);
    prompt
}

/// `messages` for a template that knows no tool calls: an assistant's
/// calls as the JSON answer it wrote, and each tool result as a user
/// message `{"tool_response": {"name", "content"}}`, as llama.cpp's
/// templates polyfill them.
pub fn as_text(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .map(|m| match m.role {
            Role::Assistant if !m.tool_calls.is_empty() => {
                let mut calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| json!({"name": c.name, "arguments": c.arguments}))
                    .collect();
                let answer = match calls.len() {
                    1 => json!({"tool_call": calls.remove(0)}),
                    _ => json!({"tool_calls": calls}),
                };
                Message::assistant(answer.to_string())
            }
            Role::Tool => Message::user(format!(
                "{} returned: {}",
                m.name.as_deref().unwrap_or("The tool"),
                m.text()
            )),
            _ => m.clone(),
        })
        .collect()
}

pub(crate) fn machine() -> Box<dyn Machine> {
    // Only an object whose first key starts right away is an answer.
    let spec = Spec::new(&[], End::Json)
        .brackets(&[("{", b'"')])
        .handler(answer);
    Block::boxed_streaming(spec, Response::default())
}

/// A `{"response": "…"}` answer's text, streamed as it is written; calls
/// are read when their object closes.
#[derive(Default)]
struct Response {
    /// Bytes of the decoded text already emitted.
    sent: usize,
}

impl Response {
    /// Emits what `text` adds to what was sent.
    fn send(&mut self, text: &str, em: &mut Emitter) {
        if let Some(new) = text.get(self.sent..).filter(|t| !t.is_empty()) {
            em.content(new);
            self.sent = text.len();
        }
    }
}

impl BodyStream for Response {
    fn feed(&mut self, body: &str, em: &mut Emitter) {
        if let Some(text) = response_text(body) {
            self.send(&text, em);
        }
    }

    fn finish(&mut self, _: &str, _: &mut Emitter) {}

    fn reset(&mut self) {
        self.sent = 0;
    }

    fn handle(&mut self, body: &str, complete: bool, em: &mut Emitter) -> Option<bool> {
        if complete {
            // A whole answer object: only a lone `response` string is
            // claimed here; calls (and anything else) go to `answer`.
            let Ok(Value::Object(object)) = super::json::parse(body) else {
                return None;
            };
            match (object.len(), object.get("response")) {
                (1, Some(Value::String(text))) => self.send(text, em),
                _ => return None,
            }
        } else {
            // Cut off by the end of the output: the text written so far.
            self.send(&response_text(body)?, em);
        }
        Some(true)
    }
}

/// The text of a body that begins `{"response": "`, decoded as far as it
/// goes (up to its closing quote, or before an escape not yet whole).
fn response_text(body: &str) -> Option<String> {
    let rest = body.trim_start().strip_prefix('{')?.trim_start();
    let rest = rest.strip_prefix("\"response\"")?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let mut chars = rest.strip_prefix('"')?.chars();
    let mut text = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => {
                let unescaped = match chars.next() {
                    None => break,
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('r') => '\r',
                    Some('b') => '\u{8}',
                    Some('f') => '\u{c}',
                    Some('u') => match unicode_escape(&mut chars) {
                        Some(c) => c,
                        None => break,
                    },
                    Some(other) => other,
                };
                text.push(unescaped);
            }
            c => text.push(c),
        }
    }
    Some(text)
}

/// The character of a `\uXXXX` escape (and its low surrogate's, for one
/// outside the basic plane); `None` when not yet whole or not valid.
fn unicode_escape(chars: &mut std::str::Chars<'_>) -> Option<char> {
    let hex = |chars: &mut std::str::Chars<'_>| -> Option<u32> {
        let digits: String = chars.by_ref().take(4).collect();
        (digits.len() == 4).then(|| u32::from_str_radix(&digits, 16).ok())?
    };
    let high = hex(chars)?;
    if (0xD800..0xDC00).contains(&high) {
        let mut low_escape = chars.by_ref().take(2);
        if (low_escape.next(), low_escape.next()) != (Some('\\'), Some('u')) {
            return None;
        }
        let low = hex(chars)?;
        return char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low.checked_sub(0xDC00)?));
    }
    char::from_u32(high)
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
        em.value_calls(calls, body);
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
pub(crate) const GENERIC: Family = Family::new(Format::Generic, "generic", |_| machine())
    .think(THINK)
    .grammar(grammar_fn!(layout grammar::generic));

/// The whole output is one JSON object.
#[cfg(feature = "local")]
mod grammar {
    use crate::constrain::syntax::{json, json_block, lit, named, ConstrainError, Lark, ToolDef};
    use serde_json::json;
    use tool_runtime::ToolChoice;

    // The generic JSON answer: the whole output is `{"tool_call": {...}}` or
    /// `{"response": "..."}`, as llama.cpp constrains it without parallel
    /// calls.
    pub(super) fn generic(
        l: &mut Lark,
        tools: &[ToolDef],
        choice: &ToolChoice,
        calls_allowed: bool,
    ) -> Result<(), ConstrainError> {
        let response = json(
            json!({
                "type": "object",
                "properties": {"response": {"type": "string"}},
                "required": ["response"],
                "additionalProperties": false,
            }),
            None,
        );
        if !calls_allowed {
            l.named("start", &response);
            return Ok(());
        }
        let call = json(json_block(tools, named("name", "arguments")), None);
        let object = format!("{} {call} {}", lit("{\"tool_call\": "), lit("}"));
        let start = match choice {
            ToolChoice::Auto => format!("{object} | {response}"),
            _ => object,
        };
        l.named("start", &start);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::ParseOptions;

    fn parse(text: &str) -> crate::parse::ParsedResponse {
        Format::Generic.parse(text, &ParseOptions::default())
    }

    #[test]
    fn calls_responses_and_other_text_are_read_as_llama_cpp_writes_them() {
        let one =
            parse(r#"{"tool_call": {"name": "get_weather", "arguments": {"city": "Paris"}}}"#);
        assert_eq!(one.tool_calls.len(), 1);
        assert_eq!(one.tool_calls[0].name, "get_weather");
        assert_eq!(one.tool_calls[0].arguments, json!({"city": "Paris"}));
        assert_eq!(one.content, None);

        let two = parse(
            r#"{"tool_calls": [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]}"#,
        );
        let names: Vec<&str> = two.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);

        let answer = parse(r#"{"response": "It is 22 degrees."}"#);
        assert!(answer.tool_calls.is_empty());
        assert_eq!(answer.content.as_deref(), Some("It is 22 degrees."));

        // Not an answer object: the text is content, nothing is lost.
        for text in ["Hello there.", r#"{"weather": "sunny"}"#, "[1, 2]"] {
            let p = parse(text);
            assert!(p.tool_calls.is_empty() && p.invalid_tool_calls.is_empty());
            assert_eq!(p.content.as_deref(), Some(text));
        }

        // A call cut off by the end of the output is reported, not dropped.
        let cut = parse(r#"{"tool_call": {"name": "get_weather", "arguments": {"ci"#);
        assert!(cut.tool_calls.is_empty());
        assert_eq!(cut.invalid_tool_calls.len(), 1);
    }

    #[test]
    fn a_response_streams_as_text_while_it_is_written() {
        let text = r#"{"response": "It is \"mild\": 22\u00b0C \ud83c\udf24\nBye."}"#;
        let whole = "It is \"mild\": 22\u{b0}C \u{1f324}\nBye.";
        assert_eq!(parse(text).content.as_deref(), Some(whole));
        // Fed a character at a time: the text arrives in pieces, before
        // the object closes, and the pieces are the whole text.
        let mut stream = Format::Generic.stream(&ParseOptions::default());
        let mut pieces = Vec::new();
        for (i, c) in text.char_indices() {
            for event in stream.feed(&c.to_string()) {
                if let crate::parse::StreamEvent::Content(piece) = event {
                    pieces.push((i, piece));
                }
            }
        }
        for event in stream.finish() {
            if let crate::parse::StreamEvent::Content(piece) = event {
                pieces.push((text.len(), piece));
            }
        }
        assert!(pieces.len() > 10, "{pieces:?}");
        assert!(pieces[0].0 < 20, "the first words arrive early: {pieces:?}");
        let joined: String = pieces.iter().map(|(_, p)| p.as_str()).collect();
        assert_eq!(joined, whole);
        // An answer cut off by the token limit keeps its text so far.
        let cut = parse(r#"{"response": "Paris is a ci"#);
        assert_eq!(cut.content.as_deref(), Some("Paris is a ci"));
        // A response beside a call is not claimed: the call is read.
        let both = parse(r#"{"response": "x", "tool_call": {"name": "f", "arguments": {}}}"#);
        assert_eq!(both.tool_calls.len(), 1);
    }

    #[test]
    fn calls_and_results_are_written_back_as_the_model_reads_them() {
        let call = tool_runtime::ToolCall::new("call_0", "get_weather", json!({"city": "Paris"}));
        let messages = [
            Message::user("Weather?"),
            Message::assistant_calls(None, vec![call]),
            Message::tool("call_0", "get_weather", "22.0"),
        ];
        let text = as_text(&messages);
        assert_eq!(
            text[1].text(),
            r#"{"tool_call":{"name":"get_weather","arguments":{"city":"Paris"}}}"#
        );
        assert_eq!(text[2].role, Role::User);
        assert_eq!(text[2].text(), "get_weather returned: 22.0");
        // What the model wrote parses back to the same call.
        let again = parse(text[1].text());
        assert_eq!(again.tool_calls[0].arguments, json!({"city": "Paris"}));
    }
}
