//! Reading a GGUF file whole and writing a changed copy, for the tests that
//! take a file apart (metadata dropped or added, tensors rewritten).
//!
//! A module of `common` for the integration tests, and included with
//! `#[path]` by the decoder's unit tests (`src/model/dense/gguf_tests.rs`).

use std::path::Path;

use candle_core::quantized::gguf_file::{self, Content, Value};
use candle_core::quantized::QTensor;
use candle_core::Device;

/// The GGUF file at `path`: its header (metadata, tensor table) and every
/// tensor, by name.
pub fn read(path: &Path) -> (Content, Vec<(String, QTensor)>) {
    let mut file = std::fs::File::open(path).unwrap();
    let content = Content::read(&mut file).unwrap();
    let tensors = content
        .tensor_infos
        .keys()
        .map(|name| {
            let tensor = content.tensor(&mut file, name, &Device::Cpu).unwrap();
            (name.clone(), tensor)
        })
        .collect();
    (content, tensors)
}

/// Writes a GGUF file of this metadata and these tensors to `path`.
pub fn write<'a>(
    path: &Path,
    metadata: impl IntoIterator<Item = (&'a str, &'a Value)>,
    tensors: &[(String, QTensor)],
) {
    let metadata: Vec<_> = metadata.into_iter().collect();
    let tensors: Vec<_> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let mut file = std::fs::File::create(path).unwrap();
    gguf_file::write(&mut file, &metadata, &tensors).unwrap();
}
