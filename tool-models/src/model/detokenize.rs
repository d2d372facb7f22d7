//! Turning tokens into text as they are generated.
//!
//! A token may end in the middle of a UTF-8 character (byte-level BPE), and
//! some decoders change a token's text by what precedes it (SentencePiece
//! strips the leading space of the first token). So each step decodes a
//! window of recent tokens twice, with and without the new token, and emits
//! the difference, holding it back while it ends in U+FFFD (an incomplete
//! character). The window restarts after each emitted delta, so each step
//! costs only the tokens since the last complete character.

use super::{ModelError, Tokenizer};

const REPLACEMENT: char = '\u{FFFD}';

/// Streams the text of tokens pushed one at a time. The deltas concatenate
/// to the decoding of all the tokens at once.
#[derive(Debug, Clone)]
pub struct IncrementalDecoder<'t> {
    tokenizer: &'t Tokenizer,
    /// Tokens from the start of the window.
    window: Vec<u32>,
    /// How many tokens of `window` have been emitted as text.
    read: usize,
    /// The text of `window[..read]`.
    read_text: String,
}

impl Tokenizer {
    /// A decoder that turns tokens into text one at a time, for streaming.
    pub fn incremental(&self) -> IncrementalDecoder<'_> {
        IncrementalDecoder::new(self)
    }
}

impl<'t> IncrementalDecoder<'t> {
    /// A decoder with nothing pushed yet.
    pub fn new(tokenizer: &'t Tokenizer) -> IncrementalDecoder<'t> {
        IncrementalDecoder {
            tokenizer,
            window: Vec::new(),
            read: 0,
            read_text: String::new(),
        }
    }

    /// Adds a token; returns the text it completes (often empty while a
    /// character is incomplete).
    pub fn push(&mut self, id: u32) -> Result<String, ModelError> {
        self.window.push(id);
        let text = self.tokenizer.decode(&self.window)?;
        if text.len() <= self.read_text.len() || text.ends_with(REPLACEMENT) {
            return Ok(String::new());
        }
        let delta = delta(&self.read_text, &text);
        // Restart the window at the new token: everything before it is
        // complete text now.
        self.window.drain(..self.read);
        self.read = self.window.len();
        self.read_text = self.tokenizer.decode(&self.window)?;
        Ok(delta)
    }

    /// The text still held back (an incomplete character, as U+FFFD).
    pub fn finish(&mut self) -> Result<String, ModelError> {
        let text = self.tokenizer.decode(&self.window)?;
        let delta = if text.len() > self.read_text.len() {
            delta(&self.read_text, &text)
        } else {
            String::new()
        };
        self.window.clear();
        self.read = 0;
        self.read_text.clear();
        Ok(delta)
    }
}

/// What `text` adds after `prefix`.
fn delta(prefix: &str, text: &str) -> String {
    match text.strip_prefix(prefix) {
        Some(rest) => rest.to_owned(),
        // A decoder that rewrote earlier text: emit from the first char
        // boundary after the old text's length.
        None => {
            let mut at = prefix.len().min(text.len());
            while !text.is_char_boundary(at) {
                at += 1;
            }
            text[at..].to_owned()
        }
    }
}
