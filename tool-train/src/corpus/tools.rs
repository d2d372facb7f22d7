//! The tools of the corpus: real `#[tool]` functions, called through a
//! [`Toolbox`] so that every result in the corpus is what the tool returns.
//!
//! The demo tools of `tool-use chat` ([`tool_use::demo`]) are among them; the
//! others cover the remaining kinds of requests and every kind of argument:
//! strings, enums, integers, numbers, booleans, arrays and optional ones.
//! Results are deterministic: made-up values derive from a hash of the
//! arguments.

use super::rng::hash;
use super::values::{AIRLINES, CURRENCIES, LANGUAGES, NO_STOCKS, PHRASES, UNKNOWN_PHRASES};
use serde_json::{json, Value};
use std::sync::Arc;
use tool_use::demo::{self, number};
use tool_use::template::{Clock, DateTime};
use tool_use::{tool, tools, DefinitionFormat, ToolSet, Toolbox};

/// Convert an amount of money from one currency to another.
///
/// Args:
///     amount: The amount of money
///     from_currency: The three-letter code of the currency to convert from, e.g. "USD"
///     to_currency: The three-letter code of the currency to convert to, e.g. "EUR"
#[tool]
pub fn convert_currency(
    amount: f64,
    from_currency: String,
    to_currency: String,
) -> Result<Value, String> {
    let rate = |code: &str| {
        CURRENCIES
            .iter()
            .find(|c| c.0.eq_ignore_ascii_case(code.trim()))
            .map(|c| c.2)
            .ok_or_else(|| format!("unknown currency \"{code}\""))
    };
    let from = rate(&from_currency)?;
    let to = rate(&to_currency)?;
    Ok(number((amount / from * to * 100.0).round() / 100.0))
}

/// Search the web.
///
/// Args:
///     query: What to search for
///     max_results: How many results to return (1 to 5, default 3)
#[tool]
pub fn search_web(query: String, max_results: Option<u32>) -> Result<Vec<String>, String> {
    let count = max_results.unwrap_or(3);
    if !(1..=5).contains(&count) {
        return Err(format!("max_results must be between 1 and 5, got {count}"));
    }
    let query = query.trim();
    if query.is_empty() {
        return Err("the query is empty".into());
    }
    const TITLES: [&str; 8] = [
        "{q} - Wikipedia",
        "{q}: a complete guide",
        "Latest news about {q}",
        "{q} explained",
        "10 things to know about {q}",
        "{q} | Britannica",
        "A beginner's guide to {q}",
        "{q}: questions and answers",
    ];
    let start = (hash(&query.to_lowercase()) % TITLES.len() as u64) as usize;
    Ok((0..count as usize)
        .map(|i| TITLES[(start + i) % TITLES.len()].replace("{q}", query))
        .collect())
}

/// Get the latest price of a stock in US dollars.
///
/// Args:
///     symbol: The stock's ticker symbol, e.g. "AAPL"
#[tool]
pub fn get_stock_price(symbol: String) -> Result<Value, String> {
    let symbol = symbol.trim().to_uppercase();
    // Any symbol a ticker could be is priced (the corpus makes many up), but
    // for those of `NO_STOCKS`, which give the corpus its errors.
    let listed = (1..=5).contains(&symbol.len()) && symbol.chars().all(|c| c.is_ascii_uppercase());
    if !listed || NO_STOCKS.contains(&symbol.as_str()) {
        return Err(format!("unknown stock symbol \"{symbol}\""));
    }
    let h = hash(&symbol);
    Ok(number(
        ((5.0 + (h % 80_000) as f64 * 0.012) * 100.0).round() / 100.0,
    ))
}

/// Translate a short phrase from English.
///
/// Args:
///     text: The English text to translate
///     target_language: The language to translate into. (choices: ["Spanish", "French", "German", "Italian", "Portuguese"])
#[tool]
pub fn translate_text(text: String, target_language: String) -> Result<String, String> {
    let column = LANGUAGES
        .iter()
        .position(|l| l.eq_ignore_ascii_case(&target_language))
        .ok_or_else(|| format!("cannot translate into {target_language}"))?;
    let wanted = normalise_phrase(&text);
    if let Some((_, translations)) = PHRASES
        .iter()
        .find(|(english, _)| normalise_phrase(english) == wanted)
    {
        return Ok(translations[column].to_owned());
    }
    if wanted.is_empty()
        || UNKNOWN_PHRASES
            .iter()
            .any(|u| normalise_phrase(u) == wanted)
    {
        return Err(format!("no translation available for \"{}\"", text.trim()));
    }
    Ok(pseudo_translation(&wanted, column))
}

