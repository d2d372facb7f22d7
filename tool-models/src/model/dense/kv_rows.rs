//! How a KV cache stores one layer's rows: f32, or IEEE half precision as
//! llama.cpp keeps them by default (half the bytes each attention step
//! reads, at 11 bits of mantissa).

use half::f16;

/// How a model's KV cache keeps attention's keys and values.
///
/// `F32` (the default) keeps them as computed, so that generation matches
/// transformers within 1e-4. `F16` keeps them in IEEE half precision, as
/// llama.cpp does by default: a long context takes half the memory and
/// each decode step reads half the bytes, at the price of rounding every
/// key and value to 11 significant bits (a relative error of at most
/// 2⁻¹¹; logits move by about 1e-3 of their range, and greedy tokens may
/// differ where two were nearly tied). Recurrent and convolution states
/// stay f32 either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CacheType {
    /// 32-bit floats, as computed.
    #[default]
    F32,
    /// IEEE 754 half precision (binary16), rounded to nearest even.
    F16,
}

impl CacheType {
    /// The name `--cache-type` takes: `f32` or `f16`.
    pub fn name(self) -> &'static str {
        match self {
            CacheType::F32 => "f32",
            CacheType::F16 => "f16",
        }
    }

    /// Bytes of one value.
    pub(crate) fn bytes(self) -> usize {
        match self {
            CacheType::F32 => 4,
            CacheType::F16 => 2,
        }
    }
}

impl std::fmt::Display for CacheType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for CacheType {
    type Err = String;

    fn from_str(s: &str) -> Result<CacheType, String> {
        match s.to_ascii_lowercase().as_str() {
            "f32" => Ok(CacheType::F32),
            "f16" => Ok(CacheType::F16),
            _ => Err(format!("unknown KV cache type {s:?}: expected f32 or f16")),
        }
    }
}

/// One layer's keys and values: a row of each per position, in one type.
#[derive(Clone, Debug)]
pub(crate) enum LayerRows {
    F32 { keys: Vec<f32>, values: Vec<f32> },
    F16 { keys: Vec<f16>, values: Vec<f16> },
}

/// A layer's keys and values, borrowed, in the type the cache keeps.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kv<'a> {
    F32 { keys: &'a [f32], values: &'a [f32] },
    F16 { keys: &'a [f16], values: &'a [f16] },
}

/// `$body` with `$keys` and `$values` bound to either type's vectors.
macro_rules! each {
    ($rows:expr, |$keys:ident, $values:ident| $body:expr) => {
        match $rows {
            LayerRows::F32 {
                keys: $keys,
                values: $values,
            } => $body,
            LayerRows::F16 {
                keys: $keys,
                values: $values,
            } => $body,
        }
    };
}

impl LayerRows {
    pub(crate) fn kind(&self) -> CacheType {
        match self {
            LayerRows::F32 { .. } => CacheType::F32,
            LayerRows::F16 { .. } => CacheType::F16,
        }
    }

    pub(crate) fn new(kind: CacheType) -> LayerRows {
        match kind {
            CacheType::F32 => LayerRows::F32 {
                keys: Vec::new(),
                values: Vec::new(),
            },
            CacheType::F16 => LayerRows::F16 {
                keys: Vec::new(),
                values: Vec::new(),
            },
        }
    }

    /// Appends rows, rounded to nearest even where they are kept as f16.
    pub(crate) fn extend(&mut self, keys: &[f32], values: &[f32]) {
        match self {
            LayerRows::F32 { keys: k, values: v } => {
                k.extend_from_slice(keys);
                v.extend_from_slice(values);
            }
            LayerRows::F16 { keys: k, values: v } => {
                k.extend(keys.iter().map(|&x| f16::from_f32(x)));
                v.extend(values.iter().map(|&x| f16::from_f32(x)));
            }
        }
    }

    /// Keeps the first `keys` and `values` values.
    pub(crate) fn truncate(&mut self, keys: usize, values: usize) {
        each!(self, |k, v| {
            k.truncate(keys);
            v.truncate(values);
        })
    }

    /// A copy of the first `keys` and `values` values, allocated to fit.
    pub(crate) fn prefix(&self, keys: usize, values: usize) -> LayerRows {
        match self {
            LayerRows::F32 { keys: k, values: v } => LayerRows::F32 {
                keys: k[..keys].to_vec(),
                values: v[..values].to_vec(),
            },
            LayerRows::F16 { keys: k, values: v } => LayerRows::F16 {
                keys: k[..keys].to_vec(),
                values: v[..values].to_vec(),
            },
        }
    }

    /// Room for `keys` and `values` values in all.
    pub(crate) fn reserve_to(&mut self, keys: usize, values: usize) {
        each!(self, |k, v| {
            k.reserve_exact(keys.saturating_sub(k.len()));
            v.reserve_exact(values.saturating_sub(v.len()));
        })
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        each!(self, |k, v| {
            k.shrink_to_fit();
            v.shrink_to_fit();
        })
    }

    /// Bytes allocated, room for later rows included.
    pub(crate) fn bytes(&self) -> usize {
        each!(self, |k, v| k.capacity() + v.capacity()) * self.kind().bytes()
    }

    /// The keys as f32: a state layer's (a convolution's inputs), which
    /// are always kept so.
    pub(crate) fn history(&self) -> &[f32] {
        match self {
            LayerRows::F32 { keys, .. } => keys,
            // State layers are made F32 (`Dense::new_cache`).
            LayerRows::F16 { .. } => {
                debug_assert!(false, "a state layer kept as f16");
                &[]
            }
        }
    }

    pub(crate) fn view(&self) -> Kv<'_> {
        match self {
            LayerRows::F32 { keys, values } => Kv::F32 { keys, values },
            LayerRows::F16 { keys, values } => Kv::F16 { keys, values },
        }
    }
}

impl Kv<'_> {
    /// Values of the keys held.
    #[cfg(test)]
    pub(crate) fn keys_len(&self) -> usize {
        match self {
            Kv::F32 { keys, .. } => keys.len(),
            Kv::F16 { keys, .. } => keys.len(),
        }
    }
}
