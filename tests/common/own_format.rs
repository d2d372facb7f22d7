//! A model family's own tool format end to end, on a tiny random model
//! given a template of the format: the format is told from the template,
//! the agent's call is constrained to it, read back with the tool's types
//! and run, its result is rendered for the next round, and the call as the
//! template writes it back parses to the same call.

use tool_use::agent::AgentError;
use tool_use::generate::GenerateOptions;
use tool_use::model::tiny::{write_tiny_model, TinySpec};
use tool_use::parse::{Format, ParseOptions};
use tool_use::template::{ChatTemplate, RenderOptions};
use tool_use::ToolChoice;
use tool_use::{
    tool, toolbox, Agent, ChatModel, DefinitionFormat, LocalChat, Message, Model, Role,
};

/// Convert an amount between currencies.
///
/// Args:
///     amount: The amount to convert
///     from: The currency to convert from (choices: ["EUR", "USD", "JPY"])
///     to: The currency to convert to (choices: ["EUR", "USD", "JPY"])
///     rounded: Whether to round to whole units
#[tool]
pub fn convert_currency(amount: f64, from: String, to: String, rounded: bool) -> String {
    format!("{amount} {from} in {to} (rounded: {rounded})")
}

/// `template`'s prompt for a question, a call of `get_weather` with
/// `arguments` and its result `"sunny"` (after `system`, if any), offering
/// one `get_weather` tool: what a documented format is pinned by.
#[allow(dead_code)] // FunctionGemma's test pins its declarations instead.
pub fn render_sample(
    template: &str,
    system: Option<&str>,
    arguments: serde_json::Value,
) -> (String, serde_json::Value) {
    let tool = serde_json::json!({"type": "function", "function": {"name": "get_weather", "parameters": {}}});
    let call = tool_use::ToolCall::new("call_0", "get_weather", arguments);
    let messages: Vec<Message> = (system.map(Message::system).into_iter())
        .chain([
            Message::user("Weather in Paris?"),
            Message::assistant_calls(None, vec![call]),
            Message::tool("call_0", "get_weather", "sunny"),
        ])
        .collect();
    let text = ChatTemplate::new(template)
        .unwrap()
        .render(
            &RenderOptions::new(&messages)
                .tools(std::slice::from_ref(&tool))
                .add_generation_prompt(true),
        )
        .unwrap()
        .text;
    (text, tool)
}

/// A format, its template, and where its calls and results sit in a prompt.
pub struct OwnFormat {
    pub format: Format,
    pub template: &'static str,
    /// The tiny model (at a seed) the template is given to.
    pub spec: fn(u64) -> TinySpec,
    /// How a prompt ends after the tool's result (given as it reads).
    pub after_result: fn(&str) -> String,
    /// The first call of the prompt, as the template wrote it.
    pub written_call: fn(&str) -> String,
}

impl OwnFormat {
    /// The round trip for each of `seeds`.
    pub fn assert_round_trip(&self, seeds: std::ops::Range<u64>) {
        let definitions = toolbox![convert_currency].definitions(DefinitionFormat::Transformers);
        let options = ParseOptions {
            tools: tool_use::ToolDefinition::list_from_json(&definitions).unwrap(),
            ..ParseOptions::default()
        };
        for seed in seeds {
            let dir = tempfile::tempdir().unwrap();
            let spec = TinySpec {
                max_position_embeddings: 4096,
                ..(self.spec)(seed)
            };
            write_tiny_model(dir.path(), &spec).unwrap();
            std::fs::write(dir.path().join("chat_template.jinja"), self.template).unwrap();
            let chat = LocalChat::new(Model::load(dir.path()).unwrap())
                .unwrap()
                .options(GenerateOptions::sampled(300, 1.0, seed));
            assert_eq!(chat.format(), self.format);
            assert!(chat.can_constrain());
            // A named tool makes round 1 a call; a random model then
            // rambles or calls again until max_rounds.
            let mut agent = Agent::new(chat, toolbox![convert_currency])
                .tool_choice(ToolChoice::Named("convert_currency".into()))
                .max_rounds(2);
            let outcome = agent.run(vec![Message::user("How much is 20 EUR in USD?")]);
            let transcript = match &outcome {
                Ok(run) => run.messages.clone(),
                Err(e @ AgentError::MaxRounds { .. }) => e.messages().to_vec(),
                Err(e) => panic!("seed {seed}: {e}"),
            };
            assert_eq!(transcript[1].role, Role::Assistant);
            let call = &transcript[1].tool_calls[0];
            assert_eq!(call.name, "convert_currency");
            // Read with the tool's types: a number, two of the enum's
            // strings and a boolean, whatever the random model chose.
            let args = &call.arguments;
            assert!(args["amount"].is_number(), "seed {seed}: {args}");
            for key in ["from", "to"] {
                assert!(
                    ["EUR", "USD", "JPY"].contains(&args[key].as_str().unwrap_or("")),
                    "seed {seed}: {args}"
                );
            }
            assert!(args["rounded"].is_boolean(), "seed {seed}: {args}");
            // The call ran, and its result is the next round's context.
            assert_eq!(transcript[2].role, Role::Tool);
            let result = transcript[2].text();
            assert!(result.contains(" in "), "seed {seed}: {result}");
            let prompt = ChatTemplate::new(self.template)
                .unwrap()
                .render(
                    &RenderOptions::new(&transcript[..3])
                        .tools(&definitions)
                        .add_generation_prompt(true),
                )
                .unwrap()
                .text;
            assert!(
                prompt.ends_with(&(self.after_result)(result)),
                "seed {seed}: {prompt}"
            );
            // What the template wrote back reads as the same call.
            let written = (self.written_call)(&prompt);
            let parsed = self.format.parse(&written, &options);
            assert_eq!(parsed.tool_calls.len(), 1, "seed {seed}: {written}");
            assert_eq!(&parsed.tool_calls[0].arguments, args, "seed {seed}");
        }
    }
}
