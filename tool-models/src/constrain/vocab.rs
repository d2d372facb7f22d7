//! The bytes each token stands for, read from a Hugging Face tokenizer, and
//! the llguidance state built over them once per model.
//!
//! Byte-level BPE vocabularies (GPT-2, Llama 3, Qwen) spell bytes as chars
//! through GPT-2's byte↔char table; SentencePiece-style vocabularies (Llama 2,
//! Mistral, TinyLlama) write `▁` for a space and `<0xNN>` for byte fallback.
//! Added tokens marked `special` become llguidance special tokens (a `0xFF`
//! byte, then their text), so a grammar can name them and free text cannot
//! produce them; other added tokens are plain text.

use super::ConstrainError;
use crate::generate::TokenSet;
use crate::model::Model;
use llguidance::earley::SlicedBiasComputer;
use llguidance::toktrie::{
    InferenceCapabilities, TokEnv, TokRxInfo, TokTrie, TokenId, TokenizerEnv,
};
use llguidance::ParserFactory;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use tokenizers::Tokenizer;

/// A model's vocabulary as llguidance sees it: built once per model (it
/// indexes every token), then shared by every constraint; cloning is cheap.
#[derive(Clone)]
pub struct TokenEnv {
    inner: Arc<Inner>,
}

struct Inner {
    factory: ParserFactory,
    eos: Vec<u32>,
    /// Every id: masks that allow most tokens start from a copy of it.
    full: TokenSet,
}

impl std::fmt::Debug for TokenEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenEnv")
            .field("vocab_size", &self.vocab_size())
            .field("eos", &self.inner.eos)
            .finish()
    }
}

impl TokenEnv {
    /// The environment of `tokenizer`, whose generation ends at any of `eos_ids`.
    pub fn new(tokenizer: &Tokenizer, eos_ids: &[u32]) -> Result<TokenEnv, ConstrainError> {
        TokenEnv::build(tokenizer, eos_ids, None)
    }

    /// As [`TokenEnv::new`], for a model whose output layer has `vocab_size`
    /// rows, more than the tokenizer defines (padding rows are never allowed).
    pub fn for_vocab_size(
        tokenizer: &Tokenizer,
        eos_ids: &[u32],
        vocab_size: usize,
    ) -> Result<TokenEnv, ConstrainError> {
        TokenEnv::build(tokenizer, eos_ids, Some(vocab_size))
    }

    /// The environment of `model`'s vocabulary, built on the first call
    /// and shared by every later call for the same loaded model: two chats
    /// on one `Arc<Model>` index its tokens once. The cache holds the model's
    /// tokenizer weakly, so a dropped model's environment goes with the
    /// next call.
    pub fn of_model(model: &Model) -> Result<TokenEnv, ConstrainError> {
        type Built = Vec<(Weak<crate::model::Tokenizer>, TokenEnv)>;
        static BUILT: Mutex<Built> = Mutex::new(Vec::new());
        let tokenizer = model.shared_tokenizer();
        // A poisoned lock only means another thread panicked mid-build; the
        // list itself is always whole.
        let find = |built: &mut Built| {
            built.retain(|(weak, _)| weak.strong_count() > 0);
            built
                .iter()
                .find(|(weak, _)| std::ptr::eq(weak.as_ptr(), Arc::as_ptr(&tokenizer)))
                .map(|(_, env)| env.clone())
        };
        if let Some(env) = find(&mut BUILT.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(env);
        }
        // Built outside the lock: it takes a while for a large vocabulary,
        // and other models' chats should not wait for it.
        let env =
            TokenEnv::for_vocab_size(tokenizer.inner(), model.eos_token_ids(), model.vocab_size())?;
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(first) = find(&mut built) {
            return Ok(first);
        }
        built.push((Arc::downgrade(&tokenizer), env.clone()));
        Ok(env)
    }

