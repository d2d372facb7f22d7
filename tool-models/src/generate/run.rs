//! The generation loop.

use super::sampler::Sampler;
use super::stop::StopMatcher;
use super::{CancelFlag, GenerateError, GenerateOptions, Generation, StopReason, TokenConstraint};
use crate::agent::TurnStats;
use crate::model::Model;
use std::time::{Duration, Instant};

impl Model {
    /// Generates a continuation of `prompt` (token ids, e.g. from
    /// [`Tokenizer::encode`](crate::model::Tokenizer::encode) of a rendered
    /// chat template).
    ///
    /// Before each token, `constraint` (if any) says which tokens are
    /// allowed and the others are masked; each generated token is committed
    /// to it, and generation stops once it reports
    /// [`finished`](TokenConstraint::finished). `on_text` receives the text
    /// as it is decoded, in deltas that concatenate to
    /// [`Generation::text`]: an incomplete UTF-8 character, and text that
    /// may be the start of a stop string, are held back until resolved.
    ///
    /// The KV cache is reused where `prompt` extends what it holds (see
    /// [`crate::generate`]).
    pub fn generate(
        &mut self,
        prompt: &[u32],
        options: &GenerateOptions,
        mut constraint: Option<&mut dyn TokenConstraint>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, GenerateError> {
        options.check().map_err(GenerateError::InvalidOptions)?;
        let start = Instant::now();
        let (mut logits, reused) = self.prefill(prompt)?;
        let prefill_time = start.elapsed();

        let own_eos = if options.ignore_eos {
            &[][..]
        } else {
            self.eos_token_ids()
        };
        let eos: Vec<u32> = own_eos
            .iter()
            .chain(&options.eos_token_ids)
            .copied()
            .collect();
        let mut sampler = Sampler::new(options);
        let tokenizer = self.shared_tokenizer();
        let mut decoder = tokenizer.incremental();
        let mut stops = StopMatcher::new(&options.stop_strings);
        let mut tokens: Vec<u32> = Vec::new();
        let mut first_token_at: Option<Instant> = None;

        let mut stop_reason = loop {
            if constraint.as_ref().is_some_and(|c| c.finished()) {
                break StopReason::ConstraintFinished;
            }
            if tokens.len() >= options.max_new_tokens {
                break StopReason::MaxTokens;
            }
            if options
                .cancel
                .as_ref()
                .is_some_and(CancelFlag::is_cancelled)
            {
                break StopReason::Cancelled;
            }
            let allowed = match constraint.as_mut() {
                Some(c) => c.allowed()?,
                None => None,
            };
            let step = tokens.len();
            let Some(token) = sampler.sample(&mut logits, allowed.as_ref()) else {
                return Err(GenerateError::AllMasked {
                    step,
                    reason: if allowed.is_some() {
                        "the constraint allows no token with a finite logit".into()
                    } else {
                        "the model gave no token a finite logit".into()
                    },
                });
            };
            first_token_at.get_or_insert_with(Instant::now);
            if let Some(c) = constraint.as_mut() {
                c.commit(token)?;
            }
            tokens.push(token);
            if eos.contains(&token) {
                break StopReason::Eos(token);
            }
            let delta = decoder.push(token)?;
            let released = stops.push(&delta);
            on_text(released.text);
            if let Some(stop) = released.stop {
                break StopReason::StopString(stop.to_owned());
            }
            if constraint.as_ref().is_some_and(|c| c.finished()) {
                break StopReason::ConstraintFinished;
            }
            if tokens.len() >= options.max_new_tokens {
                break StopReason::MaxTokens;
            }
            if prompt.len() + tokens.len() > self.context_length() {
                break StopReason::ContextFull;
            }
            logits = self.advance(token)?;
        };

        if !matches!(stop_reason, StopReason::StopString(_)) {
            let rest = decoder.finish()?;
            let released = stops.push(&rest);
            on_text(released.text);
            if let Some(stop) = released.stop {
                stop_reason = StopReason::StopString(stop.to_owned());
            } else {
                on_text(stops.finish());
            }
        }
        let end = Instant::now();
        let (time_to_first_token, decode_time) = match first_token_at {
            Some(first) => (first - start, end - first),
            None => (end - start, Duration::ZERO),
        };
        let generated_tokens = tokens.len();
        Ok(Generation {
            tokens,
            text: stops.into_text(),
            stop_reason,
            stats: TurnStats {
                prompt_tokens: prompt.len(),
                reused_tokens: reused,
                generated_tokens,
                prefill: prefill_time,
                decode: decode_time,
                time_to_first_token,
            },
        })
    }
}
