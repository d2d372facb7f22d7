//! A Messages request read and put in the crate's terms: the conversation
//! as [`Message`]s, checked tool definitions, and the tool choice.

use std::collections::HashMap;

use serde_json::{json, Value};
use tool_runtime::{DefinitionError, Message, ToolCall, ToolChoice, ToolDefinition, UnmetChoice};

use super::{Content, ContentBlock, MessagesRequest, Role, ToolChoiceParam};
use crate::wire::{read_value, FieldError};

/// What a request asks the model, in the crate's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    /// `system` first (when there is one), then each turn: a user turn's
    /// `tool_result` blocks become [`Message::tool`]s, its text a user
    /// message; an assistant turn is one message with its text, its
    /// reasoning (`thinking`) and its calls (`tool_use`, ids kept).
    pub messages: Vec<Message>,
    /// The tools, checked, in OpenAI's form.
    pub tools: Vec<ToolDefinition>,
    /// `auto` → `Auto`, `any` → `Required`, `tool` → `Named`, `none` → `None`.
    pub tool_choice: ToolChoice,
    /// `false` with `disable_parallel_tool_use`: at most one call.
    pub parallel_tool_calls: bool,
}

/// What a `tool_result` with `is_error: true` reads as: its text after this
/// prefix, since [`Message`] has no flag for it and every chat template
/// shows the text.
pub const ERROR_PREFIX: &str = "Error: ";

/// The block types a turn may hold (images, documents and server tools'
/// blocks are not taken).
const TURN_BLOCKS: &[&str] = &[
    "text",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
];

impl MessagesRequest {
    /// Reads a request body, checked: `max_tokens` at least 1,
    /// `temperature` in [0, 1], `top_p` in (0, 1], at least one turn, no
    /// block of a type this crate does not take.
    ///
    /// # Errors
    /// A [`FieldError`] naming the field at fault
    /// (`messages[1].content[0].type`).
    ///
    /// ```
    /// use tool_models::wire::messages::MessagesRequest;
    ///
    /// let e = MessagesRequest::read(br#"{"messages": [{"role": "user", "content": "Hi"}]}"#)
    ///     .unwrap_err();
    /// assert_eq!(e.path, "max_tokens");
    /// let e = MessagesRequest::read(br#"{"max_tokens": 64, "messages": [{"role": "user",
    ///     "content": [{"type": "image", "source": {}}]}]}"#).unwrap_err();
    /// assert_eq!(e.path, "messages[0].content[0].type");
    /// assert!(e.message.contains("`image`"), "{}", e.message);
    /// ```
    pub fn read(body: &[u8]) -> Result<MessagesRequest, FieldError> {
        let value: Value = crate::wire::read(body)?;
        check_block_types(&value)?;
        let request: MessagesRequest = read_value(value)?;
        request.check()?;
        Ok(request)
    }