/// A stand-in translation of a phrase the table lacks: each word becomes a
/// made-up word of the language, the same every time. The model has to copy
/// it into its answer, as it would a real one.
fn pseudo_translation(phrase: &str, language: usize) -> String {
    const ENDINGS: [&[&str]; 5] = [
        &["o", "a", "ez", "ar", "ión"],
        &["e", "eau", "ier", "on", "ette"],
        &["en", "er", "ung", "lich", "chen"],
        &["o", "i", "etto", "are", "ina"],
        &["ão", "os", "inho", "ar", "eira"],
    ];
    const STEMS: &[&str] = &[
        "bal", "cor", "dem", "fal", "gor", "hel", "lum", "mar", "nev", "pol", "ros", "sal", "tal",
        "ver", "zan", "bri", "cas", "dol", "fen", "gal",
    ];
    let endings = ENDINGS[language.min(ENDINGS.len() - 1)];
    let words: Vec<String> = phrase
        .split_whitespace()
        .map(|word| {
            let h = hash(&format!("{language}:{word}"));
            let stem = STEMS[(h % STEMS.len() as u64) as usize];
            let ending = endings[((h / 64) % endings.len() as u64) as usize];
            format!("{stem}{ending}")
        })
        .collect();
    let mut sentence = words.join(" ");
    if let Some(first) = sentence.get(..1) {
        sentence = first.to_uppercase() + &sentence[1..];
    }
    sentence
}

fn normalise_phrase(text: &str) -> String {
    text.trim()
        .trim_end_matches(['.', '!', '?'])
        .trim()
        .to_lowercase()
}

/// Add an event to the calendar.
///
/// Args:
///     title: The event's title
///     date: The date, as YYYY-MM-DD
///     time: The start time, as HH:MM
///     duration_minutes: How long it lasts in minutes (default 60)
///     attendees: Names of the people to invite
#[tool]
pub fn create_calendar_event(
    title: String,
    date: String,
    time: String,
    duration_minutes: Option<u32>,
    attendees: Option<Vec<String>>,
) -> Result<Value, String> {
    let start = DateTime::parse(&format!("{date}T{time}"))
        .map_err(|_| format!("invalid date or time: \"{date} {time}\""))?;
    let duration = duration_minutes.unwrap_or(60);
    if duration == 0 || duration > 24 * 60 {
        return Err(format!(
            "duration_minutes must be between 1 and 1440, got {duration}"
        ));
    }
    let end = add_minutes(start, i64::from(duration));
    let mut result = json!({
        "status": "created",
        "title": title.trim(),
        "start": format_minute(start),
        "end": format_minute(end),
    });
    if let Some(people) = attendees.filter(|p| !p.is_empty()) {
        result["invited"] = json!(people);
    }
    Ok(result)
}

/// Send an email.
///
/// Args:
///     to: The recipient's email address
///     subject: The subject line
///     body: The text of the email
///     cc: Email addresses to copy
///     urgent: Mark the email as urgent
#[tool]
pub fn send_email(
    to: String,
    subject: String,
    body: String,
    cc: Option<Vec<String>>,
    #[arg(default = false)] urgent: bool,
) -> Result<Value, String> {
    let valid = |a: &str| {
        let a = a.trim();
        a.split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'))
    };
    if !valid(&to) {
        return Err(format!("\"{to}\" is not an email address"));
    }
    let cc = cc.unwrap_or_default();
    if let Some(bad) = cc.iter().find(|a| !valid(a)) {
        return Err(format!("\"{bad}\" is not an email address"));
    }
    if subject.trim().is_empty() && body.trim().is_empty() {
        return Err("the email has neither a subject nor a body".into());
    }
    let id = hash(&format!("{to}\n{subject}\n{body}")) % 90_000 + 10_000;
    let mut result = json!({"status": "sent", "to": to.trim(), "message_id": format!("msg_{id}")});
    if urgent {
        result["urgent"] = json!(true);
    }
    Ok(result)
}

