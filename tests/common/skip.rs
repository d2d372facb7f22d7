//! Tests that need something outside the repository (a model file, a tool
//! from another ecosystem) skip without it, except where CI requires it.

/// Says on stderr why the test does not run (`why`), so that it passes
/// without checking anything; unless the variable `required` is set (CI),
/// where `why` is the test's failure. `None`, for the test to return on.
#[track_caller]
pub fn because<T>(why: &str, required: &str) -> Option<T> {
    assert!(std::env::var_os(required).is_none(), "{why}");
    eprintln!("skipped: {why}");
    None
}
