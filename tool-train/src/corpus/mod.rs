//! The synthetic tool-use corpus the bundled model is trained on.
//!
//! [`generate`] writes seeded conversations: a user asks, the assistant
//! calls tools (one, several at once, or two steps where the second uses the
//! first one's result), the tools really run (through a
//! [`Toolbox`](tool_use::Toolbox) of `#[tool]` functions, [`tools`]), and the
//! assistant answers with the results. Some requests need no tool, some need
//! a tool that is not offered, some make the tool fail; those are answered in
//! words. [`render`] turns an example into training text with the bundled
//! chat template, and the byte spans of the assistant's output (the only
//! text the loss is taken on); [`encode()`] turns it into token ids with that
//! loss mask. [`tokenizer`] trains the bundled tokenizer on the corpus.
//!
//! ```
//! use tool_train::corpus::{self, Split};
//!
//! let examples = corpus::generate(7, 3, Split::Train);
//! let template = corpus::bundled_template()?;
//! let (text, spans) = corpus::render(&template, &examples[0])?;
//! assert!(text.starts_with("<|im_start|>system\n"));
//! assert!(spans.iter().all(|s| text[s.clone()].ends_with("<|im_end|>")));
//! # Ok::<(), tool_train::corpus::CorpusError>(())
//! ```
//!
//! The corpus is regular on purpose (the model is small): arguments are
//! copied verbatim from the request, answers follow a few templates per
//! request kind, while requests vary (many phrasings, large value pools). The
//! held-out split uses other values and other phrasings.

mod encode;
pub mod phrasing;
mod practice;
mod rng;
mod scenarios;
mod schemas;
pub mod tokenizer;
pub mod tools;
mod transcript;
pub mod values;
mod vocabulary;
mod weights;
mod words;

pub use encode::{encode, encode_text, encode_weighted, Encoded};
pub use practice::Practice;
pub use schemas::{generate_schemas, SchemaCase};
pub use tokenizer::{train_tokenizer, TokenizerStats, SPECIAL_TOKENS};
pub use vocabulary::Vocabulary;
pub use weights::{byte_weights, LossWeights};

use crate::train::bpe::BpeError;
use rng::Rng;
use serde_json::Value;
use std::ops::Range;
use std::path::Path;
use tool_use::template::{ChatTemplate, ModelTemplates, RenderOptions, TemplateError};
use tool_use::{Message, ToolCall};

/// Which part of the corpus: the one trained on, or the one held out for
/// evaluation (other values, other phrasings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Split {
    /// Training data.
    Train,
    /// Evaluation data: values and request phrasings never trained on.
    HeldOut,
}

/// What kind of conversation an example is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scenario {
    /// One call, then the answer.
    Single,
    /// Several calls in one message, then the answer.
    Parallel,
    /// A call, then a call that uses its result, then the answer.
    Chain,
    /// A request answered with tools, then a second request.
    FollowUp,
    /// Three or four unrelated requests in a row, each answered with tools:
    /// every turn copies new values, with the earlier ones in sight.
    Session,
    /// The tool fails; the answer says why.
    ToolError,
    /// No tool could do it; answered in words, no call.
    OutOfScope,
    /// Greetings and thanks; answered in words, no call.
    SmallTalk,
    /// The needed tool is not offered; answered in words, no call.
    Unavailable,
    /// "What can you do?": the offered tools, named.
    Capabilities,
}

impl Scenario {
    /// Every scenario.
    pub const ALL: [Scenario; 10] = [
        Scenario::Single,
        Scenario::Parallel,
        Scenario::Chain,
        Scenario::FollowUp,
        Scenario::Session,
        Scenario::ToolError,
        Scenario::OutOfScope,
        Scenario::SmallTalk,
        Scenario::Unavailable,
        Scenario::Capabilities,
    ];

    /// Whether the assistant should answer without calling a tool.
    pub fn expects_no_call(self) -> bool {
        matches!(
            self,
            Scenario::OutOfScope
                | Scenario::SmallTalk
                | Scenario::Unavailable
                | Scenario::Capabilities
        )
    }
}

