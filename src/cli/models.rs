//! `tool-use models`: the models an OpenAI-compatible engine serves.

use tool_use::remote::RemoteChat;

/// Arguments of `tool-use models`.
#[derive(clap::Args)]
pub struct ModelsArgs {
    /// The engine, e.g. `http://127.0.0.1:8080/v1`.
    #[arg(long)]
    base_url: String,
    /// The environment variable that holds the engine's API key.
    #[arg(long)]
    api_key_env: Option<String>,
}

/// Runs `tool-use models`: one model name a line.
pub fn run(args: ModelsArgs) -> Result<(), String> {
    let mut chat = RemoteChat::openai_compatible(&args.base_url, "");
    if let Some(var) = &args.api_key_env {
        chat = chat.api_key_env(var).map_err(|e| e.to_string())?;
    }
    for name in chat.models().map_err(|e| e.to_string())? {
        println!("{name}");
    }
    Ok(())
}
