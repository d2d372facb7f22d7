//! Loading a local model: a Hugging Face directory or a GGUF file.
