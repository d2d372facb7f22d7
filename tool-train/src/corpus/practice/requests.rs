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

/// How often a request of a kind this practice covers is composed.
const COMPOSED: f64 = 0.5;

/// Leads of requests to look something up.
const LOOKUP_LEADS: &[Lead] = &[
    ("", true, true),
    ("What's ", true, true),
    ("What is ", true, true),
    ("Give me ", false, true),
    ("Get me ", false, true),
    ("I need ", false, true),
    ("I'd like ", false, true),
    ("Tell me ", false, false),
    ("Check ", false, false),
    ("Look up ", false, false),
    ("Can you tell me ", true, false),
    ("Could you check ", true, false),
    ("Please tell me ", false, false),
    ("Let me know ", false, false),
    ("I want to know ", false, false),
    ("Do you know ", true, false),
];

/// Leads of requests to work something out.
const COMPUTE_LEADS: &[Lead] = &[
    ("", true, true),
    ("What's ", true, true),
    ("What is ", true, true),
    ("Give me ", false, true),
    ("I need ", false, true),
    ("Tell me ", false, false),
    ("Find ", false, true),
    ("Calculate ", false, false),
    ("Determine ", false, false),
    ("Can you calculate ", true, false),
    ("Could you determine ", true, false),
    ("Please calculate ", false, false),
    ("Let me know ", false, false),
    ("I want to know ", false, false),
];

/// What a temperature request asks: `{loc}`, `{unit}`.
const TEMPERATURE: &[&str] = &[
    "the temperature in {loc}{unit}",
    "the temperature right now in {loc}{unit}",
    "the temperature for {loc}{unit}",
    "the temperature at {loc} today{unit}",
    "how warm it is today in {loc}{unit}",
    "how hot it is in {loc} today{unit}",
    "how cold it is in {loc} right now{unit}",
    "what the temperature is in {loc}{unit}",
    "how warm {loc} is right now{unit}",
    "what the thermometer shows in {loc}{unit}",
];

/// What each statistic is called before a list, in `STATISTICS` order
/// (mean, median, min, max, sum).
const STATISTIC_BEFORE: [&[&str]; 5] = [
    &[
        "the average of",
        "the mean of",
        "the average value of",
        "the mean value of",
        "the arithmetic mean of",
        "the average for",
        "the mean for",
    ],
    &[
        "the median of",
        "the median value of",
        "the median for",
        "the median number of",
    ],
    &[
        "the smallest of",
        "the minimum of",
        "the lowest of",
        "the smallest number in",
        "the lowest value in",
        "the minimum value of",
        "the least of",
    ],
    &[
        "the largest of",
        "the maximum of",
        "the highest of",
        "the biggest number in",
        "the highest value in",
        "the maximum value of",
        "the greatest of",
    ],
    &[
        "the sum of",
        "the total of",
        "the sum total of",
        "the total for",
        "the sum for",
        "what you get adding up",
        "what you get when you add",
    ],
];

/// What each statistic is called after a list.
const STATISTIC_AFTER: [&[&str]; 5] = [
    &["average", "mean", "average value", "mean value"],
    &["median", "median value"],
    &[
        "smallest",
        "minimum",
        "lowest",
        "smallest one",
        "lowest value",
    ],
    &[
        "largest",
        "maximum",
        "highest",
        "biggest one",
        "highest value",
    ],
    &["sum", "total", "sum total"],
];

/// A request that names the list first: `{list}`, `{stat}`.
const LIST_FIRST: &[&str] = &[
    "Here are some numbers: {list}. What's the {stat}?",
    "{list}: what is the {stat}?",
    "For {list}, what's the {stat}?",
    "Take {list} and give me the {stat}.",
    "I have {list}. What's the {stat}?",
    "Numbers: {list}. I need the {stat}.",
    "Given {list}, tell me the {stat}.",
    "{list} - the {stat}, please.",
];

/// The time part of a time-and-temperature request: `{place}`.
const TIME_PART: &[&str] = &[
    "the time in {place}",
    "the local time in {place}",
    "the current time in {place}",
    "the time right now in {place}",
    "what time it is in {place}",
    "what time it is right now in {place}",
    "the hour in {place}",
];

/// The temperature part that follows it.
const TEMPERATURE_PART: &[&str] = &[
    " and the temperature there",
    " and how warm it is",
    ", and also the temperature",
    ", plus the temperature",
    " and how hot it is there",
    " as well as the temperature",
    " and the current temperature",
    " along with the temperature",
    ", and how cold it is there",
    " together with the temperature there",
];

