//! The tensor table: each tensor's name, shape, type and where its bytes
//! lie, checked against the file's length.

use super::{reader, Failure, GgufMetadata, Reader};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The metadata and tensor table of the GGUF file at `path`, each tensor
/// checked to lie within the file.
pub(crate) fn read_file(path: &Path) -> Result<GgufFile, Failure> {
    let mut reader = reader(path)?;
    let metadata = reader.metadata()?;
    reader.tensors(metadata)
}

/// A GGUF file's metadata and tensor table.
#[derive(Clone, Debug)]
pub(crate) struct GgufFile {
    /// The header and key/value pairs.
    pub metadata: GgufMetadata,
    /// The tensors, by name.
    pub tensors: Tensors,
}

/// A GGUF file's tensors, by name.
pub(crate) type Tensors = HashMap<String, TensorInfo>;

/// One entry of the tensor table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TensorInfo {
    /// Its dimensions, outermost first (rows, then columns, as Hugging Face
    /// writes them; GGUF stores them the other way round).
    pub dims: Vec<usize>,
    /// How its values are stored.
    pub ty: TensorType,
    /// Where its data starts, from the start of the file.
    pub offset: u64,
    /// How many bytes it takes.
    pub bytes: usize,
}

impl TensorInfo {
    /// Its bytes, read from `file` (the file the table was read from).
    pub fn read<F: Read + Seek>(&self, file: &mut F) -> std::io::Result<Vec<u8>> {
        file.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = vec![0; self.bytes];
        file.read_exact(&mut bytes)?;
        Ok(bytes)
    }
}

/// A ggml tensor type: its number in the file, its name and block layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TensorType {
    /// `ggml_type`'s value.
    pub id: u32,
    /// ggml's name (`Q4_K`, `IQ4_XS`).
    pub name: &'static str,
    /// Values per block (1 for plain numbers).
    pub block_values: usize,
    /// Bytes per block.
    pub block_bytes: usize,
}

/// Every `ggml_type` files hold, as `ggml.h` numbers them (the gaps are
/// types ggml has retired).
const TENSOR_TYPES: &[(u32, &str, usize, usize)] = &[
    (0, "F32", 1, 4),
    (1, "F16", 1, 2),
    (2, "Q4_0", 32, 18),
    (3, "Q4_1", 32, 20),
    (6, "Q5_0", 32, 22),
    (7, "Q5_1", 32, 24),
    (8, "Q8_0", 32, 34),
    (9, "Q8_1", 32, 36),
    (10, "Q2_K", 256, 84),
    (11, "Q3_K", 256, 110),
    (12, "Q4_K", 256, 144),
    (13, "Q5_K", 256, 176),
    (14, "Q6_K", 256, 210),
    (15, "Q8_K", 256, 292),
    (16, "IQ2_XXS", 256, 66),
    (17, "IQ2_XS", 256, 74),
    (18, "IQ3_XXS", 256, 98),
    (19, "IQ1_S", 256, 50),
    (20, "IQ4_NL", 32, 18),
    (21, "IQ3_S", 256, 110),
    (22, "IQ2_S", 256, 82),
    (23, "IQ4_XS", 256, 136),
    (24, "I8", 1, 1),
    (25, "I16", 1, 2),
    (26, "I32", 1, 4),
    (27, "I64", 1, 8),
    (28, "F64", 1, 8),
    (29, "IQ1_M", 256, 56),
    (30, "BF16", 1, 2),
    (34, "TQ1_0", 256, 54),
    (35, "TQ2_0", 256, 66),
    (39, "MXFP4", 32, 17),
];

impl TensorType {
    /// The type numbered `id`, if ggml has one.
    pub fn from_id(id: u32) -> Option<TensorType> {
        TENSOR_TYPES
            .iter()
            .find(|t| t.0 == id)
            .map(|&(id, name, block_values, block_bytes)| TensorType {
                id,
                name,
                block_values,
                block_bytes,
            })
    }
}

/// Tensors have at most this many dimensions (`GGML_MAX_DIMS`).
const MAX_DIMS: u32 = 4;

/// Tensor data starts at a multiple of this unless `general.alignment`
/// says otherwise.
const DEFAULT_ALIGNMENT: u64 = 32;

