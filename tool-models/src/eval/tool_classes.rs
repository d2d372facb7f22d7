//! BFCL's multi-turn tool classes, run by the installed `bfcl-eval`
//! package in a Python process of their own (`tool_classes.py`): the file
//! system, messaging, trading… that multi-turn calls act on. They are
//! never rewritten here, so what a call does and answers is BFCL's.
//!
//! One process serves a worker's cases one after another; each case gets
//! fresh instances, loaded with its `initial_config`, one set per side
//! (the conversation, the model's replay, the ground truth's). A process
//! that dies or stops answering fails the case with the reason and is
//! replaced for the next.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tool_runtime::ToolCall;

use super::multi_turn::MultiTurn;

/// The script the process runs.
const SCRIPT: &str = include_str!("tool_classes.py");

/// How long one request may take when the run sets no case time limit
/// (loading a long-context file system is the slowest, well under this).
const DEFAULT_LIMIT: Duration = Duration::from_secs(120);

/// Which set of instances a request acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The conversation with the model: its calls' results go back to it.
    Conversation,
    /// The model's calls replayed by the checker on fresh instances.
    Model,
    /// The ground truth's calls.
    Truth,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Conversation => "run",
            Side::Model => "model",
            Side::Truth => "truth",
        }
    }
}

/// How two sides' instances compare.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum State {
    /// Every public attribute of every instance is equal.
    Equal,
    /// The first class that differs, and each attribute that does
    /// (`attr: model's repr vs ground truth's repr`).
    Differs {
        class: String,
        differences: Vec<String>,
    },
}

/// The calls as BFCL writes them for execution, or why it cannot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Written {
    /// `name(key=repr(value),...)`, one per call.
    Calls(Vec<String>),
    /// BFCL's decoder would fail the step (arguments that are not a JSON object).
    Undecodable(String),
}

/// A Python process holding BFCL's tool classes.
pub(crate) struct ToolClasses {
    child: Child,
    stdin: ChildStdin,
    answers: mpsc::Receiver<String>,
    /// The end of what the process wrote to stderr, for when it dies.
    stderr: Arc<Mutex<String>>,
    limit: Duration,
    /// Killed or found dead: never asked again.
    dead: bool,
}

