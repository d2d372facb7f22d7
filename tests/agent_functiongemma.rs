//! FunctionGemma's format end to end on a tiny random model: its
//! declarations rendered as FunctionGemma's documentation shows them, the
//! format told from the template, calls constrained to
//! `<start_function_call>call:name{…}<end_function_call>`, read back with
//! the tool's types, run, and their results rendered as
//! `<start_function_response>` blocks the next round continues from.
//!
//! The template (`tests/data/functiongemma_format.jinja`) is this project's
//! writing of the documented format; FunctionGemma's own template is not
//! among the shared fixtures.

use serde_json::json;
use tool_use::models::agent::{Agent, AgentError, ChatModel, LocalChat};
use tool_use::models::generate::GenerateOptions;
use tool_use::models::model::tiny::{write_tiny_model, TinySpec};
use tool_use::models::model::Model;
use tool_use::models::parse::{Format, ParseOptions};
use tool_use::models::template::{ChatTemplate, RenderOptions};
use tool_use::{tool, toolbox, DefinitionFormat, Message, Role, ToolChoice};

const TEMPLATE: &str = include_str!("data/functiongemma_format.jinja");

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
fn the_template_declares_tools_as_functiongemmas_documentation_shows() {
    // The documentation's example tool, and its rendering there.
    let tool = json!({"type": "function", "function": {
        "name": "get_current_weather",
        "description": "Gets the current weather in a given location.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. \"San Francisco, CA\" or \"Tokyo, JP\""},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "The unit to return the temperature in."}
            },
            "required": ["location"]
        }
    }});
    let documented = "<start_function_declaration>declaration:get_current_weather{description:<escape>Gets the current weather in a given location.<escape>,parameters:{properties:{location:{description:<escape>The city and state, e.g. \"San Francisco, CA\" or \"Tokyo, JP\"<escape>,type:<escape>STRING<escape>},unit:{description:<escape>The unit to return the temperature in.<escape>,enum:[<escape>celsius<escape>,<escape>fahrenheit<escape>],type:<escape>STRING<escape>}},required:[<escape>location<escape>],type:<escape>OBJECT<escape>}}<end_function_declaration>";
    let template = ChatTemplate::new(TEMPLATE).unwrap();
    let messages = [Message::user("What's the weather in Tokyo?")];
    let text = template
        .render(
            &RenderOptions::new(&messages)
                .tools(&[tool])
                .add_generation_prompt(true),
        )
        .unwrap()
        .text;
    assert_eq!(
        text,
        format!(
            "<start_of_turn>developer\nYou are a model that can do function calling with the following functions{documented}<end_of_turn>\n<start_of_turn>user\nWhat's the weather in Tokyo?<end_of_turn>\n<start_of_turn>model\n"
        )
    );
}

/// A tiny random model (the tiny writer's Llama) with the FunctionGemma
/// template.
fn functiongemma_shaped(seed: u64) -> Model {
    let dir = tempfile::tempdir().unwrap();
    let spec = TinySpec {
        max_position_embeddings: 4096,
        ..TinySpec::llama(seed)
    };
    write_tiny_model(dir.path(), &spec).unwrap();
    std::fs::write(dir.path().join("chat_template.jinja"), TEMPLATE).unwrap();
    Model::load(dir.path()).unwrap()
}

#[test]
fn the_agent_calls_reads_and_answers_in_functiongemmas_format() {
    let tools = toolbox![convert_currency];
    let definitions = tools.definitions(DefinitionFormat::Transformers);
    for seed in 0..4 {
        let chat = LocalChat::new(functiongemma_shaped(seed))
            .unwrap()
            .options(GenerateOptions::sampled(300, 1.0, seed));
        assert_eq!(chat.format(), Format::FunctionGemma);
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
        // Read with the tool's types: a number, two of the enum's strings
        // and a boolean, whatever the random model chose.
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
        let template = ChatTemplate::new(TEMPLATE).unwrap();
        let prompt = template
            .render(
                &RenderOptions::new(&transcript[..3])
                    .tools(&definitions)
                    .add_generation_prompt(true),
            )
            .unwrap()
            .text;
        assert!(
            prompt.contains("<start_function_call>call:convert_currency{amount:")
                && prompt.ends_with(&format!(
                    "<start_function_response>response:convert_currency{{value:<escape>{result}<escape>}}<end_function_response>"
                )),
            "seed {seed}: {prompt}"
        );
        // What the model wrote reads back as the same call.
        let options = ParseOptions {
            tools: definitions.clone(),
            ..ParseOptions::default()
        };
        let written = format!(
            "<start_function_call>call:convert_currency{}<end_function_call>",
            prompt
                .split("call:convert_currency")
                .nth(1)
                .and_then(|s| s.split("<end_function_call>").next())
                .unwrap()
        );
        let parsed = Format::FunctionGemma.parse(&written, &options);
        assert_eq!(parsed.tool_calls.len(), 1, "seed {seed}: {written}");
        assert_eq!(&parsed.tool_calls[0].arguments, args, "seed {seed}");
    }
}
