//! `config.json`: which architecture, and its hyperparameters in the form
//! candle-transformers' models take them.
//!
//! candle's config structs require fields that transformers' configs may
//! leave out (transformers then uses the class default), so the defaults of
//! transformers' config classes are filled in before deserializing.

use super::config_readers::{
    granite_hybrid_checks, granite_mamba, granite_scales, lfm2_config, smollm3_rotary,
};
pub(crate) use super::config_readers::{GraniteScales, Lfm2, Mamba};
use super::json::{kind, token_ids};
use super::keys::check_config_keys;
use super::rope::{read_rope, RopeDefaults, RopeLayers, RopeScaling};
use super::ModelError;
use candle_transformers::models::{gemma2, gemma3, llama, mistral, phi3, qwen2, qwen3};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use std::path::Path;

/// The architectures [`Model::load`](super::Model::load) runs from a
/// Hugging Face directory, as `config.json` names them.
pub const SUPPORTED_ARCHITECTURES: &[&str] = &[
    "LlamaForCausalLM",
    "Qwen2ForCausalLM",
    "Qwen3ForCausalLM",
    "MistralForCausalLM",
    "Phi3ForCausalLM",
    "Gemma2ForCausalLM",
    "Gemma3ForCausalLM",
    "SmolLM3ForCausalLM",
    "GraniteForCausalLM",
    "Lfm2ForCausalLM",
    "GraniteMoeHybridForCausalLM",
];

/// `model_type` values, for configs without `architectures`.
const MODEL_TYPES: &[(&str, &str)] = &[
    ("llama", "LlamaForCausalLM"),
    ("qwen2", "Qwen2ForCausalLM"),
    ("qwen3", "Qwen3ForCausalLM"),
    ("mistral", "MistralForCausalLM"),
    ("phi3", "Phi3ForCausalLM"),
    ("gemma2", "Gemma2ForCausalLM"),
    ("gemma3_text", "Gemma3ForCausalLM"),
    ("smollm3", "SmolLM3ForCausalLM"),
    ("granite", "GraniteForCausalLM"),
    ("lfm2", "Lfm2ForCausalLM"),
    ("granitemoehybrid", "GraniteMoeHybridForCausalLM"),
];

/// candle's Gemma 3 preallocates its KV cache for the whole context, so the
/// context is capped to keep that allocation reasonable.
const GEMMA3_MAX_CONTEXT: usize = 8192;

/// One architecture's candle config.
#[derive(Debug, Clone)]
pub(crate) enum ArchConfig {
    Llama(llama::Config),
    Qwen2(qwen2::Config),
    Qwen3(qwen3::Config),
    Mistral(mistral::Config),
    Phi3(phi3::Config),
    Gemma2(gemma2::Config),
    Gemma3(gemma3::Config),
    /// A Llama some of whose layers do not rotate (`rotary[layer]` false):
    /// the project's decoder runs it, candle has no model for it.
    SmolLM3 {
        llama: llama::Config,
        rotary: Vec<bool>,
    },
    /// A Llama with Granite's multipliers; the project's decoder runs it.
    Granite {
        llama: llama::Config,
        scales: GraniteScales,
    },
    /// Granite 4 (`GraniteMoeHybridForCausalLM`) without experts: a
    /// Granite whose MLP is stored fused, whose attention layers rotate
    /// (`position_embedding_type: "rope"`) or not at all, and whose other
    /// layers are Mamba-2 (granite-4.0-h-*). The project's decoder runs it.
    GraniteHybrid {
        llama: llama::Config,
        scales: GraniteScales,
        rope: bool,
        /// Whether each layer attends (the others are Mamba-2).
        attention: Vec<bool>,
        mamba: Mamba,
    },
    /// LFM2: short convolutions and attention layers; the project's
    /// decoder runs it.
    Lfm2(Lfm2),
}

