//! Chat templates rendered exactly as transformers renders them.
//!
//! A model's Jinja chat template turns messages, tool schemas, tool calls and
//! tool results into the one prompt string the model was trained on.
//! [`ChatTemplate`] compiles such a template once (with minijinja, configured
//! like transformers' sandbox) and renders it byte-for-byte as
//! `apply_chat_template(..., tokenize=False)` does.
//!
//! ```
//! use tool_models::template::{ChatTemplate, RenderOptions};
//! use tool_runtime::Message;
//!
//! let template = ChatTemplate::new(
//!     "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}\
//!      {% if add_generation_prompt %}<|assistant|>{% endif %}",
//! )?;
//! let messages = [Message::user("Hi!")];
//! let prompt = template.render(&RenderOptions::new(&messages).add_generation_prompt(true))?;
//! assert_eq!(prompt.text, "<|user|>Hi!\n<|assistant|>");
//! # Ok::<(), tool_models::template::TemplateError>(())
//! ```
//!
//! Templates come from downloaded models and are untrusted: renders are
//! bounded in instructions, recursion, time, output and namespace size
//! ([`Limits`]).

mod clock;
mod dict;
mod env;
mod error;
mod filters;
mod generation;
mod gguf;
mod input;
mod json_style;
mod limits;
mod load;
mod methods;
mod operators;
mod python;
mod python_ops;
mod range;
pub mod tojson;
mod tool_probe;

#[cfg(test)]
mod tests;

pub use crate::gguf::{GgufMetadata, GgufValue};
pub use clock::{Clock, DateTime};
pub use error::TemplateError;
pub use gguf::read_gguf_metadata;
pub use limits::Limits;
pub use load::{ModelTemplates, NamedTemplate};

use crate::setters::setters;
use minijinja::Environment;
use serde::Serialize;
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;
use std::ops::Range;
use tool_runtime::{Message, ToolDefinition};

/// The name the compiled template has inside its environment.
const TEMPLATE_NAME: &str = "chat_template";

/// A compiled chat template.
pub struct ChatTemplate {
    env: Environment<'static>,
    has_generation: bool,
    clock: Clock,
    limits: Limits,
    tools: input::ToolsCache,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate")
            .field("has_generation", &self.has_generation)
            .field("clock", &self.clock)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// A rendered prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The prompt text.
    pub text: String,
    /// Byte ranges of `text` produced inside `{% generation %}` blocks (the
    /// assistant's own text, to be trained on), sorted by start. Empty when
    /// the template has no such block.
    pub generation: Vec<Range<usize>>,
}

impl Rendered {
    /// The generation spans as char (Unicode scalar) ranges: the indices
    /// transformers reports, since Python indexes strings by code point.
    pub fn generation_char_ranges(&self) -> Vec<Range<usize>> {
        generation::char_ranges(&self.text, &self.generation)
    }
}

/// The inputs of one render, built from typed messages and tool definitions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderOptions {
    messages: Vec<Json>,
    tools: Option<Vec<Json>>,
    documents: Option<Vec<Json>>,
    add_generation_prompt: bool,
    continue_final_message: bool,
    vars: Map<String, Json>,
    clock: Option<Clock>,
}

impl RenderOptions {
    /// A render of `messages`, with no tools and no generation prompt.
    pub fn new(messages: &[Message]) -> RenderOptions {
        RenderOptions {
            messages: messages
                .iter()
                .map(|m| serde_json::to_value(m).unwrap_or(Json::Null))
                .collect(),
            ..RenderOptions::default()
        }
    }

    /// A render of messages given as JSON objects (`role`, `content`, ...).
    pub fn from_json_messages(messages: Vec<Json>) -> RenderOptions {
        RenderOptions {
            messages,
            ..RenderOptions::default()
        }
    }

    /// Offers these tools (a toolbox's definitions, or raw JSON schemas).
    pub fn tools(mut self, tools: &[Json]) -> RenderOptions {
        self.tools = Some(tools.to_vec());
        self
    }

    /// Offers these checked definitions: the template's `tools` variable is
    /// their transformers form, as they were read.
    pub fn definitions(mut self, tools: &[ToolDefinition]) -> RenderOptions {
        self.tools = Some(tools.iter().map(ToolDefinition::to_json).collect());
        self
    }

    /// Adds documents for retrieval-augmented generation (`title`, `text`, ...).
    pub fn documents(mut self, documents: &[Json]) -> RenderOptions {
        self.documents = Some(documents.to_vec());
        self
    }

    setters! {
        /// Ends the prompt with the header of a new assistant turn.
        add_generation_prompt(yes: bool) => add_generation_prompt;
        /// Leaves the final message open so that the model continues it.
        continue_final_message(yes: bool) => continue_final_message;
    }

    /// Sets the special tokens (`bos_token`, `eos_token`, ...).
    pub fn special_tokens(mut self, tokens: &BTreeMap<String, String>) -> RenderOptions {
        for (name, token) in tokens {
            self.vars.insert(name.clone(), Json::String(token.clone()));
        }
        self
    }

