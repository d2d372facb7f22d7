//! `tool-use template render`: print what a model actually receives.

use std::process::ExitCode;

/// `tool-use template ...`
#[derive(clap::Subcommand)]
pub enum TemplateCommand {
    /// Render a chat template with a JSON object of template variables.
    Render(RenderArgs),
}

/// Arguments of `tool-use template render`.
#[derive(clap::Args)]
pub struct RenderArgs {}

/// Runs a `template` subcommand.
pub fn run(command: TemplateCommand) -> ExitCode {
    match command {
        TemplateCommand::Render(_) => {
            eprintln!("tool-use template render: not implemented yet");
            ExitCode::FAILURE
        }
    }
}
