//! The agent loop: generate, parse, dispatch, append, repeat.
