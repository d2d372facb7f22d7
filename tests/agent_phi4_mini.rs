//! Phi-4-mini's format end to end on a tiny random Phi-4-mini (partial
//! rotary, LongRoPE, a sliding window): its tools listed as the documented
//! serving template lists them, the format told from the template, calls
//! constrained to `functools[{"name": …, "arguments": {…}}]`, read back
//! with the tool's types, run, and their results rendered as
//! `{"result": …}` tool turns for the next round.
//!
//! The template (`tests/data/phi4_mini_format.jinja`) is this project's
//! writing of the documented format; Phi-4-mini's own templates are not
//! among the shared fixtures.

use serde_json::json;
use tool_use::models::agent::{Agent, AgentError, ChatModel, LocalChat};
use tool_use::models::generate::GenerateOptions;
use tool_use::models::model::tiny::{write_tiny_model, TinySpec};
use tool_use::models::model::Model;
use tool_use::models::parse::{Format, ParseOptions};
use tool_use::models::template::{ChatTemplate, RenderOptions};
use tool_use::{tool, toolbox, DefinitionFormat, Message, Role, ToolChoice};

const TEMPLATE: &str = include_str!("data/phi4_mini_format.jinja");

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
fn the_template_lists_tools_and_writes_calls_as_phi4_minis_documentation_shows() {
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
    let listed = "{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"get_weather\",\n        \"parameters\": {}\n    }\n}";
    assert_eq!(
        text,
        format!(
            "<|system|>\nYou are a helpful assistant.\nIn addition to plain text responses, you can choose to call one or more of the provided functions.\n\n\
             If you decide to call functions:\n  * prefix function calls with functools marker (no closing marker required)\n  \
             * all function calls should be generated in a single JSON list formatted as functools[{{\"name\": [function name], \"arguments\": [function arguments as JSON]}}, ...]\n\n\
             {listed}\n\n<|end|><|user|>\nWeather in Paris?<|end|><|assistant|>\nfunctools[{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"Paris\"}}}}]<|end|>\
             <|tool|>\n{{\"result\": \"sunny\"}}<|end|><|assistant|>\n"
        )
    );
}

/// A tiny random Phi-4-mini with the Phi-4-mini template.
fn phi4_mini_shaped(seed: u64) -> Model {
    let dir = tempfile::tempdir().unwrap();
    let spec = TinySpec {
        max_position_embeddings: 4096,
        ..TinySpec::phi4_mini(seed)
    };
    write_tiny_model(dir.path(), &spec).unwrap();
    std::fs::write(dir.path().join("chat_template.jinja"), TEMPLATE).unwrap();
    Model::load(dir.path()).unwrap()
}

#[test]
fn the_agent_calls_reads_and_answers_in_phi4_minis_format() {
    let tools = toolbox![convert_currency];
    let definitions = tools.definitions(DefinitionFormat::Transformers);
    let options = ParseOptions {
        tools: definitions.clone(),
        ..ParseOptions::default()
    };
    for seed in 0..4 {
        let chat = LocalChat::new(phi4_mini_shaped(seed))
            .unwrap()
            .options(GenerateOptions::sampled(300, 1.0, seed));
        assert_eq!(chat.format(), Format::Phi4Mini);
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
                "<|tool|>\n{{\"result\": {}}}<|end|><|assistant|>\n",
                json!(result)
            )),
            "seed {seed}: {prompt}"
        );
        // The call as the template writes it back reads as the same call.
        let start = prompt.find("functools[").unwrap();
        let end = start + prompt[start..].find("]<|end|>").unwrap() + 1;
        let parsed = Format::Phi4Mini.parse(&prompt[start..end], &options);
        assert_eq!(parsed.tool_calls.len(), 1, "seed {seed}: {prompt}");
        assert_eq!(&parsed.tool_calls[0].arguments, args, "seed {seed}");
    }
}
