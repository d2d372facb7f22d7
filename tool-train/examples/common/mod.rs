//! Command-line handling shared by the training examples.

use std::collections::HashMap;
use std::error::Error;
use std::str::FromStr;

/// The `name=value` arguments an example was run with.
pub struct Options(HashMap<String, String>);

impl Options {
    /// Reads the command line; every argument must be `name=value`.
    pub fn from_args() -> Result<Options, Box<dyn Error>> {
        let mut opts = HashMap::new();
        for arg in std::env::args().skip(1) {
            let (k, v) = arg
                .split_once('=')
                .ok_or_else(|| format!("expected name=value, found {arg}"))?;
            opts.insert(k.to_string(), v.to_string());
        }
        Ok(Options(opts))
    }

    /// The option `name` parsed, or `default` when it was not given.
    pub fn get<T>(&self, name: &str, default: T) -> Result<T, Box<dyn Error>>
    where
        T: FromStr,
        T::Err: Error + 'static,
    {
        Ok(self
            .0
            .get(name)
            .map(|v| v.parse())
            .transpose()?
            .unwrap_or(default))
    }

    /// Keeps freed memory, as `tool-train train` does, so that timings match
    /// it; `alloc=default` measures glibc's default behaviour instead.
    pub fn choose_allocator(&self) {
        if self.0.get("alloc").map(String::as_str) != Some("default") {
            tool_train::train::keep_freed_memory();
        }
    }
}
