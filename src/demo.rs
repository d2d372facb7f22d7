//! The demo tools of `tool-use chat`.
