//! The bundled model: a standard Hugging Face directory that loads with no
//! path, fits the size budget, and drives the agent with the demo tools.

#[path = "common/answers.rs"]
mod answers;

use answers::assert_answered;
use std::sync::Arc;
use tool_use::generate::{GenerateOptions, Session};
use tool_use::model::Model;
use tool_use::parse::{Format, ParseOptions};
use tool_use::runtime::ToolDefinition;
use tool_use::Message;
use tool_use::ToolChoice;
use tool_use::{
    chat::{ChatModel, TurnRequest},
    local::LocalChat,
};

#[test]
fn the_bundled_directory_is_complete_and_fits_a_crate() {
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
    // crates.io takes crates of up to 10 MB; the model crate holds these files.
    assert!(total <= 9_000_000, "{total} bytes");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["architectures"][0], "LlamaForCausalLM");
    assert_eq!(config["tie_word_embeddings"], true);
}

#[test]
fn the_weights_are_stored_as_f16() {
    let bytes = std::fs::read(tool_use::bundled::model_dir().join("model.safetensors")).unwrap();
    let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + header_len]).unwrap();
    let tensors = header.as_object().unwrap();
    assert!(tensors.len() > 10);
    for (name, entry) in tensors {
        if name != "__metadata__" {
            assert_eq!(entry["dtype"], "F16", "{name}");
        }
    }
}

#[test]
fn the_embedded_model_is_the_directory_model() {
    let embedded = Arc::new(tool_use::bundled::load_embedded().unwrap());
    let on_disk = Arc::new(Model::load(tool_use::bundled::model_dir()).unwrap());
    let ids = on_disk
        .tokenizer()
        .encode("<|im_start|>user\nHow windy is it in Oslo?<|im_end|>\n<|im_start|>assistant\n")
        .unwrap();
    assert_eq!(
        embedded
            .tokenizer()
            .encode("<|im_start|>user\nHow windy is it in Oslo?<|im_end|>\n<|im_start|>assistant\n")
            .unwrap(),
        ids
    );
    assert_eq!(
        Session::new(Arc::clone(&embedded)).logits(&ids).unwrap(),
        Session::new(Arc::clone(&on_disk)).logits(&ids).unwrap()
    );
    assert_eq!(embedded.tool_format(), on_disk.tool_format());
    assert!(embedded.path().to_string_lossy().contains("embedded"));
}

#[test]
fn the_bundled_model_calls_a_demo_tool_that_validates() {
    let model = tool_use::bundled::load().unwrap();
    assert_eq!(model.architecture(), "LlamaForCausalLM");
    // The whole demo toolbox plus a few rounds fits well inside the context.
    let mut chat = LocalChat::new(model)
        .unwrap()
        .options(GenerateOptions::greedy(96));
    assert_eq!(chat.format(), Format::Hermes);
    let toolbox = tool_use::demo::toolbox();
    let tools = tool_use::demo::definitions();
    let messages = [Message::user("What's the temperature in Paris right now?")];
    let tools = ToolDefinition::list_from_json(&tools).unwrap();
    // One named call: the test is about the pipeline (template, tokenizer,
    // weights, grammar), not the model's judgement, which `tool-train eval`
    // measures.
    let choice = ToolChoice::Named("get_current_temperature".into());
    let request = TurnRequest::new(&messages, &tools, &choice);
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
    assert_answered(&toolbox, &parsed.tool_calls, "");
}
