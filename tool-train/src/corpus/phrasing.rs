//! How users ask for things, and how the assistant answers.
//!
//! Requests vary a lot (one in five phrasings of each list is held out, by
//! position, for the held-out split); answers do not: a handful of
//! templates per kind, each quoting the tool's result, so that a small model
//! can learn them. Slots are written `{name}` and filled by [`fill`].

/// `template` with each `{key}` replaced by its value.
pub fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (key, value) in slots {
        out = out.replace(&format!("{{{key}}}"), value);
    }
    out
}

/// Openings some requests get (with the request's first letter lowercased).
pub const OPENINGS: &[&str] = &[
    "Hey, ",
    "Hi! ",
    "Quick question: ",
    "Please tell me: ",
    "Hello, ",
    "Could you help? ",
    "Hey there, ",
    "Hi, ",
    "Excuse me, ",
    "One thing: ",
];

// ---------------------------------------------------------------- weather

/// Temperature requests; `{unit}` is empty or ` in Fahrenheit` and the like.
pub const TEMPERATURE: &[&str] = &[
    "What's the temperature in {loc}{unit}?",
    "Hey, what's the temperature in {loc} right now{unit}?",
    "How hot is it in {loc}{unit}?",
    "Tell me the current temperature in {loc}{unit}.",
    "What is the current temperature in {loc}{unit}?",
    "How warm is it in {loc} today{unit}?",
    "Can you check the temperature in {loc}{unit}?",
    "I'm heading to {loc}. What's the temperature there{unit}?",
    "Give me the temperature for {loc}{unit}.",
    "How many degrees is it in {loc}{unit}?",
    "Is it cold in {loc} right now{unit}?",
    "Temperature in {loc}{unit}?",
    "Could you look up how hot it is in {loc}{unit}?",
    "What's it like in {loc} temperature-wise{unit}?",
    "Check how warm it is in {loc} at the moment{unit}.",
    "What temperature is it in {loc}{unit}?",
    "Do you know the temperature in {loc}{unit}?",
    "I'd like to know the current temperature in {loc}{unit}.",
    "How cold is it in {loc}{unit}?",
    "Find out the temperature in {loc}{unit}, please.",
];

/// How a request names Celsius (the first, empty, leaves it unsaid).
pub const CELSIUS: &[&str] = &["", "", "", " in Celsius", " in °C", " in degrees Celsius"];
/// How a request names Fahrenheit.
pub const FAHRENHEIT: &[&str] = &[" in Fahrenheit", " in °F", " in degrees Fahrenheit"];

/// Answers about a temperature: `{loc}`, `{t}`, `{sym}` (°C or °F).
pub const TEMPERATURE_ANSWERS: &[&str] = &[
    "The current temperature in {loc} is {t} {sym}.",
    "It's {t} {sym} in {loc} right now.",
    "Right now it is {t} {sym} in {loc}.",
];

/// Wind requests.
pub const WIND: &[&str] = &[
    "What's the wind speed in {loc}?",
    "How windy is it in {loc}?",
    "Is it windy in {loc} right now?",
    "How strong is the wind in {loc}?",
    "Check the wind in {loc} for me.",
    "What's the current wind speed at {loc}?",
    "Tell me how fast the wind is blowing in {loc}.",
    "Wind speed in {loc}?",
    "I'm going sailing in {loc}. How windy is it?",
    "How much wind is there in {loc} today?",
    "Can you get the wind speed for {loc}?",
    "What's the wind like in {loc}?",
    "Is there a lot of wind in {loc} at the moment?",
    "How fast is the wind in {loc}?",
    "Give me the wind speed in {loc}, please.",
];

/// Answers about wind: `{loc}`, `{w}`.
pub const WIND_ANSWERS: &[&str] = &[
    "The wind speed in {loc} is {w} km/h.",
    "The wind in {loc} is blowing at {w} km/h right now.",
    "Right now the wind speed in {loc} is {w} km/h.",
];

