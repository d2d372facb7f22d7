//! The model's shape on the command line, shared by `train` and `init`.

use tool_train::train::ModelConfig;

/// The width the bundled model has, when `--hidden` is not given.
const DEFAULT_HIDDEN: usize = 256;
/// The depth a seeded model has, when `--layers` is not given.
const DEFAULT_LAYERS: usize = 4;

/// The shape flags (`--hidden`, `--layers`, `--heads`, `--kv-heads`,
/// `--intermediate`).
#[derive(clap::Args, Clone, Debug)]
pub struct ShapeArgs {
    /// Width of the model (default: 256).
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Decoder layers (default: 4). With `--init-from`, more than the
    /// model has deepens it.
    #[arg(long)]
    pub layers: Option<usize>,
    /// Attention heads (default: one per 64 of width).
    #[arg(long)]
    pub heads: Option<usize>,
    /// Key/value heads (default: half the attention heads).
    #[arg(long)]
    pub kv_heads: Option<usize>,
    /// Width of the MLP (default: three times the model's).
    #[arg(long)]
    pub intermediate: Option<usize>,
}

impl ShapeArgs {
    /// A seeded model of this shape over `vocab_size` tokens: a few
    /// million parameters by default, sized so that the demo toolbox's
    /// prompt (about 550 tokens) and a few rounds fit.
    pub fn config(&self, vocab_size: usize) -> ModelConfig {
        let small = ModelConfig::small(
            vocab_size,
            self.hidden.unwrap_or(DEFAULT_HIDDEN),
            self.layers.unwrap_or(DEFAULT_LAYERS),
        );
        let heads = self.heads.unwrap_or(small.num_attention_heads);
        ModelConfig {
            // `<|im_end|>` in the bundled tokenizer.
            eos_token_id: 2,
            num_attention_heads: heads,
            num_key_value_heads: self.kv_heads.unwrap_or((heads / 2).max(1)),
            intermediate_size: self.intermediate.unwrap_or(small.intermediate_size),
            ..small
        }
    }

    /// Checks the flags against a model given to start from (`--init-from`),
    /// whose shape they cannot change but its depth, which only grows.
    pub fn check_against(&self, model: &ModelConfig, flag: &str) -> Result<(), String> {
        let fixed = [
            ("--hidden", self.hidden, model.hidden_size),
            ("--heads", self.heads, model.num_attention_heads),
            ("--kv-heads", self.kv_heads, model.num_key_value_heads),
            ("--intermediate", self.intermediate, model.intermediate_size),
        ];
        for (name, given, has) in fixed {
            if let Some(given) = given.filter(|&g| g != has) {
                return Err(format!(
                    "{flag} sets the shape: expected {name} {has} as its model has, or none, found {given}"
                ));
            }
        }
        match self.layers {
            Some(n) if n < model.num_hidden_layers => Err(format!(
                "expected --layers of at least the {} layers of {flag}'s model (a model only grows deeper), found {n}",
                model.num_hidden_layers
            )),
            _ => Ok(()),
        }
    }
}
