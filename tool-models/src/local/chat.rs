//! [`LocalChat`]: a local model as a [`ChatModel`], with its own chat
//! template, its own tool-call format, and constrained decoding of the calls.

use crate::setters::setters;
use serde_json::Value;

use super::recent::RecentTurns;
use crate::chat::{ChatModel, ModelDelta, Turn, TurnRequest};
use crate::constrain::ground;
use crate::constrain::{ConstrainError, TokenEnv, ToolConstraint};
use crate::generate::{GenerateError, GenerateOptions, Generation, Session, TokenConstraint};
use crate::model::{Model, ModelError};
use crate::parse::{generic, Format};
use crate::template::{RenderOptions, TemplateError};
use std::borrow::Cow;
use std::sync::Arc;
use tool_runtime::{Message, Role, ToolDefinition};

/// Why a local model cannot drive the agent.
#[derive(Debug, thiserror::Error)]
pub enum LocalChatError {
    /// The model has no chat template to render the conversation with.
    #[error("the model at {0} has no chat template (expected `chat_template` in tokenizer_config.json, a chat_template.jinja, or `tokenizer.chat_template` in the GGUF)")]
    NoTemplate(String),
    /// The template does not show which tool-call format the model writes.
    #[error("cannot tell the model's tool-call format from its chat template; name one of: {0}")]
    UnknownFormat(String),
    /// Building the constraint failed (a tool's schema, `tool_choice`).
    #[error(transparent)]
    Constrain(#[from] ConstrainError),
    /// The template refused or failed to render the conversation.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// Tokenising the prompt or decoding the output failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The prompt does not fit, or generation failed.
    #[error(transparent)]
    Generate(#[from] GenerateError),
}

/// A turn rendered, tokenised and checked against the context, with its
/// constraint built: what can fail because of the request has failed.
pub struct PreparedTurn {
    prompt: String,
    tokens: Vec<u32>,
    constraint: Option<Box<dyn TokenConstraint>>,
}

impl std::fmt::Debug for PreparedTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedTurn")
            .field("prompt", &self.prompt)
            .field("tokens", &self.tokens.len())
            .field("constrained", &self.constraint.is_some())
            .finish()
    }
}

impl PreparedTurn {
    /// The rendered prompt.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// Tokens in the prompt.
    pub fn prompt_tokens(&self) -> usize {
        self.tokens.len()
    }

    /// The prompt's tokens.
    #[cfg_attr(not(feature = "server"), allow(dead_code))] // The server's batch uses it.
    pub(crate) fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// Whether the output is constrained (calls to the tools' schemas, or
    /// the answer to its schema).
    pub fn is_constrained(&self) -> bool {
        self.constraint.is_some()
    }
}

/// A [`Model`] wrapped for [`Agent`](crate::agent::Agent): the model, shared,
/// and this chat's own [`Session`] on it, so that several chats (agents on
/// several threads, say) run on one loaded model, each with its own KV
/// caches.
pub struct LocalChat {
    session: Session,
    special_tokens: std::collections::BTreeMap<String, String>,
    format: Format,
    options: GenerateOptions,
    constrain: bool,
    ground: bool,
    schema: Option<Value>,
    /// Recent turns' tokens, for prompts that continue them.
    recent: RecentTurns,
    /// In the generic format: whether the tools are listed in the prompt
    /// too (the template does not show them).
    generic_lists_tools: bool,
}

/// `messages` with `prompt` added to their system message (after its text),
/// or in a new one first, as llama.cpp adds the generic format's.
fn with_system(messages: &[Message], prompt: &str) -> Vec<Message> {
    let mut out = messages.to_vec();
    match out.first_mut() {
        Some(first) if first.role == Role::System => {
            *first = Message::system(format!("{}\n\n{prompt}", first.text()));
        }
        _ => out.insert(0, Message::system(prompt)),
    }
    out
}

/// `messages` with `prompt` before the first user message's text.
fn in_first_user_message(messages: &[Message], prompt: &str) -> Vec<Message> {
    let mut out = messages.to_vec();
    if let Some(first) = out.iter_mut().find(|m| m.role == Role::User) {
        *first = Message::user(format!("{prompt}\n\n{}", first.text()));
    }
    out
}

/// The template's special tokens (`bos_token`…), for renders.
fn special_tokens(model: &Model) -> std::collections::BTreeMap<String, String> {
    model
        .templates()
        .map(|t| t.special_tokens.clone())
        .unwrap_or_default()
}

