//! Practice a training corpus can add to the standard conversations.
//!
//! v7's wrong places were mostly right where they start and wrong where they
//! end: `Abu` for `Abu Dhabi`, `Gdansk, please` for `Gdansk`, `Las Vegas,
//! Celsius` for `Las Vegas`. In the standard corpus a place is one made-up
//! word (or "Port …"), and a comma after it always goes on with a country,
//! so stopping at a space and copying on past a comma were both right.
//! [`Practice::ValueEnds`] writes training requests where neither holds:
//! made-up places of two or three words, and words after a place that are
//! not part of it (", please", ", in Celsius"), besides numbers whose digits
//! repeat (`1121`, which v7 copied as `1121121`). The held-out split never
//! changes.
//!
//! v8's remaining misses were mostly turns that called a tool where none was
//! due (thanks after an answer, a greeting in words the pools lack, a request
//! for a tool not offered), units after a comma read as part of the place,
//! and quoted texts cut at their inner comma. [`Practice::Wide`] adds to
//! value-end practice wording the pools do not hold: thanks and greetings
//! put together from parts (never a held-out text), thanks after finished
//! requests, more requests for tools not offered, units after a comma, texts
//! with inner punctuation, and email requests that name the address first.
//!
//! v9 then answered a short follow-up in words the pools lack ("Now do
//! Montreal.") with "Happy to help!", as if it were thanks.
//! [`Practice::FollowUps`] adds to wide practice follow-ups for another
//! value composed from parts, some after thanks, and more follow-ups and
//! chained requests.
//!
//! v12 took an email's body for its subject when the subject was named in
//! a word training never used ("titled"), and the language for the text
//! when the language came first. [`Practice::Fields`] adds to follow-up
//! practice email and translation requests whose fields are cued in words
//! composed from parts.
//!
//! v13 then called a tool for writing requests in new words ("Make up a
//! joke about penguins.") and for small talk deep in a session.
//! [`Practice::Declines`] adds to field-cue practice writing requests
//! composed from parts, thanks after sessions too, and more requests no
//! tool covers and small talk.
//!
//! v13's wrong calls in words training knows were then mostly requests of
//! a few kinds in held-out phrasings: a statistic, the time and the
//! temperature at once, a temperature difference. [`Practice::Requests`]
//! adds to decline practice temperature, statistics, two-call and
//! two-step requests composed from parts.
//!
//! v14's wrong numbers then came from an integer before a full stop read
//! as a decimal point and lists that repeat a value. [`Practice::Numbers`]
//! adds to request practice arithmetic composed from parts, most of it
//! ending on a number, and lists that repeat a value.
//!
//! v16 then called a tool offered beside a request for one that was not,
//! where the two share words or arguments ("Search online for …" got
//! `search_flights`), and the statistics tool after a forecast asked in
//! held-out words ("How hot will Madrid get over the next 2 days?"):
//! request practice composed averages of forecasts but not forecasts.
//! [`Practice::Lookalikes`] adds to number practice lookalike tools offered
//! beside requests for a tool not offered, and forecasts composed from
//! parts.
//!
//! v17's wrong enums in words training shows were then requests that
//! start with the statistic, capitalised ("Average of 64, 68, 50?" got the
//! median): the tokenizer spells a capitalised word letter by letter, and
//! training's requests start with a lead or a verb. [`Practice::Bare`]
//! adds to lookalike practice requests asked without their lead.
//!
//! Bare requests are short capitalised texts, as greetings and goodbyes
//! are: the cycle trained on them called tools for "Good day to you" and
//! "See you later!". [`Practice::Chat`] adds to bare practice more small
//! talk and more thanks after answers.
//!
//! v19 knew its seventeen tools and no others: on BFCL's functions it
//! wrote values from its training pools. [`Practice::Schemas`] adds to
//! chat practice conversations with tools made up on the spot, half of
//! the corpus (`corpus/schemas/`).
//!
//! `ends.rs` writes the value-end practice, `wording.rs` the wider wording,
//! `follow_ups.rs` the composed follow-ups, `fields.rs` the composed field
//! cues, `declines.rs` the composed writing requests, `requests.rs` the
//! composed requests, `numbers.rs` the composed arithmetic and repeating
//! lists, `lookalikes.rs` which tools look like which, `bare.rs` the
//! requests without their lead.
//! The word lists they compose from are data, one JSON file per module in
//! `tool-train/data/practice/`, read with `corpus/words.rs`.

mod bare;
mod declines;
mod ends;
mod fields;
mod follow_ups;
mod lookalikes;
mod numbers;
mod requests;
mod wording;

