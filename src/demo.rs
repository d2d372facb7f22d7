//! The demo tools of `tool-use chat`.
//!
//! Five tools, offered together to the model (in this order):
//!
//! | tool | arguments | result |
//! |---|---|---|
//! | `get_current_temperature` | `location`, `unit` (`celsius` or `fahrenheit`) | a number, e.g. `21.3` |
//! | `get_current_wind_speed` | `location` | km/h, e.g. `14.2` |
//! | `calculate` | `operation` (`add`, `subtract`, `multiply`, `divide`, `power`), `a`, `b` | a number (at most 6 decimals); dividing by zero is an error |
//! | `convert_units` | `value`, `from_unit`, `to_unit` (length: m km cm mm mi yd ft in; mass: kg g mg lb oz; volume: l ml gal qt cup; temperature: celsius fahrenheit kelvin; full names accepted too) | a number (6 significant digits); units of different kinds are an error |
//! | `get_current_time` | `timezone` (optional: a city or an IANA name; UTC when left out) | e.g. `11:30 on Thursday, 15 January 2026 (UTC+01:00)` |
//!
//! The weather is made up but stable: a value derived from a hash of the
//! location, so each city has its own weather and the same question always
//! gets the same answer (the bundled model is trained on these very tools).
//! Time zones are fixed UTC offsets (standard time; no daylight saving).
//! The clock is injectable ([`toolbox_with_clock`]) so that times are
//! reproducible.

use crate::template::{Clock, DateTime};
use crate::{tool, tools, DefinitionFormat, ToolSet, Toolbox};
use serde_json::Value;
use std::sync::Arc;

/// Get the current temperature at a location.
///
/// Args:
///     location: The location to get the temperature for, in the format "City, Country"
///     unit: The unit to return the temperature in. (choices: ["celsius", "fahrenheit"])
///
/// Returns:
///     The current temperature at the specified location in the specified units, as a float.
#[tool(crate = "crate")]
pub fn get_current_temperature(location: String, unit: String) -> f64 {
    let celsius = celsius_at(&location);
    if unit == "fahrenheit" {
        round_to(celsius * 9.0 / 5.0 + 32.0, 1)
    } else {
        celsius
    }
}

/// Get the current wind speed in km/h at a given location.
///
/// Args:
///     location: The location to get the wind speed for, in the format "City, Country"
///
/// Returns:
///     The current wind speed at the given location in km/h, as a float.
#[tool(crate = "crate")]
pub fn get_current_wind_speed(location: String) -> f64 {
    let h = location_hash(&location) >> 24;
    (h % 600) as f64 / 10.0
}

/// Do arithmetic on two numbers.
///
/// Args:
///     operation: The operation. (choices: ["add", "subtract", "multiply", "divide", "power"])
///     a: The first number
///     b: The second number
#[tool(crate = "crate")]
pub fn calculate(operation: String, a: f64, b: f64) -> Result<Value, String> {
    let result = match operation.as_str() {
        "add" => a + b,
        "subtract" => a - b,
        "multiply" => a * b,
        "divide" if b == 0.0 => return Err("division by zero".into()),
        "divide" => a / b,
        "power" => a.powf(b),
        other => {
            return Err(format!(
                "unknown operation \"{other}\"; expected add, subtract, multiply, divide or power"
            ))
        }
    };
    if !result.is_finite() {
        return Err(format!("the result of {operation} is too large"));
    }
    // Six decimal places at most: no float noise (`0.1 + 0.2` is `0.3`).
    let result = if result.abs() < 1e9 {
        round_to(result, 6)
    } else {
        result
    };
    Ok(number(result))
}

/// Convert a value from one unit to another.
///
/// Args:
///     value: The value to convert
///     from_unit: The unit of the value, e.g. km, lb or celsius
///     to_unit: The unit to convert to
#[tool(crate = "crate")]
pub fn convert_units(value: f64, from_unit: String, to_unit: String) -> Result<Value, String> {
    let from = unit(&from_unit)?;
    let to = unit(&to_unit)?;
    if from.kind != to.kind {
        return Err(format!(
            "cannot convert {} ({}) to {} ({})",
            from.symbol,
            from.kind.name(),
            to.symbol,
            to.kind.name()
        ));
    }
    let base = value * from.scale + from.offset;
    let result = (base - to.offset) / to.scale;
    if !result.is_finite() {
        return Err("the result is too large".into());
    }
    Ok(number(round_significant(result, 6)))
}

