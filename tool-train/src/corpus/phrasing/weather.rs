//! Weather: temperatures, wind and forecasts, alone, together and in chains.

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
