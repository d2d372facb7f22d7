//! Loading a local model: a Hugging Face directory or a GGUF file.
//!
//! ```no_run
//! use tool_models::model::Model;
//!
//! let model = Model::load("models/SmolLM2-135M-Instruct")?;
//! let ids = model.tokenizer().encode("<|im_start|>user\nHi<|im_end|>\n")?;
//! println!("{} tokens, eos {:?}", ids.len(), model.eos_token_ids());
//! # Ok::<(), tool_models::model::ModelError>(())
//! ```
//!
//! A model is immutable once loaded: share it (`Arc<Model>`) between
//! threads, agents and servers, each generating in its own
//! [`Session`](crate::generate::Session), which holds the KV caches.
//!
//! Everything runs on the CPU. A Hugging
//! Face directory needs `config.json`, `tokenizer.json` and the weights
//! (`model.safetensors` or a sharded `model.safetensors.index.json`);
//! `tokenizer_config.json` (chat template, special tokens) and
//! `generation_config.json` (eos ids) are read when present. A `.gguf` file
//! holds all of it. Generation is in [`crate::generate`].

mod config;
mod config_readers;
mod dense;
mod detokenize;
mod error;
mod files;
mod gguf;
mod gguf_tokenizer;
mod hf;
mod json;
mod keys;
mod network;
mod rope;
pub mod tiny;
mod tokenizer;
mod weights;

pub use config::SUPPORTED_ARCHITECTURES;
pub use dense::CacheType;
pub use detokenize::IncrementalDecoder;
pub use error::ModelError;
pub use gguf::SUPPORTED_GGUF_ARCHITECTURES;
pub use tokenizer::Tokenizer;

pub(crate) use dense::{KvCache, Scratch};
pub(crate) use error::candle_message;
pub(crate) use network::{Network, Runner, PREFILL_CHUNK};

use crate::setters::setters;
use crate::template::{ChatTemplate, ModelTemplates, TemplateError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A loaded model: network, tokenizer, chat template and special tokens.
///
/// It never changes while it generates: the KV caches live in each
/// [`Session`](crate::generate::Session) on it, so one model, shared in an
/// `Arc`, serves any number of sessions on any threads.
pub struct Model {
    parts: Parts,
    /// `parts.templates` compiled.
    chat_template: Option<ChatTemplate>,
}

/// What a loader found: all of a model but its compiled template. Its
/// fields are private to the loaders, this module's children.
pub(crate) struct Parts {
    path: PathBuf,
    architecture: String,
    /// Shared with constraints and parsers that outlive a borrow.
    tokenizer: Arc<Tokenizer>,
    templates: Option<ModelTemplates>,
    eos_ids: Vec<u32>,
    bos_id: Option<u32>,
    context_length: usize,
    vocab_size: usize,
    parameter_count: Option<u64>,
    network: Network,
    /// How sessions' KV caches keep attention's keys and values.
    cache_type: CacheType,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("path", &self.parts.path)
            .field("architecture", &self.parts.architecture)
            .field("vocab_size", &self.parts.vocab_size)
            .field("context_length", &self.parts.context_length)
            .field("eos_ids", &self.parts.eos_ids)
            .finish_non_exhaustive()
    }
}

/// How [`Model::load_with`] loads a model.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Widens a GGUF file's quantized matrices to f32 at load (on the
    /// project's decoder; candle's quantized models ignore it) and multiplies
    /// in f32 with f32 activations: slower and larger, but the numbers
    /// Python transformers computes from the same file (the default
    /// multiplies as stored, on activations rounded to 8 bits, as llama.cpp
    /// does).
    pub dequantize: bool,
    /// How sessions' KV caches keep attention's keys and values: f32 (the
    /// default, matching transformers) or f16 (as llama.cpp does by
    /// default: half the memory and the bytes read per step; see
    /// [`CacheType`]). Only the project's decoder computes f16; a model
    /// candle-transformers runs refuses it by name.
    pub cache_type: CacheType,
    /// [Repacks](Model::repack) a GGUF file's matrices at load: faster
    /// prompts and batches of sequences, for 0.75–1.25 more bytes a
    /// value held.
    pub repack: bool,
}

impl LoadOptions {
    setters! {
        /// Sets [`dequantize`](Self::dequantize).
        dequantize(on: bool) => dequantize;
        /// Sets [`cache_type`](Self::cache_type).
        cache_type(kind: CacheType) => cache_type;
        /// Sets [`repack`](Self::repack).
        repack(on: bool) => repack;
    }
}

impl Model {
    /// Loads a Hugging Face model directory or a `.gguf` file, or (with the
    /// `hub` feature) a model named on the Hugging Face Hub:
    /// `hf:ORG/REPO[:QUANT]` or `hf:ORG/REPO/FILE`, downloaded into the Hub's
    /// cache as [`hub`](crate::hub) says (`HF_ENDPOINT`, `HF_HOME`,
    /// `HF_TOKEN`, `HF_HUB_OFFLINE`).
    pub fn load(path: impl AsRef<Path>) -> Result<Model, ModelError> {
        Model::load_with(path, &LoadOptions::default())
    }

