//! Conversations with tools made up on the spot, so that the model learns
//! to read a schema rather than the corpus's own seventeen tools.
//!
//! Each tool is drawn from tables (`tool-train/data/schemas.json`): an
//! action ("get", "book", …) on an object (a noun phrase of the table, or a
//! made-up word before a common head, "velmor index"), named in one of the
//! styles tool authors use (`get_weather_report`, `getWeatherReport`,
//! `weather.get_report`, …), with one to five parameters of every JSON
//! type: strings of many kinds, integers, numbers, booleans, enums and
//! arrays, some optional. A request names the object in the action's words
//! and each value with the cue its parameter is read by ("in Paris",
//! "3 nights", "with a radius of 2.5"); the call copies the values as
//! written, in the schema's order, optional ones only when asked for.
//!
//! The conversations are the kinds tool-calling benchmarks ask: one tool
//! and one call; several tools and the right one called; one tool called
//! for several values at once; several tools each called; and requests no
//! offered tool covers, answered in words. Results are made up; the answer
//! repeats them.
//!
//! Nothing here is read from a benchmark: the tables are written for this
//! corpus, and `tests/decontamination.rs` measures their overlap with
//! BFCL's data when it is installed.

mod request;
mod tool;
mod values;

use super::rng::Rng;
use super::scenarios::and_list;
use super::transcript::Transcript;
use super::words::{words, Words};
use super::{Example, Scenario, Split};
use request::Said;
use tool::Tool;
use tool_use::Message;

/// The most tools a conversation offers, so that it fits the 1,536 tokens
/// the model is trained on.
const MAX_TOOLS: usize = 4;

/// The most bytes of tool definitions a conversation offers (beyond its
/// first tool), for the same reason.
const MAX_DEFINITIONS: usize = 1700;

/// The tables the made-up tools are drawn from.
static WORDS: Words = words!("schemas.json");

/// What kind of made-up-tool conversation an example is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaCase {
    /// One tool offered, one call.
    Simple,
    /// Two to four tools offered, one of them called.
    Multiple,
    /// One tool, called for several values at once.
    Parallel,
    /// Two or three tools, each called.
    ParallelMultiple,
    /// No offered tool covers the request: answered in words.
    Irrelevant,
}

impl SchemaCase {
    /// Every case, with how often a made-up-tool conversation is of it
    /// (out of 100).
    pub const WEIGHTS: [(SchemaCase, u32); 5] = [
        (SchemaCase::Simple, 20),
        (SchemaCase::Multiple, 25),
        (SchemaCase::Parallel, 18),
        (SchemaCase::ParallelMultiple, 14),
        (SchemaCase::Irrelevant, 23),
    ];
}

/// `count` conversations with made-up tools, of `split`, the same for the
/// same seed (example `i` depends only on the seed, `i` and the split).
pub fn generate_schemas(seed: u64, count: usize, split: Split) -> Vec<Example> {
    let salt = match split {
        Split::Train => 0x5343_4845_4d41,
        Split::HeldOut => 0x5343_4845_4d41_4f55,
    };
    (0..count as u64)
        .map(|i| example(Rng::for_example(seed ^ salt, i), split).0)
        .collect()
}

