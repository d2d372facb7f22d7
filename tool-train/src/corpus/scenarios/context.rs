//! The conversation being written: its messages, the calls the assistant
//! makes and what they are expected to be, and the values drawn for it.

use super::*;

/// One conversation being written.
pub(crate) struct Cx<'a> {
    pub(super) rng: Rng,
    pub(super) split: Split,
    pub(super) toolbox: &'a Toolbox,
    pub(super) transcript: Transcript,
    /// The extended held-out split's case being written, if any.
    pub(super) case: Option<Case>,
    pub(super) practice: Practice,
    /// Places drawn since the last request, for value-end practice.
    pub(super) places: Vec<String>,
}

impl<'a> Cx<'a> {
    pub(super) fn new(rng: Rng, split: Split, toolbox: &'a Toolbox, practice: Practice) -> Cx<'a> {
        Cx {
            rng,
            split,
            toolbox,
            transcript: Transcript::new(),
            case: None,
            practice,
            places: Vec::new(),
        }
    }

    /// A phrasing from `list`, of this split.
    pub(super) fn phrase(&mut self, list: &[&'static str]) -> &'static str {
        if self.case == Some(Case::Terse) {
            if let Some(terse) = cases::terse(list) {
                return self.rng.choose(terse);
            }
        }
        v::choose(&mut self.rng, list, self.split)
    }

    /// An answer template (answers are the same in both splits).
    pub(super) fn answer_template(&mut self, list: &[&'static str]) -> &'static str {
        self.rng.choose(list)
    }

    /// Asks the same about another value, `value` in `list`'s `slot`; with
    /// [`Practice::FollowUps`], often in words composed from parts that
    /// are never one of `list`'s held-out phrasings.
    pub(super) fn ask_follow_up(&mut self, list: &[&'static str], slot: &str, value: &str) {
        if self.practice.holds(Practice::FollowUps, self.split)
            && practice::wants_composed_follow_up(&mut self.rng)
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
    pub(super) fn ask_phrase(&mut self, list: &[&'static str], slots: &[(&str, &str)]) {
        let template = self.phrase(list);
        let text = fill(template, slots);
        let text = self.maybe_bare(text, |bare| held_out_phrasing(list, slots)(bare));
        self.ask(text);
    }

    /// With [`Practice::Bare`], often `text` without its lead ("Average of
    /// …" for "What's the average of …"), never a text `held_out` knows.
    pub(super) fn maybe_bare(&mut self, text: String, held_out: impl Fn(&str) -> bool) -> String {
        if !(self.practice.holds(Practice::Bare, self.split) && practice::wants_bare(&mut self.rng))
        {
            return text;
        }
        match practice::bare(&text) {
            Some(bare) if !held_out(&bare) => bare,
            _ => text,
        }
    }

    /// One call of the calculator, `a op b`; its result.
    pub(super) fn calculate(&mut self, op: &str, a: &str, b: &str) -> String {
        self.call_one(
            "calculate",
            json!({"operation": op, "a": num(a), "b": num(b)}),
        )
    }

    /// Answers with the result `r`, in a template from `list` with its
    /// `slots` filled, and leaves `r` for a follow-up to build on.
    pub(super) fn answer_result(
        &mut self,
        list: &[&'static str],
        slots: &[(&str, &str)],
        r: &str,
    ) -> Follow {
        self.answer_from(list, slots, vec![r.to_owned()]);
        Follow::Result {
            value: r.to_owned(),
        }
    }

    /// Answers with a template from `list`, its `slots` filled; the answer
    /// is expected to contain each of `must_contain`.
    pub(super) fn answer_from(
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
    pub(super) fn ask_composed(
        &mut self,
        list: &[&'static str],
        slots: &[(&str, &str)],
        compose: impl FnOnce(&mut Rng, &dyn Fn(&str) -> bool) -> String,
    ) {
        let composed = self.practice.holds(Practice::Requests, self.split)
            && practice::wants_composed_request(&mut self.rng);
        self.ask_either(composed, list, slots, compose);
    }

    /// Asks in the words `compose` puts together if `composed` (never one
    /// of `list`'s held-out phrasings), or else with a phrasing from
    /// `list`, its `slots` filled.
    pub(super) fn ask_either(
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
    pub(super) fn small_talk(&mut self, text: String, reply: &str) {
        self.user(text);
        self.answer(reply.to_owned(), Vec::new());
    }

    pub(super) fn user(&mut self, text: String) {
        self.transcript.messages.push(Message::user(text));
    }

    /// A request, sometimes with an opening and without its final mark.
    pub(super) fn ask(&mut self, text: String) {
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
    pub(super) fn call(&mut self, calls: Vec<(&str, Value)>) -> Vec<String> {
        let calls = self.transcript.call(calls);
        let mut results = Vec::with_capacity(calls.len());
        for call in &calls {
            let message = self.toolbox.call_blocking(call);
            results.push(message.text().to_owned());
            self.transcript.messages.push(message);
        }
        results
    }

    /// One call, one result.
    pub(super) fn call_one(&mut self, name: &str, args: Value) -> String {
        self.call(vec![(name, args)]).pop().unwrap_or_default()
    }

    /// The assistant answers in words; `must_contain` are the facts it gives.
    pub(super) fn answer(&mut self, text: String, must_contain: Vec<String>) {
        self.transcript.answer(text, must_contain);
    }

    /// Whether `result` is a failed call's, answered then with its error
    /// message: a request whose call failed ends there.
    pub(super) fn answered_error(&mut self, result: &str) -> bool {
        let failed = is_error(result);
        if failed {
            self.answer_error(result);
        }
        failed
    }

    /// A call's `result` as the JSON object it holds, or `None` when the
    /// call failed (answered then with its error message).
    pub(super) fn result_object(&mut self, result: &str) -> Option<Value> {
        if self.answered_error(result) {
            return None;
        }
        Some(serde_json::from_str(result).unwrap_or(Value::Null))
    }

    /// Answers a failed call with its error message.
    pub(super) fn answer_error(&mut self, result: &str) {
        let error = result.strip_prefix("Error: ").unwrap_or(result);
        let error = error.trim_end_matches('.').to_owned();
        let template = self.answer_template(p::ERROR_ANSWERS);
        self.answer(fill(template, &[("error", &error)]), vec![error]);
    }

    pub(super) fn number(&mut self, kind: NumberKind) -> String {
        if self.practice.holds(Practice::ValueEnds, self.split) {
            if let Some(n) = practice::repeating_number(&mut self.rng, self.split, kind) {
                return n;
            }
        }
        v::number(&mut self.rng, self.split, kind)
    }

    /// A number of a kind drawn from `kinds` (a kind listed twice is drawn
    /// twice as often), or a huge one for [`Case::ManyDigits`], which draws
    /// no kind: amounts and values to convert share this.
    pub(super) fn number_of(&mut self, kinds: &[NumberKind]) -> String {
        let kind = if self.case == Some(Case::ManyDigits) {
            NumberKind::Huge
        } else {
            *self.rng.pick(kinds)
        };
        self.number(kind)
    }

    /// A made-up place, of several words now and then with value-end practice.
    pub(super) fn invented_place(&mut self) -> String {
        if self.practice.holds(Practice::ValueEnds, self.split)
            && practice::wants_long_place(&mut self.rng)
        {
            if self.practice.holds(Practice::Wide, self.split)
                && practice::wants_place_with_city(&mut self.rng)
            {
                return practice::place_with_city(&mut self.rng, self.split);
            }
            return practice::long_place(&mut self.rng, self.split);
        }
        v::invented_place(&mut self.rng, self.split)
    }

    /// A weather location as the user writes it: "Paris" or "Paris, France".
    pub(super) fn location(&mut self) -> String {
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
    pub(super) fn asked_place(&mut self, place: String) -> String {
        if self.practice.holds(Practice::ValueEnds, self.split) {
            self.places.push(place.clone());
        }
        place
    }

    pub(super) fn two_locations(&mut self) -> (String, String) {
        let a = self.location();
        loop {
            let b = self.location();
            if city_of(&b) != city_of(&a) {
                return (a, b);
            }
        }
    }

    pub(super) fn city(&mut self) -> String {
        let city = if self.invents() {
            self.invented_place()
        } else {
            v::pick_named(&mut self.rng, v::CITIES, self.split, |c| c.0)
                .0
                .to_owned()
        };
        self.asked_place(city)
    }

    /// A text of two to five made-up words when the values are made up (see
    /// [`Cx::invents`]), or else one of `list`, of this split.
    pub(super) fn text(&mut self, list: &[&str]) -> String {
        if self.invents() {
            v::invented_text(&mut self.rng, self.split, 2, 5)
        } else {
            (*v::pick(&mut self.rng, list, self.split)).to_owned()
        }
    }

    /// Whether the next place is made up: most of them in training, so that
    /// guessing a known city never pays and the model learns to copy.
    pub(super) fn invents(&mut self) -> bool {
        self.split == Split::Train && self.rng.chance(0.6)
    }

    pub(super) fn two_cities(&mut self) -> (String, String) {
        let a = self.city();
        loop {
            let b = self.city();
            if b != a {
                return (a, b);
            }
        }
    }

    pub(super) fn time_place(&mut self) -> String {
        (*v::pick_named(&mut self.rng, v::TIME_PLACES, self.split, |p| p)).to_owned()
    }

    /// A time place that is also a city (for weather and time together).
    pub(super) fn time_city(&mut self) -> String {
        loop {
            let place = self.time_place();
            if !place.contains('/') && !place.starts_with("UTC") {
                return place;
            }
        }
    }

    /// The finished conversation, offering the tools named `offered`.
    pub(super) fn into_example(self, offered: &[String], scenario: Scenario) -> Example {
        let tools = offered
            .iter()
            .filter_map(|name| crate::corpus::tools::definition(self.toolbox, name))
            .collect();
        self.transcript
            .into_example(tools, scenario, self.split, self.case)
    }

    pub(super) fn stock(&mut self) -> (String, String) {
        if self.invents() {
            return v::invented_stock(&mut self.rng, self.split);
        }
        let (sym, company) = *v::pick(&mut self.rng, v::STOCKS, self.split);
        (sym.to_owned(), company.to_owned())
    }
}
