//! Prints conversations as the model reads them (rendered with the bundled
//! template), one JSON string a line, for scripts that score a model on
//! them (`scripts/call_decision.py`).
//!
//! `cargo run --release -p tool-train --example rendered -- [count] [seed] [train|held-out|schemas-train|schemas-held-out]`

use tool_train::corpus::{self, Split};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(Ok(100), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(1), |a| a.parse())?;
    let examples = match args.next().as_deref() {
        None | Some("held-out") => corpus::generate(seed, count, Split::HeldOut),
        Some("train") => corpus::generate(seed, count, Split::Train),
        Some("schemas-train") => corpus::generate_schemas(seed, count, Split::Train),
        Some("schemas-held-out") => corpus::generate_schemas(seed, count, Split::HeldOut),
        Some(other) => {
            return Err(format!(
                "expected train, held-out, schemas-train or schemas-held-out, found {other}"
            )
            .into())
        }
    };
    let template = corpus::bundled_template()?;
    for example in examples {
        let (text, _) = corpus::render(&template, &example)?;
        println!("{}", serde_json::to_string(&text)?);
    }
    Ok(())
}
