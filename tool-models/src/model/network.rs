//! The network a model runs: our own decoder (the Llama family, Qwen 2 and
//! 3, Phi-3, every GGUF file), or one of candle-transformers' models
//! (Mistral, Gemma 2 and 3 directories, Qwen 2 with a sliding window).
//!
//! A [`Network`] is the weights alone, shared by every session on the
//! model; a [`Runner`] is one sequence running through it, with its KV
//! cache. The project's decoder keeps its caches outside the weights, so a
//! runner is a cache; candle's models keep theirs inside, so a runner is a
//! copy of the pristine model (tensors are shared: cheap), which never runs
//! itself.

use super::config::{ArchConfig, HfConfig};
use super::dense::{CacheType, Dense, KvCache, Scratch, Step};
use super::error::candle_message;
use super::weights::Weights;
use super::ModelError;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::{gemma2, gemma3, mistral, qwen2};
use std::sync::Arc;

/// Prompts are run in chunks of at most this many tokens, bounding the
/// memory a pass takes (candle's models build whole attention matrices)
/// and, when requests are served together, how long the answers being
/// decoded wait for a prompt: a pass runs a chunk beside their next
/// tokens. llama.cpp's default batch is 512 too.
pub(crate) const PREFILL_CHUNK: usize = 512;

/// A model's weights, as its sessions share them.
pub(crate) enum Network {
    /// The Llama family, Qwen 2 and 3, Phi-3 from safetensors, and every
    /// GGUF file (see [`Dense`]).
    Dense(Arc<Dense>),
    /// One of candle-transformers' models, never run: each runner runs a
    /// copy.
    Candle(Candle),
}

/// A candle-transformers model, its KV cache inside.
#[derive(Clone)]
pub(crate) enum Candle {
    Qwen2(qwen2::ModelForCausalLM),
    Mistral(mistral::Model),
    Gemma2(gemma2::Model),
    Gemma3(gemma3::Model),
}

impl Network {
    /// Builds the network of a Hugging Face model from its weights.
    pub(crate) fn from_hf(config: &HfConfig, weights: &mut Weights) -> Result<Network, ModelError> {
        if config.tie_word_embeddings {
            weights.tie_lm_head()?;
        } else if !weights.tensors.contains_key("lm_head.weight")
            && !matches!(config.arch, ArchConfig::Gemma2(_) | ArchConfig::Gemma3(_))
        {
            return Err(ModelError::inconsistent(
                &weights.path,
                "missing tensor lm_head.weight, and config.json does not set \"tie_word_embeddings\": true",
            ));
        }
        if let Some(model) = Dense::from_hf(config, weights)? {
            return Ok(Network::Dense(Arc::new(model)));
        }
        let path = weights.path.clone();
        let vb = VarBuilder::from_tensors(weights.tensors.clone(), DType::F32, &Device::Cpu);
        let weights_error = |e: candle_core::Error| {
            ModelError::invalid(
                &path,
                format!("cannot build the {}: {}", config.name, candle_message(&e)),
            )
        };
        Ok(Network::Candle(match &config.arch {
            ArchConfig::Llama(_)
            | ArchConfig::SmolLM3 { .. }
            | ArchConfig::Granite { .. }
            | ArchConfig::GraniteHybrid { .. }
            | ArchConfig::Qwen3(_)
            | ArchConfig::Phi3(_)
            | ArchConfig::Lfm2(_) => {
                return Err(ModelError::invalid(
                    &path,
                    format!(
                        "a {} model has no candle fallback (internal error)",
                        config.name
                    ),
                ))
            }
            ArchConfig::Qwen2(cfg) => {
                Candle::Qwen2(qwen2::ModelForCausalLM::new(cfg, vb).map_err(weights_error)?)
            }
            ArchConfig::Mistral(cfg) => {
                Candle::Mistral(mistral::Model::new(cfg, vb).map_err(weights_error)?)
            }
            ArchConfig::Gemma2(cfg) => {
                Candle::Gemma2(gemma2::Model::new(false, cfg, vb).map_err(weights_error)?)
            }
            ArchConfig::Gemma3(cfg) => {
                Candle::Gemma3(gemma3::Model::new(false, cfg, vb).map_err(weights_error)?)
            }
        }))
    }

