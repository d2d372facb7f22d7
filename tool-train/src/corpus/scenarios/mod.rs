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
use super::transcript::Transcript;
use super::values::{self as v, NumberKind};
use super::{Case, Example, Scenario, Split};
use serde_json::{json, Map, Value};
use tool_use::template::{Clock, DateTime};
use tool_use::{demo, Message, Toolbox};

mod cases;
pub(crate) use cases::case_example;
mod agenda;
mod chains;
mod context;
mod home;
mod lookups;
mod money;
mod numbers;
mod parallel;
mod time;
mod travel;
mod weather;

use agenda::{calendar, email, reminder};
use chains::{
    currency_total, flight_in_currency, forecast_average, shares_value, temperature_difference,
    temperature_kelvin, two_operations,
};
use context::Cx;
use home::lights;
use lookups::{phrase_to_translate, search, translate};
use money::{
    amount, currency, currency_answer, currency_call, currency_name, stock, stock_call,
    two_currencies,
};
use numbers::{
    calculate, convert_units, operands, statistics, unit_request, UnitNames, OPERATIONS,
};
use parallel::{
    temperature_and_wind, time_and_temperature, translate_two, two_stocks, two_temperatures,
    two_times,
};
use time::{time, time_answer};
use travel::{distance, flights};
use weather::{
    answer_temperature, forecast, forecast_call, number_list, symbol, temperature,
    temperature_call, temperatures_call, unit_phrase, wind, wind_call,
};

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

pub(crate) fn lowercase_first(text: &str) -> String {
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
pub(crate) fn num(text: &str) -> Value {
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
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The text at `key` of a tool's result object (empty where there is none).
fn text_at(result: &Value, key: &str) -> String {
    result[key].as_str().unwrap_or_default().to_owned()
}

fn is_error(result: &str) -> bool {
    result.starts_with("Error: ")
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
            let r = cx.calculate(op, &value, &n);
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
                .filter(|&&(reweighing, _)| practice.holds(reweighing, split))
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
        cx.transcript.messages.push(Message::system(system));
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
            let (request, task) = if cx.practice.holds(Practice::Declines, split)
                && practice::wants_composed_decline(&mut cx.rng)
            {
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
            let (text, reply) = if cx.practice.holds(Practice::Wide, split)
                && practice::wants_composed_small_talk(&mut cx.rng)
            {
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
                .transcript
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
            let alike = if practice.holds(Practice::Lookalikes, split) {
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
    ) || (scenario == Scenario::Session
        && cx.practice.holds(Practice::Declines, split));
    // With chat practice, thanks get a second draw.
    let thanks = finished_request
        && cx.practice.holds(Practice::Wide, split)
        && (practice::wants_thanks(&mut cx.rng)
            || (cx.practice.holds(Practice::Chat, split) && practice::wants_thanks(&mut cx.rng)));
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

/// A scenario's weight under a practice, from the one before it.
type Reweigh = fn(Scenario, u32) -> u32;

/// The practices that change [`SCENARIOS`]' weights, each applied on top
/// of the ones before it where the practice holds.
const REWEIGHTS: [(Practice, Reweigh); 4] = [
    (Practice::Wide, wide_weight),
    (Practice::FollowUps, follow_up_weight),
    (Practice::Declines, decline_weight),
    (Practice::Chat, chat_weight),
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
    let before = cx.transcript.messages.len();
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
    if let Some(message) = cx.transcript.messages.get_mut(at) {
        let text = message.text().to_owned();
        if also.ends_with(". ") {
            message.content = Some(format!("{also}{text}"));
        } else if starts_lowercasable(&text) {
            message.content = Some(format!("{also}{}", lowercase_first(&text)));
        }
    }
}
