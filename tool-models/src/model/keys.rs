//! Which keys of a `config.json` and of a GGUF file's metadata each
//! architecture's loader understands, and the refusal of every other.
//!
//! A key the loader does not read may still change what the model
//! computes (a window, a soft cap, experts, another rotary scheme), and a
//! model run without it writes plausible nonsense. So a key is accepted
//! only when the loader computes it, when it cannot change the logits
//! (bookkeeping, training-only settings), or when it holds the one value
//! that changes nothing; any other is an error naming it and its value.

use super::ModelError;
use candle_core::quantized::gguf_file::Value as GgufValue;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// Keys of any `config.json` that do not change the logits: bookkeeping,
/// training-only settings, and the generation defaults old configs carry.
const INERT: &[&str] = &[
    "_name_or_path",
    "add_cross_attention",
    "architectures",
    "attention_dropout",
    "auto_map",
    "bad_words_ids",
    "begin_suppress_tokens",
    "bos_token_id",
    "cache_implementation",
    "chunk_size_feed_forward",
    "cross_attention_hidden_size",
    "decoder_start_token_id",
    "diversity_penalty",
    "do_sample",
    "dtype",
    "early_stopping",
    "embd_pdrop",
    "encoder_no_repeat_ngram_size",
    "eos_token_id",
    "exponential_decay_length_penalty",
    "finetuning_task",
    "forced_bos_token_id",
    "forced_eos_token_id",
    "hidden_dropout",
    "id2label",
    "initializer_factor",
    "initializer_range",
    "is_decoder",
    "is_encoder_decoder",
    "label2id",
    "length_penalty",
    "max_length",
    "min_length",
    "model_type",
    "no_repeat_ngram_size",
    "num_beam_groups",
    "num_beams",
    "num_return_sequences",
    "output_attentions",
    "output_hidden_states",
    "output_scores",
    "pad_token_id",
    "prefix",
    "pretraining_tp",
    "problem_type",
    "pruned_heads",
    "remove_invalid_values",
    "repetition_penalty",
    "resid_pdrop",
    "return_dict",
    "return_dict_in_generate",
    "sep_token_id",
    "suppress_tokens",
    "task_specific_params",
    "temperature",
    "tf_legacy_loss",
    "tie_encoder_decoder",
    "tokenizer_class",
    "top_k",
    "top_p",
    "torch_dtype",
    "torchscript",
    "transformers_version",
    "typical_p",
    "use_bfloat16",
    "use_cache",
];

/// Keys every architecture's loader reads.
const READ: &[&str] = &[
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "rms_norm_eps",
    "hidden_act",
    "max_position_embeddings",
    "tie_word_embeddings",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
];

/// A key one architecture adds to [`READ`] and [`INERT`].
enum Rule {
    /// Computed by the loader.
    Read,
    /// Changes nothing for this architecture (a window that only
    /// `use_sliding_window`, refused when on, would turn on).
    Inert,
    /// Accepted only when `accepts` holds of its value, described as `expected`.
    Only(fn(&Value) -> bool, &'static str),
}

fn is_false(v: &Value) -> bool {
    matches!(v, Value::Null | Value::Bool(false))
}

fn is_null(v: &Value) -> bool {
    v.is_null()
}

fn all_full_attention(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(types) => types.iter().all(|t| t == "full_attention"),
        _ => false,
    }
}

fn is_one(v: &Value) -> bool {
    v.is_null() || v.as_f64() == Some(1.0)
}