/// Temperature and wind at one place: `{loc}`, `{unit}`.
pub const TEMPERATURE_AND_WIND: &[&str] = &[
    "What's the temperature and wind speed in {loc}{unit}?",
    "How's the weather in {loc}? Temperature and wind, please{unit}.",
    "Tell me the temperature and how windy it is in {loc}{unit}.",
    "Give me the current temperature and wind speed for {loc}{unit}.",
    "What are the temperature and the wind like in {loc}{unit}?",
    "I need the temperature and the wind speed in {loc}{unit}.",
    "Check the temperature and wind in {loc}{unit}.",
    "How hot and how windy is it in {loc}{unit}?",
    "Temperature and wind for {loc}{unit}?",
    "Can you get me both the temperature and the wind speed in {loc}{unit}?",
];

/// Answers with both: `{loc}`, `{t}`, `{sym}`, `{w}`.
pub const TEMPERATURE_AND_WIND_ANSWERS: &[&str] = &[
    "In {loc} it's {t} {sym} with a wind speed of {w} km/h.",
    "It's {t} {sym} in {loc} right now, and the wind is blowing at {w} km/h.",
    "The temperature in {loc} is {t} {sym} and the wind speed is {w} km/h.",
];

/// Temperatures at two places: `{a}`, `{b}`, `{unit}`.
pub const TWO_TEMPERATURES: &[&str] = &[
    "What's the temperature in {a} and {b}{unit}?",
    "Compare the temperatures in {a} and {b}{unit}.",
    "How hot is it in {a} and in {b}{unit}?",
    "Tell me the current temperature in {a} and in {b}{unit}.",
    "What are the temperatures in {a} and {b} right now{unit}?",
    "Is it warmer in {a} or in {b}{unit}?",
    "Check the temperature in both {a} and {b}{unit}.",
    "Temperatures for {a} and {b}{unit}?",
    "I'm choosing between {a} and {b}. How warm is each{unit}?",
    "Give me the temperature in {a}, and also in {b}{unit}.",
];

/// Answers with two temperatures: `{a}`, `{ta}`, `{b}`, `{tb}`, `{sym}`.
pub const TWO_TEMPERATURES_ANSWERS: &[&str] = &[
    "It's {ta} {sym} in {a} and {tb} {sym} in {b}.",
    "{a} is at {ta} {sym}, and {b} is at {tb} {sym}.",
    "Right now it is {ta} {sym} in {a} and {tb} {sym} in {b}.",
];

/// How much warmer one place is: `{a}`, `{b}`.
pub const TEMPERATURE_DIFFERENCE: &[&str] = &[
    "How much warmer is {a} than {b}?",
    "What's the temperature difference between {a} and {b}?",
    "By how many degrees is {a} warmer than {b}?",
    "How many degrees warmer is it in {a} compared to {b}?",
    "Compare {a} and {b}: what's the difference in temperature?",
    "What is the difference between the temperatures in {a} and {b}?",
    "How big is the temperature gap between {a} and {b}?",
    "Find the temperature difference of {a} minus {b}.",
];

/// Answers: `{a}`, `{ta}`, `{b}`, `{tb}`, `{d}`.
pub const TEMPERATURE_DIFFERENCE_ANSWERS: &[&str] = &[
    "It's {ta} °C in {a} and {tb} °C in {b}, so the difference is {d} °C.",
    "{a} is at {ta} °C and {b} at {tb} °C: a difference of {d} °C.",
];

/// Temperature in kelvin (a chain through `convert_units`): `{loc}`.
pub const TEMPERATURE_KELVIN: &[&str] = &[
    "What's the temperature in {loc} in kelvin?",
    "How hot is it in {loc}, in kelvin?",
    "Tell me the temperature in {loc} in kelvin.",
    "Give me the current temperature in {loc} in kelvin.",
    "What is the temperature in {loc} right now, expressed in kelvin?",
    "Temperature in {loc} in kelvin, please.",
    "Can you tell me how warm {loc} is in kelvin?",
    "I need the temperature of {loc} in kelvin.",
];

/// Answers: `{loc}`, `{t}` (°C), `{k}`.
pub const TEMPERATURE_KELVIN_ANSWERS: &[&str] = &[
    "It's {t} °C in {loc}, which is {k} K.",
    "The temperature in {loc} is {k} K ({t} °C).",
];