    fn check(&self) -> Result<(), FieldError> {
        if self.max_tokens == 0 {
            return Err(FieldError::new("max_tokens", "must be at least 1, found 0"));
        }
        if self.messages.is_empty() {
            return Err(FieldError::new("messages", "must hold at least one turn"));
        }
        if let Some(t) = self.temperature.filter(|t| !(0.0..=1.0).contains(t)) {
            return Err(FieldError::new(
                "temperature",
                format!("must be between 0 and 1, found {t}"),
            ));
        }
        if let Some(p) = self.top_p.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
            return Err(FieldError::new(
                "top_p",
                format!("must be in (0, 1], found {p}"),
            ));
        }
        if let Some(i) = self.stop_sequences.iter().position(|s| s.is_empty()) {
            // An empty stop sequence would end every answer before it starts.
            return Err(FieldError::new(
                format!("stop_sequences[{i}]"),
                "must not be empty",
            ));
        }
        Ok(())
    }

    /// The request in the crate's terms.
    ///
    /// # Errors
    /// A [`FieldError`] naming the field at fault: a `tool_result` whose
    /// `tool_use_id` no earlier `tool_use` has, a block in the wrong turn
    /// (`tool_use` from the user), a tool whose `input_schema` is not a
    /// schema, a `tool_choice` the tools cannot meet.
    pub fn conversation(&self) -> Result<Conversation, FieldError> {
        let mut messages = Vec::new();
        if let Some(system) = &self.system {
            messages.push(Message::system(system.text()));
        }
        // Each call's tool, by id, for the results that answer it.
        let mut calls: HashMap<String, String> = HashMap::new();
        for (i, turn) in self.messages.iter().enumerate() {
            let path = format!("messages[{i}].content");
            match turn.role {
                Role::User => user_turn(&turn.content, &path, &calls, &mut messages)?,
                Role::Assistant => {
                    let message = assistant_turn(&turn.content, &path, &calls)?;
                    for call in &message.tool_calls {
                        calls.insert(call.id.clone(), call.name.clone());
                    }
                    messages.push(message);
                }
            }
        }
        let tools = self.definitions()?;
        let (tool_choice, parallel_tool_calls) = self.choice(&tools)?;
        Ok(Conversation {
            messages,
            tools,
            tool_choice,
            parallel_tool_calls,
        })
    }

    fn definitions(&self) -> Result<Vec<ToolDefinition>, FieldError> {
        let openai: Vec<Value> = self
            .tools
            .iter()
            .map(|tool| {
                let mut function = json!({"name": tool.name, "parameters": tool.input_schema});
                if let Some(description) = &tool.description {
                    function["description"] = Value::from(description.as_str());
                }
                json!({"type": "function", "function": function})
            })
            .collect();
        ToolDefinition::list_from_json(&openai).map_err(|e| {
            let field = match e.error {
                DefinitionError::Parameters { .. } => ".input_schema",
                DefinitionError::Name(_) | DefinitionError::Duplicate(_) => ".name",
                _ => "",
            };
            FieldError::new(format!("tools[{}]{field}", e.index), e.error)
        })
    }

    fn choice(&self, tools: &[ToolDefinition]) -> Result<(ToolChoice, bool), FieldError> {
        let (choice, disable) = match &self.tool_choice {
            None => (ToolChoice::Auto, None),
            Some(ToolChoiceParam::Auto {
                disable_parallel_tool_use,
            }) => (ToolChoice::Auto, *disable_parallel_tool_use),
            Some(ToolChoiceParam::Any {
                disable_parallel_tool_use,
            }) => (ToolChoice::Required, *disable_parallel_tool_use),
            Some(ToolChoiceParam::Tool {
                name,
                disable_parallel_tool_use,
            }) => (ToolChoice::Named(name.clone()), *disable_parallel_tool_use),
            Some(ToolChoiceParam::None) => (ToolChoice::None, None),
        };
        choice.check(tools).map_err(|e| {
            let field = match e {
                UnmetChoice::UnknownTool(_) => "tool_choice.name",
                _ => "tool_choice",
            };
            FieldError::new(field, e)
        })?;
        Ok((choice, !disable.unwrap_or(false)))
    }
}

/// A user turn: its text as user messages, its results as tool messages,
/// in the order given.
fn user_turn(
    content: &Content,
    path: &str,
    calls: &HashMap<String, String>,
    out: &mut Vec<Message>,
) -> Result<(), FieldError> {
    let blocks = match content {
        Content::Text(text) => {
            out.push(Message::user(text.as_str()));
            return Ok(());
        }
        Content::Blocks(blocks) => blocks,
    };
    let mut text: Option<String> = None;
    for (j, block) in blocks.iter().enumerate() {
        match block {
            ContentBlock::Text { text: t } => text.get_or_insert_with(String::new).push_str(t),
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                if let Some(text) = text.take() {
                    out.push(Message::user(text));
                }
                let Some(name) = calls.get(tool_use_id) else {
                    return Err(FieldError::new(
                        format!("{path}[{j}].tool_use_id"),
                        format!("no earlier tool_use block has the id `{tool_use_id}`"),
                    ));
                };
                let result = content.as_ref().map(Content::text).unwrap_or_default();
                let result = if *is_error == Some(true) {
                    format!("{ERROR_PREFIX}{result}")
                } else {
                    result
                };
                out.push(Message::tool(tool_use_id.as_str(), name.as_str(), result));
            }
            other => return Err(misplaced(other, &format!("{path}[{j}]"), "a user")),
        }
    }
    if let Some(text) = text {
        out.push(Message::user(text));
    } else if blocks.is_empty() {
        out.push(Message::user(""));
    }
    Ok(())
}

