//! `tool-use eval bfcl` against BFCL's own code and data: the checker's
//! verdicts equal those of the checker shipped in the installed `bfcl-eval`
//! package on a committed set of model outputs, and a small run's report
//! says what its JSON holds.
//!
//! The package comes from `$TOOL_USE_PYTHON` (CI installs it there with
//! `pip install --no-deps bfcl-eval==2026.3.23 filelock==3.20.0 mpmath`:
//! the questions, the answers, the checkers and the multi-turn tool
//! classes need nothing else, and
//! `tests/bfcl/verdicts.py` loads the checker without BFCL's model
//! registry, which would import every provider's SDK). Without it the
//! tests say so and pass, unless `TOOL_USE_REQUIRE_PYTHON_CLIENTS=1`.

mod python;
// Only `tool_use` and `eval_bfcl` are used here.
#[allow(dead_code)]
#[path = "common/cli.rs"]
mod cli;

use cli::{eval_bfcl, tool_use};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use tool_use::eval::{self, Case, Category, Decoded};

/// The Python that has the package, and BFCL's data folder through it
/// (`find_data` asks the same interpreter).
fn data() -> Option<(String, PathBuf)> {
    let python = python::python_with("bfcl_eval")?;
    let data = eval::find_data(None).expect("the package imports, so its data is there");
    Some((python, data))
}

