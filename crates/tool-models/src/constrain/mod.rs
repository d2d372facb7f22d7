//! Constrained decoding with llguidance: tool calls that parse and validate.
