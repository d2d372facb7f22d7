//! Requests answered in two steps, the second call using the first one's
//! result.

use super::*;

pub(super) fn shares_value(cx: &mut Cx) -> Follow {
    let (sym, _) = cx.stock();
    let n = cx.number(NumberKind::Small);
    cx.ask_phrase(p::SHARES_VALUE, &[("n", &n), ("sym", &sym)]);
    let price = cx.call_one("get_stock_price", json!({ "symbol": sym }));
    let r = cx.calculate("multiply", &price, &n);
    cx.answer_result(
        p::SHARES_VALUE_ANSWERS,
        &[("n", &n), ("sym", &sym), ("p", &price), ("r", &r)],
        &r,
    )
}

pub(super) fn temperature_kelvin(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    cx.ask_phrase(p::TEMPERATURE_KELVIN, &[("loc", &loc)]);
    let t = temperature_call(cx, &loc, "celsius");
    let k = cx.call_one(
        "convert_units",
        json!({"value": num(&t), "from_unit": "celsius", "to_unit": "kelvin"}),
    );
    cx.answer_from(
        p::TEMPERATURE_KELVIN_ANSWERS,
        &[("loc", &loc), ("t", &t), ("k", &k)],
        vec![k.clone()],
    );
    Follow::Nothing
}

pub(super) fn flight_in_currency(cx: &mut Cx) -> Follow {
    let (o, d) = cx.two_cities();
    let date = v::date(&mut cx.rng, cx.split);
    let cur = loop {
        let c = cx.rng.pick(v::CURRENCIES).0;
        if c != "USD" {
            break c;
        }
    };
    cx.ask_phrase(
        p::FLIGHT_IN_CURRENCY,
        &[("o", &o), ("d", &d), ("date", &date), ("cur", cur)],
    );
    let r = cx.call_one(
        "search_flights",
        json!({"origin": o, "destination": d, "date": date, "nonstop_only": false}),
    );
    let result: Value = serde_json::from_str(&r).unwrap_or(Value::Null);
    let price = result["price_usd"].to_string();
    let converted = currency_call(cx, &price, "USD", cur);
    let flight = text_at(&result, "flight");
    let departs = text_at(&result, "departs");
    cx.answer_from(
        p::FLIGHT_IN_CURRENCY_ANSWERS,
        &[
            ("flight", &flight),
            ("departs", &departs),
            ("price", &price),
            ("r", &converted),
            ("cur", cur),
        ],
        vec![flight.clone(), converted.clone()],
    );
    Follow::Nothing
}

pub(super) fn temperature_difference(cx: &mut Cx) -> Follow {
    let (a, b) = cx.two_locations();
    cx.ask_composed(
        p::TEMPERATURE_DIFFERENCE,
        &[("a", &a), ("b", &b)],
        |rng, held_out| practice::temperature_difference(rng, &a, &b, held_out),
    );
    let results = temperatures_call(cx, [&a, &b], "celsius");
    let d = cx.calculate("subtract", &results[0], &results[1]);
    cx.answer_from(
        p::TEMPERATURE_DIFFERENCE_ANSWERS,
        &[
            ("a", &a),
            ("ta", &results[0]),
            ("b", &b),
            ("tb", &results[1]),
            ("d", &d),
        ],
        vec![d.clone()],
    );
    Follow::Result { value: d }
}

pub(super) fn currency_total(cx: &mut Cx) -> Follow {
    let (c1, c2) = two_currencies(cx);
    let x = amount(cx);
    let y = amount(cx);
    cx.ask_composed(
        p::CURRENCY_TOTAL,
        &[("x", &x), ("c1", c1), ("y", &y), ("c2", c2)],
        |rng, held_out| practice::currency_total(rng, [&x, c1, &y, c2], held_out),
    );
    let r1 = currency_call(cx, &x, c1, c2);
    let r = cx.calculate("add", &r1, &y);
    cx.answer_result(
        p::CURRENCY_TOTAL_ANSWERS,
        &[
            ("x", &x),
            ("c1", c1),
            ("r1", &r1),
            ("y", &y),
            ("c2", c2),
            ("r", &r),
        ],
        &r,
    )
}

pub(super) fn forecast_average(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    let n = cx.rng.range(2, 7).to_string();
    cx.ask_composed(
        p::FORECAST_AVERAGE,
        &[("loc", &loc), ("n", &n)],
        |rng, held_out| practice::forecast(rng, true, [&loc, &n], held_out),
    );
    let highs = forecast_call(cx, &loc, &n);
    let list: Value = serde_json::from_str(&highs).unwrap_or(Value::Null);
    let r = cx.call_one(
        "calculate_statistics",
        json!({"numbers": list, "statistic": "mean"}),
    );
    let items = number_list(&highs);
    cx.answer_result(
        p::FORECAST_AVERAGE_ANSWERS,
        &[
            ("loc", &loc),
            ("n", &n),
            ("list", &and_list(&items)),
            ("r", &r),
        ],
        &r,
    )
}

pub(super) fn two_operations(cx: &mut Cx) -> Follow {
    // Power is left out: its results grow too fast to read.
    let op1 = cx.rng.below(4);
    let op2 = cx.rng.below(4);
    let (a, b) = operands(cx, op1);
    let c = cx.number(if op2 == 3 {
        NumberKind::Tiny
    } else {
        NumberKind::Small
    });
    cx.ask_phrase(
        p::TWO_OPERATIONS,
        &[
            ("a", &a),
            ("op1", p::OPERATION_WORDS[op1]),
            ("b", &b),
            ("op2", p::THEN_WORDS[op2]),
            ("c", &c),
        ],
    );
    let r1 = cx.calculate(OPERATIONS[op1], &a, &b);
    let r = cx.calculate(OPERATIONS[op2], &r1, &c);
    cx.answer_result(
        p::TWO_OPERATIONS_ANSWERS,
        &[
            ("a", &a),
            ("op1", p::OPERATION_WORDS[op1]),
            ("b", &b),
            ("r1", &r1),
            ("op2", p::OPERATION_WORDS[op2]),
            ("c", &c),
            ("r", &r),
        ],
        &r,
    )
}
