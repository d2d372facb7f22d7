//! The model's shape, read from and written as a Hugging Face `config.json`.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::error::{io_err, TrainError};

/// The shape of a Llama decoder with tied input/output embeddings.
///
/// Field names are those of a Hugging Face `LlamaConfig`, so that this struct reads a
/// `config.json` directly; [`ModelConfig::to_hf_json`] adds the constant fields
/// (`architectures`, `model_type`, `hidden_act`, ...) that transformers expects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// Number of tokens in the vocabulary (rows of `model.embed_tokens.weight`).
    pub vocab_size: usize,
    /// Width of the residual stream.
    pub hidden_size: usize,
    /// Width of the SiLU-gated MLP.
    pub intermediate_size: usize,
    /// Number of decoder layers.
    pub num_hidden_layers: usize,
    /// Number of query heads.
    pub num_attention_heads: usize,
    /// Number of key/value heads (grouped-query attention when smaller than the query heads).
    pub num_key_value_heads: usize,
    /// Longest sequence the model is meant for (RoPE tables are built this long).
    pub max_position_embeddings: usize,
    /// RoPE base frequency.
    pub rope_theta: f64,
    /// Epsilon inside the RMS norms.
    pub rms_norm_eps: f64,
    /// Token that starts a sequence.
    pub bos_token_id: u32,
    /// Token that ends a turn (generation stops on it).
    pub eos_token_id: u32,
    /// Token used to pad batches.
    pub pad_token_id: u32,
    /// Standard deviation of the seeded initialisation of weight matrices.
    #[serde(default = "default_initializer_range")]
    pub initializer_range: f64,
}

fn default_initializer_range() -> f64 {
    0.02
}

impl ModelConfig {
    /// A small Llama of `hidden_size` × `num_hidden_layers`: heads of 64, half as
    /// many key/value heads, an MLP three times as wide, 2048 positions, RoPE base
    /// 10,000; bos and pad 0, eos 1. Change fields with struct update syntax.
    pub fn small(vocab_size: usize, hidden_size: usize, num_hidden_layers: usize) -> Self {
        let heads = (hidden_size / 64).max(1);
        Self {
            vocab_size,
            hidden_size,
            intermediate_size: hidden_size * 3,
            num_hidden_layers,
            num_attention_heads: heads,
            num_key_value_heads: (heads / 2).max(1),
            max_position_embeddings: 2048,
            rope_theta: 10_000.0,
            rms_norm_eps: 1e-5,
            bos_token_id: 0,
            eos_token_id: 1,
            pad_token_id: 0,
            initializer_range: default_initializer_range(),
        }
    }

