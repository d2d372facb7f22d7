//! Conversations: which request is made, which tools are offered, the calls
//! the assistant makes, their real results (through the toolbox) and the
//! answer that uses them.
//!
//! Arguments are canonical, so that a small model can learn them: values are
//! copied verbatim from the request (numbers as written, which is how JSON
//! writes them), keys follow the schema's property order, optional
//! arguments appear only when the user asks for them, enums come from a
//! fixed mapping (average → mean, miles → mi, Fahrenheit → fahrenheit).

use super::phrasing::{self as p, fill};
use super::practice::{self, Practice};
use super::rng::Rng;
use super::values::{self as v, NumberKind};
use super::{Case, Example, Expectation, Scenario, Split};
use serde_json::{json, Map, Value};
use tool_use::models::template::{Clock, DateTime};
use tool_use::{demo, Message, ToolCall, Toolbox};

mod cases;
pub(crate) use cases::case_example;

/// What a request needs: its tools, and how a refusal names the ability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Intent {
    Temperature,
    Wind,
    Calculate,
    ConvertUnits,
    Time,
    Currency,
    Search,
    Stock,
    Translate,
    Calendar,
    Reminder,
    Email,
    Flights,
    Forecast,
    Statistics,
    Lights,
    Distance,
    // Several calls at once.
    TemperatureAndWind,
    TwoTemperatures,
    TwoTimes,
    TimeAndTemperature,
    TwoStocks,
    TranslateTwo,
    // Two steps, the second using the first one's result.
    SharesValue,
    TemperatureKelvin,
    FlightInCurrency,
    TemperatureDifference,
    CurrencyTotal,
    ForecastAverage,
    TwoOperations,
}

use Intent::*;

/// Single-call intents, with how often each is asked.
const SINGLE: &[(Intent, u32)] = &[
    (Temperature, 14),
    (Wind, 7),
    (Calculate, 12),
    (ConvertUnits, 8),
    (Time, 9),
    (Currency, 5),
    (Search, 4),
    (Stock, 5),
    (Translate, 4),
    (Calendar, 4),
    (Reminder, 4),
    (Email, 4),
    (Flights, 4),
    (Forecast, 4),
    (Statistics, 4),
    (Lights, 4),
    (Distance, 4),
];

const PARALLEL: &[(Intent, u32)] = &[
    (TemperatureAndWind, 6),
    (TwoTemperatures, 5),
    (TwoTimes, 3),
    (TimeAndTemperature, 3),
    (TwoStocks, 2),
    (TranslateTwo, 2),
];

const CHAIN: &[(Intent, u32)] = &[
    (SharesValue, 3),
    (TemperatureKelvin, 3),
    (FlightInCurrency, 2),
    (TemperatureDifference, 3),
    (CurrencyTotal, 2),
    (ForecastAverage, 2),
    (TwoOperations, 3),
];

/// Intents with an error variant: the request makes the tool fail.
const FAILING: &[(Intent, u32)] = &[
    (Calculate, 6),
    (ConvertUnits, 5),
    (Time, 4),
    (Currency, 3),
    (Search, 2),
    (Stock, 3),
    (Translate, 3),
    (Calendar, 2),
    (Reminder, 1),
    (Email, 2),
    (Flights, 2),
    (Forecast, 2),
    (Lights, 2),
    (Distance, 2),
];

impl Intent {
    /// The tools its calls use.
    fn tools(self) -> &'static [&'static str] {
        match self {
            Temperature | TwoTemperatures => &["get_current_temperature"],
            Wind => &["get_current_wind_speed"],
            Calculate | TwoOperations => &["calculate"],
            ConvertUnits => &["convert_units"],
            Time | TwoTimes => &["get_current_time"],
            Currency => &["convert_currency"],
            Search => &["search_web"],
            Stock | TwoStocks => &["get_stock_price"],
            Translate | TranslateTwo => &["translate_text"],
            Calendar => &["create_calendar_event"],
            Reminder => &["set_reminder"],
            Email => &["send_email"],
            Flights => &["search_flights"],
            Forecast => &["get_weather_forecast"],
            Statistics => &["calculate_statistics"],
            Lights => &["set_lights"],
            Distance => &["get_distance"],
            TemperatureAndWind => &["get_current_temperature", "get_current_wind_speed"],
            TimeAndTemperature => &["get_current_time", "get_current_temperature"],
            SharesValue => &["get_stock_price", "calculate"],
            TemperatureKelvin => &["get_current_temperature", "convert_units"],
            FlightInCurrency => &["search_flights", "convert_currency"],
            TemperatureDifference => &["get_current_temperature", "calculate"],
            CurrencyTotal => &["convert_currency", "calculate"],
            ForecastAverage => &["get_weather_forecast", "calculate_statistics"],
        }
    }

    /// Tools that could stand in for its own, never offered when its tool is
    /// withheld (a forecast is not the current temperature, but close).
    fn relatives(self) -> &'static [&'static str] {
        match self.tools()[0] {
            "get_current_temperature" | "get_current_wind_speed" | "get_weather_forecast" => &[
                "get_current_temperature",
                "get_current_wind_speed",
                "get_weather_forecast",
            ],
            "calculate" | "calculate_statistics" => &["calculate", "calculate_statistics"],
            "convert_units" | "convert_currency" => &["convert_units", "convert_currency"],
            "search_web" => &["search_web"],
            _ => &[],
        }
    }

    /// How a refusal names what it would need.
    fn capability(self) -> &'static str {
        match self.tools()[0] {
            "get_current_temperature" => "check the temperature",
            "get_current_wind_speed" => "check the wind speed",
            "calculate" => "do calculations",
            "convert_units" => "convert units",
            "get_current_time" => "tell the time",
            "convert_currency" => "convert currencies",
            "search_web" => "search the web",
            "get_stock_price" => "look up stock prices",
            "translate_text" => "translate text",
            "create_calendar_event" => "manage your calendar",
            "set_reminder" => "set reminders",
            "send_email" => "send emails",
            "search_flights" => "search for flights",
            "get_weather_forecast" => "get weather forecasts",
            "calculate_statistics" => "compute statistics",
            "set_lights" => "control the lights",
            _ => "measure distances",
        }
    }
}

/// What a finished request leaves for a follow-up question.
enum Follow {
    Temperature {
        loc: String,
        unit: &'static str,
    },
    Wind,
    Time,
    Stock,
    Currency {
        amount: String,
        from: String,
        to: String,
    },
    Result {
        value: String,
    },
    Nothing,
}

/// One conversation being written.
pub(crate) struct Cx<'a> {
    rng: Rng,
    split: Split,
    toolbox: &'a Toolbox,
    messages: Vec<Message>,
    expectations: Vec<Expectation>,
    next_id: usize,
    /// The extended held-out split's case being written, if any.
    case: Option<Case>,
    practice: Practice,
    /// Places drawn since the last request, for value-end practice.
    places: Vec<String>,
}