/// What the loader needs from `config.json` (its fields are for the
/// loaders, in this module's parent and below).
#[derive(Debug, Clone)]
pub(crate) struct HfConfig {
    /// `architectures[0]`, e.g. `LlamaForCausalLM`.
    pub(super) name: String,
    pub(super) arch: ArchConfig,
    /// Rows of the embedding: the width of the logits.
    pub(super) vocab_size: usize,
    pub(super) context_length: usize,
    pub(super) eos_ids: Vec<u32>,
    pub(super) bos_id: Option<u32>,
    /// Whether the output projection is the embedding matrix.
    pub(super) tie_word_embeddings: bool,
    /// How queries and keys rotate, read in either config style.
    pub(super) rope: RopeLayers,
    /// Every layer attends to this many positions at most (Phi-3), where
    /// the project's decoder runs the model.
    pub(super) sliding_window: Option<usize>,
}

impl HfConfig {
    /// Parses a `config.json` already read into `raw`.
    pub(crate) fn parse(raw: Map<String, Value>, path: &Path) -> Result<HfConfig, ModelError> {
        let name = architecture(&raw, path)?;
        if SUPPORTED_ARCHITECTURES.contains(&name.as_str()) {
            check_config_keys(&raw, &name, path)?;
        }
        let mut cfg = raw;
        let invalid = |reason: String| ModelError::invalid(path, reason);
        let usize_of = |cfg: &Map<String, Value>, key: &str| -> Result<usize, ModelError> {
            match cfg.get(key) {
                Some(v) => v
                    .as_u64()
                    .map(|n| n as usize)
                    .filter(|&n| n > 0)
                    .ok_or_else(|| {
                        invalid(format!(
                            "expected \"{key}\" to be a positive integer, found {v}"
                        ))
                    }),
                None => Err(invalid(format!(
                    "missing \"{key}\", which a {name} config needs"
                ))),
            }
        };
        let vocab_size = usize_of(&cfg, "vocab_size")?;
        let hidden_size = usize_of(&cfg, "hidden_size")?;
        let heads = usize_of(&cfg, "num_attention_heads")?;
        usize_of(&cfg, "num_hidden_layers")?;
        usize_of(&cfg, "intermediate_size")?;
        if hidden_size % heads != 0 && cfg.get("head_dim").is_none_or(Value::is_null) {
            return Err(invalid(format!(
                "hidden_size {hidden_size} is not a multiple of num_attention_heads {heads}"
            )));
        }
        let eos_ids = token_ids(cfg.get("eos_token_id"), "eos_token_id", path)?;
        let bos_id = token_ids(cfg.get("bos_token_id"), "bos_token_id", path)?
            .first()
            .copied();
        if name == "Lfm2ForCausalLM" {
            // transformers' LFM2 config takes these older names over the usual ones.
            for (old, new) in [
                ("block_ff_dim", "intermediate_size"),
                ("tie_embedding", "tie_word_embeddings"),
            ] {
                if let Some(v) = cfg.remove(old) {
                    cfg.insert(new.into(), v);
                }
            }
            defaults(&mut cfg, &[("intermediate_size", json!(12288))]);
        }
        let tie_default = matches!(
            name.as_str(),
            "Gemma2ForCausalLM" | "Gemma3ForCausalLM" | "Lfm2ForCausalLM"
        );
        let tie_word_embeddings = match cfg.get("tie_word_embeddings") {
            None | Some(Value::Null) => tie_default,
            Some(Value::Bool(b)) => *b,
            Some(v) => {
                return Err(invalid(format!(
                    "expected \"tie_word_embeddings\" to be a boolean, found {v}"
                )))
            }
        };
        // The lm_head tensor is aliased to the embedding when tied (see
        // weights), so candle is always told to load `lm_head.weight`.
        cfg.insert("tie_word_embeddings".into(), json!(false));
        let rope = read_rope(&cfg, rope_defaults(&name), path)?;
        // candle's configs read the old style's base; the scaling is
        // checked against what each backend computes below.
        cfg.insert("rope_theta".into(), json!(rope.full.theta));
        if let Some(local) = &rope.sliding {
            cfg.insert("rope_local_base_freq".into(), json!(local.theta));
        }
        let scaling = cfg.remove("rope_scaling");
        cfg.remove("rope_parameters");
        // What candle's models compute: the base alone.
        let unscaled = |rope: &RopeLayers| -> Result<(), ModelError> {
            for (which, r) in std::iter::once(("", &rope.full))
                .chain(rope.sliding.iter().map(|r| ("local layers' ", r)))
            {
                if r.scaling != RopeScaling::None {
                    return Err(invalid(format!(
                        "unsupported {which}rotary scaling {} for {name}: expected none",
                        scaling
                            .clone()
                            .unwrap_or_else(|| json!(format!("{:?}", r.scaling)))
                    )));
                }
            }
            Ok(())
        };
        let mut sliding_window = None;
        let arch = match name.as_str() {
            "LlamaForCausalLM" => ArchConfig::Llama(llama_config(cfg, heads, path)?),
            "Qwen2ForCausalLM" => {
                defaults(
                    &mut cfg,
                    &[
                        ("max_position_embeddings", json!(32768)),
                        ("max_window_layers", json!(28)),
                        ("use_sliding_window", json!(false)),
                    ],
                );
                llama_line_defaults(&mut cfg, heads, 1e-6);
                // candle applies `sliding_window` unconditionally; transformers
                // only when `use_sliding_window` is set.
                let sliding = cfg.get("use_sliding_window") == Some(&json!(true));
                if sliding {
                    unscaled(&rope)?;
                }
                if !sliding || cfg.get("sliding_window").is_none_or(Value::is_null) {
                    let max = cfg.get("max_position_embeddings").cloned();
                    cfg.insert("sliding_window".into(), max.unwrap_or(json!(32768)));
                }
                ArchConfig::Qwen2(deserialize(cfg, &name, path)?)
            }
            "Qwen3ForCausalLM" => {
                defaults(
                    &mut cfg,
                    &[
                        ("head_dim", json!(128)),
                        ("attention_bias", json!(false)),
                        ("max_position_embeddings", json!(32768)),
                        ("max_window_layers", json!(28)),
                        ("use_sliding_window", json!(false)),
                    ],
                );
                llama_line_defaults(&mut cfg, heads, 1e-6);
                silu_only(&cfg, &name, path)?;
                ArchConfig::Qwen3(deserialize(cfg, &name, path)?)
            }
            "MistralForCausalLM" => {
                defaults(&mut cfg, &[("max_position_embeddings", json!(131072))]);
                llama_line_defaults(&mut cfg, heads, 1e-6);
                unscaled(&rope)?;
                ArchConfig::Mistral(deserialize(cfg, &name, path)?)
            }
            "Phi3ForCausalLM" => {
                defaults(&mut cfg, &[("max_position_embeddings", json!(4096))]);
                llama_line_defaults(&mut cfg, heads, 1e-5);
                silu_only(&cfg, &name, path)?;
                sliding_window = match cfg.get("sliding_window") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(v.as_u64().filter(|&w| w > 0).ok_or_else(|| {
                        invalid(format!(
                            "expected \"sliding_window\" to be a positive integer or null, found {v}"
                        ))
                    })? as usize),
                };
                cfg.remove("partial_rotary_factor");
                // candle's Phi-3 reads single ids; the lists were kept above.
                cfg.remove("eos_token_id");
                cfg.remove("bos_token_id");
                ArchConfig::Phi3(deserialize(cfg, &name, path)?)
            }
            "Gemma2ForCausalLM" => {
                gemma_defaults(&mut cfg, heads, 8192, 10000.0);
                defaults(
                    &mut cfg,
                    &[
                        ("final_logit_softcapping", json!(30.0)),
                        ("attn_logit_softcapping", json!(50.0)),
                    ],
                );
                unscaled(&rope)?;
                ArchConfig::Gemma2(deserialize(cfg, &name, path)?)
            }
            "SmolLM3ForCausalLM" => {
                let layers = usize_of(&cfg, "num_hidden_layers")?;
                let rotary = smollm3_rotary(&cfg, layers, path)?;
                ArchConfig::SmolLM3 {
                    llama: llama_config(cfg, heads, path)?,
                    rotary,
                }
            }
            "GraniteForCausalLM" => {
                let scales = granite_scales(&cfg, path)?;
                ArchConfig::Granite {
                    llama: llama_config(cfg, heads, path)?,
                    scales,
                }
            }
            "Lfm2ForCausalLM" => ArchConfig::Lfm2(lfm2_config(&cfg, path)?),
            "GraniteMoeHybridForCausalLM" => {
                let layers = usize_of(&cfg, "num_hidden_layers")?;
                let (rope, attention) = granite_hybrid_checks(&cfg, layers, path)?;
                let mamba = granite_mamba(&cfg, hidden_size, path)?;
                let scales = granite_scales(&cfg, path)?;
                silu_only(&cfg, &name, path)?;
                // Without experts, the MLP is the shared one.
                let shared = cfg.get("shared_intermediate_size").cloned();
                cfg.insert(
                    "intermediate_size".into(),
                    shared.filter(|v| !v.is_null()).unwrap_or(json!(1024)),
                );
                ArchConfig::GraniteHybrid {
                    llama: llama_config(cfg, heads, path)?,
                    scales,
                    rope,
                    attention,
                    mamba,
                }
            }
            "Gemma3ForCausalLM" => {
                gemma_defaults(&mut cfg, heads, 131072, 1_000_000.0);
                defaults(
                    &mut cfg,
                    &[
                        ("rope_local_base_freq", json!(10000.0)),
                        ("final_logit_softcapping", Value::Null),
                        ("attn_logit_softcapping", Value::Null),
                    ],
                );
                unscaled(&rope)?;
                gemma3_pattern(&mut cfg, path)?;
                let max = cfg
                    .get("max_position_embeddings")
                    .and_then(Value::as_u64)
                    .unwrap_or(GEMMA3_MAX_CONTEXT as u64);
                cfg.insert(
                    "max_position_embeddings".into(),
                    json!(max.min(GEMMA3_MAX_CONTEXT as u64)),
                );
                ArchConfig::Gemma3(deserialize(cfg, &name, path)?)
            }
            other => {
                return Err(ModelError::UnsupportedArchitecture {
                    path: path.to_owned(),
                    found: other.to_owned(),
                    supported: SUPPORTED_ARCHITECTURES.to_vec(),
                })
            }
        };
        let context_length = match &arch {
            ArchConfig::Llama(c) => c.max_position_embeddings,
            ArchConfig::Qwen2(c) => c.max_position_embeddings,
            ArchConfig::Qwen3(c) => c.max_position_embeddings,
            ArchConfig::Mistral(c) => c.max_position_embeddings,
            ArchConfig::Phi3(c) => c.max_position_embeddings,
            ArchConfig::Gemma2(c) => c.max_position_embeddings,
            ArchConfig::Gemma3(c) => c.max_position_embeddings,
            ArchConfig::SmolLM3 { llama, .. }
            | ArchConfig::Granite { llama, .. }
            | ArchConfig::GraniteHybrid { llama, .. } => llama.max_position_embeddings,
            ArchConfig::Lfm2(c) => c.context,
        };
        Ok(HfConfig {
            name,
            arch,
            vocab_size,
            context_length,
            eos_ids,
            bos_id,
            tie_word_embeddings,
            rope,
            sliding_window,
        })
    }
}

