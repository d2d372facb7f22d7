//! Between the Responses API's items and the crate's messages, both ways.

use serde_json::{json, Map, Value};
use tool_runtime::definition::check_schema;
use tool_runtime::{
    DefinitionFormat, Message, Role as MessageRole, ToolCall, ToolChoice, ToolDefinition,
};

use super::{
    Content, CreateResponse, FieldError, FunctionCall, FunctionCallOutput, Input, Item,
    MessageItem, Role, TextFormat, Tool, ToolChoiceMode, ToolChoiceParam,
};

/// A request in the crate's terms, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The whole conversation: the instructions as a system message, the
    /// continued response's conversation, then the input.
    pub messages: Vec<Message>,
    /// How many of `messages` come from `instructions` (0 or 1): what
    /// `previous_response_id` does not carry over.
    pub instructions: usize,
    /// The tools, checked: the request's, or the continued response's when
    /// the request has none.
    pub tools: Vec<ToolDefinition>,
    /// Whether and which tool must be called; met by `tools`.
    pub tool_choice: ToolChoice,
    /// The schema the answer must follow (`text.format`).
    pub answer_schema: Option<Value>,
}

impl CreateResponse {
    /// The request in the crate's terms, after `earlier` (the conversation
    /// of the response it continues) and with `earlier_tools` when it
    /// offers none itself. Numbers are checked too: `temperature` ≥ 0,
    /// `top_p` in (0, 1], `max_output_tokens` > 0.
    ///
    /// # Errors
    /// A [`FieldError`] naming the field at fault: a `function_call_output`
    /// whose call comes nowhere before it (`input[3].call_id`), a tool that
    /// is not a function (`tools[1].type`), a `tool_choice` the tools cannot
    /// meet, a schema that is not one, an empty conversation (`input`).
    pub fn asked(
        &self,
        earlier: &[Message],
        earlier_tools: &[ToolDefinition],
    ) -> Result<Asked, FieldError> {
        if self.temperature.is_some_and(|t| t < 0.0) {
            return Err(FieldError::new("temperature", "must be >= 0"));
        }
        if self.top_p.is_some_and(|p| !(p > 0.0 && p <= 1.0)) {
            return Err(FieldError::new("top_p", "must be in (0, 1]"));
        }
        if self.max_output_tokens == Some(0) {
            return Err(FieldError::new("max_output_tokens", "must be positive"));
        }
        let mut messages: Vec<Message> = self.instructions.iter().map(Message::system).collect();
        let instructions = messages.len();
        messages.extend_from_slice(earlier);
        messages.extend(self.input_messages(earlier)?);
        if messages.len() == instructions {
            return Err(FieldError::new(
                "input",
                "the conversation is empty: give at least one input item",
            ));
        }
        let tools = match self.tools.is_empty() {
            true => earlier_tools.to_vec(),
            false => self.tool_definitions()?,
        };
        let tool_choice = self.choice(&tools)?;
        Ok(Asked {
            messages,
            instructions,
            tools,
            tool_choice,
            answer_schema: self.answer_schema()?,
        })
    }

    /// `input` as messages (without the instructions); the calls that
    /// `function_call_output` items answer may be in `earlier`.
    ///
    /// # Errors
    /// As [`asked`](Self::asked), for `input`.
    pub fn input_messages(&self, earlier: &[Message]) -> Result<Vec<Message>, FieldError> {
        match &self.input {
            Input::Text(text) => Ok(vec![Message::user(text.clone())]),
            Input::Items(items) => messages_from_items(items, earlier, "input"),
        }
    }