/// The time tools, reading the time from a [`Clock`].
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeTools {
    clock: Clock,
}

impl TimeTools {
    /// Time tools on `clock` (`Clock::System` for the real time).
    pub fn new(clock: Clock) -> TimeTools {
        TimeTools { clock }
    }
}

#[tools(crate = "crate")]
impl TimeTools {
    /// Get the current date and time.
    ///
    /// Args:
    ///     timezone: A city or IANA time zone, e.g. "Tokyo"; UTC if omitted
    #[tool]
    fn get_current_time(&self, timezone: Option<String>) -> Result<String, String> {
        time_at(self.clock.now(), timezone.as_deref())
    }
}

/// The current time in `timezone` (UTC when `None`) at the UTC instant
/// `now`, as the `get_current_time` tool reports it:
/// `11:30 on Thursday, 15 January 2026 (UTC+01:00)`.
pub fn time_at(now: DateTime, timezone: Option<&str>) -> Result<String, String> {
    let offset = match timezone.map(str::trim) {
        None | Some("") => 0,
        Some(name) => utc_offset(name).ok_or_else(|| {
            format!(
                "unknown time zone \"{name}\"; give a city such as \"Tokyo\" or an IANA name such as \"Asia/Tokyo\""
            )
        })?,
    };
    let local = DateTime::from_unix(now.unix_seconds() + i64::from(offset) * 60);
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.unsigned_abs();
    Ok(format!(
        "{:02}:{:02} on {}, {} {} {} (UTC{sign}{:02}:{:02})",
        local.hour,
        local.minute,
        local.strftime("%A"),
        local.day,
        local.strftime("%B"),
        local.year,
        abs / 60,
        abs % 60
    ))
}

/// The demo toolbox of `tool-use chat`, on the system clock.
pub fn toolbox() -> Toolbox {
    toolbox_with_clock(Clock::System)
}

/// The demo toolbox with `get_current_time` reading `clock`.
pub fn toolbox_with_clock(clock: Clock) -> Toolbox {
    let mut toolbox = crate::toolbox![
        get_current_temperature,
        get_current_wind_speed,
        calculate,
        convert_units
    ];
    for tool in Arc::new(TimeTools::new(clock)).tools() {
        // The names are distinct constants, so adding cannot fail.
        let _ = toolbox.add(tool);
    }
    toolbox
}

/// The names of the demo tools, in the order they are offered.
pub const NAMES: [&str; 5] = [
    "get_current_temperature",
    "get_current_wind_speed",
    "calculate",
    "convert_units",
    "get_current_time",
];

/// The demo tools' definitions (transformers' format), in the order they are
/// offered to the model.
pub fn definitions() -> Vec<Value> {
    toolbox().definitions(DefinitionFormat::Transformers)
}

/// The definition of one demo tool, by name.
pub fn definition(name: &str) -> Option<Value> {
    toolbox().get(name).map(|t| t.definition().to_json())
}

/// A number as JSON: an integer when it is one (`42`, not `42.0`), so that
/// results read naturally; otherwise the float.
pub fn number(x: f64) -> Value {
    // 2^53: beyond it not every integer is a float.
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// `x` rounded to `decimals` decimal places.
fn round_to(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

/// `x` rounded to `digits` significant digits, so that results carry no
/// floating-point noise (`0.1 + 0.2` is `0.3`).
fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = digits - 1 - magnitude;
    if !(-15..=15).contains(&decimals) {
        return x;
    }
    round_to(x, decimals)
}

/// A stable hash of a location (FNV-1a over its lowercased, trimmed text),
/// the same on every platform and Rust version.
fn location_hash(location: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in location.trim().to_lowercase().bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // FNV's low bits mix poorly for short inputs; finish with a mixer.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h
}

/// The made-up temperature at a location: -15.0 to 38.0 °C, one decimal.
fn celsius_at(location: &str) -> f64 {
    let h = location_hash(location);
    // Tenths as an integer, divided once: no float noise in the decimal.
    ((h % 531) as i64 - 150) as f64 / 10.0
}

/// What a unit measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Length,
    Mass,
    Volume,
    Temperature,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Length => "length",
            Kind::Mass => "mass",
            Kind::Volume => "volume",
            Kind::Temperature => "temperature",
        }
    }
}

