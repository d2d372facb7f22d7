//! `tool-use eval bfcl`: a local model or an engine's model measured on
//! BFCL, with a progress bar, a summary per category and group, and every
//! case in JSON; `tool-use eval report`: such reports side by side.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use tool_use::eval::{self, chart, CaseResult, Category, Report, RunOptions, Selection};
use tool_use::generate::GenerateOptions;
use tool_use::remote::{Api, RemoteChat, RequestOptions};
use tool_use::{chat::ChatModel, local::LocalChat};

/// Benchmarks to measure a model on.
#[derive(clap::Subcommand)]
pub enum EvalCommand {
    /// BFCL v4, the Berkeley Function Calling Leaderboard: its single-turn
    /// categories, judged by BFCL's AST checker, and its multi-turn ones,
    /// the calls run by BFCL's own tool classes. The data and the classes
    /// come from the installed `bfcl-eval` package (`pip install --no-deps
    /// bfcl-eval==2026.3.23 mpmath`).
    Bfcl(Box<BfclArgs>),
    /// `--json` reports side by side: a Markdown table (stdout, or
    /// `--markdown FILE`) and, with `--html FILE`, a page of bars (inline
    /// SVG, nothing fetched).
    Report(ReportArgs),
}

/// Arguments of `tool-use eval report`.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// The reports, each `FILE` or `TITLE=FILE` (the title defaults to the
    /// file's name).
    #[arg(required = true)]
    reports: Vec<String>,
    /// Write the Markdown table here instead of to stdout.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write the page of bars here.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The page's heading.
    #[arg(long, default_value = "BFCL, side by side")]
    title: String,
}

/// Arguments of `tool-use eval bfcl`.
#[derive(clap::Args)]
pub struct BfclArgs {
    #[command(flatten)]
    load: super::LoadArgs,
    /// BFCL's data folder (`bfcl_eval/data`); default: `$TOOL_USE_BFCL_DATA`,
    /// else the package `$TOOL_USE_PYTHON` (or `python3`) imports.
    #[arg(long)]
    data: Option<PathBuf>,
    /// The categories to run, comma-separated (default: all seventeen;
    /// `multi_turn` names the four multi-turn ones).
    #[arg(long, value_delimiter = ',')]
    categories: Vec<String>,
    /// At most this many cases per category (the first ones).
    #[arg(long)]
    limit: Option<usize>,
    /// Only these case ids, comma-separated.
    #[arg(long, value_delimiter = ',')]
    ids: Vec<String>,
    /// A Hugging Face model directory, a `.gguf` file or an `hf:ORG/REPO[:QUANT]`
    /// name on the Hub, run in-process
    /// with its own template, parser and constrained calls (default: the
    /// bundled model). With `--base-url --completions`, where the served
    /// model's chat template is read from.
    #[arg(long)]
    model: Option<PathBuf>,
    /// An OpenAI-compatible engine to ask instead (vLLM, llama-server,
    /// `tool-use serve`…), e.g. `http://127.0.0.1:8080/v1`; its tools API
    /// renders and parses.
    #[arg(long)]
    base_url: Option<String>,
    /// The served model's name (default: the engine's first).
    #[arg(long, requires = "base_url")]
    model_name: Option<String>,
    /// Ask the engine's raw `/v1/completions` with the prompt rendered here
    /// from the model's chat template (`--template`, else `--model`), and
    /// read the calls with its family's parser.
    #[arg(long, requires = "base_url")]
    completions: bool,
    /// The chat template for `--completions`: a `.jinja` file, a
    /// `tokenizer_config.json`, a model directory or a `.gguf` file.
    #[arg(long, requires = "completions")]
    template: Option<PathBuf>,
    /// The environment variable that holds the engine's API key.
    #[arg(long, requires = "base_url")]
    api_key_env: Option<String>,
    /// The API to speak with `--base-url`: `chat` (Chat Completions),
    /// `messages` (Anthropic's Messages) or `responses` (OpenAI's Responses).
    #[arg(
        long,
        default_value = "chat",
        requires = "base_url",
        conflicts_with = "completions"
    )]
    api: Api,
    /// Requests in flight at once (remote engines; a local model runs one
    /// case at a time).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// The most tokens the model may write for a case.
    #[arg(long, default_value_t = 512)]
    max_tokens: usize,
    #[command(flatten)]
    decoding: super::DecodingArgs,
    /// Ground every free string and number argument: a local model may only
    /// copy runs of the question's words there, or numbers it writes.
    /// Ignored by remote engines.
    #[arg(long)]
    grounded: bool,
    /// Write every case (prompt, raw output, calls, verdict and reason,
    /// time) and the summary to this JSON file; written on Ctrl-C too.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// The most seconds a case may take: past them its turn is cancelled
    /// and the case counts as an engine error.
    #[arg(long, value_name = "SECONDS")]
    case_timeout: Option<f64>,
    /// Go on with an earlier run: the cases this `--json` report holds are
    /// kept as they are and not asked again (the engine must be the same).
    #[arg(long, value_name = "REPORT")]
    resume: Option<PathBuf>,
}

