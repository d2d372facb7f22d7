//! Helpers shared by the model tests.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod gguf;

/// The largest absolute difference between two equally long slices.
pub fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}
