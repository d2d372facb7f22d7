//! Home requests: switching the lights of a room.

use super::*;

pub(super) fn lights(cx: &mut Cx, fail: bool) -> Follow {
    let room = if cx.invents() {
        v::invented_room(&mut cx.rng, cx.split)
    } else {
        (*v::pick(&mut cx.rng, v::ROOMS, cx.split)).to_owned()
    };
    let which = if fail { 2 } else { cx.rng.below(3) };
    let brightness = match (which, fail) {
        (2, true) => Some(cx.rng.range(101, 250)),
        (2, false) => Some(cx.rng.range(1, 19) * 5),
        _ => None,
    };
    let template = cx.phrase([p::LIGHTS_ON, p::LIGHTS_OFF, p::LIGHTS_DIM][which]);
    let b = brightness.map(|b| b.to_string()).unwrap_or_default();
    cx.ask(fill(template, &[("room", &room), ("b", &b)]));
    let on = which != 1;
    let mut pairs = vec![("room", json!(room)), ("on", json!(on))];
    if let Some(b) = brightness {
        pairs.push(("brightness", json!(b)));
    }
    let r = cx.call_one("set_lights", args(pairs));
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    let state = match (on, brightness) {
        (false, _) => "off".to_owned(),
        (true, None) => "on".to_owned(),
        (true, Some(b)) => format!("on at {b}%"),
    };
    cx.answer_from(
        p::LIGHTS_ANSWERS,
        &[("room", &room), ("state", &state)],
        vec![state.clone()],
    );
    Follow::Nothing
}