    /// [`load`](Self::load), with options.
    pub fn load_with(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Model, ModelError> {
        let path = path.as_ref();
        if let Some(name) = path.to_str().filter(|p| p.starts_with("hf:")) {
            #[cfg(feature = "hub")]
            {
                let local = crate::hub::resolve_str(name, &crate::hub::HubOptions::from_env())?;
                return Model::load_with(local, options);
            }
            #[cfg(not(feature = "hub"))]
            return Err(ModelError::invalid(
                path,
                format!("{name:?} names a model on the Hugging Face Hub, which needs the `hub` feature of tool-models (or tool-use); expected a model directory or a .gguf file"),
            ));
        }
        if path.is_dir() {
            return hf::load(files::ModelFiles::Dir(path))?.with_options(options);
        }
        if !path.exists() {
            return Err(ModelError::MissingFile {
                path: path.to_owned(),
                what: "a model: a Hugging Face model directory or a .gguf file".into(),
            });
        }
        let is_gguf = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("gguf"));
        if is_gguf {
            gguf::load_gguf(path, options)?.with_options(options)
        } else {
            Err(ModelError::invalid(
                path,
                "expected a model directory (with config.json) or a .gguf file",
            ))
        }
    }

    /// Loads a Hugging Face model directory whose files are already in
    /// memory, such as a model embedded in a program with `include_bytes!`.
    ///
    /// `files` pairs file names (`config.json`, `tokenizer.json`,
    /// `model.safetensors`, and optionally `tokenizer_config.json`,
    /// `generation_config.json`, `chat_template.jinja`, shards with their
    /// index) with their contents; `name` stands for the directory in error
    /// messages and is what [`path`](Self::path) returns. The checks and
    /// errors are those of [`load`](Self::load).
    ///
    /// ```
    /// use tool_models::model::Model;
    ///
    /// let err = Model::from_files("embedded", &[("tokenizer.json", b"{}")]).unwrap_err();
    /// assert!(err.to_string().contains("embedded/config.json"), "{err}");
    /// ```
    pub fn from_files(
        name: impl AsRef<Path>,
        files: &[(&str, &[u8])],
    ) -> Result<Model, ModelError> {
        hf::load(files::ModelFiles::Memory {
            root: name.as_ref(),
            files,
        })
    }

    fn assemble(parts: Parts) -> Result<Model, ModelError> {
        // The tool-use template when a model has several: this crate renders
        // prompts with tools.
        let chat_template = match &parts.templates {
            Some(t) => Some(compile(t, &parts.path)?),
            None => None,
        };
        Ok(Model {
            parts,
            chat_template,
        })
    }

    /// Uses `templates` instead of the chat template the model's files
    /// hold (or lack: a base model's GGUF has none). The tool-call format is
    /// told from the new template; `bos_token` and `eos_token`, where the
    /// templates do not give them, are the model's own.
    pub fn set_templates(&mut self, mut templates: ModelTemplates) -> Result<(), ModelError> {
        let own = [
            ("bos_token", self.parts.bos_id),
            ("eos_token", self.parts.eos_ids.first().copied()),
        ];
        for (key, id) in own {
            if let Some(text) = id.and_then(|id| self.parts.tokenizer.id_to_token(id)) {
                templates.special_tokens.entry(key.into()).or_insert(text);
            }
        }
        self.chat_template = Some(compile(&templates, &templates.path)?);
        self.parts.templates = Some(templates);
        Ok(())
    }

    /// The network that computes the logits.
    pub(crate) fn network(&self) -> &Network {
        &self.parts.network
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.parts.tokenizer
    }

    /// The tokenizer, shared (for a constraint or parser that outlives a borrow of the model).
    pub fn shared_tokenizer(&self) -> Arc<Tokenizer> {
        Arc::clone(&self.parts.tokenizer)
    }

    /// The compiled chat template (the `tool_use` one when the model has
    /// several), or `None` when the model has none.
    pub fn chat_template(&self) -> Option<&ChatTemplate> {
        self.chat_template.as_ref()
    }

    /// The chat templates and special tokens as loaded.
    pub fn templates(&self) -> Option<&ModelTemplates> {
        self.parts.templates.as_ref()
    }

    /// Token ids that end generation: `generation_config.json`'s, then
    /// `config.json`'s, then `tokenizer_config.json`'s `eos_token`
    /// (for GGUF: `tokenizer.ggml.eos_token_id` and `eot_token_id`).
    pub fn eos_token_ids(&self) -> &[u32] {
        &self.parts.eos_ids
    }

    /// The beginning-of-sequence token id, if the model has one.
    pub fn bos_token_id(&self) -> Option<u32> {
        self.parts.bos_id
    }