/// Forecast requests: `{loc}`, `{n}` days.
pub const FORECAST: &[&str] = &[
    "What's the forecast for {loc} for the next {n} days?",
    "Give me the {n}-day forecast for {loc}.",
    "How warm will it be in {loc} over the next {n} days?",
    "Weather forecast for {loc}, {n} days.",
    "What will the temperatures be in {loc} in the coming {n} days?",
    "Can you get the forecast for {loc} for {n} days?",
    "I'm visiting {loc}. What's the forecast for the next {n} days?",
    "Show me the daily highs in {loc} for the next {n} days.",
    "Forecast {loc}, next {n} days?",
    "How hot will {loc} get over the next {n} days?",
];

/// Answers: `{loc}`, `{n}`, `{list}`.
pub const FORECAST_ANSWERS: &[&str] = &[
    "The daily highs in {loc} for the next {n} days: {list} °C.",
    "Here's the forecast for {loc}: {list} °C over the next {n} days.",
];

/// Average high over the coming days (a chain through statistics): `{loc}`, `{n}`.
pub const FORECAST_AVERAGE: &[&str] = &[
    "What will the average high be in {loc} over the next {n} days?",
    "What's the mean temperature forecast for {loc} for the next {n} days?",
    "On average, how warm will it be in {loc} in the coming {n} days?",
    "Average daily high in {loc} for the next {n} days?",
    "Give me the average of the forecast highs in {loc} for {n} days.",
    "How hot will {loc} be on average over the next {n} days?",
    "Calculate the average forecast temperature for {loc} over {n} days.",
    "What's the average temperature in {loc} going to be for the next {n} days?",
];

/// Answers: `{loc}`, `{n}`, `{list}`, `{r}`.
pub const FORECAST_AVERAGE_ANSWERS: &[&str] = &[
    "The average high in {loc} over the next {n} days is {r} °C (daily highs: {list} °C).",
    "Over the next {n} days, {loc} will average {r} °C.",
];

// ---------------------------------------------------------------- arithmetic

/// Additions: `{a}`, `{b}`.
pub const ADD: &[&str] = &[
    "What is {a} plus {b}?",
    "Add {a} and {b}.",
    "What's {a} + {b}?",
    "Calculate {a} + {b}.",
    "How much is {a} plus {b}?",
    "What's the sum of {a} and {b}?",
    "Can you add {a} and {b} for me?",
    "{a} + {b} = ?",
    "What do I get if I add {a} and {b}?",
    "Please compute {a} plus {b}.",
];
/// Subtractions: `{a}` minus `{b}`.
pub const SUBTRACT: &[&str] = &[
    "What is {a} minus {b}?",
    "Subtract {b} from {a}.",
    "What's {a} - {b}?",
    "Calculate {a} - {b}.",
    "How much is {a} minus {b}?",
    "What's {a} take away {b}?",
    "Can you subtract {b} from {a}?",
    "{a} - {b} = ?",
    "What do I get if I take {b} away from {a}?",
    "Please compute {a} minus {b}.",
];
/// Multiplications: `{a}`, `{b}`.
pub const MULTIPLY: &[&str] = &[
    "What is {a} times {b}?",
    "Multiply {a} by {b}.",
    "What's {a} * {b}?",
    "Calculate {a} x {b}.",
    "How much is {a} multiplied by {b}?",
    "What's the product of {a} and {b}?",
    "Can you multiply {a} by {b}?",
    "{a} * {b} = ?",
    "What do I get if I multiply {a} by {b}?",
    "Please compute {a} times {b}.",
];
/// Divisions: `{a}` by `{b}`.
pub const DIVIDE: &[&str] = &[
    "What is {a} divided by {b}?",
    "Divide {a} by {b}.",
    "What's {a} / {b}?",
    "Calculate {a} / {b}.",
    "How much is {a} divided by {b}?",
    "What's {a} over {b}?",
    "Can you divide {a} by {b}?",
    "{a} / {b} = ?",
    "What do I get if I divide {a} by {b}?",
    "Please compute {a} divided by {b}.",
];
/// Powers: `{a}` to the `{b}`.
pub const POWER: &[&str] = &[
    "What is {a} to the power of {b}?",
    "What's {a}^{b}?",
    "Raise {a} to the power of {b}.",
    "Calculate {a} ** {b}.",
    "What is {a} raised to the power {b}?",
    "How much is {a} to the {b}th power?",
    "Can you compute {a} to the power of {b}?",
    "{a}^{b} = ?",
    "What do I get if I raise {a} to the power of {b}?",
    "Please compute {a} to the power of {b}.",
];

