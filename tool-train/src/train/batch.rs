//! Training examples (token ids with a loss mask) and the padded batches built from them.

use std::sync::Arc;

use candle_core::{Device, Tensor};

use super::error::{TensorContext, TrainError};

/// One training sequence: token ids and, aligned with them, which tokens are learnt.
///
/// `mask[t]` says whether predicting `ids[t]` from `ids[..t]` counts in the loss (typically:
/// `ids[t]` is an assistant token, inside the chat template's generation span). `mask[0]` is
/// ignored since nothing precedes the first token. Counted tokens may weigh more than others
/// ([`Example::with_weights`]): the loss is then their weighted mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// Token ids.
    pub ids: Vec<u32>,
    /// Loss mask, one entry per token.
    pub mask: Vec<bool>,
    /// How much each token's prediction weighs in the loss when counted; `None`: all 1.
    pub weights: Option<Vec<f32>>,
}

impl Example {
    /// An example, checking that the mask is as long as the ids.
    ///
    /// # Errors
    /// [`TrainError::Data`] when the lengths differ or the example is empty.
    pub fn new(ids: Vec<u32>, mask: Vec<bool>) -> Result<Self, TrainError> {
        if ids.len() != mask.len() {
            return Err(TrainError::Data(format!(
                "the loss mask must have one entry per token: {} tokens, {} mask entries",
                ids.len(),
                mask.len()
            )));
        }
        if ids.is_empty() {
            return Err(TrainError::Data(
                "an example must hold at least one token".into(),
            ));
        }
        Ok(Self {
            ids,
            mask,
            weights: None,
        })
    }

    /// The example with a loss weight per token (1: an ordinary token).
    ///
    /// # Errors
    /// [`TrainError::Data`] when there is not one weight per token, or a weight is negative
    /// or not finite.
    pub fn with_weights(mut self, weights: Vec<f32>) -> Result<Self, TrainError> {
        if weights.len() != self.ids.len() {
            return Err(TrainError::Data(format!(
                "the loss weights must have one entry per token: {} tokens, {} weights",
                self.ids.len(),
                weights.len()
            )));
        }
        if let Some((t, w)) = weights
            .iter()
            .enumerate()
            .find(|(_, w)| !(w.is_finite() && **w >= 0.0))
        {
            return Err(TrainError::Data(format!(
                "token {t}: a loss weight must be a finite number of at least 0, found {w}"
            )));
        }
        self.weights = Some(weights);
        Ok(self)
    }

    /// An example whose every prediction counts (plain language modelling).
    pub fn unmasked(ids: Vec<u32>) -> Self {
        let mask = vec![true; ids.len()];
        Self {
            ids,
            mask,
            weights: None,
        }
    }

    /// Number of predictions that count in the loss.
    pub fn counted(&self) -> usize {
        self.mask.iter().skip(1).filter(|&&m| m).count()
    }
}

/// A batch of examples, right-padded to a common length, with the positions whose next
/// token is learnt.
///
/// Right padding needs no attention mask beyond the causal one: real tokens come first and
/// never attend to the padding after them, and padded positions are never counted.
#[derive(Debug, Clone)]
pub struct Batch {
    pub(crate) ids: Tensor,
    pub(crate) rows: usize,
    pub(crate) len: usize,
    /// Flat indices `row * len + t` of the positions whose output predicts a counted token.
    pub(crate) positions: Tensor,
    /// The counted tokens, in the order of `positions`.
    pub(crate) target_ids: Arc<Vec<u32>>,
    /// Their loss weights, `(counted,)`; `None` when every weight is 1.
    pub(crate) target_weights: Option<Tensor>,
    counted: usize,
    weight: f64,
    tokens: usize,
}

impl Batch {
    /// Pads `examples` with `pad_id` to the longest one, truncating each to `max_len` tokens.
    ///
    /// # Errors
    /// [`TrainError::Data`] when there are no examples, `max_len` is below 2, or a token id
    /// is not below `vocab_size`.
    pub fn new(
        examples: &[Example],
        pad_id: u32,
        max_len: usize,
        vocab_size: usize,
    ) -> Result<Self, TrainError> {
        if examples.is_empty() {
            return Err(TrainError::Data(
                "a batch needs at least one example".into(),
            ));
        }
        if max_len < 2 {
            return Err(TrainError::Data(format!(
                "the maximum sequence length must be at least 2, found {max_len}"
            )));
        }
        let len = examples
            .iter()
            .map(|e| e.ids.len().min(max_len))
            .max()
            .unwrap_or(0);
        let rows = examples.len();
        let mut ids = Vec::with_capacity(rows * len);
        let mut positions = Vec::new();
        let mut targets = Vec::new();
        let mut weights = Vec::new();
        let weighted = examples.iter().any(|e| e.weights.is_some());
        let mut tokens = 0;
        for (row, example) in examples.iter().enumerate() {
            let n = example.ids.len().min(max_len);
            if example.mask.len() != example.ids.len() {
                return Err(TrainError::Data(format!(
                    "example {row}: the loss mask must have one entry per token: {} tokens, {} mask entries",
                    example.ids.len(),
                    example.mask.len()
                )));
            }
            if let Some(w) = &example.weights {
                if w.len() != example.ids.len() {
                    return Err(TrainError::Data(format!(
                        "example {row}: the loss weights must have one entry per token: {} tokens, {} weights",
                        example.ids.len(),
                        w.len()
                    )));
                }
            }
            for (t, (&id, &counted)) in example.ids[..n].iter().zip(&example.mask[..n]).enumerate()
            {
                if id as usize >= vocab_size {
                    return Err(TrainError::Data(format!(
                        "example {row}, token {t}: ids must be below the vocabulary size {vocab_size}, found {id}"
                    )));
                }
                ids.push(id);
                if t > 0 && counted {
                    positions.push((row * len + t - 1) as u32);
                    targets.push(id);
                    if weighted {
                        weights.push(example.weights.as_ref().map_or(1.0, |w| w[t]));
                    }
                }
            }
            ids.extend(std::iter::repeat_n(pad_id, len - n));
            tokens += n;
        }
        let counted = targets.len();
        let weight = if weighted {
            weights.iter().map(|&w| f64::from(w)).sum()
        } else {
            counted as f64
        };
        let device = Device::Cpu;
        let target_weights = if weighted {
            Some(Tensor::from_vec(weights, counted, &device).ctx("building the loss weights")?)
        } else {
            None
        };
        let ids = Tensor::from_vec(ids, (rows, len), &device).ctx("building the batch ids")?;
        let positions =
            Tensor::from_vec(positions, counted, &device).ctx("building the batch positions")?;
        Ok(Self {
            ids,
            rows,
            len,
            positions,
            target_ids: Arc::new(targets),
            target_weights,
            counted,
            weight,
            tokens,
        })
    }

    /// Number of sequences.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Padded length of every sequence.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch holds no positions at all (never true for a constructed batch).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of predictions that count in the loss.
    pub fn counted(&self) -> usize {
        self.counted
    }

    /// Total loss weight of the counted predictions (their number when none is weighted):
    /// what the loss sum is divided by to give the mean.
    pub fn weight(&self) -> f64 {
        self.weight
    }

    /// Number of real (non-padding) tokens.
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// The padded token ids, `(rows, len)` of `u32`.
    pub fn ids(&self) -> &Tensor {
        &self.ids
    }
}
