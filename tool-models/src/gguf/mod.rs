//! GGUF, llama.cpp's model file: the header, the metadata and the table of
//! tensors. The chat-template loader reads the metadata alone; the model
//! loader reads the table too, and each tensor's bytes from it.
//!
//! Every length read from the file is checked against the bytes left in it
//! before anything is allocated, and every tensor against the file's
//! length, so a corrupt or hostile file yields an error naming what is
//! wrong and where, never a panic or an allocation of its claimed size.
//! Tensor types are ggml's (`ggml.h`), all of them known by name whether or
//! not a reader of this crate computes with them.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

/// A metadata value.
#[derive(Clone, Debug, PartialEq)]
pub enum GgufValue {
    /// Any unsigned integer type.
    Uint(u64),
    /// Any signed integer type.
    Int(i64),
    /// `float32` or `float64`.
    Float(f64),
    /// `bool`.
    Bool(bool),
    /// `string`.
    String(String),
    /// `array`, of any one element type.
    Array(Vec<GgufValue>),
}

impl GgufValue {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            GgufValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value as an index, if it is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            GgufValue::Uint(u) => Some(u),
            GgufValue::Int(i) => u64::try_from(i).ok(),
            _ => None,
        }
    }
}

/// The header and metadata of a GGUF file.
#[derive(Clone, Debug, PartialEq)]
pub struct GgufMetadata {
    /// Format version (2 or 3).
    pub version: u32,
    /// Number of tensors the file declares.
    pub tensor_count: u64,
    /// Key/value pairs, in file order.
    pub entries: Vec<(String, GgufValue)>,
}

impl GgufMetadata {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&GgufValue> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// The metadata of the GGUF file at `path`, reading no further.
pub(crate) fn read_metadata(path: &Path) -> Result<GgufMetadata, Failure> {
    reader(path)?.metadata()
}

#[cfg(feature = "local")]
mod tensors;
#[cfg(feature = "local")]
pub(crate) use tensors::{read_file, GgufFile, TensorType, Tensors};

fn reader(path: &Path) -> Result<Reader<BufReader<File>>, Failure> {
    let file = File::open(path).map_err(Failure::Io)?;
    let len = file.metadata().map_err(Failure::Io)?.len();
    Ok(Reader {
        inner: BufReader::new(file),
        offset: 0,
        len,
    })
}

/// Why a GGUF file could not be read.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// What was expected at which byte, and what was found.
    Invalid(String),
}

struct Reader<R> {
    inner: R,
    offset: u64,
    len: u64,
}

/// Array nesting deeper than this is not metadata anyone writes.
const MAX_DEPTH: usize = 4;

impl<R: Read> Reader<R> {
    fn invalid(&self, what: String) -> Failure {
        Failure::Invalid(format!("at byte {}: {what}", self.offset))
    }