/// `architectures[0]`, else the architecture `model_type` implies.
fn architecture(cfg: &Map<String, Value>, path: &Path) -> Result<String, ModelError> {
    match cfg.get("architectures") {
        Some(Value::Array(list)) if !list.is_empty() => {
            return list[0].as_str().map(str::to_owned).ok_or_else(|| {
                ModelError::invalid(
                    path,
                    format!(
                        "expected \"architectures\" to hold strings, found {}",
                        list[0]
                    ),
                )
            })
        }
        Some(Value::Array(_)) | None | Some(Value::Null) => {}
        Some(other) => {
            return Err(ModelError::invalid(
                path,
                format!(
                    "expected \"architectures\" to be a list of strings, found {}",
                    kind(other)
                ),
            ))
        }
    }
    match cfg.get("model_type").and_then(Value::as_str) {
        Some(ty) => MODEL_TYPES
            .iter()
            .find(|(t, _)| *t == ty)
            .map(|(_, a)| (*a).to_owned())
            .ok_or_else(|| ModelError::UnsupportedArchitecture {
                path: path.to_owned(),
                found: format!("model_type {ty}"),
                supported: SUPPORTED_ARCHITECTURES.to_vec(),
            }),
        None => Err(ModelError::invalid(
            path,
            "expected \"architectures\" (e.g. [\"LlamaForCausalLM\"]) or \"model_type\", found neither",
        )),
    }
}