impl LocalChat {
    /// Wraps `model`, with greedy decoding of up to 512 tokens a turn and
    /// constrained tool calls where the format supports it. A model whose
    /// template shows no tools gets the generic tool prompt and answers in
    /// the generic JSON format (see [`generic`](crate::parse::generic)).
    pub fn new(model: impl Into<Arc<Model>>) -> Result<LocalChat, LocalChatError> {
        let model = model.into();
        let Some(template) = model.chat_template() else {
            return Err(LocalChatError::NoTemplate(
                model.path().display().to_string(),
            ));
        };
        match model.tool_format() {
            Some(format) => Ok(LocalChat::build(model, format, false)),
            None if !template.shows_tools(&special_tokens(&model)) => {
                Ok(LocalChat::build(model, Format::Generic, true))
            }
            None => Err(LocalChatError::UnknownFormat(Format::ids().join(", "))),
        }
    }

    /// [`LocalChat::new`] for a model whose template does not show its
    /// tool-call format (one that ignores tools, say): its calls are read,
    /// and constrained, in `format`.
    pub fn in_format(
        model: impl Into<Arc<Model>>,
        format: Format,
    ) -> Result<LocalChat, LocalChatError> {
        let model = model.into();
        let Some(template) = model.chat_template() else {
            return Err(LocalChatError::NoTemplate(
                model.path().display().to_string(),
            ));
        };
        let lists_tools =
            format == Format::Generic && !template.shows_tools(&special_tokens(&model));
        Ok(LocalChat::build(model, format, lists_tools))
    }

    /// A chat whose template is there, in `format`; `generic_lists_tools`
    /// as the caller found it (rendering the probe once).
    fn build(model: Arc<Model>, format: Format, generic_lists_tools: bool) -> LocalChat {
        let special_tokens = special_tokens(&model);
        LocalChat {
            session: Session::new(model),
            special_tokens,
            format,
            options: GenerateOptions::greedy(512),
            constrain: true,
            ground: true,
            schema: None,
            recent: RecentTurns::default(),
            generic_lists_tools,
        }
    }

    /// Whether the model is shown its tools by the generic tool prompt,
    /// its template showing none.
    pub fn lists_tools_itself(&self) -> bool {
        self.generic_lists_tools
    }

    setters! {
        /// Overrides the tool-call format read from the template.
        tool_format(format: Format) => format;
        /// How each turn is generated.
        options(options: GenerateOptions) => options;
        /// Whether tool calls are constrained to the tools' schemas (on by
        /// default; formats without a grammar run unconstrained either way).
        constrain(on: bool) => constrain;
        /// Whether grounded parameters (`"x-grounded": true`, from
        /// `#[arg(grounded)]`) only take runs of words of the user's messages
        /// (on by default; applies to constrained calls). See
        /// [`ground`](crate::constrain::ground).
        ground(on: bool) => ground;
        /// Constrains answers without calls to JSON valid against `schema`
        /// (structured output); applies to turns where no tool is offered.
        answer_schema(schema: Option<Value>) => schema;
    }

    /// Whether calls in this model's format can be constrained.
    pub fn can_constrain(&self) -> bool {
        ToolConstraint::supports(self.format)
    }

    /// The model.
    pub fn model(&self) -> &Arc<Model> {
        self.session.model()
    }

    /// The session the chat generates in: its KV caches and budget.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session, to generate in it directly or set its
    /// [KV budget](Session::set_kv_budget).
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    fn token_env(&self) -> Result<TokenEnv, ConstrainError> {
        TokenEnv::of_model(self.session.model())
    }

    fn constraint(
        &mut self,
        request: &TurnRequest<'_>,
        answer_schema: Option<&Value>,
    ) -> Result<Option<Box<dyn TokenConstraint>>, ConstrainError> {
        if !self.constrain {
            return Ok(None);
        }
        let tools: Cow<'_, [ToolDefinition]> =
            if self.ground && ToolDefinition::any_grounded(request.tools) {
                let of = |role: Role| -> Vec<&str> {
                    request
                        .messages
                        .iter()
                        .filter(|m| m.role == role)
                        .map(Message::text)
                        .collect()
                };
                Cow::Owned(ground::ground(
                    request.tools,
                    &of(Role::User),
                    &of(Role::Tool),
                ))
            } else {
                ToolDefinition::strip_grounding(request.tools)
            };
        let (tools, choice) = (tools.as_ref(), request.tool_choice);
        if tools.is_empty() {
            return match answer_schema {
                Some(schema) => {
                    let env = self.token_env()?;
                    Ok(Some(Box::new(crate::constrain::JsonConstraint::new(
                        &env, schema,
                    )?)))
                }
                None => Ok(None),
            };
        }
        if !self.can_constrain() {
            return Ok(None);
        }
        let env = self.token_env()?;
        Ok(Some(Box::new(ToolConstraint::new(
            &env,
            self.format,
            tools,
            choice,
        )?)))
    }
}

impl LocalChat {
    /// Tokenises a prompt, keeping the tokens of the recent turn it
    /// continues (see [`RecentTurns`]).
    fn encode_prompt(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        self.recent.encode(self.session.model().tokenizer(), text)
    }
}

