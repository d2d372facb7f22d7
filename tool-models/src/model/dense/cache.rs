//! The KV cache of one sequence: keys and values of every position, written
//! in place and cut back to any prefix; and the state of each recurrent
//! (Mamba-2) layer, which can be cut back to the positions where a copy
//! of it was kept.

use super::kv_rows::{CacheType, Kv, LayerRows};

/// Keys and values by layer, each a row of values per position (all
/// key/value heads side by side; an LFM2 convolution keeps its input as
/// keys, and no values), as f32 or f16 ([`CacheType`]). Rows are appended,
/// never copied (a `Vec` grows by doubling), and truncation keeps a prefix.
#[derive(Clone, Debug)]
pub(crate) struct KvCache {
    layers: Vec<LayerRows>,
    /// Each layer's widths of a key row and of a value row.
    widths: Vec<(usize, usize)>,
    len: usize,
    /// How many of the first positions were rotated with LongRoPE's short
    /// factors (by passes that stayed within the pretraining length).
    short: usize,
    /// Each recurrent layer's state (`None` for the others).
    states: Vec<Option<Recurrent>>,
}

/// A recurrent layer's state after the positions held, and copies of it
/// at earlier positions: a recurrent state cannot be cut back, so a
/// sequence cut back resumes from the last copy at or before the cut.
#[derive(Clone, Debug)]
struct Recurrent {
    current: Vec<f32>,
    /// Written by the pass in flight (when `written`); swapped with
    /// `current` once it commits, so that no step allocates.
    pending: Vec<f32>,
    written: bool,
    /// (positions, the state after them), in increasing order.
    copies: Vec<(usize, Vec<f32>)>,
}

impl Recurrent {
    /// Back to the state after the first `len` positions of the `held`
    /// ones: the copy at `len` (zeros at 0); `len` must be
    /// [resumable](KvCache::resumable).
    fn cut(&mut self, len: usize, held: usize) {
        self.written = false;
        if len == held {
            return;
        }
        self.copies.retain(|(at, _)| *at <= len);
        match self.copies.last() {
            Some((at, state)) if *at == len => self.current.copy_from_slice(state),
            _ => self.current.fill(0.0),
        }
    }
}

/// A recurrent state is copied after every pass of more than one token
/// (a prompt or a chunk of one), and every this many positions.
const COPY_EVERY: usize = 256;

impl KvCache {
    /// An empty cache of layers whose rows are `widths` (keys, values)
    /// wide, kept as f32.
    pub(crate) fn new(widths: Vec<(usize, usize)>) -> KvCache {
        KvCache {
            layers: vec![LayerRows::new(CacheType::F32); widths.len()],
            states: vec![None; widths.len()],
            widths,
            len: 0,
            short: 0,
        }
    }

    /// This cache with each layer's rows kept as `types[layer]` says.
    pub(crate) fn with_types(mut self, types: &[CacheType]) -> KvCache {
        self.layers = types.iter().map(|&t| LayerRows::new(t)).collect();
        self
    }

    /// This cache with a recurrent state of `sizes[layer]` values for each
    /// layer where it is not 0.
    pub(crate) fn with_states(mut self, sizes: &[usize]) -> KvCache {
        self.states = (sizes.iter())
            .map(|&n| {
                (n > 0).then(|| Recurrent {
                    current: vec![0.0; n],
                    pending: vec![0.0; n],
                    written: false,
                    copies: Vec::new(),
                })
            })
            .collect();
        self
    }

    /// Recurrent layer `layer`'s state after the positions held, and the
    /// room for its state after the pass in flight, which
    /// [`commit`](Self::commit) makes the state (empty for other layers).
    pub(crate) fn states(&mut self, layer: usize) -> (&[f32], &mut [f32]) {
        match &mut self.states[layer] {
            Some(r) => {
                r.written = true;
                (&r.current, &mut r.pending)
            }
            None => (&[], &mut []),
        }
    }

    /// The most positions, at most `len`, that the cache can be cut back
    /// to: any where it holds no recurrent state, else the last position
    /// where every recurrent state was copied (0 at worst).
    pub(crate) fn resumable(&self, len: usize) -> usize {
        let len = len.min(self.len);
        if len == self.len {
            return len;
        }
        (self.states.iter().flatten())
            .map(|r| {
                let kept = r.copies.iter().rev().find(|(at, _)| *at <= len);
                kept.map_or(0, |(at, _)| *at)
            })
            .min()
            .unwrap_or(len)
    }

    /// Positions held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Cuts the cache back to the first [`resumable`](Self::resumable)
    /// positions of `len`; returns how many it keeps.
    pub(crate) fn truncate(&mut self, len: usize) -> usize {
        let len = self.resumable(len);
        for r in self.states.iter_mut().flatten() {
            r.cut(len, self.len);
        }
        self.truncate_rows(len);
        self.short = self.short.min(self.len);
        len
    }

    /// How many of the first positions LongRoPE rotated with its short
    /// factors: a prompt that reaches past the pretraining length must
    /// not reuse them (transformers rotates all of it with the long ones).
    pub(crate) fn short_positions(&self) -> usize {
        self.short
    }

    /// Counts the positions held as rotated with the short factors.
    pub(crate) fn mark_short(&mut self) {
        self.short = self.len;
    }

