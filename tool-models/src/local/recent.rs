//! The tokens of recent turns, so that a prompt continuing any of them
//! keeps the tokens the KV cache holds for it.
//!
//! The model may write its text in other tokens than the tokenizer would
//! choose (a grammar allows any spelling), and re-tokenising would then
//! break the match with the KV cache at the first such token. A server
//! interleaves conversations, so one last turn is not enough: each
//! conversation's latest turn is kept.

use crate::model::{ModelError, Tokenizer};
use std::collections::VecDeque;

/// Turns kept: as many conversations as a server usefully interleaves
/// (the session keeps their caches within its KV budget); each costs its
/// text and tokens.
const KEPT_TURNS: usize = 32;

/// Recent turns' prompt and output, text and tokens, newest first.
#[derive(Default)]
pub(super) struct RecentTurns {
    turns: VecDeque<Turn>,
}

struct Turn {
    text: String,
    tokens: Vec<u32>,
}

impl RecentTurns {
    /// Remembers a turn, forgetting those it continues (its tokens start
    /// with theirs) and the oldest beyond [`KEPT_TURNS`].
    pub(super) fn push(&mut self, text: String, tokens: Vec<u32>) {
        self.turns
            .retain(|t| !(text.starts_with(&t.text) && tokens.starts_with(&t.tokens)));
        self.turns.push_front(Turn { text, tokens });
        self.turns.truncate(KEPT_TURNS);
    }

    /// Tokenises `text`: where it starts with a kept turn's text (the
    /// longest such), those tokens are kept and only the rest is
    /// tokenised; it starts after the end-of-turn token, where the
    /// tokenizer splits anyway.
    pub(super) fn encode(&self, tokenizer: &Tokenizer, text: &str) -> Result<Vec<u32>, ModelError> {
        let continued = (self.turns.iter())
            .filter(|t| text.starts_with(&t.text))
            .max_by_key(|t| t.text.len());
        match continued {
            Some(turn) => {
                let mut tokens = turn.tokens.clone();
                tokens.extend(tokenizer.encode(&text[turn.text.len()..])?);
                Ok(tokens)
            }
            None => tokenizer.encode(text),
        }
    }
}
