//! The cue words the training split shows: what a request says besides the
//! values a call copies from it ("middle value of", "kill the lights").
//!
//! The held-out split asks in phrasings training never uses, and some of
//! them hinge on a word no training request contains. A model trained only
//! on this corpus cannot know what such a word means, so `eval` reports
//! those requests apart from the rest.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{generate_with, Example, Expectation, Practice, Split};
use tool_use::Role;

/// The cue words of the training split's requests, lower-cased.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    words: BTreeSet<String>,
}

impl Vocabulary {
    /// The cue words of `count` training conversations of each practice,
    /// drawn from `seed`: the requests for the corpus's own tools. The
    /// made-up tools of [`Practice::Schemas`] are left out (its other
    /// conversations are chat practice's): their requests hold words of
    /// every kind, and would leave no cue word of the demo tools unseen.
    pub fn of_training(seed: u64, count: usize) -> Vocabulary {
        let mut vocabulary = Vocabulary::default();
        for practice in Practice::ALL
            .into_iter()
            .filter(|&p| p != Practice::Schemas)
        {
            for example in generate_with(seed, count, Split::Train, practice) {
                vocabulary.add(&example);
            }
        }
        vocabulary
    }

    /// Adds the cue words of every request of `example`.
    pub fn add(&mut self, example: &Example) {
        let copied = copied_words(arguments(example));
        for message in example.messages.iter().filter(|m| m.role == Role::User) {
            self.words.extend(cue_words(message.text(), &copied));
        }
    }

    /// How many words it holds.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether it holds no word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The cue words it does not hold of the request `expected` answers
    /// (the last user message before it), in order. Words of any call's
    /// arguments in `example` are copied, not understood: a chained
    /// request names a place its second call does not.
    pub fn unseen_in(&self, example: &Example, expected: &Expectation) -> Vec<String> {
        self.unseen(example.request(expected), arguments(example))
    }

    /// The cue words of `request` that it does not hold, in order, where
    /// `arguments` are the arguments of the calls of its conversation.
    pub fn unseen<'a>(
        &self,
        request: &str,
        arguments: impl IntoIterator<Item = &'a Value>,
    ) -> Vec<String> {
        cue_words(request, &copied_words(arguments))
            .into_iter()
            .filter(|w| !self.words.contains(w))
            .collect()
    }
}

fn arguments(example: &Example) -> impl Iterator<Item = &Value> {
    example
        .expectations
        .iter()
        .flat_map(|e| &e.calls)
        .map(|c| &c.arguments)
}

/// The words of every string in `arguments`: what requests copy.
fn copied_words<'a>(arguments: impl IntoIterator<Item = &'a Value>) -> BTreeSet<String> {
    let mut copied = BTreeSet::new();
    for value in arguments {
        strings(value, &mut |s| copied.extend(words(s)));
    }
    copied
}

/// The words of `request`, lower-cased and in order, less the `copied`
/// ones. Digits and punctuation are not words.
fn cue_words(request: &str, copied: &BTreeSet<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    words(request)
        .filter(|w| !copied.contains(w) && seen.insert(w.clone()))
        .collect()
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphabetic() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn strings(value: &Value, f: &mut impl FnMut(&str)) {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, f)),
        Value::Object(map) => map.values().for_each(|v| strings(v, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cue_words_leave_out_copied_values_digits_and_repeats() {
        let args = json!({"location": "Paris, France", "days": 3});
        let cues = cue_words(
            "What's the weather in Paris, France for the next 3 days?",
            &copied_words([&args]),
        );
        assert_eq!(
            cues,
            ["what's", "the", "weather", "in", "for", "next", "days"]
        );
    }

    #[test]
    fn unseen_words_are_cues_no_training_request_shows() {
        let mut vocabulary = Vocabulary::default();
        vocabulary
            .words
            .extend(["what", "is", "the", "median", "of"].map(String::from));
        let args = json!({"numbers": [1, 2, 3], "statistic": "median"});
        assert_eq!(
            vocabulary.unseen("What is the middle value of 1, 2, 3?", [&args]),
            ["middle", "value"]
        );
        assert!(vocabulary
            .unseen("What is the median of 1, 2, 3?", [&args])
            .is_empty());
    }

    /// The call requests of `examples` with a cue word `vocabulary` lacks,
    /// and all call requests.
    fn unseen_requests(vocabulary: &Vocabulary, examples: &[Example]) -> (usize, usize) {
        let mut counts = (0, 0);
        for example in examples {
            for expected in example.expectations.iter().filter(|e| !e.calls.is_empty()) {
                counts.0 += usize::from(!vocabulary.unseen_in(example, expected).is_empty());
                counts.1 += 1;
            }
        }
        counts
    }

    #[test]
    fn other_training_requests_use_its_words_and_held_out_ones_often_do_not() {
        let vocabulary = Vocabulary::of_training(5, 1_000);
        assert!(vocabulary.len() > 500, "{} words", vocabulary.len());
        let train = generate_with(6, 500, Split::Train, Practice::Fields);
        let (unseen, of) = unseen_requests(&vocabulary, &train);
        assert!(unseen * 50 < of, "{unseen} of {of} training requests");
        // The held-out split asks in phrasings training never uses, some in
        // words it never uses ("titled", "middle value", "exchange").
        let held_out = generate_with(6, 300, Split::HeldOut, Practice::Standard);
        let (unseen, of) = unseen_requests(&vocabulary, &held_out);
        assert!(unseen * 10 > of, "{unseen} of {of} held-out requests");

        let args = json!({"numbers": [4, 5, 6], "statistic": "median"});
        let unseen = vocabulary.unseen("What is the middle value of 4, 5 and 6?", [&args]);
        assert_eq!(unseen, ["middle"]);
    }
}