    /// Appends the rows of new positions to `layer`; [`commit`](Self::commit)
    /// makes them count once every layer has them.
    pub(crate) fn append(&mut self, layer: usize, keys: &[f32], values: &[f32]) {
        self.layers[layer].extend(keys, values);
    }

    /// The keys and values of `layer`, appended rows included.
    pub(crate) fn layer(&self, layer: usize) -> Kv<'_> {
        self.layers[layer].view()
    }

    /// The keys of a state layer (a convolution's inputs), appended rows
    /// included: always f32.
    pub(crate) fn history(&self, layer: usize) -> &[f32] {
        self.layers[layer].history()
    }

    /// Counts `n` appended positions as held, and the recurrent states
    /// the pass set as theirs.
    pub(crate) fn commit(&mut self, n: usize) {
        self.len += n;
        let len = self.len;
        for r in self.states.iter_mut().flatten() {
            if std::mem::take(&mut r.written) {
                std::mem::swap(&mut r.current, &mut r.pending);
            }
            if n > 1 || len.is_multiple_of(COPY_EVERY) {
                r.copies.push((len, r.current.clone()));
            }
        }
    }

    /// Drops rows appended since the last commit (a forward pass that failed).
    pub(crate) fn rollback(&mut self) {
        self.truncate_rows(self.len);
        for r in self.states.iter_mut().flatten() {
            r.written = false;
        }
    }

    /// A copy of the first [`resumable`](Self::resumable) positions of
    /// `len`, allocated to fit them.
    pub(crate) fn prefix(&self, len: usize) -> KvCache {
        let len = self.resumable(len);
        let mut states = self.states.clone();
        for r in states.iter_mut().flatten() {
            r.cut(len, self.len);
        }
        KvCache {
            layers: (self.layers.iter().zip(&self.widths))
                .map(|(rows, (k, v))| rows.prefix(len * k, len * v))
                .collect(),
            widths: self.widths.clone(),
            len,
            short: self.short.min(len),
            states,
        }
    }

    /// Makes room for `positions` in all, so that growing to them never
    /// moves or doubles the rows (what a sequence may grow to is then
    /// what [`bytes`](Self::bytes) counts).
    #[cfg_attr(not(feature = "server"), allow(dead_code))] // The server's batch uses it.
    pub(crate) fn reserve(&mut self, positions: usize) {
        for (rows, &(k, v)) in self.layers.iter_mut().zip(&self.widths) {
            rows.reserve_to(positions * k, positions * v);
        }
    }

    /// Bytes of one position's keys and values, every layer.
    pub(crate) fn bytes_per_position(&self) -> usize {
        (self.layers.iter().zip(&self.widths))
            .map(|(rows, (k, v))| (k + v) * rows.kind().bytes())
            .sum()
    }

    /// Gives back the room kept for rows to come: a sequence set aside
    /// should hold only what it needs.
    pub(crate) fn shrink_to_fit(&mut self) {
        for rows in &mut self.layers {
            rows.shrink_to_fit();
        }
    }

    /// Bytes allocated for keys and values (room for later rows included)
    /// and for recurrent states and their copies.
    pub(crate) fn bytes(&self) -> usize {
        let rows: usize = self.layers.iter().map(LayerRows::bytes).sum();
        let states: usize = (self.states.iter().flatten())
            .map(|r| {
                let copies: usize = r.copies.iter().map(|(_, s)| s.capacity()).sum();
                r.current.capacity() + r.pending.capacity() + copies
            })
            .sum();
        rows + states * std::mem::size_of::<f32>()
    }

    fn truncate_rows(&mut self, len: usize) {
        for (rows, &(k, v)) in self.layers.iter_mut().zip(&self.widths) {
            rows.truncate(len * k, len * v);
        }
        self.len = len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_a_prefix_and_rollback_drops_uncommitted_rows() {
        let mut cache = KvCache::new(vec![(3, 3); 2]);
        for layer in 0..2 {
            cache.append(layer, &[1.0; 6], &[2.0; 6]);
        }
        cache.commit(2);
        cache.append(0, &[3.0; 3], &[4.0; 3]);
        cache.rollback();
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.layer(0).keys_len(), 6);
        cache.truncate(1);
        assert_eq!(cache.len(), 1);
        assert!(matches!(cache.layer(1), Kv::F32 { values, .. } if values == [2.0; 3]));
        cache.truncate(5);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn a_prefix_copy_holds_its_rows_and_counts_its_bytes() {
        let mut cache = KvCache::new(vec![(3, 3); 2]);
        for layer in 0..2 {
            cache.append(layer, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[7.0; 6]);
        }
        cache.commit(2);
        let copy = cache.prefix(1);
        assert_eq!(copy.len(), 1);
        assert!(matches!(
            copy.layer(1),
            Kv::F32 {
                keys: [1.0, 2.0, 3.0],
                values: [7.0, 7.0, 7.0]
            }
        ));
        // Two layers, keys and values, three f32 each.
        assert_eq!(copy.bytes(), 2 * 2 * 3 * 4);
        assert_eq!(cache.prefix(9).len(), 2, "a copy is at most the cache");
        cache.truncate(1);
        assert!(cache.bytes() >= 2 * 2 * 6 * 4, "truncation keeps the room");
        cache.shrink_to_fit();
        assert_eq!(cache.bytes(), 2 * 2 * 3 * 4);
    }
}
