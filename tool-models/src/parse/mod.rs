//! Parsers for each model family's tool-call output, one-shot and streaming.
//!
//! ```
//! use tool_models::parse::{Format, ParseOptions};
//!
//! let out = "Let me look.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>";
//! let parsed = Format::from_id("hermes").unwrap().parse(out, &ParseOptions::default());
//! assert_eq!(parsed.content.as_deref(), Some("Let me look."));
//! assert_eq!(parsed.tool_calls[0].name, "get_weather");
//! assert_eq!(parsed.tool_calls[0].id, "call_0");
//! ```
//!
//! Every format is a streaming state machine ([`StreamParser`]); the one-shot
//! [`Format::parse`] feeds the whole text and finishes, so parsing whole and
//! parsing in any chunks give the same result by construction.
//!
//! Call ids: the model's own where the format has them (Mistral `[CALL_ID]`
//! and `"id"`, Kimi `functions.name:0`, Cohere `tool_call_id`); otherwise
//! `call_<index>`, where index counts the calls of the message from 0.

mod apertus;
mod cohere;
#[cfg(feature = "local")]
mod constraint;
mod deepseek;
pub mod detect;
pub(crate) mod family;
mod functionary;
mod functiongemma;
pub mod generic;
mod glm;
mod granite;
mod harmony;
mod hermes;
mod internlm2;
mod json;
mod jsonblock;
mod kimi;
mod llama3;
mod minimax;
mod mistral;
mod nemotron;
mod partial_call;
mod phi4_mini;
mod pythonic;
mod qwen3_xml;
mod registry;
pub(crate) mod schema;
mod stream;
mod think;
mod xlam;
mod xml_call;

pub use detect::{detect_format, detect_reasoning_start};
pub use think::ReasoningStart;

use registry::FAMILIES;
use serde::Serialize;
use stream::{Emitter, Machine, Text};
use think::ThinkSplitter;
use tool_runtime::{InvalidToolCall, ToolCall, ToolDefinition};

/// Errors at the module boundary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// `Format::from_id` got a name it does not know.
    #[error("unknown tool-call format `{0}` (known: {known})", known = Format::ids().join(", "))]
    UnknownFormat(String),
    /// No format's markers were found in the chat template.
    #[error("cannot tell the tool-call format from the chat template")]
    Undetected,
}

/// What a model's output says: text, reasoning and tool calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ParsedResponse {
    /// The text for the user; `None` when there is none at all.
    pub content: Option<String>,
    /// The model's reasoning; `None` when there is none at all.
    pub reasoning: Option<String>,
    /// The calls that could be read, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Calls the model tried to make that could not be read, with the raw
    /// text and the reason (to send back to the model).
    pub invalid_tool_calls: Vec<InvalidToolCall>,
}

/// What a streaming parser reports as text arrives.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// More text for the user.
    Content(String),
    /// More reasoning.
    Reasoning(String),
    /// A call begins.
    ToolCallStart {
        /// Its position among the message's calls.
        index: usize,
        /// Its id (native or `call_<index>`).
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a call's arguments, as JSON text.
    ToolCallArguments {
        /// The call's index.
        index: usize,
        /// The next piece of the arguments' JSON text.
        delta: String,
    },
    /// A call is complete; `call` holds its final, typed arguments.
    ToolCallEnd {
        /// The call's index.
        index: usize,
        /// The call.
        call: ToolCall,
    },
    /// A call that could not be read.
    InvalidToolCall(InvalidToolCall),
}

/// Options for parsing.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// The tools offered to the model. When given, a call to any other
    /// tool is invalid; the XML formats type their values by their
    /// schemas, and Kimi names bare-id calls by their arguments.
    pub tools: Vec<ToolDefinition>,
    /// Where the output starts relative to a reasoning block.
    pub reasoning: ReasoningStart,
}

