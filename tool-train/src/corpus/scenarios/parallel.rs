//! Requests answered by several calls at once.

use super::*;

pub(super) fn temperature_and_wind(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    let (unit, said) = unit_phrase(cx);
    cx.ask_phrase(p::TEMPERATURE_AND_WIND, &[("loc", &loc), ("unit", said)]);
    let results = cx.call(vec![
        (
            "get_current_temperature",
            json!({"location": loc, "unit": unit}),
        ),
        ("get_current_wind_speed", json!({ "location": loc })),
    ]);
    let (t, w) = (&results[0], &results[1]);
    cx.answer_from(
        p::TEMPERATURE_AND_WIND_ANSWERS,
        &[("loc", &loc), ("t", t), ("sym", symbol(unit)), ("w", w)],
        vec![t.clone(), w.clone()],
    );
    Follow::Temperature { loc, unit }
}

pub(super) fn two_temperatures(cx: &mut Cx) -> Follow {
    let (a, b) = cx.two_locations();
    let (unit, said) = unit_phrase(cx);
    cx.ask_phrase(p::TWO_TEMPERATURES, &[("a", &a), ("b", &b), ("unit", said)]);
    let results = temperatures_call(cx, [&a, &b], unit);
    cx.answer_from(
        p::TWO_TEMPERATURES_ANSWERS,
        &[
            ("a", &a),
            ("ta", &results[0]),
            ("b", &b),
            ("tb", &results[1]),
            ("sym", symbol(unit)),
        ],
        results.clone(),
    );
    Follow::Nothing
}

pub(super) fn two_times(cx: &mut Cx) -> Follow {
    let a = cx.time_place();
    let b = loop {
        let b = cx.time_place();
        if b != a {
            break b;
        }
    };
    ask_both(cx, &a, &b, &TWO_TIMES);
    Follow::Time
}

pub(super) fn time_and_temperature(cx: &mut Cx) -> Follow {
    let place = cx.time_city();
    cx.ask_composed(
        p::TIME_AND_TEMPERATURE,
        &[("place", &place)],
        |rng, held_out| practice::time_and_temperature(rng, &place, held_out),
    );
    let results = cx.call(vec![
        ("get_current_time", json!({ "timezone": place })),
        (
            "get_current_temperature",
            json!({"location": place, "unit": "celsius"}),
        ),
    ]);
    cx.answer_from(
        p::TIME_AND_TEMPERATURE_ANSWERS,
        &[("place", &place), ("r", &results[0]), ("t", &results[1])],
        results.clone(),
    );
    Follow::Nothing
}

pub(super) fn two_stocks(cx: &mut Cx) -> Follow {
    let (a, _) = cx.stock();
    let b = loop {
        let (b, _) = cx.stock();
        if b != a {
            break b;
        }
    };
    ask_both(cx, &a, &b, &TWO_STOCKS);
    Follow::Stock
}

/// One tool asked about two values at once, with the phrasings that ask
/// and answer: the answer names `{a}` and `{b}` with their results.
struct Both {
    asks: &'static [&'static str],
    answers: &'static [&'static str],
    /// The tool called for each value, and the argument the value is.
    tool: (&'static str, &'static str),
    /// The answer's slots for the results of `a` and `b`.
    results: (&'static str, &'static str),
}

const TWO_TIMES: Both = Both {
    asks: p::TWO_TIMES,
    answers: p::TWO_TIMES_ANSWERS,
    tool: ("get_current_time", "timezone"),
    results: ("ra", "rb"),
};

const TWO_STOCKS: Both = Both {
    asks: p::TWO_STOCKS,
    answers: p::TWO_STOCKS_ANSWERS,
    tool: ("get_stock_price", "symbol"),
    results: ("pa", "pb"),
};

fn ask_both(cx: &mut Cx, a: &str, b: &str, both: &Both) {
    cx.ask_phrase(both.asks, &[("a", a), ("b", b)]);
    let (tool, argument) = both.tool;
    let results = cx.call(vec![
        (tool, json!({ argument: a })),
        (tool, json!({ argument: b })),
    ]);
    cx.answer_from(
        both.answers,
        &[
            ("a", a),
            (both.results.0, &results[0]),
            ("b", b),
            (both.results.1, &results[1]),
        ],
        results.clone(),
    );
}

pub(super) fn translate_two(cx: &mut Cx) -> Follow {
    let text = phrase_to_translate(cx);
    let langs = cx.rng.sample(v::LANGUAGES, 2);
    let (a, b) = (langs[0], langs[1]);
    cx.ask_phrase(p::TRANSLATE_TWO, &[("text", &text), ("a", a), ("b", b)]);
    let results = cx.call(vec![
        (
            "translate_text",
            json!({"text": text, "target_language": a}),
        ),
        (
            "translate_text",
            json!({"text": text, "target_language": b}),
        ),
    ]);
    cx.answer_from(
        p::TRANSLATE_TWO_ANSWERS,
        &[
            ("text", &text),
            ("a", a),
            ("ra", &results[0]),
            ("b", b),
            ("rb", &results[1]),
        ],
        results.clone(),
    );
    Follow::Nothing
}
