//! Money requests: currency conversions and stock prices.

use super::*;

/// A currency as the user names it: its code, or for a few, a name.
pub(super) fn currency_name(cx: &mut Cx, code: &str) -> String {
    let names: &[&str] = match code {
        "USD" => &["dollars", "US dollars"],
        "EUR" => &["euros"],
        "JPY" => &["yen"],
        "GBP" => &["British pounds"],
        _ => &[],
    };
    if !names.is_empty() && cx.rng.chance(0.35) {
        (*cx.rng.pick(names)).to_owned()
    } else {
        code.to_owned()
    }
}

pub(super) fn two_currencies(cx: &mut Cx) -> (&'static str, &'static str) {
    let a = cx.rng.pick(v::CURRENCIES).0;
    loop {
        let b = cx.rng.pick(v::CURRENCIES).0;
        if b != a {
            return (a, b);
        }
    }
}

pub(super) fn amount(cx: &mut Cx) -> String {
    use NumberKind::*;
    cx.number_of(&[Small, Large, Decimal, Small, Large, Decimal, Huge])
}

pub(super) fn currency_call(cx: &mut Cx, amount: &str, from: &str, to: &str) -> String {
    cx.call_one(
        "convert_currency",
        json!({"amount": num(amount), "from_currency": from, "to_currency": to}),
    )
}

pub(super) fn currency_answer(cx: &mut Cx, amount: &str, from: &str, to: &str, r: &str) {
    cx.answer_from(
        p::CONVERT_CURRENCY_ANSWERS,
        &[("amt", amount), ("from", from), ("to", to), ("r", r)],
        vec![r.to_owned()],
    );
}

pub(super) fn currency(cx: &mut Cx, fail: bool) -> Follow {
    let (mut from, to) = two_currencies(cx);
    if fail {
        from = *cx.rng.pick(v::NO_CURRENCIES);
    }
    let amount = amount(cx);
    let from_said = currency_name(cx, from);
    let to_said = currency_name(cx, to);
    cx.ask_phrase(
        p::CONVERT_CURRENCY,
        &[("amt", &amount), ("from", &from_said), ("to", &to_said)],
    );
    let r = currency_call(cx, &amount, from, to);
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    currency_answer(cx, &amount, from, to, &r);
    Follow::Currency {
        amount,
        from: from.to_owned(),
        to: to.to_owned(),
    }
}

pub(super) fn stock_call(cx: &mut Cx, sym: &str) {
    let r = cx.call_one("get_stock_price", json!({ "symbol": sym }));
    if is_error(&r) {
        cx.answer_error(&r);
        return;
    }
    cx.answer_from(
        p::STOCK_ANSWERS,
        &[("sym", sym), ("p", &r)],
        vec![r.clone()],
    );
}

pub(super) fn stock(cx: &mut Cx, fail: bool) -> Follow {
    let (sym, company) = if fail {
        let sym = (*cx.rng.pick(v::NO_STOCKS)).to_owned();
        (sym.clone(), sym)
    } else {
        cx.stock()
    };
    let mut template = cx.phrase(p::STOCK);
    if fail {
        // A made-up symbol has no company to name.
        while template.contains("{company}") {
            template = cx.phrase(p::STOCK);
        }
    }
    cx.ask(fill(template, &[("sym", &sym), ("company", &company)]));
    stock_call(cx, &sym);
    if fail {
        Follow::Nothing
    } else {
        Follow::Stock
    }
}
