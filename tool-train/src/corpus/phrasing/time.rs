//! Time: here, at a place, at two places, and with the temperature.

/// Time requests without a place.
pub const TIME_HERE: &[&str] = &[
    "What time is it?",
    "What's the time?",
    "Tell me the current time.",
    "What time is it right now?",
    "Do you know what time it is?",
    "Current time, please.",
    "What's the date and time?",
    "Can you tell me the time?",
    "What's the time now?",
    "Could you check the time for me?",
];

/// Time requests for `{place}`.
pub const TIME_AT: &[&str] = &[
    "What time is it in {place}?",
    "What's the time in {place}?",
    "What's the current time in {place}?",
    "Tell me the time in {place}.",
    "What time is it now in {place}?",
    "Do you know the time in {place}?",
    "I need to call someone in {place}. What time is it there?",
    "Current time in {place}?",
    "What's the local time in {place}?",
    "Is it late in {place} right now?",
    "Can you check what time it is in {place}?",
    "What's the date and time in {place}?",
    "Time in {place}, please.",
    "How late is it in {place}?",
    "Could you tell me the current time in {place}?",
];

/// Answers without a place: `{r}`.
pub const TIME_HERE_ANSWERS: &[&str] = &[
    "It's {r}.",
    "The current time is {r}.",
    "Right now it is {r}.",
];

/// Answers for a place: `{place}`, `{r}`.
pub const TIME_AT_ANSWERS: &[&str] = &[
    "In {place} it is {r}.",
    "The current time in {place} is {r}.",
    "It's {r} in {place}.",
];

/// Time in two places: `{a}`, `{b}`.
pub const TWO_TIMES: &[&str] = &[
    "What time is it in {a} and in {b}?",
    "What's the time in {a} and {b}?",
    "Tell me the current time in {a} and {b}.",
    "Compare the local time in {a} and {b}.",
    "What time is it now in {a}, and in {b}?",
    "I have friends in {a} and {b}. What time is it for them?",
    "Current time in {a} and {b}?",
    "Check the time in both {a} and {b}.",
];

/// Answers: `{a}`, `{ra}`, `{b}`, `{rb}`.
pub const TWO_TIMES_ANSWERS: &[&str] = &[
    "In {a} it is {ra}, and in {b} it is {rb}.",
    "It's {ra} in {a} and {rb} in {b}.",
];

/// Time and temperature at one place: `{place}`.
pub const TIME_AND_TEMPERATURE: &[&str] = &[
    "What's the time and the temperature in {place}?",
    "Tell me the local time and temperature in {place}.",
    "What time is it in {place}, and how warm is it?",
    "Time and temperature for {place}?",
    "How late is it in {place} and what's the temperature?",
    "I'm calling {place}. What time is it and how hot is it there?",
    "Check the time and the temperature in {place}.",
    "Give me the current time and temperature in {place}.",
];

/// Answers: `{place}`, `{r}`, `{t}`.
pub const TIME_AND_TEMPERATURE_ANSWERS: &[&str] = &[
    "In {place} it is {r}, and the temperature is {t} °C.",
    "It's {r} in {place} and {t} °C.",
];