    /// A runner for a new sequence, its cache empty.
    pub(crate) fn start(&self, cache: CacheType) -> Runner {
        match self {
            Network::Dense(model) => Runner::Dense {
                cache: model.new_cache(cache),
                model: Arc::clone(model),
            },
            Network::Candle(model) => Runner::Candle(model.clone()),
        }
    }

    /// How many matrices the project's decoder computes with in each
    /// format; `None` where candle-transformers runs the model.
    pub(crate) fn matrix_formats(&self) -> Option<std::collections::BTreeMap<String, usize>> {
        match self {
            Network::Dense(model) => Some(model.matrix_formats()),
            Network::Candle(_) => None,
        }
    }

    /// Runs `tokens[i]` after each of `caches[i]` in one pass (prompts'
    /// chunks and decode steps' tokens alike), where the model is the
    /// project's decoder; returns the logits after each (see
    /// [`Dense::forward_steps`]). `None` for candle's models, which keep
    /// their one cache inside.
    pub(crate) fn run_together(
        &self,
        caches: &mut [&mut KvCache],
        tokens: &[&[u32]],
        scratch: &mut Scratch,
    ) -> Option<Result<Vec<Vec<f32>>, String>> {
        let Network::Dense(model) = self else {
            return None;
        };
        let mut steps: Vec<Step<'_>> = (caches.iter_mut().zip(tokens))
            .map(|(cache, tokens)| Step { tokens, cache })
            .collect();
        Some(model.forward_steps(&mut steps, scratch))
    }

    /// An empty cache for another sequence, where the model is the
    /// project's decoder.
    pub(crate) fn new_cache(&self, kind: CacheType) -> Option<KvCache> {
        match self {
            Network::Dense(model) => Some(model.new_cache(kind)),
            Network::Candle(_) => None,
        }
    }

    /// LongRoPE's pretraining length, past which a pass rotates with the
    /// long factors (the project's decoder; candle's models have none).
    pub(crate) fn rope_switch(&self) -> Option<usize> {
        match self {
            Network::Dense(model) => model.rope_switch(),
            Network::Candle(_) => None,
        }
    }

    /// Whether several sequences can run in one pass, each with its own
    /// cache ([`new_cache`](Self::new_cache)): the project's decoder.
    #[cfg_attr(not(feature = "server"), allow(dead_code))] // The server's batch uses it.
    pub(crate) fn repack(&self) -> usize {
        match self {
            Network::Dense(model) => model.repack(),
            Network::Candle(_) => 0,
        }
    }

    pub(crate) fn runs_together(&self) -> bool {
        matches!(self, Network::Dense(_))
    }
}

/// One sequence running through a [`Network`]: the network and its KV
/// cache.
#[derive(Clone)]
pub(crate) enum Runner {
    /// The project's decoder and a cache that can be cut back.
    Dense { model: Arc<Dense>, cache: KvCache },
    /// A copy of a candle model, its cache inside.
    Candle(Candle),
}