/// A unit: `value_in_base = value * scale + offset` (base units m, kg, l, K).
struct Unit {
    symbol: &'static str,
    kind: Kind,
    scale: f64,
    offset: f64,
}

/// `(symbol, other names, kind, scale, offset)`.
const UNITS: &[(&str, &[&str], Kind, f64, f64)] = &[
    (
        "m",
        &["meter", "meters", "metre", "metres"],
        Kind::Length,
        1.0,
        0.0,
    ),
    (
        "km",
        &["kilometer", "kilometers", "kilometre", "kilometres"],
        Kind::Length,
        1000.0,
        0.0,
    ),
    (
        "cm",
        &["centimeter", "centimeters", "centimetre", "centimetres"],
        Kind::Length,
        0.01,
        0.0,
    ),
    (
        "mm",
        &["millimeter", "millimeters", "millimetre", "millimetres"],
        Kind::Length,
        0.001,
        0.0,
    ),
    ("mi", &["mile", "miles"], Kind::Length, 1609.344, 0.0),
    ("yd", &["yard", "yards"], Kind::Length, 0.9144, 0.0),
    ("ft", &["foot", "feet"], Kind::Length, 0.3048, 0.0),
    ("in", &["inch", "inches"], Kind::Length, 0.0254, 0.0),
    (
        "kg",
        &["kilogram", "kilograms", "kilo", "kilos"],
        Kind::Mass,
        1.0,
        0.0,
    ),
    ("g", &["gram", "grams"], Kind::Mass, 0.001, 0.0),
    (
        "mg",
        &["milligram", "milligrams"],
        Kind::Mass,
        0.000_001,
        0.0,
    ),
    (
        "lb",
        &["lbs", "pound", "pounds"],
        Kind::Mass,
        0.453_592_37,
        0.0,
    ),
    (
        "oz",
        &["ounce", "ounces"],
        Kind::Mass,
        0.028_349_523_125,
        0.0,
    ),
    (
        "l",
        &["liter", "liters", "litre", "litres"],
        Kind::Volume,
        1.0,
        0.0,
    ),
    (
        "ml",
        &["milliliter", "milliliters", "millilitre", "millilitres"],
        Kind::Volume,
        0.001,
        0.0,
    ),
    (
        "gal",
        &["gallon", "gallons"],
        Kind::Volume,
        3.785_411_784,
        0.0,
    ),
    ("qt", &["quart", "quarts"], Kind::Volume, 0.946_352_946, 0.0),
    ("cup", &["cups"], Kind::Volume, 0.236_588_236_5, 0.0),
    (
        "celsius",
        &["c", "°c", "degrees celsius"],
        Kind::Temperature,
        1.0,
        273.15,
    ),
    (
        "fahrenheit",
        &["f", "°f", "degrees fahrenheit"],
        Kind::Temperature,
        5.0 / 9.0,
        273.15 - 32.0 * 5.0 / 9.0,
    ),
    ("kelvin", &["k"], Kind::Temperature, 1.0, 0.0),
];

/// The unit called `name` (its symbol or another name, any case).
fn unit(name: &str) -> Result<Unit, String> {
    let wanted = name.trim().to_lowercase();
    UNITS
        .iter()
        .find(|(symbol, others, ..)| *symbol == wanted || others.contains(&wanted.as_str()))
        .map(|&(symbol, _, kind, scale, offset)| Unit {
            symbol,
            kind,
            scale,
            offset,
        })
        .ok_or_else(|| {
            let known: Vec<&str> = UNITS.iter().map(|u| u.0).collect();
            format!("unknown unit \"{name}\"; known units: {}", known.join(", "))
        })
}

