//! Lookalike practice: a request for a tool that is not offered, beside an
//! offered tool that shares its words or its arguments.
//!
//! v16 called `search_flights` for "Search online for …", `get_distance`
//! for a fare, `get_current_time` for "How many degrees is it in Madrid?"
//! and `set_lights` for a wake-up call: in each the tool asked for was not
//! offered, but one whose name or arguments look like it was. Training
//! offered two to four tools drawn at random beside such requests, so a
//! lookalike was seldom among them.

use crate::corpus::rng::Rng;

/// How often a request for a tool not offered is offered a lookalike.
const LOOKALIKE: f64 = 0.75;

/// Each tool and the tools a request for it could be mistaken for: a word
/// of the name in common, or arguments of the same shape.
const LOOKALIKES: &[(&str, &[&str])] = &[
    (
        "get_current_temperature",
        &["get_current_time", "convert_units"],
    ),
    (
        "get_current_wind_speed",
        &["get_current_time", "get_distance"],
    ),
    ("get_weather_forecast", &["calculate_statistics"]),
    ("calculate", &["convert_units", "convert_currency"]),
    (
        "calculate_statistics",
        &["calculate", "get_weather_forecast"],
    ),
    ("convert_units", &["calculate", "get_distance"]),
    ("convert_currency", &["get_stock_price", "calculate"]),
    (
        "get_current_time",
        &["get_current_temperature", "create_calendar_event"],
    ),
    ("search_web", &["search_flights", "translate_text"]),
    ("get_stock_price", &["convert_currency", "search_web"]),
    ("translate_text", &["send_email", "search_web"]),
    (
        "create_calendar_event",
        &["set_reminder", "get_current_time"],
    ),
    ("set_reminder", &["set_lights", "create_calendar_event"]),
    ("send_email", &["translate_text", "set_reminder"]),
    ("search_flights", &["get_distance", "search_web"]),
    ("set_lights", &["set_reminder"]),
    ("get_distance", &["search_flights", "convert_units"]),
];

/// A tool to offer beside a request for `tool`, which is not offered,
/// never one of `excluded`; or none (one time in four, or when every
/// lookalike is excluded), and the offer is drawn at random as before.
pub(crate) fn lookalike(rng: &mut Rng, tool: &str, excluded: &[&str]) -> Option<&'static str> {
    if !rng.chance(LOOKALIKE) {
        return None;
    }
    let (_, alikes) = LOOKALIKES.iter().find(|(name, _)| *name == tool)?;
    let open: Vec<&'static str> = alikes
        .iter()
        .copied()
        .filter(|a| !excluded.contains(a))
        .collect();
    if open.is_empty() {
        None
    } else {
        Some(*rng.pick(&open))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::tools::toolbox;

    #[test]
    fn every_tool_has_lookalikes_that_are_other_tools() {
        let names: Vec<String> = toolbox(Default::default())
            .names()
            .map(str::to_owned)
            .collect();
        for name in &names {
            let (_, alikes) = LOOKALIKES
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{name} has no lookalikes"));
            for alike in *alikes {
                assert_ne!(alike, name);
                assert!(names.iter().any(|n| n == alike), "{alike} is not a tool");
            }
        }
        assert_eq!(LOOKALIKES.len(), names.len());
    }

    #[test]
    fn a_lookalike_is_offered_often_and_never_an_excluded_one() {
        let mut rng = Rng::for_example(44, 0);
        let mut offered = 0;
        for _ in 0..400 {
            if let Some(alike) = lookalike(&mut rng, "search_web", &["search_flights"]) {
                assert_eq!(alike, "translate_text");
                offered += 1;
            }
        }
        assert!((250..350).contains(&offered), "{offered} of 400");
        assert_eq!(lookalike(&mut rng, "no_such_tool", &[]), None);
        let all = ["get_current_time", "convert_units"];
        for _ in 0..50 {
            assert_eq!(lookalike(&mut rng, "get_current_temperature", &all), None);
        }
    }
}