/// What a conversation of the extended held-out split tests
/// ([`generate_cases`]): each is written with texts and values that no
/// training conversation has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Case {
    /// A greeting; answered in words.
    Greeting,
    /// A question about the assistant ("Are you human?").
    AboutAssistant,
    /// A poem, a story, a joke: no tool writes them.
    CreativeWriting,
    /// Thanks or goodbye after a request was answered.
    ThanksAndBye,
    /// A request no tool covers that names places, times or numbers.
    NoToolForIt,
    /// A temperature with its unit named in other words ("in F", "(°C)").
    UnitNamed,
    /// A conversion asked target first, then back the other way.
    BothDirections,
    /// Numbers of five to seven digits, or decimals with four.
    ManyDigits,
    /// Terse, lower-case requests ("temp in Oslo?", "12+7").
    Terse,
}

impl Case {
    /// Every case, in the order [`generate_cases`] cycles through them.
    pub const ALL: [Case; 9] = [
        Case::Greeting,
        Case::AboutAssistant,
        Case::CreativeWriting,
        Case::ThanksAndBye,
        Case::NoToolForIt,
        Case::UnitNamed,
        Case::BothDirections,
        Case::ManyDigits,
        Case::Terse,
    ];
}

/// What one assistant message of an example must do.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// Its position in [`Example::messages`]; the messages before it are the
    /// prompt.
    pub index: usize,
    /// The calls it makes (empty: it answers in words).
    pub calls: Vec<ToolCall>,
    /// Texts an answer in words must contain: the tool results it reports
    /// (or the error message of a failed call).
    pub must_contain: Vec<String>,
}

/// One conversation of the corpus.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// The conversation, ending with the assistant's final answer.
    pub messages: Vec<Message>,
    /// The tools offered (transformers' definition format), in order.
    pub tools: Vec<Value>,
    /// What kind of conversation it is.
    pub scenario: Scenario,
    /// One entry per assistant message, in order.
    pub expectations: Vec<Expectation>,
    /// The split it was drawn from.
    pub split: Split,
    /// The case it tests, for conversations of [`generate_cases`].
    pub case: Option<Case>,
}

impl Example {
    /// The messages before expectation `e`: the prompt it is generated from.
    pub fn prompt(&self, e: &Expectation) -> &[Message] {
        &self.messages[..e.index.min(self.messages.len())]
    }

    /// The request expectation `e` answers: the last user message before it
    /// (empty if there is none).
    pub fn request(&self, e: &Expectation) -> &str {
        self.prompt(e)
            .iter()
            .rev()
            .find(|m| m.role == tool_use::Role::User)
            .map(|m| m.text())
            .unwrap_or_default()
    }

    /// Whether the offered tools are exactly the demo toolbox of `tool-use chat`.
    pub fn offers_demo_tools(&self) -> bool {
        self.tools == tool_use::demo::definitions()
    }
}

/// The corpus could not be rendered or its tokenizer trained.
#[derive(Debug)]
pub enum CorpusError {
    /// The chat template failed.
    Template(TemplateError),
    /// The template has no `{% generation %}` blocks, so no training mask.
    NoGenerationBlocks,
    /// Training or running the tokenizer failed.
    Tokenizer(BpeError),
    /// A token crosses the edge of an assistant span, so the loss mask
    /// would be ambiguous.
    TokenAcrossSpan {
        /// Where the token starts (bytes).
        start: usize,
        /// Where it ends.
        end: usize,
    },
}

impl std::fmt::Display for CorpusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CorpusError::Template(e) => {
                write!(f, "rendering an example with the chat template failed: {e}")
            }
            CorpusError::NoGenerationBlocks => write!(
                f,
                "the chat template marks no assistant output with {{% generation %}}; \
                 expected a template that does"
            ),
            CorpusError::Tokenizer(e) => write!(f, "the tokenizer failed: {e}"),
            CorpusError::TokenAcrossSpan { start, end } => write!(
                f,
                "a token covers bytes {start}..{end}, across the edge of an assistant span; \
                 expected tokens to start and end at span edges"
            ),
        }
    }
}

impl std::error::Error for CorpusError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CorpusError::Template(e) => Some(e),
            CorpusError::NoGenerationBlocks | CorpusError::TokenAcrossSpan { .. } => None,
            CorpusError::Tokenizer(e) => Some(e),
        }
    }
}

impl From<TemplateError> for CorpusError {
    fn from(e: TemplateError) -> CorpusError {
        CorpusError::Template(e)
    }
}

