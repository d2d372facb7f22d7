//! A conversation in the crate's terms written as a Messages request, for
//! a client: the reverse of [`MessagesRequest::conversation`].

use serde_json::{Map, Value};
use tool_runtime::{
    DefinitionFormat, Message, Role as MessageRole, ToolCall, ToolChoice, ToolDefinition,
};

use super::{Content, ContentBlock, InputMessage, MessagesRequest, Role, Tool, ToolChoiceParam};

impl MessagesRequest {
    /// A request for `messages` with `tools` offered.
    ///
    /// - System messages, wherever they are, go into `system`, joined by a
    ///   blank line: the API has no system turns.
    /// - Consecutive messages of one side are one turn, as the API wants
    ///   turns to alternate: tool results and the user's text after them are
    ///   one user turn of `tool_result` and `text` blocks.
    /// - Assistant reasoning is left out: Anthropic takes back only the
    ///   `thinking` blocks it signed, and [`Message`] keeps no signature.
    /// - A call whose arguments are not an object (one the model wrote
    ///   unreadably, kept as text) is sent with `input: {}`, since the API
    ///   takes only objects; its result says what went wrong.
    /// - `parallel_tool_calls: false` is `disable_parallel_tool_use`.
    ///
    /// `model` is left unset and `stream` false, for the caller to fill in.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_models::wire::messages::{Content, MessagesRequest};
    /// use tool_runtime::{Message, ToolCall, ToolChoice};
    ///
    /// let messages = [
    ///     Message::system("Be brief."),
    ///     Message::user("Weather in Paris?"),
    ///     Message::assistant_calls(None, vec![ToolCall::new("toolu_1", "get_weather", json!({"city": "Paris"}))]),
    ///     Message::tool("toolu_1", "get_weather", "22"),
    /// ];
    /// let request = MessagesRequest::from_conversation(&messages, &[], &ToolChoice::Auto, true, 256);
    /// assert_eq!(request.system, Some(Content::Text("Be brief.".into())));
    /// let body = serde_json::to_value(&request)?;
    /// assert_eq!(body["messages"][2], json!({"role": "user", "content": [
    ///     {"type": "tool_result", "tool_use_id": "toolu_1", "content": "22"}]}));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn from_conversation(
        messages: &[Message],
        tools: &[ToolDefinition],
        tool_choice: &ToolChoice,
        parallel_tool_calls: bool,
        max_tokens: u64,
    ) -> MessagesRequest {
        let system: Vec<&str> = messages
            .iter()
            .filter(|m| m.role == MessageRole::System)
            .map(Message::text)
            .collect();
        let mut turns: Vec<(Role, Vec<ContentBlock>)> = Vec::new();
        for message in messages {
            let (role, blocks) = match message.role {
                MessageRole::System => continue,
                MessageRole::User => (Role::User, vec![text_block(message.text())]),
                MessageRole::Tool => (Role::User, vec![result_block(message)]),
                MessageRole::Assistant => (Role::Assistant, assistant_blocks(message)),
            };
            match turns.last_mut() {
                Some((last, held)) if *last == role => held.extend(blocks),
                _ => turns.push((role, blocks)),
            }
        }
        let offered = !tools.is_empty();
        MessagesRequest {
            model: None,
            max_tokens,
            system: (!system.is_empty()).then(|| Content::Text(system.join("\n\n"))),
            messages: turns
                .into_iter()
                .map(|(role, blocks)| InputMessage {
                    role,
                    content: compact(blocks),
                })
                .collect(),
            tools: tools
                .iter()
                .filter(|t| allowed(tool_choice, t))
                .map(tool)
                .collect(),
            tool_choice: offered.then(|| choice(&tool_choice.mode(), parallel_tool_calls)),
            stop_sequences: Vec::new(),
            temperature: None,
            top_p: None,
            top_k: None,
            stream: false,
            metadata: None,
        }
    }
}

fn text_block(text: &str) -> ContentBlock {
    ContentBlock::Text {
        text: text.to_owned(),
    }
}

fn result_block(message: &Message) -> ContentBlock {
    ContentBlock::ToolResult {
        tool_use_id: message.tool_call_id.clone().unwrap_or_default(),
        content: Some(Content::Text(message.text().to_owned())),
        is_error: None,
    }
}

fn assistant_blocks(message: &Message) -> Vec<ContentBlock> {
    let mut blocks = Vec::new();
    match &message.content {
        Some(text) if !text.is_empty() || message.tool_calls.is_empty() => {
            blocks.push(text_block(text));
        }
        None if message.tool_calls.is_empty() => blocks.push(text_block("")),
        _ => {}
    }
    blocks.extend(message.tool_calls.iter().map(tool_use));
    blocks
}

fn tool_use(call: &ToolCall) -> ContentBlock {
    let input = match &call.arguments {
        Value::Object(_) => call.arguments.clone(),
        // Arguments encoded twice are still an object.
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(object @ Value::Object(_)) => object,
            _ => Value::Object(Map::new()),
        },
        _ => Value::Object(Map::new()),
    };
    ContentBlock::ToolUse {
        id: call.id.clone(),
        name: call.name.clone(),
        input,
    }
}

/// One text block is sent as a plain string, as people write it.
fn compact(blocks: Vec<ContentBlock>) -> Content {
    match blocks.as_slice() {
        [ContentBlock::Text { text }] => Content::Text(text.clone()),
        _ => Content::Blocks(blocks),
    }
}

fn tool(definition: &ToolDefinition) -> Tool {
    Tool {
        name: definition.name().to_owned(),
        description: definition.description().map(str::to_owned),
        input_schema: DefinitionFormat::Anthropic.parameters(definition),
    }
}

/// Whether `tool` is offered under `choice`: Messages has no
/// `allowed_tools`, so an `Allowed` choice offers its tools only.
fn allowed(choice: &ToolChoice, tool: &ToolDefinition) -> bool {
    !matches!(choice, ToolChoice::Allowed { .. }) || choice.allows(tool.name())
}

/// `choice` without a list of tools (see [`ToolChoice::mode`]).
fn choice(choice: &ToolChoice, parallel: bool) -> ToolChoiceParam {
    let disable_parallel_tool_use = (!parallel).then_some(true);
    match choice {
        ToolChoice::Auto => ToolChoiceParam::Auto {
            disable_parallel_tool_use,
        },
        ToolChoice::Required => ToolChoiceParam::Any {
            disable_parallel_tool_use,
        },
        ToolChoice::Named(name) => ToolChoiceParam::Tool {
            name: name.clone(),
            disable_parallel_tool_use,
        },
        ToolChoice::None => ToolChoiceParam::None,
        // `mode()` leaves none; as `Auto` if one came anyway.
        ToolChoice::Allowed { .. } => ToolChoiceParam::Auto {
            disable_parallel_tool_use,
        },
    }
}
