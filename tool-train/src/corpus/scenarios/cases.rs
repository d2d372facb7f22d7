//! The extended held-out split: conversations that each test one thing the
//! ordinary mix holds too rarely or not at all, with texts no training
//! conversation uses (see [`Case`]).
//!
//! Everything here is reached only from [`case_example`] or behind
//! `Cx::case`, so the training corpus does not change with it.

use super::*;

/// Greetings none of the training pools has.
const GREETINGS: &[(&str, &str)] = &[
    ("Hey hey!", "Hi! What can I do for you?"),
    ("Good day to you", "Good day! How can I help?"),
    ("Hi assistant", "Hello! How can I help you today?"),
    (
        "Hello, anybody home?",
        "Hi! I'm here. What can I do for you?",
    ),
    (
        "Morning, how are things?",
        "Good morning! All good. How can I help?",
    ),
    ("Evening!", "Good evening! What can I do for you?"),
];

/// Questions about the assistant itself.
const ABOUT_ASSISTANT: &[(&str, &str)] = &[
    (
        "Are you human?",
        "No, I'm an AI assistant. I can use tools to help you.",
    ),
    (
        "What are you?",
        "I'm an AI assistant that can call tools. How can I help?",
    ),
    (
        "Do you have a name?",
        "I'm your assistant. What can I do for you?",
    ),
    (
        "How old are you?",
        "I'm an AI assistant, so I have no age. How can I help?",
    ),
    (
        "Are you an AI?",
        "Yes, I'm an AI assistant. What can I do for you?",
    ),
    (
        "Who built you?",
        "I'm an AI assistant built to use tools. How can I help?",
    ),
];

/// Writing requests no tool does.
const CREATIVE: &[(&str, &str)] = &[
    ("Write a sonnet about the moon.", "write poems"),
    ("Compose a short poem about my dog.", "write poems"),
    ("Write a fairy tale about a brave mouse.", "tell stories"),
    ("Make up a joke about penguins.", "tell jokes"),
    ("Write lyrics for a song about friendship.", "write songs"),
    ("Write a two-line rhyme about coffee.", "write poems"),
];

/// Thanks and goodbyes after an answer.
const THANKS_AND_BYE: &[(&str, &str)] = &[
    ("Brilliant, thanks!", "You're welcome!"),
    ("Much appreciated", "Any time!"),
    ("Thanks, catch you later", "See you! Have a good one."),
    (
        "Super, that's everything. Bye!",
        "Goodbye! Have a great day.",
    ),
    ("Lovely, thank you kindly", "You're welcome!"),
    ("Got it, thanks a bunch", "Glad I could help!"),
];

/// Requests no tool covers that name places, times and numbers, as the
/// requests tools answer do.
const NO_TOOL_FOR_IT: &[(&str, &str)] = &[
    ("Book a double room in Prague for 2 nights.", "book hotels"),
    (
        "What's the population of Chicago?",
        "look up population figures",
    ),
    (
        "Find a sushi place near Sydney harbour.",
        "recommend restaurants",
    ),
    ("Wake me up at 6:45 tomorrow.", "set alarms"),
    (
        "Who painted the Mona Lisa?",
        "answer general knowledge questions",
    ),
    ("Rent a car in Dublin for 3 days.", "rent cars"),
];

/// Fahrenheit and Celsius as requests name them, beyond training's phrasings.
const FAHRENHEIT: &[&str] = &[" in F", " in fahrenheit", ", Fahrenheit please", " (°F)"];
const CELSIUS: &[&str] = &[" in C", " in celsius", ", Celsius please", " (°C)"];

/// Conversions that name the target first, and their reverse.
const CONVERT_TO_FIRST: &[&str] = &[
    "How many {to} make {v} {from}?",
    "In {to}, what is {v} {from}?",
    "Give me {v} {from} in {to}.",
];
const CONVERT_BACK: &[&str] = &[
    "And {v} {from} in {to}?",
    "Now the other way: {v} {from} to {to}.",
    "What about {v} {from} in {to}?",
];
const CURRENCY_TO_FIRST: &[&str] = &[
    "How many {to} do {amt} {from} buy?",
    "In {to}, how much is {amt} {from}?",
];

