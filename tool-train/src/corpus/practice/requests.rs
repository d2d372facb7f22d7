//! Request practice: temperatures, statistics, two calls at once and
//! two-step requests, worded from parts.
//!
//! v13's wrong calls on requests in words training knows were mostly these
//! kinds asked in a held-out phrasing: "Average of 64, 68, 50?" got the
//! median and "Sum these numbers: …" the mean, "How late is it in Paris
//! and what's the temperature?" only the time, "Compare A and B: what's
//! the difference in temperature?" no subtraction, and "How many degrees
//! is it in Toronto?" another tool. Training asked each in five to sixteen
//! fixed sentences. Composed requests put a lead ("Determine ", "Can you
//! tell me ") before what is asked ("the mean value of {list}", "how warm
//! it is in {loc}"), and never contain a held-out phrasing's words.

use super::{composed, lead_and, unseen, Lead};
use crate::corpus::phrasing::fill;
use crate::corpus::rng::Rng;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("practice/requests.json");

/// How often a request of a kind this practice covers is composed.
const COMPOSED: f64 = 0.5;

/// Leads of requests to look something up.
fn lookup_leads() -> &'static [Lead] {
    WORDS.get("lookup_leads")
}

/// Leads of requests to work something out.
fn compute_leads() -> &'static [Lead] {
    WORDS.get("compute_leads")
}

/// Whether a request of a kind this practice covers should be composed.
pub(crate) fn wants_composed_request(rng: &mut Rng) -> bool {
    rng.chance(COMPOSED)
}

/// A temperature request for `loc`, the unit as `unit` says it (maybe
/// nothing); never a text `held_out` knows.
pub(crate) fn temperature(
    rng: &mut Rng,
    loc: &str,
    unit: &str,
    held_out: impl Fn(&str) -> bool,
) -> String {
    composed(
        rng,
        lookup_leads(),
        WORDS.list("temperature"),
        &[("loc", loc), ("unit", unit)],
        held_out,
    )
}

/// A request for statistic `stat` (`STATISTICS` order) of `list`; never a
/// text `held_out` knows.
pub(crate) fn statistic(
    rng: &mut Rng,
    stat: usize,
    list: &str,
    held_out: impl Fn(&str) -> bool,
) -> String {
    unseen(
        || {
            if rng.chance(0.3) {
                let template = *rng.pick(WORDS.list("list_first"));
                let name = *rng.pick(WORDS.lists("statistic_after")[stat]);
                fill(template, &[("list", list), ("stat", name)])
            } else {
                let asked = format!(
                    "{} {{list}}",
                    rng.pick(WORDS.lists("statistic_before")[stat])
                );
                lead_and(rng, compute_leads(), &[asked.as_str()], &[("list", list)])
            }
        },
        held_out,
    )
}

/// A request for the time and the temperature in `place`, the time asked
/// first; never a text `held_out` knows.
pub(crate) fn time_and_temperature(
    rng: &mut Rng,
    place: &str,
    held_out: impl Fn(&str) -> bool,
) -> String {
    unseen(
        || {
            let asked = format!(
                "{}{}",
                rng.pick(WORDS.list("time_part")),
                rng.pick(WORDS.list("temperature_part"))
            );
            lead_and(rng, lookup_leads(), &[asked.as_str()], &[("place", place)])
        },
        held_out,
    )
}

/// A request for how much warmer `a` is than `b`; never a text `held_out`
/// knows.
pub(crate) fn temperature_difference(
    rng: &mut Rng,
    a: &str,
    b: &str,
    held_out: impl Fn(&str) -> bool,
) -> String {
    composed(
        rng,
        compute_leads(),
        WORDS.list("difference"),
        &[("a", a), ("b", b)],
        held_out,
    )
}

/// A request for `x` of currency `c1` plus `y` of `c2`, in `c2`; never a
/// text `held_out` knows.
pub(crate) fn currency_total(
    rng: &mut Rng,
    [x, c1, y, c2]: [&str; 4],
    held_out: impl Fn(&str) -> bool,
) -> String {
    composed(
        rng,
        compute_leads(),
        WORDS.list("currency_total"),
        &[("x", x), ("c1", c1), ("y", y), ("c2", c2)],
        held_out,
    )
}