pub(crate) use bare::{bare, wants_bare};
pub(crate) use declines::{decline, wants_composed_decline};
pub(crate) use ends::{
    long_place, place_with_city, repeating_number, wants_long_place, wants_place_with_city,
    with_trailer,
};
pub(crate) use fields::{email, language_first, wants_composed_fields};
pub(crate) use follow_ups::{follow_up, wants_composed_follow_up};
pub(crate) use lookalikes::lookalike;
pub(crate) use numbers::{arithmetic, wants_composed_arithmetic, with_repeat};
pub(crate) use requests::{
    currency_total, forecast, statistic, temperature, temperature_difference, time_and_temperature,
    wants_composed_request,
};
pub(crate) use wording::{
    email_phrasing, greeting, punctuated, same_words, thanks, wants_composed_small_talk,
    wants_thanks,
};

use super::phrasing::fill;
use super::rng::Rng;
use super::Split;

/// The first text `make` draws that `held_out` does not know: composed
/// practice is never a held-out phrasing.
fn unseen(make: impl FnMut() -> String, held_out: impl Fn(&str) -> bool) -> String {
    unseen_by(make, String::as_str, held_out)
}

/// [`unseen`] for draws that carry more than their text (a request and
/// the answer it gets): `text` says which part `held_out` must not know.
fn unseen_by<T>(
    mut make: impl FnMut() -> T,
    text: impl Fn(&T) -> &str,
    held_out: impl Fn(&str) -> bool,
) -> T {
    loop {
        let drawn = make();
        if !held_out(text(&drawn)) {
            return drawn;
        }
    }
}

/// How a composed request starts: its words, whether it is a question,
/// and whether it takes only a noun phrase ("What's the sum of …", never
/// "What's how warm it is …").
pub(super) type Lead = (&'static str, bool, bool);

/// A lead from `leads` and one of `asked`, its `slots` filled, with a
/// question mark or a full stop as the lead asks.
pub(super) fn lead_and(
    rng: &mut Rng,
    leads: &[Lead],
    asked: &[&str],
    slots: &[(&str, &str)],
) -> String {
    let asked = fill(rng.pick::<&str>(asked), slots);
    let noun = asked.starts_with("the ");
    let &(lead, question, _) = loop {
        let lead = rng.pick(leads);
        if noun || !lead.2 {
            break lead;
        }
    };
    let mark = if question { "?" } else { "." };
    capitalised(&format!("{lead}{asked}{mark}"))
}

/// [`lead_and`] drawn again until `held_out` does not know the text.
pub(super) fn composed(
    rng: &mut Rng,
    leads: &[Lead],
    asked: &[&str],
    slots: &[(&str, &str)],
    held_out: impl Fn(&str) -> bool,
) -> String {
    unseen(|| lead_and(rng, leads, asked, slots), held_out)
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// What a training corpus adds to the standard conversations
/// (`tool-train train --extend STEPS@PEAK_LR+ends`). Each practice holds
/// those declared before it (the order is what the predicates compare),
/// but for the units after a comma [`Practice::Wording`] leaves out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Practice {
    /// The conversations alone.
    #[default]
    Standard,
    /// Where a copied value ends: places of several words, words after a
    /// place that are not part of it, numbers that repeat their digits.
    ValueEnds,
    /// Value-end practice and wider wording: composed thanks and greetings,
    /// units after a comma, texts with inner punctuation, more requests for
    /// tools not offered.
    Wide,
    /// Wide practice without units after a comma: from those v9 learnt
    /// that a comma may end a place, and cut `Zagreb, Croatia` short.
    Wording,
    /// Wide practice with follow-ups for another value composed from parts
    /// (some after thanks), and more follow-ups and chained requests.
    FollowUps,
    /// Follow-up practice with email and translation requests whose fields
    /// are cued in words composed from parts, in either order.
    Fields,
    /// Field-cue practice with writing requests no tool does composed from
    /// parts, thanks after sessions, and more requests that need no tool.
    Declines,
    /// Decline practice with temperature, statistics, two-call and
    /// two-step requests composed from parts.
    Requests,
    /// Request practice with arithmetic composed from parts, most of it
    /// ending on a number, and lists of numbers that repeat a value.
    Numbers,
    /// Number practice with a lookalike tool offered beside most requests
    /// for a tool not offered, and forecasts composed from parts.
    Lookalikes,
    /// Lookalike practice with requests asked without their lead, starting
    /// with what they ask for, capitalised ("Average of …").
    Bare,
    /// Bare practice with more small talk and more thanks after answers.
    Chat,
    /// Chat practice with half of the conversations about tools made up
    /// on the spot (`corpus/schemas/`): the model reads each schema
    /// instead of knowing the tools.
    Schemas,
}

impl std::str::FromStr for Practice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "standard" => Ok(Practice::Standard),
            "ends" => Ok(Practice::ValueEnds),
            "wide" => Ok(Practice::Wide),
            "wording" => Ok(Practice::Wording),
            "followups" => Ok(Practice::FollowUps),
            "fields" => Ok(Practice::Fields),
            "declines" => Ok(Practice::Declines),
            "requests" => Ok(Practice::Requests),
            "numbers" => Ok(Practice::Numbers),
            "lookalikes" => Ok(Practice::Lookalikes),
            "bare" => Ok(Practice::Bare),
            "chat" => Ok(Practice::Chat),
            "schemas" => Ok(Practice::Schemas),
            _ => Err(format!(
                "expected a practice, `ends`, `wide`, `wording`, `followups`, `fields`, `declines`, `requests`, `numbers`, `lookalikes`, `bare`, `chat`, `schemas` or `standard`, found `{s}`"
            )),
        }
    }
}