/// What each architecture adds.
fn rules(architecture: &str) -> &'static [(&'static str, Rule)] {
    use Rule::{Inert, Only, Read};
    const NO_BIAS: (&str, Rule) = ("attention_bias", Only(is_false, "false"));
    const NO_MLP_BIAS: (&str, Rule) = ("mlp_bias", Only(is_false, "false"));
    const FULL: (&str, Rule) = (
        "layer_types",
        Only(all_full_attention, "only \"full_attention\" layers"),
    );
    const NO_WINDOW: (&str, Rule) = ("use_sliding_window", Only(is_false, "false"));
    // Read only with `use_sliding_window`, which must be off.
    const WINDOW_UNUSED: (&str, Rule) = ("sliding_window", Inert);
    const WINDOW_LAYERS: (&str, Rule) = ("max_window_layers", Inert);
    match architecture {
        "LlamaForCausalLM" => &[NO_BIAS, NO_MLP_BIAS, FULL],
        "Qwen2ForCausalLM" => &[
            ("use_sliding_window", Read),
            ("sliding_window", Read),
            ("max_window_layers", Read),
            FULL,
        ],
        "Qwen3ForCausalLM" => &[NO_BIAS, NO_WINDOW, WINDOW_UNUSED, WINDOW_LAYERS, FULL],
        "MistralForCausalLM" => &[("sliding_window", Read), FULL],
        "Phi3ForCausalLM" => &[
            NO_BIAS,
            NO_MLP_BIAS,
            ("sliding_window", Read),
            ("partial_rotary_factor", Read),
            ("original_max_position_embeddings", Read),
            // Settings of Phi-4-mini's own modelling code, which
            // transformers' Phi-3 does not read: accepted at the values
            // that change nothing there either.
            ("lm_head_bias", Only(is_false, "false")),
            ("full_attn_mod", Only(is_one, "1")),
            ("interpolate_factor", Only(is_one, "1")),
        ],
        "Gemma2ForCausalLM" => &[
            NO_BIAS,
            ("hidden_activation", Read),
            ("query_pre_attn_scalar", Read),
            ("sliding_window", Read),
            ("final_logit_softcapping", Read),
            ("attn_logit_softcapping", Read),
            ("layer_types", Read),
        ],
        "Gemma3ForCausalLM" => &[
            NO_BIAS,
            ("hidden_activation", Read),
            ("query_pre_attn_scalar", Read),
            ("sliding_window", Read),
            ("sliding_window_pattern", Read),
            ("_sliding_window_pattern", Read),
            ("layer_types", Read),
            ("rope_local_base_freq", Read),
            ("final_logit_softcapping", Read),
            ("attn_logit_softcapping", Read),
            ("use_bidirectional_attention", Only(is_false, "false")),
        ],
        "SmolLM3ForCausalLM" => &[
            NO_BIAS,
            NO_MLP_BIAS,
            NO_WINDOW,
            ("sliding_window", Only(is_null, "null")),
            WINDOW_LAYERS,
            FULL,
            ("no_rope_layers", Read),
            ("no_rope_layer_interval", Read),
        ],
        "GraniteForCausalLM" => &[
            NO_BIAS,
            NO_MLP_BIAS,
            FULL,
            ("embedding_multiplier", Read),
            ("attention_multiplier", Read),
            ("residual_multiplier", Read),
            ("logits_scaling", Read),
        ],
        "GraniteMoeHybridForCausalLM" => &[
            NO_BIAS,
            ("embedding_multiplier", Read),
            ("attention_multiplier", Read),
            ("residual_multiplier", Read),
            ("logits_scaling", Read),
            ("shared_intermediate_size", Read),
            ("position_embedding_type", Read),
            ("layer_types", Read),
            ("layers_block_type", Read),
            ("num_local_experts", Read),
            // The experts' settings, with none (`num_local_experts` must
            // be 0), change nothing.
            ("num_experts_per_tok", Inert),
            ("output_router_logits", Inert),
            ("router_aux_loss_coef", Inert),
            ("mamba_n_heads", Read),
            ("mamba_n_groups", Read),
            ("mamba_d_state", Read),
            ("mamba_d_head", Read),
            ("mamba_d_conv", Read),
            ("mamba_expand", Read),
            ("mamba_conv_bias", Read),
            ("mamba_proj_bias", Read),
            ("time_step_limit", Read),
            // How transformers splits a prompt for its matrix form of the
            // scan: the same sums in another order.
            ("mamba_chunk_size", Inert),
            // Training settings of IBM's configs.
            ("init_method", Inert),
            ("normalization_function", Only(is_rmsnorm, "\"rmsnorm\"")),
        ],
        "Lfm2ForCausalLM" => &[
            ("norm_eps", Read),
            ("conv_bias", Read),
            ("conv_L_cache", Read),
            ("block_ff_dim", Read),
            ("block_auto_adjust_ff_dim", Read),
            ("block_ffn_dim_multiplier", Read),
            ("block_multiple_of", Read),
            ("full_attn_idxs", Read),
            ("layer_types", Read),
            ("tie_embedding", Read),
            // Liquid's own configs carry their training code's settings,
            // which transformers' LFM2 does not read: initialisation, and
            // the sizes, norm and rotary base it reads under other names.
            ("block_dim", Inert),
            ("block_norm_eps", Inert),
            ("block_mlp_init_scale", Inert),
            ("block_out_init_scale", Inert),
            ("block_use_xavier_init", Inert),
            ("conv_use_xavier_init", Inert),
            ("conv_dim", Inert),
            ("conv_dim_out", Inert),
            ("num_heads", Inert),
            ("theta", Inert),
            // What transformers always computes, accepted at that value.
            ("block_use_swiglu", Only(is_true, "true")),
            ("use_pos_enc", Only(is_true, "true")),
        ],
        _ => &[],
    }
}