/// Find the cheapest flight between two cities on a date.
///
/// Args:
///     origin: The city to fly from
///     destination: The city to fly to
///     date: The date of the flight, as YYYY-MM-DD
///     passengers: How many people fly (default 1)
///     nonstop_only: Only direct flights
#[tool]
pub fn search_flights(
    origin: String,
    destination: String,
    date: String,
    passengers: Option<u32>,
    nonstop_only: bool,
) -> Result<Value, String> {
    if origin.trim().eq_ignore_ascii_case(destination.trim()) {
        return Err("origin and destination are the same".into());
    }
    DateTime::parse(&format!("{date}T00:00")).map_err(|_| format!("invalid date: \"{date}\""))?;
    let passengers = passengers.unwrap_or(1);
    if !(1..=9).contains(&passengers) {
        return Err(format!(
            "passengers must be between 1 and 9, got {passengers}"
        ));
    }
    let h = hash(&format!(
        "{}|{}|{date}",
        origin.trim().to_lowercase(),
        destination.trim().to_lowercase()
    ));
    let airline = AIRLINES[(h % AIRLINES.len() as u64) as usize];
    let number = (h >> 8) % 9000 + 100;
    let minutes = ((h >> 24) % 64) * 15 + 6 * 60;
    let stops = if nonstop_only { 0 } else { (h >> 32) % 3 / 2 };
    let fare = 49 + (h >> 40) % 900 + if stops == 0 { 60 } else { 0 };
    Ok(json!({
        "flight": format!("{airline}{number}"),
        "departs": format!("{date} {:02}:{:02}", minutes / 60, minutes % 60),
        "stops": stops,
        "price_usd": fare * u64::from(passengers),
    }))
}

/// Get the daily high temperatures in Celsius for the coming days.
///
/// Args:
///     location: The city, e.g. "Paris, France"
///     days: How many days, 1 to 7
#[tool]
pub fn get_weather_forecast(location: String, days: u32) -> Result<Vec<f64>, String> {
    if !(1..=7).contains(&days) {
        return Err(format!("days must be between 1 and 7, got {days}"));
    }
    let today = demo::get_current_temperature(location.clone(), "celsius".into());
    let h = hash(&location.trim().to_lowercase());
    Ok((0..days)
        .map(|d| {
            let swing = ((h >> (d * 6)) % 61) as f64 / 10.0 - 3.0;
            ((today + swing) * 10.0).round() / 10.0
        })
        .collect())
}

/// Compute a statistic of a list of numbers.
///
/// Args:
///     numbers: The numbers
///     statistic: Which statistic. (choices: ["mean", "median", "min", "max", "sum"])
#[tool]
pub fn calculate_statistics(numbers: Vec<f64>, statistic: String) -> Result<Value, String> {
    if numbers.is_empty() {
        return Err("the list of numbers is empty".into());
    }
    let mut sorted = numbers.clone();
    sorted.sort_by(f64::total_cmp);
    let sum: f64 = numbers.iter().sum();
    let value = match statistic.as_str() {
        "mean" => sum / numbers.len() as f64,
        "median" => {
            let mid = sorted.len() / 2;
            if sorted.len().is_multiple_of(2) {
                (sorted[mid - 1] + sorted[mid]) / 2.0
            } else {
                sorted[mid]
            }
        }
        "min" => sorted[0],
        "max" => sorted[sorted.len() - 1],
        "sum" => sum,
        other => return Err(format!("unknown statistic \"{other}\"")),
    };
    Ok(number((value * 10_000.0).round() / 10_000.0))
}

/// Turn the lights in a room on or off.
///
/// Args:
///     room: The room, e.g. "kitchen"
///     on: True to turn the lights on, false to turn them off
///     brightness: Brightness in percent, 0 to 100
#[tool]
pub fn set_lights(room: String, on: bool, brightness: Option<u8>) -> Result<Value, String> {
    if let Some(b) = brightness.filter(|b| *b > 100) {
        return Err(format!("brightness must be between 0 and 100, got {b}"));
    }
    let mut result = json!({"room": room.trim(), "lights": if on { "on" } else { "off" }});
    if let (true, Some(b)) = (on, brightness) {
        result["brightness"] = json!(b);
    }
    Ok(result)
}