    fn build(
        tokenizer: &Tokenizer,
        eos_ids: &[u32],
        vocab_size: Option<usize>,
    ) -> Result<TokenEnv, ConstrainError> {
        let mut words = token_bytes(tokenizer)?;
        if let Some(n) = vocab_size {
            if n < words.len() {
                return Err(ConstrainError::VocabSize {
                    model: n,
                    tokenizer: words.len(),
                });
            }
            words.resize(n, Vec::new());
        }
        let size = words.len();
        let Some(&first) = eos_ids.first() else {
            return Err(ConstrainError::Eos(
                "expected at least one end-of-sequence id, found none".into(),
            ));
        };
        if let Some(bad) = eos_ids.iter().find(|&&id| id as usize >= size) {
            return Err(ConstrainError::Eos(format!(
                "id {bad} is outside the vocabulary of {size} tokens"
            )));
        }
        let size32 = u32::try_from(size).map_err(|_| {
            ConstrainError::Tokenizer(format!("{size} tokens is more than ids can number"))
        })?;
        let trie = TokTrie::from(&TokRxInfo::new(size32, first), &words).with_eos_tokens(eos_ids);
        let env: TokEnv = Arc::new(TrieEnv { trie });
        let mut factory = ParserFactory::new(&env, InferenceCapabilities::default(), &slices())
            .map_err(|e| ConstrainError::Tokenizer(e.to_string()))?;
        factory.quiet();
        Ok(TokenEnv {
            inner: Arc::new(Inner {
                factory,
                eos: eos_ids.to_vec(),
                full: TokenSet::full(size),
            }),
        })
    }

    /// Whether `a` and `b` are one build: clones of each other, or both
    /// from [`TokenEnv::of_model`] for the same loaded model.
    pub fn ptr_eq(a: &TokenEnv, b: &TokenEnv) -> bool {
        Arc::ptr_eq(&a.inner, &b.inner)
    }

    /// Number of token ids (the length of every mask).
    pub fn vocab_size(&self) -> usize {
        self.trie().vocab_size()
    }

    /// The end-of-sequence ids.
    pub fn eos_ids(&self) -> &[u32] {
        &self.inner.eos
    }

    /// The id of the special (not plain-text) token written `text`.
    pub fn special_token(&self, text: &str) -> Option<u32> {
        self.trie().get_special_token(text)
    }

    /// The bytes token `id` stands for (empty for special and unknown ids).
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        let trie = self.trie();
        if id as usize >= trie.vocab_size() || trie.is_special_token(id) {
            return &[];
        }
        trie.token(id)
    }

    pub(crate) fn full_set(&self) -> &TokenSet {
        &self.inner.full
    }

    pub(crate) fn factory(&self) -> &ParserFactory {
        &self.inner.factory
    }

    fn trie(&self) -> &TokTrie {
        self.inner.factory.tok_env().tok_trie()
    }
}

