//! Number requests: arithmetic, unit conversions and statistics.

use super::*;
use crate::corpus::words::{words, Words};

/// The tables this module reads (`data/README.md` says what each is for).
static WORDS: Words = words!("scenarios/numbers.json");

pub(super) const OPERATIONS: [&str; 5] = ["add", "subtract", "multiply", "divide", "power"];

fn operation_phrasings(op: usize) -> &'static [&'static str] {
    [p::ADD, p::SUBTRACT, p::MULTIPLY, p::DIVIDE, p::POWER][op]
}

/// Two operands for `op`, as written.
pub(super) fn operands(cx: &mut Cx, op: usize) -> (String, String) {
    if op == 4 {
        let a = cx.rng.range(2, 12).to_string();
        let b = cx.rng.range(0, 6).to_string();
        return (a, b);
    }
    let kinds: &[NumberKind] = if op < 2 {
        // Sums and differences of large numbers stay exact.
        &[
            NumberKind::Small,
            NumberKind::Large,
            NumberKind::Decimal,
            NumberKind::Huge,
        ]
    } else {
        &[NumberKind::Small, NumberKind::Large, NumberKind::Decimal]
    };
    if cx.case == Some(Case::ManyDigits) && op < 2 {
        return (cx.number(NumberKind::Huge), cx.number(NumberKind::Huge));
    }
    let ka = *cx.rng.pick(kinds);
    let kb = if op == 3 {
        *cx.rng
            .pick(&[NumberKind::Tiny, NumberKind::Small, NumberKind::Decimal])
    } else {
        *cx.rng.pick(kinds)
    };
    (cx.number(ka), cx.number(kb))
}

pub(super) fn calculate(cx: &mut Cx, fail: bool) -> Follow {
    let op = if fail {
        3
    } else if cx.case == Some(Case::ManyDigits) {
        // Sums and differences: exact at any size.
        cx.rng.below(2)
    } else {
        cx.rng.below(5)
    };
    let (a, mut b) = operands(cx, op);
    if fail {
        b = "0".into();
    }
    let composed = cx.practice.holds(Practice::Numbers, cx.split)
        && practice::wants_composed_arithmetic(&mut cx.rng);
    cx.ask_either(
        composed,
        operation_phrasings(op),
        &[("a", &a), ("b", &b)],
        |rng, held_out| practice::arithmetic(rng, op, &a, &b, held_out),
    );
    let r = cx.calculate(OPERATIONS[op], &a, &b);
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    cx.answer_result(
        p::CALCULATE_ANSWERS,
        &[
            ("a", &a),
            ("op", p::OPERATION_WORDS[op]),
            ("b", &b),
            ("r", &r),
        ],
        &r,
    )
}

pub(super) type UnitNames = (&'static str, &'static [&'static str]);

/// A conversion to ask for: from, to, and the value as written.
pub(super) fn unit_request(cx: &mut Cx, fail: bool) -> (UnitNames, UnitNames, String) {
    let kinds = unit_names();
    let kind = cx.rng.below(kinds.len());
    let units = kinds[kind];
    let from = *cx.rng.pick(units);
    let to = if fail {
        // A unit of another kind: the tool refuses.
        let other = (kind + 1 + cx.rng.below(kinds.len() - 1)) % kinds.len();
        *cx.rng.pick(kinds[other])
    } else {
        loop {
            let to = *cx.rng.pick(units);
            if to.0 != from.0 {
                break to;
            }
        }
    };
    let value = if kind == 3 {
        let t = cx.rng.range(-40, 200).to_string();
        if v::in_split(&t, cx.split) {
            t
        } else {
            cx.number(NumberKind::Small)
        }
    } else {
        use NumberKind::*;
        cx.number_of(&[Tiny, Small, Decimal, Tiny, Small, Decimal, Huge])
    };
    (from, to, value)
}

/// `(symbol, names a user may say)`, by kind.
fn unit_names() -> &'static [&'static [UnitNames]] {
    WORDS.get("unit_names")
}

pub(super) fn convert_units(cx: &mut Cx, fail: bool) -> Follow {
    // Drawn until the result reads well: no tiny fractions (1 mg in gallons),
    // which JSON would also write in exponent form.
    let (from, to, value) = loop {
        let (from, to, value) = unit_request(cx, fail);
        let readable = match demo::convert_units(
            num(&value).as_f64().unwrap_or(0.0),
            from.0.into(),
            to.0.into(),
        ) {
            Ok(r) => r.as_f64().is_some_and(|r| r == 0.0 || r.abs() >= 0.01),
            Err(_) => fail,
        };
        if readable {
            break (from, to, value);
        }
    };
    let from_name = *cx.rng.pick(from.1);
    let to_name = *cx.rng.pick(to.1);
    cx.ask_phrase(
        p::CONVERT_UNITS,
        &[("v", &value), ("from", from_name), ("to", to_name)],
    );
    let r = cx.call_one(
        "convert_units",
        json!({"value": num(&value), "from_unit": from.0, "to_unit": to.0}),
    );
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    cx.answer_result(
        p::CONVERT_UNITS_ANSWERS,
        &[
            ("v", &value),
            ("from", from_name),
            ("to", to_name),
            ("r", &r),
        ],
        &r,
    )
}

const STATISTICS: [&str; 5] = ["mean", "median", "min", "max", "sum"];
const STATISTIC_WORDS: [&str; 5] = ["mean", "median", "minimum", "maximum", "sum"];

fn numbers_list(cx: &mut Cx) -> Vec<String> {
    let count = cx.rng.range(3, 7) as usize;
    let kind = *cx.rng.pick(&[
        NumberKind::Small,
        NumberKind::Small,
        NumberKind::Decimal,
        NumberKind::Large,
    ]);
    let numbers = (0..count).map(|_| cx.number(kind)).collect();
    if cx.practice.holds(Practice::Numbers, cx.split) {
        practice::with_repeat(&mut cx.rng, numbers)
    } else {
        numbers
    }
}

pub(super) fn statistics(cx: &mut Cx) -> Follow {
    let stat = cx.rng.below(5);
    let numbers = numbers_list(cx);
    let list = if cx.rng.chance(0.5) {
        numbers.join(", ")
    } else {
        and_list(&numbers)
    };
    let phrasings = [p::MEAN, p::MEDIAN, p::MIN, p::MAX, p::SUM][stat];
    cx.ask_composed(phrasings, &[("list", &list)], |rng, held_out| {
        practice::statistic(rng, stat, &list, held_out)
    });
    let values: Vec<Value> = numbers.iter().map(|n| num(n)).collect();
    let r = cx.call_one(
        "calculate_statistics",
        json!({"numbers": values, "statistic": STATISTICS[stat]}),
    );
    cx.answer_result(
        p::STATISTICS_ANSWERS,
        &[("stat", STATISTIC_WORDS[stat]), ("r", &r)],
        &r,
    )
}
