//! The bundled model of [`tool-use`](https://docs.rs/tool-use): a small
//! Llama trained by the project to call tools, as the bytes of its Hugging
//! Face directory, so that a program finds it wherever it is installed.
//!
//! This crate has no dependencies and no code beyond the embedded files;
//! `tool_use::bundled::load()` turns them into a model.
//!
//! ```
//! assert!(tool_use_mini::CONFIG_JSON.contains("LlamaForCausalLM"));
//! assert_eq!(tool_use_mini::FILES.len(), 5);
//! ```

#![no_std]
#![deny(missing_docs)]

/// The model's name, as error messages show it.
pub const NAME: &str = "tool-use-mini";

/// `config.json`: the architecture and sizes.
pub const CONFIG_JSON: &str = include_str!("../config.json");
/// `generation_config.json`: end-of-sequence and padding ids.
pub const GENERATION_CONFIG_JSON: &str = include_str!("../generation_config.json");
/// `tokenizer.json`: the byte-level BPE tokenizer.
pub const TOKENIZER_JSON: &str = include_str!("../tokenizer.json");
/// `tokenizer_config.json`: the chat template and special tokens.
pub const TOKENIZER_CONFIG_JSON: &str = include_str!("../tokenizer_config.json");
/// `model.safetensors`: the weights, stored as f16 (loaders widen them to f32).
pub const MODEL_SAFETENSORS: &[u8] = include_bytes!("../model.safetensors");

/// Every file of the model directory, by name.
pub const FILES: [(&str, &[u8]); 5] = [
    ("config.json", CONFIG_JSON.as_bytes()),
    ("generation_config.json", GENERATION_CONFIG_JSON.as_bytes()),
    ("tokenizer.json", TOKENIZER_JSON.as_bytes()),
    ("tokenizer_config.json", TOKENIZER_CONFIG_JSON.as_bytes()),
    ("model.safetensors", MODEL_SAFETENSORS),
];

/// The model directory in the source tree this crate was built from. It
/// exists only where the crate's sources are (a checkout of the workspace);
/// an installed program uses [`FILES`].
pub const SOURCE_DIR: &str = env!("CARGO_MANIFEST_DIR");