impl Runner {
    /// Runs `tokens`, which sit at positions `offset..`, through the network
    /// and returns the logits of the last one.
    pub(crate) fn forward(
        &mut self,
        tokens: &[u32],
        offset: usize,
        scratch: &mut Scratch,
    ) -> candle_core::Result<Vec<f32>> {
        let input = || Tensor::new(tokens, &Device::Cpu)?.unsqueeze(0);
        let logits = match self {
            Runner::Dense { model, cache } => {
                if cache.len() != offset {
                    return Err(candle_core::Error::Msg(format!(
                        "the cache holds {} positions, not {offset} (internal error)",
                        cache.len()
                    )));
                }
                return model
                    .forward(tokens, cache, scratch)
                    .map_err(candle_core::Error::Msg);
            }
            Runner::Candle(Candle::Qwen2(m)) => m.forward(&input()?, offset)?,
            Runner::Candle(Candle::Mistral(m)) => m.forward(&input()?, offset)?,
            Runner::Candle(Candle::Gemma2(m)) => m.forward(&input()?, offset)?,
            Runner::Candle(Candle::Gemma3(m)) => {
                // candle 0.11's Gemma 3 appends a non-contiguous value tensor
                // to the full-attention layers' cache, which fails for more
                // than one token at a time.
                let mut last = None;
                for (i, &token) in tokens.iter().enumerate() {
                    let one = Tensor::new(&[token], &Device::Cpu)?.unsqueeze(0)?;
                    last = Some(m.forward(&one, offset + i)?);
                }
                last.ok_or_else(|| candle_core::Error::Msg("no tokens to run".into()))?
            }
        };
        // Shapes differ by model ((1, vocab) or (1, 1, vocab)): all are the
        // last position's logits.
        logits.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()
    }

    /// Positions of the cache LongRoPE rotated with its short factors.
    pub(crate) fn short_positions(&self) -> usize {
        match self {
            Runner::Dense { cache, .. } => cache.short_positions(),
            Runner::Candle(_) => 0,
        }
    }

    /// Empties the KV cache.
    pub(crate) fn clear(&mut self) {
        match self {
            Runner::Dense { cache, .. } => {
                cache.truncate(0);
            }
            Runner::Candle(Candle::Qwen2(m)) => m.clear_kv_cache(),
            Runner::Candle(Candle::Mistral(m)) => m.clear_kv_cache(),
            Runner::Candle(Candle::Gemma2(m)) => m.clear_kv_cache(),
            Runner::Candle(Candle::Gemma3(m)) => m.clear_kv_cache(),
        }
    }

    /// Whether the KV cache can be cut back to a prefix.
    pub(crate) fn cuts_back(&self) -> bool {
        matches!(self, Runner::Dense { .. })
    }

    /// Cuts the KV cache back to its first `len` positions, or fewer
    /// where a recurrent layer's state was kept only at earlier ones (see
    /// `KvCache::resumable`); returns how many it keeps, `None` where
    /// the cache cannot be cut back (candle's).
    pub(crate) fn truncate(&mut self, len: usize) -> Option<usize> {
        match self {
            Runner::Dense { cache, .. } => Some(cache.truncate(len)),
            Runner::Candle(_) => None,
        }
    }

    /// The KV cache, where it lives outside the model and may be swapped
    /// for another sequence's: the project's decoder's. candle's models
    /// keep theirs inside.
    pub(crate) fn own_cache(&mut self) -> Option<&mut KvCache> {
        match self {
            Runner::Dense { cache, .. } => Some(cache),
            Runner::Candle(_) => None,
        }
    }

    /// Bytes the KV cache holds, where it is [`own_cache`](Self::own_cache);
    /// 0 for candle's caches, which the KV budget does not cover.
    pub(crate) fn cache_bytes(&self) -> usize {
        match self {
            Runner::Dense { cache, .. } => cache.bytes(),
            Runner::Candle(_) => 0,
        }
    }

    /// A copy of the runner that later calls do not disturb, when one is
    /// cheap and needed: weights are shared, and caches built by
    /// concatenation share nothing mutable. A cache that can be cut back
    /// needs none, and Gemma 3's rotating cache overwrites its buffer in
    /// place.
    pub(crate) fn snapshot(&self) -> Option<Runner> {
        match self {
            Runner::Candle(Candle::Gemma3(_)) | Runner::Dense { .. } => None,
            Runner::Candle(model) => Some(Runner::Candle(model.clone())),
        }
    }
}
