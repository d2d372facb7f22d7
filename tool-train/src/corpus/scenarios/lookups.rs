//! Lookup requests: web searches and translations.

use super::*;

pub(super) fn search(cx: &mut Cx, fail: bool) -> Follow {
    let q = cx.text(v::QUERIES);
    let count = if fail {
        Some(cx.rng.range(6, 20))
    } else if cx.rng.chance(0.3) {
        Some(cx.rng.range(1, 5))
    } else {
        None
    };
    let r = match count {
        Some(n) => {
            cx.ask_phrase(p::SEARCH_COUNT, &[("q", &q), ("n", &n.to_string())]);
            cx.call_one("search_web", json!({"query": q, "max_results": n}))
        }
        None => {
            cx.ask_phrase(p::SEARCH, &[("q", &q)]);
            cx.call_one("search_web", json!({ "query": q }))
        }
    };
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    let titles: Vec<String> = serde_json::from_str(&r).unwrap_or_default();
    cx.answer_from(
        p::SEARCH_ANSWERS,
        &[("q", &q), ("list", &titles.join("; "))],
        titles,
    );
    Follow::Nothing
}

pub(super) fn phrase_to_translate(cx: &mut Cx) -> String {
    if cx.invents() {
        let text = v::capitalized(&v::invented_text(&mut cx.rng, cx.split, 1, 4));
        if cx.practice.holds(Practice::Wide, cx.split) {
            return practice::punctuated(&mut cx.rng, text);
        }
        return text;
    }
    (v::pick(&mut cx.rng, v::PHRASES, cx.split).0).to_owned()
}

pub(super) fn translate(cx: &mut Cx, fail: bool) -> Follow {
    let text = if fail {
        (*cx.rng.pick(v::UNKNOWN_PHRASES)).to_owned()
    } else {
        phrase_to_translate(cx)
    };
    let lang = *cx.rng.pick(v::LANGUAGES);
    let slots = [("text", text.as_str()), ("lang", lang)];
    if cx.practice.holds(Practice::Fields, cx.split) && practice::wants_composed_fields(&mut cx.rng)
    {
        let held_out = held_out_phrasing(p::TRANSLATE, &slots);
        let request = practice::language_first(&mut cx.rng, &text, lang, held_out);
        cx.ask(request);
    } else {
        cx.ask_phrase(p::TRANSLATE, &slots);
    }
    let r = cx.call_one(
        "translate_text",
        json!({"text": text, "target_language": lang}),
    );
    if cx.answered_error(&r) {
        return Follow::Nothing;
    }
    cx.answer_from(
        p::TRANSLATE_ANSWERS,
        &[("text", &text), ("lang", lang), ("r", &r)],
        vec![r.clone()],
    );
    Follow::Nothing
}
