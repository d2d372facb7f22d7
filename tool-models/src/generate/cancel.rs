//! Stopping a generation from another thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A flag that ends a generation at the next token once raised: a server
/// raises it when its client goes away. Clones share the flag.
///
/// ```
/// use tool_models::generate::CancelFlag;
///
/// let flag = CancelFlag::new();
/// let seen_by_generation = flag.clone();
/// flag.cancel();
/// assert!(seen_by_generation.is_cancelled());
/// ```
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A flag not yet raised.
    pub fn new() -> CancelFlag {
        CancelFlag::default()
    }

    /// Raises the flag.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag was raised.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Two options are equal when they watch the same flag.
impl PartialEq for CancelFlag {
    fn eq(&self, other: &CancelFlag) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
