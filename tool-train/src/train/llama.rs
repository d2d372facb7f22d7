//! A differentiable Llama decoder (`LlamaForCausalLM` with tied embeddings) whose parameters
//! carry Hugging Face tensor names.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use candle_core::{DType, Device, Tensor, Var};

use super::batch::Batch;
use super::config::ModelConfig;
use super::error::{TensorContext, TrainError};
use super::files::{read_safetensors, write_safetensors, Precision};
use super::init::NormalSource;
use super::kernels::{
    causal_softmax, cross_entropy_rows, rms_norm, rope_heads, swiglu, RopeTables,
};

/// How a parameter is initialised.
#[derive(Debug, Clone, Copy)]
enum Init {
    /// All ones (the RMS norm scales).
    Ones,
    /// N(0, std²).
    Normal(f64),
}

/// The parameters of one decoder layer.
#[derive(Debug)]
struct Layer {
    input_layernorm: Var,
    q_proj: Var,
    k_proj: Var,
    v_proj: Var,
    o_proj: Var,
    post_attention_layernorm: Var,
    gate_proj: Var,
    up_proj: Var,
    down_proj: Var,
}

/// The trainable model. Its forward pass uses only differentiable operations, so
/// `loss.backward()` reaches every parameter.
#[derive(Debug)]
pub struct Llama {
    config: ModelConfig,
    embed_tokens: Var,
    layers: Vec<Layer>,
    norm: Var,
    /// RoPE tables for every position up to `max_position_embeddings`, computed once.
    rope: RopeTables,
}

/// Every parameter's Hugging Face name, shape and initialisation, in a fixed order: the order
/// of the seeded initialisation and of checkpoints.
fn parameter_specs(config: &ModelConfig) -> Vec<(String, Vec<usize>, Init)> {
    let h = config.hidden_size;
    let kv = config.head_dim() * config.num_key_value_heads;
    let i = config.intermediate_size;
    let std = config.initializer_range;
    // Projections that write into the residual stream are scaled down with depth (as GPT-2
    // does) so that the stream's variance does not grow with the number of layers.
    let residual_std = std / (2.0 * config.num_hidden_layers as f64).sqrt();
    let mut specs = vec![(
        "model.embed_tokens.weight".to_string(),
        vec![config.vocab_size, h],
        Init::Normal(std),
    )];
    for l in 0..config.num_hidden_layers {
        let p = format!("model.layers.{l}");
        // One row a weight of the layer, in the order the layer's weights are drawn.
        let layer = [
            ("input_layernorm", vec![h], Init::Ones),
            ("self_attn.q_proj", vec![h, h], Init::Normal(std)),
            ("self_attn.k_proj", vec![kv, h], Init::Normal(std)),
            ("self_attn.v_proj", vec![kv, h], Init::Normal(std)),
            ("self_attn.o_proj", vec![h, h], Init::Normal(residual_std)),
            ("post_attention_layernorm", vec![h], Init::Ones),
            ("mlp.gate_proj", vec![i, h], Init::Normal(std)),
            ("mlp.up_proj", vec![i, h], Init::Normal(std)),
            ("mlp.down_proj", vec![h, i], Init::Normal(residual_std)),
        ];
        specs.extend(
            layer
                .into_iter()
                .map(|(name, shape, init)| (format!("{p}.{name}.weight"), shape, init)),
        );
    }
    specs.push(("model.norm.weight".to_string(), vec![h], Init::Ones));
    specs
}

impl Llama {
    /// A freshly initialised model: weight matrices drawn from N(0, initializer_range²)
    /// (the output projections of each layer scaled by 1/sqrt(2 · layers)), norms set to one.
    /// The same `seed` always gives the same weights.
    ///
    /// # Errors
    /// [`TrainError::Config`] for an invalid configuration.
    pub fn new_seeded(config: &ModelConfig, seed: u64) -> Result<Self, TrainError> {
        config.validate()?;
        let mut source = NormalSource::new(seed);
        let mut tensors = HashMap::new();
        for (name, shape, init) in parameter_specs(config) {
            let n: usize = shape.iter().product();
            let values = match init {
                Init::Ones => vec![1.0f32; n],
                Init::Normal(std) => source.normal(n, std),
            };
            let tensor =
                Tensor::from_vec(values, shape, &Device::Cpu).ctx("initialising a parameter")?;
            tensors.insert(name, tensor);
        }
        Self::from_tensors(config, tensors, Path::new("<initialisation>"))
    }