/// How answers say each operation, in the order add, subtract, multiply,
/// divide, power.
pub const OPERATION_WORDS: [&str; 5] = ["plus", "minus", "times", "divided by", "to the power of"];

/// Answers: `{a}`, `{op}`, `{b}`, `{r}`.
pub const CALCULATE_ANSWERS: &[&str] = &[
    "{a} {op} {b} is {r}.",
    "The result is {r}.",
    "{a} {op} {b} equals {r}.",
];

/// Two operations in a row: `({a} + {b}) * {c}` style; `{op1}`, `{op2}` are words.
pub const TWO_OPERATIONS: &[&str] = &[
    "What is {a} {op1} {b}, then {op2} {c}?",
    "Take {a} {op1} {b} and then {op2} {c}.",
    "First compute {a} {op1} {b}, then {op2} the result {c}.",
    "Calculate {a} {op1} {b}, and {op2} that {c}.",
    "Work out {a} {op1} {b}, then {op2} {c}.",
    "What do I get from {a} {op1} {b}, {op2} {c}?",
    "Compute {a} {op1} {b} and then {op2} {c}, please.",
    "Start with {a} {op1} {b}; then {op2} {c}. What's the answer?",
];

/// How a second operation is asked for, in operation order (`add` ... `power`).
pub const THEN_WORDS: [&str; 5] = ["plus", "minus", "times", "divided by", "to the power of"];

/// Answers: `{a}`, `{op1}`, `{b}`, `{r1}`, `{op2}`, `{c}`, `{r}`.
pub const TWO_OPERATIONS_ANSWERS: &[&str] = &[
    "{a} {op1} {b} is {r1}, and {r1} {op2} {c} is {r}.",
    "First {r1}, then {r}. The answer is {r}.",
];

/// Statistics requests: `{list}`; one list per statistic.
pub const MEAN: &[&str] = &[
    "What's the average of {list}?",
    "Find the mean of {list}.",
    "Calculate the average of these numbers: {list}.",
    "What is the mean of {list}?",
    "Average of {list}?",
    "Can you average {list}?",
    "Give me the mean value of {list}.",
    "What's the arithmetic mean of {list}?",
];
/// Median requests.
pub const MEDIAN: &[&str] = &[
    "What's the median of {list}?",
    "Find the median of {list}.",
    "Calculate the median of these numbers: {list}.",
    "Median of {list}?",
    "What is the middle value of {list}?",
    "Can you get the median of {list}?",
];
/// Minimum requests.
pub const MIN: &[&str] = &[
    "What's the smallest of {list}?",
    "Find the minimum of {list}.",
    "Which is the lowest number in {list}?",
    "Minimum of {list}?",
    "What is the min of {list}?",
    "Get the smallest value among {list}.",
];
/// Maximum requests.
pub const MAX: &[&str] = &[
    "What's the largest of {list}?",
    "Find the maximum of {list}.",
    "Which is the highest number in {list}?",
    "Maximum of {list}?",
    "What is the max of {list}?",
    "Get the biggest value among {list}.",
];
/// Sum requests.
pub const SUM: &[&str] = &[
    "What's the sum of {list}?",
    "Add up {list}.",
    "What do {list} add up to?",
    "Total of {list}?",
    "Sum these numbers: {list}.",
    "Can you total {list}?",
];

/// Answers: `{stat}` (mean, median, ...), `{r}`.
pub const STATISTICS_ANSWERS: &[&str] =
    &["The {stat} is {r}.", "The {stat} of those numbers is {r}."];

// ---------------------------------------------------------------- conversions

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

