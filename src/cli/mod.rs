//! The `tool-use` command's subcommands, one file each.

pub mod chat;
pub mod generate;
pub mod models;
pub mod parse;
pub mod serve;
pub mod template;

use std::process::{ExitCode, Termination};

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