/// Get the distance between two cities.
///
/// Args:
///     origin: The first city
///     destination: The second city
///     unit: The unit of the result (default km). (choices: ["km", "miles"])
#[tool]
pub fn get_distance(
    origin: String,
    destination: String,
    unit: Option<String>,
) -> Result<Value, String> {
    let (a, b) = (
        origin.trim().to_lowercase(),
        destination.trim().to_lowercase(),
    );
    if a == b {
        return Err("origin and destination are the same".into());
    }
    // Symmetric: the same distance both ways.
    let key = if a < b {
        format!("{a}|{b}")
    } else {
        format!("{b}|{a}")
    };
    let km = 50.0 + (hash(&key) % 120_000) as f64 / 10.0;
    let value = match unit.as_deref() {
        Some("miles") => (km / 1.609_344 * 10.0).round() / 10.0,
        _ => km,
    };
    Ok(number(value))
}

/// The reminder tool, reading the time from a [`Clock`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ReminderTools {
    clock: Clock,
}

#[tools]
impl ReminderTools {
    /// Set a reminder.
    ///
    /// Args:
    ///     text: What to be reminded of
    ///     minutes_from_now: In how many minutes
    #[tool]
    fn set_reminder(&self, text: String, minutes_from_now: u32) -> Result<Value, String> {
        if minutes_from_now == 0 || minutes_from_now > 7 * 24 * 60 {
            return Err(format!(
                "minutes_from_now must be between 1 and 10080, got {minutes_from_now}"
            ));
        }
        if text.trim().is_empty() {
            return Err("the reminder has no text".into());
        }
        let due = add_minutes(self.clock.now(), i64::from(minutes_from_now));
        Ok(json!({"status": "set", "due": format_minute(due)}))
    }
}

/// The names of the corpus tools that are not demo tools.
pub const EXTRA_NAMES: [&str; 12] = [
    "convert_currency",
    "search_web",
    "get_stock_price",
    "translate_text",
    "create_calendar_event",
    "set_reminder",
    "send_email",
    "search_flights",
    "get_weather_forecast",
    "calculate_statistics",
    "set_lights",
    "get_distance",
];

/// Every corpus tool (the demo tools first), with `get_current_time` and
/// `set_reminder` reading `clock`.
pub fn toolbox(clock: Clock) -> Toolbox {
    let mut toolbox = demo::toolbox_with_clock(clock);
    let extra = tool_use::toolbox![
        convert_currency,
        search_web,
        get_stock_price,
        translate_text,
        create_calendar_event,
        send_email,
        search_flights,
        get_weather_forecast,
        calculate_statistics,
        set_lights,
        get_distance
    ];
    let reminders = Arc::new(ReminderTools { clock }).tools();
    let names: Vec<String> = extra.names().map(str::to_owned).collect();
    for name in &names {
        if let Some(tool) = extra.get(name) {
            // The names are distinct constants, so adding cannot fail.
            let _ = toolbox.add(tool.clone());
        }
    }
    for tool in reminders {
        let _ = toolbox.add(tool);
    }
    toolbox
}

/// The definition of every corpus tool, by name, in transformers' format.
pub fn definitions() -> Vec<Value> {
    toolbox(Clock::System).definitions(DefinitionFormat::Transformers)
}

/// The definition of the corpus tool `name`.
pub fn definition(toolbox: &Toolbox, name: &str) -> Option<Value> {
    toolbox.get(name).map(|t| t.definition().to_json())
}

/// `t` plus `minutes`.
fn add_minutes(t: DateTime, minutes: i64) -> DateTime {
    DateTime::from_unix(t.unix_seconds() + minutes * 60)
}

/// `YYYY-MM-DD HH:MM`.
fn format_minute(t: DateTime) -> String {
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        t.year, t.month, t.day, t.hour, t.minute
    )
}