    fn bytes(&mut self, n: u64, what: &str) -> Result<Vec<u8>, Failure> {
        let left = self.len.saturating_sub(self.offset);
        if n > left {
            return Err(self.invalid(format!(
                "truncated file: expected {n} bytes of {what}, found only {left} before the end"
            )));
        }
        let mut buf = vec![0; n as usize];
        self.inner.read_exact(&mut buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Failure::Invalid(format!(
                    "at byte {}: truncated file while reading {what}",
                    self.offset
                ))
            } else {
                Failure::Io(e)
            }
        })?;
        self.offset += n;
        Ok(buf)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Failure> {
        let bytes = self.bytes(N as u64, what)?;
        let mut out = [0; N];
        out.copy_from_slice(&bytes);
        Ok(out)
    }

    fn u32(&mut self, what: &str) -> Result<u32, Failure> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64, Failure> {
        self.array(what).map(u64::from_le_bytes)
    }

    fn string(&mut self, what: &str) -> Result<String, Failure> {
        let len = self.u64(&format!("the length of {what}"))?;
        let bytes = self.bytes(len, what)?;
        String::from_utf8(bytes).map_err(|e| self.invalid(format!("{what} is not UTF-8: {e}")))
    }

    fn metadata(&mut self) -> Result<GgufMetadata, Failure> {
        let magic: [u8; 4] = self.array("the magic number")?;
        if &magic != b"GGUF" {
            return Err(self.invalid(format!(
                "expected the magic bytes \"GGUF\", found {:?}",
                String::from_utf8_lossy(&magic)
            )));
        }
        let version = self.u32("the version")?;
        if version != 2 && version != 3 {
            let hint = if version.swap_bytes() == 2 || version.swap_bytes() == 3 {
                " (a big-endian file, which is not supported)"
            } else {
                ""
            };
            return Err(self.invalid(format!(
                "expected GGUF version 2 or 3, found {version}{hint}"
            )));
        }
        let tensor_count = self.u64("the tensor count")?;
        let kv_count = self.u64("the metadata count")?;
        // Each entry takes at least 8 (key length) + 4 (type) + 1 bytes.
        if kv_count > self.len.saturating_sub(self.offset) / 13 {
            return Err(self.invalid(format!(
                "truncated file: it declares {kv_count} metadata entries, more than its {} bytes can hold",
                self.len
            )));
        }
        let mut entries = Vec::with_capacity(kv_count as usize);
        for i in 0..kv_count {
            let key = self.string(&format!("the key of metadata entry {i}"))?;
            let ty = self.u32(&format!("the type of {key:?}"))?;
            let value = self.value(ty, &key, 0)?;
            entries.push((key, value));
        }
        Ok(GgufMetadata {
            version,
            tensor_count,
            entries,
        })
    }

    fn value(&mut self, ty: u32, key: &str, depth: usize) -> Result<GgufValue, Failure> {
        let what = format!("the value of {key:?}");
        Ok(match ty {
            0 => GgufValue::Uint(u64::from(self.array::<1>(&what)?[0])),
            1 => GgufValue::Int(i64::from(self.array::<1>(&what)?[0] as i8)),
            2 => GgufValue::Uint(u64::from(u16::from_le_bytes(self.array(&what)?))),
            3 => GgufValue::Int(i64::from(i16::from_le_bytes(self.array(&what)?))),
            4 => GgufValue::Uint(u64::from(self.u32(&what)?)),
            5 => GgufValue::Int(i64::from(i32::from_le_bytes(self.array(&what)?))),
            6 => GgufValue::Float(f64::from(f32::from_le_bytes(self.array(&what)?))),
            7 => GgufValue::Bool(self.array::<1>(&what)?[0] != 0),
            8 => GgufValue::String(self.string(&what)?),
            9 => {
                if depth >= MAX_DEPTH {
                    return Err(self.invalid(format!("{what} nests arrays too deeply")));
                }
                let elem = self.u32(&format!("the element type of {key:?}"))?;
                let count = self.u64(&format!("the length of {key:?}"))?;
                let min_size = match elem {
                    0 | 1 | 7 => 1,
                    2 | 3 => 2,
                    4..=6 => 4,
                    8 | 10..=12 => 8,
                    9 => 12,
                    other => {
                        return Err(
                            self.invalid(format!("{key:?} has unknown element type {other}"))
                        )
                    }
                };
                let left = self.len.saturating_sub(self.offset);
                if count > left / min_size {
                    return Err(self.invalid(format!(
                        "truncated file: {key:?} declares {count} elements, but only {left} bytes are left"
                    )));
                }
                let mut items = Vec::with_capacity(count as usize);
                for _ in 0..count {
                    items.push(self.value(elem, key, depth + 1)?);
                }
                GgufValue::Array(items)
            }
            10 => GgufValue::Uint(self.u64(&what)?),
            11 => GgufValue::Int(i64::from_le_bytes(self.array(&what)?)),
            12 => GgufValue::Float(f64::from_le_bytes(self.array(&what)?)),
            other => {
                return Err(self.invalid(format!(
                    "{key:?} has unknown value type {other} (expected 0 to 12)"
                )))
            }
        })
    }
}