/// Asserts that none of the `compared` verdicts differ from BFCL's
/// (`mismatches` says how each that does).
#[track_caller]
fn assert_none_differ(mismatches: &[String], compared: usize) {
    assert!(
        mismatches.is_empty(),
        "{} of {compared} verdicts differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

fn cases_by_id(data: &std::path::Path) -> BTreeMap<String, Case> {
    let mut cases = BTreeMap::new();
    for category in Category::ALL {
        for case in eval::load_category(data, category).unwrap() {
            cases.insert(case.id.clone(), case);
        }
    }
    cases
}

#[test]
fn the_checker_agrees_with_bfcls_on_every_committed_output() {
    let Some((python, data)) = data() else { return };
    let cases = cases_by_id(&data);
    let (mut compared, mut right, mut mismatches) = (0, 0, Vec::new());
    let mut categories = BTreeSet::new();
    let mut sources = BTreeSet::new();
    // Python's categories (scripts/bfcl_outputs.py), then Java's and
    // JavaScript's (scripts/bfcl_outputs_java_js.py).
    let mut lines = 0;
    for file in ["outputs.jsonl", "outputs_java_js.jsonl"] {
        let outputs = format!("{}/tests/bfcl/{file}", env!("CARGO_MANIFEST_DIR"));
        let theirs = python::run_script(&python, "bfcl/verdicts.py", &[&outputs]);
        let ours = std::fs::read_to_string(&outputs).unwrap();
        assert_eq!(ours.lines().count(), theirs.lines().count(), "{file}");
        lines += ours.lines().count();
        for (line, verdict) in ours.lines().zip(theirs.lines()) {
            let output: Value = serde_json::from_str(line).unwrap();
            let verdict: Value = serde_json::from_str(verdict).unwrap();
            assert_eq!(
                output["id"], verdict["id"],
                "verdicts come in the outputs' order"
            );
            assert!(
                verdict["valid"].is_boolean(),
                "BFCL's checker raised on {line}: {verdict}"
            );
            let case = &cases[output["id"].as_str().unwrap()];
            let decoded = match &output["decoded"] {
                Value::Array(calls) => Decoded::Calls(calls.clone()),
                _ => Decoded::Failed(output["decode_error"].as_str().unwrap().to_owned()),
            };
            let mine = eval::check(case, &decoded);
            let same = Value::Bool(mine.valid) == verdict["valid"]
                && mine.error_type.as_deref() == verdict["error_type"].as_str();
            if !same {
                mismatches.push(format!(
                    "{}: BFCL {} {}, ours {} {:?} {:?}",
                    case.id,
                    verdict["valid"],
                    verdict["error_type"],
                    mine.valid,
                    mine.error_type,
                    mine.errors
                ));
            }
            compared += 1;
            right += usize::from(mine.valid);
            categories.insert(case.category);
            let source = output["source"].as_str().unwrap();
            sources.insert(source.split(':').next().unwrap().to_owned());
        }
    }
    assert_eq!(compared, lines);
    assert!(compared >= 300, "only {compared} outputs");
    assert_eq!(
        categories.len(),
        Category::ALL.iter().filter(|c| !c.is_multi_turn()).count(),
        "every single-turn category is covered"
    );
    assert!(
        right > compared / 5 && right < compared * 4 / 5,
        "right and wrong answers both: {right} of {compared}"
    );
    assert_none_differ(&mismatches, compared);
    for source in ["model", "mutation"] {
        assert!(sources.contains(source), "{sources:?}");
    }
}

#[test]
fn the_multi_turn_checker_agrees_with_bfcls_on_every_committed_conversation() {
    let Some((python, data)) = data() else { return };
    let cases = cases_by_id(&data);
    // scripts/bfcl_outputs_multi_turn.py: the ground truth edited every
    // way that changes BFCL's verdict, and real runs.
    let outputs = format!(
        "{}/tests/bfcl/outputs_multi_turn.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let data_arg = data.to_str().unwrap();
    let theirs = python::run_script(
        &python,
        "bfcl/multi_turn_verdicts.py",
        &[data_arg, &outputs],
    );
    let ours = std::fs::read_to_string(&outputs).unwrap();
    assert_eq!(ours.lines().count(), theirs.lines().count());
    let mut checker = eval::MultiTurnChecker::start().unwrap();
    let (mut right, mut mismatches) = (0, Vec::new());
    let mut kinds = BTreeSet::new();
    let mut sources = BTreeSet::new();
    for (line, verdict) in ours.lines().zip(theirs.lines()) {
        let output: Value = serde_json::from_str(line).unwrap();
        let verdict: Value = serde_json::from_str(verdict).unwrap();
        assert_eq!(output["id"], verdict["id"]);
        assert!(
            verdict["valid"].is_boolean(),
            "BFCL's checker raised on {line}: {verdict}"
        );
        let case = &cases[output["id"].as_str().unwrap()];
        let turns: Vec<Vec<Vec<String>>> = serde_json::from_value(output["turns"].clone()).unwrap();
        let mine = checker.check(case, &turns).unwrap();
        if Value::Bool(mine.valid) != verdict["valid"]
            || mine.error_type.as_deref() != verdict["error_type"].as_str()
        {
            mismatches.push(format!(
                "{} ({}): BFCL {} {}, ours {} {:?} {:?}",
                case.id,
                output["source"],
                verdict["valid"],
                verdict["error_type"],
                mine.valid,
                mine.error_type,
                mine.errors
            ));
        }
        right += usize::from(mine.valid);
        kinds.insert(mine.error_type.unwrap_or_else(|| "valid".into()));
        sources.insert(output["source"].as_str().unwrap().to_owned());
    }
    let compared = ours.lines().count();
    assert!(compared >= 800, "only {compared} conversations");
    assert_none_differ(&mismatches, compared);
    // Every verdict BFCL's multi-turn runner gives comes up.
    for kind in [
        "valid",
        "multi_turn:force_terminated",
        "multi_turn:empty_turn_model_response",
        "multi_turn:instance_state_mismatch",
        "multi_turn:execution_response_mismatch",
    ] {
        assert!(kinds.contains(kind), "no {kind} among {kinds:?}");
    }
    assert!(
        right > compared / 5 && right < compared * 4 / 5,
        "{right} of {compared}"
    );
    assert!(sources.len() >= 9, "{sources:?}");
}

/// `category: right/total (pct%) …` lines of the summary, parsed.
fn printed_scores(stdout: &str) -> BTreeMap<String, (usize, usize)> {
    stdout
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(": ")?;
            let (right, rest) = rest.split_once('/')?;
            let total = rest.split_whitespace().next()?;
            Some((name.to_owned(), (right.parse().ok()?, total.parse().ok()?)))
        })
        .collect()
}

#[test]
fn a_small_run_on_the_bundled_model_reports_what_its_json_holds() {
    let Some((_, data)) = data() else { return };
    let (stdout, report) = eval_report(&data, &["--limit", "2", "--max-tokens", "48"]);
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2 * Category::ALL.len());
    assert_eq!(report["interrupted"], false);
    assert_eq!(report["engine"]["kind"], "local");

    // Every case carries its question, output, verdict and time.
    for case in cases {
        for key in [
            "id", "category", "messages", "prompt", "raw", "calls", "valid", "seconds",
        ] {
            assert!(!case[key].is_null(), "{key} missing in {case}");
        }
        let outcomes = ["decoded", "decode_error", "engine_error"]
            .iter()
            .filter(|key| !case[**key].is_null())
            .count();
        assert_eq!(outcomes, 1, "calls, no calls or an engine error: {case}");
        assert_eq!(
            case["valid"] == false,
            !case["error_type"].is_null(),
            "{case}"
        );
    }

    // The printed scores, the JSON summary and a recount of the cases agree.
    let mut recount: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for case in cases {
        let entry = recount
            .entry(case["category"].as_str().unwrap().to_owned())
            .or_default();
        entry.0 += usize::from(case["valid"] == true);
        entry.1 += 1;
    }
    assert_eq!(printed_scores(&stdout), recount, "{stdout}");
    for score in report["summary"]["categories"].as_array().unwrap() {
        let (right, total) = recount[score["category"].as_str().unwrap()];
        assert_eq!(score["right"], right);
        assert_eq!(score["total"], total);
        assert_eq!(
            score["accuracy"].as_f64().unwrap(),
            right as f64 / total as f64
        );
    }
    let accuracy = |name: &str| {
        let (right, total) = recount[name];
        right as f64 / total as f64
    };
    let groups: BTreeMap<&str, f64> = report["summary"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["group"].as_str().unwrap(),
                g["accuracy"].as_f64().unwrap(),
            )
        })
        .collect();
    let non_live = ["simple_python", "multiple", "parallel", "parallel_multiple"];
    let mean = non_live.iter().map(|c| accuracy(c)).sum::<f64>() / 4.0;
    assert!((groups["non_live_ast"] - mean).abs() < 1e-12);
    let live = [
        "live_simple",
        "live_multiple",
        "live_parallel",
        "live_parallel_multiple",
    ];
    let (right, total) = live
        .iter()
        .fold((0, 0), |(r, t), c| (r + recount[*c].0, t + recount[*c].1));
    assert!((groups["live_ast"] - right as f64 / total as f64).abs() < 1e-12);
    let irrelevance = (accuracy("irrelevance") + accuracy("live_irrelevance")) / 2.0;
    assert!((groups["irrelevance_mean"] - irrelevance).abs() < 1e-12);
    assert!((groups["relevance_mean"] - accuracy("live_relevance")).abs() < 1e-12);
    for group in [
        "non_live_ast",
        "live_ast",
        "irrelevance_mean",
        "relevance_mean",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{group}: ")))
            .unwrap();
        assert!(
            line.contains(&format!("{:.1}%", 100.0 * groups[group])),
            "{line}"
        );
    }
}

