//! Token counts and timings: of one generation (a turn), and of a whole run.

use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

/// Token counts of one answer, as OpenAI-compatible APIs report them in
/// `usage`: what the server sends and what the remote client reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens of the prompt.
    pub prompt_tokens: usize,
    /// Tokens generated.
    pub completion_tokens: usize,
    /// Prompt tokens served from the engine's cache
    /// (`prompt_tokens_details.cached_tokens`), when it says.
    pub cached_tokens: Option<usize>,
}

impl Usage {
    /// Reads a `usage` object; `None` without a `prompt_tokens` count.
    pub fn from_json(usage: &Value) -> Option<Usage> {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).map(|n| n as usize);
        Some(Usage {
            prompt_tokens: count("prompt_tokens")?,
            completion_tokens: count("completion_tokens").unwrap_or(0),
            cached_tokens: usage
                .get("prompt_tokens_details")
                .and_then(|d| d.get("cached_tokens"))
                .and_then(Value::as_u64)
                .map(|n| n as usize),
        })
    }

    /// The `usage` object, with `total_tokens`, and the cached count when
    /// known.
    pub fn to_json(self) -> Value {
        let mut usage = json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        });
        if let Some(cached) = self.cached_tokens {
            usage["prompt_tokens_details"] = json!({ "cached_tokens": cached });
        }
        usage
    }
}

/// What one generation cost: an agent's turn, a bare
/// `generate` call (the `local` feature), a served answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TurnStats {
    /// Tokens in the rendered prompt.
    pub prompt_tokens: usize,
    /// Prompt tokens whose keys and values were already cached (prefix reuse).
    pub reused_tokens: usize,
    /// Tokens generated.
    pub generated_tokens: usize,
    /// Time to run the new prompt tokens through the model.
    #[serde(serialize_with = "secs")]
    pub prefill: Duration,
    /// Time to generate the tokens after the first.
    #[serde(serialize_with = "secs")]
    pub decode: Duration,
    /// From the start of the turn to the first generated token.
    #[serde(serialize_with = "secs")]
    pub time_to_first_token: Duration,
}

/// The token counts an engine reported, no timings; an unknown cached count
/// is taken as none reused.
impl From<Usage> for TurnStats {
    fn from(usage: Usage) -> TurnStats {
        TurnStats {
            prompt_tokens: usage.prompt_tokens,
            reused_tokens: usage.cached_tokens.unwrap_or(0),
            generated_tokens: usage.completion_tokens,
            ..TurnStats::default()
        }
    }
}

impl TurnStats {
    /// The token counts, as `usage` reports them.
    pub fn usage(&self) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.generated_tokens,
            cached_tokens: Some(self.reused_tokens),
        }
    }

    /// Prompt tokens run per second (reused ones not counted).
    pub fn prefill_tokens_per_second(&self) -> f64 {
        rate(
            self.prompt_tokens.saturating_sub(self.reused_tokens),
            self.prefill.as_secs_f64(),
        )
    }

    /// Generated tokens per second after the first (the first belongs to
    /// prefill).
    pub fn decode_tokens_per_second(&self) -> f64 {
        rate(
            self.generated_tokens.saturating_sub(1),
            self.decode.as_secs_f64(),
        )
    }
}

/// Totals over the turns of an agent run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunStats {
    /// Rounds (model turns) the run took.
    pub rounds: usize,
    /// Sum of the turns' prompt tokens.
    pub prompt_tokens: usize,
    /// Sum of the prompt tokens served from the cache.
    pub reused_tokens: usize,
    /// Sum of the generated tokens.
    pub generated_tokens: usize,
    /// Prompt tokens run through the model per second of prefill.
    pub prefill_tokens_per_s: f64,
    /// Generated tokens per second of decoding (the first token of each turn
    /// belongs to prefill).
    pub decode_tokens_per_s: f64,
    /// Time to the first token of the first turn, in seconds.
    pub time_to_first_token_s: f64,
    /// Wall time of the whole run (tools included), in seconds.
    pub wall_s: f64,
    /// Each turn.
    pub turns: Vec<TurnStats>,
}

impl RunStats {
    /// Folds in one turn.
    pub fn add(&mut self, turn: TurnStats) {
        if self.turns.is_empty() {
            self.time_to_first_token_s = turn.time_to_first_token.as_secs_f64();
        }
        self.rounds += 1;
        self.prompt_tokens += turn.prompt_tokens;
        self.reused_tokens += turn.reused_tokens;
        self.generated_tokens += turn.generated_tokens;
        self.turns.push(turn);
        let prefill: f64 = self.turns.iter().map(|t| t.prefill.as_secs_f64()).sum();
        let decode: f64 = self.turns.iter().map(|t| t.decode.as_secs_f64()).sum();
        let computed = self.prompt_tokens - self.reused_tokens;
        let decoded: usize = self
            .turns
            .iter()
            .map(|t| t.generated_tokens.saturating_sub(1))
            .sum();
        self.prefill_tokens_per_s = rate(computed, prefill);
        self.decode_tokens_per_s = rate(decoded, decode);
    }
}

fn rate(tokens: usize, seconds: f64) -> f64 {
    if seconds > 0.0 {
        tokens as f64 / seconds
    } else {
        0.0
    }
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}
