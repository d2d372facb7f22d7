//! Training a small tool-calling model on the CPU.

pub mod bpe;
