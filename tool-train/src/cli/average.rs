//! `tool-train average`: the parameter-wise mean of models trained apart,
//! as `train --average-last` takes it of a run's last cycles, for the ends
//! of separate runs.

use std::path::{Path, PathBuf};

use tool_train::train::{average, export_hf, Llama, Precision};

/// Arguments of `tool-train average`.
#[derive(clap::Args)]
pub struct AverageArgs {
    /// Model directories of one shape (config.json and model.safetensors,
    /// as `tool-train train` writes them), oldest first: the order in
    /// which their weights are summed.
    #[arg(required = true, num_args = 1..)]
    models: Vec<PathBuf>,
    /// Where the mean's config.json, generation_config.json and
    /// model.safetensors are written; other files there stay.
    #[arg(long)]
    out: PathBuf,
    /// f16 or f32.
    #[arg(long, default_value = "f16")]
    precision: Precision,
}

/// Runs `tool-train average`.
pub fn run(args: AverageArgs) -> Result<(), String> {
    let ends = args
        .models
        .into_iter()
        .map(|dir| load(&dir).map(|model| (dir, model)))
        .collect::<Result<Vec<_>, _>>()?;
    export_mean(&ends, &args.out, args.precision)
}

/// The model in `dir`, or an error that names the directory.
pub(crate) fn load(dir: &Path) -> Result<Llama, String> {
    Llama::load_hf_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))
}

/// Writes the mean of `ends` (each with the directory it came from,
/// oldest first) to `out`, and says which it averaged.
pub(crate) fn export_mean(
    ends: &[(PathBuf, Llama)],
    out: &Path,
    precision: Precision,
) -> Result<(), String> {
    let models: Vec<&Llama> = ends.iter().map(|(_, m)| m).collect();
    let mean = average(&models).map_err(|e| e.to_string())?;
    export_hf(&mean, out, precision).map_err(|e| e.to_string())?;
    let names: Vec<String> = ends.iter().map(|(d, _)| d.display().to_string()).collect();
    eprintln!(
        "exported the mean of {} to {}",
        names.join(", "),
        out.display()
    );
    Ok(())
}
