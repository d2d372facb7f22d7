//! The demo tools of `tool-use chat`.

/// The demo toolbox (placeholder until the demo tools land).
pub fn toolbox() -> crate::Toolbox {
    crate::Toolbox::new()
}
