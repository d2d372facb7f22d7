//! Follow-ups: another place, stock or currency, Fahrenheit, a computation
//! on the result, and an unrelated second request.

/// A follow-up about another place: `{loc}`.
pub const ANOTHER_PLACE: &[&str] = &[
    "And in {loc}?",
    "What about {loc}?",
    "How about {loc}?",
    "And {loc}?",
    "Now do {loc}.",
    "Same for {loc}, please.",
    "And what about {loc}?",
    "Can you check {loc} too?",
];

/// A follow-up asking for Fahrenheit.
pub const IN_FAHRENHEIT: &[&str] = &[
    "And in Fahrenheit?",
    "What's that in Fahrenheit?",
    "Can you give me that in Fahrenheit?",
    "How much is it in Fahrenheit?",
    "In Fahrenheit, please.",
    "Now in Fahrenheit?",
];

/// A follow-up about another stock: `{sym}`.
pub const ANOTHER_STOCK: &[&str] = &[
    "And {sym}?",
    "What about {sym}?",
    "How about {sym}?",
    "Now check {sym}.",
    "And what's {sym} at?",
    "Same for {sym}, please.",
];

/// A follow-up converting the same amount into another currency: `{to}`.
pub const ANOTHER_CURRENCY: &[&str] = &[
    "And in {to}?",
    "What about in {to}?",
    "How much is that in {to}?",
    "Now convert it to {to}.",
    "And into {to}?",
    "Same amount in {to}, please.",
];

/// A follow-up computing on the previous result: `{op}` (a verb), `{n}`.
pub const ON_THE_RESULT: &[&str] = &[
    "Now {op} that by {n}.",
    "{Op} the result by {n}.",
    "And {op} it by {n}?",
    "Then {op} that by {n}, please.",
    "OK, now {op} the answer by {n}.",
    "Can you {op} that by {n}?",
];

/// Verbs for [`ON_THE_RESULT`]: `(verb, operation)`.
pub const RESULT_VERBS: &[(&str, &str)] = &[("multiply", "multiply"), ("divide", "divide")];

/// Ways to go on with an unrelated second request.
pub const ALSO: &[&str] = &[
    "Also, ",
    "Thanks. ",
    "Great. ",
    "OK. ",
    "",
    "One more thing: ",
];
