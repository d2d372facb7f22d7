//! The API key check.

use axum::http::{header, HeaderMap};

use super::error::ApiError;

/// Accepts `Authorization: Bearer <key>` (OpenAI's clients) or
/// `x-api-key: <key>` (Anthropic's) when it carries `expected`.
pub(crate) fn authorize(headers: &HeaderMap, expected: Option<&str>) -> Result<(), ApiError> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let given = text(header::AUTHORIZATION.as_str())
        .and_then(|v| v.strip_prefix("Bearer "))
        .or_else(|| text("x-api-key"))
        .map(str::trim);
    match given {
        None => Err(ApiError::unauthorized(
            "missing API key: send `Authorization: Bearer <key>` or `x-api-key: <key>`",
        )),
        Some(given) if !same(given.as_bytes(), expected.as_bytes()) => {
            Err(ApiError::unauthorized("incorrect API key"))
        }
        Some(_) => Ok(()),
    }
}

/// Compares in time that depends only on the lengths, so that the key
/// cannot be guessed byte by byte from response times.
fn same(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= x ^ y;
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, value.parse().unwrap());
        h
    }

    #[test]
    fn checks_the_bearer_key() {
        assert!(authorize(&HeaderMap::new(), None).is_ok());
        assert!(authorize(&with("Bearer sk-1"), Some("sk-1")).is_ok());
        let mut anthropic = HeaderMap::new();
        anthropic.insert("x-api-key", "sk-1".parse().unwrap());
        assert!(authorize(&anthropic, Some("sk-1")).is_ok());
        anthropic.insert("x-api-key", "sk-2".parse().unwrap());
        assert_eq!(authorize(&anthropic, Some("sk-1")).unwrap_err().status, 401);
        for bad in [
            "Bearer sk-2",
            "Bearer sk-",
            "Bearer sk-11",
            "sk-1",
            "Basic sk-1",
        ] {
            let e = authorize(&with(bad), Some("sk-1")).unwrap_err();
            assert_eq!(e.status, 401, "{bad}");
            assert!(!e.message.contains("sk-1"), "the key leaks: {}", e.message);
        }
        assert_eq!(
            authorize(&HeaderMap::new(), Some("k")).unwrap_err().status,
            401
        );
    }

    #[test]
    fn compares_whole_strings() {
        assert!(same(b"", b""));
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
        assert!(!same(b"ab\0", b"ab"));
    }
}
