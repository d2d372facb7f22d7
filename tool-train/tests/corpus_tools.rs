//! The corpus's own tools (beyond the demo ones): results and errors as the
//! model sees them through the toolbox.

use serde_json::{json, Value};
use tool_train::corpus::tools;
use tool_use::template::{Clock, DateTime};
use tool_use::ToolCall;

fn call(name: &str, args: Value) -> String {
    let clock = Clock::Fixed(DateTime::parse("2026-03-14T23:50:00").unwrap());
    tools::toolbox(clock)
        .call_blocking(&ToolCall::new("c", name, args))
        .text()
        .to_owned()
}

#[test]
fn the_toolbox_holds_every_tool_once() {
    let toolbox = tools::toolbox(Clock::System);
    assert_eq!(toolbox.len(), 17);
    let names: Vec<&str> = toolbox.names().collect();
    assert_eq!(&names[..5], tool_use::demo::NAMES);
    for name in tools::EXTRA_NAMES {
        assert!(names.contains(&name), "{name}");
    }
    assert_eq!(tools::definitions().len(), 17);
}

#[test]
fn currency_conversion_uses_fixed_rates() {
    for (amount, from, to, expected) in [
        (100, "USD", "EUR", "92"),
        (50, "eur", "GBP", "42.93"),
        (1, "XYZ", "EUR", "Error: unknown currency \"XYZ\""),
    ] {
        let args = json!({"amount": amount, "from_currency": from, "to_currency": to});
        assert_eq!(call("convert_currency", args), expected);
    }
}

#[test]
fn search_returns_titles_about_the_query() {
    let three: Vec<String> =
        serde_json::from_str(&call("search_web", json!({"query": "sourdough bread"}))).unwrap();
    assert_eq!(three.len(), 3);
    assert!(three.iter().all(|t| t.contains("sourdough bread")));
    let one: Vec<String> = serde_json::from_str(&call(
        "search_web",
        json!({"query": "sourdough bread", "max_results": 1}),
    ))
    .unwrap();
    assert_eq!(one, three[..1]);
    assert_eq!(
        call("search_web", json!({"query": "x", "max_results": 9})),
        "Error: max_results must be between 1 and 5, got 9"
    );
}

#[test]
fn stocks_translations_and_lights() {
    let price: f64 = call("get_stock_price", json!({"symbol": "AAPL"}))
        .parse()
        .unwrap();
    assert!((5.0..=965.0).contains(&price));
    assert_eq!(
        call("get_stock_price", json!({"symbol": "aapl"})),
        price.to_string()
    );
    assert_eq!(
        call("get_stock_price", json!({"symbol": "ZZZZ"})),
        "Error: unknown stock symbol \"ZZZZ\""
    );
    assert_eq!(
        call(
            "translate_text",
            json!({"text": "good morning!", "target_language": "German"})
        ),
        "Guten Morgen"
    );
    assert_eq!(
        call(
            "translate_text",
            json!({"text": "My hovercraft is full of eels", "target_language": "French"})
        ),
        "Error: no translation available for \"My hovercraft is full of eels\""
    );
    assert_eq!(
        call(
            "set_lights",
            json!({"room": "kitchen", "on": true, "brightness": 40})
        ),
        r#"{"room":"kitchen","lights":"on","brightness":40}"#
    );
    assert_eq!(
        call(
            "set_lights",
            json!({"room": "hall", "on": true, "brightness": 150})
        ),
        "Error: brightness must be between 0 and 100, got 150"
    );
    // The toolbox checks the schema first: brightness is a u8.
    assert!(call(
        "set_lights",
        json!({"room": "hall", "on": true, "brightness": 300})
    )
    .starts_with("Error: invalid arguments for `set_lights`"));
}

#[test]
fn calendar_reminders_and_email() {
    assert_eq!(
        call(
            "create_calendar_event",
            json!({"title": "Gym", "date": "2026-03-14", "time": "23:30", "duration_minutes": 45,
                   "attendees": ["Anna", "Ben"]})
        ),
        r#"{"status":"created","title":"Gym","start":"2026-03-14 23:30","end":"2026-03-15 00:15","invited":["Anna","Ben"]}"#
    );
    assert_eq!(
        call(
            "create_calendar_event",
            json!({"title": "Gym", "date": "2026-02-30", "time": "10:00"})
        ),
        "Error: invalid date or time: \"2026-02-30 10:00\""
    );
    // Due times read the injected clock.
    assert_eq!(
        call(
            "set_reminder",
            json!({"text": "call mom", "minutes_from_now": 20})
        ),
        r#"{"status":"set","due":"2026-03-15 00:10"}"#
    );
    let sent: Value = serde_json::from_str(&call(
        "send_email",
        json!({"to": "anna@example.com", "subject": "Hi", "body": "Hello", "urgent": true}),
    ))
    .unwrap();
    assert_eq!(sent["status"], "sent");
    assert_eq!(sent["urgent"], true);
    assert!(sent["message_id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(
        call(
            "send_email",
            json!({"to": "anna.example.com", "subject": "Hi", "body": "Hello"})
        ),
        "Error: \"anna.example.com\" is not an email address"
    );
}

#[test]
fn flights_forecasts_statistics_and_distances() {
    let flight: Value = serde_json::from_str(&call(
        "search_flights",
        json!({"origin": "Paris", "destination": "Rome", "date": "2026-05-02",
               "passengers": 2, "nonstop_only": true}),
    ))
    .unwrap();
    assert_eq!(flight["stops"], 0);
    assert!(flight["departs"]
        .as_str()
        .unwrap()
        .starts_with("2026-05-02 "));
    assert_eq!(flight["price_usd"].as_u64().unwrap() % 2, 0);
    assert_eq!(
        call(
            "search_flights",
            json!({"origin": "Paris", "destination": "paris", "date": "2026-05-02", "nonstop_only": false})
        ),
        "Error: origin and destination are the same"
    );
    let highs: Vec<f64> = serde_json::from_str(&call(
        "get_weather_forecast",
        json!({"location": "Oslo", "days": 5}),
    ))
    .unwrap();
    assert_eq!(highs.len(), 5);
    assert_eq!(
        call(
            "get_weather_forecast",
            json!({"location": "Oslo", "days": 10})
        ),
        "Error: days must be between 1 and 7, got 10"
    );
    let stat = |s: &str| {
        call(
            "calculate_statistics",
            json!({"numbers": [4, 8, 15, 16, 23, 42], "statistic": s}),
        )
    };
    assert_eq!(stat("mean"), "18");
    assert_eq!(stat("median"), "15.5");
    assert_eq!(stat("min"), "4");
    assert_eq!(stat("max"), "42");
    assert_eq!(stat("sum"), "108");
    let there = call(
        "get_distance",
        json!({"origin": "Paris", "destination": "Berlin"}),
    );
    let back = call(
        "get_distance",
        json!({"origin": "Berlin", "destination": "Paris"}),
    );
    assert_eq!(there, back);
    let km: f64 = there.parse().unwrap();
    let miles: f64 = call(
        "get_distance",
        json!({"origin": "Paris", "destination": "Berlin", "unit": "miles"}),
    )
    .parse()
    .unwrap();
    assert!((km / 1.609_344 - miles).abs() < 0.06, "{km} {miles}");
}
