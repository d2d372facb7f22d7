//! Conversions: units and currencies, and currency totals.

/// Unit conversions: `{v}`, `{from}`, `{to}` (unit names as the user says them).
pub const CONVERT_UNITS: &[&str] = &[
    "Convert {v} {from} to {to}.",
    "How many {to} is {v} {from}?",
    "What is {v} {from} in {to}?",
    "{v} {from} in {to}?",
    "How much is {v} {from} in {to}?",
    "Can you convert {v} {from} into {to}?",
    "I have {v} {from}. How many {to} is that?",
    "What's {v} {from} in {to}?",
    "Please convert {v} {from} to {to}.",
    "Turn {v} {from} into {to}.",
    "What does {v} {from} come to in {to}?",
    "Express {v} {from} in {to}.",
];

/// Answers: `{v}`, `{from}`, `{to}`, `{r}`.
pub const CONVERT_UNITS_ANSWERS: &[&str] = &[
    "{v} {from} is {r} {to}.",
    "That's {r} {to}.",
    "{v} {from} equals {r} {to}.",
];

/// Currency conversions: `{amt}`, `{from}`, `{to}` (codes or names).
pub const CONVERT_CURRENCY: &[&str] = &[
    "Convert {amt} {from} to {to}.",
    "How much is {amt} {from} in {to}?",
    "What's {amt} {from} in {to}?",
    "I have {amt} {from}. How many {to} is that?",
    "Exchange {amt} {from} to {to}.",
    "How many {to} do I get for {amt} {from}?",
    "{amt} {from} to {to}?",
    "What is {amt} {from} worth in {to}?",
    "Can you convert {amt} {from} into {to}?",
    "Change {amt} {from} into {to}, please.",
];

/// Answers: `{amt}`, `{from}`, `{to}` (codes), `{r}`.
pub const CONVERT_CURRENCY_ANSWERS: &[&str] = &[
    "{amt} {from} is {r} {to}.",
    "That's {r} {to}.",
    "{amt} {from} equals {r} {to}.",
];

/// Two amounts in two currencies, totalled: `{x}`, `{c1}`, `{y}`, `{c2}`.
pub const CURRENCY_TOTAL: &[&str] = &[
    "I have {x} {c1} and {y} {c2}. How much is that in {c2} in total?",
    "What's {x} {c1} plus {y} {c2}, in {c2}?",
    "Add {x} {c1} to {y} {c2} and give me the total in {c2}.",
    "If I have {y} {c2} and get {x} {c1}, how many {c2} do I have in total?",
    "Total of {x} {c1} and {y} {c2} in {c2}?",
    "How much do {x} {c1} and {y} {c2} make together, in {c2}?",
    "Combine {x} {c1} and {y} {c2}: what's the total in {c2}?",
    "I've got {x} {c1} and {y} {c2}. What's my total in {c2}?",
];

/// Answers: `{x}`, `{c1}`, `{r1}`, `{y}`, `{c2}`, `{r}`.
pub const CURRENCY_TOTAL_ANSWERS: &[&str] = &[
    "{x} {c1} is {r1} {c2}, so you have {r} {c2} in total.",
    "That's {r} {c2} in total ({x} {c1} is {r1} {c2}).",
];