/// `(IANA name, offset from UTC in minutes, cities)`; standard time.
const ZONES: &[(&str, i32, &[&str])] = &[
    ("UTC", 0, &["GMT", "Reykjavik", "Accra", "Dakar"]),
    ("Europe/London", 0, &["London", "Edinburgh", "Manchester"]),
    ("Europe/Lisbon", 0, &["Lisbon", "Porto"]),
    ("Europe/Dublin", 0, &["Dublin"]),
    (
        "Europe/Paris",
        60,
        &["Paris", "Lyon", "Marseille", "Nice", "Toulouse"],
    ),
    (
        "Europe/Berlin",
        60,
        &["Berlin", "Munich", "Hamburg", "Frankfurt", "Cologne"],
    ),
    (
        "Europe/Madrid",
        60,
        &["Madrid", "Barcelona", "Valencia", "Seville"],
    ),
    (
        "Europe/Rome",
        60,
        &["Rome", "Milan", "Naples", "Turin", "Florence"],
    ),
    ("Europe/Amsterdam", 60, &["Amsterdam", "Rotterdam"]),
    ("Europe/Brussels", 60, &["Brussels", "Antwerp"]),
    ("Europe/Vienna", 60, &["Vienna"]),
    ("Europe/Zurich", 60, &["Zurich", "Geneva", "Bern"]),
    ("Europe/Stockholm", 60, &["Stockholm"]),
    ("Europe/Oslo", 60, &["Oslo"]),
    ("Europe/Copenhagen", 60, &["Copenhagen"]),
    ("Europe/Warsaw", 60, &["Warsaw", "Krakow"]),
    ("Europe/Prague", 60, &["Prague"]),
    ("Europe/Budapest", 60, &["Budapest"]),
    ("Africa/Lagos", 60, &["Lagos"]),
    ("Europe/Athens", 120, &["Athens"]),
    ("Europe/Helsinki", 120, &["Helsinki"]),
    ("Europe/Kyiv", 120, &["Kyiv", "Kiev"]),
    ("Europe/Bucharest", 120, &["Bucharest"]),
    ("Africa/Cairo", 120, &["Cairo"]),
    ("Africa/Johannesburg", 120, &["Johannesburg", "Cape Town"]),
    ("Asia/Jerusalem", 120, &["Jerusalem", "Tel Aviv"]),
    ("Europe/Istanbul", 180, &["Istanbul", "Ankara"]),
    ("Europe/Moscow", 180, &["Moscow", "Saint Petersburg"]),
    ("Asia/Riyadh", 180, &["Riyadh"]),
    ("Africa/Nairobi", 180, &["Nairobi"]),
    ("Asia/Dubai", 240, &["Dubai", "Abu Dhabi"]),
    ("Asia/Tehran", 210, &["Tehran"]),
    ("Asia/Karachi", 300, &["Karachi", "Lahore"]),
    (
        "Asia/Kolkata",
        330,
        &[
            "Kolkata",
            "Mumbai",
            "Delhi",
            "New Delhi",
            "Bangalore",
            "Chennai",
        ],
    ),
    ("Asia/Kathmandu", 345, &["Kathmandu"]),
    ("Asia/Dhaka", 360, &["Dhaka"]),
    ("Asia/Bangkok", 420, &["Bangkok"]),
    ("Asia/Jakarta", 420, &["Jakarta"]),
    ("Asia/Ho_Chi_Minh", 420, &["Hanoi", "Ho Chi Minh City"]),
    (
        "Asia/Shanghai",
        480,
        &["Shanghai", "Beijing", "Shenzhen", "Guangzhou"],
    ),
    ("Asia/Hong_Kong", 480, &["Hong Kong"]),
    ("Asia/Singapore", 480, &["Singapore"]),
    ("Asia/Taipei", 480, &["Taipei"]),
    ("Asia/Manila", 480, &["Manila"]),
    ("Australia/Perth", 480, &["Perth"]),
    ("Asia/Tokyo", 540, &["Tokyo", "Osaka", "Kyoto"]),
    ("Asia/Seoul", 540, &["Seoul", "Busan"]),
    ("Australia/Adelaide", 570, &["Adelaide"]),
    (
        "Australia/Sydney",
        600,
        &["Sydney", "Melbourne", "Canberra"],
    ),
    ("Australia/Brisbane", 600, &["Brisbane"]),
    ("Pacific/Auckland", 720, &["Auckland", "Wellington"]),
    ("Atlantic/Azores", -60, &["Azores"]),
    (
        "America/Sao_Paulo",
        -180,
        &["Sao Paulo", "São Paulo", "Rio de Janeiro", "Brasilia"],
    ),
    ("America/Argentina/Buenos_Aires", -180, &["Buenos Aires"]),
    ("America/Santiago", -240, &["Santiago"]),
    ("America/Halifax", -240, &["Halifax"]),
    ("America/Caracas", -240, &["Caracas"]),
    (
        "America/New_York",
        -300,
        &[
            "New York",
            "Boston",
            "Washington",
            "Miami",
            "Atlanta",
            "Toronto",
            "Montreal",
            "Philadelphia",
        ],
    ),
    ("America/Bogota", -300, &["Bogota", "Bogotá"]),
    ("America/Lima", -300, &["Lima"]),
    (
        "America/Chicago",
        -360,
        &["Chicago", "Houston", "Dallas", "Austin", "Winnipeg"],
    ),
    ("America/Mexico_City", -360, &["Mexico City", "Guadalajara"]),
    ("America/Denver", -420, &["Denver", "Calgary"]),
    ("America/Phoenix", -420, &["Phoenix"]),
    (
        "America/Los_Angeles",
        -480,
        &[
            "Los Angeles",
            "San Francisco",
            "Seattle",
            "Vancouver",
            "San Diego",
            "Las Vegas",
        ],
    ),
    ("America/Anchorage", -540, &["Anchorage"]),
    ("Pacific/Honolulu", -600, &["Honolulu"]),
];