    /// A model from named tensors (Hugging Face names, tied embeddings: no `lm_head.weight`).
    ///
    /// # Errors
    /// [`TrainError::Checkpoint`] naming `source` when a tensor is missing, has another
    /// shape, or is not a parameter of this model.
    pub fn from_tensors(
        config: &ModelConfig,
        mut tensors: HashMap<String, Tensor>,
        source: &Path,
    ) -> Result<Self, TrainError> {
        config.validate()?;
        let mismatch = |message: String| TrainError::Checkpoint {
            path: source.to_path_buf(),
            message,
        };
        let mut vars: HashMap<String, Var> = HashMap::new();
        for (name, shape, _) in parameter_specs(config) {
            let tensor = tensors
                .remove(&name)
                .ok_or_else(|| mismatch(format!("expected a tensor named {name}, found none")))?;
            if tensor.dims() != shape.as_slice() {
                return Err(mismatch(format!(
                    "expected {name} of shape {shape:?}, found {:?}",
                    tensor.dims()
                )));
            }
            let tensor = tensor
                .to_dtype(DType::F32)
                .and_then(|t| t.contiguous())
                .ctx("converting a parameter to f32")?;
            let var = Var::from_tensor(&tensor).ctx("making a parameter trainable")?;
            vars.insert(name, var);
        }
        if !tensors.is_empty() {
            let mut extra: Vec<_> = tensors.into_keys().collect();
            extra.sort();
            return Err(mismatch(format!(
                "expected only the parameters of a tied-embedding Llama, found also {}",
                extra.join(", ")
            )));
        }
        let mut take = |name: String| {
            vars.remove(&name)
                .ok_or_else(|| mismatch(format!("expected a tensor named {name}, found none")))
        };
        let embed_tokens = take("model.embed_tokens.weight".into())?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for l in 0..config.num_hidden_layers {
            let p = format!("model.layers.{l}");
            layers.push(Layer {
                input_layernorm: take(format!("{p}.input_layernorm.weight"))?,
                q_proj: take(format!("{p}.self_attn.q_proj.weight"))?,
                k_proj: take(format!("{p}.self_attn.k_proj.weight"))?,
                v_proj: take(format!("{p}.self_attn.v_proj.weight"))?,
                o_proj: take(format!("{p}.self_attn.o_proj.weight"))?,
                post_attention_layernorm: take(format!("{p}.post_attention_layernorm.weight"))?,
                gate_proj: take(format!("{p}.mlp.gate_proj.weight"))?,
                up_proj: take(format!("{p}.mlp.up_proj.weight"))?,
                down_proj: take(format!("{p}.mlp.down_proj.weight"))?,
            });
        }
        let norm = take("model.norm.weight".into())?;
        Ok(Self {
            config: config.clone(),
            embed_tokens,
            layers,
            norm,
            rope: rope_tables(config),
        })
    }

    /// Loads `model.safetensors` with the given configuration.
    ///
    /// # Errors
    /// [`TrainError::Checkpoint`] when the file is unreadable or does not match `config`.
    pub fn load_safetensors(config: &ModelConfig, path: &Path) -> Result<Self, TrainError> {
        Self::from_tensors(config, read_safetensors(path)?, path)
    }

    /// Loads a Hugging Face model directory (`config.json` and `model.safetensors`), such as
    /// one written by [`export_hf`](super::export_hf).
    ///
    /// # Errors
    /// As [`ModelConfig::from_hf_file`] and [`Llama::load_safetensors`].
    pub fn load_hf_dir(dir: &Path) -> Result<Self, TrainError> {
        let config = ModelConfig::from_hf_file(&dir.join("config.json"))?;
        Self::load_safetensors(&config, &dir.join("model.safetensors"))
    }

    /// Writes the parameters, with their Hugging Face names, as a safetensors file
    /// (atomically: a temporary file renamed into place).
    ///
    /// # Errors
    /// [`TrainError::Io`] when the file cannot be written.
    pub fn save_safetensors(&self, path: &Path) -> Result<(), TrainError> {
        self.save_safetensors_as(path, Precision::F32)
    }

