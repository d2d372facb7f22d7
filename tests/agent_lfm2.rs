//! LFM2's format end to end on a tiny random LFM2 (short convolutions and
//! attention): its tools listed as LFM2's documentation shows them, the
//! format told from the template, calls constrained to
//! `<|tool_call_start|>[name(key=value)]<|tool_call_end|>`, read back with
//! the tool's types, run, and their results rendered between
//! `<|tool_response_start|>` and `<|tool_response_end|>` for the next round.
//!
//! The template (`tests/data/lfm2_format.jinja`) is this project's writing
//! of the documented format; LFM2's own template is not among the shared
//! fixtures.

use serde_json::json;
use tool_use::models::agent::{Agent, AgentError, ChatModel, LocalChat};
use tool_use::models::generate::GenerateOptions;
use tool_use::models::model::tiny::{write_tiny_model, TinySpec};
use tool_use::models::model::Model;
use tool_use::models::parse::{Format, ParseOptions};
use tool_use::models::template::{ChatTemplate, RenderOptions};
use tool_use::{tool, toolbox, DefinitionFormat, Message, Role, ToolChoice};

const TEMPLATE: &str = include_str!("data/lfm2_format.jinja");

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
fn the_template_lists_tools_and_writes_calls_as_lfm2s_documentation_shows() {
    let tool = json!({"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    }});
    let messages = [
        Message::system("Be brief."),
        Message::user("Weather in Paris?"),
        Message::assistant_calls(
            None,
            vec![tool_use::ToolCall::new(
                "call_0",
                "get_weather",
                json!({"city": "Paris", "days": 2, "metric": true}),
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
    // The tools as transformers' `tojson` writes them (Python's separators).
    let listed = r#"{"type": "function", "function": {"name": "get_weather", "description": "Get the weather in a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}"#;
    assert_eq!(
        text,
        format!(
            "<|im_start|>system\nBe brief.\nList of tools: <|tool_list_start|>[{listed}]<|tool_list_end|><|im_end|>\n\
             <|im_start|>user\nWeather in Paris?<|im_end|>\n\
             <|im_start|>assistant\n<|tool_call_start|>[get_weather(city=\"Paris\", days=2, metric=True)]<|tool_call_end|><|im_end|>\n\
             <|im_start|>tool\n<|tool_response_start|>sunny<|tool_response_end|><|im_end|>\n\
             <|im_start|>assistant\n"
        )
    );
}

/// A tiny random LFM2 with the LFM2 template.
fn lfm2_shaped(seed: u64) -> Model {
    let dir = tempfile::tempdir().unwrap();
    let spec = TinySpec {
        max_position_embeddings: 4096,
        ..TinySpec::lfm2(seed)
    };
    write_tiny_model(dir.path(), &spec).unwrap();
    std::fs::write(dir.path().join("chat_template.jinja"), TEMPLATE).unwrap();
    Model::load(dir.path()).unwrap()
}

#[test]
fn the_agent_calls_reads_and_answers_in_lfm2s_format() {
    let tools = toolbox![convert_currency];
    let definitions = tools.definitions(DefinitionFormat::Transformers);
    let options = ParseOptions {
        tools: definitions.clone(),
        ..ParseOptions::default()
    };
    for seed in 0..4 {
        let chat = LocalChat::new(lfm2_shaped(seed))
            .unwrap()
            .options(GenerateOptions::sampled(300, 1.0, seed));
        assert_eq!(chat.format(), Format::Lfm2);
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
                "<|tool_response_start|>{result}<|tool_response_end|><|im_end|>\n<|im_start|>assistant\n"
            )),
            "seed {seed}: {prompt}"
        );
        // The call as the template writes it back reads as the same call.
        let start = prompt.find("<|tool_call_start|>").unwrap();
        let end = prompt.find("<|tool_call_end|>").unwrap() + "<|tool_call_end|>".len();
        let parsed = Format::Lfm2.parse(&prompt[start..end], &options);
        assert_eq!(parsed.tool_calls.len(), 1, "seed {seed}: {prompt}");
        assert_eq!(&parsed.tool_calls[0].arguments, args, "seed {seed}");
    }
}
