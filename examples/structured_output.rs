//! A JSON-schema-constrained answer: the schema of a Rust type (from
//! schemars) constrains decoding, so whatever the model writes parses into
//! that type. The bundled model was trained to call tools, not to fill in
//! forms, so the values are its best guess; the shape is guaranteed.
//!
//! ```text
//! cargo run --release --example structured_output
//! cargo run --release --example structured_output -- path/to/model-dir-or.gguf
//! ```

use schemars::JsonSchema;
use serde::Deserialize;
use tool_use::generate::GenerateOptions;
use tool_use::{Agent, LocalChat, Message, Model, Toolbox};

/// What the answer must be.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)] // `additionalProperties: false`: no other keys.
#[allow(dead_code)] // Read through Debug.
struct WeatherReport {
    #[schemars(length(max = 24))]
    city: String,
    unit: Unit,
    temperature: f64,
    #[schemars(length(max = 60))]
    summary: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

fn main() {
    let loaded = match std::env::args_os().nth(1) {
        Some(path) => Model::load(path),
        None => tool_use::bundled::load(),
    };
    let schema =
        serde_json::to_value(schemars::schema_for!(WeatherReport)).expect("a schema is JSON");
    let chat = match loaded
        .map_err(|e| e.to_string())
        .and_then(|model| LocalChat::new(model).map_err(|e| e.to_string()))
    {
        Ok(chat) => chat
            .options(GenerateOptions::greedy(160))
            .answer_schema(Some(schema)),
        Err(e) => {
            eprintln!("cannot load the model: {e}");
            std::process::exit(1);
        }
    };
    // No tools: the answer itself is constrained.
    let mut agent = Agent::new(chat, Toolbox::new());
    let question =
        "Describe the weather in Paris as a JSON object with city, unit, temperature and summary.";
    println!("user: {question}");
    let run = match agent.run(vec![Message::user(question)]) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    println!("assistant: {}", run.answer);
    match serde_json::from_str::<WeatherReport>(&run.answer) {
        Ok(report) => println!("parsed: {report:?}"),
        Err(e) => {
            eprintln!("the answer does not fit the schema: {e}");
            std::process::exit(1);
        }
    }
}
