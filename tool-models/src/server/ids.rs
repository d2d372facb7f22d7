//! Ids and timestamps that answers carry, in every API.

use rand::distr::{Alphanumeric, SampleString};

/// `prefix` and `len` random letters and digits: `chatcmpl-…`, `msg_…`,
/// `resp_…`.
pub(crate) fn random_id(prefix: &str, len: usize) -> String {
    format!(
        "{prefix}{}",
        Alphanumeric.sample_string(&mut rand::rng(), len)
    )
}

/// A call id the strictest templates accept: Mistral's require exactly
/// nine alphanumeric characters.
pub(crate) fn call_id() -> String {
    Alphanumeric.sample_string(&mut rand::rng(), 9)
}

/// Seconds since 1970, as the API's `created` fields count them.
pub(crate) fn unix_time() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
