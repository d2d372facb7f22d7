//! `tool-use generate`: one greedy (or sampled) generation, without the
//! agent — for comparing with other implementations token by token.

use std::path::PathBuf;

use serde_json::json;
use tool_use::generate::{GenerateOptions, Session};
use tool_use::model::{LoadOptions, Model};
use tool_use::template::RenderOptions;
use tool_use::Message;

/// Arguments of `tool-use generate`.
#[derive(clap::Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    load: super::LoadArgs,
    /// The prompt: raw text, or with `--chat` the user's message.
    prompt: String,
    /// A model directory, a `.gguf`, or `hf:ORG/REPO[:QUANT]` on the Hugging
    /// Face Hub (default: the bundled model).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Render the prompt as a user message with the model's chat template,
    /// the demo tools offered.
    #[arg(long)]
    chat: bool,
    /// The most tokens to generate.
    #[arg(long, default_value_t = 64)]
    max_tokens: usize,
    /// Print the prompt, its ids, the generated ids, the text, the speed and
    /// the formats the weights are computed in as JSON.
    #[arg(long)]
    json: bool,
    /// Keep generating past end-of-sequence tokens, to `--max-tokens` (for
    /// timing models with random weights).
    #[arg(long)]
    ignore_eos: bool,
    /// Generate this many times, each from an empty cache, and report the
    /// fastest prefill and decode (for timing; the output is the same).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Widen a GGUF file's quantized matrices to f32 at load and compute in
    /// f32: slower, but the numbers Python transformers computes from the
    /// same file (by default they are multiplied as stored, as llama.cpp
    /// does).
    #[arg(long)]
    dequantize: bool,
}

/// Runs `tool-use generate`.
pub fn run(args: GenerateArgs) -> Result<(), String> {
    let model = match &args.model {
        Some(path) if args.dequantize => Model::load_with(
            path,
            &LoadOptions::default()
                .dequantize(true)
                .cache_type(args.load.cache_type),
        )
        .map_err(|e| e.to_string())?,
        _ => super::load_model(args.model.as_deref(), &args.load)?,
    };
    let path = model.path().to_owned();
    let tools = tool_use::demo::definitions();
    let prompt = if args.chat {
        let template = model
            .chat_template()
            .ok_or_else(|| format!("{} has no chat template", path.display()))?;
        let special = model
            .templates()
            .map(|t| t.special_tokens.clone())
            .unwrap_or_default();
        let messages = [Message::user(args.prompt.clone())];
        template
            .render(
                &RenderOptions::new(&messages)
                    .tools(&tools)
                    .add_generation_prompt(true)
                    .special_tokens(&special),
            )
            .map_err(|e| e.to_string())?
            .text
    } else {
        args.prompt.clone()
    };
    // A rendered prompt holds its special tokens; plain text gets what the
    // model's files say it gets (Gemma's BOS).
    let tokenizer = model.tokenizer();
    let ids = if args.chat {
        tokenizer.encode(&prompt)
    } else {
        tokenizer.encode_text(&prompt)
    }
    .map_err(|e| e.to_string())?;
    let options = GenerateOptions {
        ignore_eos: args.ignore_eos,
        ..GenerateOptions::greedy(args.max_tokens)
    };
    let mut streamed = String::new();
    let json_out = args.json;
    let mut session = Session::new(model);
    let generation = session
        .generate(&ids, &options, None, &mut |delta| {
            if !json_out {
                print!("{delta}");
            }
            streamed.push_str(delta);
        })
        .map_err(|e| e.to_string())?;
    let (mut prefill, mut decode) = (
        generation.stats.prefill_tokens_per_second(),
        generation.stats.decode_tokens_per_second(),
    );
    for _ in 1..args.repeat {
        session.reset_cache();
        let again = session
            .generate(&ids, &options, None, &mut |_| {})
            .map_err(|e| e.to_string())?;
        prefill = prefill.max(again.stats.prefill_tokens_per_second());
        decode = decode.max(again.stats.decode_tokens_per_second());
    }
    if args.json {
        let out = json!({
            "prompt": prompt,
            "tools": if args.chat { json!(tools) } else { json!(null) },
            "prompt_ids": ids,
            "ids": generation.tokens,
            "text": generation.text,
            "prefill_tokens_per_s": prefill,
            "decode_tokens_per_s": decode,
            // How the weights are computed with: matrices per format, or
            // `"candle"` for models candle-transformers runs.
            "matrices": session.model().matrix_formats().map_or(json!("candle"), |m| json!(m)),
        });
        println!("{out}");
    } else {
        println!();
    }
    Ok(())
}