/// One conversation, and which case it is.
pub(crate) fn example(mut rng: Rng, split: Split) -> (Example, SchemaCase) {
    let weights: Vec<u32> = SchemaCase::WEIGHTS.iter().map(|w| w.1).collect();
    let case = SchemaCase::WEIGHTS[rng.weighted(&weights)].0;
    let mut cx = Conversation {
        split,
        transcript: Transcript::new(),
    };
    if rng.chance(0.2) {
        cx.transcript
            .messages
            .push(Message::system(*rng.pick(super::values::SYSTEM_PROMPTS)));
    }
    let offered = match case {
        SchemaCase::Simple => {
            let tool = Tool::draw(&mut rng, split, None, None);
            cx.single(&mut rng, &tool);
            vec![tool]
        }
        SchemaCase::Multiple => {
            let tool = Tool::draw(&mut rng, split, None, None);
            cx.single(&mut rng, &tool);
            let others = rng.range(1, MAX_TOOLS as i64 - 1) as usize;
            offer(&mut rng, split, vec![tool], others)
        }
        SchemaCase::Parallel => {
            let tool = Tool::draw(&mut rng, split, None, None);
            cx.parallel(&mut rng, &tool);
            let others = [0, 0, 1, 2][rng.below(4)];
            offer(&mut rng, split, vec![tool], others)
        }
        SchemaCase::ParallelMultiple => {
            let count = rng.range(2, 3) as usize;
            let tools = distinct_tools(&mut rng, split, count);
            cx.several(&mut rng, &tools);
            let others = [0, 0, 1, 1][rng.below(4)].min(MAX_TOOLS - count);
            offer(&mut rng, split, tools, others)
        }
        SchemaCase::Irrelevant => {
            let count = rng.range(1, MAX_TOOLS as i64 - 1) as usize;
            let first = Tool::draw(&mut rng, split, None, None);
            let tools = offer(&mut rng, split, vec![first], count - 1);
            // What is asked for: an object no offered tool acts on; half
            // the time in an offered tool's words and with its arguments
            // (a body-mass index asked of a tool for areas), the requests
            // a model that matches arguments alone would call for.
            let near = rng
                .chance(0.5)
                .then(|| tools[rng.below(tools.len())].clone());
            let wanted = loop {
                let tool = Tool::draw(&mut rng, split, None, None);
                if tools.iter().all(|t| t.object != tool.object) {
                    break match &near {
                        Some(near) => Tool {
                            object: tool.object,
                            ..near.clone()
                        },
                        None => tool,
                    };
                }
            };
            let said = request::say(&mut rng, split, &wanted);
            let tail = request::joined(&mut rng, &said.mentions);
            let text = request::request(&mut rng, &wanted, &tail);
            cx.transcript.messages.push(Message::user(text));
            let answer = request::decline(&mut rng, &wanted);
            cx.transcript.answer(answer, Vec::new());
            tools
        }
    };
    let scenario = match case {
        SchemaCase::Simple | SchemaCase::Multiple => Scenario::Single,
        SchemaCase::Parallel | SchemaCase::ParallelMultiple => Scenario::Parallel,
        SchemaCase::Irrelevant => Scenario::Unavailable,
    };
    let tools = offered.into_iter().map(|t| t.definition).collect();
    (
        cx.transcript.into_example(tools, scenario, split, None),
        case,
    )
}

/// `count` tools, no two on the same object or with the same name, within
/// [`MAX_DEFINITIONS`] together.
fn distinct_tools(rng: &mut Rng, split: Split, count: usize) -> Vec<Tool> {
    let mut tools: Vec<Tool> = Vec::new();
    let mut tries = 0;
    // A second tool that fits is soon drawn (most are small); a third may
    // never fit.
    while tools.len() < count && (tries < 200 || tools.len() < 2) {
        tries += 1;
        let tool = Tool::draw(rng, split, None, None);
        let size: usize = tools.iter().chain([&tool]).map(Tool::size).sum();
        let fits = size <= MAX_DEFINITIONS || tools.is_empty();
        if fits
            && tools
                .iter()
                .all(|t| t.object != tool.object && t.name != tool.name)
        {
            tools.push(tool);
        }
    }
    tools
}

/// `needed` and `others` more tools, shuffled: some near misses (the same
/// object with another action, or the same action on another object), the
/// rest drawn freely.
fn offer(rng: &mut Rng, split: Split, needed: Vec<Tool>, others: usize) -> Vec<Tool> {
    let mut tools = needed;
    let wanted = tools.len() + others;
    let mut tries = 0;
    while tools.len() < wanted && tries < 100 {
        tries += 1;
        let model = &tools[rng.below(tools.len())];
        let candidate = match rng.below(4) {
            0 => {
                let action = rng.below(tool::actions().len());
                Tool::draw(rng, split, Some(action), Some(model.object.clone()))
            }
            1 => Tool::draw(rng, split, Some(model.action), None),
            _ => Tool::draw(rng, split, None, None),
        };
        let clash = tools.iter().any(|t| {
            t.name == candidate.name
                || (t.object == candidate.object && t.action == candidate.action)
        });
        let size: usize = tools.iter().chain([&candidate]).map(Tool::size).sum();
        if !clash && size <= MAX_DEFINITIONS {
            tools.push(candidate);
        }
    }
    rng.shuffle(&mut tools);
    tools
}

/// The conversation being written.
struct Conversation {
    split: Split,
    transcript: Transcript,
}

impl Conversation {
    /// The assistant calls: `calls` as (tool name, arguments), each answered
    /// with a made-up result; the results' texts.
    fn call(&mut self, rng: &mut Rng, calls: Vec<(&Tool, serde_json::Value)>) -> Vec<String> {
        let made = self.transcript.call(
            calls
                .iter()
                .map(|(tool, args)| (tool.name.clone(), args.clone())),
        );
        let mut results = Vec::new();
        for (call, (tool, _)) in made.iter().zip(&calls) {
            let (text, content) = request::result(rng, self.split, tool);
            self.transcript.messages.push(Message::tool(
                call.id.clone(),
                call.name.clone(),
                content,
            ));
            results.push(text);
        }
        results
    }

