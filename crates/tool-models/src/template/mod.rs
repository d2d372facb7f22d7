//! Chat templates rendered exactly as transformers renders them.
