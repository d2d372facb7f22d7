//! Lookups: web searches, stock prices and translations.

/// Web searches: `{q}`.
pub const SEARCH: &[&str] = &[
    "Search the web for {q}.",
    "Look up {q}.",
    "Can you search for {q}?",
    "Find me information about {q}.",
    "Search online for {q}.",
    "I want to know about {q}. Can you search?",
    "Do a web search on {q}.",
    "Google {q} for me.",
    "What can you find about {q}?",
    "Search: {q}",
    "Please look up {q} on the web.",
    "Find some pages about {q}.",
];

/// Web searches with a count: `{q}`, `{n}`.
pub const SEARCH_COUNT: &[&str] = &[
    "Find {n} results about {q}.",
    "Search for {q} and show me {n} results.",
    "Give me {n} search results for {q}.",
    "Look up {q}, top {n} results.",
    "Search the web for {q}, {n} results please.",
    "I need {n} links about {q}.",
];

/// Answers: `{q}`, `{list}` (titles joined with "; ").
pub const SEARCH_ANSWERS: &[&str] = &[
    "Here's what I found for \"{q}\": {list}.",
    "Top results for \"{q}\": {list}.",
];

/// Stock prices: `{sym}`, `{company}`.
pub const STOCK: &[&str] = &[
    "What's the stock price of {sym}?",
    "How much is {sym} trading at?",
    "Check the price of {sym} stock.",
    "What is {company} ({sym}) trading at right now?",
    "Get me the latest {sym} share price.",
    "What's {sym} at today?",
    "Price of {sym}?",
    "How much does one share of {sym} cost?",
    "Look up the {company} stock price ({sym}).",
    "What's the current price of {sym}?",
    "Can you check {sym} for me?",
    "Where is {sym} trading now?",
];

/// Answers: `{sym}`, `{p}`.
pub const STOCK_ANSWERS: &[&str] = &[
    "{sym} is trading at ${p}.",
    "The latest price of {sym} is ${p}.",
    "One share of {sym} costs ${p} right now.",
];

/// Two stock prices: `{a}`, `{b}`.
pub const TWO_STOCKS: &[&str] = &[
    "What are the stock prices of {a} and {b}?",
    "Compare {a} and {b} share prices.",
    "How much are {a} and {b} trading at?",
    "Check the prices of {a} and {b}.",
    "Get me the latest prices for {a} and {b}.",
    "Prices of {a} and {b}?",
    "What's {a} at, and what about {b}?",
    "Look up {a} and {b} for me.",
];

/// Answers: `{a}`, `{pa}`, `{b}`, `{pb}`.
pub const TWO_STOCKS_ANSWERS: &[&str] = &[
    "{a} is trading at ${pa} and {b} at ${pb}.",
    "{a}: ${pa}. {b}: ${pb}.",
];

/// The value of some shares (a chain through `calculate`): `{n}`, `{sym}`.
pub const SHARES_VALUE: &[&str] = &[
    "How much are {n} shares of {sym} worth?",
    "What's the value of {n} {sym} shares?",
    "I own {n} shares of {sym}. What are they worth?",
    "What would {n} shares of {sym} cost?",
    "How much money is {n} shares of {sym}?",
    "Calculate the value of {n} shares of {sym}.",
    "If I buy {n} shares of {sym}, how much do I pay?",
    "Value of {n} {sym} shares?",
];

/// Answers: `{n}`, `{sym}`, `{p}`, `{r}`.
pub const SHARES_VALUE_ANSWERS: &[&str] = &[
    "{n} shares of {sym} are worth ${r} (${p} each).",
    "At ${p} per share, {n} shares of {sym} are worth ${r}.",
];

/// Translations: `{text}`, `{lang}`.
pub const TRANSLATE: &[&str] = &[
    "How do you say \"{text}\" in {lang}?",
    "Translate \"{text}\" into {lang}.",
    "What's \"{text}\" in {lang}?",
    "Can you translate \"{text}\" to {lang}?",
    "Translate to {lang}: \"{text}\"",
    "How would I say \"{text}\" in {lang}?",
    "What is the {lang} for \"{text}\"?",
    "Please translate \"{text}\" into {lang}.",
    "\"{text}\" in {lang}?",
    "I need \"{text}\" in {lang}.",
];

/// Answers: `{text}`, `{lang}`, `{r}`.
pub const TRANSLATE_ANSWERS: &[&str] = &[
    "\"{text}\" in {lang} is \"{r}\".",
    "In {lang}, you say \"{r}\".",
    "The {lang} translation is \"{r}\".",
];

/// One phrase into two languages: `{text}`, `{a}`, `{b}`.
pub const TRANSLATE_TWO: &[&str] = &[
    "How do you say \"{text}\" in {a} and in {b}?",
    "Translate \"{text}\" into {a} and {b}.",
    "What's \"{text}\" in {a} and {b}?",
    "Can you translate \"{text}\" to both {a} and {b}?",
    "I need \"{text}\" in {a} and in {b}.",
    "Give me \"{text}\" in {a}, and also in {b}.",
];

/// Answers: `{text}`, `{a}`, `{ra}`, `{b}`, `{rb}`.
pub const TRANSLATE_TWO_ANSWERS: &[&str] = &[
    "\"{text}\" is \"{ra}\" in {a} and \"{rb}\" in {b}.",
    "In {a}: \"{ra}\". In {b}: \"{rb}\".",
];