/// The defaults transformers shares across the Llama-line architectures
/// (Qwen2, Qwen3, Mistral, Phi-3): RoPE base 10000, SiLU, and one key/value
/// head per query head when `num_key_value_heads` is unsaid; only the norm
/// epsilon differs between them.
fn llama_line_defaults(cfg: &mut Map<String, Value>, heads: usize, rms_norm_eps: f64) {
    defaults(
        cfg,
        &[
            ("rope_theta", json!(10000.0)),
            ("rms_norm_eps", json!(rms_norm_eps)),
            ("hidden_act", json!("silu")),
            ("num_key_value_heads", json!(heads)),
        ],
    );
}

fn defaults(cfg: &mut Map<String, Value>, values: &[(&str, Value)]) {
    for (key, value) in values {
        if cfg
            .get(*key)
            .is_none_or(|v| v.is_null() && !value.is_null())
        {
            cfg.insert((*key).to_owned(), value.clone());
        }
    }
}

fn deserialize<T: DeserializeOwned>(
    cfg: Map<String, Value>,
    name: &str,
    path: &Path,
) -> Result<T, ModelError> {
    serde_json::from_value(Value::Object(cfg))
        .map_err(|e| ModelError::invalid(path, format!("cannot read it as a {name} config: {e}")))
}

