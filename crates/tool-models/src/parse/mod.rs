//! Parsers for each model family's tool-call output, one-shot and streaming.
