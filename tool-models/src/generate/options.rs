//! What a generation is asked to do, and what it reports.

use crate::stats::TurnStats;
use tool_runtime::CancelToken;

/// How to generate. The default is greedy decoding of up to 256 tokens,
/// stopping at the model's end-of-sequence tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    /// The most tokens to generate.
    pub max_new_tokens: usize,
    /// Softmax temperature; 0 means greedy (the most likely token).
    pub temperature: f32,
    /// Nucleus sampling: sample from the smallest set of tokens whose
    /// probabilities add up to at least this (1 disables it).
    pub top_p: f32,
    /// Sample from the `top_k` most likely tokens only (0 disables it).
    pub top_k: usize,
    /// Seed of the sampler; `None` seeds from the operating system.
    pub seed: Option<u64>,
    /// Text that ends generation; it is not part of the returned text.
    pub stop_strings: Vec<String>,
    /// Token ids that end generation besides the model's own eos ids.
    pub eos_token_ids: Vec<u32>,
    /// Keep generating past the model's own eos ids (for benchmarks that
    /// need a fixed number of tokens); `eos_token_ids` still end generation.
    pub ignore_eos: bool,
    /// Ends generation at the next token once cancelled
    /// ([`StopReason::Cancelled`]): a server cancels it when its client goes
    /// away, an agent when its run is cancelled.
    pub cancel: Option<CancelToken>,
}

impl Default for GenerateOptions {
    fn default() -> GenerateOptions {
        GenerateOptions {
            max_new_tokens: 256,
            temperature: 0.0,
            top_p: 1.0,
            top_k: 0,
            seed: None,
            stop_strings: Vec::new(),
            eos_token_ids: Vec::new(),
            ignore_eos: false,
            cancel: None,
        }
    }
}

impl GenerateOptions {
    /// Greedy decoding of at most `max_new_tokens` tokens.
    pub fn greedy(max_new_tokens: usize) -> GenerateOptions {
        GenerateOptions {
            max_new_tokens,
            ..GenerateOptions::default()
        }
    }

    /// Sampling at `temperature` with a fixed `seed`.
    pub fn sampled(max_new_tokens: usize, temperature: f32, seed: u64) -> GenerateOptions {
        GenerateOptions {
            max_new_tokens,
            temperature,
            seed: Some(seed),
            ..GenerateOptions::default()
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        if !self.temperature.is_finite() || self.temperature < 0.0 {
            return Err(format!(
                "temperature must be a finite number >= 0, found {}",
                self.temperature
            ));
        }
        if !(self.top_p > 0.0 && self.top_p <= 1.0) {
            return Err(format!("top_p must be in (0, 1], found {}", self.top_p));
        }
        if self.stop_strings.iter().any(String::is_empty) {
            return Err("stop strings must not be empty".into());
        }
        Ok(())
    }
}

/// Why generation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// The model produced this end-of-sequence token.
    Eos(u32),
    /// The text reached this stop string.
    StopString(String),
    /// `max_new_tokens` tokens were generated.
    MaxTokens,
    /// The constraint reported that its text is complete.
    ConstraintFinished,
    /// The context is full: no more tokens fit.
    ContextFull,
    /// The [`CancelToken`] was cancelled.
    Cancelled,
}

/// The result of a generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// The generated tokens, the end-of-sequence token included when one
    /// ended generation.
    pub tokens: Vec<u32>,
    /// Their text, without the end-of-sequence token, and cut before a stop
    /// string (the token that completed it is still in `tokens`).
    pub text: String,
    /// Why generation ended.
    pub stop_reason: StopReason,
    /// Token counts (`generated_tokens` is `tokens.len()`) and timings.
    pub stats: TurnStats,
}
