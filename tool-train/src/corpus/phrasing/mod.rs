//! How users ask for things, and how the assistant answers.
//!
//! Requests vary a lot (one in five phrasings of each list is held out, by
//! position, for the held-out split); answers do not: a handful of
//! templates per kind, each quoting the tool's result, so that a small model
//! can learn them. Slots are written `{name}` and filled by [`fill`].

mod arithmetic;
mod conversions;
mod follow_ups;
mod lookups;
mod organising;
mod time;
mod weather;
mod without_tools;

pub use arithmetic::*;
pub use conversions::*;
pub use follow_ups::*;
pub use lookups::*;
pub use organising::*;
pub use time::*;
pub use weather::*;
pub use without_tools::*;

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
