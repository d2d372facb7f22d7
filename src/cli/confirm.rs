//! `tool-use chat --confirm`: each call the model makes is shown on stderr
//! and waits for a line on stdin (run, deny, edit or stop), so a person
//! approves what the tools do.

use std::io::{BufRead, Write};

use tool_use::agent::Approval;
use tool_use::ToolCall;

/// Asks about `call` on stderr and reads the answer from `input`: `y` (or
/// an empty line) runs it, `n` denies it (what follows `n` is the reason),
/// `e` asks for new arguments as a JSON object (again until they are one), `s` stops the run. An
/// answer that is none of these is asked again; the end of input is an
/// error, which ends the run.
pub fn ask(call: &ToolCall, input: &mut impl BufRead) -> Result<Approval, String> {
    let mut stderr = std::io::stderr();
    loop {
        let _ = write!(
            stderr,
            "run {}({})? [Y]es, [n]o REASON, [e]dit, [s]top: ",
            call.name, call.arguments
        );
        let _ = stderr.flush();
        let answer = read_line(input)?;
        let (word, rest) = answer.split_once(' ').unwrap_or((answer.as_str(), ""));
        match word.to_lowercase().as_str() {
            "" | "y" | "yes" => return Ok(Approval::Run),
            "n" | "no" => {
                let reason = rest.trim();
                let reason = if reason.is_empty() {
                    "the user said no"
                } else {
                    reason
                };
                return Ok(Approval::Deny(reason.to_owned()));
            }
            "e" | "edit" => {
                if let Some(arguments) = edit(input)? {
                    return Ok(Approval::Edit(arguments));
                }
            }
            "s" | "stop" => return Ok(Approval::Stop),
            other => eprintln!("`{other}`: answer y, n, e or s"),
        }
    }
}

/// New arguments, asked until they are a JSON object; `None` (back to the
/// question) for an empty line.
fn edit(input: &mut impl BufRead) -> Result<Option<serde_json::Value>, String> {
    loop {
        eprint!("arguments (a JSON object; empty to go back): ");
        let _ = std::io::stderr().flush();
        let line = read_line(input)?;
        if line.is_empty() {
            return Ok(None);
        }
        match serde_json::from_str(&line) {
            Ok(value @ serde_json::Value::Object(_)) => return Ok(Some(value)),
            Ok(_) => eprintln!("that is not a JSON object"),
            Err(e) => eprintln!("that is not JSON: {e}"),
        }
    }
}

/// One line, trimmed; the end of input is an error.
fn read_line(input: &mut impl BufRead) -> Result<String, String> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) => Err("no answer: standard input ended".into()),
        Ok(_) => Ok(line.trim().to_owned()),
        Err(e) => Err(format!("cannot read the answer: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(lines: &str) -> Result<Approval, String> {
        let call = ToolCall::new("c", "calculate", json!({"a": 1}));
        ask(&call, &mut lines.as_bytes())
    }

    #[test]
    fn each_answer_is_a_decision() {
        assert_eq!(answer("\n"), Ok(Approval::Run));
        assert_eq!(answer("Y\n"), Ok(Approval::Run));
        assert_eq!(
            answer("n too costly\n"),
            Ok(Approval::Deny("too costly".into()))
        );
        assert_eq!(
            answer("no\n"),
            Ok(Approval::Deny("the user said no".into()))
        );
        assert_eq!(
            answer("maybe\ne\n[1]\n{\"a\": 2}\n"),
            Ok(Approval::Edit(json!({"a": 2})))
        );
        assert_eq!(answer("e\n\ns\n"), Ok(Approval::Stop));
        assert_eq!(answer("s\n"), Ok(Approval::Stop));
        assert_eq!(answer(""), Err("no answer: standard input ended".into()));
    }
}
