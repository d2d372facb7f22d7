//! Stop strings over streamed text.
//!
//! Text that might be the start of a stop string is held back until the
//! next delta shows whether it is, so that no part of a stop string is ever
//! streamed.

/// Finds stop strings in text arriving in deltas.
pub(crate) struct StopMatcher {
    stops: Vec<String>,
    /// All text so far (cut at the stop string once one is found).
    text: String,
    /// How much of `text` has been released to the caller.
    released: usize,
}

/// What one delta released.
pub(crate) struct Released<'a> {
    /// Text that can be streamed now.
    pub text: &'a str,
    /// The stop string found, if any; the text is cut before it.
    pub stop: Option<&'a str>,
}

impl StopMatcher {
    pub(crate) fn new(stops: &[String]) -> StopMatcher {
        StopMatcher {
            stops: stops.to_vec(),
            text: String::new(),
            released: 0,
        }
    }

    /// Adds a delta; returns what can be released.
    pub(crate) fn push(&mut self, delta: &str) -> Released<'_> {
        let start = self.released;
        self.text.push_str(delta);
        // A stop string cannot start before `released`: text that could
        // begin one is never released.
        let pending = &self.text[start..];
        let found = self
            .stops
            .iter()
            .filter_map(|s| pending.find(s.as_str()).map(|at| (at, s)))
            .min_by_key(|&(at, _)| at);
        if let Some((at, stop)) = found {
            let end = start + at;
            self.text.truncate(end);
            self.released = end;
            return Released {
                text: &self.text[start..end],
                stop: Some(stop.as_str()),
            };
        }
        let held = self.partial_suffix(pending);
        let end = self.text.len() - held;
        self.released = end;
        Released {
            text: &self.text[start..end],
            stop: None,
        }
    }

    /// Releases the text still held back (no stop string followed it).
    pub(crate) fn finish(&mut self) -> &str {
        let start = self.released;
        self.released = self.text.len();
        &self.text[start..]
    }

    /// All the text, cut before a stop string if one was found.
    pub(crate) fn into_text(self) -> String {
        self.text
    }

    /// Length of the longest suffix of `pending` that is a proper prefix of a stop string.
    fn partial_suffix(&self, pending: &str) -> usize {
        (1..=pending.len())
            .rev()
            .filter(|&n| pending.is_char_boundary(pending.len() - n))
            .find(|&n| {
                let tail = &pending[pending.len() - n..];
                self.stops
                    .iter()
                    .any(|s| s.len() > n && s.starts_with(tail))
            })
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stops: &[&str], deltas: &[&str]) -> (Vec<String>, Option<String>, String) {
        let stops: Vec<String> = stops.iter().map(|s| s.to_string()).collect();
        let mut m = StopMatcher::new(&stops);
        let mut out = Vec::new();
        let mut stop = None;
        for d in deltas {
            let r = m.push(d);
            out.push(r.text.to_owned());
            if let Some(s) = r.stop {
                stop = Some(s.to_owned());
                break;
            }
        }
        if stop.is_none() {
            out.push(m.finish().to_owned());
        }
        (out, stop, m.into_text())
    }

    #[test]
    fn stop_split_across_deltas_is_never_streamed() {
        let (out, stop, text) = run(&["</end>"], &["ab</", "en", "d>tail"]);
        assert_eq!(out, ["ab", "", ""]);
        assert_eq!(stop.as_deref(), Some("</end>"));
        assert_eq!(text, "ab");
    }

    #[test]
    fn a_false_start_is_released_later() {
        let (out, stop, text) = run(&["</end>"], &["a</", "x", "y"]);
        assert_eq!(out, ["a", "</x", "y", ""]);
        assert_eq!(stop, None);
        assert_eq!(text, "a</xy");
    }

    #[test]
    fn the_earliest_of_several_stops_wins() {
        let (_, stop, text) = run(&["bc", "ab"], &["xabc"]);
        assert_eq!(stop.as_deref(), Some("ab"));
        assert_eq!(text, "x");
    }

    #[test]
    fn held_text_is_released_at_the_end_on_char_boundaries() {
        let (out, stop, text) = run(&["é!"], &["aé"]);
        assert_eq!(out, ["a", "é"]);
        assert_eq!(stop, None);
        assert_eq!(text, "aé");
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// However the text is cut into deltas, the released text is the
        /// text before the first stop string, and nothing of the stop string
        /// is released.
        #[test]
        fn any_chunking_finds_the_first_stop(
            text in "[ab<>/é]{0,30}",
            stop in "[ab<>/é]{1,4}",
            cuts in proptest::collection::vec(0usize..40, 0..8),
        ) {
            let stops = vec![stop.clone()];
            let mut matcher = StopMatcher::new(&stops);
            let mut bounds: Vec<usize> = cuts
                .into_iter()
                .map(|c| c.min(text.len()))
                .filter(|&c| text.is_char_boundary(c))
                .collect();
            bounds.extend([0, text.len()]);
            bounds.sort_unstable();
            bounds.dedup();
            let mut released = String::new();
            let mut stopped = false;
            for w in bounds.windows(2) {
                let r = matcher.push(&text[w[0]..w[1]]);
                released.push_str(r.text);
                if r.stop.is_some() {
                    stopped = true;
                    break;
                }
            }
            if !stopped {
                released.push_str(matcher.finish());
            }
            let expected = match text.find(&stop) {
                Some(at) => &text[..at],
                None => &text[..],
            };
            prop_assert_eq!(stopped, text.contains(&stop));
            prop_assert_eq!(released.as_str(), expected);
            prop_assert_eq!(matcher.into_text(), expected);
        }
    }
}