#[test]
fn bad_selections_are_refused_with_the_valid_choices() {
    let Some((_, data)) = data() else { return };
    let run = |args: &[&str]| {
        let out = eval_bfcl(&data).args(args).output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = run(&["--categories", "simple"]);
    assert!(
        e.contains(
            "unknown category `simple`; the categories are simple_python, simple_java, simple_javascript, multiple"
        ),
        "{e}"
    );
    let e = run(&["--ids", "simple_python_0,simple_python_9999"]);
    assert!(e.contains("simple_python_9999"), "{e}");
    let missing = tempfile::tempdir().unwrap();
    let out = eval_bfcl(missing.path()).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("BFCL's data was not found") && e.contains("BFCL_v4_simple_python.json"),
        "{e}"
    );
}

#[test]
fn ctrl_c_stops_the_run_and_keeps_what_was_answered() {
    let Some((_, data)) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let child = eval_bfcl(&data)
        .args([
            "--categories",
            "simple_python,live_multiple",
            "--max-tokens",
            "48",
            "--json",
        ])
        .arg(&json)
        .env_remove("TOOL_USE_MODEL")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = python::Running(child);
    let mut stderr_pipe = child.0.stderr.take().unwrap();
    // Time to load the model and answer a few of the 1,453 cases.
    std::thread::sleep(std::time::Duration::from_secs(4));
    let killed = Command::new("kill")
        .args(["-INT", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut stderr_pipe, &mut stderr).unwrap();
    let status = child.0.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted after"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["interrupted"], true);
    let asked = report["cases"].as_array().unwrap().len();
    assert!(asked < 1453, "{asked} cases");
    let total: u64 = report["summary"]["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["total"].as_u64().unwrap())
        .sum();
    assert_eq!(
        total, asked as u64,
        "the scores are those of the cases answered"
    );
}

/// Runs `tool-use eval bfcl --data DATA ARGS --json FILE` on the bundled
/// model; what it printed, and the report.
fn eval_report(data: &std::path::Path, args: &[&str]) -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let out = eval_bfcl(data)
        .args(args)
        .arg("--json")
        .arg(&json)
        .env_remove("TOOL_USE_MODEL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (stdout, report)
}

#[test]
fn in_process_and_through_tool_use_serve_the_bundled_model_answers_alike() {
    let Some((_, data)) = data() else { return };
    let args = ["--limit", "1", "--max-tokens", "48"];
    let (_, local) = eval_report(&data, &args);
    let (_server, url) = python::start_listening(&["serve", "--port", "0"], &[]);
    let mut remote_args = args.to_vec();
    remote_args.extend(["--base-url", &url, "--jobs", "2"]);
    let (_, remote) = eval_report(&data, &remote_args);
    assert_eq!(remote["engine"]["kind"], "remote tools API");
    let (local, remote) = (
        local["cases"].as_array().unwrap(),
        remote["cases"].as_array().unwrap(),
    );
    assert_eq!(local.len(), Category::ALL.len());
    assert_eq!(local.len(), remote.len());
    for (l, r) in local.iter().zip(remote) {
        assert_eq!(l["id"], r["id"]);
        for key in ["decoded", "valid", "error_type"] {
            assert_eq!(
                l[key], r[key],
                "{key} of {}: in-process {l}\nserved {r}",
                l["id"]
            );
        }
    }
}

/// Runs `tool-use eval bfcl --data DATA ARGS` on the bundled model: whether
/// it succeeded, and its stdout and stderr together.
fn eval_run(data: &std::path::Path, args: &[&std::ffi::OsStr]) -> (bool, String) {
    let out = eval_bfcl(data)
        .args(args)
        .env_remove("TOOL_USE_MODEL")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn a_run_resumes_from_its_report_and_a_case_past_its_time_limit_is_an_engine_error() {
    let Some((_, data)) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.json");
    let second = dir.path().join("second.json");
    let (first_path, second_path) = (first.to_str().unwrap(), second.to_str().unwrap());
    let run = |args: &[&str]| {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        eval_run(&data, &args)
    };
    let (ok, text) = run(&[
        "--categories",
        "simple_python",
        "--limit",
        "2",
        "--json",
        first_path,
    ]);
    assert!(ok, "{text}");
    let (ok, text) = run(&[
        "--categories",
        "simple_python",
        "--limit",
        "3",
        "--resume",
        first_path,
        "--json",
        second_path,
    ]);
    assert!(ok, "{text}");
    assert!(text.contains("2 cases kept from"), "{text}");
    let read = |p: &std::path::Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (before, after) = (read(&first), read(&second));
    let cases = after["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    // The two kept are as they were, to their timings; the third is new.
    assert_eq!(cases[..2], before["cases"].as_array().unwrap()[..]);
    assert_eq!(cases[2]["id"], "simple_python_2");
    assert_eq!(after["summary"]["categories"][0]["total"], 3);

    // Another engine's (or settings') report is not resumed.
    let (ok, text) = run(&[
        "--categories",
        "simple_python",
        "--limit",
        "3",
        "--max-tokens",
        "64",
        "--resume",
        first_path,
    ]);
    assert!(
        !ok && text.contains("was made by another engine or settings"),
        "{text}"
    );

    // A millisecond is shorter than any case: each is cancelled and counted
    // as an engine error, the run goes on.
    let (ok, text) = run(&[
        "--categories",
        "simple_python,simple_java",
        "--limit",
        "2",
        "--case-timeout",
        "0.001",
        "--json",
        second_path,
    ]);
    assert!(ok, "{text}");
    let report = read(&second);
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for case in cases {
        assert_eq!(
            case["engine_error"], "the case ran past its time limit of 0.001 s",
            "{case}"
        );
    }
    let (ok, text) = run(&["--case-timeout", "0"]);
    assert!(
        !ok && text.contains("--case-timeout must be a positive number"),
        "{text}"
    );

    // The reports side by side: a table, and a page of bars.
    let page = dir.path().join("page.html");
    let out = tool_use()
        .args(["eval", "report"])
        .arg(format!("answered={}", first.display()))
        .arg(&second)
        .arg("--html")
        .arg(&page)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{table}");
    let right = before["summary"]["categories"][0]["right"]
        .as_u64()
        .unwrap();
    assert!(table.starts_with("| | answered | second |\n"), "{table}");
    assert!(
        table.contains(&format!("| simple_python | {right}/2 (")),
        "{table}"
    );
    assert!(
        table.contains("| simple_java | – | 0/2 (0.0%) |"),
        "{table}"
    );
    let page = std::fs::read_to_string(&page).unwrap();
    assert!(page.contains("<svg") && page.contains("answered"), "{page}");
}
