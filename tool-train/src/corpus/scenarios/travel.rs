//! Travel requests: flights and distances between cities.

use super::*;

fn stops_phrase(stops: u64) -> String {
    match stops {
        0 => "nonstop".into(),
        1 => "1 stop".into(),
        n => format!("{n} stops"),
    }
}

/// Asks for a flight and calls the tool; the result as JSON, or the error text.
fn flight_request(cx: &mut Cx, fail: bool) -> String {
    let (o, mut d) = cx.two_cities();
    if fail {
        d = o.clone();
    }
    let date = v::date(&mut cx.rng, cx.split);
    let passengers = cx.rng.chance(0.3).then(|| cx.rng.range(2, 6));
    let direct = cx.rng.chance(0.3);
    let extra = match passengers {
        Some(n) => fill(
            cx.rng
                .choose(&[" for {n} people", " for {n} passengers", " for {n} adults"]),
            &[("n", &n.to_string())],
        ),
        None => String::new(),
    };
    let direct_said = if direct { *cx.rng.pick(p::DIRECT) } else { "" };
    let template = cx.phrase(p::FLIGHTS);
    let mut text = fill(
        template,
        &[
            ("o", &o),
            ("d", &d),
            ("date", &date),
            ("extra", &extra),
            ("direct", direct_said),
        ],
    );
    text = text.trim_end().to_owned();
    cx.ask(text);
    let mut pairs = vec![
        ("origin", json!(o)),
        ("destination", json!(d)),
        ("date", json!(date)),
    ];
    if let Some(n) = passengers {
        pairs.push(("passengers", json!(n)));
    }
    pairs.push(("nonstop_only", json!(direct)));
    cx.call_one("search_flights", args(pairs))
}

pub(super) fn flights(cx: &mut Cx, fail: bool) -> Follow {
    let r = flight_request(cx, fail);
    let Some(result) = cx.result_object(&r) else {
        return Follow::Nothing;
    };
    let flight = text_at(&result, "flight");
    let departs = text_at(&result, "departs");
    let price = result["price_usd"].to_string();
    let stops = stops_phrase(result["stops"].as_u64().unwrap_or(0));
    cx.answer_from(
        p::FLIGHT_ANSWERS,
        &[
            ("flight", &flight),
            ("departs", &departs),
            ("stops", &stops),
            ("price", &price),
        ],
        vec![flight.clone(), price.clone()],
    );
    Follow::Nothing
}

pub(super) fn distance(cx: &mut Cx, fail: bool) -> Follow {
    let (o, mut d) = cx.two_cities();
    if fail {
        d = o.clone();
    }
    let unit = match cx.rng.below(4) {
        0 => Some(("miles", " in miles")),
        1 => Some(("km", *cx.rng.pick(&[" in km", " in kilometers"]))),
        _ => None,
    };
    cx.ask_phrase(
        p::DISTANCE,
        &[("o", &o), ("d", &d), ("unit", unit.map_or("", |u| u.1))],
    );
    let mut pairs = vec![("origin", json!(o)), ("destination", json!(d))];
    if let Some((u, _)) = unit {
        pairs.push(("unit", json!(u)));
    }
    let r = cx.call_one("get_distance", args(pairs));
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    cx.answer_from(
        p::DISTANCE_ANSWERS,
        &[
            ("o", &o),
            ("d", &d),
            ("r", &r),
            ("unit", unit.map_or("km", |u| u.0)),
        ],
        vec![r.clone()],
    );
    Follow::Nothing
}

// ---------------------------------------------------------------- parallel calls
