//! `tool-use serve`: a local model behind OpenAI's Chat Completions and
//! Responses APIs and Anthropic's Messages API.

use std::path::PathBuf;

use tool_use::generate::GenerateOptions;
use tool_use::server::Server;

/// Arguments of `tool-use serve`.
#[derive(clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    load: super::LoadArgs,
    /// A Hugging Face model directory, a `.gguf` file, or a model on the
    /// Hugging Face Hub (`hf:ORG/REPO[:QUANT]`, `hf:ORG/REPO/FILE`; default:
    /// the bundled model, or `$TOOL_USE_MODEL`).
    #[arg(long)]
    model: Option<PathBuf>,
    /// The name clients use for the model (default: the directory or file
    /// name; `tool-use-mini` for the bundled model).
    #[arg(long)]
    name: Option<String>,
    /// The address to listen on. Anything but loopback exposes the model to
    /// the network: set `--api-key-env` then.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on (0 picks a free one and prints it).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The environment variable holding the API key clients must send as
    /// `Authorization: Bearer <key>`.
    #[arg(long)]
    api_key_env: Option<String>,
    /// Requests that may wait for room in the batch; beyond it, 503.
    #[arg(long, default_value_t = 64)]
    max_queue: usize,
    /// Requests decoded together at most (continuous batching; 1 serves
    /// one at a time). Llama-family models only; the others serve one at a
    /// time.
    #[arg(long, default_value_t = tool_use::server::DEFAULT_MAX_BATCH)]
    max_batch: usize,
    /// The memory the KV caches of recent conversations may take together
    /// (`512M`, `2G`, bytes; `0` keeps only the last conversation's): each
    /// request continues the cached conversation sharing the longest prefix
    /// with it, least recently used dropped first (default: 512M). Requests
    /// in flight reserve their caches against it too: one whose prompt
    /// alone does not fit is refused (400).
    /// Llama-family models only; the others keep the last conversation's.
    #[arg(long, value_name = "SIZE", value_parser = super::size::parse_size)]
    kv_budget: Option<usize>,
    /// Temperature for requests that do not give one (0 is greedy).
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    #[command(flatten)]
    decoding: super::DecodingArgs,
}

/// Runs `tool-use serve` until interrupted.
pub fn run(args: ServeArgs) -> Result<(), String> {
    let model = super::load_model(args.model.as_deref(), &args.load)?;
    let default_name = match &args.model {
        Some(path) => path
            .file_stem()
            .map_or_else(|| "model".into(), |n| n.to_string_lossy().into_owned()),
        None => "tool-use-mini".to_owned(),
    };
    let context = model.context_length();
    let chat = args.decoding.local_chat(model)?;
    let server_name = args.name.clone().unwrap_or(default_name);
    let mut server = Server::new(chat, server_name.clone())
        .max_queue(args.max_queue)
        .max_batch(args.max_batch.max(1))
        .defaults(GenerateOptions {
            temperature: args.temperature,
            ..GenerateOptions::greedy(context)
        });
    if let Some(bytes) = args.kv_budget {
        server = server.kv_budget(bytes);
    }
    if let Some(var) = &args.api_key_env {
        let key = std::env::var(var)
            .map_err(|_| format!("--api-key-env {var}: the variable is not set"))?;
        if key.is_empty() {
            return Err(format!("--api-key-env {var}: the variable is empty"));
        }
        server = server.api_key(key);
    }
    let runtime = super::runtime()?;
    runtime.block_on(async move {
        let listener = super::listen(&format!("{}:{}", args.host, args.port), "/v1").await?;
        eprintln!(
            "serving {name} (batch {batch}, queue {queue}; Ctrl-C stops)",
            name = server_name,
            batch = args.max_batch.max(1),
            queue = args.max_queue
        );
        server
            .serve_until(listener, async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| e.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::ServeArgs;
    use clap::Parser;

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: ServeArgs,
    }

    #[test]
    fn kv_budget_reads_sizes_and_a_malformed_one_names_the_option() {
        let parse = |size: &str| Serve::try_parse_from(["serve", "--kv-budget", size]);
        assert_eq!(parse("2G").unwrap().args.kv_budget, Some(2 << 30));
        assert_eq!(parse("0").unwrap().args.kv_budget, Some(0));
        assert_eq!(
            Serve::try_parse_from(["serve"]).unwrap().args.kv_budget,
            None
        );
        let err = parse("lots").err().unwrap().to_string();
        assert!(
            err.contains("--kv-budget") && err.contains("\"lots\""),
            "{err}"
        );
    }
}
