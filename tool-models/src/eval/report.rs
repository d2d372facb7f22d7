//! Scores: per category, BFCL's group means, the lines a person or a script
//! reads, and the JSON report with every case.

use serde::Serialize;
use serde_json::Value;

use super::{CaseResult, Category, Group};

/// One category's score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryScore {
    /// The category.
    pub category: Category,
    /// Cases answered right.
    pub right: usize,
    /// Cases run.
    pub total: usize,
    /// Cases whose engine failed (counted wrong).
    pub errors: usize,
    /// `right / total`, as a fraction.
    pub accuracy: f64,
    /// Seconds spent asking, summed over the cases.
    pub seconds: f64,
}

/// One of BFCL's group means, over the categories of it that were run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupScore {
    /// The group.
    pub group: &'static str,
    /// The mean, as a fraction: unweighted, or weighted by category size
    /// where BFCL weights it (live AST).
    pub accuracy: f64,
    /// The categories it averages.
    pub categories: Vec<Category>,
}

/// Scores per category and per group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Each category run, in BFCL's order.
    pub categories: Vec<CategoryScore>,
    /// Each group with a category run.
    pub groups: Vec<GroupScore>,
    /// BFCL v4's overall score, over the parts that ran.
    pub overall: Overall,
}

/// BFCL v4's overall score: its parts weighted 10, 10, 10, 30 and 40
/// (non-live AST, live AST, irrelevance, multi-turn, agentic), a part not
/// run counting 0 as on the leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overall {
    /// The score as the leaderboard computes it, as a fraction.
    pub accuracy: f64,
    /// The share of the weight the parts run carry (0.3 for the three
    /// single-turn parts).
    pub weight_run: f64,
    /// The weighted mean over the parts run alone.
    pub accuracy_over_run: f64,
    /// The parts run.
    pub run: Vec<&'static str>,
    /// The parts not run (agentic always: web search and memory are not run).
    pub not_run: Vec<&'static str>,
}

/// The overall score's parts and their weights (`eval_runner_helper.py`:
/// `[10, 10, 10, 30, 40]`). Relevance is not among them.
const OVERALL_PARTS: [(&str, f64); 5] = [
    ("non_live_ast", 10.0),
    ("live_ast", 10.0),
    ("irrelevance_mean", 10.0),
    ("multi_turn", 30.0),
    ("agentic", 40.0),
];

impl Overall {
    fn of(groups: &[GroupScore]) -> Overall {
        let (mut accuracy, mut weight_run) = (0.0, 0.0);
        let (mut run, mut not_run) = (Vec::new(), Vec::new());
        for (part, weight) in OVERALL_PARTS {
            match groups.iter().find(|g| g.group == part) {
                Some(group) => {
                    accuracy += weight / 100.0 * group.accuracy;
                    weight_run += weight / 100.0;
                    run.push(part);
                }
                None => not_run.push(part),
            }
        }
        Overall {
            accuracy,
            weight_run,
            accuracy_over_run: if weight_run > 0.0 {
                accuracy / weight_run
            } else {
                0.0
            },
            run,
            not_run,
        }
    }

    /// `overall: 12.3% as the leaderboard computes it (…)`.
    pub fn line(&self) -> String {
        let not_run = if self.not_run.is_empty() {
            String::new()
        } else {
            format!("; not run, counted 0: {}", self.not_run.join(", "))
        };
        format!(
            "overall: {:.1}% as the leaderboard weighs it ({:.0}% of the weight run: {}{not_run}); {:.1}% over what ran",
            100.0 * self.accuracy,
            100.0 * self.weight_run,
            self.run.join(", "),
            100.0 * self.accuracy_over_run
        )
    }
}