// ---------------------------------------------------------------- time

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

// ---------------------------------------------------------------- web, stocks, words

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

// ---------------------------------------------------------------- organising

/// Calendar events: `{title}`, `{date}`, `{time}`, `{extra}` (duration and
/// attendees, or nothing).
pub const CALENDAR: &[&str] = &[
    "Schedule \"{title}\" on {date} at {time}{extra}.",
    "Add {title} to my calendar on {date} at {time}{extra}.",
    "Create an event called \"{title}\" for {date} at {time}{extra}.",
    "Put \"{title}\" in my calendar on {date} at {time}{extra}.",
    "Book \"{title}\" on {date} at {time}{extra}.",
    "Can you add \"{title}\" to my calendar for {date} at {time}{extra}?",
    "New event: {title}, {date} at {time}{extra}.",
    "Please schedule {title} for {date}, {time}{extra}.",
    "I have \"{title}\" on {date} at {time}{extra}. Add it to my calendar.",
    "Make a calendar entry \"{title}\" on {date} at {time}{extra}.",
];

/// Answers: `{title}`, `{start}`, `{end}`, `{invited}` (a sentence or nothing).
pub const CALENDAR_ANSWERS: &[&str] = &[
    "Done! \"{title}\" is on your calendar from {start} to {end}.{invited}",
    "I've added \"{title}\" from {start} to {end}.{invited}",
];

/// Reminders: `{task}`, `{n}` minutes.
pub const REMINDER: &[&str] = &[
    "Remind me to {task} in {n} minutes.",
    "Set a reminder to {task} in {n} minutes.",
    "In {n} minutes, remind me to {task}.",
    "Can you remind me to {task} in {n} minutes?",
    "Please set a reminder in {n} minutes to {task}.",
    "Don't let me forget to {task}. Remind me in {n} minutes.",
    "I need a reminder to {task} in {n} minutes.",
    "Remind me in {n} minutes to {task}.",
    "Set an alert for {n} minutes from now to {task}.",
    "Ping me in {n} minutes to {task}.",
];

/// Answers: `{task}`, `{due}`.
pub const REMINDER_ANSWERS: &[&str] = &[
    "OK, I'll remind you to {task} at {due}.",
    "Reminder set for {due}: {task}.",
    "Done. You'll be reminded to {task} at {due}.",
];

/// Emails: `{to}`, `{subject}`, `{body}`, `{extra}` (cc and urgency, or nothing).
pub const EMAIL: &[&str] = &[
    "Send an email to {to} with the subject \"{subject}\" saying \"{body}\"{extra}",
    "Email {to}: subject \"{subject}\", message \"{body}\"{extra}",
    "Write to {to} with subject \"{subject}\" and body \"{body}\"{extra}",
    "Can you email {to}? Subject: \"{subject}\". Message: \"{body}\"{extra}",
    "Send {to} an email titled \"{subject}\" that says \"{body}\"{extra}",
    "Please send a mail to {to}, subject \"{subject}\", text \"{body}\"{extra}",
    "Drop {to} an email. Subject \"{subject}\", body \"{body}\"{extra}",
    "Compose an email to {to} with the subject \"{subject}\" and the message \"{body}\"{extra}",
];

/// Answers: `{to}`, `{subject}`, `{id}`.
pub const EMAIL_ANSWERS: &[&str] = &[
    "Your email to {to} has been sent (message ID {id}).",
    "Sent! \"{subject}\" is on its way to {to}. The message ID is {id}.",
];

/// Flights: `{o}`, `{d}`, `{date}`, `{extra}` (passengers, or nothing), `{direct}`.
pub const FLIGHTS: &[&str] = &[
    "Find me a flight from {o} to {d} on {date}{extra}.{direct}",
    "I need to fly from {o} to {d} on {date}{extra}.{direct}",
    "What's the cheapest flight from {o} to {d} on {date}{extra}?{direct}",
    "Search flights from {o} to {d} for {date}{extra}.{direct}",
    "Are there flights from {o} to {d} on {date}{extra}?{direct}",
    "Look for a flight {o} to {d}, {date}{extra}.{direct}",
    "Can you find flights from {o} to {d} on {date}{extra}?{direct}",
    "I want to travel from {o} to {d} on {date}{extra}. Find a flight.{direct}",
    "Check flights between {o} and {d} on {date}{extra}.{direct}",
    "Get me the best fare from {o} to {d} on {date}{extra}.{direct}",
];