/// Terse, lower-case requests, by the phrasing list they stand in for.
const TERSE: &[(&[&str], &[&str])] = &[
    (
        p::TEMPERATURE,
        &[
            "temp in {loc}{unit}?",
            "{loc} temperature{unit}",
            "how hot {loc}{unit}",
        ],
    ),
    (
        p::WIND,
        &["wind in {loc}?", "{loc} wind speed", "how windy {loc}"],
    ),
    (
        p::TIME_AT,
        &["time in {place}?", "{place} time now", "clock in {place}?"],
    ),
    (p::ADD, &["{a}+{b}", "{a} plus {b}=", "add {a} {b}"]),
    (
        p::SUBTRACT,
        &["{a}-{b}", "{a} minus {b}=", "{a} take away {b}"],
    ),
    (
        p::CONVERT_UNITS,
        &[
            "{v} {from} to {to}",
            "{v}{from} in {to}",
            "{v} {from} -> {to}",
        ],
    ),
    (
        p::CONVERT_CURRENCY,
        &["{amt} {from} to {to}", "{amt} {from} -> {to}"],
    ),
    (p::STOCK, &["{sym} price", "{sym}?", "quote {sym}"]),
    (
        p::DISTANCE,
        &[
            "{o} to {d} distance{unit}",
            "dist {o} {d}{unit}",
            "{o} -> {d} how far{unit}",
        ],
    ),
];

/// Intents the terse case asks, one per phrasing list of [`TERSE`].
const TERSE_INTENTS: &[Intent] = &[
    Temperature,
    Wind,
    Time,
    Calculate,
    ConvertUnits,
    Currency,
    Stock,
    Distance,
];

/// Whether `text` is, in other case or marks, a greeting, question or
/// thanks the held-out split asks: composed practice never writes one.
pub(super) fn is_held_out_small_talk(text: &str) -> bool {
    let cases = GREETINGS
        .iter()
        .chain(ABOUT_ASSISTANT)
        .chain(THANKS_AND_BYE);
    let pools = v::part(v::THANKS, Split::HeldOut).chain(v::part(v::SMALL_TALK, Split::HeldOut));
    cases
        .chain(pools)
        .any(|(held_out, _)| practice::same_words(held_out, text))
}

/// Whether `text` is, in other case or marks, a held-out request no tool
/// covers: a writing request of the extension, one of its requests that
/// name places and numbers, or one of the pool's held-out part.
pub(super) fn is_held_out_request(text: &str) -> bool {
    CREATIVE
        .iter()
        .chain(NO_TOOL_FOR_IT)
        .chain(v::part(v::OUT_OF_SCOPE, Split::HeldOut))
        .any(|(held_out, _)| practice::same_words(held_out, text))
}