    /// `tools` as checked definitions (the Chat Completions form that
    /// templates take).
    ///
    /// # Errors
    /// A tool that is not a function (`tools[i].type`), without a name
    /// (`tools[i].name`), with parameters that are not a schema or a name
    /// used twice (`tools[i]`).
    pub fn tool_definitions(&self) -> Result<Vec<ToolDefinition>, FieldError> {
        let mut chat_form = Vec::with_capacity(self.tools.len());
        for (i, tool) in self.tools.iter().enumerate() {
            if tool.kind != "function" {
                return Err(FieldError::new(
                    format!("tools[{i}].type"),
                    format!(
                        "only tools of type \"function\" are supported, found \"{}\"",
                        tool.kind
                    ),
                ));
            }
            let Some(name) = tool.name.as_deref().filter(|n| !n.trim().is_empty()) else {
                return Err(FieldError::new(
                    format!("tools[{i}].name"),
                    "a function tool needs a non-empty name",
                ));
            };
            let mut function = Map::new();
            function.insert("name".into(), Value::from(name));
            if let Some(description) = &tool.description {
                function.insert("description".into(), Value::from(description.as_str()));
            }
            if let Some(parameters) = &tool.parameters {
                function.insert("parameters".into(), parameters.clone());
            }
            if let Some(strict) = tool.strict {
                function.insert("strict".into(), Value::from(strict));
            }
            chat_form.push(json!({"type": "function", "function": function}));
        }
        ToolDefinition::list_from_json(&chat_form)
            .map_err(|e| FieldError::new(format!("tools[{}]", e.index), e.error))
    }

    /// `tool_choice` in the crate's terms, checked against `tools`.
    ///
    /// # Errors
    /// `tool_choice` naming a tool not offered, or requiring a call with no
    /// tools.
    pub fn choice(&self, tools: &[ToolDefinition]) -> Result<ToolChoice, FieldError> {
        let choice = match &self.tool_choice {
            None | Some(ToolChoiceParam::Mode(ToolChoiceMode::Auto)) => ToolChoice::Auto,
            Some(ToolChoiceParam::Mode(ToolChoiceMode::None)) => ToolChoice::None,
            Some(ToolChoiceParam::Mode(ToolChoiceMode::Required)) => ToolChoice::Required,
            Some(ToolChoiceParam::Function { name }) => ToolChoice::Named(name.clone()),
            Some(ToolChoiceParam::AllowedTools { mode, tools }) => ToolChoice::Allowed {
                tools: tools.clone(),
                required: *mode == ToolChoiceMode::Required,
            },
        };
        choice
            .check(tools)
            .map_err(|e| FieldError::new("tool_choice", e))?;
        Ok(choice)
    }

    /// The schema `text.format` asks answers to follow, checked.
    ///
    /// # Errors
    /// `text.format.schema` that is not a JSON schema.
    pub fn answer_schema(&self) -> Result<Option<Value>, FieldError> {
        match self.text.as_ref().and_then(|t| t.format.as_ref()) {
            None | Some(TextFormat::Text) => Ok(None),
            Some(TextFormat::JsonObject) => Ok(Some(json!({"type": "object"}))),
            Some(TextFormat::JsonSchema { schema, .. }) => {
                check_schema(schema).map_err(|e| {
                    FieldError::new("text.format.schema", format!("not a JSON schema: {e}"))
                })?;
                Ok(Some(schema.clone()))
            }
        }
    }

    /// A request for the next turn of `messages`, every message an input
    /// item (system messages included, so nothing depends on
    /// `instructions`). `tools` are in the Chat Completions form; keys the
    /// Responses API does not define are left out. Reasoning is not sent:
    /// OpenAI only takes back reasoning items it wrote (and encrypted).
    pub fn from_turn(
        model: &str,
        messages: &[Message],
        tools: &[ToolDefinition],
        tool_choice: &ToolChoice,
    ) -> CreateResponse {
        CreateResponse {
            model: Some(model.to_owned()),
            input: Input::Items(items_from_messages(messages)),
            tools: tools.iter().map(api_tool).collect(),
            tool_choice: (!tools.is_empty()).then(|| match tool_choice {
                ToolChoice::Auto => ToolChoiceParam::Mode(ToolChoiceMode::Auto),
                ToolChoice::None => ToolChoiceParam::Mode(ToolChoiceMode::None),
                ToolChoice::Required => ToolChoiceParam::Mode(ToolChoiceMode::Required),
                ToolChoice::Named(name) => ToolChoiceParam::Function { name: name.clone() },
                ToolChoice::Allowed { tools, required } => ToolChoiceParam::AllowedTools {
                    mode: if *required {
                        ToolChoiceMode::Required
                    } else {
                        ToolChoiceMode::Auto
                    },
                    tools: tools.clone(),
                },
            }),
            ..CreateResponse::default()
        }
    }
}

