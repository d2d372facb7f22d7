//! One case's outcome, as the report keeps it and `--resume` reads it back.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_runtime::{Message, ToolCall};

use super::multi_turn::TurnLog;
use super::{Case, Category, Verdict};

/// One case's outcome: what the model was asked and wrote, and the verdict.
/// A report's cases read back (`--resume`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// BFCL's id.
    pub id: String,
    /// Its category.
    pub category: Category,
    /// The conversation the model was given.
    pub messages: Vec<Message>,
    /// The rendered prompt, where the engine renders it here (local models,
    /// raw completions); a tool API renders its own.
    pub prompt: Option<String>,
    /// What the model wrote: raw text with its tool-call markup, or the
    /// text beside the calls a tool API returned.
    pub raw: String,
    /// The calls read from it.
    pub calls: Vec<ToolCall>,
    /// The calls as BFCL's decoder reads them (`[{name: {args}}]`), when readable.
    pub decoded: Option<Vec<Value>>,
    /// Why no call could be read, when none could.
    pub decode_error: Option<String>,
    /// Whether the answer is right.
    pub valid: bool,
    /// BFCL's error type when it is not (`inference_error` when the
    /// engine failed).
    pub error_type: Option<String>,
    /// What was wrong.
    pub errors: Vec<String>,
    /// The engine's error, when asking failed (the case counts as wrong).
    pub engine_error: Option<String>,
    /// Seconds from asking to the answer.
    pub seconds: f64,
    /// Tokens in the prompt (as the engine counts them).
    pub prompt_tokens: usize,
    /// Tokens generated.
    pub generated_tokens: usize,
    /// A multi-turn case's turns: each step's calls and results, and what
    /// the turn ended with (empty for single-turn cases).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnLog>,
}

impl CaseResult {
    /// A result for `case` with nothing asked yet: wrong, no output.
    pub(super) fn blank(case: &Case, seconds: f64) -> CaseResult {
        CaseResult {
            id: case.id.clone(),
            category: case.category,
            messages: case.messages.clone(),
            prompt: None,
            raw: String::new(),
            calls: Vec::new(),
            decoded: None,
            decode_error: None,
            valid: false,
            error_type: None,
            errors: Vec::new(),
            engine_error: None,
            seconds,
            prompt_tokens: 0,
            generated_tokens: 0,
            turns: Vec::new(),
        }
    }

    /// Takes the checker's verdict.
    pub(super) fn judged(&mut self, verdict: Verdict) {
        self.valid = verdict.valid;
        self.error_type = verdict.error_type;
        self.errors = verdict.errors;
    }

    /// The engine failed: wrong whatever the category, since a failed
    /// engine has shown nothing, not the absence of a call.
    pub(super) fn failed(&mut self, why: String) {
        self.valid = false;
        self.error_type = Some("inference_error".into());
        self.errors = vec![why.clone()];
        self.engine_error = Some(why);
    }
}