/// A tool-call output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Hermes 2/3, Qwen 2.5, Granite 4: `<tool_call>{…}</tool_call>`.
    Hermes,
    /// Llama 3.1/3.3 JSON: `{"name", "parameters"}`, `;`-separated, optional `<|python_tag|>`.
    Llama3Json,
    /// Mistral: `[TOOL_CALLS][…]` and `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`.
    Mistral,
    /// Llama 3.2/4 pythonic: `[f(a=1, b="x")]`.
    Pythonic,
    /// Command R+ (`Action: ```json`) and R7B (`<|START_ACTION|>`).
    Cohere,
    /// Phi-4-mini and FireFunction v2: `functools[…]`.
    Phi4Mini,
    /// Granite 3: `<|tool_call|>[…]`.
    Granite,
    /// Granite 20B function calling: `<function_call> {…}`.
    Granite20bFc,
    /// InternLM 2: `<|action_start|><|plugin|>{…}<|action_end|>`.
    Internlm2,
    /// xLAM: a JSON list, bare or fenced or tagged.
    Xlam,
    /// Qwen3-Coder XML: `<function=…><parameter=…>`, values typed by the schema.
    Qwen3Xml,
    /// DeepSeek V3: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` and a fenced JSON block.
    DeepseekV3,
    /// DeepSeek V3.1: `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}`.
    DeepseekV31,
    /// Kimi K2: `<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{…}`.
    KimiK2,
    /// FunctionGemma: `<start_function_call>call:name{k:<escape>v<escape>}`.
    FunctionGemma,
    /// gpt-oss harmony: channels and `to=functions.name` recipients.
    Harmony,
    /// MiniMax-M2: `<minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke>…`,
    /// values typed by the schema.
    MinimaxM2,
    /// Nemotron Nano v2: `<TOOLCALL>[{"name", "arguments"}, …]</TOOLCALL>`.
    NemotronV2,
    /// Functionary v3.1: `<function=name>{…}</function>`.
    FunctionaryV31,
    /// Functionary v3.2: `>>>name\n{…}` segments (`>>>all` is text).
    FunctionaryV32,
    /// GLM-4.5/4.6/4.7: `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`,
    /// values typed by the schema.
    Glm45,
    /// Seed-OSS: Qwen3-Coder XML inside `<seed:tool_call>`, reasoning in `<seed:think>`.
    SeedOss,
    /// Apertus: `<|tools_prefix|>[{"name": {…}}]<|tools_suffix|>`.
    Apertus,
    /// LFM2/LFM2.5: `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`.
    Lfm2,
    /// Any chat model whose template shows no tools: the whole answer is
    /// `{"tool_calls": […]}` or `{"response": "…"}` (see [`generic`]).
    Generic,
}

impl Format {
    /// Every format, in a stable order.
    pub fn all() -> impl Iterator<Item = Format> {
        FAMILIES.iter().map(|f| f.format)
    }

    /// The ids `from_id` accepts (aliases left out).
    pub fn ids() -> Vec<&'static str> {
        FAMILIES.iter().map(|f| f.id).collect()
    }

    /// The format's id (`"hermes"`, `"qwen3_xml"`…).
    pub fn id(self) -> &'static str {
        FAMILIES
            .iter()
            .find(|f| f.format == self)
            .map(|f| f.id)
            .unwrap_or("unknown")
    }

    /// The format named `id` (as in the parsing fixtures; a few aliases too).
    pub fn from_id(id: &str) -> Result<Format, ParseError> {
        let id = id.trim();
        let id = id.strip_prefix("other:").unwrap_or(id);
        FAMILIES
            .iter()
            .find(|f| f.id == id)
            .or_else(|| FAMILIES.iter().find(|f| f.aliases.contains(&id)))
            .map(|f| f.format)
            .ok_or_else(|| ParseError::UnknownFormat(id.to_owned()))
    }

    /// A streaming parser for this format.
    pub fn stream(self, options: &ParseOptions) -> StreamParser {
        let tools = schema::Tools::new(options);
        let family = self.family();
        let machine = (family.machine)(&tools);
        let prefilter = family.citations.then(cohere::Citations::default);
        StreamParser {
            raw: Text::default(),
            staged: Text::default(),
            content: Text::default(),
            think: family
                .think
                .map(|m| ThinkSplitter::new(m, options.reasoning)),
            prefilter,
            machine,
            em: Emitter::new(tools),
            utf8: Vec::new(),
            finished: false,
        }
    }

    /// Parses a complete output.
    pub fn parse(self, text: &str, options: &ParseOptions) -> ParsedResponse {
        let mut p = self.stream(options);
        let mut c = Collector::default();
        c.extend(p.feed(text));
        c.extend(p.finish());
        c.finish()
    }
}

