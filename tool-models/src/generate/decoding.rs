//! One sequence's decoding, a token at a time: sampling under the
//! constraint, stop conditions, and the text released as it is decoded.
//!
//! [`Session::generate`](super::Session::generate) runs one of these
//! against the model; the server runs one per sequence of a batch, handing
//! each the logits of its row of a batched step.

use super::sampler::Sampler;
use super::stop::StopMatcher;
use super::{GenerateError, GenerateOptions, Generation, StopReason, TokenConstraint};
use crate::model::{IncrementalDecoder, Model};
use crate::stats::TurnStats;
use std::time::{Duration, Instant};
use tool_runtime::CancelToken;

/// The state of one sequence's decoding.
pub(crate) struct Decoding<'t> {
    max_new_tokens: usize,
    cancel: Option<CancelToken>,
    eos: Vec<u32>,
    sampler: Sampler,
    decoder: IncrementalDecoder<'t>,
    stops: StopMatcher,
    tokens: Vec<u32>,
    prompt_tokens: usize,
    context_length: usize,
    /// When the request began, and how long its prompt took.
    start: Instant,
    prefill: Duration,
    reused: usize,
    first_token_at: Option<Instant>,
    stop: Option<StopReason>,
}

impl<'t> Decoding<'t> {
    /// Decoding after a prompt of `prompt_tokens` tokens, `reused` of them
    /// from the cache, which began at `start` and was run by now.
    pub(crate) fn new(
        model: &Model,
        decoder: IncrementalDecoder<'t>,
        options: &GenerateOptions,
        prompt_tokens: usize,
        reused: usize,
        start: Instant,
    ) -> Decoding<'t> {
        let own_eos = if options.ignore_eos {
            &[][..]
        } else {
            model.eos_token_ids()
        };
        Decoding {
            max_new_tokens: options.max_new_tokens,
            cancel: options.cancel.clone(),
            eos: own_eos
                .iter()
                .chain(&options.eos_token_ids)
                .copied()
                .collect(),
            sampler: Sampler::new(options),
            decoder,
            stops: StopMatcher::new(&options.stop_strings),
            tokens: Vec::new(),
            prompt_tokens,
            context_length: model.context_length(),
            start,
            prefill: start.elapsed(),
            reused,
            first_token_at: None,
            stop: None,
        }
    }

    /// Picks the next token from `logits` (the scores after the prompt and
    /// every token so far), commits it to `constraint` and releases its
    /// text to `on_text`. Returns the token to run through the model, whose
    /// logits the next call takes, or `None` once decoding has stopped.
    pub(crate) fn next(
        &mut self,
        logits: &mut [f32],
        mut constraint: Option<&mut dyn TokenConstraint>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Option<u32>, GenerateError> {
        if self.stop.is_some() {
            return Ok(None);
        }
        if let Some(reason) = self.stop_before(constraint.as_deref()) {
            self.stop = Some(reason);
            return Ok(None);
        }
        let allowed = match constraint.as_mut() {
            Some(c) => c.allowed()?,
            None => None,
        };
        let step = self.tokens.len();
        let Some(token) = self.sampler.sample(logits, allowed.as_ref()) else {
            return Err(GenerateError::AllMasked {
                step,
                reason: if allowed.is_some() {
                    "the constraint allows no token with a finite logit".into()
                } else {
                    "the model gave no token a finite logit".into()
                },
            });
        };
        self.first_token_at.get_or_insert_with(Instant::now);
        if let Some(c) = constraint.as_mut() {
            c.commit(token)?;
        }
        self.tokens.push(token);
        if self.eos.contains(&token) {
            self.stop = Some(StopReason::Eos(token));
            return Ok(None);
        }
        let delta = self.decoder.push(token)?;
        let released = self.stops.push(&delta);
        on_text(released.text);
        if let Some(stop) = released.stop {
            self.stop = Some(StopReason::StopString(stop.to_owned()));
            return Ok(None);
        }
        if let Some(reason) = self.stop_before(constraint.as_deref()) {
            self.stop = Some(reason);
            return Ok(None);
        }
        if self.prompt_tokens + self.tokens.len() > self.context_length {
            self.stop = Some(StopReason::ContextFull);
            return Ok(None);
        }
        Ok(Some(token))
    }

    /// Why decoding stops before sampling another token, if it does.
    fn stop_before(&self, constraint: Option<&dyn TokenConstraint>) -> Option<StopReason> {
        if constraint.is_some_and(|c| c.finished()) {
            return Some(StopReason::ConstraintFinished);
        }
        if self.tokens.len() >= self.max_new_tokens {
            return Some(StopReason::MaxTokens);
        }
        self.cancel
            .as_ref()
            .is_some_and(CancelToken::is_cancelled)
            .then_some(StopReason::Cancelled)
    }

    /// Ends decoding once [`next`](Self::next) has stopped it, releasing
    /// the text still held back, and gives the whole generation.
    pub(crate) fn finish(
        mut self,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, GenerateError> {
        // `next` sets the reason whenever it stops.
        let mut stop_reason = self.stop.take().unwrap_or(StopReason::MaxTokens);
        if !matches!(stop_reason, StopReason::StopString(_)) {
            let rest = self.decoder.finish()?;
            let released = self.stops.push(&rest);
            on_text(released.text);
            if let Some(stop) = released.stop {
                stop_reason = StopReason::StopString(stop.to_owned());
            } else {
                on_text(self.stops.finish());
            }
        }
        let end = Instant::now();
        let (time_to_first_token, decode) = match self.first_token_at {
            Some(first) => (first - self.start, end - first),
            None => (end - self.start, Duration::ZERO),
        };
        let generated_tokens = self.tokens.len();
        Ok(Generation {
            tokens: self.tokens,
            text: self.stops.into_text(),
            stop_reason,
            stats: TurnStats {
                prompt_tokens: self.prompt_tokens,
                reused_tokens: self.reused,
                generated_tokens,
                prefill: self.prefill,
                decode,
                time_to_first_token,
            },
        })
    }
}