/// A request for the forecast highs in `loc` over `n` days: their
/// average if `average`, or else each day's, in no word of an average;
/// never a text `held_out` knows.
pub(crate) fn forecast(
    rng: &mut Rng,
    average: bool,
    [loc, n]: [&str; 2],
    held_out: impl Fn(&str) -> bool,
) -> String {
    let asked = if average {
        WORDS.list("forecast_average")
    } else {
        WORDS.list("forecast")
    };
    composed(
        rng,
        lookup_leads(),
        asked,
        &[("loc", loc), ("n", n)],
        held_out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::phrasing as p;
    use crate::corpus::practice::tests::{assert_each_kind_named_by_its_own_cues, check, words};

    #[test]
    fn composed_requests_never_contain_held_out_words_between_slots() {
        let no = |_: &str| false;
        check("temperature", &[p::TEMPERATURE], |rng| {
            let unit = *rng.pick(&["", " in Fahrenheit", " in °C"]);
            let text = temperature(rng, "Ulm", unit, no);
            assert!(
                text.contains(&format!("Ulm{unit}")) || text.contains("Ulm "),
                "{text}"
            );
            text
        });
        let stats = [p::MEAN, p::MEDIAN, p::MIN, p::MAX, p::SUM];
        check("statistic", &stats, |rng| {
            let stat = rng.below(5);
            let text = statistic(rng, stat, "3, 14 and 15", no);
            assert_eq!(text.matches("3, 14 and 15").count(), 1, "{text}");
            text
        });
        check("time", &[p::TIME_AND_TEMPERATURE], |rng| {
            time_and_temperature(rng, "Oslo", no)
        });
        check("difference", &[p::TEMPERATURE_DIFFERENCE], |rng| {
            let text = temperature_difference(rng, "Ulm", "Oslo", no);
            assert!(text.find("Ulm") < text.find("Oslo"), "{text}");
            text
        });
        check("currency", &[p::CURRENCY_TOTAL], |rng| {
            currency_total(rng, ["12", "EUR", "30", "USD"], no)
        });
        check("forecast average", &[p::FORECAST_AVERAGE], |rng| {
            forecast(rng, true, ["Ulm", "4"], no)
        });
        check("forecast", &[p::FORECAST, p::FORECAST_AVERAGE], |rng| {
            let text = forecast(rng, false, ["Ulm", "4"], no);
            assert!(text.contains("Ulm") && text.contains('4'), "{text}");
            text
        });
    }

    #[test]
    fn a_forecast_names_no_average_and_an_average_always_does() {
        let mut rng = Rng::for_example(45, 0);
        let average = |text: &str| {
            let words = words(text);
            ["average", "mean"]
                .iter()
                .any(|w| words.split(' ').any(|t| t == *w))
        };
        for _ in 0..300 {
            let text = forecast(&mut rng, false, ["Ulm", "4"], |_| false);
            assert!(!average(&text), "{text}");
            let text = forecast(&mut rng, true, ["Ulm", "4"], |_| false);
            assert!(average(&text), "{text}");
        }
    }

    #[test]
    fn each_statistic_is_named_by_its_own_words() {
        let cues: [&[&str]; 5] = [
            &["average", "mean"],
            &["median"],
            &["smallest", "minimum", "lowest", "least"],
            &["largest", "maximum", "highest", "biggest", "greatest"],
            &["sum", "total", "add", "adding"],
        ];
        assert_each_kind_named_by_its_own_cues(
            42,
            &cues,
            |rng, stat| words(&statistic(rng, stat, "1, 2, 3", |_| false)),
            |text, cue| text.split(' ').any(|t| t == cue),
        );
    }

    #[test]
    fn composed_requests_are_never_held_out_texts() {
        let mut rng = Rng::for_example(43, 0);
        let forbidden = |t: &str| t.contains("What's");
        for _ in 0..200 {
            let text = temperature(&mut rng, "Ulm", "", forbidden);
            assert!(!forbidden(&text), "{text}");
        }
    }
}
