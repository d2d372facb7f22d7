//! FunctionGemma: `<start_function_call>call:name{key:<escape>text<escape>,
//! n:10}<end_function_call>`. Escaped values are typed by the tool's schema
//! when the tools are known (as the XML families' are); otherwise they are
//! strings unless they read as a JSON number or boolean. The comma between
//! entries is optional. Arguments stream value by value.

use super::family::{grammar_fn, Family, Rule};
use super::jsonblock::{Block, BodyStream, End, Spec};
use super::partial_call::Pairs;
use super::schema::{typed_value, Tools};
use super::stream::{Emitter, Machine};
use super::think::THINK;
use super::Format;
use serde_json::{Map, Value};

const ESC: &str = "<escape>";
const START: &str = "<start_function_call>";
const END: &str = "<end_function_call>";

fn scalar(raw: &str) -> Value {
    match serde_json::from_str::<Value>(raw.trim()) {
        Ok(v @ (Value::Number(_) | Value::Bool(_))) => v,
        _ => Value::String(raw.to_owned()),
    }
}

/// One `key:value` entry at the start of `s` (after separators): the key,
/// the value, and the bytes of `s` it takes. An unescaped value runs to the
/// next comma, or to the end of `s` when it is `whole`; `Ok(None)` when
/// the entry is not complete yet.
fn entry(
    tools: &Tools,
    name: &str,
    s: &str,
    whole: bool,
) -> Result<Option<(String, Value, usize)>, String> {
    let skip = s.len()
        - s.trim_start_matches(|c: char| c == ',' || c.is_whitespace())
            .len();
    let t = &s[skip..];
    let Some(colon) = t.find(':') else {
        return match whole && !t.is_empty() {
            true => Err(format!("expected `key:` in `{t}`")),
            false => Ok(None),
        };
    };
    let key = t[..colon].trim().to_owned();
    let after = &t[colon + 1..];
    let at = skip + colon + 1;
    if let Some(inner) = after.strip_prefix(ESC) {
        let Some(close) = inner.find(ESC) else {
            return match whole {
                true => Err("unterminated <escape> value".to_owned()),
                false => Ok(None),
            };
        };
        let raw = &inner[..close];
        let v = match tools.property(name, &key) {
            Some(schema) => typed_value(raw, Some(schema)),
            None => scalar(raw),
        };
        return Ok(Some((key, v, at + ESC.len() + close + ESC.len())));
    }
    if !whole && ESC.starts_with(after) {
        return Ok(None);
    }
    let e = match (after.find(','), whole) {
        (Some(e), _) => e,
        (None, true) => after.len(),
        (None, false) => return Ok(None),
    };
    let raw = after[..e].trim();
    let v = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()));
    Ok(Some((key, v, at + e)))
}

/// The arguments inside the braces; the first of a key written twice is
/// kept, as streaming sent it.
fn parse_args(tools: &Tools, name: &str, body: &str) -> Result<Map<String, Value>, String> {
    let mut args = Map::new();
    let mut s = body.trim();
    while let Some((key, v, n)) = entry(tools, name, s, true)? {
        args.entry(key).or_insert(v);
        s = &s[n..];
        if s.trim_start_matches(|c: char| c == ',' || c.is_whitespace())
            .is_empty()
        {
            break;
        }
    }
    Ok(args)
}

/// `call:name{`: the name and where the arguments start.
fn head(body: &str) -> Option<(&str, usize)> {
    let b = body.trim_start();
    let b = b.strip_prefix("call:").unwrap_or(b);
    let open = b.find('{')?;
    Some((b[..open].trim(), body.len() - b.len() + open + 1))
}

fn handler(body: &str, _complete: bool, em: &mut Emitter) -> bool {
    let Some((name, at)) = head(body) else {
        em.invalid(None, None, body, "expected `name{…}`");
        return true;
    };
    let name = name.to_owned();
    let Some(inner) = body[at..].trim_end().strip_suffix('}') else {
        em.invalid(None, Some(name), body, "the call was cut off");
        return true;
    };
    match parse_args(em.tools(), &name, inner) {
        Ok(args) if !name.is_empty() => em.call(None, name, Value::Object(args)),
        Ok(_) => em.invalid(None, None, body, "the call has no name"),
        Err(e) => em.invalid(None, Some(name), body, e),
    }
    true
}

/// The call's arguments, each sent once it is complete: an escaped value
/// at its closing `<escape>`, another at the comma after it (the last one
/// comes with the call).
#[derive(Default)]
struct Entries {
    /// The call's name and how far its arguments are read.
    call: Option<(String, usize)>,
    keys: Vec<String>,
    pairs: Pairs,
}

impl BodyStream for Entries {
    fn feed(&mut self, body: &str, em: &mut Emitter) {
        if self.call.is_none() {
            match head(body) {
                Some((name, at)) if !name.is_empty() => {
                    self.pairs.start(em, name);
                    self.call = Some((name.to_owned(), at));
                }
                _ => return,
            }
        }
        let Some((name, at)) = &mut self.call else {
            return;
        };
        while let Ok(Some((key, v, n))) = entry(em.tools(), name, &body[*at..], false) {
            *at += n;
            if !self.keys.contains(&key) {
                self.pairs.push(em, name, &key, &v);
                self.keys.push(key);
            }
        }
    }

    fn finish(&mut self, body: &str, em: &mut Emitter) {
        if self.call.is_some() {
            self.feed(body, em);
        }
    }

    fn reset(&mut self) {
        *self = Entries::default();
    }
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Block::boxed_streaming(
        Spec::new(&[START], End::Marker(END)).handler(handler),
        Entries::default(),
    )
}

/// FunctionGemma.
pub(crate) const FUNCTION_GEMMA: Family =
    Family::new(Format::FunctionGemma, "functiongemma", |_| machine())
        .detect(&[Rule::at(40, &[START])])
        .think(THINK)
        .grammar(grammar_fn!(grammar::syntax));

/// One call to a block, values between `<escape>`s.
#[cfg(feature = "local")]
mod grammar {
    use super::{END, ESC, START};
    use crate::constrain::syntax::{
        each_param, lit, raw_end, raw_value, CallRule, Lark, Syntax, ToolDef,
    };

    pub(super) fn syntax(_: &Lark) -> Option<Syntax> {
        let mut s = Syntax::per_tool(&[START], Some(END), function_gemma, false);
        s.ws_after_open = false;
        s.value_forbidden = vec![ESC, END];
        Some(s)
    }

    fn function_gemma(l: &mut Lark, t: &ToolDef, vf: &[&'static str]) -> CallRule {
        let end = raw_end(l, "<escape>", vf);
        let key_ok = |k: &str| !k.is_empty() && !k.contains([':', ',', '{', '}', '<']);
        let args = each_param(l, t, "functiongemma", key_ok, ",", |l, k, s, d| {
            format!(
                "{} {} {}",
                lit(&format!("{k}:")),
                l.mark("<escape>"),
                raw_value(l, s, d, &end)
            )
        })?;
        Ok(format!(
            "{} {args} \"}}\"",
            lit(&format!("call:{}{{", t.name))
        ))
    }
}