impl Summary {
    /// The scores of `results`.
    pub fn of(results: &[CaseResult]) -> Summary {
        let categories: Vec<CategoryScore> = Category::ALL
            .into_iter()
            .filter_map(|category| {
                let mine: Vec<&CaseResult> =
                    results.iter().filter(|r| r.category == category).collect();
                if mine.is_empty() {
                    return None;
                }
                let right = mine.iter().filter(|r| r.valid).count();
                Some(CategoryScore {
                    category,
                    right,
                    total: mine.len(),
                    errors: mine.iter().filter(|r| r.engine_error.is_some()).count(),
                    accuracy: right as f64 / mine.len() as f64,
                    seconds: mine.iter().map(|r| r.seconds).sum(),
                })
            })
            .collect();
        let groups = Group::ALL
            .into_iter()
            .filter_map(|group| {
                let members: Vec<&CategoryScore> = categories
                    .iter()
                    .filter(|s| s.category.group() == group)
                    .collect();
                if members.is_empty() {
                    return None;
                }
                let accuracy = if group.weighted() {
                    let right: usize = members.iter().map(|s| s.right).sum();
                    let total: usize = members.iter().map(|s| s.total).sum();
                    right as f64 / total as f64
                } else {
                    // BFCL's "simple" is the mean of its languages, then
                    // one part of the group's mean like the others.
                    let (simple, others): (Vec<&CategoryScore>, Vec<&CategoryScore>) =
                        members.iter().partition(|s| s.category.is_simple());
                    let mut parts: Vec<f64> = others.iter().map(|s| s.accuracy).collect();
                    if !simple.is_empty() {
                        let mean = simple.iter().map(|s| s.accuracy).sum::<f64>();
                        parts.insert(0, mean / simple.len() as f64);
                    }
                    parts.iter().sum::<f64>() / parts.len() as f64
                };
                Some(GroupScore {
                    group: group.name(),
                    accuracy,
                    categories: members.iter().map(|s| s.category).collect(),
                })
            })
            .collect::<Vec<GroupScore>>();
        let overall = Overall::of(&groups);
        Summary {
            categories,
            groups,
            overall,
        }
    }

    /// One line per category (`simple_python: 12/20 (60.0%) in 3.2 s`, with
    /// `, N engine errors` when there were any), then one per group
    /// (`non_live_ast: 41.3% (mean of simple_python, multiple)`).
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .categories
            .iter()
            .map(|s| {
                let errors = match s.errors {
                    0 => String::new(),
                    1 => ", 1 engine error".to_owned(),
                    n => format!(", {n} engine errors"),
                };
                format!(
                    "{}: {}/{} ({:.1}%) in {:.1} s{errors}",
                    s.category,
                    s.right,
                    s.total,
                    100.0 * s.accuracy,
                    s.seconds
                )
            })
            .collect();
        for g in &self.groups {
            let simple: Vec<&str> = (g.categories.iter())
                .filter(|c| c.is_simple())
                .map(|c| c.name())
                .collect();
            let mut names: Vec<String> = (g.categories.iter())
                .filter(|c| !c.is_simple())
                .map(|c| c.name().to_owned())
                .collect();
            match simple.as_slice() {
                [] => {}
                [one] => names.insert(0, (*one).to_owned()),
                several => names.insert(0, format!("simple (mean of {})", several.join(", "))),
            }
            let how = if g.group == Group::LiveAst.name() {
                "weighted mean"
            } else {
                "mean"
            };
            lines.push(format!(
                "{}: {:.1}% ({how} of {})",
                g.group,
                100.0 * g.accuracy,
                names.join(", ")
            ));
        }
        lines.push(self.overall.line());
        lines
    }
}

/// A whole run: what ran, the scores, every case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The engine and settings, as the caller describes them.
    pub engine: Value,
    /// Whether the run was stopped before every case was asked.
    pub interrupted: bool,
    /// Wall time of the whole run, in seconds.
    pub wall_s: f64,
    /// The scores.
    pub summary: Summary,
    /// Every case asked, in the cases' order.
    pub cases: Vec<CaseResult>,
}