impl LocalChat {
    /// Renders `request` with the model's template, tokenises it (reusing
    /// the previous turn's tokens where the prompt extends it), checks it
    /// fits the context, and builds the constraint: calls to the offered
    /// tools under the request's `tool_choice`, or, when no tool is
    /// offered, an answer valid against `answer_schema`.
    pub fn prepare(
        &mut self,
        request: &TurnRequest<'_>,
        answer_schema: Option<&Value>,
    ) -> Result<PreparedTurn, LocalChatError> {
        let prompt = self.render(request)?;
        let tokens = self.encode_prompt(&prompt)?;
        self.session.check_prompt(&tokens)?;
        let constraint = self.constraint(request, answer_schema)?;
        Ok(PreparedTurn {
            prompt,
            tokens,
            constraint,
        })
    }

    /// `request` rendered with the model's chat template.
    fn render(&self, request: &TurnRequest<'_>) -> Result<String, LocalChatError> {
        // The model is shown the definitions as they would be without grounding.
        let shown = ToolDefinition::strip_grounding(request.tools);
        let model = self.session.model();
        let template = (model.chat_template())
            .ok_or_else(|| LocalChatError::NoTemplate(model.path().display().to_string()))?;
        let render = |messages: &[Message]| {
            let options = RenderOptions::new(messages)
                .definitions(&shown)
                .add_generation_prompt(true)
                .special_tokens(&self.special_tokens);
            template.render(&options).map(|r| r.text)
        };
        if self.format != Format::Generic {
            return Ok(render(request.messages)?);
        }
        // Calls and results written as the JSON the model reads and writes:
        // a template that shows no tools knows neither.
        let messages = generic::as_text(request.messages);
        if shown.is_empty() {
            return Ok(render(&messages)?);
        }
        // The generic tool prompt (the same every round, for the cache, even
        // when the round must answer), in the system message; in the first
        // user message where the template takes no system message.
        let prompt = generic::system_prompt(
            shown.iter().map(ToolDefinition::as_json),
            self.generic_lists_tools,
        );
        match render(&with_system(&messages, &prompt)) {
            Ok(text) => Ok(text),
            Err(_) => Ok(render(&in_first_user_message(&messages, &prompt))?),
        }
    }

    /// Generates the turn `prepare` made ready, with `options` (this
    /// chat's own [`options`](LocalChat::options) are for the agent's turns).
    pub fn generate(
        &mut self,
        turn: PreparedTurn,
        options: &GenerateOptions,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, LocalChatError> {
        let PreparedTurn {
            prompt,
            tokens,
            mut constraint,
        } = turn;
        let generation = self.session.generate(
            &tokens,
            options,
            match constraint.as_mut() {
                Some(c) => Some(c.as_mut()),
                None => None,
            },
            on_text,
        )?;
        self.remember(prompt, tokens, &generation.tokens)?;
        Ok(generation)
    }
}

impl LocalChat {
    /// Keeps a turn generated outside [`generate`](Self::generate) (the
    /// server's batch) among the recent turns whose tokens a prompt that
    /// continues it reuses.
    pub(crate) fn remember(
        &mut self,
        prompt: String,
        mut tokens: Vec<u32>,
        generated: &[u32],
    ) -> Result<(), ModelError> {
        let mut text = prompt;
        text.push_str(&self.session.model().tokenizer().decode(generated)?);
        tokens.extend_from_slice(generated);
        self.recent.push(text, tokens);
        Ok(())
    }
}

impl PreparedTurn {
    /// The rendered prompt, its tokens and its constraint.
    #[cfg_attr(not(feature = "server"), allow(dead_code))] // The server's batch uses it.
    pub(crate) fn into_parts(self) -> (String, Vec<u32>, Option<Box<dyn TokenConstraint>>) {
        (self.prompt, self.tokens, self.constraint)
    }
}

impl ChatModel for LocalChat {
    /// The model's file or directory name.
    fn model_name(&self) -> Option<String> {
        let path = self.model().path();
        Some(path.file_name()?.to_string_lossy().into_owned())
    }

    fn format(&self) -> Format {
        self.format
    }

    fn prompt(&self, request: &TurnRequest<'_>) -> Option<String> {
        self.render(request).ok()
    }

    fn respond(
        &mut self,
        request: &TurnRequest<'_>,
        out: &mut dyn FnMut(ModelDelta<'_>),
    ) -> Result<Turn, crate::chat::TurnError> {
        let schema = self.schema.clone();
        let turn = self.prepare(request, schema.as_ref())?;
        let mut options = self.options.clone();
        // The run's token stops the turn, and so does the model's own.
        options.cancel = match (&options.cancel, request.cancel) {
            (Some(own), Some(run)) => Some(own.or(run)),
            (own, run) => run.or(own.as_ref()).cloned(),
        };
        let generation = self.generate(turn, &options, &mut |text| out(ModelDelta::Text(text)))?;
        Ok(Turn {
            text: generation.text,
            stats: generation.stats,
        })
    }
}
