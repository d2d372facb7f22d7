//! Time requests: the time now in a place.

use super::*;

pub(super) fn time_answer(cx: &mut Cx, place: Option<&str>, r: &str) {
    match place {
        None => {
            cx.answer_from(p::TIME_HERE_ANSWERS, &[("r", r)], vec![r.to_owned()]);
        }
        Some(place) => {
            cx.answer_from(
                p::TIME_AT_ANSWERS,
                &[("place", place), ("r", r)],
                vec![r.to_owned()],
            );
        }
    }
}

pub(super) fn time(cx: &mut Cx, fail: bool) -> Follow {
    let place = if fail {
        Some((*cx.rng.pick(v::NOWHERE)).to_owned())
    } else if cx.rng.chance(0.25) {
        None
    } else {
        Some(cx.time_place())
    };
    let r = match &place {
        None => {
            let template = cx.phrase(p::TIME_HERE);
            cx.ask(template.to_owned());
            cx.call_one("get_current_time", json!({}))
        }
        Some(place) => {
            cx.ask_phrase(p::TIME_AT, &[("place", place)]);
            cx.call_one("get_current_time", json!({ "timezone": place }))
        }
    };
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    time_answer(cx, place.as_deref(), &r);
    Follow::Time
}