/// The held-out phrasings standing in for `list` in the terse case.
pub(super) fn terse(list: &[&'static str]) -> Option<&'static [&'static str]> {
    TERSE.iter().find(|(of, _)| *of == list).map(|(_, t)| *t)
}

/// How the unit-named case names a temperature unit.
pub(super) fn unit_named(cx: &mut Cx) -> (&'static str, &'static str) {
    if cx.rng.chance(0.5) {
        ("fahrenheit", *cx.rng.pick(FAHRENHEIT))
    } else {
        ("celsius", *cx.rng.pick(CELSIUS))
    }
}

/// A conversation of `case`: held-out values, and the texts above.
pub(crate) fn case_example(mut rng: Rng, case: Case, all: &[String]) -> Example {
    let clock = Clock::Fixed(DateTime::from_unix(
        1_735_689_600 + rng.range(0, 3 * 365 * 86_400 - 1),
    ));
    let toolbox = crate::corpus::tools::toolbox(clock);
    let split = Split::HeldOut;
    let mut cx = Cx::new(
        Rng::for_example(rng.next_u64(), 0),
        split,
        &toolbox,
        Practice::Standard,
    );
    cx.case = Some(case);
    let words = |cx: &mut Cx, pool: &[(&str, &str)]| {
        let (text, reply) = *cx.rng.pick(pool);
        cx.user(text.to_owned());
        cx.answer(reply.to_owned(), Vec::new());
    };
    let (scenario, offered) = match case {
        Case::Greeting | Case::AboutAssistant => {
            let pool = if case == Case::Greeting {
                GREETINGS
            } else {
                ABOUT_ASSISTANT
            };
            words(&mut cx, pool);
            (Scenario::SmallTalk, offer(&mut rng, &[], &[], all))
        }
        Case::CreativeWriting | Case::NoToolForIt => {
            let pool = if case == Case::CreativeWriting {
                CREATIVE
            } else {
                NO_TOOL_FOR_IT
            };
            let (request, task) = *cx.rng.pick(pool);
            cx.user(request.to_owned());
            cx.answer_from(p::CANNOT_ANSWERS, &[("task", task)], Vec::new());
            (Scenario::OutOfScope, offer(&mut rng, &[], &[], all))
        }
        Case::ThanksAndBye => {
            let intent = weighted(&mut rng, SINGLE);
            run(&mut cx, intent, false);
            words(&mut cx, THANKS_AND_BYE);
            (
                Scenario::FollowUp,
                offer(&mut rng, intent.tools(), &[], all),
            )
        }
        Case::UnitNamed => {
            temperature(&mut cx);
            (
                Scenario::Single,
                offer(&mut rng, Temperature.tools(), &[], all),
            )
        }
        Case::ManyDigits => {
            let intent = *cx.rng.pick(&[Calculate, Currency, ConvertUnits]);
            run(&mut cx, intent, false);
            (Scenario::Single, offer(&mut rng, intent.tools(), &[], all))
        }
        Case::BothDirections => {
            let intent = if cx.rng.chance(0.5) {
                both_unit_directions(&mut cx);
                ConvertUnits
            } else {
                both_currency_directions(&mut cx);
                Currency
            };
            (
                Scenario::FollowUp,
                offer(&mut rng, intent.tools(), &[], all),
            )
        }
        Case::Terse => {
            let intent = *cx.rng.pick(TERSE_INTENTS);
            run(&mut cx, intent, false);
            (Scenario::Single, offer(&mut rng, intent.tools(), &[], all))
        }
    };
    cx.into_example(&offered, scenario)
}

/// A conversion asked target first, then the same units the other way.
fn both_unit_directions(cx: &mut Cx) {
    let (from, to, value) = loop {
        let (from, to, value) = unit_request(cx, false);
        let back = cx.number(NumberKind::Small);
        let reads = |v: &str, a: &str, b: &str| {
            demo::convert_units(num(v).as_f64().unwrap_or(0.0), a.into(), b.into())
                .ok()
                .and_then(|r| r.as_f64())
                .is_some_and(|r| r == 0.0 || r.abs() >= 0.01)
        };
        if reads(&value, from.0, to.0) && reads(&back, to.0, from.0) {
            break (from, to, value);
        }
    };
    let ask = |cx: &mut Cx, list: &[&'static str], v: &str, a: UnitNames, b: UnitNames| {
        let (a_said, b_said) = (*cx.rng.pick(a.1), *cx.rng.pick(b.1));
        cx.ask_phrase(list, &[("v", v), ("from", a_said), ("to", b_said)]);
        let r = cx.call_one(
            "convert_units",
            json!({"value": num(v), "from_unit": a.0, "to_unit": b.0}),
        );
        cx.answer_from(
            p::CONVERT_UNITS_ANSWERS,
            &[("v", v), ("from", a_said), ("to", b_said), ("r", &r)],
            vec![r.clone()],
        );
    };
    ask(cx, CONVERT_TO_FIRST, &value, from, to);
    let back = loop {
        let back = cx.number(NumberKind::Small);
        if back != value {
            break back;
        }
    };
    ask(cx, CONVERT_BACK, &back, to, from);
}

/// A currency conversion asked target first, then the other way.
fn both_currency_directions(cx: &mut Cx) {
    let (from, to) = two_currencies(cx);
    let ask = |cx: &mut Cx, list: &[&'static str], a: &str, b: &str| {
        let amount = amount(cx);
        let (a_said, b_said) = (currency_name(cx, a), currency_name(cx, b));
        cx.ask_phrase(
            list,
            &[("amt", &amount), ("from", &a_said), ("to", &b_said)],
        );
        let r = currency_call(cx, &amount, a, b);
        currency_answer(cx, &amount, &a_said, &b_said, &r);
    };
    ask(cx, CURRENCY_TO_FIRST, from, to);
    ask(
        cx,
        &[
            "And {amt} {from} in {to}?",
            "Now {amt} {from} back to {to}.",
        ],
        to,
        from,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_terse_list_stands_in_for_an_intent_the_case_asks() {
        // Calculate has two lists (sums, differences).
        assert_eq!(TERSE.len(), TERSE_INTENTS.len() + 1);
        for (list, _) in TERSE {
            assert!(terse(list).is_some());
        }
        assert!(terse(p::SEARCH).is_none());
    }
}