/// Runs `tool-use eval`.
pub fn run(command: EvalCommand) -> Result<ExitCode, String> {
    match command {
        EvalCommand::Bfcl(args) => bfcl(*args),
        EvalCommand::Report(args) => report(args),
    }
}

fn report(args: ReportArgs) -> Result<ExitCode, String> {
    let mut columns = Vec::new();
    for given in &args.reports {
        let (title, path) = match given.split_once('=') {
            Some((title, path)) => (title.to_owned(), Path::new(path)),
            None => {
                let path = Path::new(given.as_str());
                let stem = path
                    .file_stem()
                    .map_or(given.clone(), |s| s.to_string_lossy().into_owned());
                (stem, path)
            }
        };
        let report = read_report(path)?;
        if !report["summary"]["categories"].is_array() {
            return Err(format!(
                "{} is not a `tool-use eval bfcl --json` report",
                path.display()
            ));
        }
        columns.push(chart::Column { title, report });
    }
    let table = chart::markdown(&columns);
    match &args.markdown {
        Some(path) => std::fs::write(path, &table)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => print!("{table}"),
    }
    if let Some(path) = &args.html {
        std::fs::write(path, chart::html(&columns, &args.title))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn bfcl(args: BfclArgs) -> Result<ExitCode, String> {
    if args.jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    if args.base_url.is_some() && args.model.is_some() && !args.completions {
        return Err(
            "with --base-url, the served model is named by --model-name; \
                    --model names its files, for --completions to read its template"
                .into(),
        );
    }
    let mut categories = Vec::new();
    for name in &args.categories {
        categories.extend(Category::select(name).map_err(|e| e.to_string())?);
    }
    let data = eval::find_data(args.data.as_deref()).map_err(|e| e.to_string())?;
    let selection = Selection {
        categories,
        limit: args.limit,
        ids: args.ids.clone(),
    };
    let mut cases = eval::load_cases(&data, &selection).map_err(|e| e.to_string())?;
    if cases.is_empty() {
        return Err("no case selected".into());
    }
    eval::check_tool_classes(&cases).map_err(|e| e.to_string())?;
    let case_timeout = match args.case_timeout {
        Some(s) if !(s > 0.0 && s.is_finite()) => {
            return Err(format!(
                "--case-timeout must be a positive number of seconds, not {s}"
            ))
        }
        s => s.map(Duration::from_secs_f64),
    };
    // Read once: its cases are kept, its engine compared with this run's.
    let resumed = match &args.resume {
        Some(path) => Some((path.as_path(), read_report(path)?)),
        None => None,
    };
    let earlier = match &resumed {
        Some((path, report)) => earlier_cases(path, report, &cases)?,
        None => Vec::new(),
    };
    let order: HashMap<String, usize> = (cases.iter().enumerate())
        .map(|(i, c)| (c.id.clone(), i))
        .collect();
    let kept: HashSet<&str> = earlier.iter().map(|r| r.id.as_str()).collect();
    cases.retain(|c| !kept.contains(c.id.as_str()));
    // Only the cases to ask need BFCL's tool classes.
    eval::check_tool_classes(&cases).map_err(|e| e.to_string())?;
    if !earlier.is_empty() {
        eprintln!(
            "tool-use eval: {} cases kept from {}, {} to ask",
            earlier.len(),
            args.resume.as_deref().unwrap_or(Path::new("")).display(),
            cases.len()
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_ctrl_c(stop.clone());
    let bar = progress_bar(cases.len());
    let steps = bar.clone();
    let options = RunOptions {
        grounded: args.grounded,
        stop: Some(stop.clone()),
        case_timeout,
        progress: Some(Arc::new(move |at: &eval::CaseProgress<'_>| {
            steps.set_prefix(format!(
                "{}: turn {}/{}, step {} · ",
                at.id,
                at.turn + 1,
                at.turns,
                at.step + 1
            ));
        })),
    };
    let mut right = 0usize;
    let mut done = 0usize;
    // Without a terminal (a log file, CI) the bar is hidden: a line every
    // twentieth of the run says how far it is instead.
    let every = if bar.is_hidden() {
        (cases.len() / 20).max(1)
    } else {
        usize::MAX
    };
    let mut on_result = |result: &CaseResult| {
        done += 1;
        right += usize::from(result.valid);
        let so_far = format!(
            "{right}/{done} right ({:.1}%)",
            100.0 * right as f64 / done as f64
        );
        if done.is_multiple_of(every) {
            eprintln!("tool-use eval: {done}/{} cases, {so_far}", cases.len());
        }
        bar.set_prefix("");
        bar.set_message(so_far);
        bar.inc(1);
    };
    let started = Instant::now();
    let (engine, results) = match &args.base_url {
        Some(base_url) => {
            // The first client learns the served model's name; the other
            // jobs ask for the same one without asking the engine again.
            let first = remote_chat(base_url, &args, args.model_name.as_deref())?;
            let name = first.model_name().to_owned();
            let mut models = vec![first];
            for _ in 1..args.jobs {
                models.push(remote_chat(base_url, &args, Some(&name))?);
            }
            let engine = describe_remote(base_url, &models[0], &args);
            let engine = settled(engine, &args, resumed.as_ref())?;
            let results = eval::run_jobs(&cases, &mut models, &options, &mut on_result);
            (engine, results)
        }
        None => {
            let mut local = local_chat(&args)?;
            let engine = json!({
                "kind": "local",
                "model": args.model.as_ref().map_or("bundled".to_owned(), |p| p.display().to_string()),
                "format": ChatModel::format(&local).id(),
                "constrained": !args.decoding.no_constrain && local.can_constrain(),
            });
            let engine = settled(engine, &args, resumed.as_ref())?;
            let results = eval::run(&cases, &mut local, &options, &mut on_result);
            (engine, results)
        }
    };
    bar.finish_and_clear();
    let interrupted = results.len() < cases.len();
    let mut results = results;
    results.extend(earlier);
    results.sort_by_key(|r| order.get(&r.id).copied());
    let report = Report::new(
        engine,
        results,
        interrupted,
        started.elapsed().as_secs_f64(),
    );
    for line in report.summary.lines() {
        println!("{line}");
    }
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    if interrupted {
        eprintln!(
            "tool-use eval: interrupted after {} of {} cases; the scores are theirs",
            report.cases.len(),
            cases.len()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// The local model, with its format (or `--tool-format`), greedy, its
/// calls constrained unless `--no-constrain`.
fn local_chat(args: &BfclArgs) -> Result<LocalChat, String> {
    let model = super::load_model(args.model.as_deref(), &args.load)?;
    Ok(args
        .decoding
        .local_chat(model)?
        .options(GenerateOptions::greedy(args.max_tokens)))
}

/// One client of the engine (one per job): the tools API, or raw
/// completions with the template rendered here.
fn remote_chat(base_url: &str, args: &BfclArgs, name: Option<&str>) -> Result<RemoteChat, String> {
    let served = name.unwrap_or_default().to_owned();
    let mut chat = if args.completions {
        let source = args.template.as_deref().or(args.model.as_deref()).ok_or(
            "--completions renders the model's chat template: name it with --template or --model",
        )?;
        let templates = super::load_templates(source)?;
        let template = templates.select(None, true).map_err(|e| e.to_string())?;
        RemoteChat::completions(base_url, served, template)
            .map_err(|e| e.to_string())?
            .special_tokens(templates.special_tokens.clone())
    } else {
        RemoteChat::openai_compatible(base_url, served)
    };
    chat = chat.stream(false).api(args.api).options(RequestOptions {
        temperature: Some(0.0),
        max_tokens: Some(args.max_tokens),
        ..RequestOptions::default()
    });
    if let Some(var) = &args.api_key_env {
        chat = chat.api_key_env(var).map_err(|e| e.to_string())?;
    }
    if name.is_none() {
        chat = super::first_served_model(chat, base_url, "--model-name")?;
    }
    Ok(chat)
}

fn describe_remote(base_url: &str, chat: &RemoteChat, args: &BfclArgs) -> Value {
    json!({
        "kind": if args.completions { "remote completions" } else { "remote tools API" },
        "api": if args.completions { "completions" } else { args.api.id() },
        "base_url": base_url,
        "model": chat.model_name(),
        "format": args.completions.then(|| ChatModel::format(chat).id()),
        "jobs": args.jobs,
    })
}

fn progress_bar(len: usize) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:30} {pos}/{len} cases, {prefix}{msg} [{elapsed_precise} < {eta}]",
    ) {
        bar.set_style(style);
    }
    bar
}

/// The first Ctrl-C stops new cases from starting (the report of those
/// answered is still written); a second ends the program at once.
fn stop_on_ctrl_c(stop: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\ntool-use eval: stopping after the cases in flight (Ctrl-C again to quit now)");
                stop.store(true, Ordering::Relaxed);
            }
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        });
    });
}