impl Report {
    /// The report of `cases`, scored.
    pub fn new(engine: Value, cases: Vec<CaseResult>, interrupted: bool, wall_s: f64) -> Report {
        Report {
            engine,
            interrupted,
            wall_s,
            summary: Summary::of(&cases),
            cases,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Category {
    /// A category by its BFCL name, as reports write it.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Category, D::Error> {
        let name = <String as serde::Deserialize>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl Serialize for Category {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(category: Category, valid: bool, engine_error: bool) -> CaseResult {
        CaseResult {
            id: format!("{category}_0"),
            category,
            messages: Vec::new(),
            prompt: None,
            raw: String::new(),
            calls: Vec::new(),
            decoded: None,
            decode_error: None,
            valid,
            error_type: None,
            errors: Vec::new(),
            engine_error: engine_error.then(|| "down".to_owned()),
            seconds: 0.5,
            prompt_tokens: 0,
            generated_tokens: 0,
            turns: Vec::new(),
        }
    }

    /// `right` valid results of `category`, then `wrong` invalid ones.
    fn tally(category: Category, right: usize, wrong: usize) -> Vec<CaseResult> {
        (0..right + wrong)
            .map(|i| result(category, i < right, false))
            .collect()
    }

    #[test]
    fn groups_average_as_bfcl_does() {
        let mut results = vec![
            // simple 1/2, multiple 1/1: non-live AST is the plain mean, 75%.
            result(Category::SimplePython, true, false),
            result(Category::SimplePython, false, true),
            result(Category::Multiple, true, false),
            // live simple 0/1, live multiple 3/3: live AST weights, 75%.
            result(Category::LiveSimple, false, false),
        ];
        for _ in 0..3 {
            results.push(result(Category::LiveMultiple, true, false));
        }
        let summary = Summary::of(&results);
        let lines = summary.lines();
        assert_eq!(
            lines[0],
            "simple_python: 1/2 (50.0%) in 1.0 s, 1 engine error"
        );
        assert_eq!(lines[1], "multiple: 1/1 (100.0%) in 0.5 s");
        assert_eq!(
            lines[4],
            "non_live_ast: 75.0% (mean of simple_python, multiple)"
        );
        assert_eq!(
            lines[5],
            "live_ast: 75.0% (weighted mean of live_simple, live_multiple)"
        );
        assert_eq!(
            lines[6],
            "overall: 15.0% as the leaderboard weighs it (20% of the weight run: non_live_ast, live_ast; \
             not run, counted 0: irrelevance_mean, multi_turn, agentic); 75.0% over what ran"
        );
        assert_eq!(lines.len(), 7);
    }

    #[test]
    fn simple_is_the_mean_of_its_languages_before_the_groups() {
        // Python 1/1, Java 0/2, JavaScript 1/2: simple is (100 + 0 + 50) / 3
        // = 50%; with multiple at 100% non-live AST is 75%, not the 62.5%
        // a plain mean of four categories would give.
        let results = [
            tally(Category::SimplePython, 1, 0),
            tally(Category::SimpleJava, 0, 2),
            tally(Category::SimpleJavascript, 1, 1),
            tally(Category::Multiple, 1, 0),
        ]
        .concat();
        let summary = Summary::of(&results);
        assert!((summary.groups[0].accuracy - 0.75).abs() < 1e-12);
        assert_eq!(
            summary.lines()[summary.lines().len() - 2],
            "non_live_ast: 75.0% (mean of simple (mean of simple_python, simple_java, simple_javascript), multiple)"
        );
    }

    #[test]
    fn multi_turn_is_the_mean_of_its_four_and_weighs_30_percent() {
        // base 1/1, miss_func 0/2, miss_param 1/2, long_context 1/1:
        // (100 + 0 + 50 + 100) / 4 = 62.5%, not the 60% of 3/5 pooled.
        let results = [
            tally(Category::MultiTurnBase, 1, 0),
            tally(Category::MultiTurnMissFunc, 0, 1),
            vec![result(Category::MultiTurnMissFunc, false, true)],
            tally(Category::MultiTurnMissParam, 1, 1),
            tally(Category::MultiTurnLongContext, 1, 0),
            tally(Category::Irrelevance, 1, 0),
        ]
        .concat();
        let summary = Summary::of(&results);
        let multi = summary
            .groups
            .iter()
            .find(|g| g.group == "multi_turn")
            .unwrap();
        assert!((multi.accuracy - 0.625).abs() < 1e-12);
        let overall = &summary.overall;
        assert!((overall.weight_run - 0.4).abs() < 1e-12);
        // 10% × 100% + 30% × 62.5% = 28.75%.
        assert!((overall.accuracy - 0.2875).abs() < 1e-12, "{overall:?}");
        assert_eq!(overall.not_run, ["non_live_ast", "live_ast", "agentic"]);
    }

    #[test]
    fn a_multi_turn_result_reads_back_from_its_report() {
        let mut multi = result(Category::MultiTurnBase, false, false);
        multi.turns = vec![crate::eval::TurnLog {
            steps: vec![crate::eval::Step {
                raw: "<tool_call>…</tool_call>".into(),
                calls: vec!["cd(folder='document')".into()],
                results: vec![r#"{"current_working_directory": "document"}"#.into()],
            }],
            last: "Done.".into(),
            undecodable: None,
        }];
        let single = result(Category::SimplePython, true, false);
        let text = serde_json::to_string(&[&multi, &single]).unwrap();
        assert!(
            !text.contains("\"turns\":[]"),
            "single-turn results carry no turns"
        );
        let back: Vec<CaseResult> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, [multi, single]);
    }
}
