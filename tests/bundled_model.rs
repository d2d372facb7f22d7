//! The bundled model: a standard Hugging Face directory that loads with no
//! path, fits the size budget, and drives the agent with the demo tools.

use tool_use::models::agent::{ChatModel, LocalChat, TurnRequest};
use tool_use::models::constrain::ToolChoice;
use tool_use::models::generate::GenerateOptions;
use tool_use::models::model::Model;
use tool_use::models::parse::{Format, ParseOptions};
use tool_use::Message;

#[test]
fn the_bundled_directory_is_complete_and_small() {
    let dir = tool_use::bundled::model_dir();
    let mut total = 0;
    for file in [
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "generation_config.json",
        "model.safetensors",
    ] {
        let meta = std::fs::metadata(dir.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(file).display()));
        total += meta.len();
    }
    assert!(total <= 30_000_000, "{total} bytes");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["architectures"][0], "LlamaForCausalLM");
    assert_eq!(config["tie_word_embeddings"], true);
}

#[test]
fn the_bundled_model_calls_a_demo_tool_that_validates() {
    let model = Model::load(tool_use::bundled::model_dir()).unwrap();
    assert_eq!(model.architecture(), "LlamaForCausalLM");
    // The whole demo toolbox plus a few rounds fits well inside the context.
    let mut chat = LocalChat::new(model)
        .unwrap()
        .options(GenerateOptions::greedy(96));
    assert_eq!(chat.format(), Format::Hermes);
    let toolbox = tool_use::demo::toolbox();
    let tools = tool_use::demo::definitions();
    let messages = [Message::user("What's the temperature in Paris right now?")];
    let request = TurnRequest {
        messages: &messages,
        tools: &tools,
        // One named call: the test is about the pipeline (template, tokenizer,
        // weights, grammar), not the model's judgement, which `tool-use eval`
        // measures.
        tool_choice: &ToolChoice::Named("get_current_temperature".into()),
    };
    let turn = chat.respond(&request, &mut |_| {}).unwrap();
    assert!(
        turn.stats.prompt_tokens < 640,
        "{} prompt tokens",
        turn.stats.prompt_tokens
    );
    let parsed = Format::Hermes.parse(
        &turn.text,
        &ParseOptions {
            tools: tools.clone(),
            ..ParseOptions::default()
        },
    );
    assert!(parsed.invalid_tool_calls.is_empty(), "{}", turn.text);
    assert_eq!(parsed.tool_calls.len(), 1, "{}", turn.text);
    assert_eq!(parsed.tool_calls[0].name, "get_current_temperature");
    for call in &parsed.tool_calls {
        let answer = toolbox.call_blocking(call);
        assert!(
            !answer.text().starts_with("Error:"),
            "{call:?}: {}",
            answer.text()
        );
    }
}

#[test]
fn the_training_model_and_the_inference_model_agree_on_the_shipped_weights() {
    // The weights were trained by `tool_models::train::Llama` (our own
    // differentiable ops) and are served by candle-transformers' llama:
    // both must compute the same function.
    use candle_core::{Device, Tensor};
    let dir = tool_use::bundled::model_dir();
    let mut model = Model::load(&dir).unwrap();
    let trained = tool_use::models::train::Llama::load_hf_dir(&dir).unwrap();
    let ids = model
        .tokenizer()
        .encode("<|im_start|>user\nHow windy is it in Oslo?<|im_end|>\n<|im_start|>assistant\n")
        .unwrap();
    let served = model.logits(&ids).unwrap();
    let input = Tensor::new(ids.as_slice(), &Device::Cpu)
        .unwrap()
        .unsqueeze(0)
        .unwrap();
    let all = trained.logits(&input).unwrap();
    let last: Vec<f32> = all
        .squeeze(0)
        .unwrap()
        .get(ids.len() - 1)
        .unwrap()
        .to_vec1()
        .unwrap();
    assert_eq!(served.len(), last.len());
    let diff = served
        .iter()
        .zip(&last)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(diff < 1e-4, "max |Δlogit| = {diff}");
}