/// An assistant turn: one message with its text, reasoning and calls.
fn assistant_turn(
    content: &Content,
    path: &str,
    earlier: &HashMap<String, String>,
) -> Result<Message, FieldError> {
    let blocks = match content {
        Content::Text(text) => return Ok(Message::assistant(text.as_str())),
        Content::Blocks(blocks) => blocks,
    };
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut calls: Vec<ToolCall> = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        match block {
            ContentBlock::Text { text: t } => text.push_str(t),
            ContentBlock::Thinking { thinking, .. } => reasoning.push_str(thinking),
            ContentBlock::RedactedThinking { .. } => {}
            ContentBlock::ToolUse { id, name, input } => {
                if !input.is_object() {
                    return Err(FieldError::new(
                        format!("{path}[{j}].input"),
                        format!(
                            "must be a JSON object, found {}",
                            tool_runtime::json_kind(input)
                        ),
                    ));
                }
                if earlier.contains_key(id) || calls.iter().any(|c| &c.id == id) {
                    return Err(FieldError::new(
                        format!("{path}[{j}].id"),
                        format!("the id `{id}` is already used by an earlier tool_use block"),
                    ));
                }
                calls.push(ToolCall::new(id.as_str(), name.as_str(), input.clone()));
            }
            other => return Err(misplaced(other, &format!("{path}[{j}]"), "an assistant")),
        }
    }
    let content = if text.is_empty() && !calls.is_empty() {
        None
    } else {
        Some(text)
    };
    let mut message = Message::assistant_calls(content, calls);
    message.reasoning = (!reasoning.is_empty()).then_some(reasoning);
    Ok(message)
}

/// A block in a turn that cannot hold it.
fn misplaced(block: &ContentBlock, path: &str, turn: &str) -> FieldError {
    let kind = match block {
        ContentBlock::Text { .. } => "text",
        ContentBlock::ToolUse { .. } => "tool_use",
        ContentBlock::ToolResult { .. } => "tool_result",
        ContentBlock::Thinking { .. } => "thinking",
        ContentBlock::RedactedThinking { .. } => "redacted_thinking",
        ContentBlock::Unsupported => {
            return FieldError::new(format!("{path}.type"), "this block type is not supported")
        }
    };
    FieldError::new(
        format!("{path}.type"),
        format!("`{kind}` blocks cannot be in {turn} turn"),
    )
}

/// Names a refused block type by its path, before the typed read would
/// call it "unknown variant" one level up.
fn check_block_types(body: &Value) -> Result<(), FieldError> {
    let array = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
    for (j, block) in array(body.get("system")).iter().enumerate() {
        check_block(block, &format!("system[{j}]"), &["text"])?;
    }
    for (i, turn) in array(body.get("messages")).iter().enumerate() {
        for (j, block) in array(turn.get("content")).iter().enumerate() {
            let path = format!("messages[{i}].content[{j}]");
            check_block(block, &path, TURN_BLOCKS)?;
            for (k, inner) in array(block.get("content")).iter().enumerate() {
                check_block(inner, &format!("{path}.content[{k}]"), &["text"])?;
            }
        }
    }
    for (i, tool) in array(body.get("tools")).iter().enumerate() {
        match tool.get("type") {
            None | Some(Value::Null) => {}
            Some(Value::String(kind)) if kind == "custom" => {}
            Some(kind) => {
                return Err(FieldError::new(
                    format!("tools[{i}].type"),
                    format!(
                        "{kind} tools are not supported: this server runs no tools of its own, \
                         it takes custom tools (name, description, input_schema)"
                    ),
                ))
            }
        }
    }
    Ok(())
}

fn check_block(block: &Value, path: &str, taken: &[&str]) -> Result<(), FieldError> {
    match block.get("type").and_then(Value::as_str) {
        Some(kind) if !taken.contains(&kind) => Err(FieldError::new(
            format!("{path}.type"),
            format!(
                "`{kind}` blocks are not supported here; this server takes {}",
                taken
                    .iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
        _ => Ok(()),
    }
}
