//! Weather requests: the current temperature and wind, and forecasts.

use super::*;

pub(super) fn unit_phrase(cx: &mut Cx) -> (&'static str, &'static str) {
    if cx.case == Some(Case::UnitNamed) {
        return cases::unit_named(cx);
    }
    if cx.rng.chance(0.3) {
        ("fahrenheit", *cx.rng.pick(p::FAHRENHEIT))
    } else {
        ("celsius", *cx.rng.pick(p::CELSIUS))
    }
}

pub(super) fn symbol(unit: &str) -> &'static str {
    if unit == "fahrenheit" {
        "°F"
    } else {
        "°C"
    }
}

pub(super) fn temperature_call(cx: &mut Cx, loc: &str, unit: &str) -> String {
    cx.call_one(
        "get_current_temperature",
        json!({"location": loc, "unit": unit}),
    )
}

/// The temperatures at `a` and at `b` in `unit`, called for at once.
pub(super) fn temperatures_call(cx: &mut Cx, [a, b]: [&str; 2], unit: &str) -> Vec<String> {
    let tool = "get_current_temperature";
    let args = |loc: &str| json!({"location": loc, "unit": unit});
    cx.call(vec![(tool, args(a)), (tool, args(b))])
}

pub(super) fn answer_temperature(cx: &mut Cx, loc: &str, unit: &str, t: &str) {
    cx.answer_from(
        p::TEMPERATURE_ANSWERS,
        &[("loc", loc), ("t", t), ("sym", symbol(unit))],
        vec![t.to_owned()],
    );
}

pub(super) fn temperature(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    let (unit, said) = unit_phrase(cx);
    cx.ask_composed(
        p::TEMPERATURE,
        &[("loc", &loc), ("unit", said)],
        |rng, held_out| practice::temperature(rng, &loc, said, held_out),
    );
    let t = temperature_call(cx, &loc, unit);
    answer_temperature(cx, &loc, unit, &t);
    Follow::Temperature { loc, unit }
}

pub(super) fn wind_call(cx: &mut Cx, loc: &str) {
    let w = cx.call_one("get_current_wind_speed", json!({ "location": loc }));
    cx.answer_from(p::WIND_ANSWERS, &[("loc", loc), ("w", &w)], vec![w.clone()]);
}

pub(super) fn wind(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    cx.ask_phrase(p::WIND, &[("loc", &loc)]);
    wind_call(cx, &loc);
    Follow::Wind
}

/// `[21.3,19.8]` as "21.3 and 19.8"; the items as written.
pub(super) fn number_list(result: &str) -> Vec<String> {
    let values: Vec<Value> = serde_json::from_str(result).unwrap_or_default();
    values.iter().map(Value::to_string).collect()
}

/// The high temperatures at `loc` for the next `days` days.
pub(super) fn forecast_call(cx: &mut Cx, loc: &str, days: &str) -> String {
    cx.call_one(
        "get_weather_forecast",
        json!({"location": loc, "days": num(days)}),
    )
}

pub(super) fn forecast(cx: &mut Cx, fail: bool) -> Follow {
    let loc = cx.location();
    let n = if fail {
        cx.rng.range(8, 30)
    } else {
        cx.rng.range(2, 7)
    }
    .to_string();
    let composed = cx.practice.holds(Practice::Lookalikes, cx.split)
        && practice::wants_composed_request(&mut cx.rng);
    cx.ask_either(
        composed,
        p::FORECAST,
        &[("loc", &loc), ("n", &n)],
        |rng, held_out| practice::forecast(rng, false, [&loc, &n], held_out),
    );
    let r = forecast_call(cx, &loc, &n);
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    let items = number_list(&r);
    cx.answer_from(
        p::FORECAST_ANSWERS,
        &[("loc", &loc), ("n", &n), ("list", &and_list(&items))],
        items,
    );
    Follow::Nothing
}
