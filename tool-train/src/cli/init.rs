//! `tool-train init`: a model directory's first weights, before any
//! training: seeded at a shape, or another model's (deepened where
//! `--layers` asks), with a tokenizer beside them.
//!
//! They are the weights `train` starts its first cycle from with the same
//! seed and shape (or the same `--init-from` and `--layers`), so a trainer
//! on other hardware (`scripts/train_torch.py --start DIR`) starts where
//! `train` would.

use std::path::{Path, PathBuf};

use super::corpus::read_tokenizer;
use super::shape::ShapeArgs;
use tool_train::train::{deepen, export_hf, Llama, Precision};

/// The tokenizer files a model directory holds beside its weights.
const TOKENIZER_FILES: [&str; 2] = ["tokenizer.json", "tokenizer_config.json"];

/// Arguments of `tool-train init`.
#[derive(clap::Args)]
pub struct InitArgs {
    /// The model directory to write (config.json, generation_config.json,
    /// model.safetensors and the tokenizer); it must not hold a model yet.
    #[arg(long)]
    out: PathBuf,
    /// Start from this model directory's weights instead of a seeded
    /// initialisation; its shape is the model's (a shape flag that
    /// contradicts it is refused), and `--layers` above its own deepens it (each new layer a copy of the one before
    /// it that adds nothing yet, so the predictions are the model's).
    #[arg(long)]
    init_from: Option<PathBuf>,
    /// The model directory whose tokenizer the model is for (default:
    /// `--init-from`'s, else the bundled model's).
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// The shape of a seeded model.
    #[command(flatten)]
    shape: ShapeArgs,
    /// Seed of the initialisation (`train`'s `--seed`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How the weights are stored: f32 (exactly as initialised) or f16.
    #[arg(long, default_value = "f32")]
    precision: Precision,
}

/// Runs `tool-train init`.
pub fn run(args: InitArgs) -> Result<(), String> {
    let existing = args.out.join("model.safetensors");
    if existing.exists() {
        return Err(format!(
            "--out {}: expected a directory without a model, found {}",
            args.out.display(),
            existing.display()
        ));
    }
    // The flag that named the tokenizer's directory, for the error.
    let (flag, tokenizer_dir) = match (&args.tokenizer, &args.init_from) {
        (Some(dir), _) => ("--tokenizer", dir.clone()),
        (None, Some(dir)) => ("--init-from", dir.clone()),
        (None, None) => ("the bundled model", tool_use::bundled::model_dir()),
    };
    let vocab_size = vocab_size(&tokenizer_dir, flag)?;
    let model = match &args.init_from {
        Some(dir) => {
            let from = Llama::load_hf_dir(dir)
                .map_err(|e| format!("--init-from {}: {e}", dir.display()))?;
            args.shape.check_against(from.config(), "--init-from")?;
            match args.shape.layers {
                Some(n) if n > from.config().num_hidden_layers => {
                    deepen(&from, n).map_err(|e| e.to_string())?
                }
                _ => from,
            }
        }
        None => Llama::new_seeded(&args.shape.config(vocab_size), args.seed)
            .map_err(|e| e.to_string())?,
    };
    let config = model.config();
    if config.vocab_size != vocab_size {
        return Err(format!(
            "expected a model with the tokenizer's {vocab_size} tokens ({}), found {}",
            tokenizer_dir.display(),
            config.vocab_size
        ));
    }
    export_hf(&model, &args.out, args.precision).map_err(|e| e.to_string())?;
    for name in TOKENIZER_FILES {
        let from = tokenizer_dir.join(name);
        std::fs::copy(&from, args.out.join(name))
            .map_err(|e| format!("{}: {e}", from.display()))?;
    }
    eprintln!(
        "{}: {} parameters (hidden {}, {} layers, {} heads, {} key/value heads, MLP {})",
        args.out.display(),
        config.num_parameters(),
        config.hidden_size,
        config.num_hidden_layers,
        config.num_attention_heads,
        config.num_key_value_heads,
        config.intermediate_size
    );
    Ok(())
}

/// The vocabulary of the tokenizer in the model directory `dir`, with its
/// `tokenizer_config.json` there too (both are copied).
fn vocab_size(dir: &Path, flag: &str) -> Result<usize, String> {
    let tokenizer = read_tokenizer(dir, flag)?;
    let config = dir.join(TOKENIZER_FILES[1]);
    if !config.is_file() {
        return Err(format!(
            "{flag} {}: expected a model directory with {}, found none",
            dir.display(),
            TOKENIZER_FILES[1]
        ));
    }
    Ok(tokenizer.get_vocab_size(true))
}
