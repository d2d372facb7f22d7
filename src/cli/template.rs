//! `tool-use template render`: print what a model actually receives.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use tool_models::template::{Clock, DateTime, ModelTemplates};

/// `tool-use template ...`
#[derive(clap::Subcommand)]
pub enum TemplateCommand {
    /// Render a chat template with a JSON object of template variables.
    Render(RenderArgs),
}

/// Arguments of `tool-use template render`.
#[derive(clap::Args)]
pub struct RenderArgs {
    /// A `.jinja` file, a `tokenizer_config.json`, a model directory or a `.gguf` file.
    #[arg(long, value_name = "PATH")]
    pub template: PathBuf,
    /// A JSON object of template variables (`messages`, `tools`,
    /// `add_generation_prompt`, ...); `-` or absent for stdin.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Freeze the clock `strftime_now` reads, e.g. 2026-01-15T10:30:00.
    #[arg(long, value_name = "DATETIME", value_parser = DateTime::parse)]
    pub now: Option<DateTime>,
    /// Use this one of the model's named templates (`default`, `tool_use`, ...).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

/// Runs a `template` subcommand.
pub fn run(command: TemplateCommand) -> ExitCode {
    match command {
        TemplateCommand::Render(args) => match render(&args) {
            Ok(text) => {
                let mut stdout = std::io::stdout().lock();
                match stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("tool-use template render: cannot write the output: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
            Err(message) => {
                eprintln!("tool-use template render: {message}");
                ExitCode::FAILURE
            }
        },
    }
}

fn render(args: &RenderArgs) -> Result<String, String> {
    // Load first, so that a bad --template fails without waiting for stdin.
    let model = ModelTemplates::load(&args.template).map_err(|e| e.to_string())?;
    let input = read_input(args.input.as_deref())?;
    let mut kwargs: serde_json::Value =
        serde_json::from_str(&input).map_err(|e| format!("the input is not valid JSON: {e}"))?;
    let Some(vars) = kwargs.as_object_mut() else {
        return Err("the input must be a JSON object of template variables".into());
    };
    // transformers picks `tool_use` only when tools are passed at all.
    let has_tools = vars.get("tools").is_some_and(|t| !t.is_null());
    // The model's special tokens fill in what the input leaves out.
    for (name, token) in &model.special_tokens {
        vars.entry(name.clone())
            .or_insert_with(|| serde_json::Value::String(token.clone()));
    }
    let mut template = model
        .compile(args.name.as_deref(), has_tools)
        .map_err(|e| e.to_string())?;
    if let Some(now) = args.now {
        template = template.with_clock(Clock::Fixed(now));
    }
    template.render_json(&kwargs).map_err(|e| e.to_string())
}

fn read_input(path: Option<&std::path::Path>) -> Result<String, String> {
    match path {
        Some(p) if p.as_os_str() != "-" => std::fs::read_to_string(p)
            .map_err(|e| format!("cannot read the input {}: {e}", p.display())),
        _ => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("cannot read the input from stdin: {e}"))?;
            Ok(s)
        }
    }
}