/// Token classes llguidance may allow wholesale when the lexer admits all
/// of a class, instead of walking the trie token by token: its JSON-string
/// classes, and the same without `<`, for strings that may not contain a
/// `<`-led end marker (hermes `</tool_call>`, see `narrow`): outside a
/// partial marker such strings admit every `<`-free token at once.
fn slices() -> Vec<String> {
    let mut s = SlicedBiasComputer::json_slices();
    for n in ["{1,10}", "{1,30}", "+"] {
        s.push(format!(r#"[^"\\\x00-\x1F\x7F<]{n}"#));
    }
    s
}

/// The trie as llguidance's tokenizer interface.
struct TrieEnv {
    trie: TokTrie,
}

impl TokenizerEnv for TrieEnv {
    fn tok_trie(&self) -> &TokTrie {
        &self.trie
    }

    // llguidance tokenizes only to fast-forward forced text, which the
    // generation interface does not use; greedy is exact in bytes and cannot
    // fail, and `tokenize_is_canonical` tells llguidance not to rely on it.
    fn tokenize_bytes(&self, s: &[u8]) -> Vec<TokenId> {
        self.trie.greedy_tokenize(s)
    }

    fn tokenize_is_canonical(&self) -> bool {
        false
    }
}

/// How a vocabulary writes bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Spelling {
    /// GPT-2's byte↔char table.
    ByteLevel,
    /// Text with `space` for spaces, and `<0xNN>` tokens when `fallback`.
    Pieces { space: char, fallback: bool },
}

/// The bytes of every token id, indexed by id (empty for ids with no token).
fn token_bytes(tokenizer: &Tokenizer) -> Result<Vec<Vec<u8>>, ConstrainError> {
    let spelling = spelling(tokenizer)?;
    let vocab = tokenizer.get_vocab(true);
    let added = tokenizer.get_added_tokens_decoder();
    let size = vocab
        .values()
        .chain(added.keys())
        .map(|&id| id as usize + 1)
        .max()
        .unwrap_or(0);
    let chars = char_to_byte();
    let mut words = vec![Vec::new(); size];
    for (id, word) in words.iter_mut().enumerate() {
        let id = id as u32;
        if let Some(t) = added.get(&id) {
            *word = if t.special {
                let mut w = vec![TokTrie::SPECIAL_TOKEN_MARKER];
                w.extend_from_slice(t.content.as_bytes());
                w
            } else {
                t.content.as_bytes().to_vec()
            };
            continue;
        }
        let Some(piece) = tokenizer.id_to_token(id) else {
            continue;
        };
        *word = match spelling {
            // A char outside the table cannot come from this decoder; such a
            // token keeps no bytes, so no constraint ever allows it.
            Spelling::ByteLevel => piece
                .chars()
                .map(|c| chars.get(&c).copied())
                .collect::<Option<Vec<u8>>>()
                .unwrap_or_default(),
            Spelling::Pieces { space, fallback } => match fallback.then(|| byte_piece(&piece)) {
                Some(Some(b)) => vec![b],
                _ => piece.replace(space, " ").into_bytes(),
            },
        };
    }
    Ok(words)
}

/// `<0xNN>` to the byte NN.
fn byte_piece(piece: &str) -> Option<u8> {
    let hex = piece.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2 {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

/// Reads the decoder's configuration (through serde: its fields are private).
fn spelling(tokenizer: &Tokenizer) -> Result<Spelling, ConstrainError> {
    let decoder = serde_json::to_value(tokenizer.get_decoder())
        .map_err(|e| ConstrainError::Tokenizer(format!("cannot read the decoder: {e}")))?;
    let mut found = Found::default();
    found.visit(&decoder);
    match found {
        Found {
            byte_level: true, ..
        } => Ok(Spelling::ByteLevel),
        Found {
            fallback: true,
            space,
            ..
        } => Ok(Spelling::Pieces {
            space: space.unwrap_or('▁'),
            fallback: true,
        }),
        Found {
            space: Some(space), ..
        } => Ok(Spelling::Pieces {
            space,
            fallback: false,
        }),
        _ => Err(ConstrainError::Tokenizer(format!(
            "expected a ByteLevel, ByteFallback or Metaspace decoder, found {}",
            if decoder.is_null() {
                "none".to_owned()
            } else {
                decoder.to_string()
            }
        ))),
    }
}

#[derive(Default)]
struct Found {
    byte_level: bool,
    fallback: bool,
    space: Option<char>,
}

impl Found {
    fn visit(&mut self, d: &Value) {
        let single = |s: Option<&str>| {
            let mut cs = s?.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => Some(c),
                _ => None,
            }
        };
        match d.get("type").and_then(Value::as_str) {
            Some("ByteLevel") => self.byte_level = true,
            Some("ByteFallback") => self.fallback = true,
            Some("Metaspace") => {
                self.space = single(d.get("replacement").and_then(Value::as_str)).or(self.space)
            }
            Some("Replace") if d.get("content").and_then(Value::as_str) == Some(" ") => {
                let pattern = d.get("pattern").and_then(|p| p.get("String"));
                self.space = single(pattern.and_then(Value::as_str)).or(self.space);
            }
            Some("Sequence") => {
                for sub in d
                    .get("decoders")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.visit(sub);
                }
            }
            _ => {}
        }
    }
}

/// GPT-2's table: printable Latin-1 bytes stand for themselves, the others
/// for the chars from U+0100 on, in byte order.
fn char_to_byte() -> HashMap<char, u8> {
    let mut next = 0x100u32;
    let mut map = HashMap::with_capacity(256);
    for b in 0..=255u8 {
        let printable = matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        let c = if printable {
            char::from(b)
        } else {
            let c = char::from_u32(next).unwrap_or(char::REPLACEMENT_CHARACTER);
            next += 1;
            c
        };
        map.insert(c, b);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpt2_table_is_a_bijection() {
        let map = char_to_byte();
        assert_eq!(map.len(), 256);
        assert_eq!(map[&'Ġ'], b' ');
        assert_eq!(map[&'Ċ'], b'\n');
        assert_eq!(map[&'a'], b'a');
    }

    #[test]
    fn byte_pieces() {
        assert_eq!(byte_piece("<0x0A>"), Some(b'\n'));
        assert_eq!(byte_piece("<0xFF>"), Some(0xFF));
        assert_eq!(byte_piece("<0x0>"), None);
        assert_eq!(byte_piece("hello"), None);
    }
}
