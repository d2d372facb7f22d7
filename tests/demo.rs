//! The demo tools of `tool-use chat`: each tool's results, its errors as the
//! model sees them, and the toolbox as a whole.

use serde_json::{json, Value};
use tool_use::demo;
use tool_use::template::{Clock, DateTime};
use tool_use::{Message, ToolCall};

fn call(name: &str, args: Value) -> String {
    let toolbox = demo::toolbox_with_clock(Clock::Fixed(noon()));
    let message: Message = toolbox.call_blocking(&ToolCall::new("c1", name, args));
    message.text().to_owned()
}

/// Thursday, 15 January 2026, 12:00 UTC.
fn noon() -> DateTime {
    DateTime::parse("2026-01-15T12:00:00").unwrap()
}

#[test]
fn the_toolbox_offers_the_five_tools_in_order() {
    let toolbox = demo::toolbox();
    assert_eq!(toolbox.names().collect::<Vec<_>>(), demo::NAMES);
    let defs = demo::definitions();
    assert_eq!(defs.len(), 5);
    for (def, name) in defs.iter().zip(demo::NAMES) {
        assert_eq!(def["type"], "function");
        assert_eq!(def["function"]["name"], name);
        assert!(def["function"]["description"].as_str().unwrap().len() > 10);
        assert_eq!(demo::definition(name).as_ref(), Some(def));
    }
    let unit = &defs[0]["function"]["parameters"]["properties"]["unit"];
    assert_eq!(unit["enum"], json!(["celsius", "fahrenheit"]));
    let timezone = &defs[4]["function"]["parameters"];
    // Nothing is required: like transformers, the schema has no `required`.
    assert_eq!(timezone.get("required"), None);
    assert_eq!(timezone["properties"]["timezone"]["nullable"], true);
}

#[test]
fn temperature_is_stable_per_city_and_differs_between_cities() {
    let paris = demo::get_current_temperature("Paris, France".into(), "celsius".into());
    assert_eq!(
        paris,
        demo::get_current_temperature("Paris, France".into(), "celsius".into())
    );
    // Case and surrounding spaces do not change the weather.
    assert_eq!(
        paris,
        demo::get_current_temperature(" paris, france ".into(), "celsius".into())
    );
    let cities = [
        "Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Denver", "Perth", "Quito",
    ];
    let temps: Vec<f64> = cities
        .iter()
        .map(|c| demo::get_current_temperature((*c).into(), "celsius".into()))
        .collect();
    let mut distinct = temps.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    assert!(distinct.len() >= 6, "{temps:?}");
    for (city, c) in cities.iter().zip(&temps) {
        assert!((-15.0..=38.0).contains(c), "{c}");
        assert_eq!((c * 10.0).round() / 10.0, *c, "one decimal: {c}");
        let f = demo::get_current_temperature((*city).into(), "fahrenheit".into());
        assert_eq!(f, ((c * 9.0 / 5.0 + 32.0) * 10.0).round() / 10.0);
    }
    assert_eq!(
        call(
            "get_current_temperature",
            json!({"location": "Paris, France", "unit": "celsius"})
        ),
        paris.to_string()
    );
}

#[test]
fn an_unknown_unit_is_refused_before_the_tool_runs() {
    let text = call(
        "get_current_temperature",
        json!({"location": "Paris", "unit": "kelvin"}),
    );
    assert_eq!(
        text,
        "Error: invalid arguments for `get_current_temperature`: `unit` must be one of \"celsius\", \"fahrenheit\", got \"kelvin\""
    );
}

#[test]
fn wind_speed_is_stable_and_plausible() {
    let w = demo::get_current_wind_speed("Wellington, New Zealand".into());
    assert_eq!(
        w,
        demo::get_current_wind_speed("Wellington, New Zealand".into())
    );
    assert!((0.0..60.0).contains(&w));
    let speeds: Vec<f64> = ["Paris", "Tokyo", "Lima", "Oslo", "Cairo"]
        .iter()
        .map(|c| demo::get_current_wind_speed((*c).into()))
        .collect();
    assert!(speeds.windows(2).any(|p| p[0] != p[1]), "{speeds:?}");
    assert_eq!(
        call("get_current_wind_speed", json!({"location": "Tokyo"})),
        demo::get_current_wind_speed("Tokyo".into()).to_string()
    );
}