    /// Width of one attention head.
    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads.max(1)
    }

    /// Total number of scalar parameters (the tied embedding counted once).
    pub fn num_parameters(&self) -> usize {
        let h = self.hidden_size;
        let kv = self.head_dim() * self.num_key_value_heads;
        let per_layer = 2 * h + 2 * h * h + 2 * h * kv + 3 * h * self.intermediate_size;
        self.vocab_size * h + self.num_hidden_layers * per_layer + h
    }

    /// Checks that the shape is one the model can be built with.
    ///
    /// # Errors
    /// [`TrainError::Config`] naming the first inconsistent field.
    pub fn validate(&self) -> Result<(), TrainError> {
        let positive = [
            ("vocab_size", self.vocab_size),
            ("hidden_size", self.hidden_size),
            ("intermediate_size", self.intermediate_size),
            ("num_hidden_layers", self.num_hidden_layers),
            ("num_attention_heads", self.num_attention_heads),
            ("num_key_value_heads", self.num_key_value_heads),
            ("max_position_embeddings", self.max_position_embeddings),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(TrainError::Config(format!(
                    "{name} must be positive, found 0"
                )));
            }
        }
        if !self.hidden_size.is_multiple_of(self.num_attention_heads) {
            return Err(TrainError::Config(format!(
                "hidden_size ({}) must be a multiple of num_attention_heads ({})",
                self.hidden_size, self.num_attention_heads
            )));
        }
        if !self
            .num_attention_heads
            .is_multiple_of(self.num_key_value_heads)
        {
            return Err(TrainError::Config(format!(
                "num_attention_heads ({}) must be a multiple of num_key_value_heads ({})",
                self.num_attention_heads, self.num_key_value_heads
            )));
        }
        if !self.head_dim().is_multiple_of(2) {
            return Err(TrainError::Config(format!(
                "the head dimension must be even for RoPE, found {}",
                self.head_dim()
            )));
        }
        if !(self.rope_theta > 0.0 && self.rms_norm_eps > 0.0 && self.initializer_range > 0.0) {
            return Err(TrainError::Config(format!(
                "rope_theta, rms_norm_eps and initializer_range must be positive, found {}, {}, {}",
                self.rope_theta, self.rms_norm_eps, self.initializer_range
            )));
        }
        for (name, id) in [
            ("bos_token_id", self.bos_token_id),
            ("eos_token_id", self.eos_token_id),
            ("pad_token_id", self.pad_token_id),
        ] {
            if id as usize >= self.vocab_size {
                return Err(TrainError::Config(format!(
                    "{name} must be below vocab_size ({}), found {id}",
                    self.vocab_size
                )));
            }
        }
        Ok(())
    }

    /// The full Hugging Face `config.json` of a `LlamaForCausalLM` with tied embeddings.
    pub fn to_hf_json(&self) -> Value {
        json!({
            "architectures": ["LlamaForCausalLM"],
            "attention_bias": false,
            "attention_dropout": 0.0,
            "bos_token_id": self.bos_token_id,
            "eos_token_id": self.eos_token_id,
            "head_dim": self.head_dim(),
            "hidden_act": "silu",
            "hidden_size": self.hidden_size,
            "initializer_range": self.initializer_range,
            "intermediate_size": self.intermediate_size,
            "max_position_embeddings": self.max_position_embeddings,
            "mlp_bias": false,
            "model_type": "llama",
            "num_attention_heads": self.num_attention_heads,
            "num_hidden_layers": self.num_hidden_layers,
            "num_key_value_heads": self.num_key_value_heads,
            "pad_token_id": self.pad_token_id,
            "pretraining_tp": 1,
            "rms_norm_eps": self.rms_norm_eps,
            "rope_scaling": null,
            "rope_theta": self.rope_theta,
            "tie_word_embeddings": true,
            "torch_dtype": "float32",
            "use_cache": true,
            "vocab_size": self.vocab_size,
        })
    }

    /// The `generation_config.json` matching this model: greedy, stopping at `eos_token_id`.
    pub fn generation_config_json(&self) -> Value {
        json!({
            "bos_token_id": self.bos_token_id,
            "do_sample": false,
            "eos_token_id": self.eos_token_id,
            "pad_token_id": self.pad_token_id,
        })
    }

    /// Reads a Hugging Face `config.json`, refusing what this model cannot represent
    /// (another architecture, untied embeddings, biases, RoPE scaling, another activation).
    ///
    /// # Errors
    /// [`TrainError::Io`], [`TrainError::Json`], or [`TrainError::Config`] naming the file.
    pub fn from_hf_file(path: &Path) -> Result<Self, TrainError> {
        let text = std::fs::read_to_string(path).map_err(io_err("read", path))?;
        let value: Value = serde_json::from_str(&text).map_err(|source| TrainError::Json {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_hf_json(&value).map_err(|e| match e {
            TrainError::Config(message) => {
                TrainError::Config(format!("{}: {message}", path.display()))
            }
            other => other,
        })
    }

    /// Reads the fields of a parsed Hugging Face `config.json` (see [`ModelConfig::from_hf_file`]).
    ///
    /// # Errors
    /// [`TrainError::Config`] saying which field is missing or unsupported.
    pub fn from_hf_json(value: &Value) -> Result<Self, TrainError> {
        let expect = |key: &str, wanted: &Value, absent_ok: bool| -> Result<(), TrainError> {
            match value.get(key) {
                None if absent_ok => Ok(()),
                Some(found) if found == wanted => Ok(()),
                found => Err(TrainError::Config(format!(
                    "expected \"{key}\": {wanted}, found {}",
                    found.map_or("nothing".to_string(), Value::to_string)
                ))),
            }
        };
        expect("model_type", &json!("llama"), false)?;
        expect("tie_word_embeddings", &json!(true), false)?;
        expect("hidden_act", &json!("silu"), true)?;
        expect("attention_bias", &json!(false), true)?;
        expect("mlp_bias", &json!(false), true)?;
        expect("rope_scaling", &Value::Null, true)?;
        let head_dim = value.get("head_dim").and_then(Value::as_u64);
        let mut value = value.clone();
        // Older configs leave the key/value head count out when it equals the query heads.
        if let Some(map) = value.as_object_mut() {
            if !map.contains_key("num_key_value_heads") {
                if let Some(heads) = map.get("num_attention_heads").cloned() {
                    map.insert("num_key_value_heads".into(), heads);
                }
            }
        }
        let config: ModelConfig = serde_json::from_value(value).map_err(|e| {
            TrainError::Config(format!("config.json does not describe a Llama model: {e}"))
        })?;
        config.validate()?;
        if let Some(head_dim) = head_dim {
            if head_dim as usize != config.head_dim() {
                return Err(TrainError::Config(format!(
                    "expected head_dim = hidden_size / num_attention_heads = {}, found {head_dim}",
                    config.head_dim()
                )));
            }
        }
        Ok(config)
    }
}