    /// The most tokens (prompt and generated) the model can attend to.
    pub fn context_length(&self) -> usize {
        self.parts.context_length
    }

    /// Width of the logits: the rows of the embedding, which may exceed the
    /// tokenizer's vocabulary (padding rows).
    pub fn vocab_size(&self) -> usize {
        self.parts.vocab_size
    }

    /// `architectures[0]` of `config.json` (`LlamaForCausalLM`, …), or
    /// `gguf:<general.architecture>` for a GGUF file.
    pub fn architecture(&self) -> &str {
        &self.parts.architecture
    }

    /// Number of parameters (tied embeddings counted once).
    pub fn parameter_count(&self) -> Option<u64> {
        self.parts.parameter_count
    }

    /// The directory or file the model was loaded from.
    pub fn path(&self) -> &Path {
        &self.parts.path
    }

    /// Which path the weights take: how many matrices the project's decoder
    /// computes with in each format, as stored (`Q4_1`, `Q4_K`, `f16`…,
    /// multiplied in that format) or widened at load (`f32 (widened from
    /// Q8_1)`); `None` where a candle-transformers model runs it.
    pub fn matrix_formats(&self) -> Option<std::collections::BTreeMap<String, usize>> {
        self.parts.network.matrix_formats()
    }

    /// What `options` sets after loading.
    fn with_options(mut self, options: &LoadOptions) -> Result<Model, ModelError> {
        self.set_cache_type(options.cache_type)?;
        if options.repack {
            self.repack();
        }
        Ok(self)
    }

    /// Unpacks each block-quantized matrix once into the layout of the
    /// integer products over many rows (bytes of sixteen rows interleaved,
    /// with each sub-block's scale and minimum) and keeps it beside the
    /// file's blocks: prompts no longer unpack every matrix per chunk,
    /// and a batch of three or more sequences (`tool-use serve`) takes
    /// those products instead of one vector at a time. It costs about
    /// 0.75 bytes a value more for 4-bit and smaller formats, 1.25 for
    /// the others (SmolLM2-135M Q4_1: about 100 MB beside its 90),
    /// returned here; 0 where nothing repacks (unquantized weights,
    /// models candle runs, a CPU without AVX2). Idempotent, and safe on a
    /// model already shared.
    pub fn repack(&self) -> usize {
        self.parts.network.repack()
    }

    /// Sets how the KV caches of sessions started from now on keep
    /// attention's keys and values ([`CacheType`]). A type other than f32
    /// is refused by name where candle-transformers runs the model.
    pub fn set_cache_type(&mut self, kind: CacheType) -> Result<(), ModelError> {
        if kind != CacheType::F32 && !self.parts.network.runs_together() {
            return Err(ModelError::invalid(
                &self.parts.path,
                format!(
                    "a KV cache of type {kind} is computed only on the project's decoder, and this {} model runs on candle-transformers, whose cache is f32",
                    self.parts.architecture
                ),
            ));
        }
        self.parts.cache_type = kind;
        Ok(())
    }

    /// How sessions' KV caches keep attention's keys and values.
    pub fn cache_type(&self) -> CacheType {
        self.parts.cache_type
    }

    /// Bytes one position (a token) of a sequence takes in the KV cache:
    /// keys and values of every layer, as [`cache_type`](Self::cache_type)
    /// keeps them. What a
    /// [KV budget](crate::generate::Session::set_kv_budget) holds is this
    /// times the tokens cached. `None` for models that candle-transformers
    /// runs, whose caches the budget does not cover (and which decode one
    /// sequence at a time).
    pub fn kv_bytes_per_position(&self) -> Option<usize> {
        self.parts
            .network
            .new_cache(self.parts.cache_type)
            .map(|c| c.bytes_per_position())
    }

    /// Whether the model runs several sequences together (the project's
    /// decoder; candle's models keep their one cache inside).
    #[cfg_attr(not(feature = "server"), allow(dead_code))] // The server's batch uses it.
    pub(crate) fn runs_together(&self) -> bool {
        self.parts.network.runs_together()
    }
}

/// The templates a model's files hold, `None` where they hold none; any
/// other failure names `path`, the model's file or directory.
pub(crate) fn found_templates(
    found: Result<ModelTemplates, TemplateError>,
    path: &Path,
) -> Result<Option<ModelTemplates>, ModelError> {
    match found {
        Ok(t) => Ok(Some(t)),
        Err(TemplateError::NoTemplate { .. }) => Ok(None),
        Err(source) => Err(ModelError::FileTemplate {
            path: path.to_owned(),
            source,
        }),
    }
}

/// `templates`' tool-use template, compiled; errors name `path`, where
/// the templates came from.
fn compile(templates: &ModelTemplates, path: &Path) -> Result<ChatTemplate, ModelError> {
    let in_file = |source| ModelError::FileTemplate {
        path: path.to_owned(),
        source,
    };
    templates.compile(None, true).map_err(in_file)
}
