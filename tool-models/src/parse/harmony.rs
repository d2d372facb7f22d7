//! gpt-oss harmony: messages `<|channel|>analysis<|message|>…<|end|>`, each
//! after `<|start|>assistant` except the first (the prompt opened it). A
//! recipient `to=functions.name` (in the role or after the channel) makes the
//! message a call; the `analysis` channel is reasoning; `final` and plain
//! `commentary` are content. Messages to other recipients (built-in tools
//! the caller did not offer) are dropped. Also reads LLM-jp's dialect with a
//! space after each special token.

use super::family::{grammar_fn, Family, Rule};
use super::partial_call::NamedArguments;
use super::stream::{find_any, Emitter, Find, Machine, Text};
use super::Format;
use serde_json::Value;

const MESSAGE: &str = "<|message|>";
const CHANNEL: &str = "<|channel|>";
const ENDS: &[&str] = &["<|end|>", "<|call|>", "<|return|>", "<|start|>"];

enum Kind {
    Reasoning,
    Content,
    /// A call to this tool, its arguments streamed as they grow.
    Call(String, NamedArguments),
    Drop,
}

enum State {
    Header,
    Body {
        kind: Kind,
        args: String,
        fresh: bool,
    },
}

struct Harmony {
    state: State,
    scanned: usize,
}

pub(crate) fn machine() -> Box<dyn Machine> {
    Box::new(Harmony {
        state: State::Header,
        scanned: 0,
    })
}

fn classify(header: &str) -> Kind {
    let recipient = header
        .match_indices("to=")
        .find(|&(i, _)| i == 0 || !header.as_bytes()[i - 1].is_ascii_alphanumeric())
        .map(|(i, _)| {
            let r = &header[i + 3..];
            let e = r
                .find(|c: char| c.is_whitespace() || c == '<')
                .unwrap_or(r.len());
            &r[..e]
        })
        .filter(|r| !r.is_empty() && *r != "assistant" && *r != "user");
    let channel = header
        .rfind(CHANNEL)
        .map(|i| {
            let c = header[i + CHANNEL.len()..].trim_start();
            let e = c
                .find(|ch: char| ch.is_whitespace() || ch == '<')
                .unwrap_or(c.len());
            &c[..e]
        })
        .unwrap_or("");
    match recipient {
        Some(r) => match r.strip_prefix("functions.") {
            Some(name) if !name.is_empty() => {
                Kind::Call(name.to_owned(), NamedArguments::new(name, None))
            }
            _ => Kind::Drop,
        },
        None if channel == "analysis" => Kind::Reasoning,
        None => Kind::Content,
    }
}

impl Harmony {
    fn close(&mut self, em: &mut Emitter) {
        if let State::Body {
            kind: Kind::Call(name, _),
            args,
            ..
        } = &mut self.state
        {
            let raw = args.trim();
            let name = std::mem::take(name);
            if raw.is_empty() {
                em.call(None, name, Value::Object(Default::default()));
            } else {
                match super::json::parse(raw) {
                    Ok(v) => em.call(None, name, v),
                    Err(e) => em.invalid(
                        None,
                        Some(name),
                        raw,
                        format!("arguments are not JSON: {e}"),
                    ),
                }
            }
        }
        self.state = State::Header;
    }
}

impl Machine for Harmony {
    fn advance(&mut self, text: &mut Text, em: &mut Emitter, end: bool) -> bool {
        let rest = text.rest();
        match &mut self.state {
            State::Header => match find_any(rest, self.scanned.min(rest.len()), &[MESSAGE]) {
                Find::At { at, .. } => {
                    let kind = classify(&rest[..at]);
                    text.consume(at + MESSAGE.len());
                    self.scanned = 0;
                    self.state = State::Body {
                        kind,
                        args: String::new(),
                        fresh: true,
                    };
                    true
                }
                Find::Partial { safe } => {
                    if end {
                        // No header at all: plain text.
                        if !rest.contains("<|") {
                            em.content(rest);
                        }
                        text.consume(rest.len());
                        return false;
                    }
                    self.scanned = safe;
                    false
                }
            },
            State::Body { kind, args, fresh } => {
                let found = find_any(rest, 0, ENDS);
                let (n, stop) = match found {
                    Find::At { at, .. } => (at, true),
                    Find::Partial { safe } => (if end { rest.len() } else { safe }, end),
                };
                let mut piece = &rest[..n];
                if *fresh && !piece.is_empty() {
                    // LLM-jp writes one space after the special token.
                    piece = piece.strip_prefix(' ').unwrap_or(piece);
                    *fresh = false;
                }
                match kind {
                    Kind::Reasoning => em.reasoning(piece),
                    Kind::Content => em.content(piece),
                    Kind::Call(_, streamed) => {
                        args.push_str(piece);
                        if stop {
                            streamed.finish(args, em);
                        } else {
                            streamed.feed(args, em);
                        }
                    }
                    Kind::Drop => {}
                }
                text.consume(n);
                if !stop {
                    return false;
                }
                if let Find::At { which, .. } = found {
                    text.consume(ENDS[which].len());
                }
                self.close(em);
                true
            }
        }
    }

