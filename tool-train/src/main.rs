//! The `tool-train` command: train and evaluate the bundled model.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Train tool-use's bundled model on the synthetic corpus, and score models on it.
#[derive(Parser)]
#[command(name = "tool-train", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train the bundled model on the synthetic corpus (resumable).
    Train(Box<cli::train::TrainArgs>),
    /// Score a model's tool calls on the corpus's held-out split.
    Eval(cli::eval::EvalArgs),
    /// Write the encoded corpus `train` trains on (token ids and loss
    /// weights) to files, for a trainer on other hardware.
    Corpus(cli::corpus::CorpusExportArgs),
    /// Write a model directory's first weights: seeded at a shape, or
    /// another model's, deepened (what `train` starts from).
    Init(cli::init::InitArgs),
    /// Rewrite a model directory's weights in another precision (f16 is how the model ships).
    Convert(cli::convert::ConvertArgs),
    /// Write the parameter-wise mean of models of one shape (weight averaging of separate runs).
    Average(cli::average::AverageArgs),
}

fn main() -> ExitCode {
    let (command, result) = match Cli::parse().command {
        Command::Train(args) => ("train", cli::train::run(*args)),
        Command::Eval(args) => ("eval", cli::eval::run(args)),
        Command::Corpus(args) => ("corpus", cli::corpus::run(args)),
        Command::Init(args) => ("init", cli::init::run(args)),
        Command::Convert(args) => ("convert", cli::convert::run(args)),
        Command::Average(args) => ("average", cli::average::run(args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tool-train {command}: {e}");
            ExitCode::FAILURE
        }
    }
}
