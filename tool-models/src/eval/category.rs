//! BFCL's categories, how each is checked, and the groups its leaderboard
//! averages them in.

use std::fmt;
use std::str::FromStr;

use super::{EvalError, Language};

/// A BFCL v4 test category: the single-turn ones and multi-turn (memory
/// and web search, BFCL's agentic part, are not run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// One function offered, one call expected.
    SimplePython,
    /// One Java method, one call, its arguments in Java's syntax.
    SimpleJava,
    /// One JavaScript function, one call, its arguments in JavaScript's
    /// syntax.
    SimpleJavascript,
    /// Several functions offered, one call to the right one expected.
    Multiple,
    /// One function, several calls to it expected, in any order.
    Parallel,
    /// Several functions, several calls expected, in any order.
    ParallelMultiple,
    /// No offered function fits: no call expected.
    Irrelevance,
    /// User-contributed questions, one function, one call.
    LiveSimple,
    /// User-contributed, several functions, one call.
    LiveMultiple,
    /// User-contributed, one function, several calls.
    LiveParallel,
    /// User-contributed, several functions, several calls.
    LiveParallelMultiple,
    /// User-contributed, no offered function fits: no call expected.
    LiveIrrelevance,
    /// User-contributed, a function fits: any call counts.
    LiveRelevance,
    /// Several user turns, each answered by as many steps of calls as
    /// needed, the calls run by BFCL's tool classes.
    MultiTurnBase,
    /// Multi-turn, with a function held out until a later turn: the model
    /// should say it cannot, then call it once it arrives.
    MultiTurnMissFunc,
    /// Multi-turn, with a needed argument left unsaid at a turn: the model
    /// should ask for it rather than guess.
    MultiTurnMissParam,
    /// Multi-turn, on classes loaded with long-context data (large file
    /// systems, long lists).
    MultiTurnLongContext,
}

/// How a category's answers are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Exactly one call, to the one function offered.
    Simple,
    /// Exactly one call, to the expected one of the functions offered.
    Multiple,
    /// The expected calls, in any order.
    Parallel,
    /// No call.
    NoCall,
    /// At least one call.
    AnyCall,
    /// A conversation, judged by the state the calls leave and the results
    /// they give, turn by turn.
    MultiTurn,
}

/// The groups BFCL's leaderboard reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Non-live AST: the unweighted mean of simple (itself the mean of its
    /// Python, Java and JavaScript categories), multiple, parallel and
    /// parallel_multiple.
    NonLiveAst,
    /// Live AST: the four live AST categories, weighted by their sizes.
    LiveAst,
    /// Irrelevance: the unweighted mean of irrelevance and live_irrelevance.
    Irrelevance,
    /// Relevance: live_relevance.
    Relevance,
    /// Multi-turn: the unweighted mean of its four categories.
    MultiTurn,
}

impl Group {
    /// Every group, in the leaderboard's order.
    pub const ALL: [Group; 5] = [
        Group::NonLiveAst,
        Group::LiveAst,
        Group::Irrelevance,
        Group::MultiTurn,
        Group::Relevance,
    ];

    /// The group's name in reports (`non_live_ast`…).
    pub fn name(self) -> &'static str {
        match self {
            Group::NonLiveAst => "non_live_ast",
            Group::LiveAst => "live_ast",
            Group::Irrelevance => "irrelevance_mean",
            Group::Relevance => "relevance_mean",
            Group::MultiTurn => MULTI_TURN,
        }
    }

    /// Whether the group's mean weights categories by their sizes (BFCL's
    /// live groups) rather than counting each once.
    pub fn weighted(self) -> bool {
        matches!(self, Group::LiveAst)
    }
}

