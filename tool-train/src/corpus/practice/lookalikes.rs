//! Lookalike practice: a request for a tool that is not offered, beside an
//! offered tool that shares its words or its arguments.
//!
//! v16 called `search_flights` for "Search online for …", `get_distance`
//! for a fare, `get_current_time` for "How many degrees is it in Madrid?"
//! and `set_lights` for a wake-up call: in each the tool asked for was not
//! offered, but one whose name or arguments look like it was. Training
//! offered two to four tools drawn at random beside such requests, so a
//! lookalike was seldom among them.

use crate::corpus::rng::Rng;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/lookalikes.json");

/// How often a request for a tool not offered is offered a lookalike.
const LOOKALIKE: f64 = 0.75;

/// Each tool and the tools a request for it could be mistaken for: a word
/// of the name in common, or arguments of the same shape.
fn lookalikes() -> &'static [(&'static str, &'static [&'static str])] {
    WORDS.get("lookalikes")
}

/// A tool to offer beside a request for `tool`, which is not offered,
/// never one of `excluded`; or none (one time in four, or when every
/// lookalike is excluded), and the offer is drawn at random as before.
pub(crate) fn lookalike(rng: &mut Rng, tool: &str, excluded: &[&str]) -> Option<&'static str> {
    if !rng.chance(LOOKALIKE) {
        return None;
    }
    let (_, alikes) = lookalikes().iter().find(|(name, _)| *name == tool)?;
    let open: Vec<&'static str> = alikes
        .iter()
        .copied()
        .filter(|a| !excluded.contains(a))
        .collect();
    if open.is_empty() {
        None
    } else {
        Some(*rng.pick(&open))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::tools::toolbox;

    #[test]
    fn every_tool_has_lookalikes_that_are_other_tools() {
        let names: Vec<String> = toolbox(Default::default())
            .names()
            .map(str::to_owned)
            .collect();
        for name in &names {
            let (_, alikes) = lookalikes()
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{name} has no lookalikes"));
            for alike in *alikes {
                assert_ne!(alike, name);
                assert!(names.iter().any(|n| n == alike), "{alike} is not a tool");
            }
        }
        assert_eq!(lookalikes().len(), names.len());
    }

    #[test]
    fn a_lookalike_is_offered_often_and_never_an_excluded_one() {
        let mut rng = Rng::for_example(44, 0);
        let mut offered = 0;
        for _ in 0..400 {
            if let Some(alike) = lookalike(&mut rng, "search_web", &["search_flights"]) {
                assert_eq!(alike, "translate_text");
                offered += 1;
            }
        }
        assert!((250..350).contains(&offered), "{offered} of 400");
        assert_eq!(lookalike(&mut rng, "no_such_tool", &[]), None);
        let all = ["get_current_time", "convert_units"];
        for _ in 0..50 {
            assert_eq!(lookalike(&mut rng, "get_current_temperature", &all), None);
        }
    }
}
