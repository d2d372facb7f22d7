//! One generation under a compiled grammar: llguidance's matcher behind the
//! [`TokenConstraint`](crate::generate::TokenConstraint) calls.

use super::TokenEnv;
use crate::generate::{TokenConstraintError, TokenSet};
use llguidance::api::TopLevelGrammar;
use llguidance::Matcher;

/// Calls `f` with the index of every set bit of `words` (of every clear bit
/// when `clear`).
fn for_each_bit(words: &[u32], clear: bool, mut f: impl FnMut(u32)) {
    for (i, &word) in words.iter().enumerate() {
        let mut w = if clear { !word } else { word };
        while w != 0 {
            f(i as u32 * 32 + w.trailing_zeros());
            w &= w - 1;
        }
    }
}

/// llguidance's message without the backtrace it appends to a caught panic.
fn clean(message: &str) -> String {
    message
        .split("\n<backtrace>")
        .next()
        .unwrap_or(message)
        .trim()
        .to_owned()
}

/// The longest run of digits a session lets grow. JSON numbers in the
/// grammar have no length limit (llguidance's number lexeme allows any number
/// of fraction digits), and a weak model can loop on a digit until its token
/// budget runs out, leaving a cut-off call. No f64 needs more than 17
/// significant digits, and integers are bounded to 19 by the schema pass.
const MAX_DIGIT_RUN: usize = 24;

/// A matcher and the vocabulary its masks range over.
#[derive(Clone)]
pub(crate) struct Session {
    matcher: Matcher,
    env: TokenEnv,
    /// Consecutive ASCII digits at the end of the output so far.
    digit_run: usize,
}

impl Session {
    /// Compiles `grammar` for `env`.
    pub(crate) fn new(env: &TokenEnv, grammar: TopLevelGrammar) -> Result<Session, String> {
        let parser = env
            .factory()
            .create_parser(grammar)
            .map_err(|e| clean(&e.to_string()))?;
        let matcher = Matcher::new(Ok(parser));
        if let Some(e) = matcher.get_error() {
            return Err(clean(&e));
        }
        Ok(Session {
            matcher,
            env: env.clone(),
            digit_run: 0,
        })
    }

    /// The tokens allowed next; only end of sequence once the grammar is done.
    pub(crate) fn allowed(&mut self) -> Result<TokenSet, TokenConstraintError> {
        let vob = self
            .matcher
            .compute_mask_or_eos()
            .map_err(|e| TokenConstraintError(clean(&e.to_string())))?;
        // `TokenSet` grows one id at a time, so start from whichever of
        // empty and full is nearer: most masks (free text, JSON strings)
        // allow nearly every token, and copying the full set is a memcpy.
        let words = vob.as_slice();
        let allowed: usize = words.iter().map(|w| w.count_ones() as usize).sum();
        let vocab = self.env.vocab_size();
        let set = if allowed * 2 > vocab {
            let mut set = self.env.full_set().clone();
            for_each_bit(words, true, |id| set.remove(id));
            set
        } else {
            let mut set = TokenSet::empty(vocab);
            for_each_bit(words, false, |id| set.insert(id));
            set
        };
        if set.is_empty() {
            return Err(TokenConstraintError(
                "the grammar allows no token here (not even end of sequence)".into(),
            ));
        }
        if self.digit_run >= MAX_DIGIT_RUN {
            return Ok(self.end_digit_run(set));
        }
        Ok(set)
    }

    /// `set` without the tokens that would lengthen the digit run, unless
    /// nothing else is allowed.
    fn end_digit_run(&self, set: TokenSet) -> TokenSet {
        let mut ended = set.clone();
        for id in set.iter() {
            if self
                .env
                .token_bytes(id)
                .first()
                .is_some_and(u8::is_ascii_digit)
            {
                ended.remove(id);
            }
        }
        if ended.is_empty() {
            set
        } else {
            ended
        }
    }

    /// Advances past `token`.
    pub(crate) fn commit(&mut self, token: u32) -> Result<(), TokenConstraintError> {
        if let Some(e) = self.matcher.get_error() {
            return Err(TokenConstraintError(clean(&e)));
        }
        if self.matcher.is_stopped() {
            return Err(TokenConstraintError(format!(
                "token {token} came after the constrained output was complete"
            )));
        }
        self.matcher.consume_token(token).map_err(|e| {
            TokenConstraintError(format!(
                "token {token} is not allowed here: {}",
                clean(&e.to_string())
            ))
        })?;
        let bytes = self.env.token_bytes(token);
        let trailing = bytes
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit())
            .count();
        self.digit_run = if trailing == bytes.len() && !bytes.is_empty() {
            self.digit_run + trailing
        } else {
            trailing
        };
        Ok(())
    }

    /// Whether the grammar is complete and nothing may follow.
    pub(crate) fn finished(&self) -> bool {
        self.matcher.is_stopped()
    }
}

/// Implements [`TokenConstraint`](crate::generate::TokenConstraint) for a
/// constraint type by forwarding to its `session: Session` field. Every
/// grammar-backed constraint is a compiled session plus how it was built, so
/// the token-by-token behaviour is written once, here.
macro_rules! forward_constraint_to_session {
    ($ty:ty) => {
        impl $crate::generate::TokenConstraint for $ty {
            fn allowed(
                &mut self,
            ) -> Result<Option<$crate::generate::TokenSet>, $crate::generate::TokenConstraintError>
            {
                self.session.allowed().map(Some)
            }

            fn commit(&mut self, token: u32) -> Result<(), $crate::generate::TokenConstraintError> {
                self.session.commit(token)
            }

            fn finished(&self) -> bool {
                self.session.finished()
            }
        }
    };
}
pub(crate) use forward_constraint_to_session;