impl std::fmt::Display for Practice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Practice::Standard => "standard",
            Practice::ValueEnds => "ends",
            Practice::Wide => "wide",
            Practice::Wording => "wording",
            Practice::FollowUps => "followups",
            Practice::Fields => "fields",
            Practice::Declines => "declines",
            Practice::Requests => "requests",
            Practice::Numbers => "numbers",
            Practice::Lookalikes => "lookalikes",
            Practice::Bare => "bare",
            Practice::Chat => "chat",
            Practice::Schemas => "schemas",
        })
    }
}

impl Practice {
    /// Every practice, from the conversations alone to the widest.
    pub const ALL: [Practice; 13] = [
        Practice::Standard,
        Practice::ValueEnds,
        Practice::Wide,
        Practice::Wording,
        Practice::FollowUps,
        Practice::Fields,
        Practice::Declines,
        Practice::Requests,
        Practice::Numbers,
        Practice::Lookalikes,
        Practice::Bare,
        Practice::Chat,
        Practice::Schemas,
    ];

    /// Whether a unit after a place is named after a comma or in brackets
    /// in more ways than ", in Celsius": wide practice and what builds on
    /// it, but for [`Practice::Wording`], which leaves them out.
    pub(crate) fn unit_after_comma(self, split: Split) -> bool {
        self.holds(Practice::Wide, split) && self != Practice::Wording
    }

    /// Whether a conversation of `split` gets what `practice` adds: each
    /// practice holds those declared before it (training only). One test
    /// for every practice rather than an accessor each, so that a new
    /// practice needs only its variant.
    pub(crate) fn holds(self, practice: Practice, split: Split) -> bool {
        self >= practice && split == Split::Train
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::values::part;
    use std::collections::HashSet;

    /// Over 500 draws of a kind (an index of `cues`) and of the text
    /// `write` makes for it, asserts that each text names its own kind and
    /// no other: a kind is named when `said(text, cue)` finds one of its
    /// cues.
    #[track_caller]
    pub(super) fn assert_each_kind_named_by_its_own_cues(
        seed: u64,
        cues: &[&[&str]],
        mut write: impl FnMut(&mut Rng, usize) -> String,
        said: impl Fn(&str, &str) -> bool,
    ) {
        let mut rng = Rng::for_example(seed, 0);
        for _ in 0..500 {
            let own = rng.below(cues.len());
            let text = write(&mut rng, own);
            for (kind, words) in cues.iter().enumerate() {
                let named = words.iter().any(|w| said(&text, w));
                assert_eq!(
                    named,
                    kind == own,
                    "{text:?} for kind {own}, cues {words:?}"
                );
            }
        }
    }

    /// Lower-case words of `text`, one space apart.
    pub(super) fn words(text: &str) -> String {
        let kept: String = text
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '\'' {
                    c
                } else {
                    ' '
                }
            })
            .flat_map(char::to_lowercase)
            .collect();
        kept.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The runs of three or more words between the slots of `list`'s
    /// held-out phrasings: what no composed request may contain.
    fn held_out_runs(list: &[&str]) -> Vec<String> {
        part(list, Split::HeldOut)
            .flat_map(|t| t.split(['{', '}']).step_by(2).map(words))
            .filter(|run| run.split(' ').count() >= 3)
            .collect()
    }

    pub(super) fn check(kind: &str, lists: &[&[&str]], mut make: impl FnMut(&mut Rng) -> String) {
        let runs: Vec<String> = lists.iter().flat_map(|l| held_out_runs(l)).collect();
        let mut rng = Rng::for_example(41, 0);
        let mut seen = HashSet::new();
        for _ in 0..400 {
            let text = make(&mut rng);
            let padded = format!(" {} ", words(&text));
            for run in &runs {
                assert!(
                    !padded.contains(&format!(" {run} ")),
                    "{text:?} has {run:?}"
                );
            }
            assert!(text.ends_with(['?', '.']), "{text:?}");
            assert!(text.starts_with(|c: char| !c.is_lowercase()), "{text:?}");
            seen.insert(text);
        }
        assert!(seen.len() > 60, "{kind}: only {} texts", seen.len());
    }

    #[test]
    fn practice_reads_back_what_it_writes() {
        for p in Practice::ALL {
            assert_eq!(p.to_string().parse::<Practice>(), Ok(p));
        }
        let err = "end".parse::<Practice>().unwrap_err();
        assert!(err.contains("found `end`"), "{err}");
    }
}
