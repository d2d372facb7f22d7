//! Prints conversations of the training corpus as the model reads them, with
//! the loss weight of each assistant token: what `tool-train train` learns from.
//!
//! `cargo run --release -p tool-train --example corpus_sample -- [count] [seed] [train|held-out|cases|PRACTICE]`
//! (a practice, as `tool-train train --practice` takes it: training
//! conversations with it, such as `ends`, `wide`, `wording` or `followups`)

use tool_train::corpus::{self, LossWeights, Practice, Split};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(1), |a| a.parse())?;
    let examples = match args.next().as_deref() {
        Some("held-out") => corpus::generate(seed, count, Split::HeldOut),
        Some("cases") => corpus::generate_cases(seed, count),
        None | Some("train") => corpus::generate(seed, count, Split::Train),
        Some(practice) => {
            corpus::generate_with(seed, count, Split::Train, practice.parse::<Practice>()?)
        }
    };
    let template = corpus::bundled_template()?;
    let weights = LossWeights::default();
    for example in examples {
        let (text, spans) = corpus::render(&template, &example)?;
        let facts: Vec<&str> = example
            .expectations
            .iter()
            .flat_map(|e| e.must_contain.iter().map(String::as_str))
            .collect();
        let bytes = corpus::byte_weights(&text, &spans, &facts, &weights);
        println!("=== {:?} {:?}", example.scenario, example.case);
        for message in &example.messages {
            println!("{:>9}: {}", format!("{:?}", message.role), message.text());
            for call in &message.tool_calls {
                println!("           -> {} {}", call.name, call.arguments);
            }
        }
        for span in &spans {
            // Heavier bytes in brackets: [x4 Paris].
            let mut marked = String::new();
            let mut current = 1.0f32;
            for (i, c) in text[span.clone()].char_indices() {
                let w = bytes[span.start + i];
                if w != current {
                    if current != 1.0 {
                        marked.push(']');
                    }
                    if w != 1.0 {
                        marked.push_str(&format!("[x{w} "));
                    }
                    current = w;
                }
                marked.push(c);
            }
            if current != 1.0 {
                marked.push(']');
            }
            println!("   weighed: {marked}");
        }
    }
    Ok(())
}
