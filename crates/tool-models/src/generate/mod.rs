//! Token generation: KV cache with prefix reuse, sampling, stop conditions, streaming.

mod mask;

pub use mask::{ConstraintError, TokenConstraint, TokenSet};