/// How a request asks for direct flights only (appended).
pub const DIRECT: &[&str] = &[
    " Direct flights only.",
    " Nonstop, please.",
    " Only nonstop flights.",
    " I want a direct flight.",
];

/// Answers: `{flight}`, `{departs}`, `{stops}`, `{price}`.
pub const FLIGHT_ANSWERS: &[&str] = &[
    "The cheapest flight is {flight}, departing {departs} ({stops}), for ${price}.",
    "I found {flight}: it leaves {departs}, {stops}, and costs ${price}.",
];

/// A flight's price in another currency (a chain): `{o}`, `{d}`, `{date}`, `{cur}`.
pub const FLIGHT_IN_CURRENCY: &[&str] = &[
    "Find the cheapest flight from {o} to {d} on {date} and tell me the price in {cur}.",
    "How much is a flight from {o} to {d} on {date} in {cur}?",
    "What does the cheapest {o} to {d} flight on {date} cost in {cur}?",
    "Search a flight from {o} to {d} on {date}, with the price in {cur}.",
    "I need a flight {o} to {d} on {date}. What's the fare in {cur}?",
    "Price in {cur} of the cheapest flight from {o} to {d} on {date}?",
    "Look up flights from {o} to {d} on {date} and convert the price to {cur}.",
    "Give me the cheapest fare from {o} to {d} on {date} in {cur}.",
];

/// Answers: `{flight}`, `{departs}`, `{price}`, `{r}`, `{cur}`.
pub const FLIGHT_IN_CURRENCY_ANSWERS: &[&str] = &[
    "The cheapest flight is {flight}, departing {departs}, for ${price}, which is {r} {cur}.",
    "{flight} leaves {departs} and costs ${price} ({r} {cur}).",
];

/// Lights on: `{room}`.
pub const LIGHTS_ON: &[&str] = &[
    "Turn on the {room} lights.",
    "Switch on the lights in the {room}.",
    "Lights on in the {room}, please.",
    "Can you turn the {room} lights on?",
    "Please put the lights on in the {room}.",
    "I need light in the {room}.",
    "Turn the lights in the {room} on.",
    "Switch the {room} light on.",
];
/// Lights off: `{room}`.
pub const LIGHTS_OFF: &[&str] = &[
    "Turn off the {room} lights.",
    "Switch off the lights in the {room}.",
    "Lights off in the {room}, please.",
    "Can you turn the {room} lights off?",
    "Please put the lights out in the {room}.",
    "Kill the lights in the {room}.",
    "Turn the lights in the {room} off.",
    "Switch the {room} light off.",
];
/// Lights dimmed: `{room}`, `{b}` percent.
pub const LIGHTS_DIM: &[&str] = &[
    "Set the {room} lights to {b}%.",
    "Dim the {room} lights to {b}%.",
    "Turn on the {room} lights at {b}% brightness.",
    "Lights in the {room} at {b}%, please.",
    "Can you set the {room} light to {b} percent?",
    "Put the {room} lights on at {b}%.",
    "Make the {room} lights {b}% bright.",
    "Switch on the {room} lights, {b}% brightness.",
];

/// Answers: `{room}`, `{state}` (on, off, or on at N%).
pub const LIGHTS_ANSWERS: &[&str] = &[
    "The {room} lights are now {state}.",
    "Done, the lights in the {room} are {state}.",
];

/// Distances: `{o}`, `{d}`, `{unit}` (empty, ` in miles`, ` in km`).
pub const DISTANCE: &[&str] = &[
    "How far is {o} from {d}{unit}?",
    "What's the distance between {o} and {d}{unit}?",
    "Distance from {o} to {d}{unit}?",
    "How far is it from {o} to {d}{unit}?",
    "How long is the trip from {o} to {d}{unit}?",
    "Tell me the distance from {o} to {d}{unit}.",
    "What is the distance from {o} to {d}{unit}?",
    "Can you check how far {d} is from {o}{unit}?",
    "I'm driving from {o} to {d}. How far is it{unit}?",
    "Measure the distance between {o} and {d}{unit}.",
];