    fn finish(&mut self, text: &mut Text, em: &mut Emitter) {
        while self.advance(text, em, true) {}
        if let State::Body { .. } = self.state {
            self.close(em);
        }
    }
}

/// gpt-oss harmony (messages, not blocks: a layout of its own).
pub(crate) const HARMONY: Family = Family::new(Format::Harmony, "harmony", |_| machine())
    .aliases(&["llm_jp_harmony", "gpt_oss"])
    .detect(&[Rule::at(0, &[CHANNEL])])
    .grammar(grammar_fn!(layout grammar::harmony));

/// Messages to recipients, not text with blocks of calls in it.
#[cfg(feature = "local")]
mod grammar {
    use crate::constrain::syntax::{
        args_json, lit, text_without, textual, ConstrainError, Lark, ToolDef,
    };
    use tool_runtime::ToolChoice;

    /// gpt-oss harmony: reasoning messages, then a final answer or a call.
    /// The prompt has opened the first message (`<|start|>assistant`).
    pub(super) fn harmony(
        l: &mut Lark,
        tools: &[ToolDef],
        choice: &ToolChoice,
        calls_allowed: bool,
    ) -> Result<(), ConstrainError> {
        const MARKERS: &[&str] = &[
            "<|channel|>",
            "<|message|>",
            "<|end|>",
            "<|start|>",
            "<|call|>",
            "<|return|>",
            "<|constrain|>",
        ];
        let forbidden: Vec<String> = MARKERS.iter().map(|m| lit(m)).collect();
        l.named("TEXT", &text_without(&forbidden));
        let (channel, message) = (l.mark("<|channel|>"), l.mark("<|message|>"));
        l.named(
            "analysis",
            &format!(
                "{channel} \"analysis\" {message} TEXT {} {} \"assistant\"",
                l.mark("<|end|>"),
                l.mark("<|start|>")
            ),
        );
        l.named("final", &format!("{channel} \"final\" {message} TEXT"));
        if !calls_allowed {
            l.named("start", "analysis* final");
            return Ok(());
        }
        let vf = textual(l, MARKERS);
        let constrain = l.mark("<|constrain|>");
        let mut alts = Vec::new();
        // The recipient after the channel, as gpt-oss writes it, or in the
        // role, as its chat template renders past calls.
        // LLM-jp writes a space after each special token.
        let content_type = format!("(\" \" {constrain}? \" \"? \"json\")?");
        for t in tools {
            let to = format!("to=functions.{}", t.name);
            let body = format!(
                "({channel} {} {content_type} | {} {channel} \"commentary\" {content_type}) {message} {}",
                lit(&format!("commentary {to}")),
                lit(&format!(" {to}")),
                args_json(t, &vf)
            );
            alts.push(l.rule(false, &body));
        }
        l.named("call", &alts.join(" | "));
        // A model stops at `<|call|>`; a template renders each call of a turn
        // as a message of its own.
        let calls = if matches!(choice, ToolChoice::Named(_)) {
            "call".to_owned()
        } else {
            format!(
                "call ({} {} \"assistant\" call)*",
                l.mark("<|end|>"),
                l.mark("<|start|>")
            )
        };
        l.named("calls", &calls);
        l.named(
            "start",
            match choice {
                ToolChoice::Auto => "analysis* (final | calls)",
                _ => "analysis* calls",
            },
        );
        Ok(())
    }
}