#[test]
fn calculate_does_the_five_operations() {
    let calc = |op: &str, a: f64, b: f64| demo::calculate(op.into(), a, b);
    assert_eq!(calc("add", 12.0, 30.0), Ok(json!(42)));
    assert_eq!(calc("add", 0.1, 0.2), Ok(json!(0.3)));
    assert_eq!(calc("subtract", 36.8, 23.7), Ok(json!(13.1)));
    assert_eq!(calc("divide", 10.0, 3.0), Ok(json!(3.333333)));
    assert_eq!(calc("multiply", 12_345_678.0, 9.0), Ok(json!(111_111_102)));
    assert_eq!(calc("subtract", 5.5, 10.0), Ok(json!(-4.5)));
    assert_eq!(calc("multiply", 12.5, 4.0), Ok(json!(50)));
    assert_eq!(calc("divide", 10.0, 4.0), Ok(json!(2.5)));
    assert_eq!(calc("power", 2.0, 10.0), Ok(json!(1024)));
    assert_eq!(calc("divide", 1.0, 0.0), Err("division by zero".into()));
    assert_eq!(
        calc("power", 10.0, 400.0),
        Err("the result of power is too large".into())
    );
    assert_eq!(
        call(
            "calculate",
            json!({"operation": "multiply", "a": 12, "b": 7})
        ),
        "84"
    );
    assert_eq!(
        call("calculate", json!({"operation": "divide", "a": 3, "b": 0})),
        "Error: division by zero"
    );
    assert!(
        call("calculate", json!({"operation": "modulo", "a": 3, "b": 2}))
            .starts_with("Error: invalid arguments for `calculate`: `operation` must be one of")
    );
}

#[test]
fn convert_units_converts_within_a_kind() {
    let conv = |v: f64, f: &str, t: &str| demo::convert_units(v, f.into(), t.into());
    assert_eq!(conv(5.0, "mi", "km"), Ok(json!(8.04672)));
    assert_eq!(conv(1.0, "km", "m"), Ok(json!(1000)));
    assert_eq!(conv(100.0, "celsius", "fahrenheit"), Ok(json!(212)));
    assert_eq!(conv(32.0, "fahrenheit", "celsius"), Ok(json!(0)));
    assert_eq!(conv(0.0, "celsius", "kelvin"), Ok(json!(273.15)));
    assert_eq!(conv(1.0, "lb", "g"), Ok(json!(453.592)));
    assert_eq!(conv(2.0, "gal", "l"), Ok(json!(7.57082)));
    // Other names for a unit are read too.
    assert_eq!(conv(3.0, "Feet", "inches"), Ok(json!(36)));
    assert_eq!(
        conv(1.0, "km", "kg"),
        Err("cannot convert km (length) to kg (mass)".into())
    );
    let unknown = conv(1.0, "parsec", "km").unwrap_err();
    assert!(
        unknown.starts_with("unknown unit \"parsec\"; known units: m, km"),
        "{unknown}"
    );
    assert_eq!(
        call(
            "convert_units",
            json!({"value": 10, "from_unit": "kg", "to_unit": "lb"})
        ),
        "22.0462"
    );
    assert_eq!(
        call(
            "convert_units",
            json!({"value": 10, "from_unit": "l", "to_unit": "celsius"})
        ),
        "Error: cannot convert l (volume) to celsius (temperature)"
    );
}

#[test]
fn time_reads_the_injected_clock_in_the_asked_zone() {
    let now = noon();
    // Across midnight the date and weekday change too.
    let late = DateTime::parse("2026-12-31T20:15:00").unwrap();
    for (at, zone, expected) in [
        (now, None, "12:00 on Thursday, 15 January 2026 (UTC+00:00)"),
        (
            now,
            Some("Tokyo"),
            "21:00 on Thursday, 15 January 2026 (UTC+09:00)",
        ),
        (
            now,
            Some("Asia/Kolkata"),
            "17:30 on Thursday, 15 January 2026 (UTC+05:30)",
        ),
        (
            now,
            Some("los angeles"),
            "04:00 on Thursday, 15 January 2026 (UTC-08:00)",
        ),
        (
            late,
            Some("Auckland"),
            "08:15 on Friday, 1 January 2027 (UTC+12:00)",
        ),
        (
            now,
            Some("UTC-03:30"),
            "08:30 on Thursday, 15 January 2026 (UTC-03:30)",
        ),
    ] {
        assert_eq!(demo::time_at(at, zone).unwrap(), expected, "{zone:?}");
    }
    assert_eq!(
        demo::time_at(now, Some("Atlantis")).unwrap_err(),
        "unknown time zone \"Atlantis\"; give a city such as \"Tokyo\" or an IANA name such as \"Asia/Tokyo\""
    );
    // Through the toolbox, with the timezone left out or given.
    assert_eq!(
        call("get_current_time", json!({})),
        "12:00 on Thursday, 15 January 2026 (UTC+00:00)"
    );
    assert_eq!(
        call("get_current_time", json!({"timezone": "Europe/Paris"})),
        "13:00 on Thursday, 15 January 2026 (UTC+01:00)"
    );
    assert!(call("get_current_time", json!({"timezone": "Atlantis"}))
        .starts_with("Error: unknown time zone"));
}

#[test]
fn the_system_clock_gives_a_current_time() {
    let text = demo::toolbox()
        .call_blocking(&ToolCall::new("c", "get_current_time", json!({})))
        .text()
        .to_owned();
    assert!(text.ends_with("(UTC+00:00)"), "{text}");
    assert!(!text.contains("1970"), "{text}");
}

#[test]
fn numbers_are_integers_when_they_can_be() {
    assert_eq!(demo::number(42.0), json!(42));
    assert_eq!(demo::number(-0.5), json!(-0.5));
    assert_eq!(demo::number(1e300), json!(1e300));
}