impl Category {
    /// Every category, in BFCL's order.
    pub const ALL: [Category; 17] = [
        Category::SimplePython,
        Category::SimpleJava,
        Category::SimpleJavascript,
        Category::Multiple,
        Category::Parallel,
        Category::ParallelMultiple,
        Category::Irrelevance,
        Category::LiveSimple,
        Category::LiveMultiple,
        Category::LiveParallel,
        Category::LiveParallelMultiple,
        Category::LiveIrrelevance,
        Category::LiveRelevance,
        Category::MultiTurnBase,
        Category::MultiTurnMissFunc,
        Category::MultiTurnMissParam,
        Category::MultiTurnLongContext,
    ];

    /// BFCL's name for it (`simple_python`…), also the prefix of its ids.
    pub fn name(self) -> &'static str {
        match self {
            Category::SimplePython => "simple_python",
            Category::SimpleJava => "simple_java",
            Category::SimpleJavascript => "simple_javascript",
            Category::Multiple => "multiple",
            Category::Parallel => "parallel",
            Category::ParallelMultiple => "parallel_multiple",
            Category::Irrelevance => "irrelevance",
            Category::LiveSimple => "live_simple",
            Category::LiveMultiple => "live_multiple",
            Category::LiveParallel => "live_parallel",
            Category::LiveParallelMultiple => "live_parallel_multiple",
            Category::LiveIrrelevance => "live_irrelevance",
            Category::LiveRelevance => "live_relevance",
            Category::MultiTurnBase => "multi_turn_base",
            Category::MultiTurnMissFunc => "multi_turn_miss_func",
            Category::MultiTurnMissParam => "multi_turn_miss_param",
            Category::MultiTurnLongContext => "multi_turn_long_context",
        }
    }

    /// The question file's name in `bfcl_eval/data/` (the possible answers
    /// have the same name under `possible_answer/`).
    pub fn file_name(self) -> String {
        format!("BFCL_v4_{}.json", self.name())
    }

    /// How answers are judged; BFCL decides this from the name
    /// (`"multi_turn" in category`, then `"parallel" in category`, then
    /// `"multiple" in category`).
    pub fn check(self) -> Check {
        match self {
            Category::MultiTurnBase
            | Category::MultiTurnMissFunc
            | Category::MultiTurnMissParam
            | Category::MultiTurnLongContext => Check::MultiTurn,
            Category::SimplePython
            | Category::SimpleJava
            | Category::SimpleJavascript
            | Category::LiveSimple => Check::Simple,
            Category::Multiple | Category::LiveMultiple => Check::Multiple,
            Category::Parallel
            | Category::ParallelMultiple
            | Category::LiveParallel
            | Category::LiveParallelMultiple => Check::Parallel,
            Category::Irrelevance | Category::LiveIrrelevance => Check::NoCall,
            Category::LiveRelevance => Check::AnyCall,
        }
    }

    /// Whether its cases come with possible answers.
    pub fn has_answers(self) -> bool {
        !matches!(self.check(), Check::NoCall | Check::AnyCall)
    }

    /// The leaderboard group it counts in: by how it is checked, and for
    /// the AST groups whether it is live (BFCL decides by the name too).
    pub fn group(self) -> Group {
        match self.check() {
            Check::MultiTurn => Group::MultiTurn,
            Check::NoCall => Group::Irrelevance,
            Check::AnyCall => Group::Relevance,
            Check::Simple | Check::Multiple | Check::Parallel => {
                if self.name().starts_with("live_") {
                    Group::LiveAst
                } else {
                    Group::NonLiveAst
                }
            }
        }
    }

    /// Whether it is one of the multi-turn categories.
    pub fn is_multi_turn(self) -> bool {
        self.check() == Check::MultiTurn
    }

    /// The language its functions are written in (BFCL decides by the
    /// name: `is_java`, `is_js`).
    pub fn language(self) -> Language {
        match self {
            Category::SimpleJava => Language::Java,
            Category::SimpleJavascript => Language::JavaScript,
            _ => Language::Python,
        }
    }

    /// Whether BFCL's non-live "simple" score averages it with the other
    /// languages' simple categories before the group's mean.
    pub fn is_simple(self) -> bool {
        matches!(
            self,
            Category::SimplePython | Category::SimpleJava | Category::SimpleJavascript
        )
    }

    /// The category a case id belongs to (`live_simple_12-3-4` →
    /// `live_simple`): the longest category name the id starts with,
    /// followed by `_` and a digit.
    pub fn of_id(id: &str) -> Option<Category> {
        Category::ALL
            .iter()
            .copied()
            .filter(|c| {
                id.strip_prefix(c.name())
                    .and_then(|rest| rest.strip_prefix('_'))
                    .is_some_and(|rest| rest.starts_with(|ch: char| ch.is_ascii_digit()))
            })
            .max_by_key(|c| c.name().len())
    }

    /// Every category's name, comma-separated, for messages.
    pub fn names() -> String {
        Category::ALL.map(Category::name).join(", ")
    }

    /// The categories `name` selects: one by its BFCL name, or the four
    /// multi-turn ones by `multi_turn`.
    ///
    /// # Errors
    /// [`EvalError::UnknownCategory`], listing the valid names.
    pub fn select(name: &str) -> Result<Vec<Category>, EvalError> {
        if name.trim() == MULTI_TURN {
            return Ok(Category::ALL
                .into_iter()
                .filter(|c| c.is_multi_turn())
                .collect());
        }
        name.parse().map(|c| vec![c])
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name that selects every multi-turn category ([`Category::select`]).
const MULTI_TURN: &str = "multi_turn";

impl FromStr for Category {
    type Err = EvalError;

    /// A category by its BFCL name.
    fn from_str(name: &str) -> Result<Category, EvalError> {
        Category::ALL
            .into_iter()
            .find(|c| c.name() == name.trim())
            .ok_or_else(|| EvalError::UnknownCategory {
                name: name.to_owned(),
                known: format!("{} (or {MULTI_TURN} for its four)", Category::names()),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_list_the_valid() {
        for c in Category::ALL {
            assert_eq!(c.name().parse::<Category>().unwrap(), c);
            assert_eq!(Category::of_id(&format!("{}_17", c.name())), Some(c));
        }
        let e = "simple".parse::<Category>().unwrap_err().to_string();
        assert!(
            e.contains("simple_python, simple_java, simple_javascript, multiple"),
            "{e}"
        );
    }

    #[test]
    fn multi_turn_selects_its_four_and_other_names_one() {
        let four = Category::select("multi_turn").unwrap();
        assert_eq!(four.len(), 4);
        assert!(four.iter().all(|c| c.is_multi_turn()));
        assert_eq!(Category::select("parallel").unwrap(), [Category::Parallel]);
        let e = Category::select("multi").unwrap_err().to_string();
        assert!(e.contains("(or multi_turn for its four)"), "{e}");
    }

    #[test]
    fn ids_pick_the_longest_category() {
        for (id, category) in [
            ("parallel_multiple_3", Some(Category::ParallelMultiple)),
            ("live_parallel_0-0-0", Some(Category::LiveParallel)),
            ("live_multiple_1-2-3", Some(Category::LiveMultiple)),
            ("multi_turn_base_0", Some(Category::MultiTurnBase)),
            ("multi_turn_miss_func_12", Some(Category::MultiTurnMissFunc)),
            ("multi_turn_17", None),
            ("simple_javascript_7", Some(Category::SimpleJavascript)),
            ("simple_java_7", Some(Category::SimpleJava)),
        ] {
            assert_eq!(Category::of_id(id), category, "{id}");
        }
    }

    #[test]
    fn checks_follow_bfcls_name_rules() {
        for c in Category::ALL {
            let expected = if c.name().contains("multi_turn") {
                Check::MultiTurn
            } else if c.name().contains("irrelevance") {
                Check::NoCall
            } else if c.name().contains("relevance") {
                Check::AnyCall
            } else if c.name().contains("parallel") {
                Check::Parallel
            } else if c.name().contains("multiple") {
                Check::Multiple
            } else {
                Check::Simple
            };
            assert_eq!(c.check(), expected, "{c}");
        }
    }
}