/// Answers: `{o}`, `{d}`, `{r}`, `{unit}` (km or miles).
pub const DISTANCE_ANSWERS: &[&str] = &[
    "The distance between {o} and {d} is {r} {unit}.",
    "{o} is {r} {unit} from {d}.",
];

// ---------------------------------------------------------------- follow-ups

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

// ---------------------------------------------------------------- without tools

/// Requests no tool covers that name a place or a count, as the requests
/// tools answer do: `{city}` and `{n}` are drawn like a call's values, so
/// the model cannot learn the few of a fixed list by heart and must see
/// that the task, not the words, decides. Each pairs with a task for
/// [`CANNOT_ANSWERS`].
pub const OUT_OF_SCOPE_IN_PLACE: &[(&str, &str)] = &[
    ("Book me a hotel in {city} for {n} nights.", "book hotels"),
    ("I need a rental car in {city} for {n} days.", "rent cars"),
    ("Find a good restaurant in {city}.", "recommend restaurants"),
    (
        "Roughly how many inhabitants does {city} have?",
        "look up population figures",
    ),
    ("Order {n} pizzas to my office in {city}.", "order food"),
    ("Buy {n} tickets for the game in {city}.", "buy tickets"),
    ("Call me a taxi to the station in {city}.", "order taxis"),
    ("Plan a {n}-day trip to {city}.", "plan trips"),
    (
        "Who is the mayor of {city}?",
        "answer general knowledge questions",
    ),
    ("Show me a map of {city}.", "show maps"),
    (
        "Reserve a table for {n} in {city} tonight.",
        "book restaurants",
    ),
    (
        "Find me an apartment in {city} with {n} bedrooms.",
        "search for apartments",
    ),
    ("What are the top {n} sights in {city}?", "recommend sights"),
    ("Book {n} seats on a train to {city}.", "book trains"),
    ("Is there a good dentist in {city}?", "find doctors"),
];

/// Answers to a request no tool covers: `{task}`.
pub const CANNOT_ANSWERS: &[&str] = &[
    "I'm sorry, I can't {task}. None of my tools can do that.",
    "Sorry, I'm not able to {task} with the tools I have.",
    "Unfortunately I can't {task}, as I don't have a tool for it.",
];

/// Answers to a request whose tool is not offered: `{capability}`.
pub const UNAVAILABLE_ANSWERS: &[&str] = &[
    "I'm sorry, I don't have a tool to {capability}.",
    "Sorry, I can't {capability} right now: none of my tools does that.",
    "Unfortunately I have no tool to {capability}.",
];

/// Questions about what the assistant can do.
pub const CAPABILITIES: &[&str] = &[
    "What can you do?",
    "What tools do you have?",
    "Which tools can you use?",
    "What are you able to help with?",
    "What can you help me with?",
    "Tell me what tools you have access to.",
    "What functions can you call?",
    "Which things can you do for me?",
    "What are your tools?",
    "How can you help me?",
    "List the tools you can use.",
    "What kind of things can you do?",
    "Do you have any tools?",
    "What are you capable of?",
    "Which functions do you have?",
];

/// Answers: `{names}` (the offered tools' names).
pub const CAPABILITIES_ANSWERS: &[&str] = &[
    "I can use these tools: {names}.",
    "I have access to these tools: {names}. Just ask!",
];

/// Answers after a tool failed: `{error}` (the tool's message).
pub const ERROR_ANSWERS: &[&str] = &[
    "Sorry, that didn't work: {error}.",
    "The tool reported an error: {error}.",
    "I couldn't do that because of an error: {error}.",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_every_slot() {
        assert_eq!(
            fill(
                "{a} plus {b} is {r}.",
                &[("a", "1"), ("b", "2"), ("r", "3")]
            ),
            "1 plus 2 is 3."
        );
    }
}