impl ToolClasses {
    /// Starts the process with `$TOOL_USE_PYTHON` (or `python3`), each
    /// request allowed `limit` (two minutes when `None`).
    ///
    /// # Errors
    /// Why Python could not start or import BFCL's classes.
    pub(crate) fn start(limit: Option<Duration>) -> Result<ToolClasses, String> {
        let python = super::data::python();
        let mut child = Command::new(&python)
            .args(["-u", "-c", SCRIPT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{python}` for BFCL's tool classes: {e}"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the Python process has no pipes".into());
        };
        let (send, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let tail: Arc<Mutex<String>> = Arc::default();
        let keep = tail.clone();
        std::thread::spawn(move || {
            let mut stderr = stderr;
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buffer) {
                let mut kept = keep.lock().unwrap_or_else(|e| e.into_inner());
                kept.push_str(&String::from_utf8_lossy(&buffer[..n]));
                if kept.len() > 8192 {
                    let cut = kept.len() - 4096;
                    let cut = (cut..kept.len())
                        .find(|&i| kept.is_char_boundary(i))
                        .unwrap_or(0);
                    kept.replace_range(..cut, "");
                }
            }
        });
        Ok(ToolClasses {
            child,
            stdin,
            answers,
            stderr: tail,
            limit: limit.unwrap_or(DEFAULT_LIMIT),
            dead: false,
        })
    }

    /// Imports the modules of `classes`: whether they load (BFCL's math
    /// class needs `mpmath`, which `--no-deps` does not install).
    pub(crate) fn import(&mut self, classes: &[&str]) -> Result<(), String> {
        self.ask(&json!({"op": "import", "classes": classes}))
            .map(drop)
    }

    /// Fresh instances for `case` (made on each side's first run).
    pub(crate) fn begin(&mut self, id: &str, case: &MultiTurn) -> Result<(), String> {
        self.ask(&json!({
            "op": "case",
            "id": id,
            "classes": case.classes,
            "config": case.initial_config,
            "long_context": case.long_context,
        }))
        .map(drop)
    }

    /// `calls` written as BFCL writes a tool API's calls for execution.
    pub(crate) fn write(&mut self, calls: &[ToolCall]) -> Result<Written, String> {
        let calls: Vec<Value> = calls
            .iter()
            .map(|c| json!({"name": c.name, "arguments": c.arguments}))
            .collect();
        let answer = self.ask(&json!({"op": "write", "calls": calls}))?;
        if let Some(why) = answer["undecodable"].as_str() {
            return Ok(Written::Undecodable(why.to_owned()));
        }
        strings(&answer["calls"]).map(Written::Calls)
    }

    /// Runs `calls` in order on `side`'s instances: each call's result,
    /// or BFCL's `Error during execution: …` text.
    pub(crate) fn run(&mut self, side: Side, calls: &[String]) -> Result<Vec<String>, String> {
        let answer = self.ask(&json!({"op": "run", "side": side.name(), "calls": calls}))?;
        strings(&answer["results"])
    }

    /// `side`'s instances against `truth`'s, as BFCL's state checker
    /// compares them.
    pub(crate) fn compare(&mut self, side: Side, truth: Side) -> Result<State, String> {
        let answer =
            self.ask(&json!({"op": "compare", "side": side.name(), "truth": truth.name()}))?;
        if answer["valid"] == Value::Bool(true) {
            return Ok(State::Equal);
        }
        let differences = answer["differences"]
            .as_object()
            .map(|d| {
                d.iter()
                    .map(|(attr, d)| {
                        format!(
                            "{attr}: the model's {} against the ground truth's {}",
                            d["model"].as_str().unwrap_or_default(),
                            d["ground_truth"].as_str().unwrap_or_default()
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(State::Differs {
            class: answer["class"].as_str().unwrap_or_default().to_owned(),
            differences,
        })
    }

    /// One request and its answer, within the time limit.
    fn ask(&mut self, request: &Value) -> Result<Value, String> {
        let line = format!("{request}\n");
        if self.stdin.write_all(line.as_bytes()).is_err() || self.stdin.flush().is_err() {
            return Err(self.died());
        }
        let line = match self.answers.recv_timeout(self.limit) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.dead = true;
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err(format!(
                    "BFCL's tool classes did not answer within {} s",
                    self.limit.as_secs_f64()
                ));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(self.died()),
        };
        let answer: Value = serde_json::from_str(&line).map_err(|e| {
            format!("BFCL's tool classes answered something not JSON ({e}): {line}")
        })?;
        match answer["error"].as_str() {
            Some(error) => Err(format!("BFCL's tool classes: {error}")),
            None => Ok(answer),
        }
    }

    /// Why the process is gone: its status and the end of its stderr.
    fn died(&mut self) -> String {
        self.dead = true;
        let status = self
            .child
            .wait()
            .map_or_else(|e| e.to_string(), |s| s.to_string());
        let stderr = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let last: Vec<&str> = stderr.trim().lines().rev().take(3).collect();
        let last: Vec<&str> = last.into_iter().rev().collect();
        format!(
            "the Python process running BFCL's tool classes ended ({status}): {}",
            last.join(" | ")
        )
    }

    /// Whether the process still runs (a dead one is replaced).
    pub(crate) fn alive(&mut self) -> bool {
        !self.dead && matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for ToolClasses {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A list of strings the process answered.
fn strings(value: &Value) -> Result<Vec<String>, String> {
    let listed = value.as_array().and_then(|items| {
        items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
    });
    listed.ok_or_else(|| {
        format!("BFCL's tool classes answered something other than a list of strings: {value}")
    })
}
