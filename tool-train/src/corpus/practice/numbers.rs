//! Number practice: arithmetic worded from parts, ending on a number more
//! often, and lists that repeat a value.
//!
//! v14's wrong numbers were mostly of two kinds. A request that ends on an
//! integer and a full stop ("Please compute 54 plus 32858.") got the stop
//! read as a decimal point (`32858.2`, `694.0`): training asks arithmetic
//! in ten fixed sentences per operation, and two of them end that way. A
//! list that repeats a value ("54, 68, 54, 59 and 50") was copied from the
//! wrong occurrence on (`54, 68, 54, 68, 54`), or lost or doubled an item.
//! Composed arithmetic puts a lead ("Evaluate ", "Can you solve ")
//! before what is asked ("{a} plus {b}", "{b} subtracted from {a}"), most
//! often as a statement that ends on `{b}.`; and a share of the lists
//! repeat one of their values.

use super::{composed, Lead};
use crate::corpus::rng::Rng;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/numbers.json");

/// How often an arithmetic request is composed.
const COMPOSED: f64 = 0.5;

/// How often a list of numbers repeats one of its values.
const REPEATS: f64 = 0.35;

/// Leads of arithmetic requests: most are statements, so that the request
/// ends on a number and a full stop.
fn leads() -> &'static [Lead] {
    WORDS.get("leads")
}

/// Whether an arithmetic request should be composed.
pub(crate) fn wants_composed_arithmetic(rng: &mut Rng) -> bool {
    rng.chance(COMPOSED)
}

/// A request for operation `op` (add, subtract, multiply, divide, power)
/// of `a` and `b`; never a text `held_out` knows.
pub(crate) fn arithmetic(
    rng: &mut Rng,
    op: usize,
    a: &str,
    b: &str,
    held_out: impl Fn(&str) -> bool,
) -> String {
    composed(
        rng,
        leads(),
        WORDS.lists("asked")[op],
        &[("a", a), ("b", b)],
        held_out,
    )
}

/// `numbers` with one value written again in place of a later one, in a
/// share of the lists: copying such a list means keeping to the position,
/// not jumping to what followed the value's first occurrence.
pub(crate) fn with_repeat(rng: &mut Rng, mut numbers: Vec<String>) -> Vec<String> {
    if numbers.len() >= 3 && rng.chance(REPEATS) {
        let to = rng.range(1, numbers.len() as i64 - 1) as usize;
        let from = rng.below(to);
        numbers[to] = numbers[from].clone();
    }
    numbers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::phrasing as p;
    use crate::corpus::practice::tests::{assert_each_kind_named_by_its_own_cues, check, words};

    #[test]
    fn composed_arithmetic_never_contains_held_out_words_between_slots() {
        let lists = [p::ADD, p::SUBTRACT, p::MULTIPLY, p::DIVIDE, p::POWER];
        for (op, list) in lists.into_iter().enumerate() {
            let mut ends_on_b = 0;
            check(&format!("operation {op}"), &[list], |rng| {
                let text = arithmetic(rng, op, "5188", "694", |_| false);
                assert_eq!(text.matches("5188").count(), 1, "{text}");
                assert_eq!(text.matches("694").count(), 1, "{text}");
                if text.ends_with("694.") {
                    ends_on_b += 1;
                }
                text
            });
            assert!(ends_on_b > 100, "operation {op}: {ends_on_b} of 400");
        }
    }

    #[test]
    fn each_operation_is_named_by_its_own_words() {
        let cues: [&[&str]; 5] = [
            &["plus", "+", "sum", "total", "added"],
            &["minus", "-", "difference", "subtracted", "less", "off"],
            &["times", "*", "x", "product"],
            &["divided", "/", "quotient", "ways", "over"],
            &["power", "^", "exponent", "7th"],
        ];
        assert_each_kind_named_by_its_own_cues(
            44,
            &cues,
            |rng, op| arithmetic(rng, op, "3", "7", |_| false),
            |text, cue| {
                text.split(|c: char| c.is_whitespace() || matches!(c, '?' | '.' | ':'))
                    .map(str::to_lowercase)
                    .chain(words(text).split(' ').map(str::to_owned))
                    .any(|t| t == cue)
            },
        );
    }

    #[test]
    fn a_share_of_lists_repeat_a_value_and_keep_their_length() {
        let mut rng = Rng::for_example(45, 0);
        let mut repeated = 0;
        for _ in 0..1000 {
            let numbers: Vec<String> = (0..5).map(|i| (10 + i).to_string()).collect();
            let out = with_repeat(&mut rng, numbers.clone());
            assert_eq!(out.len(), 5);
            assert_eq!(out[0], numbers[0], "the first value is never replaced");
            let changed: Vec<usize> = (0..5).filter(|&i| out[i] != numbers[i]).collect();
            match changed[..] {
                [] => {}
                [i] => {
                    assert!(out[..i].contains(&out[i]), "{out:?}");
                    repeated += 1;
                }
                _ => panic!("more than one value replaced: {out:?}"),
            }
        }
        assert!((250..450).contains(&repeated), "{repeated} of 1000");
    }
}
