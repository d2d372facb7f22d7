//! The example of transformers' tool-use guide, on a local model: the model
//! reads the tools' schemas (made at compile time by `#[tool]`, see
//! `src/demo.rs`), calls `get_current_temperature`, reads the result, and
//! answers. Then a calculation and a question that needs two calls at once.
//!
//! ```text
//! cargo run --release --example weather                 # the bundled model
//! cargo run --release --example weather -- path/to/model-dir-or.gguf
//! ```
//!
//! Any model whose chat template takes tools works (Qwen 2.5, Hermes, Llama
//! 3.x, ...); calls are constrained to the tools' schemas where the model's
//! format allows it.

use tool_use::{Agent, LocalChat, Message, Model, Role};

fn main() {
    let loaded = match std::env::args_os().nth(1) {
        Some(path) => Model::load(path),
        None => tool_use::bundled::load(),
    };
    let model = match loaded {
        Ok(model) => model,
        Err(e) => {
            eprintln!("cannot load the model: {e}");
            std::process::exit(1);
        }
    };
    let path = model.path().to_owned();
    println!(
        "{} ({}, {} parameters)\n",
        path.display(),
        model.architecture(),
        model.parameter_count().unwrap_or(0)
    );
    let chat = match LocalChat::new(model) {
        Ok(chat) => chat,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let mut agent = Agent::new(chat, tool_use::demo::toolbox()).max_rounds(4);
    for question in [
        "Hey, what's the temperature in Paris right now?",
        "What is 12.5 times 4?",
        "What are the temperature and the wind speed in Tokyo, Japan?",
    ] {
        match agent.run(vec![Message::user(question)]) {
            Ok(run) => print_transcript(&run.messages),
            Err(e) => {
                print_transcript(e.messages());
                println!("!! {e}");
            }
        }
        println!();
    }
}

fn print_transcript(messages: &[Message]) {
    for m in messages {
        match m.role {
            Role::Assistant if !m.tool_calls.is_empty() => {
                for call in &m.tool_calls {
                    println!("assistant → {}({})", call.name, call.arguments);
                }
            }
            Role::Tool => println!(
                "tool      ← {}: {}",
                m.name.as_deref().unwrap_or("?"),
                m.text()
            ),
            role => println!("{:<9} {}", role.as_str(), m.text()),
        }
    }
}