/// The cases of an earlier report that the run selects again.
fn earlier_cases(
    path: &Path,
    report: &Value,
    cases: &[eval::Case],
) -> Result<Vec<CaseResult>, String> {
    let selected: HashSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let results: Vec<CaseResult> =
        serde_json::from_value(report["cases"].clone()).map_err(|e| {
            format!(
                "{} is not a `--json` report: its cases: {e}",
                path.display()
            )
        })?;
    Ok(results
        .into_iter()
        .filter(|r| selected.contains(r.id.as_str()))
        .collect())
}

/// The engine's description with the run's settings; with `--resume`,
/// refused unless the earlier report's is the same: one report holds one
/// engine's answers.
fn settled(
    mut engine: Value,
    args: &BfclArgs,
    resumed: Option<&(&Path, Value)>,
) -> Result<Value, String> {
    engine["grounded"] = Value::Bool(args.grounded);
    engine["max_tokens"] = Value::from(args.max_tokens);
    engine["bfcl"] = Value::from(eval::BFCL_PACKAGE);
    let Some((path, report)) = resumed else {
        return Ok(engine);
    };
    let earlier = &report["engine"];
    if *earlier == engine {
        return Ok(engine);
    }
    Err(format!(
        "{} was made by another engine or settings ({earlier}); this run is {engine}: \
         resume the same run, or start a new report",
        path.display()
    ))
}

fn read_report(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

fn write_json(path: &Path, report: &Report) -> Result<(), String> {
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| format!("cannot write the report: {e}"))?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