    /// One request, one call, one answer.
    fn single(&mut self, rng: &mut Rng, tool: &Tool) {
        let said = request::say(rng, self.split, tool);
        let tail = request::joined(rng, &said.mentions);
        let text = request::request(rng, tool, &tail);
        self.transcript.messages.push(Message::user(text));
        let args = request::arguments(tool, &said.values);
        let results = self.call(rng, vec![(tool, args)]);
        let r = results.into_iter().next().unwrap_or_default();
        let first = said.mentions.first().cloned().unwrap_or_default();
        let answer = request::answer(rng, tool, &first, &r);
        self.transcript.answer(answer, vec![r]);
    }

    /// One request naming several values of one parameter: one call per
    /// value, the other arguments the same in each.
    fn parallel(&mut self, rng: &mut Rng, tool: &Tool) {
        if rng.chance(0.4) {
            return self.again(rng, tool);
        }
        // The parameter that varies: a required one a list can be said for.
        let varying: Vec<usize> = tool
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.required
                    && !matches!(p.ty, tool::Type::Boolean | tool::Type::Array(_))
                    && !matches!(p.style, "count" | "saying" | "enum")
            })
            .map(|(i, _)| i)
            .collect();
        let Some(&at) = varying.get(rng.below(varying.len().max(1))) else {
            // Nothing to vary: the same tool asked twice in one request.
            return self.several(rng, &[tool.clone(), tool.clone()]);
        };
        let said = request::say(rng, self.split, tool);
        let count = rng.range(2, 4) as usize;
        let param = &tool.params[at];
        let mut drawn: Vec<values::Drawn> = Vec::new();
        let mut tries = 0;
        while drawn.len() < count && tries < 40 {
            tries += 1;
            let d = param.draw(rng, self.split);
            if !drawn.iter().any(|x| x.text == d.text) {
                drawn.push(d);
            }
        }
        let texts: Vec<String> = drawn.iter().map(|d| d.text.clone()).collect();
        let listed = values::Drawn {
            value: serde_json::Value::Null,
            text: and_list(&texts),
        };
        let mut mentions = said.mentions.clone();
        let position = tool.params[..at]
            .iter()
            .zip(&said.values)
            .filter(|(_, v)| v.is_some())
            .count();
        if let Some(m) = mentions.get_mut(position) {
            *m = request::mention(rng, param, &listed);
        }
        let tail = request::joined(rng, &mentions);
        let text = request::request(rng, tool, &tail);
        self.transcript.messages.push(Message::user(text));
        let calls: Vec<(&Tool, serde_json::Value)> = drawn
            .iter()
            .map(|d| {
                let mut values = said.values.clone();
                values[at] = Some(d.clone());
                (tool, request::arguments(tool, &values))
            })
            .collect();
        let results = self.call(rng, calls);
        let described: Vec<String> = results
            .iter()
            .zip(&texts)
            .map(|(r, t)| format!("{r} for {t}"))
            .collect();
        let answer = request::answer_many(rng, tool, &described);
        self.transcript.answer(answer, results);
    }

    /// One request asking the same of one tool two or three times, each
    /// with its own values ("… in Paris on Monday, and in Rome on
    /// Tuesday"): one call each, then one answer.
    fn again(&mut self, rng: &mut Rng, tool: &Tool) {
        let times = rng.range(2, 3) as usize;
        let mut tails = Vec::new();
        let mut calls = Vec::new();
        for _ in 0..times {
            let said = request::say(rng, self.split, tool);
            tails.push(request::joined(rng, &said.mentions));
            calls.push((tool, request::arguments(tool, &said.values)));
        }
        let mut text = request::request(rng, tool, &tails[0]);
        let mark = text.pop().unwrap_or('.');
        for tail in &tails[1..] {
            text.push_str(rng.choose(&[", and", "; and", ", and also", ", then"]));
            text.push_str(tail);
        }
        if rng.chance(0.2) {
            text.push_str(" respectively");
        }
        text.push(mark);
        self.transcript.messages.push(Message::user(text));
        let results = self.call(rng, calls);
        let answer = format!("Here you go: {}.", and_list(&results));
        self.transcript.answer(answer, results);
    }

    /// One request asking each tool once: all calls together, then one
    /// answer.
    fn several(&mut self, rng: &mut Rng, tools: &[Tool]) {
        let mut texts = Vec::new();
        let mut calls = Vec::new();
        for tool in tools {
            let said: Said = request::say(rng, self.split, tool);
            let tail = request::joined(rng, &said.mentions);
            texts.push(request::request(rng, tool, &tail));
            calls.push((tool, request::arguments(tool, &said.values)));
        }
        let text = request::and_also(rng, &texts);
        self.transcript.messages.push(Message::user(text));
        let results = self.call(rng, calls);
        let described: Vec<String> = results
            .iter()
            .zip(tools)
            .map(|(r, t)| format!("{r} for the {}", t.object))
            .collect();
        let answer = format!("Here you go: {}.", and_list(&described));
        self.transcript.answer(answer, results);
    }
}
