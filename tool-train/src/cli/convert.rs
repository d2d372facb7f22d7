//! `tool-train convert`: rewrite a model directory's weights in another
//! precision, in place (how the shipped model went from f32 to f16).

use std::path::PathBuf;

use tool_train::train::{Llama, Precision};

/// Arguments of `tool-train convert`.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The model directory (config.json and model.safetensors of a
    /// tied-embedding Llama, as `tool-train train` writes it).
    #[arg(long, default_value_os_t = tool_use::bundled::model_dir())]
    model: PathBuf,
    /// f16 or f32.
    #[arg(long, default_value = "f16")]
    precision: Precision,
}

/// Runs `tool-train convert`.
pub fn run(args: ConvertArgs) -> Result<(), String> {
    let weights = args.model.join("model.safetensors");
    let before = std::fs::metadata(&weights)
        .map_err(|e| format!("{}: {e}", weights.display()))?
        .len();
    let model = Llama::load_hf_dir(&args.model).map_err(|e| e.to_string())?;
    model
        .save_safetensors_as(&weights, args.precision)
        .map_err(|e| e.to_string())?;
    let after = std::fs::metadata(&weights)
        .map_err(|e| format!("{}: {e}", weights.display()))?
        .len();
    eprintln!(
        "{}: {before} -> {after} bytes ({:?})",
        weights.display(),
        args.precision
    );
    Ok(())
}