    /// Like [`save_safetensors`](Self::save_safetensors), stored in `precision`.
    ///
    /// # Errors
    /// [`TrainError::Io`] when the file cannot be written.
    pub fn save_safetensors_as(&self, path: &Path, precision: Precision) -> Result<(), TrainError> {
        let tensors: Vec<(String, Tensor)> = self
            .named_parameters()
            .into_iter()
            .map(|(name, var)| (name, var.as_tensor().clone()))
            .collect();
        write_safetensors(path, &tensors, precision)
    }

    /// The configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Every parameter with its Hugging Face name, in a fixed order (embedding, layers in
    /// order, final norm).
    pub fn named_parameters(&self) -> Vec<(String, Var)> {
        let mut out = vec![(
            "model.embed_tokens.weight".to_string(),
            self.embed_tokens.clone(),
        )];
        for (l, layer) in self.layers.iter().enumerate() {
            let p = format!("model.layers.{l}");
            out.extend([
                (
                    format!("{p}.input_layernorm.weight"),
                    layer.input_layernorm.clone(),
                ),
                (format!("{p}.self_attn.q_proj.weight"), layer.q_proj.clone()),
                (format!("{p}.self_attn.k_proj.weight"), layer.k_proj.clone()),
                (format!("{p}.self_attn.v_proj.weight"), layer.v_proj.clone()),
                (format!("{p}.self_attn.o_proj.weight"), layer.o_proj.clone()),
                (
                    format!("{p}.post_attention_layernorm.weight"),
                    layer.post_attention_layernorm.clone(),
                ),
                (format!("{p}.mlp.gate_proj.weight"), layer.gate_proj.clone()),
                (format!("{p}.mlp.up_proj.weight"), layer.up_proj.clone()),
                (format!("{p}.mlp.down_proj.weight"), layer.down_proj.clone()),
            ]);
        }
        out.push(("model.norm.weight".to_string(), self.norm.clone()));
        out
    }

    /// The final hidden states (after the last norm), `(batch, seq, hidden)`, for token ids
    /// `(batch, seq)` of `u32`. Every sequence starts at position 0.
    ///
    /// # Errors
    /// [`TrainError::Data`] when the sequence is longer than `max_position_embeddings`;
    /// [`TrainError::Tensor`] when `ids` is not a `(batch, seq)` tensor of token ids.
    pub fn hidden_states(&self, ids: &Tensor) -> Result<Tensor, TrainError> {
        let (_, len) = ids
            .dims2()
            .ctx("expected token ids of shape (batch, seq)")?;
        self.check_len(len)?;
        self.forward_hidden(ids).ctx("running the model forward")
    }

    /// Next-token logits at every position, `(batch, seq, vocab)`.
    ///
    /// # Errors
    /// As [`Llama::hidden_states`].
    pub fn logits(&self, ids: &Tensor) -> Result<Tensor, TrainError> {
        let hidden = self.hidden_states(ids)?;
        hidden
            .broadcast_matmul(
                &self
                    .embed_tokens
                    .as_tensor()
                    .t()
                    .ctx("transposing the embedding")?,
            )
            .ctx("projecting onto the vocabulary")
    }

    /// Sum over the batch's counted positions of the next-token cross entropy (a scalar),
    /// each times its loss weight when the batch has weights.
    ///
    /// Only counted positions are projected onto the vocabulary, which also makes the loss
    /// independent of every uncounted prediction. A batch with nothing counted gives zero.
    ///
    /// # Errors
    /// As [`Llama::hidden_states`].
    pub fn loss_sum(&self, batch: &Batch) -> Result<Tensor, TrainError> {
        self.check_len(batch.len)?;
        if batch.counted() == 0 {
            return Tensor::zeros((), DType::F32, &Device::Cpu).ctx("building a zero loss");
        }
        let compute = || -> candle_core::Result<Tensor> {
            let hidden = self.forward_hidden(&batch.ids)?;
            let hidden = hidden.reshape((batch.rows * batch.len, self.config.hidden_size))?;
            let picked = hidden.index_select(&batch.positions, 0)?;
            let logits = picked.matmul(&self.embed_tokens.as_tensor().t()?)?;
            let rows = cross_entropy_rows(&logits, &batch.target_ids)?;
            match &batch.target_weights {
                Some(weights) => (rows * weights)?.sum_all(),
                None => rows.sum_all(),
            }
        };
        compute().ctx("computing the loss")
    }

