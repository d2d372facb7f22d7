//! A chat model without a model: each turn written by a function of the
//! request, or taken from a list. For testing an agent, a toolbox or an
//! evaluation where the model's answers must be known (as LangChain's fake
//! chat models serve).

use std::collections::VecDeque;

use tool_runtime::{Message, ToolChoice, ToolDefinition};

use super::{ChatModel, ModelDelta, Turn, TurnError, TurnRequest, TurnStats};
use crate::parse::Format;

/// What a [`ScriptedChat`] was asked in one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The conversation it was given.
    pub messages: Vec<Message>,
    /// The tools offered.
    pub tools: Vec<ToolDefinition>,
    /// The tool choice.
    pub tool_choice: ToolChoice,
}

impl Asked {
    /// The names of the tools offered.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(ToolDefinition::name).collect()
    }
}

/// What writes a [`ScriptedChat`]'s turns.
type Script = Box<dyn FnMut(&TurnRequest<'_>) -> Result<String, TurnError> + Send>;

/// A [`ChatModel`] whose turns are scripted: raw text in its [`Format`]
/// (tool-call markup included), parsed by the agent as a real model's
/// would be. It records every request ([`ScriptedChat::asked`]).
///
/// ```
/// use tool_models::agent::Agent;
/// use tool_models::chat::ScriptedChat;
/// use tool_models::parse::Format;
/// use tool_runtime::{Message, Toolbox};
///
/// let model = ScriptedChat::replies(Format::Hermes, [
///     r#"<tool_call>{"name": "nope", "arguments": {}}</tool_call>"#,
///     "Sorry, I have no such tool.",
/// ]);
/// let mut agent = Agent::new(model, Toolbox::new());
/// let run = agent.run(vec![Message::user("Hi")]).unwrap();
/// assert_eq!(run.answer, "Sorry, I have no such tool.");
/// assert_eq!(agent.model().asked().len(), 2);
/// ```
pub struct ScriptedChat {
    format: Format,
    script: Script,
    stats: TurnStats,
    name: Option<String>,
    asked: Vec<Asked>,
}

impl ScriptedChat {
    /// A model whose every turn `write` writes from the request.
    pub fn new(
        format: Format,
        mut write: impl FnMut(&TurnRequest<'_>) -> String + Send + 'static,
    ) -> ScriptedChat {
        ScriptedChat::fallible(format, move |request| Ok(write(request)))
    }

    /// A model whose turns `write` writes, or fails (as an engine may).
    pub fn fallible(
        format: Format,
        write: impl FnMut(&TurnRequest<'_>) -> Result<String, TurnError> + Send + 'static,
    ) -> ScriptedChat {
        ScriptedChat {
            format,
            script: Box::new(write),
            stats: TurnStats::default(),
            name: None,
            asked: Vec::new(),
        }
    }

    /// A model that writes `replies` in order, one a turn; asked once
    /// more, it fails saying the script has run out.
    pub fn replies<S: Into<String>>(
        format: Format,
        replies: impl IntoIterator<Item = S>,
    ) -> ScriptedChat {
        let mut left: VecDeque<String> = replies.into_iter().map(Into::into).collect();
        let total = left.len();
        ScriptedChat::fallible(format, move |_| {
            left.pop_front()
                .ok_or_else(|| format!("the script's {total} replies are all used").into())
        })
    }

    /// The token counts and timings every turn reports.
    pub fn stats(mut self, stats: TurnStats) -> ScriptedChat {
        self.stats = stats;
        self
    }

    /// The name the model gives for traces.
    pub fn name(mut self, name: impl Into<String>) -> ScriptedChat {
        self.name = Some(name.into());
        self
    }

    /// Every request so far, in order.
    pub fn asked(&self) -> &[Asked] {
        &self.asked
    }
}

impl std::fmt::Debug for ScriptedChat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedChat")
            .field("format", &self.format)
            .field("name", &self.name)
            .field("asked", &self.asked.len())
            .finish_non_exhaustive()
    }
}

impl ChatModel for ScriptedChat {
    fn format(&self) -> Format {
        self.format
    }

    fn respond(
        &mut self,
        request: &TurnRequest<'_>,
        out: &mut dyn FnMut(ModelDelta<'_>),
    ) -> Result<Turn, TurnError> {
        self.asked.push(Asked {
            messages: request.messages.to_vec(),
            tools: request.tools.to_vec(),
            tool_choice: request.tool_choice.clone(),
        });
        let text = (self.script)(request)?;
        out(ModelDelta::Text(&text));
        Ok(Turn {
            text,
            stats: self.stats,
        })
    }

    fn model_name(&self) -> Option<String> {
        self.name.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_come_in_order_then_the_script_says_it_ran_out() {
        let mut model = ScriptedChat::replies(Format::Hermes, ["one", "two"]);
        let messages = [Message::user("Hi")];
        let request = TurnRequest::new(&messages, &[], &ToolChoice::Auto);
        let mut written = String::new();
        for expected in ["one", "two"] {
            let turn = model
                .respond(&request, &mut |d| {
                    if let ModelDelta::Text(t) = d {
                        written.push_str(t);
                    }
                })
                .unwrap();
            assert_eq!(turn.text, expected);
        }
        assert_eq!(written, "onetwo");
        let e = model.respond(&request, &mut |_| {}).unwrap_err();
        assert_eq!(e.to_string(), "the script's 2 replies are all used");
        assert_eq!(model.asked().len(), 3);
        assert_eq!(model.asked()[0].messages, messages);
    }
}
