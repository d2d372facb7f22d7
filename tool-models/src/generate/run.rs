//! The generation loop.

use super::decoding::Decoding;
use super::Session;
use super::{GenerateError, GenerateOptions, Generation, TokenConstraint};
use std::time::Instant;

impl Session {
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
        let model = std::sync::Arc::clone(&self.model);
        let tokenizer = model.shared_tokenizer();
        let mut decoding = Decoding::new(
            &model,
            tokenizer.incremental(),
            options,
            prompt.len(),
            reused,
            start,
        );
        loop {
            let constraint = constraint
                .as_mut()
                .map(|c| &mut **c as &mut dyn TokenConstraint);
            match decoding.next(&mut logits, constraint, on_text)? {
                Some(token) => logits = self.advance(token)?,
                None => break,
            }
        }
        decoding.finish(on_text)
    }
}
