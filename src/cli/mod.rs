//! The `tool-use` command's subcommands, one file each.

pub mod chat;
mod confirm;
pub mod doctor;
pub mod eval;
pub mod generate;
pub mod mcp;
pub mod models;
pub mod parse;
pub mod serve;
mod size;
pub mod template;

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Termination};

use tool_use::local::{LocalChat, LocalChatError};
use tool_use::model::{CacheType, Model};
use tool_use::parse::Format;
use tool_use::remote::RemoteChat;
use tool_use::template::ModelTemplates;

/// The model `--model` names (a model directory, a `.gguf` file, or a
/// Hugging Face Hub name, `hf:ORG/REPO[:QUANT]` or `hf:ORG/REPO/FILE`,
/// downloaded into the Hub's cache as `HF_ENDPOINT`, `HF_HOME`, `HF_TOKEN`
/// and `HF_HUB_OFFLINE` say), or the bundled one (`$TOOL_USE_MODEL` when
/// set).
pub fn load_model(path: Option<&Path>, load: &LoadArgs) -> Result<Model, String> {
    let mut model = match path {
        Some(path) => Model::load(path),
        None => tool_use::bundled::load(),
    }
    .map_err(|e| e.to_string())?;
    model
        .set_cache_type(load.cache_type)
        .map_err(|e| e.to_string())?;
    if load.repack {
        model.repack();
    }
    Ok(model)
}

/// How a local model is held: the options every command that loads one
/// shares.
#[derive(clap::Args, Clone, Debug)]
pub struct LoadArgs {
    /// Unpack a GGUF file's quantized matrices once at load for the
    /// integer products of prompts and batches of sequences: faster
    /// prompts and serving, for 0.75–1.25 more bytes per weight held.
    #[arg(long)]
    pub repack: bool,
    /// Keep a local model's keys and values in `f32` (as computed, matching
    /// transformers) or `f16` (llama.cpp's default: half the memory and the
    /// bytes each step reads; keys and values rounded to 11 bits).
    #[arg(long, default_value = "f32", value_name = "f32|f16")]
    pub cache_type: CacheType,
}

/// The chat templates of `path`: a `.jinja` file, a `tokenizer_config.json`,
/// a model directory or a `.gguf` file, here or on the Hub (`hf:…`, fetched
/// into its cache as `--model` is: name one file,
/// `hf:ORG/REPO/tokenizer_config.json`, to fetch no weights).
pub fn load_templates(path: &Path) -> Result<ModelTemplates, String> {
    let local = match path.to_str().filter(|p| p.starts_with("hf:")) {
        Some(name) => {
            use tool_use::hub::{resolve_str, HubOptions};
            resolve_str(name, &HubOptions::from_env()).map_err(|e| e.to_string())?
        }
        None => path.to_owned(),
    };
    ModelTemplates::load(&local).map_err(|e| e.to_string())
}

/// How a local model writes its calls: the options `chat`, `serve` and
/// `eval` share.
#[derive(clap::Args)]
pub struct DecodingArgs {
    /// Let a local model write calls freely instead of constraining them to
    /// the tools' schemas.
    #[arg(long)]
    pub no_constrain: bool,
    /// The tool-call format a local model writes, for models whose template
    /// does not show it (one of `tool-use parse --help`'s formats; `generic`
    /// for a JSON answer, which models whose template shows no tools get
    /// by default).
    #[arg(long)]
    pub tool_format: Option<String>,
    /// The chat template a local model uses instead of its own (a `.jinja`
    /// file, a `tokenizer_config.json`, a model directory or a `.gguf`
    /// file, or one on the Hub: `hf:ORG/REPO/tokenizer_config.json`): for a
    /// model whose files hold none, such as a base model's GGUF, or to try
    /// another.
    #[arg(long, value_name = "PATH")]
    pub chat_template: Option<PathBuf>,
}

impl DecodingArgs {
    /// `model` wrapped for the agent as these options say.
    pub fn local_chat(&self, mut model: Model) -> Result<LocalChat, String> {
        if let Some(path) = &self.chat_template {
            let templates = load_templates(path).map_err(|e| format!("--chat-template: {e}"))?;
            model.set_templates(templates).map_err(|e| e.to_string())?;
        }
        let chat = local_chat(model, self.tool_format.as_deref())?.constrain(!self.no_constrain);
        if chat.lists_tools_itself() {
            eprintln!(
                "note: the model's chat template shows no tools: they are listed in a system \
                 message and the model answers in JSON (the `generic` format)"
            );
        }
        Ok(chat)
    }
}

/// `model` wrapped for the agent, its tool-call format `tool_format` (a
/// format id) or else the one its template shows.
fn local_chat(model: Model, tool_format: Option<&str>) -> Result<LocalChat, String> {
    match tool_format {
        Some(id) => {
            let format = Format::from_id(id).map_err(|e| format!("--tool-format: {e}"))?;
            LocalChat::in_format(model, format)
        }
        None => LocalChat::new(model),
    }
    .map_err(|e| match e {
        LocalChatError::UnknownFormat(_) => format!("{e} with --tool-format"),
        e => e.to_string(),
    })
}

/// `chat` asking for the first model its engine serves: for a run that
/// named none (`flag` is the option that names one).
fn first_served_model(
    mut chat: RemoteChat,
    base_url: &str,
    flag: &str,
) -> Result<RemoteChat, String> {
    let first = chat
        .models()
        .map_err(|e| e.to_string())?
        .into_iter()
        .next()
        .ok_or_else(|| format!("{base_url} serves no model; name one with {flag}"))?;
    Ok(chat.model(first))
}

/// The multi-thread runtime the serving subcommands run on.
pub fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

/// Binds `address` and prints `listening on http://ADDR{path}`: tests and
/// scripts wait for that line to learn the port.
pub async fn listen(address: &str, path: &str) -> Result<tokio::net::TcpListener, String> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?;
    println!("listening on http://{local}{path}");
    Ok(listener)
}

/// Ends subcommand `command`: its own exit code, or its error on stderr and a
/// failure.
pub fn finish(command: &str, result: Result<impl Termination, String>) -> ExitCode {
    match result {
        Ok(done) => done.report(),
        Err(e) => {
            eprintln!("tool-use {command}: {e}");
            ExitCode::FAILURE
        }
    }
}
