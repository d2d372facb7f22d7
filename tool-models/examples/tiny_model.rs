//! Writes a seeded tiny Qwen2 (random weights, a real tool-capable
//! template) as a Hugging Face directory and as `tiny.gguf` in it, for
//! side-by-side runs of `tool-use serve` and llama.cpp's `llama-server` on
//! the same file (`scripts/bench_serve.py`).
//!
//! `cargo run --release -p tool-models --example tiny_model -- DIR [CONTEXT]`

use tool_models::model::tiny::{write_tiny_gguf, write_tiny_model, TinySpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or("usage: tiny_model DIR [CONTEXT]")?);
    let context = args.next().map(|c| c.parse()).transpose()?.unwrap_or(4096);
    let spec = TinySpec {
        max_position_embeddings: context,
        ..TinySpec::qwen2(7)
    };
    write_tiny_model(&dir, &spec)?;
    write_tiny_gguf(&dir.join("tiny.gguf"), &spec)?;
    println!("{}", dir.join("tiny.gguf").display());
    Ok(())
}