    /// Mean next-token cross entropy over the batch's counted positions (weighted, when the
    /// batch has weights).
    ///
    /// # Errors
    /// As [`Llama::hidden_states`].
    pub fn loss(&self, batch: &Batch) -> Result<Tensor, TrainError> {
        let sum = self.loss_sum(batch)?;
        let weight = batch.weight();
        (sum / if weight > 0.0 { weight } else { 1.0 }).ctx("averaging the loss")
    }

    fn check_len(&self, len: usize) -> Result<(), TrainError> {
        if len > self.config.max_position_embeddings {
            return Err(TrainError::Data(format!(
                "sequences must be at most max_position_embeddings = {} tokens, found {len}",
                self.config.max_position_embeddings
            )));
        }
        Ok(())
    }

    fn forward_hidden(&self, ids: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t) = ids.dims2()?;
        let cfg = &self.config;
        let eps = cfg.rms_norm_eps;
        // The residual stream is kept flat, (batch * seq, hidden), so projections are plain
        // 2-D matrix products.
        let mut x = self
            .embed_tokens
            .as_tensor()
            .index_select(&ids.flatten_all()?, 0)?;
        for layer in &self.layers {
            let normed = rms_norm(&x, layer.input_layernorm.as_tensor(), eps)?;
            let attn = self.attention(&normed, layer, b, t)?;
            x = (x + attn)?;
            let normed = rms_norm(&x, layer.post_attention_layernorm.as_tensor(), eps)?;
            let gate = linear(&normed, &layer.gate_proj)?;
            let up = linear(&normed, &layer.up_proj)?;
            x = (x + linear(&swiglu(&gate, &up)?, &layer.down_proj)?)?;
        }
        rms_norm(&x, self.norm.as_tensor(), eps)?.reshape((b, t, cfg.hidden_size))
    }

    fn attention(
        &self,
        x: &Tensor,
        layer: &Layer,
        b: usize,
        t: usize,
    ) -> candle_core::Result<Tensor> {
        let cfg = &self.config;
        let (nh, nkv, hd) = (
            cfg.num_attention_heads,
            cfg.num_key_value_heads,
            cfg.head_dim(),
        );
        let rep = nh / nkv;
        // RoPE also moves heads before positions; the 1/sqrt(head_dim) scale of the scores
        // is applied to q, which is smaller than the scores.
        let q = linear(x, &layer.q_proj)?.reshape((b, t, nh, hd))?;
        let q = rope_heads(&q, &self.rope, 1.0 / (hd as f64).sqrt())?;
        let k = linear(x, &layer.k_proj)?.reshape((b, t, nkv, hd))?;
        let k = rope_heads(&k, &self.rope, 1.0)?;
        let v = linear(x, &layer.v_proj)?
            .reshape((b, t, nkv, hd))?
            .transpose(1, 2)?
            .contiguous()?;
        // Grouped-query attention without repeating k and v: the `rep` query heads that
        // share a key/value head are stacked along the sequence axis, which is a free
        // reshape of q (heads g*rep .. (g+1)*rep use key/value head g, as in HF's repeat_kv).
        let q = q.reshape((b, nkv, rep * t, hd))?;
        let probs = causal_softmax(&q.matmul(&k.t()?)?)?;
        let out = probs.matmul(&v)?.reshape((b, nh, t, hd))?;
        let out = out.transpose(1, 2)?.reshape((b * t, nh * hd))?;
        linear(&out, &layer.o_proj)
    }
}

/// `x · wᵀ` for a Hugging Face linear weight `(out, in)`.
fn linear(x: &Tensor, w: &Var) -> candle_core::Result<Tensor> {
    x.matmul(&w.as_tensor().t()?)
}

/// cos and sin of `position · inv_freq`, computed in f32 as candle-transformers and
/// transformers do, so that logits agree with them.
fn rope_tables(config: &ModelConfig) -> RopeTables {
    let hd = config.head_dim();
    let theta = config.rope_theta as f32;
    let inv_freq: Vec<f32> = (0..hd)
        .step_by(2)
        .map(|i| 1f32 / theta.powf(i as f32 / hd as f32))
        .collect();
    let n = config.max_position_embeddings;
    let mut cos = Vec::with_capacity(n * hd / 2);
    let mut sin = Vec::with_capacity(n * hd / 2);
    for pos in 0..n {
        for &f in &inv_freq {
            let angle = pos as f32 * f;
            cos.push(angle.cos());
            sin.push(angle.sin());
        }
    }
    RopeTables {
        cos: Arc::new(cos),
        sin: Arc::new(sin),
        half: hd / 2,
    }
}