/// Refuses an activation other than SiLU, the one the project's decoder
/// computes for this architecture.
fn silu_only(cfg: &Map<String, Value>, name: &str, path: &Path) -> Result<(), ModelError> {
    match cfg.get("hidden_act") {
        Some(Value::String(act)) if act == "silu" => Ok(()),
        other => Err(ModelError::invalid(
            path,
            format!(
                "\"hidden_act\" is {}, but a {name} runs here with \"silu\" only",
                other.map_or("unset".to_owned(), Value::to_string)
            ),
        )),
    }
}

/// What each architecture's config class assumes of its rotation.
fn rope_defaults(name: &str) -> RopeDefaults {
    let plain = RopeDefaults {
        theta: 10000.0,
        local_theta: None,
        partial: false,
    };
    match name {
        "Phi3ForCausalLM" => RopeDefaults {
            partial: true,
            ..plain
        },
        "Gemma3ForCausalLM" => RopeDefaults {
            theta: 1_000_000.0,
            local_theta: Some(10000.0),
            partial: false,
        },
        "Lfm2ForCausalLM" => RopeDefaults {
            theta: 1_000_000.0,
            ..plain
        },
        _ => plain,
    }
}

/// Gemma configs name the activation `hidden_activation` (newer) or `hidden_act`.
fn gemma_activation(cfg: &mut Map<String, Value>) {
    if cfg.get("hidden_activation").is_none_or(Value::is_null) {
        let act = cfg
            .get("hidden_act")
            .filter(|v| !v.is_null())
            .cloned()
            .unwrap_or(json!("gelu_pytorch_tanh"));
        cfg.insert("hidden_activation".into(), act);
    }
}

