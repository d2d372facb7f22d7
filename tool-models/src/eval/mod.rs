//! Measuring any model and any engine on BFCL, the Berkeley Function
//! Calling Leaderboard: how well does it call tools it has never seen?
//!
//! The questions, functions, possible answers and multi-turn tool classes
//! come from the installed `bfcl-eval` package (`pip install --no-deps
//! bfcl-eval==2026.3.23 mpmath`; never downloaded at run time), found by
//! [`find_data`]. Each [`Case`] is asked
//! through any [`ChatModel`](crate::chat::ChatModel) — a local model with
//! its own template, parser and constrained calls, or an OpenAI-compatible
//! engine — with BFCL's functions converted as BFCL converts them for tool
//! APIs ([`schema`]). The answer is judged by [`check`], which follows
//! BFCL's AST checker rule for rule (a test compares its verdicts with
//! BFCL's own code), and [`Summary`] averages the categories into BFCL's
//! groups.
//!
//! Seventeen categories run ([`Category::ALL`]). Thirteen are single-turn,
//! Java and JavaScript among them: their arguments are strings in the
//! language's syntax, read back by BFCL's own conversion rules
//! ([`Language`]), and `non_live_ast` averages them into "simple" as BFCL
//! does. In the four multi-turn ones the model is driven through each
//! conversation,
//! its calls run by BFCL's own tool classes in a Python process
//! ([`MultiTurn`]), and judged by the state and results they leave, as
//! BFCL's multi-turn checker judges them ([`MultiTurnChecker`]). Memory and
//! web search, BFCL's agentic part, do not run: they need a search API and
//! embedding backends.
//!
//! ```no_run
//! use tool_models::eval::{self, RunOptions, Selection, Summary};
//! # fn model() -> tool_models::remote::RemoteChat { unimplemented!() }
//!
//! let data = eval::find_data(None)?;
//! let selection = Selection { limit: Some(20), ..Selection::default() };
//! let cases = eval::load_cases(&data, &selection)?;
//! let mut model = model();
//! let results = eval::run(&cases, &mut model, &RunOptions::default(), &mut |_| {});
//! for line in Summary::of(&results).lines() {
//!     println!("{line}");
//! }
//! # Ok::<(), tool_models::eval::EvalError>(())
//! ```

mod ask;
mod category;
pub mod chart;
mod checker;
mod conversation;
mod convert;
mod data;
mod decoded;
mod language;
mod multi_turn;
mod multi_turn_check;
mod options;
mod python;
mod report;
mod result;
mod run;
pub mod schema;
mod tool_classes;

pub use ask::{ask, Answer};
pub use category::{Category, Check, Group};
pub use checker::{check, Verdict};
pub use data::{find_data, load_cases, load_category, Case, Selection, BFCL_PACKAGE, DATA_ENV};
pub use decoded::Decoded;
pub use language::Language;
pub use multi_turn::{MultiTurn, Step, TurnLog, MORE_FUNCTIONS_PROMPT, STEP_LIMIT};
pub use multi_turn_check::{check_tool_classes, MultiTurnChecker};
pub use options::{CaseProgress, OnProgress, RunOptions};
pub use report::{CategoryScore, GroupScore, Overall, Report, Summary};
pub use result::CaseResult;
pub use run::{evaluate, run, run_jobs};

/// Why an evaluation cannot start.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// BFCL's data is not installed where it was looked for.
    #[error("BFCL's data was not found: {0}")]
    NoData(String),
    /// A data file is missing or not in BFCL's format.
    #[error("{file}, line {line}: {reason}")]
    Data {
        /// The file.
        file: String,
        /// The line (1-based; 0 when the file could not be read).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A category name BFCL does not have (or we do not run).
    #[error("unknown category `{name}`; the categories are {known}")]
    UnknownCategory {
        /// The name given.
        name: String,
        /// The valid names.
        known: String,
    },
    /// Ids that no selected category has.
    #[error("no selected category has the case(s) {0}")]
    UnknownIds(String),
    /// BFCL's tool classes, which run multi-turn calls, cannot run (the
    /// message names them).
    #[error("{0}")]
    ToolClasses(String),
}