    /// Sets any other template variable (`enable_thinking`, `date_string`, ...).
    /// A value that cannot be serialised as JSON becomes `null`.
    pub fn var(mut self, name: impl Into<String>, value: impl Serialize) -> RenderOptions {
        let value = serde_json::to_value(value).unwrap_or(Json::Null);
        self.vars.insert(name.into(), value);
        self
    }

    /// Reads `strftime_now` from this clock instead of the template's.
    pub fn clock(mut self, clock: Clock) -> RenderOptions {
        self.clock = Some(clock);
        self
    }

    fn to_kwargs(&self) -> Map<String, Json> {
        let mut kwargs = self.vars.clone();
        kwargs.insert("messages".into(), Json::Array(self.messages.clone()));
        let list = |v: &Option<Vec<Json>>| v.clone().map_or(Json::Null, Json::Array);
        kwargs.insert("tools".into(), list(&self.tools));
        kwargs.insert("documents".into(), list(&self.documents));
        kwargs.insert(
            "add_generation_prompt".into(),
            Json::Bool(self.add_generation_prompt),
        );
        kwargs
    }
}

impl ChatTemplate {
    /// Compiles a template with the default [`Limits`] and the system clock.
    pub fn new(source: &str) -> Result<ChatTemplate, TemplateError> {
        ChatTemplate::limited(source, Limits::default())
    }

    /// Compiles a template whose renders are bounded by `limits`.
    pub fn limited(source: &str, limits: Limits) -> Result<ChatTemplate, TemplateError> {
        let mut env = env::environment(&limits);
        let rewritten = generation::rewrite(source);
        let has_generation = rewritten.is_some();
        let source = rewritten.unwrap_or_else(|| source.to_owned());
        let source = operators::rewrite(&source).unwrap_or(source);
        env.add_template_owned(TEMPLATE_NAME, source)
            .map_err(|e| TemplateError::Syntax {
                message: detail(&e),
                line: e.line(),
            })?;
        Ok(ChatTemplate {
            env,
            has_generation,
            clock: Clock::System,
            limits,
            tools: input::ToolsCache::default(),
        })
    }

    setters! {
        /// Reads `strftime_now` from `clock` (e.g. a [`Clock::Fixed`] for
        /// reproducible renders).
        with_clock(clock: Clock) => clock;
    }

    /// The limits each render runs under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether the template marks assistant text with `{% generation %}`.
    pub fn has_generation_blocks(&self) -> bool {
        self.has_generation
    }

    /// Renders from a JSON object of template variables: `messages`, `tools`,
    /// `documents`, `add_generation_prompt`, `bos_token`, ... A
    /// `continue_final_message: true` entry is honoured as the
    /// `apply_chat_template` option, not passed to the template.
    pub fn render_json(&self, kwargs: &Json) -> Result<String, TemplateError> {
        self.render_json_spans(kwargs).map(|r| r.text)
    }

    /// Like [`render_json`](Self::render_json), also returning the generation spans.
    pub fn render_json_spans(&self, kwargs: &Json) -> Result<Rendered, TemplateError> {
        let Json::Object(kwargs) = kwargs else {
            return Err(TemplateError::Input(format!(
                "template variables must be a JSON object, found {kwargs}"
            )));
        };
        let continue_final = kwargs
            .get("continue_final_message")
            .is_some_and(|v| v.as_bool().unwrap_or(!v.is_null()));
        self.render_kwargs(kwargs, continue_final, self.clock)
    }

    /// Renders from typed options.
    ///
    /// A turn that only calls tools has no text, and some templates cannot
    /// render a message without `content` (Qwen 3's reads it as a string)
    /// or arguments that are not JSON text (functionary v3.2 joins them as
    /// text), where transformers fails too. When a render fails and the
    /// conversation holds such turns, they are given `""` as content, then
    /// their arguments as JSON text, as llama.cpp adapts messages to a
    /// template: a render that succeeds as given is never changed.
    pub fn render(&self, options: &RenderOptions) -> Result<Rendered, TemplateError> {
        let clock = options.clock.unwrap_or(self.clock);
        let continue_final = options.continue_final_message;
        let mut kwargs = options.to_kwargs();
        let first = match self.render_kwargs(&kwargs, continue_final, clock) {
            Ok(rendered) => return Ok(rendered),
            Err(e) => e,
        };
        for adapt in [empty_call_content, arguments_as_text] {
            if !adapt(&mut kwargs) {
                continue;
            }
            if let Ok(rendered) = self.render_kwargs(&kwargs, continue_final, clock) {
                return Ok(rendered);
            }
        }
        Err(first)
    }