impl<'a> Cx<'a> {
    fn new(rng: Rng, split: Split, toolbox: &'a Toolbox, practice: Practice) -> Cx<'a> {
        Cx {
            rng,
            split,
            toolbox,
            messages: Vec::new(),
            expectations: Vec::new(),
            next_id: 1,
            case: None,
            practice,
            places: Vec::new(),
        }
    }

    /// A phrasing from `list`, of this split.
    fn phrase(&mut self, list: &[&'static str]) -> &'static str {
        if self.case == Some(Case::Terse) {
            if let Some(terse) = cases::terse(list) {
                return self.rng.choose(terse);
            }
        }
        v::choose(&mut self.rng, list, self.split)
    }

    /// An answer template (answers are the same in both splits).
    fn answer_template(&mut self, list: &[&'static str]) -> &'static str {
        self.rng.choose(list)
    }

    /// Asks the same about another value, `value` in `list`'s `slot`; with
    /// [`Practice::FollowUps`], often in words composed from parts that
    /// are never one of `list`'s held-out phrasings.
    fn ask_follow_up(&mut self, list: &[&'static str], slot: &str, value: &str) {
        if self.practice.follow_ups(self.split) && practice::wants_composed_follow_up(&mut self.rng)
        {
            let held_out = held_out_phrasing(list, &[(slot, value)]);
            let text = practice::follow_up(&mut self.rng, value, held_out);
            self.ask(text);
        } else {
            self.ask_phrase(list, &[(slot, value)]);
        }
    }

    /// Asks with a phrasing from `list`, its `slots` filled. The phrasing is
    /// drawn before `ask` draws its variations: the order of draws fixes the
    /// corpus for a seed, and the bundled model was trained on that corpus.
    fn ask_phrase(&mut self, list: &[&'static str], slots: &[(&str, &str)]) {
        let template = self.phrase(list);
        let text = fill(template, slots);
        let text = self.maybe_bare(text, |bare| held_out_phrasing(list, slots)(bare));
        self.ask(text);
    }

    /// With [`Practice::Bare`], often `text` without its lead ("Average of
    /// …" for "What's the average of …"), never a text `held_out` knows.
    fn maybe_bare(&mut self, text: String, held_out: impl Fn(&str) -> bool) -> String {
        if !(self.practice.bare(self.split) && practice::wants_bare(&mut self.rng)) {
            return text;
        }
        match practice::bare(&text) {
            Some(bare) if !held_out(&bare) => bare,
            _ => text,
        }
    }

    /// Answers with a template from `list`, its `slots` filled; the answer
    /// is expected to contain each of `must_contain`.
    fn answer_from(
        &mut self,
        list: &[&'static str],
        slots: &[(&str, &str)],
        must_contain: Vec<String>,
    ) {
        let template = self.answer_template(list);
        self.answer(fill(template, slots), must_contain);
    }

    /// Asks with a phrasing from `list`, its `slots` filled; with
    /// [`Practice::Requests`], often in words `compose` puts together from
    /// parts instead, never one of `list`'s held-out phrasings.
    fn ask_composed(
        &mut self,
        list: &[&'static str],
        slots: &[(&str, &str)],
        compose: impl FnOnce(&mut Rng, &dyn Fn(&str) -> bool) -> String,
    ) {
        let composed =
            self.practice.requests(self.split) && practice::wants_composed_request(&mut self.rng);
        self.ask_either(composed, list, slots, compose);
    }

    /// Asks in the words `compose` puts together if `composed` (never one
    /// of `list`'s held-out phrasings), or else with a phrasing from
    /// `list`, its `slots` filled.
    fn ask_either(
        &mut self,
        composed: bool,
        list: &[&'static str],
        slots: &[(&str, &str)],
        compose: impl FnOnce(&mut Rng, &dyn Fn(&str) -> bool) -> String,
    ) {
        if composed {
            let held_out = held_out_phrasing(list, slots);
            let text = compose(&mut self.rng, &held_out);
            let text = self.maybe_bare(text, &held_out);
            self.ask(text);
        } else {
            self.ask_phrase(list, slots);
        }
    }

    /// A user's turn that needs no tool, and the assistant's `reply`.
    fn small_talk(&mut self, text: String, reply: &str) {
        self.user(text);
        self.answer(reply.to_owned(), Vec::new());
    }

    fn user(&mut self, text: String) {
        self.messages.push(Message::user(text));
    }

    /// A request, sometimes with an opening and without its final mark.
    fn ask(&mut self, text: String) {
        let mut text = text;
        if self.rng.chance(0.12) && starts_lowercasable(&text) {
            let opening = self.phrase(p::OPENINGS);
            text = format!("{opening}{}", lowercase_first(&text));
        }
        if self.rng.chance(0.1) && text.ends_with(['?', '.']) && !text.ends_with("\"?") {
            text.pop();
        }
        for place in std::mem::take(&mut self.places) {
            if let Some(longer) = practice::with_trailer(
                &mut self.rng,
                &text,
                &place,
                self.practice.unit_after_comma(self.split),
            ) {
                text = longer;
            }
        }
        self.user(text);
    }

    /// The assistant calls tools; their results are appended and returned.
    fn call(&mut self, calls: Vec<(&str, Value)>) -> Vec<String> {
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .map(|(name, args)| {
                let id = format!("call_{}", self.next_id);
                self.next_id += 1;
                ToolCall::new(id, name, args)
            })
            .collect();
        self.expectations.push(Expectation {
            index: self.messages.len(),
            calls: calls.clone(),
            must_contain: Vec::new(),
        });
        self.messages
            .push(Message::assistant_calls(None, calls.clone()));
        let mut results = Vec::with_capacity(calls.len());
        for call in &calls {
            let message = self.toolbox.call_blocking(call);
            results.push(message.text().to_owned());
            self.messages.push(message);
        }
        results
    }

    /// One call, one result.
    fn call_one(&mut self, name: &str, args: Value) -> String {
        self.call(vec![(name, args)]).pop().unwrap_or_default()
    }

    /// The assistant answers in words; `must_contain` are the facts it gives.
    fn answer(&mut self, text: String, must_contain: Vec<String>) {
        self.expectations.push(Expectation {
            index: self.messages.len(),
            calls: Vec::new(),
            must_contain,
        });
        self.messages.push(Message::assistant(text));
    }

    /// Answers a failed call with its error message.
    fn answer_error(&mut self, result: &str) {
        let error = result.strip_prefix("Error: ").unwrap_or(result);
        let error = error.trim_end_matches('.').to_owned();
        let template = self.answer_template(p::ERROR_ANSWERS);
        self.answer(fill(template, &[("error", &error)]), vec![error]);
    }

    fn number(&mut self, kind: NumberKind) -> String {
        if self.practice.ends(self.split) {
            if let Some(n) = practice::repeating_number(&mut self.rng, self.split, kind) {
                return n;
            }
        }
        v::number(&mut self.rng, self.split, kind)
    }

    /// A made-up place, of several words now and then with value-end practice.
    fn invented_place(&mut self) -> String {
        if self.practice.ends(self.split) && practice::wants_long_place(&mut self.rng) {
            if self.practice.wide(self.split) && practice::wants_place_with_city(&mut self.rng) {
                return practice::place_with_city(&mut self.rng, self.split);
            }
            return practice::long_place(&mut self.rng, self.split);
        }
        v::invented_place(&mut self.rng, self.split)
    }

    /// A weather location as the user writes it: "Paris" or "Paris, France".
    fn location(&mut self) -> String {
        let (city, country) = *v::pick_named(&mut self.rng, v::CITIES, self.split, |c| c.0);
        let invented;
        let city = if self.invents() {
            invented = self.invented_place();
            invented.as_str()
        } else {
            city
        };
        let location = if self.rng.chance(0.5) {
            format!("{city}, {country}")
        } else {
            city.to_owned()
        };
        self.asked_place(location)
    }

    /// `place`, kept for the next request's value-end practice.
    fn asked_place(&mut self, place: String) -> String {
        if self.practice.ends(self.split) {
            self.places.push(place.clone());
        }
        place
    }

    fn two_locations(&mut self) -> (String, String) {
        let a = self.location();
        loop {
            let b = self.location();
            if city_of(&b) != city_of(&a) {
                return (a, b);
            }
        }
    }

    fn city(&mut self) -> String {
        let city = if self.invents() {
            self.invented_place()
        } else {
            v::pick_named(&mut self.rng, v::CITIES, self.split, |c| c.0)
                .0
                .to_owned()
        };
        self.asked_place(city)
    }

    /// Whether the next place is made up: most of them in training, so that
    /// guessing a known city never pays and the model learns to copy.
    fn invents(&mut self) -> bool {
        self.split == Split::Train && self.rng.chance(0.6)
    }

    fn two_cities(&mut self) -> (String, String) {
        let a = self.city();
        loop {
            let b = self.city();
            if b != a {
                return (a, b);
            }
        }
    }

    fn time_place(&mut self) -> String {
        (*v::pick_named(&mut self.rng, v::TIME_PLACES, self.split, |p| p)).to_owned()
    }

    /// A time place that is also a city (for weather and time together).
    fn time_city(&mut self) -> String {
        loop {
            let place = self.time_place();
            if !place.contains('/') && !place.starts_with("UTC") {
                return place;
            }
        }
    }

    /// The finished conversation, offering the tools named `offered`.
    fn into_example(self, offered: &[String], scenario: Scenario) -> Example {
        Example {
            tools: offered
                .iter()
                .filter_map(|name| super::tools::definition(self.toolbox, name))
                .collect(),
            messages: self.messages,
            scenario,
            expectations: self.expectations,
            split: self.split,
            case: self.case,
        }
    }

    fn stock(&mut self) -> (String, String) {
        if self.invents() {
            return v::invented_stock(&mut self.rng, self.split);
        }
        let (sym, company) = *v::pick(&mut self.rng, v::STOCKS, self.split);
        (sym.to_owned(), company.to_owned())
    }
}

/// Whether the text may follow an opening ("Hey, ") with its first letter
/// lowercased: not "I ..." nor a name, and not an opening already.
fn starts_lowercasable(text: &str) -> bool {
    let first_word = text.split_whitespace().next().unwrap_or("");
    let bare = first_word.trim_end_matches([',', '!', '.']);
    let starts_upper = text.chars().next().is_some_and(char::is_uppercase);
    starts_upper
        && !matches!(
            bare,
            "I" | "I'm" | "I've" | "I'd" | "I'll" | "Hey" | "Hi" | "Hello"
        )
        && !first_word.chars().skip(1).any(char::is_uppercase)
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn city_of(location: &str) -> &str {
    location.split(',').next().unwrap_or(location)
}

/// A number's text as a JSON number (the text is how JSON writes it).
fn num(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// An object with keys in the given order (the schema's).
fn args(pairs: Vec<(&str, Value)>) -> Value {
    let mut map = Map::new();
    for (k, val) in pairs {
        map.insert(k.to_owned(), val);
    }
    Value::Object(map)
}

/// "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn is_error(result: &str) -> bool {
    result.starts_with("Error: ")
}

// ---------------------------------------------------------------- intents

fn unit_phrase(cx: &mut Cx) -> (&'static str, &'static str) {
    if cx.case == Some(Case::UnitNamed) {
        return cases::unit_named(cx);
    }
    if cx.rng.chance(0.3) {
        ("fahrenheit", *cx.rng.pick(p::FAHRENHEIT))
    } else {
        ("celsius", *cx.rng.pick(p::CELSIUS))
    }
}

fn symbol(unit: &str) -> &'static str {
    if unit == "fahrenheit" {
        "°F"
    } else {
        "°C"
    }
}

fn temperature_call(cx: &mut Cx, loc: &str, unit: &str) -> String {
    cx.call_one(
        "get_current_temperature",
        json!({"location": loc, "unit": unit}),
    )
}

fn answer_temperature(cx: &mut Cx, loc: &str, unit: &str, t: &str) {
    cx.answer_from(
        p::TEMPERATURE_ANSWERS,
        &[("loc", loc), ("t", t), ("sym", symbol(unit))],
        vec![t.to_owned()],
    );
}

fn temperature(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    let (unit, said) = unit_phrase(cx);
    cx.ask_composed(
        p::TEMPERATURE,
        &[("loc", &loc), ("unit", said)],
        |rng, held_out| practice::temperature(rng, &loc, said, held_out),
    );
    let t = temperature_call(cx, &loc, unit);
    answer_temperature(cx, &loc, unit, &t);
    Follow::Temperature { loc, unit }
}

fn wind_call(cx: &mut Cx, loc: &str) {
    let w = cx.call_one("get_current_wind_speed", json!({ "location": loc }));
    cx.answer_from(p::WIND_ANSWERS, &[("loc", loc), ("w", &w)], vec![w.clone()]);
}

fn wind(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    cx.ask_phrase(p::WIND, &[("loc", &loc)]);
    wind_call(cx, &loc);
    Follow::Wind
}

const OPERATIONS: [&str; 5] = ["add", "subtract", "multiply", "divide", "power"];

fn operation_phrasings(op: usize) -> &'static [&'static str] {
    [p::ADD, p::SUBTRACT, p::MULTIPLY, p::DIVIDE, p::POWER][op]
}

/// Two operands for `op`, as written.
fn operands(cx: &mut Cx, op: usize) -> (String, String) {
    if op == 4 {
        let a = cx.rng.range(2, 12).to_string();
        let b = cx.rng.range(0, 6).to_string();
        return (a, b);
    }
    let kinds: &[NumberKind] = if op < 2 {
        // Sums and differences of large numbers stay exact.
        &[
            NumberKind::Small,
            NumberKind::Large,
            NumberKind::Decimal,
            NumberKind::Huge,
        ]
    } else {
        &[NumberKind::Small, NumberKind::Large, NumberKind::Decimal]
    };
    if cx.case == Some(Case::ManyDigits) && op < 2 {
        return (cx.number(NumberKind::Huge), cx.number(NumberKind::Huge));
    }
    let ka = *cx.rng.pick(kinds);
    let kb = if op == 3 {
        *cx.rng
            .pick(&[NumberKind::Tiny, NumberKind::Small, NumberKind::Decimal])
    } else {
        *cx.rng.pick(kinds)
    };
    (cx.number(ka), cx.number(kb))
}

fn calculate(cx: &mut Cx, fail: bool) -> Follow {
    let op = if fail {
        3
    } else if cx.case == Some(Case::ManyDigits) {
        // Sums and differences: exact at any size.
        cx.rng.below(2)
    } else {
        cx.rng.below(5)
    };
    let (a, mut b) = operands(cx, op);
    if fail {
        b = "0".into();
    }
    let composed =
        cx.practice.numbers(cx.split) && practice::wants_composed_arithmetic(&mut cx.rng);
    cx.ask_either(
        composed,
        operation_phrasings(op),
        &[("a", &a), ("b", &b)],
        |rng, held_out| practice::arithmetic(rng, op, &a, &b, held_out),
    );
    let r = cx.call_one(
        "calculate",
        json!({"operation": OPERATIONS[op], "a": num(&a), "b": num(&b)}),
    );
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    cx.answer_from(
        p::CALCULATE_ANSWERS,
        &[
            ("a", &a),
            ("op", p::OPERATION_WORDS[op]),
            ("b", &b),
            ("r", &r),
        ],
        vec![r.clone()],
    );
    Follow::Result { value: r }
}

type UnitNames = (&'static str, &'static [&'static str]);

/// A conversion to ask for: from, to, and the value as written.
fn unit_request(cx: &mut Cx, fail: bool) -> (UnitNames, UnitNames, String) {
    let kind = cx.rng.below(UNIT_NAMES.len());
    let units = UNIT_NAMES[kind];
    let from = *cx.rng.pick(units);
    let to = if fail {
        // A unit of another kind: the tool refuses.
        let other = (kind + 1 + cx.rng.below(UNIT_NAMES.len() - 1)) % UNIT_NAMES.len();
        *cx.rng.pick(UNIT_NAMES[other])
    } else {
        loop {
            let to = *cx.rng.pick(units);
            if to.0 != from.0 {
                break to;
            }
        }
    };
    let value = if kind == 3 {
        let t = cx.rng.range(-40, 200).to_string();
        if v::in_split(&t, cx.split) {
            t
        } else {
            cx.number(NumberKind::Small)
        }
    } else {
        let kinds = [
            NumberKind::Tiny,
            NumberKind::Small,
            NumberKind::Decimal,
            NumberKind::Tiny,
            NumberKind::Small,
            NumberKind::Decimal,
            NumberKind::Huge,
        ];
        let k = if cx.case == Some(Case::ManyDigits) {
            NumberKind::Huge
        } else {
            *cx.rng.pick(&kinds)
        };
        cx.number(k)
    };
    (from, to, value)
}

/// `(symbol, names a user may say)`, by kind.
const UNIT_NAMES: &[&[UnitNames]] = &[
    &[
        ("m", &["meters", "m"]),
        ("km", &["kilometers", "km"]),
        ("cm", &["centimeters", "cm"]),
        ("mm", &["millimeters", "mm"]),
        ("mi", &["miles"]),
        ("yd", &["yards"]),
        ("ft", &["feet", "ft"]),
        ("in", &["inches"]),
    ],
    &[
        ("kg", &["kilograms", "kg"]),
        ("g", &["grams", "g"]),
        ("mg", &["milligrams", "mg"]),
        ("lb", &["pounds", "lbs"]),
        ("oz", &["ounces", "oz"]),
    ],
    &[
        ("l", &["liters", "litres"]),
        ("ml", &["milliliters", "ml"]),
        ("gal", &["gallons"]),
        ("qt", &["quarts"]),
        ("cup", &["cups"]),
    ],
    &[
        ("celsius", &["degrees Celsius", "°C", "Celsius"]),
        ("fahrenheit", &["degrees Fahrenheit", "°F", "Fahrenheit"]),
        ("kelvin", &["kelvin"]),
    ],
];

fn convert_units(cx: &mut Cx, fail: bool) -> Follow {
    // Drawn until the result reads well: no tiny fractions (1 mg in gallons),
    // which JSON would also write in exponent form.
    let (from, to, value) = loop {
        let (from, to, value) = unit_request(cx, fail);
        let readable = match demo::convert_units(
            num(&value).as_f64().unwrap_or(0.0),
            from.0.into(),
            to.0.into(),
        ) {
            Ok(r) => r.as_f64().is_some_and(|r| r == 0.0 || r.abs() >= 0.01),
            Err(_) => fail,
        };
        if readable {
            break (from, to, value);
        }
    };
    let from_name = *cx.rng.pick(from.1);
    let to_name = *cx.rng.pick(to.1);
    cx.ask_phrase(
        p::CONVERT_UNITS,
        &[("v", &value), ("from", from_name), ("to", to_name)],
    );
    let r = cx.call_one(
        "convert_units",
        json!({"value": num(&value), "from_unit": from.0, "to_unit": to.0}),
    );
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    cx.answer_from(
        p::CONVERT_UNITS_ANSWERS,
        &[
            ("v", &value),
            ("from", from_name),
            ("to", to_name),
            ("r", &r),
        ],
        vec![r.clone()],
    );
    Follow::Result { value: r }
}

fn time_answer(cx: &mut Cx, place: Option<&str>, r: &str) {
    match place {
        None => {
            cx.answer_from(p::TIME_HERE_ANSWERS, &[("r", r)], vec![r.to_owned()]);
        }
        Some(place) => {
            cx.answer_from(
                p::TIME_AT_ANSWERS,
                &[("place", place), ("r", r)],
                vec![r.to_owned()],
            );
        }
    }
}

fn time(cx: &mut Cx, fail: bool) -> Follow {
    let place = if fail {
        Some((*cx.rng.pick(v::NOWHERE)).to_owned())
    } else if cx.rng.chance(0.25) {
        None
    } else {
        Some(cx.time_place())
    };
    let r = match &place {
        None => {
            let template = cx.phrase(p::TIME_HERE);
            cx.ask(template.to_owned());
            cx.call_one("get_current_time", json!({}))
        }
        Some(place) => {
            cx.ask_phrase(p::TIME_AT, &[("place", place)]);
            cx.call_one("get_current_time", json!({ "timezone": place }))
        }
    };
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    time_answer(cx, place.as_deref(), &r);
    Follow::Time
}

/// A currency as the user names it: its code, or for a few, a name.
fn currency_name(cx: &mut Cx, code: &str) -> String {
    let names: &[&str] = match code {
        "USD" => &["dollars", "US dollars"],
        "EUR" => &["euros"],
        "JPY" => &["yen"],
        "GBP" => &["British pounds"],
        _ => &[],
    };
    if !names.is_empty() && cx.rng.chance(0.35) {
        (*cx.rng.pick(names)).to_owned()
    } else {
        code.to_owned()
    }
}

fn two_currencies(cx: &mut Cx) -> (&'static str, &'static str) {
    let a = cx.rng.pick(v::CURRENCIES).0;
    loop {
        let b = cx.rng.pick(v::CURRENCIES).0;
        if b != a {
            return (a, b);
        }
    }
}

fn amount(cx: &mut Cx) -> String {
    let kinds = [
        NumberKind::Small,
        NumberKind::Large,
        NumberKind::Decimal,
        NumberKind::Small,
        NumberKind::Large,
        NumberKind::Decimal,
        NumberKind::Huge,
    ];
    let k = if cx.case == Some(Case::ManyDigits) {
        NumberKind::Huge
    } else {
        *cx.rng.pick(&kinds)
    };
    cx.number(k)
}

fn currency_call(cx: &mut Cx, amount: &str, from: &str, to: &str) -> String {
    cx.call_one(
        "convert_currency",
        json!({"amount": num(amount), "from_currency": from, "to_currency": to}),
    )
}

fn currency_answer(cx: &mut Cx, amount: &str, from: &str, to: &str, r: &str) {
    cx.answer_from(
        p::CONVERT_CURRENCY_ANSWERS,
        &[("amt", amount), ("from", from), ("to", to), ("r", r)],
        vec![r.to_owned()],
    );
}

fn currency(cx: &mut Cx, fail: bool) -> Follow {
    let (mut from, to) = two_currencies(cx);
    if fail {
        from = *cx.rng.pick(v::NO_CURRENCIES);
    }
    let amount = amount(cx);
    let from_said = currency_name(cx, from);
    let to_said = currency_name(cx, to);
    cx.ask_phrase(
        p::CONVERT_CURRENCY,
        &[("amt", &amount), ("from", &from_said), ("to", &to_said)],
    );
    let r = currency_call(cx, &amount, from, to);
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    currency_answer(cx, &amount, from, to, &r);
    Follow::Currency {
        amount,
        from: from.to_owned(),
        to: to.to_owned(),
    }
}

fn search(cx: &mut Cx, fail: bool) -> Follow {
    let q = if cx.invents() {
        v::invented_text(&mut cx.rng, cx.split, 2, 5)
    } else {
        (*v::pick(&mut cx.rng, v::QUERIES, cx.split)).to_owned()
    };
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
    if is_error(&r) {
        cx.answer_error(&r);
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

fn stock_call(cx: &mut Cx, sym: &str) {
    let r = cx.call_one("get_stock_price", json!({ "symbol": sym }));
    if is_error(&r) {
        cx.answer_error(&r);
        return;
    }
    cx.answer_from(
        p::STOCK_ANSWERS,
        &[("sym", sym), ("p", &r)],
        vec![r.clone()],
    );
}

fn stock(cx: &mut Cx, fail: bool) -> Follow {
    let (sym, company) = if fail {
        let sym = (*cx.rng.pick(v::NO_STOCKS)).to_owned();
        (sym.clone(), sym)
    } else {
        cx.stock()
    };
    let mut template = cx.phrase(p::STOCK);
    if fail {
        // A made-up symbol has no company to name.
        while template.contains("{company}") {
            template = cx.phrase(p::STOCK);
        }
    }
    cx.ask(fill(template, &[("sym", &sym), ("company", &company)]));
    stock_call(cx, &sym);
    if fail {
        Follow::Nothing
    } else {
        Follow::Stock
    }
}

fn phrase_to_translate(cx: &mut Cx) -> String {
    if cx.invents() {
        let text = v::capitalized(&v::invented_text(&mut cx.rng, cx.split, 1, 4));
        if cx.practice.wide(cx.split) {
            return practice::punctuated(&mut cx.rng, text);
        }
        return text;
    }
    (v::pick(&mut cx.rng, v::PHRASES, cx.split).0).to_owned()
}

fn translate(cx: &mut Cx, fail: bool) -> Follow {
    let text = if fail {
        (*cx.rng.pick(v::UNKNOWN_PHRASES)).to_owned()
    } else {
        phrase_to_translate(cx)
    };
    let lang = *cx.rng.pick(v::LANGUAGES);
    let slots = [("text", text.as_str()), ("lang", lang)];
    if cx.practice.fields(cx.split) && practice::wants_composed_fields(&mut cx.rng) {
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
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    cx.answer_from(
        p::TRANSLATE_ANSWERS,
        &[("text", &text), ("lang", lang), ("r", &r)],
        vec![r.clone()],
    );
    Follow::Nothing
}

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

fn calendar(cx: &mut Cx, fail: bool) -> Follow {
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
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    let result: Value = serde_json::from_str(&r).unwrap_or(Value::Null);
    let start = result["start"].as_str().unwrap_or_default().to_owned();
    let end = result["end"].as_str().unwrap_or_default().to_owned();
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

fn reminder(cx: &mut Cx, fail: bool) -> Follow {
    let task = if cx.invents() {
        v::invented_text(&mut cx.rng, cx.split, 2, 5)
    } else {
        (*v::pick(&mut cx.rng, v::REMINDERS, cx.split)).to_owned()
    };
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
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    let result: Value = serde_json::from_str(&r).unwrap_or(Value::Null);
    let due = result["due"].as_str().unwrap_or_default().to_owned();
    cx.answer_from(
        p::REMINDER_ANSWERS,
        &[("task", &task), ("due", &due)],
        vec![due.clone()],
    );
    Follow::Nothing
}

fn email(cx: &mut Cx, fail: bool) -> Follow {
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
        if cx.practice.wide(cx.split) {
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
    let address_first = if cx.practice.wide(cx.split) {
        practice::email_phrasing(&mut cx.rng)
    } else {
        None
    };
    match address_first {
        Some(template) => cx.ask(fill(template, &slots)),
        None if cx.practice.fields(cx.split) && practice::wants_composed_fields(&mut cx.rng) => {
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
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    let result: Value = serde_json::from_str(&r).unwrap_or(Value::Null);
    let id = result["message_id"].as_str().unwrap_or_default().to_owned();
    cx.answer_from(
        p::EMAIL_ANSWERS,
        &[("to", &to), ("subject", subject), ("id", &id)],
        vec![id.clone()],
    );
    Follow::Nothing
}

fn stops_phrase(stops: u64) -> String {
    match stops {
        0 => "nonstop".into(),
        1 => "1 stop".into(),
        n => format!("{n} stops"),
    }
}

/// Asks for a flight and calls the tool; the result as JSON, or the error text.
fn flight_request(cx: &mut Cx, fail: bool) -> String {
    let (o, mut d) = cx.two_cities();
    if fail {
        d = o.clone();
    }
    let date = v::date(&mut cx.rng, cx.split);
    let passengers = cx.rng.chance(0.3).then(|| cx.rng.range(2, 6));
    let direct = cx.rng.chance(0.3);
    let extra = match passengers {
        Some(n) => fill(
            cx.rng
                .choose(&[" for {n} people", " for {n} passengers", " for {n} adults"]),
            &[("n", &n.to_string())],
        ),
        None => String::new(),
    };
    let direct_said = if direct { *cx.rng.pick(p::DIRECT) } else { "" };
    let template = cx.phrase(p::FLIGHTS);
    let mut text = fill(
        template,
        &[
            ("o", &o),
            ("d", &d),
            ("date", &date),
            ("extra", &extra),
            ("direct", direct_said),
        ],
    );
    text = text.trim_end().to_owned();
    cx.ask(text);
    let mut pairs = vec![
        ("origin", json!(o)),
        ("destination", json!(d)),
        ("date", json!(date)),
    ];
    if let Some(n) = passengers {
        pairs.push(("passengers", json!(n)));
    }
    pairs.push(("nonstop_only", json!(direct)));
    cx.call_one("search_flights", args(pairs))
}

fn flights(cx: &mut Cx, fail: bool) -> Follow {
    let r = flight_request(cx, fail);
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    let result: Value = serde_json::from_str(&r).unwrap_or(Value::Null);
    let flight = result["flight"].as_str().unwrap_or_default().to_owned();
    let departs = result["departs"].as_str().unwrap_or_default().to_owned();
    let price = result["price_usd"].to_string();
    let stops = stops_phrase(result["stops"].as_u64().unwrap_or(0));
    cx.answer_from(
        p::FLIGHT_ANSWERS,
        &[
            ("flight", &flight),
            ("departs", &departs),
            ("stops", &stops),
            ("price", &price),
        ],
        vec![flight.clone(), price.clone()],
    );
    Follow::Nothing
}

/// `[21.3,19.8]` as "21.3 and 19.8"; the items as written.
fn number_list(result: &str) -> Vec<String> {
    let values: Vec<Value> = serde_json::from_str(result).unwrap_or_default();
    values.iter().map(Value::to_string).collect()
}

fn forecast(cx: &mut Cx, fail: bool) -> Follow {
    let loc = cx.location();
    let n = if fail {
        cx.rng.range(8, 30)
    } else {
        cx.rng.range(2, 7)
    }
    .to_string();
    let composed =
        cx.practice.lookalikes(cx.split) && practice::wants_composed_request(&mut cx.rng);
    cx.ask_either(
        composed,
        p::FORECAST,
        &[("loc", &loc), ("n", &n)],
        |rng, held_out| practice::forecast(rng, false, [&loc, &n], held_out),
    );
    let r = cx.call_one(
        "get_weather_forecast",
        json!({"location": loc, "days": num(&n)}),
    );
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    let items = number_list(&r);
    cx.answer_from(
        p::FORECAST_ANSWERS,
        &[("loc", &loc), ("n", &n), ("list", &and_list(&items))],
        items,
    );
    Follow::Nothing
}

const STATISTICS: [&str; 5] = ["mean", "median", "min", "max", "sum"];
const STATISTIC_WORDS: [&str; 5] = ["mean", "median", "minimum", "maximum", "sum"];

fn numbers_list(cx: &mut Cx) -> Vec<String> {
    let count = cx.rng.range(3, 7) as usize;
    let kind = *cx.rng.pick(&[
        NumberKind::Small,
        NumberKind::Small,
        NumberKind::Decimal,
        NumberKind::Large,
    ]);
    let numbers = (0..count).map(|_| cx.number(kind)).collect();
    if cx.practice.numbers(cx.split) {
        practice::with_repeat(&mut cx.rng, numbers)
    } else {
        numbers
    }
}

fn statistics(cx: &mut Cx) -> Follow {
    let stat = cx.rng.below(5);
    let numbers = numbers_list(cx);
    let list = if cx.rng.chance(0.5) {
        numbers.join(", ")
    } else {
        and_list(&numbers)
    };
    let phrasings = [p::MEAN, p::MEDIAN, p::MIN, p::MAX, p::SUM][stat];
    cx.ask_composed(phrasings, &[("list", &list)], |rng, held_out| {
        practice::statistic(rng, stat, &list, held_out)
    });
    let values: Vec<Value> = numbers.iter().map(|n| num(n)).collect();
    let r = cx.call_one(
        "calculate_statistics",
        json!({"numbers": values, "statistic": STATISTICS[stat]}),
    );
    cx.answer_from(
        p::STATISTICS_ANSWERS,
        &[("stat", STATISTIC_WORDS[stat]), ("r", &r)],
        vec![r.clone()],
    );
    Follow::Result { value: r }
}

fn lights(cx: &mut Cx, fail: bool) -> Follow {
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
    if is_error(&r) {
        cx.answer_error(&r);
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

fn distance(cx: &mut Cx, fail: bool) -> Follow {
    let (o, mut d) = cx.two_cities();
    if fail {
        d = o.clone();
    }
    let unit = match cx.rng.below(4) {
        0 => Some(("miles", " in miles")),
        1 => Some(("km", *cx.rng.pick(&[" in km", " in kilometers"]))),
        _ => None,
    };
    cx.ask_phrase(
        p::DISTANCE,
        &[("o", &o), ("d", &d), ("unit", unit.map_or("", |u| u.1))],
    );
    let mut pairs = vec![("origin", json!(o)), ("destination", json!(d))];
    if let Some((u, _)) = unit {
        pairs.push(("unit", json!(u)));
    }
    let r = cx.call_one("get_distance", args(pairs));
    if is_error(&r) {
        cx.answer_error(&r);
        return Follow::Nothing;
    }
    cx.answer_from(
        p::DISTANCE_ANSWERS,
        &[
            ("o", &o),
            ("d", &d),
            ("r", &r),
            ("unit", unit.map_or("km", |u| u.0)),
        ],
        vec![r.clone()],
    );
    Follow::Nothing
}

// ---------------------------------------------------------------- parallel calls

fn temperature_and_wind(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    let (unit, said) = unit_phrase(cx);
    cx.ask_phrase(p::TEMPERATURE_AND_WIND, &[("loc", &loc), ("unit", said)]);
    let results = cx.call(vec![
        (
            "get_current_temperature",
            json!({"location": loc, "unit": unit}),
        ),
        ("get_current_wind_speed", json!({ "location": loc })),
    ]);
    let (t, w) = (&results[0], &results[1]);
    cx.answer_from(
        p::TEMPERATURE_AND_WIND_ANSWERS,
        &[("loc", &loc), ("t", t), ("sym", symbol(unit)), ("w", w)],
        vec![t.clone(), w.clone()],
    );
    Follow::Temperature { loc, unit }
}

fn two_temperatures(cx: &mut Cx) -> Follow {
    let (a, b) = cx.two_locations();
    let (unit, said) = unit_phrase(cx);
    cx.ask_phrase(p::TWO_TEMPERATURES, &[("a", &a), ("b", &b), ("unit", said)]);
    let results = cx.call(vec![
        (
            "get_current_temperature",
            json!({"location": a, "unit": unit}),
        ),
        (
            "get_current_temperature",
            json!({"location": b, "unit": unit}),
        ),
    ]);
    cx.answer_from(
        p::TWO_TEMPERATURES_ANSWERS,
        &[
            ("a", &a),
            ("ta", &results[0]),
            ("b", &b),
            ("tb", &results[1]),
            ("sym", symbol(unit)),
        ],
        results.clone(),
    );
    Follow::Nothing
}

fn two_times(cx: &mut Cx) -> Follow {
    let a = cx.time_place();
    let b = loop {
        let b = cx.time_place();
        if b != a {
            break b;
        }
    };
    cx.ask_phrase(p::TWO_TIMES, &[("a", &a), ("b", &b)]);
    let results = cx.call(vec![
        ("get_current_time", json!({ "timezone": a })),
        ("get_current_time", json!({ "timezone": b })),
    ]);
    cx.answer_from(
        p::TWO_TIMES_ANSWERS,
        &[
            ("a", &a),
            ("ra", &results[0]),
            ("b", &b),
            ("rb", &results[1]),
        ],
        results.clone(),
    );
    Follow::Time
}

fn time_and_temperature(cx: &mut Cx) -> Follow {
    let place = cx.time_city();
    cx.ask_composed(
        p::TIME_AND_TEMPERATURE,
        &[("place", &place)],
        |rng, held_out| practice::time_and_temperature(rng, &place, held_out),
    );
    let results = cx.call(vec![
        ("get_current_time", json!({ "timezone": place })),
        (
            "get_current_temperature",
            json!({"location": place, "unit": "celsius"}),
        ),
    ]);
    cx.answer_from(
        p::TIME_AND_TEMPERATURE_ANSWERS,
        &[("place", &place), ("r", &results[0]), ("t", &results[1])],
        results.clone(),
    );
    Follow::Nothing
}

fn two_stocks(cx: &mut Cx) -> Follow {
    let (a, _) = cx.stock();
    let b = loop {
        let (b, _) = cx.stock();
        if b != a {
            break b;
        }
    };
    cx.ask_phrase(p::TWO_STOCKS, &[("a", &a), ("b", &b)]);
    let results = cx.call(vec![
        ("get_stock_price", json!({ "symbol": a })),
        ("get_stock_price", json!({ "symbol": b })),
    ]);
    cx.answer_from(
        p::TWO_STOCKS_ANSWERS,
        &[
            ("a", &a),
            ("pa", &results[0]),
            ("b", &b),
            ("pb", &results[1]),
        ],
        results.clone(),
    );
    Follow::Stock
}

fn translate_two(cx: &mut Cx) -> Follow {
    let text = phrase_to_translate(cx);
    let langs = cx.rng.sample(v::LANGUAGES, 2);
    let (a, b) = (langs[0], langs[1]);
    cx.ask_phrase(p::TRANSLATE_TWO, &[("text", &text), ("a", a), ("b", b)]);
    let results = cx.call(vec![
        (
            "translate_text",
            json!({"text": text, "target_language": a}),
        ),
        (
            "translate_text",
            json!({"text": text, "target_language": b}),
        ),
    ]);
    cx.answer_from(
        p::TRANSLATE_TWO_ANSWERS,
        &[
            ("text", &text),
            ("a", a),
            ("ra", &results[0]),
            ("b", b),
            ("rb", &results[1]),
        ],
        results.clone(),
    );
    Follow::Nothing
}

// ---------------------------------------------------------------- two steps

fn shares_value(cx: &mut Cx) -> Follow {
    let (sym, _) = cx.stock();
    let n = cx.number(NumberKind::Small);
    cx.ask_phrase(p::SHARES_VALUE, &[("n", &n), ("sym", &sym)]);
    let price = cx.call_one("get_stock_price", json!({ "symbol": sym }));
    let r = cx.call_one(
        "calculate",
        json!({"operation": "multiply", "a": num(&price), "b": num(&n)}),
    );
    cx.answer_from(
        p::SHARES_VALUE_ANSWERS,
        &[("n", &n), ("sym", &sym), ("p", &price), ("r", &r)],
        vec![r.clone()],
    );
    Follow::Result { value: r }
}

fn temperature_kelvin(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    cx.ask_phrase(p::TEMPERATURE_KELVIN, &[("loc", &loc)]);
    let t = temperature_call(cx, &loc, "celsius");
    let k = cx.call_one(
        "convert_units",
        json!({"value": num(&t), "from_unit": "celsius", "to_unit": "kelvin"}),
    );
    cx.answer_from(
        p::TEMPERATURE_KELVIN_ANSWERS,
        &[("loc", &loc), ("t", &t), ("k", &k)],
        vec![k.clone()],
    );
    Follow::Nothing
}

fn flight_in_currency(cx: &mut Cx) -> Follow {
    let (o, d) = cx.two_cities();
    let date = v::date(&mut cx.rng, cx.split);
    let cur = loop {
        let c = cx.rng.pick(v::CURRENCIES).0;
        if c != "USD" {
            break c;
        }
    };
    cx.ask_phrase(
        p::FLIGHT_IN_CURRENCY,
        &[("o", &o), ("d", &d), ("date", &date), ("cur", cur)],
    );
    let r = cx.call_one(
        "search_flights",
        json!({"origin": o, "destination": d, "date": date, "nonstop_only": false}),
    );
    let result: Value = serde_json::from_str(&r).unwrap_or(Value::Null);
    let price = result["price_usd"].to_string();
    let converted = currency_call(cx, &price, "USD", cur);
    let flight = result["flight"].as_str().unwrap_or_default().to_owned();
    let departs = result["departs"].as_str().unwrap_or_default().to_owned();
    cx.answer_from(
        p::FLIGHT_IN_CURRENCY_ANSWERS,
        &[
            ("flight", &flight),
            ("departs", &departs),
            ("price", &price),
            ("r", &converted),
            ("cur", cur),
        ],
        vec![flight.clone(), converted.clone()],
    );
    Follow::Nothing
}

fn temperature_difference(cx: &mut Cx) -> Follow {
    let (a, b) = cx.two_locations();
    cx.ask_composed(
        p::TEMPERATURE_DIFFERENCE,
        &[("a", &a), ("b", &b)],
        |rng, held_out| practice::temperature_difference(rng, &a, &b, held_out),
    );
    let results = cx.call(vec![
        (
            "get_current_temperature",
            json!({"location": a, "unit": "celsius"}),
        ),
        (
            "get_current_temperature",
            json!({"location": b, "unit": "celsius"}),
        ),
    ]);
    let d = cx.call_one(
        "calculate",
        json!({"operation": "subtract", "a": num(&results[0]), "b": num(&results[1])}),
    );
    cx.answer_from(
        p::TEMPERATURE_DIFFERENCE_ANSWERS,
        &[
            ("a", &a),
            ("ta", &results[0]),
            ("b", &b),
            ("tb", &results[1]),
            ("d", &d),
        ],
        vec![d.clone()],
    );
    Follow::Result { value: d }
}

fn currency_total(cx: &mut Cx) -> Follow {
    let (c1, c2) = two_currencies(cx);
    let x = amount(cx);
    let y = amount(cx);
    cx.ask_composed(
        p::CURRENCY_TOTAL,
        &[("x", &x), ("c1", c1), ("y", &y), ("c2", c2)],
        |rng, held_out| practice::currency_total(rng, [&x, c1, &y, c2], held_out),
    );
    let r1 = currency_call(cx, &x, c1, c2);
    let r = cx.call_one(
        "calculate",
        json!({"operation": "add", "a": num(&r1), "b": num(&y)}),
    );
    cx.answer_from(
        p::CURRENCY_TOTAL_ANSWERS,
        &[
            ("x", &x),
            ("c1", c1),
            ("r1", &r1),
            ("y", &y),
            ("c2", c2),
            ("r", &r),
        ],
        vec![r.clone()],
    );
    Follow::Result { value: r }
}

fn forecast_average(cx: &mut Cx) -> Follow {
    let loc = cx.location();
    let n = cx.rng.range(2, 7).to_string();
    cx.ask_composed(
        p::FORECAST_AVERAGE,
        &[("loc", &loc), ("n", &n)],
        |rng, held_out| practice::forecast(rng, true, [&loc, &n], held_out),
    );
    let highs = cx.call_one(
        "get_weather_forecast",
        json!({"location": loc, "days": num(&n)}),
    );
    let list: Value = serde_json::from_str(&highs).unwrap_or(Value::Null);
    let r = cx.call_one(
        "calculate_statistics",
        json!({"numbers": list, "statistic": "mean"}),
    );
    let items = number_list(&highs);
    cx.answer_from(
        p::FORECAST_AVERAGE_ANSWERS,
        &[
            ("loc", &loc),
            ("n", &n),
            ("list", &and_list(&items)),
            ("r", &r),
        ],
        vec![r.clone()],
    );
    Follow::Result { value: r }
}

fn two_operations(cx: &mut Cx) -> Follow {
    // Power is left out: its results grow too fast to read.
    let op1 = cx.rng.below(4);
    let op2 = cx.rng.below(4);
    let (a, b) = operands(cx, op1);
    let c = cx.number(if op2 == 3 {
        NumberKind::Tiny
    } else {
        NumberKind::Small
    });
    cx.ask_phrase(
        p::TWO_OPERATIONS,
        &[
            ("a", &a),
            ("op1", p::OPERATION_WORDS[op1]),
            ("b", &b),
            ("op2", p::THEN_WORDS[op2]),
            ("c", &c),
        ],
    );
    let r1 = cx.call_one(
        "calculate",
        json!({"operation": OPERATIONS[op1], "a": num(&a), "b": num(&b)}),
    );
    let r = cx.call_one(
        "calculate",
        json!({"operation": OPERATIONS[op2], "a": num(&r1), "b": num(&c)}),
    );
    cx.answer_from(
        p::TWO_OPERATIONS_ANSWERS,
        &[
            ("a", &a),
            ("op1", p::OPERATION_WORDS[op1]),
            ("b", &b),
            ("r1", &r1),
            ("op2", p::OPERATION_WORDS[op2]),
            ("c", &c),
            ("r", &r),
        ],
        vec![r.clone()],
    );
    Follow::Result { value: r }
}

/// Runs one request to its answer; `fail` makes the tool fail where the
/// intent has such a variant.
fn run(cx: &mut Cx, intent: Intent, fail: bool) -> Follow {
    match intent {
        Temperature => temperature(cx),
        Wind => wind(cx),
        Calculate => calculate(cx, fail),
        ConvertUnits => convert_units(cx, fail),
        Time => time(cx, fail),
        Currency => currency(cx, fail),
        Search => search(cx, fail),
        Stock => stock(cx, fail),
        Translate => translate(cx, fail),
        Calendar => calendar(cx, fail),
        Reminder => reminder(cx, fail),
        Email => email(cx, fail),
        Flights => flights(cx, fail),
        Forecast => forecast(cx, fail),
        Statistics => statistics(cx),
        Lights => lights(cx, fail),
        Distance => distance(cx, fail),
        TemperatureAndWind => temperature_and_wind(cx),
        TwoTemperatures => two_temperatures(cx),
        TwoTimes => two_times(cx),
        TimeAndTemperature => time_and_temperature(cx),
        TwoStocks => two_stocks(cx),
        TranslateTwo => translate_two(cx),
        SharesValue => shares_value(cx),
        TemperatureKelvin => temperature_kelvin(cx),
        FlightInCurrency => flight_in_currency(cx),
        TemperatureDifference => temperature_difference(cx),
        CurrencyTotal => currency_total(cx),
        ForecastAverage => forecast_average(cx),
        TwoOperations => two_operations(cx),
    }
}

/// A second question that builds on the first answer; false when the first
/// left nothing to build on.
fn follow_up(cx: &mut Cx, follow: Follow) -> bool {
    match follow {
        Follow::Temperature { loc, unit } => {
            if unit == "celsius" && cx.rng.chance(0.4) {
                let template = cx.phrase(p::IN_FAHRENHEIT);
                cx.ask(template.to_owned());
                let t = temperature_call(cx, &loc, "fahrenheit");
                answer_temperature(cx, &loc, "fahrenheit", &t);
            } else {
                let other = loop {
                    let other = cx.location();
                    if city_of(&other) != city_of(&loc) {
                        break other;
                    }
                };
                cx.ask_follow_up(p::ANOTHER_PLACE, "loc", &other);
                let t = temperature_call(cx, &other, unit);
                answer_temperature(cx, &other, unit, &t);
            }
            true
        }
        Follow::Wind => {
            let loc = cx.location();
            cx.ask_follow_up(p::ANOTHER_PLACE, "loc", &loc);
            wind_call(cx, &loc);
            true
        }
        Follow::Time => {
            let place = cx.time_place();
            cx.ask_follow_up(p::ANOTHER_PLACE, "loc", &place);
            let r = cx.call_one("get_current_time", json!({ "timezone": place }));
            time_answer(cx, Some(&place), &r);
            true
        }
        Follow::Stock => {
            let (sym, _) = cx.stock();
            cx.ask_follow_up(p::ANOTHER_STOCK, "sym", &sym);
            stock_call(cx, &sym);
            true
        }
        Follow::Currency { amount, from, to } => {
            let other = loop {
                let c = cx.rng.pick(v::CURRENCIES).0;
                if c != from && c != to {
                    break c;
                }
            };
            cx.ask_follow_up(p::ANOTHER_CURRENCY, "to", other);
            let r = currency_call(cx, &amount, &from, other);
            currency_answer(cx, &amount, &from, other, &r);
            true
        }
        Follow::Result { value } => {
            let (verb, op) = *cx.rng.pick(p::RESULT_VERBS);
            let n = cx.rng.range(2, 12).to_string();
            let template = cx.phrase(p::ON_THE_RESULT);
            let capitalised = {
                let mut c = verb.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect::<String>())
                    .unwrap_or_default()
            };
            cx.ask(fill(
                template,
                &[("op", verb), ("Op", &capitalised), ("n", &n)],
            ));
            let r = cx.call_one(
                "calculate",
                json!({"operation": op, "a": num(&value), "b": num(&n)}),
            );
            let op_index = OPERATIONS.iter().position(|o| *o == op).unwrap_or(2);
            cx.answer_from(
                p::CALCULATE_ANSWERS,
                &[
                    ("a", &value),
                    ("op", p::OPERATION_WORDS[op_index]),
                    ("b", &n),
                    ("r", &r),
                ],
                vec![r.clone()],
            );
            true
        }
        Follow::Nothing => false,
    }
}

// ---------------------------------------------------------------- examples

/// The scenario kinds and how often each is drawn.
const SCENARIOS: &[(Scenario, u32)] = &[
    (Scenario::Single, 30),
    (Scenario::Parallel, 12),
    (Scenario::Chain, 10),
    (Scenario::FollowUp, 12),
    (Scenario::ToolError, 9),
    (Scenario::OutOfScope, 9),
    (Scenario::SmallTalk, 7),
    (Scenario::Unavailable, 9),
    (Scenario::Capabilities, 3),
    (Scenario::Session, 20),
];

fn weighted(rng: &mut Rng, table: &[(Intent, u32)]) -> Intent {
    let weights: Vec<u32> = table.iter().map(|t| t.1).collect();
    table[rng.weighted(&weights)].0
}

/// The tools offered: exactly the demo toolbox when it covers the request
/// (often: that is what `tool-use chat` offers), else the needed tools plus
/// a few others, shuffled.
fn offer(rng: &mut Rng, needed: &[&str], excluded: &[&str], all: &[String]) -> Vec<String> {
    let demo_covers = needed.iter().all(|n| demo::NAMES.contains(n))
        && excluded.iter().all(|e| !demo::NAMES.contains(e));
    if demo_covers && rng.chance(0.55) {
        return demo::NAMES.iter().map(|s| (*s).to_owned()).collect();
    }
    let mut chosen: Vec<String> = Vec::new();
    for name in needed {
        // Two requests of a conversation may need the same tool.
        if !chosen.iter().any(|c| c == name) {
            chosen.push((*name).to_owned());
        }
    }
    let others: Vec<&String> = all
        .iter()
        .filter(|n| !needed.contains(&n.as_str()) && !excluded.contains(&n.as_str()))
        .collect();
    // At least two tools are offered, so that the choice means something.
    let extra = rng.range(if needed.len() < 2 { 2 } else { 1 }, 4) as usize;
    for name in rng.sample(&others, extra) {
        if !chosen.contains(name) {
            chosen.push(name.clone());
        }
    }
    rng.shuffle(&mut chosen);
    chosen
}

/// A seeded example of `split`; `toolbox` holds every corpus tool.
pub(crate) fn example(mut rng: Rng, split: Split, all: &[String], practice: Practice) -> Example {
    let weights: Vec<u32> = SCENARIOS
        .iter()
        .map(|&(scenario, weight)| {
            REWEIGHTS
                .iter()
                .filter(|(holds, _)| holds(practice, split))
                .fold(weight, |weight, (_, reweigh)| reweigh(scenario, weight))
        })
        .collect();
    let scenario = SCENARIOS[rng.weighted(&weights)].0;
    // The clock of this conversation: some instant in 2025 to 2027.
    let clock = Clock::Fixed(DateTime::from_unix(
        1_735_689_600 + rng.range(0, 3 * 365 * 86_400 - 1),
    ));
    let toolbox = super::tools::toolbox(clock);
    let system = rng
        .chance(0.25)
        .then(|| *rng.pick(super::values::SYSTEM_PROMPTS));
    let conversation_rng = Rng::for_example(rng.next_u64(), 0);
    let mut cx = Cx::new(conversation_rng, split, &toolbox, practice);
    if let Some(system) = system {
        cx.messages.push(Message::system(system));
    }
    let offered = match scenario {
        Scenario::Single | Scenario::FollowUp => {
            let intent = weighted(&mut rng, SINGLE);
            let follow = run(&mut cx, intent, false);
            let mut needed: Vec<&str> = intent.tools().to_vec();
            if scenario == Scenario::FollowUp {
                let unrelated = matches!(follow, Follow::Nothing) || rng.chance(0.3);
                if unrelated {
                    // An unrelated second request, or thanks.
                    if rng.chance(0.25) {
                        let (text, reply) = *v::pick(&mut cx.rng, v::THANKS, split);
                        cx.small_talk(text.to_owned(), reply);
                    } else {
                        another_request(&mut cx, &mut rng, &mut needed);
                    }
                } else {
                    let result_follow = matches!(follow, Follow::Result { .. });
                    follow_up(&mut cx, follow);
                    if result_follow && !needed.contains(&"calculate") {
                        needed.push("calculate");
                    }
                }
            }
            offer(&mut rng, &needed, &[], all)
        }
        Scenario::Parallel | Scenario::Chain => {
            let table = if scenario == Scenario::Parallel {
                PARALLEL
            } else {
                CHAIN
            };
            let intent = weighted(&mut rng, table);
            run(&mut cx, intent, false);
            offer(&mut rng, intent.tools(), &[], all)
        }
        Scenario::Session => {
            let turns = rng.range(3, 4);
            let intent = weighted(&mut rng, SINGLE);
            run(&mut cx, intent, false);
            let mut needed: Vec<&str> = intent.tools().to_vec();
            for _ in 1..turns {
                another_request(&mut cx, &mut rng, &mut needed);
            }
            offer(&mut rng, &needed, &[], all)
        }
        Scenario::ToolError => {
            let intent = weighted(&mut rng, FAILING);
            run(&mut cx, intent, true);
            offer(&mut rng, intent.tools(), &[], all)
        }
        Scenario::OutOfScope => {
            let (request, task) =
                if cx.practice.declines(split) && practice::wants_composed_decline(&mut cx.rng) {
                    let topic = v::invented_text(&mut cx.rng, split, 1, 3);
                    practice::decline(&mut cx.rng, &topic, cases::is_held_out_request)
                } else if cx.rng.chance(0.5) {
                    let (template, task) = *v::pick(&mut cx.rng, p::OUT_OF_SCOPE_IN_PLACE, split);
                    let city = cx.city();
                    let n = cx.number(NumberKind::Tiny);
                    (fill(template, &[("city", &city), ("n", &n)]), task)
                } else {
                    let (request, task) = *v::pick(&mut cx.rng, v::OUT_OF_SCOPE, split);
                    (request.to_owned(), task)
                };
            cx.user(request);
            cx.answer_from(p::CANNOT_ANSWERS, &[("task", task)], Vec::new());
            offer(&mut rng, &[], &[], all)
        }
        Scenario::SmallTalk => {
            let (text, reply) =
                if cx.practice.wide(split) && practice::wants_composed_small_talk(&mut cx.rng) {
                    if cx.rng.chance(0.5) {
                        practice::greeting(&mut cx.rng, cases::is_held_out_small_talk)
                    } else {
                        practice::thanks(&mut cx.rng, cases::is_held_out_small_talk)
                    }
                } else {
                    let (text, reply) = *v::pick(&mut cx.rng, v::SMALL_TALK, split);
                    (text.to_owned(), reply)
                };
            cx.small_talk(text, reply);
            offer(&mut rng, &[], &[], all)
        }
        Scenario::Unavailable => {
            let intent = weighted(&mut rng, SINGLE);
            // Write the request as usual, then keep only the question.
            let mut scratch = Cx::new(
                Rng::for_example(rng.next_u64(), 1),
                split,
                &toolbox,
                practice,
            );
            run(&mut scratch, intent, false);
            let request = scratch
                .messages
                .first()
                .map(|m| m.text().to_owned())
                .unwrap_or_default();
            cx.user(request);
            cx.answer_from(
                p::UNAVAILABLE_ANSWERS,
                &[("capability", intent.capability())],
                Vec::new(),
            );
            let mut excluded: Vec<&str> = intent.tools().to_vec();
            excluded.extend(intent.relatives());
            // With lookalike practice, often beside a tool it could be
            // mistaken for.
            let alike = if practice.lookalikes(split) {
                practice::lookalike(&mut rng, intent.tools()[0], &excluded)
            } else {
                None
            };
            offer(&mut rng, alike.as_slice(), &excluded, all)
        }
        Scenario::Capabilities => {
            let offered = offer(&mut rng, &[], &[], all);
            let template = cx.phrase(p::CAPABILITIES);
            cx.user(template.to_owned());
            cx.answer_from(
                p::CAPABILITIES_ANSWERS,
                &[("names", &offered.join(", "))],
                offered.clone(),
            );
            offered
        }
    };
    // A failed request is not thanked for; sessions are with decline
    // practice, where v13 called a tool for thanks deep in a session.
    let finished_request = matches!(
        scenario,
        Scenario::Single | Scenario::Parallel | Scenario::Chain
    ) || (scenario == Scenario::Session && cx.practice.declines(split));
    // With chat practice, thanks get a second draw.
    let thanks = finished_request
        && cx.practice.wide(split)
        && (practice::wants_thanks(&mut cx.rng)
            || (cx.practice.chat(split) && practice::wants_thanks(&mut cx.rng)));
    if thanks {
        let (text, reply) = practice::thanks(&mut cx.rng, cases::is_held_out_small_talk);
        cx.small_talk(text, reply);
    }
    cx.into_example(&offered, scenario)
}

/// Whether a text is, in other case or marks, one of `list`'s held-out
/// phrasings with `slots` filled: what composed practice requests must
/// never be.
fn held_out_phrasing(list: &[&str], slots: &[(&str, &str)]) -> impl Fn(&str) -> bool {
    let held_out: Vec<String> = v::part(list, Split::HeldOut)
        .map(|t| fill(t, slots))
        .collect();
    move |text| held_out.iter().any(|h| practice::same_words(h, text))
}

/// [`SCENARIOS`]' weight for `scenario` with [`Practice::FollowUps`]: more
/// requests after an answer (v9 answered some follow-ups as if thanked,
/// and some chained requests with the first result).
fn follow_up_weight(scenario: Scenario, weight: u32) -> u32 {
    match scenario {
        Scenario::FollowUp => 16,
        Scenario::Chain => 14,
        _ => weight,
    }
}

/// Whether a practice holds for a conversation of a split.
type PracticeHolds = fn(Practice, Split) -> bool;
/// A scenario's weight under a practice, from the one before it.
type Reweigh = fn(Scenario, u32) -> u32;

/// The practices that change [`SCENARIOS`]' weights, each applied on top
/// of the ones before it where the practice holds.
const REWEIGHTS: [(PracticeHolds, Reweigh); 4] = [
    (Practice::wide, wide_weight),
    (Practice::follow_ups, follow_up_weight),
    (Practice::declines, decline_weight),
    (Practice::chat, chat_weight),
];

/// [`SCENARIOS`]' weight for `scenario` with [`Practice::Chat`]: more
/// small talk, where bare practice's short requests made greetings look
/// like requests.
fn chat_weight(scenario: Scenario, weight: u32) -> u32 {
    match scenario {
        Scenario::SmallTalk => 20,
        _ => weight,
    }
}

/// [`SCENARIOS`]' weight for `scenario` with [`Practice::Declines`]: more
/// requests that need no tool, where v13 called one.
fn decline_weight(scenario: Scenario, weight: u32) -> u32 {
    match scenario {
        Scenario::OutOfScope => 14,
        Scenario::SmallTalk => 12,
        _ => weight,
    }
}

/// [`SCENARIOS`]' weight for `scenario` with [`Practice::Wide`]: more turns
/// that call nothing, where v8 still called a tool.
fn wide_weight(scenario: Scenario, weight: u32) -> u32 {
    match scenario {
        Scenario::Unavailable => 15,
        Scenario::SmallTalk => 10,
        Scenario::OutOfScope => 11,
        _ => weight,
    }
}

/// One more, unrelated request of the conversation, with its calls and
/// answer; the tools it needs are added to `needed`.
fn another_request(cx: &mut Cx, rng: &mut Rng, needed: &mut Vec<&str>) {
    let intent = weighted(rng, SINGLE);
    let before = cx.messages.len();
    run(cx, intent, false);
    prefix_also(cx, before);
    needed.extend(intent.tools());
}

/// Starts the second request of a conversation with "Also, " and the like.
fn prefix_also(cx: &mut Cx, at: usize) {
    let also = *cx.rng.pick(p::ALSO);
    if also.is_empty() {
        return;
    }
    if let Some(message) = cx.messages.get_mut(at) {
        let text = message.text().to_owned();
        if also.ends_with(". ") {
            message.content = Some(format!("{also}{text}"));
        } else if starts_lowercasable(&text) {
            message.content = Some(format!("{also}{}", lowercase_first(&text)));
        }
    }
}