/// What a temperature-difference request asks: `{a}`, `{b}`; always `a`
/// minus `b`.
const DIFFERENCE: &[&str] = &[
    "the temperature difference between {a} and {b}",
    "the gap in temperature between {a} and {b}",
    "the temperature gap from {a} to {b}",
    "the difference between the temperatures of {a} and {b}",
    "how much warmer {a} is than {b}",
    "how many degrees warmer {a} is than {b}",
    "by how much {a} is warmer than {b}",
    "how far apart the temperatures of {a} and {b} are",
    "how much hotter it is in {a} than in {b}",
];

/// What a currency-total request asks: `{x} {c1}`, `{y} {c2}`, `{c2}`.
const CURRENCY_TOTAL: &[&str] = &[
    "the total of {x} {c1} and {y} {c2} in {c2}",
    "the sum of {x} {c1} and {y} {c2}, in {c2}",
    "what {x} {c1} and {y} {c2} come to in {c2}",
    "how many {c2} I have with {x} {c1} plus {y} {c2}",
    "the value of {x} {c1} plus {y} {c2}, all in {c2}",
    "what {x} {c1} together with {y} {c2} is worth in {c2}",
    "the combined value of {x} {c1} and {y} {c2} as {c2}",
    "how much {y} {c2} and {x} {c1} make in {c2}",
];

/// What a forecast-average request asks: `{loc}`, `{n}`.
const FORECAST_AVERAGE: &[&str] = &[
    "the average high in {loc} over the next {n} days",
    "the mean forecast high for {loc} for {n} days",
    "the average forecast temperature in {loc} for the coming {n} days",
    "the average daily high for {loc} across the next {n} days",
    "the mean of the daily highs in {loc} for the next {n} days",
    "how warm {loc} will be on average over {n} days",
    "how hot it gets in {loc} on average in the next {n} days",
    "the average of the highs forecast for {loc}, {n} days",
];

/// What a forecast request asks, in no word of an average: `{loc}`, `{n}`.
/// v16 took "How hot will Madrid get over the next 2 days?" for an
/// average, which practice composed and plain forecasts were not.
const FORECAST: &[&str] = &[
    "the forecast for {loc} for the next {n} days",
    "the {n}-day forecast in {loc}",
    "the daily highs for {loc} over the next {n} days",
    "the highs forecast for {loc} for {n} days",
    "the forecast highs in {loc} over the coming {n} days",
    "the temperatures forecast for {loc}, {n} days",
    "the weather ahead in {loc} for {n} days",
    "how warm it will get in {loc} over the next {n} days",
    "how hot {loc} will be each day for the next {n} days",
    "how hot it will get in {loc} during the next {n} days",
    "how cold {loc} will be over the coming {n} days",
    "what the temperatures will be in {loc} for the next {n} days",
    "what the highs will be in {loc} each day for {n} days",
    "how the next {n} days look in {loc}",
];

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
        LOOKUP_LEADS,
        TEMPERATURE,
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
                let template = *rng.pick(LIST_FIRST);
                let name = *rng.pick(STATISTIC_AFTER[stat]);
                fill(template, &[("list", list), ("stat", name)])
            } else {
                let asked = format!("{} {{list}}", rng.pick(STATISTIC_BEFORE[stat]));
                lead_and(rng, COMPUTE_LEADS, &[asked.as_str()], &[("list", list)])
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
            let asked = format!("{}{}", rng.pick(TIME_PART), rng.pick(TEMPERATURE_PART));
            lead_and(rng, LOOKUP_LEADS, &[asked.as_str()], &[("place", place)])
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
        COMPUTE_LEADS,
        DIFFERENCE,
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
        COMPUTE_LEADS,
        CURRENCY_TOTAL,
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
    let asked = if average { FORECAST_AVERAGE } else { FORECAST };
    composed(
        rng,
        LOOKUP_LEADS,
        asked,
        &[("loc", loc), ("n", n)],
        held_out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::phrasing as p;
    use crate::corpus::practice::tests::{check, words};

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
        let names = ["mean", "median", "min", "max", "sum"];
        let cues: [&[&str]; 5] = [
            &["average", "mean"],
            &["median"],
            &["smallest", "minimum", "lowest", "least"],
            &["largest", "maximum", "highest", "biggest", "greatest"],
            &["sum", "total", "add", "adding"],
        ];
        let mut rng = Rng::for_example(42, 0);
        for _ in 0..500 {
            let stat = rng.below(5);
            let text = words(&statistic(&mut rng, stat, "1, 2, 3", |_| false));
            for (other, words) in cues.iter().enumerate() {
                let named = words.iter().any(|w| text.split(' ').any(|t| t == *w));
                assert_eq!(named, other == stat, "{text:?} for {}", names[stat]);
            }
        }
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