/// The offset from UTC, in minutes, of a time zone given as an IANA name,
/// a city, `UTC`/`GMT`, or `UTC+5`/`UTC-03:30`. Any case.
pub fn utc_offset(name: &str) -> Option<i32> {
    let wanted = name.trim().to_lowercase();
    for prefix in ["utc", "gmt"] {
        if let Some(rest) = wanted.strip_prefix(prefix) {
            if !rest.is_empty() {
                return parse_offset(rest);
            }
        }
    }
    ZONES
        .iter()
        .find(|(iana, _, cities)| {
            iana.to_lowercase() == wanted
                || iana
                    .rsplit('/')
                    .next()
                    .is_some_and(|c| c.replace('_', " ").to_lowercase() == wanted)
                || cities.iter().any(|c| c.to_lowercase() == wanted)
        })
        .map(|&(_, offset, _)| offset)
}

/// `+5`, `-03:30`, `+0545` as minutes; at most 14 hours either way.
fn parse_offset(text: &str) -> Option<i32> {
    let (sign, digits) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let (hours, minutes) = match digits.split_once(':') {
        Some((h, m)) => (h, m),
        None if digits.len() == 4 => digits.split_at(2),
        None => (digits, "0"),
    };
    let hours: i32 = hours.parse().ok()?;
    let minutes: i32 = minutes.parse().ok()?;
    (hours <= 14 && minutes < 60).then_some(sign * (hours * 60 + minutes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_removes_float_noise() {
        assert_eq!(round_significant(0.1 + 0.2, 6), 0.3);
        assert_eq!(round_significant(8.046_72, 6), 8.046_72);
        assert_eq!(round_significant(123_456_789.0, 6), 123_457_000.0);
    }

    #[test]
    fn offsets_parse() {
        assert_eq!(parse_offset("+5"), Some(300));
        assert_eq!(parse_offset("-03:30"), Some(-210));
        assert_eq!(parse_offset("+0545"), Some(345));
        assert_eq!(parse_offset("+15"), None);
        assert_eq!(parse_offset("5"), None);
    }
}
