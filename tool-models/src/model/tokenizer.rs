//! The model's tokenizer: prompts to token ids and back.

use super::ModelError;

/// A model's tokenizer, wrapping a [`tokenizers::Tokenizer`].
///
/// [`encode`](Tokenizer::encode) adds no special tokens: a prompt rendered by
/// a chat template already holds them as text (`<|im_start|>`, the BOS
/// token, …), and transformers' `apply_chat_template(tokenize=True)` encodes
/// it the same way, so BOS is never doubled.
#[derive(Clone, Debug)]
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    vocab_size: usize,
    plain_text: PlainText,
}

/// What the model's files say plain text gets (text no chat template
/// rendered, which holds no special tokens of its own).
#[derive(Clone, Copy, Debug)]
enum PlainText {
    /// What `tokenizer.json`'s post-processor adds, as transformers'
    /// `tokenizer(text)` does.
    PostProcessor,
    /// This BOS token first (a GGUF file's `tokenizer.ggml.add_bos_token`).
    Bos(u32),
    /// Nothing.
    Nothing,
}

impl Tokenizer {
    /// Wraps a loaded `tokenizers` tokenizer.
    pub fn new(inner: tokenizers::Tokenizer) -> Tokenizer {
        let vocab_size = inner
            .get_vocab(true)
            .values()
            .max()
            .map_or(0, |&id| id as usize + 1);
        Tokenizer {
            inner,
            vocab_size,
            plain_text: PlainText::PostProcessor,
        }
    }

    /// This tokenizer, starting plain text with `bos` (or with nothing):
    /// for tokenizers whose flags live outside the `tokenizers` model,
    /// such as a GGUF file's `tokenizer.ggml.add_bos_token`.
    pub(crate) fn with_plain_text_bos(mut self, bos: Option<u32>) -> Tokenizer {
        self.plain_text = bos.map_or(PlainText::Nothing, PlainText::Bos);
        self
    }

    /// Token ids of plain text, with the special tokens the model's files
    /// say plain text gets (Gemma's and Llama's BOS): what transformers'
    /// `tokenizer(text)` and llama.cpp's tokenizer give. A prompt rendered
    /// by a chat template holds its special tokens already: encode it with
    /// [`encode`](Self::encode).
    pub fn encode_text(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        match self.plain_text {
            PlainText::PostProcessor => self
                .inner
                .encode(text, true)
                .map(|e| e.get_ids().to_vec())
                .map_err(|e| ModelError::Tokenize(format!("cannot encode text: {e}"))),
            PlainText::Bos(bos) => {
                let mut ids = vec![bos];
                ids.extend(self.encode(text)?);
                Ok(ids)
            }
            PlainText::Nothing => self.encode(text),
        }
    }

    /// Token ids of `text`, special tokens written as text included, with no
    /// special tokens added.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        self.inner
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| ModelError::Tokenize(format!("cannot encode text: {e}")))
    }

    /// The text of `ids`, special tokens included as text.
    pub fn decode(&self, ids: &[u32]) -> Result<String, ModelError> {
        self.inner
            .decode(ids, false)
            .map_err(|e| ModelError::Tokenize(format!("cannot decode {} tokens: {e}", ids.len())))
    }

    /// One past the largest token id (added tokens included).
    pub fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// The id of `token` (a vocabulary entry or an added token), if it has one.
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    /// The vocabulary entry of `id`, in the tokenizer's own spelling (byte-level
    /// tokens spell a space `Ġ`).
    pub fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id)
    }

    /// The wrapped tokenizer (constrained decoding builds its token trie from it).
    pub fn inner(&self) -> &tokenizers::Tokenizer {
        &self.inner
    }
}
