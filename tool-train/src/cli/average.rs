//! `tool-train average`: the parameter-wise mean of models trained apart,
//! as `train --average-last` takes it of a run's last cycles, for the ends
//! of separate runs.

use std::path::PathBuf;

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
    let models = args
        .models
        .iter()
        .map(|dir| Llama::load_hf_dir(dir).map_err(|e| format!("{}: {e}", dir.display())))
        .collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<&Llama> = models.iter().collect();
    let mean = average(&refs).map_err(|e| e.to_string())?;
    export_hf(&mean, &args.out, args.precision).map_err(|e| e.to_string())?;
    let names: Vec<String> = args
        .models
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    eprintln!(
        "exported the mean of {} to {}",
        names.join(", "),
        args.out.display()
    );
    Ok(())
}