fn is_rmsnorm(v: &Value) -> bool {
    v.is_null() || v == "rmsnorm"
}

fn is_true(v: &Value) -> bool {
    matches!(v, Value::Null | Value::Bool(true))
}

/// Refuses a `config.json` of `architecture` that holds a key its loader
/// neither computes nor may ignore.
pub(crate) fn check_config_keys(
    cfg: &Map<String, Value>,
    architecture: &str,
    path: &Path,
) -> Result<(), ModelError> {
    let own = rules(architecture);
    for (key, value) in cfg {
        if INERT.contains(&key.as_str()) || READ.contains(&key.as_str()) {
            continue;
        }
        match own.iter().find(|(k, _)| k == key) {
            Some((_, Rule::Read | Rule::Inert)) => {}
            Some((_, Rule::Only(accepts, _))) if accepts(value) => {}
            Some((_, Rule::Only(_, expected))) => {
                return Err(ModelError::invalid(
                    path,
                    format!(
                        "\"{key}\" is {value}; this crate computes a {architecture} only with {expected}"
                    ),
                ))
            }
            None => {
                return Err(ModelError::invalid(
                    path,
                    format!(
                        "\"{key}\" is {}, a setting this crate does not compute for a {architecture}: running without it could give wrong tokens",
                        short(value)
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// `value`, cut short for a message.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// Metadata keys (after `ARCH.`) the decoder reads from a GGUF file.
const GGUF_READ: &[&str] = &[
    "context_length",
    "embedding_length",
    "block_count",
    "feed_forward_length",
    "attention.head_count",
    "attention.head_count_kv",
    "attention.layer_norm_rms_epsilon",
    "attention.key_length",
    "attention.value_length",
    "attention.sliding_window",
    "rope.dimension_count",
    "rope.freq_base",
    "rope.scaling.type",
    "rope.scaling.factor",
    "rope.scaling.original_context_length",
    "rope.scaling.attn_factor",
    "expert_count",
    // LFM2's convolutions.
    "shortconv.l_cache",
    // Granite 4's Mamba-2 layers, and whether its attention rotates
    // (elsewhere `rope.scaling.finetuned` changes nothing).
    "ssm.conv_kernel",
    "ssm.state_size",
    "ssm.group_count",
    "ssm.inner_size",
    "ssm.time_step_rank",
    "rope.scaling.finetuned",
    // Granite's multipliers.
    "embedding_scale",
    "residual_scale",
    "attention.scale",
    "logit_scale",
];

/// Metadata keys (after `ARCH.`) that do not change the logits.
const GGUF_INERT: &[&str] = &[
    "vocab_size",
    "tensor_data_layout",
    // Only with `expert_count`, which is refused above zero.
    "expert_used_count",
    "expert_shared_feed_forward_length",
];

/// Refuses a GGUF file of `arch` whose metadata holds an `ARCH.` key the
/// decoder neither reads nor may ignore.
pub(crate) fn check_gguf_keys(
    meta: &HashMap<String, GgufValue>,
    arch: &str,
    path: &Path,
) -> Result<(), ModelError> {
    let prefix = format!("{arch}.");
    let mut keys: Vec<&String> = meta.keys().collect();
    keys.sort();
    for key in keys {
        let Some(rest) = key.strip_prefix(&prefix) else {
            continue;
        };
        if GGUF_READ.contains(&rest) || GGUF_INERT.contains(&rest) {
            continue;
        }
        return Err(ModelError::invalid(
            path,
            format!(
                "metadata {key} is {}, a setting the decoder does not compute for {arch}: running without it could give wrong tokens",
                gguf_short(&meta[key])
            ),
        ));
    }
    Ok(())
}

fn gguf_short(value: &GgufValue) -> String {
    match value {
        GgufValue::String(s) => format!("{s:?}"),
        GgufValue::Array(items) => format!("an array of {}", items.len()),
        GgufValue::Bool(b) => b.to_string(),
        GgufValue::F32(x) => x.to_string(),
        GgufValue::F64(x) => x.to_string(),
        other => other
            .to_u64()
            .map(|n| n.to_string())
            .or_else(|_| other.to_i64().map(|n| n.to_string()))
            .unwrap_or_else(|_| format!("{other:?}")),
    }
}