impl From<BpeError> for CorpusError {
    fn from(e: BpeError) -> CorpusError {
        CorpusError::Tokenizer(e)
    }
}

/// `count` examples of `split`, the same for the same seed. A longer corpus
/// starts with the shorter one: example `i` depends only on `seed`, `i` and
/// the split.
pub fn generate(seed: u64, count: usize, split: Split) -> Vec<Example> {
    generate_with(seed, count, split, Practice::Standard)
}

/// [`generate`] with `practice` added to the training split's
/// conversations (the held-out split is the same either way). Example `i`
/// still starts from the same seed, so it asks for the same things, but
/// its values and wording differ where the practice draws.
pub fn generate_with(seed: u64, count: usize, split: Split, practice: Practice) -> Vec<Example> {
    generate_range(seed, 0..count as u64, split, practice)
}

/// Conversations `range` of what [`generate_with`] draws for `seed`: each
/// conversation depends on its index alone, so ranges drawn apart (on
/// several threads, say) and joined are the whole.
pub fn generate_range(
    seed: u64,
    range: std::ops::Range<u64>,
    split: Split,
    practice: Practice,
) -> Vec<Example> {
    let salt = match split {
        Split::Train => 0,
        Split::HeldOut => 0x4845_4c44_4f55_5421,
    };
    let names: Vec<String> = tools::toolbox(Default::default())
        .names()
        .map(str::to_owned)
        .collect();
    range
        .map(|i| {
            // Drawn apart from both examples' streams: from the standard
            // one, so that the conversations that are not made-up-tool ones
            // stay as before; from the made-up one, which would otherwise
            // draw its kind from the number this choice was made with (a
            // draw below one half: the first two kinds, never a request
            // no tool covers).
            let made_up = practice.holds(Practice::Schemas, split)
                && Rng::for_example(seed ^ SCHEMA_SHARE_SALT, i).chance(SCHEMA_SHARE);
            if made_up {
                schemas::example(Rng::for_example(seed ^ salt ^ SCHEMA_SALT, i), split).0
            } else {
                scenarios::example(Rng::for_example(seed ^ salt, i), split, &names, practice)
            }
        })
        .collect()
}

/// Separates [`Practice::Schemas`]' draws from the standard ones.
const SCHEMA_SALT: u64 = 0x4d41_4445_5550;

/// Separates the choice of a made-up-tool conversation from both draws.
const SCHEMA_SHARE_SALT: u64 = 0x5348_4152_4553;

/// The share of [`Practice::Schemas`] conversations that use made-up tools.
const SCHEMA_SHARE: f64 = 0.5;

/// `count` conversations of the extended held-out split, cycling through
/// [`Case::ALL`], the same for the same seed. They use held-out values, and
/// texts written only for them, so that none is ever trained on.
pub fn generate_cases(seed: u64, count: usize) -> Vec<Example> {
    let names: Vec<String> = tools::toolbox(Default::default())
        .names()
        .map(str::to_owned)
        .collect();
    (0..count as u64)
        .map(|i| {
            let case = Case::ALL[(i % Case::ALL.len() as u64) as usize];
            scenarios::case_example(Rng::for_example(seed ^ 0x4341_5345_5321, i), case, &names)
        })
        .collect()
}

/// The example as training text, and the byte ranges of the text the
/// assistant writes (its content, calls and closing `<|im_end|>`).
pub fn render(
    template: &ChatTemplate,
    example: &Example,
) -> Result<(String, Vec<Range<usize>>), CorpusError> {
    if !template.has_generation_blocks() {
        return Err(CorpusError::NoGenerationBlocks);
    }
    let rendered = template.render(&RenderOptions::new(&example.messages).tools(&example.tools))?;
    Ok((rendered.text, rendered.generation))
}

/// The bundled model's `tokenizer_config.json` (chat template, special tokens).
pub const TOKENIZER_CONFIG: &str = tool_use_mini::TOKENIZER_CONFIG_JSON;

/// The bundled model's chat template, compiled.
pub fn bundled_template() -> Result<ChatTemplate, CorpusError> {
    let path = Path::new("models/tool-use-mini/tokenizer_config.json");
    let templates = ModelTemplates::from_tokenizer_config(TOKENIZER_CONFIG, path)?;
    Ok(ChatTemplate::new(templates.select(None, true)?)?)
}
