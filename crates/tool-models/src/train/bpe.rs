//! Training a byte-level BPE tokenizer on a corpus.