    fn render_kwargs(
        &self,
        kwargs: &Map<String, Json>,
        continue_final: bool,
        clock: Clock,
    ) -> Result<Rendered, TemplateError> {
        let (ctx, final_text) = input::context(kwargs, continue_final, &self.tools)?;
        let template = self
            .env
            .get_template(TEMPLATE_NAME)
            .map_err(|e| render_error(&e))?;
        let (result, state) = limits::with_render_state(clock, &self.limits, || {
            let mut out = limits::LimitedOutput {
                buf: Vec::new(),
                max: self.limits.max_output_bytes,
            };
            template.render_captured_to(ctx, &mut out).map(|_| out.buf)
        });
        let bytes = match result {
            Ok(bytes) => bytes,
            Err(e) => {
                if let Some(what) = state.exceeded {
                    return Err(TemplateError::LimitExceeded(what));
                }
                if let Some(message) = state.raised {
                    return Err(TemplateError::Raised(message));
                }
                if matches!(e.kind(), minijinja::ErrorKind::OutOfFuel) {
                    return Err(TemplateError::LimitExceeded(format!(
                        "render ran more than {} template instructions (fuel)",
                        self.limits.fuel.unwrap_or(0)
                    )));
                }
                return Err(render_error(&e));
            }
        };
        // Every piece written came from a Rust string, so this cannot fail;
        // stay total anyway.
        let raw = String::from_utf8(bytes)
            .map_err(|e| TemplateError::Input(format!("render produced invalid UTF-8: {e}")))?;
        let (mut text, mut spans) = if self.has_generation {
            generation::extract_spans(&raw).map_err(TemplateError::Input)?
        } else {
            (raw, Vec::new())
        };
        if let Some(final_text) = final_text {
            let cut = input::cut_at_final(&text, &final_text)?;
            text.truncate(cut);
            for span in &mut spans {
                span.start = span.start.min(cut);
                span.end = span.end.min(cut);
            }
            spans.retain(|s| !s.is_empty());
        }
        Ok(Rendered {
            text,
            generation: spans,
        })
    }
}

/// minijinja's message without its "syntax error:" prefix and location.
fn detail(e: &minijinja::Error) -> String {
    e.detail()
        .map(str::to_owned)
        .unwrap_or_else(|| e.kind().to_string())
}

fn render_error(e: &minijinja::Error) -> TemplateError {
    let mut message = format!("{}: {}", e.kind(), detail(e));
    // A filter or method that failed is reported as the cause.
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        message.push_str(&format!(" (caused by: {cause})"));
        source = cause.source();
    }
    if e.kind() == minijinja::ErrorKind::SyntaxError {
        return TemplateError::Syntax {
            message,
            line: e.line(),
        };
    }
    TemplateError::Render {
        message,
        line: e.line(),
    }
}

/// Where a model's own turn starts in `conversation`, a render of the
/// conversation that continues `prompt` (the same messages rendered with
/// the generation prompt): the byte after their longest common prefix,
/// moved back to the start of a tag it would cut (`<|assistant|><think>`
/// against `<|assistant|></think>`). Also whether `conversation` extends
/// `prompt` whole, so that a block the prompt opened (`<think>`) is still
/// open where the turn starts.
pub fn turn_start(prompt: &str, conversation: &str) -> (usize, bool) {
    let mut common = prompt
        .char_indices()
        .zip(conversation.chars())
        .find(|((_, a), b)| a != b)
        .map_or(prompt.len(), |((i, _), _)| i);
    let extends = common == prompt.len();
    if let Some(open) = conversation[..common].rfind(['<', '[']) {
        if !conversation[open..common].contains(['>', ']']) {
            common = open;
        }
    }
    (common, extends)
}

/// The assistant messages of `kwargs` that call tools.
fn calling_turns(kwargs: &mut Map<String, Json>) -> impl Iterator<Item = &mut Map<String, Json>> {
    kwargs
        .get_mut("messages")
        .and_then(Json::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Json::as_object_mut)
        .filter(|m| m.get("tool_calls").is_some_and(|c| !c.is_null()))
}

/// Gives each turn that calls tools without text `""` as its content;
/// returns whether any changed.
fn empty_call_content(kwargs: &mut Map<String, Json>) -> bool {
    let mut changed = false;
    for turn in calling_turns(kwargs) {
        if turn.get("content").is_none_or(Json::is_null) {
            turn.insert("content".into(), Json::String(String::new()));
            changed = true;
        }
    }
    changed
}

/// Writes each call's arguments as JSON text; returns whether any changed.
fn arguments_as_text(kwargs: &mut Map<String, Json>) -> bool {
    let mut changed = false;
    for turn in calling_turns(kwargs) {
        let calls = turn.get_mut("tool_calls").and_then(Json::as_array_mut);
        for call in calls.into_iter().flatten() {
            let function = if call.get("function").is_some() {
                &mut call["function"]
            } else {
                call
            };
            if let Some(args) = function.get_mut("arguments").filter(|a| !a.is_string()) {
                *args = Json::String(args.to_string());
                changed = true;
            }
        }
    }
    changed
}