/// A Chat Completions definition as a Responses function tool.
fn api_tool(tool: &ToolDefinition) -> Tool {
    Tool {
        kind: "function".into(),
        name: Some(tool.name().to_owned()),
        description: tool.description().map(str::to_owned),
        parameters: (tool.parameters()).map(|_| DefinitionFormat::OpenAi.parameters(tool)),
        strict: tool["function"]["strict"].as_bool(),
    }
}

/// Items as messages: consecutive calls (and the assistant text and
/// reasoning before them) make one assistant message; a call's output
/// takes its call's name, found in `earlier` or the items before it.
/// Reasoning with no assistant turn after it is dropped.
///
/// # Errors
/// A `function_call_output` whose `call_id` no earlier call has, named as
/// `{path}[i].call_id`.
pub fn messages_from_items(
    items: &[Item],
    earlier: &[Message],
    path: &str,
) -> Result<Vec<Message>, FieldError> {
    let mut out: Vec<Message> = Vec::new();
    // Reasoning waits for the assistant turn it belongs to.
    let mut reasoning: Option<String> = None;
    for (i, item) in items.iter().enumerate() {
        match item {
            Item::Message(MessageItem { role, content, .. }) => {
                let text = content.text();
                if *role == Role::Assistant {
                    let mut message = Message::assistant(text);
                    message.reasoning = reasoning.take();
                    out.push(message);
                    continue;
                }
                reasoning = None;
                out.push(match role {
                    Role::User => Message::user(text),
                    _ => Message::system(text),
                });
            }
            Item::Reasoning(r) => {
                let text = r.text();
                if !text.is_empty() {
                    reasoning.get_or_insert_with(String::new).push_str(&text);
                }
            }
            Item::FunctionCall(call) => {
                let call =
                    ToolCall::from_text(call.call_id.clone(), call.name.clone(), &call.arguments);
                match out.last_mut() {
                    Some(last) if last.role == MessageRole::Assistant && reasoning.is_none() => {
                        last.tool_calls.push(call);
                    }
                    _ => {
                        let mut message = Message::assistant_calls(None, vec![call]);
                        message.reasoning = reasoning.take();
                        out.push(message);
                    }
                }
            }
            Item::FunctionCallOutput(FunctionCallOutput {
                call_id, output, ..
            }) => {
                reasoning = None;
                let name = earlier
                    .iter()
                    .chain(out.iter())
                    .rev()
                    .flat_map(|m| m.tool_calls.iter())
                    .find(|c| c.id == *call_id)
                    .map(|c| c.name.clone())
                    .ok_or_else(|| {
                        FieldError::new(
                            format!("{path}[{i}].call_id"),
                            format!(
                                "no function_call with call_id \"{call_id}\" comes before this output{}",
                                if earlier.is_empty() { "" } else { " (in the input or the previous response)" }
                            ),
                        )
                    })?;
                out.push(Message::tool(call_id.clone(), name, output.text()));
            }
        }
    }
    Ok(out)
}

/// Messages as input items: an assistant turn is its text (a message item)
/// then its calls (`function_call` items); a tool's result is a
/// `function_call_output`. Reasoning is left out (see
/// [`CreateResponse::from_turn`]).
pub fn items_from_messages(messages: &[Message]) -> Vec<Item> {
    let mut items = Vec::new();
    for message in messages {
        let text = |role| {
            Item::Message(MessageItem {
                id: None,
                role,
                content: Content::Text(message.text().to_owned()),
                status: None,
            })
        };
        match message.role {
            MessageRole::System => items.push(text(Role::System)),
            MessageRole::User => items.push(text(Role::User)),
            MessageRole::Assistant => {
                if message.content.is_some() || message.tool_calls.is_empty() {
                    items.push(text(Role::Assistant));
                }
                items.extend(message.tool_calls.iter().map(|call| {
                    Item::FunctionCall(FunctionCall {
                        id: None,
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments_text(),
                        status: None,
                    })
                }));
            }
            MessageRole::Tool => items.push(Item::FunctionCallOutput(FunctionCallOutput {
                id: None,
                call_id: message.tool_call_id.clone().unwrap_or_default(),
                output: Content::Text(message.text().to_owned()),
                status: None,
            })),
        }
    }
    items
}
