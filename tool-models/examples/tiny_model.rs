//! Writes a seeded random-weight Qwen2 (a real tool-capable template) as a
//! Hugging Face directory and as `tiny.gguf` in it: tiny by default, for
//! side-by-side runs of `tool-use serve` and llama.cpp's `llama-server` on
//! the same file (`scripts/bench_serve.py`), or with `--shape
//! qwen2.5-0.5b` a model of Qwen2.5-0.5B's size for speed comparisons
//! (`scripts/bench_generate.py`; the directory only, 2 GB in f32).
//! `--gguf q8_0,q4_k,f32` also writes `model-<format>.gguf` in the
//! directory for each format named (`scripts/bench_llama_cpp.py`).
//!
//! `cargo run --release -p tool-models --example tiny_model -- DIR [CONTEXT] [--shape smollm3|granite|phi3|qwen3|llama3|phi4-mini|lfm2|granite4|granite4-h|lfm2-350m|granite4-h-350m|qwen2.5-0.5b|qwen3-0.6b] [--config-style legacy|rope-parameters] [--gguf FORMATS]`

use tool_models::model::tiny::{
    write_tiny_gguf, write_tiny_gguf_as, write_tiny_model, ConfigStyle, GgufWeights, TinySpec,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage =
        "usage: tiny_model DIR [CONTEXT] [--shape tiny|smollm3|granite|phi3|qwen3|llama3|phi4-mini|lfm2|granite4|granite4-h|lfm2-350m|granite4-h-350m|qwen2.5-0.5b|qwen3-0.6b] [--config-style legacy|rope-parameters] [--gguf f32,q8_0,q4_k,q4_1,q4_0,q5_k,mixed]";
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut option = |name: &str| -> Result<Option<String>, String> {
        match args.iter().position(|a| a == name) {
            Some(i) if i + 1 < args.len() => {
                let value = args.remove(i + 1);
                args.remove(i);
                Ok(Some(value))
            }
            Some(_) => Err(usage.to_owned()),
            None => Ok(None),
        }
    };
    let shape = option("--shape")?.unwrap_or_else(|| "tiny".to_owned());
    let style = match option("--config-style")?.as_deref() {
        None | Some("legacy") => ConfigStyle::Legacy,
        Some("rope-parameters") => ConfigStyle::RopeParameters,
        Some(other) => return Err(format!("unknown config style {other:?}; {usage}").into()),
    };
    let formats = option("--gguf")?;
    let mut args = args.into_iter();
    let dir = std::path::PathBuf::from(args.next().ok_or(usage)?);
    let context = args.next().map(|c| c.parse()).transpose()?;
    // The seeded base shape and its default context; the smollm3, granite
    // and phi3 shapes are what `scripts/tiny_arch_references.py` gives
    // transformers.
    let (base, default_context) = match shape.as_str() {
        "tiny" => (TinySpec::qwen2(7), 4096),
        "smollm3" => (TinySpec::smollm3(7), 1024),
        "granite" => (TinySpec::granite(7), 1024),
        "granite4" => (TinySpec::granite_hybrid(7), 1024),
        "granite4-h" => (TinySpec::granite_h(7), 1024),
        "lfm2-350m" => (TinySpec::lfm2_350m(7), 4096),
        "granite4-h-350m" => (TinySpec::granite_4_h_350m(7), 4096),
        "phi3" => (TinySpec::phi3(7), 1024),
        "qwen3" => (TinySpec::qwen3(7), 1024),
        "llama3" => (TinySpec::llama3(7), 1024),
        "phi4-mini" => (TinySpec::phi4_mini(7), 1024),
        "lfm2" => (TinySpec::lfm2(7), 1024),
        "qwen2.5-0.5b" => (TinySpec::qwen2_5_0_5b(7), 32768),
        "qwen3-0.6b" => (TinySpec::qwen3_0_6b(7), 40960),
        other => return Err(format!("unknown shape {other:?}; {usage}").into()),
    };
    let spec = TinySpec {
        max_position_embeddings: context.unwrap_or(default_context),
        config_style: style,
        ..base
    };
    write_tiny_model(&dir, &spec)?;
    // The real-sized shapes are for `--gguf` files only.
    if !matches!(
        shape.as_str(),
        "qwen2.5-0.5b" | "qwen3-0.6b" | "lfm2-350m" | "granite4-h-350m"
    ) {
        write_tiny_gguf(&dir.join("tiny.gguf"), &spec)?;
        println!("{}", dir.join("tiny.gguf").display());
    } else {
        println!("{}", dir.display());
    }
    for format in formats.iter().flat_map(|f| f.split(',')) {
        let payload = match format {
            "f32" => GgufWeights::F32,
            "q8_0" => GgufWeights::Q8_0,
            "q4_k" => GgufWeights::Q4K,
            "q4_1" => GgufWeights::Q4_1,
            "q4_0" => GgufWeights::Q4_0,
            "q5_k" => GgufWeights::Q5K,
            "mixed" => GgufWeights::Mixed,
            other => return Err(format!("unknown GGUF format {other:?}; {usage}").into()),
        };
        let path = dir.join(format!("model-{format}.gguf"));
        write_tiny_gguf_as(&path, &spec, payload)?;
        println!("{}", path.display());
    }
    Ok(())
}