impl std::str::FromStr for Format {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::from_id(s)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Feeds a format's state machine with text deltas and reports events.
pub struct StreamParser {
    raw: Text,
    staged: Text,
    content: Text,
    think: Option<ThinkSplitter>,
    prefilter: Option<cohere::Citations>,
    machine: Box<dyn Machine>,
    em: Emitter,
    utf8: Vec<u8>,
    finished: bool,
}

impl std::fmt::Debug for StreamParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamParser").finish_non_exhaustive()
    }
}

impl StreamParser {
    /// Takes the next piece of the output; returns what it decided.
    pub fn feed(&mut self, delta: &str) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        self.raw.push(delta);
        self.run(false);
        std::mem::take(&mut self.em.events)
    }

    /// Takes the next bytes of the output; a character cut between two
    /// chunks waits for its other half. Invalid UTF-8 becomes U+FFFD.
    pub fn feed_bytes(&mut self, bytes: &[u8]) -> Vec<StreamEvent> {
        self.utf8.extend_from_slice(bytes);
        let valid = match std::str::from_utf8(&self.utf8) {
            Ok(_) => self.utf8.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => {
                let s = String::from_utf8_lossy(&self.utf8).into_owned();
                self.utf8.clear();
                return self.feed(&s);
            }
        };
        let rest = self.utf8.split_off(valid);
        let head = std::mem::replace(&mut self.utf8, rest);
        let s = String::from_utf8_lossy(&head).into_owned();
        self.feed(&s)
    }

    /// The output ended: reports everything still held back.
    pub fn finish(&mut self) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        if !self.utf8.is_empty() {
            let s = String::from_utf8_lossy(&self.utf8).into_owned();
            self.utf8.clear();
            self.raw.push(&s);
        }
        self.finished = true;
        self.run(true);
        std::mem::take(&mut self.em.events)
    }

    fn run(&mut self, end: bool) {
        let src = match &mut self.prefilter {
            Some(f) => {
                f.step(&mut self.raw, &mut self.staged, end);
                &mut self.staged
            }
            None => &mut self.raw,
        };
        match &mut self.think {
            Some(t) => t.step(src, &mut self.content, &mut self.em, end),
            None => {
                let all = src.take_all();
                self.content.push(&all);
            }
        }
        self.machine.step(&mut self.content, &mut self.em);
        if end {
            self.machine.finish(&mut self.content, &mut self.em);
        }
    }
}

/// Folds events into a [`ParsedResponse`].
#[derive(Debug, Default)]
pub struct Collector {
    content: Option<String>,
    reasoning: Option<String>,
    tool_calls: Vec<ToolCall>,
    invalid: Vec<InvalidToolCall>,
}

impl Collector {
    /// Adds one event.
    pub fn push(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::Content(s) => self.content.get_or_insert_with(String::new).push_str(&s),
            StreamEvent::Reasoning(s) => {
                self.reasoning.get_or_insert_with(String::new).push_str(&s)
            }
            StreamEvent::ToolCallEnd { call, .. } => self.tool_calls.push(call),
            StreamEvent::InvalidToolCall(c) => self.invalid.push(c),
            StreamEvent::ToolCallStart { .. } | StreamEvent::ToolCallArguments { .. } => {}
        }
    }

    /// Adds events.
    pub fn extend(&mut self, events: impl IntoIterator<Item = StreamEvent>) {
        for e in events {
            self.push(e);
        }
    }

    /// The result.
    pub fn finish(self) -> ParsedResponse {
        ParsedResponse {
            content: self.content,
            reasoning: self.reasoning,
            tool_calls: self.tool_calls,
            invalid_tool_calls: self.invalid,
        }
    }
}