/// A tensor as the table lists it, before its place is checked.
struct Listed {
    name: String,
    /// Innermost first, as stored.
    dims: Vec<u64>,
    ty: TensorType,
    /// From the start of the data.
    offset: u64,
    bytes: u64,
}

impl<R: Read> Reader<R> {
    /// The tensor table after `metadata`, each tensor checked to lie
    /// within the file.
    fn tensors(&mut self, metadata: GgufMetadata) -> Result<GgufFile, Failure> {
        let count = metadata.tensor_count;
        // Each entry takes at least 8 (name length) + 4 (dimensions) + 4
        // (type) + 8 (offset) bytes.
        if count > self.len.saturating_sub(self.offset) / 24 {
            return Err(self.invalid(format!(
                "truncated file: it declares {count} tensors, more than its {} bytes can hold",
                self.len
            )));
        }
        let alignment = match metadata.get("general.alignment") {
            None => DEFAULT_ALIGNMENT,
            Some(v) => match v.as_u64() {
                Some(a) if a.is_power_of_two() => a,
                _ => {
                    return Err(Failure::Invalid(format!(
                        "general.alignment must be a power of two, found {v:?}"
                    )))
                }
            },
        };
        let mut listed: Vec<Listed> = Vec::with_capacity(count as usize);
        for i in 0..count {
            let name = self.string(&format!("the name of tensor {i}"))?;
            let n_dims = self.u32(&format!("the dimension count of {name}"))?;
            if n_dims > MAX_DIMS {
                return Err(self.invalid(format!(
                    "tensor {name} has {n_dims} dimensions, expected at most {MAX_DIMS}"
                )));
            }
            let mut dims = Vec::with_capacity(n_dims as usize);
            for _ in 0..n_dims {
                dims.push(self.u64(&format!("the dimensions of {name}"))?);
            }
            let id = self.u32(&format!("the type of {name}"))?;
            let offset = self.u64(&format!("the offset of {name}"))?;
            let Some(ty) = TensorType::from_id(id) else {
                return Err(self.invalid(format!(
                    "tensor {name} has ggml type {id}, which is not one ggml defines"
                )));
            };
            if offset % alignment != 0 {
                return Err(self.invalid(format!(
                    "tensor {name}'s data starts at {offset}, not a multiple of the alignment {alignment}"
                )));
            }
            let bytes = tensor_bytes(&dims, ty).map_err(|why| {
                self.invalid(format!(
                    "tensor {name} of {} with dimensions {dims:?}: {why}",
                    ty.name
                ))
            })?;
            listed.push(Listed {
                name,
                dims,
                ty,
                offset,
                bytes,
            });
        }
        let data_start = self.offset.next_multiple_of(alignment);
        let mut tensors = Tensors::with_capacity(listed.len());
        for t in listed {
            let end = data_start
                .checked_add(t.offset)
                .and_then(|start| start.checked_add(t.bytes))
                .filter(|&end| end <= self.len);
            if end.is_none() {
                return Err(Failure::Invalid(format!(
                    "truncated file: tensor {} ({} with dimensions {:?}, {} bytes from byte {} of the data) ends past the file's {} bytes",
                    t.name, t.ty.name, t.dims, t.bytes, t.offset, self.len
                )));
            }
            let info = TensorInfo {
                // GGUF lists the innermost dimension first.
                dims: t.dims.iter().rev().map(|&d| d as usize).collect(),
                ty: t.ty,
                offset: data_start + t.offset,
                bytes: t.bytes as usize,
            };
            if tensors.insert(t.name.clone(), info).is_some() {
                return Err(Failure::Invalid(format!(
                    "tensor {} is listed twice",
                    t.name
                )));
            }
        }
        Ok(GgufFile { metadata, tensors })
    }
}

/// The bytes of a tensor of `dims` (innermost first) stored as `ty`, or why
/// it cannot be.
fn tensor_bytes(dims: &[u64], ty: TensorType) -> Result<u64, String> {
    let values = dims
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .ok_or("more values than any file holds")?;
    let row = dims.first().copied().unwrap_or(1);
    if row % ty.block_values as u64 != 0 {
        return Err(format!(
            "rows of {row} values, not a multiple of its blocks of {}",
            ty.block_values
        ));
    }
    (values / ty.block_values as u64)
        .checked_mul(ty.block_bytes as u64)
        .filter(|&b| usize::try_from(b).is_ok())
        .ok_or_else(|| "more bytes than any file holds".to_string())
}