/// The activation and the defaults Gemma 2 and Gemma 3 share: 256-wide
/// heads scaled by 256, no attention bias, a 4096-token sliding window, and
/// one key/value head per query head when `num_key_value_heads` is unsaid;
/// and each generation's own `context` length and rotary base `theta`.
fn gemma_defaults(cfg: &mut Map<String, Value>, heads: usize, context: usize, theta: f64) {
    gemma_activation(cfg);
    defaults(
        cfg,
        &[
            ("attention_bias", json!(false)),
            ("head_dim", json!(256)),
            ("query_pre_attn_scalar", json!(256)),
            ("rms_norm_eps", json!(1e-6)),
            ("num_key_value_heads", json!(heads)),
            ("sliding_window", json!(4096)),
            ("max_position_embeddings", json!(context)),
            ("rope_theta", json!(theta)),
        ],
    );
}

/// Newer Gemma 3 configs list `layer_types` instead of a `sliding_window_pattern`.
fn gemma3_pattern(cfg: &mut Map<String, Value>, path: &Path) -> Result<(), ModelError> {
    if cfg
        .get("sliding_window_pattern")
        .is_some_and(|v| !v.is_null())
    {
        return Ok(());
    }
    let pattern = match cfg.get("layer_types").and_then(Value::as_array) {
        None => 6,
        Some(types) => {
            let full = |t: &Value| t.as_str() == Some("full_attention");
            let Some(first) = types.iter().position(full) else {
                return Err(ModelError::invalid(
                    path,
                    "expected \"layer_types\" to contain \"full_attention\" layers, found none",
                ));
            };
            let pattern = first + 1;
            if types
                .iter()
                .enumerate()
                .any(|(i, t)| full(t) != ((i + 1) % pattern == 0))
            {
                return Err(ModelError::invalid(
                    path,
                    format!("\"layer_types\" is not a repeating pattern of {first} sliding layers then one full layer"),
                ));
            }
            pattern
        }
    };
    cfg.insert("sliding_window_pattern".into(), json!(pattern));
    Ok(())
}

fn llama_config(
    mut cfg: Map<String, Value>,
    heads: usize,
    path: &Path,
) -> Result<llama::Config, ModelError> {
    let name = "LlamaForCausalLM";
    let invalid = |reason: String| ModelError::invalid(path, reason);
    defaults(
        &mut cfg,
        &[
            ("max_position_embeddings", json!(2048)),
            ("rms_norm_eps", json!(1e-6)),
            ("hidden_act", json!("silu")),
            ("rope_theta", json!(10000.0)),
        ],
    );
    for flag in ["attention_bias", "mlp_bias"] {
        if cfg.get(flag) == Some(&json!(true)) {
            return Err(invalid(format!(
                "\"{flag}\": true is not supported for {name} (candle's Llama has no biases)"
            )));
        }
    }
    let hidden = cfg
        .get("hidden_size")
        .and_then(Value::as_u64)
        .unwrap_or_default() as usize;
    if let Some(head_dim) = cfg.get("head_dim").and_then(Value::as_u64) {
        if head_dim as usize * heads != hidden {
            return Err(invalid(format!(
                "head_dim {head_dim} differs from hidden_size / num_attention_heads = {}; candle's Llama supports only the latter",
                hidden / heads
            )));
        }
    }
    // The project's decoder runs the Llama line with SiLU alone.
    silu_only(&cfg, name, path)?;
    // The ids were read separately; candle's own type for them is stricter.
    cfg.remove("eos_token_id");
    cfg.remove("bos_token_id");
    let config: llama::LlamaConfig = deserialize(cfg, name, path)?;
    Ok(config.into_config(false))
}
