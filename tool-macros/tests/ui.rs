//! Compile-time behaviour of `#[tool]`, used through `tool-use` without
//! default features (so trybuild compiles no model code): forms that must
//! compile and run
//! (`tests/ui/pass`) and mistakes that must fail with a precise error
//! (`tests/ui/fail`, each with its expected `.stderr`).
//!
//! Regenerate the `.stderr` files after a deliberate change with
//! `TRYBUILD=overwrite cargo test -p tool-macros --test ui`, then review the diff.

#[test]
fn ui() {
    // trybuild builds every dependency again in its own workspace, which
    // does not inherit our `[profile]`: without debug info those builds take
    // a tenth of the disk. Its cargo inherits this process's environment.
    std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false");
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
