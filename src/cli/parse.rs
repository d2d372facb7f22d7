//! `tool-use parse`: read a model's raw output and print the calls in it.

use std::process::ExitCode;

/// Arguments of `tool-use parse`.
#[derive(clap::Args)]
pub struct ParseArgs {}

/// Runs `tool-use parse`.
pub fn run(_args: ParseArgs) -> ExitCode {
    eprintln!("tool-use parse: not implemented yet");
    ExitCode::FAILURE
}
