//! Agenda requests: calendar events, reminders and e-mails, with the
//! people they name.

use super::*;

fn names(cx: &mut Cx, count: usize) -> Vec<String> {
    if cx.invents() {
        let mut names: Vec<String> = Vec::with_capacity(count);
        while names.len() < count {
            let name = v::invented_name(&mut cx.rng, cx.split);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        return names;
    }
    v::pick_distinct(&mut cx.rng, v::FIRST_NAMES, cx.split, count)
        .into_iter()
        .map(|s| (*s).to_owned())
        .collect()
}

pub(super) fn calendar(cx: &mut Cx, fail: bool) -> Follow {
    let title = if cx.invents() {
        v::capitalized(&v::invented_text(&mut cx.rng, cx.split, 1, 3))
    } else {
        (*v::pick(&mut cx.rng, v::EVENT_TITLES, cx.split)).to_owned()
    };
    let date = if fail {
        // A day the month does not have, or a month that does not exist.
        v::draw(&mut cx.rng, cx.split, |rng| {
            let year = rng.range(2025, 2027);
            let (m, d) = *rng.pick(&[
                (2, 30),
                (2, 31),
                (4, 31),
                (6, 31),
                (9, 31),
                (11, 31),
                (13, 1),
                (0, 10),
            ]);
            format!("{year}-{m:02}-{d:02}")
        })
    } else {
        v::date(&mut cx.rng, cx.split)
    };
    let time = v::time_of_day(&mut cx.rng);
    let duration = cx
        .rng
        .chance(0.35)
        .then(|| (*cx.rng.pick(&[15, 30, 45, 90, 120, 150, 180])).to_string());
    let people = if cx.rng.chance(0.35) {
        let n = cx.rng.range(1, 3) as usize;
        names(cx, n)
    } else {
        Vec::new()
    };
    let mut extra = String::new();
    if let Some(d) = &duration {
        extra.push_str(&format!(" for {d} minutes"));
    }
    if !people.is_empty() {
        extra.push_str(&format!(" with {}", and_list(&people)));
    }
    cx.ask_phrase(
        p::CALENDAR,
        &[
            ("title", &title),
            ("date", &date),
            ("time", &time),
            ("extra", &extra),
        ],
    );
    let mut pairs = vec![
        ("title", json!(title)),
        ("date", json!(date)),
        ("time", json!(time)),
    ];
    if let Some(d) = &duration {
        pairs.push(("duration_minutes", num(d)));
    }
    if !people.is_empty() {
        pairs.push(("attendees", json!(people)));
    }
    let r = cx.call_one("create_calendar_event", args(pairs));
    let Some(result) = cx.result_object(&r) else {
        return Follow::Nothing;
    };
    let start = text_at(&result, "start");
    let end = text_at(&result, "end");
    let invited = if people.is_empty() {
        String::new()
    } else {
        format!(" I invited {}.", and_list(&people))
    };
    cx.answer_from(
        p::CALENDAR_ANSWERS,
        &[
            ("title", &title),
            ("start", &start),
            ("end", &end),
            ("invited", &invited),
        ],
        vec![start.clone(), end.clone()],
    );
    Follow::Nothing
}

pub(super) fn reminder(cx: &mut Cx, fail: bool) -> Follow {
    let task = cx.text(v::REMINDERS);
    let n = if fail {
        cx.rng.range(10_081, 99_999).to_string()
    } else {
        let kind = *cx
            .rng
            .pick(&[NumberKind::Small, NumberKind::Small, NumberKind::Large]);
        let n = cx.number(kind);
        n.parse::<u32>()
            .map_or(n.clone(), |x| (x.clamp(2, 10_080)).to_string())
    };
    cx.ask_phrase(p::REMINDER, &[("task", &task), ("n", &n)]);
    let r = cx.call_one(
        "set_reminder",
        json!({"text": task, "minutes_from_now": num(&n)}),
    );
    let Some(result) = cx.result_object(&r) else {
        return Follow::Nothing;
    };
    let due = text_at(&result, "due");
    cx.answer_from(
        p::REMINDER_ANSWERS,
        &[("task", &task), ("due", &due)],
        vec![due.clone()],
    );
    Follow::Nothing
}

pub(super) fn email(cx: &mut Cx, fail: bool) -> Follow {
    let address = |cx: &mut Cx| {
        if cx.invents() {
            v::invented_email(&mut cx.rng, cx.split)
        } else {
            v::email(&mut cx.rng, cx.split)
        }
    };
    let to = if fail {
        // No @: not an address.
        address(cx).replacen('@', ".", 1)
    } else {
        address(cx)
    };
    let (subject, body) = if cx.invents() {
        let subject = v::capitalized(&v::invented_text(&mut cx.rng, cx.split, 1, 3));
        let mut body = v::capitalized(&v::invented_text(&mut cx.rng, cx.split, 4, 9));
        if cx.practice.holds(Practice::Wide, cx.split) {
            body = practice::punctuated(&mut cx.rng, body);
        }
        if !body.ends_with(['.', '!', '?']) {
            body.push('.');
        }
        (subject, body)
    } else {
        let (subject, body) = *v::pick(&mut cx.rng, v::EMAILS, cx.split);
        (subject.to_owned(), body.to_owned())
    };
    let (subject, body) = (subject.as_str(), body.as_str());
    let cc = if cx.rng.chance(0.25) {
        Some(address(cx))
    } else {
        None
    };
    let urgent = cx.rng.chance(0.25);
    let mut extra = String::new();
    if let Some(cc) = &cc {
        extra.push_str(&format!(", and cc {cc}"));
    }
    // The body's own full stop ends the request unless something follows it.
    if cc.is_some() || !body.ends_with(['.', '!', '?']) {
        extra.push('.');
    }
    if urgent {
        extra.push_str(cx.rng.choose(&[
            " Mark it as urgent.",
            " It's urgent.",
            " Flag it as urgent.",
        ]));
    }
    let slots = [
        ("to", to.as_str()),
        ("subject", subject),
        ("body", body),
        ("extra", &extra),
    ];
    let address_first = if cx.practice.holds(Practice::Wide, cx.split) {
        practice::email_phrasing(&mut cx.rng)
    } else {
        None
    };
    match address_first {
        Some(template) => cx.ask(fill(template, &slots)),
        None if cx.practice.holds(Practice::Fields, cx.split)
            && practice::wants_composed_fields(&mut cx.rng) =>
        {
            let held_out = held_out_phrasing(p::EMAIL, &slots);
            let request = practice::email(&mut cx.rng, [&to, subject, body, &extra], held_out);
            cx.ask(request);
        }
        None => cx.ask_phrase(p::EMAIL, &slots),
    }
    let mut pairs = vec![
        ("to", json!(to)),
        ("subject", json!(subject)),
        ("body", json!(body)),
    ];
    if let Some(cc) = &cc {
        pairs.push(("cc", json!([cc])));
    }
    if urgent {
        pairs.push(("urgent", json!(true)));
    }
    let r = cx.call_one("send_email", args(pairs));
    let Some(result) = cx.result_object(&r) else {
        return Follow::Nothing;
    };
    let id = text_at(&result, "message_id");
    cx.answer_from(
        p::EMAIL_ANSWERS,
        &[("to", &to), ("subject", subject), ("id", &id)],
        vec![id.clone()],
    );
    Follow::Nothing
}
