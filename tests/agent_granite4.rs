//! Granite 4's format end to end on a tiny random hybrid Granite 4 (Mamba-2
//! layers around an attention layer): its tools listed as IBM's prompt
//! format lists them, the format told from the template (Hermes), calls
//! constrained to `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`,
//! read back with the tool's types, run, and their results rendered in
//! `<tool_response>` user turns for the next round.
//!
//! The template (`tests/data/granite4_format.jinja`) is this project's
//! writing of the documented format; Granite 4's own template is not among
//! the shared fixtures.

use serde_json::json;
use tool_use::models::agent::{Agent, AgentError, ChatModel, LocalChat};
use tool_use::models::generate::GenerateOptions;
use tool_use::models::model::tiny::{write_tiny_model, TinySpec};
use tool_use::models::model::Model;
use tool_use::models::parse::{Format, ParseOptions};
use tool_use::models::template::{ChatTemplate, RenderOptions};
use tool_use::{tool, toolbox, DefinitionFormat, Message, Role, ToolChoice};

const TEMPLATE: &str = include_str!("data/granite4_format.jinja");

/// Convert an amount between currencies.
///
/// Args:
///     amount: The amount to convert
///     from: The currency to convert from (choices: ["EUR", "USD", "JPY"])
///     to: The currency to convert to (choices: ["EUR", "USD", "JPY"])
///     rounded: Whether to round to whole units
#[tool]
fn convert_currency(amount: f64, from: String, to: String, rounded: bool) -> String {
    format!("{amount} {from} in {to} (rounded: {rounded})")
}

#[test]
fn the_template_lists_tools_and_writes_calls_as_granite4s_documentation_shows() {
    let tool = json!({"type": "function", "function": {"name": "get_weather", "parameters": {}}});
    let messages = [
        Message::user("Weather in Paris?"),
        Message::assistant_calls(
            None,
            vec![tool_use::ToolCall::new(
                "call_0",
                "get_weather",
                json!({"city": "Paris"}),
            )],
        ),
        Message::tool("call_0", "get_weather", "sunny"),
    ];
    let text = ChatTemplate::new(TEMPLATE)
        .unwrap()
        .render(
            &RenderOptions::new(&messages)
                .tools(std::slice::from_ref(&tool))
                .add_generation_prompt(true),
        )
        .unwrap()
        .text;
    let listed = r#"{"type": "function", "function": {"name": "get_weather", "parameters": {}}}"#;
    assert_eq!(
        text,
        format!(
            "<|start_of_role|>system<|end_of_role|>You are a helpful assistant with access to the following tools. You may call one or more tools to assist with the user query.\n\n\
             You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{listed}\n</tools>\n\n\
             For each tool call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n\
             <tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>. \
             If a tool does not exist in the provided list of tools, notify the user that you do not have the ability to fulfill the request.<|end_of_text|>\n\
             <|start_of_role|>user<|end_of_role|>Weather in Paris?<|end_of_text|>\n\
             <|start_of_role|>assistant<|end_of_role|><tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"Paris\"}}}}\n</tool_call><|end_of_text|>\n\
             <|start_of_role|>user<|end_of_role|><tool_response>\nsunny\n</tool_response><|end_of_text|>\n\
             <|start_of_role|>assistant<|end_of_role|>"
        )
    );
}

/// A tiny random hybrid Granite 4 with the Granite 4 template.
fn granite4_shaped(seed: u64) -> Model {
    let dir = tempfile::tempdir().unwrap();
    let spec = TinySpec {
        max_position_embeddings: 4096,
        ..TinySpec::granite_h(seed)
    };
    write_tiny_model(dir.path(), &spec).unwrap();
    std::fs::write(dir.path().join("chat_template.jinja"), TEMPLATE).unwrap();
    Model::load(dir.path()).unwrap()
}

#[test]
fn the_agent_calls_reads_and_answers_in_granite4s_format() {
    let tools = toolbox![convert_currency];
    let definitions = tools.definitions(DefinitionFormat::Transformers);
    let options = ParseOptions {
        tools: definitions.clone(),
        ..ParseOptions::default()
    };
    for seed in 0..4 {
        let chat = LocalChat::new(granite4_shaped(seed))
            .unwrap()
            .options(GenerateOptions::sampled(300, 1.0, seed));
        assert_eq!(chat.format(), Format::Hermes);
        assert!(chat.can_constrain());
        // A named tool makes round 1 a call; a random model then rambles
        // or calls again until max_rounds.
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
        // Read with the tool's types, whatever the random model chose.
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
        let prompt = ChatTemplate::new(TEMPLATE)
            .unwrap()
            .render(
                &RenderOptions::new(&transcript[..3])
                    .tools(&definitions)
                    .add_generation_prompt(true),
            )
            .unwrap()
            .text;
        assert!(
            prompt.ends_with(&format!(
                "<tool_response>\n{result}\n</tool_response><|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
            )),
            "seed {seed}: {prompt}"
        );
        // The call as the template writes it back reads as the same call.
        let start = prompt.rfind("<tool_call>").unwrap();
        let end = prompt.rfind("</tool_call>").unwrap() + "</tool_call>".len();
        let parsed = Format::Hermes.parse(&prompt[start..end], &options);
        assert_eq!(parsed.tool_calls.len(), 1, "seed {seed}: {prompt}");
        assert_eq!(&parsed.tool_calls[0].arguments, args, "seed {seed}");
    }
}
