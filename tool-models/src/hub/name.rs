//! The `hf:` names: `hf:ORG/REPO`, `hf:ORG/REPO:QUANT` and `hf:ORG/REPO/FILE`.

use super::HubError;
use std::fmt;
use std::str::FromStr;

/// The prefix that marks a model named on the Hugging Face Hub.
pub const HF_PREFIX: &str = "hf:";

/// A model named on the Hugging Face Hub, as `--model` takes it.
///
/// * `hf:ORG/REPO`: the repository's default file (a GGUF repository's
///   `Q4_K_M` file, else its `Q8_0` file, else its first GGUF file; a
///   repository without GGUF files is a safetensors model directory);
/// * `hf:ORG/REPO:QUANT`: the GGUF file whose name carries the quant tag
///   (`Q4_K_M`, `q8_0`, `UD-Q4_K_XL`…), as llama.cpp's `-hf` chooses;
/// * `hf:ORG/REPO/FILE`: that one file (`FILE` may have folders).
///
/// ```
/// use tool_models::hub::{HubName, HubTarget};
///
/// let name: HubName = "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:q8_0".parse()?;
/// assert_eq!(name.repo(), "Qwen/Qwen2.5-0.5B-Instruct-GGUF");
/// assert_eq!(name.target(), &HubTarget::Quant("q8_0".into()));
/// assert_eq!(name.to_string(), "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:q8_0");
///
/// let err = "hf:Qwen".parse::<HubName>().unwrap_err();
/// assert!(err.to_string().contains("hf:ORG/REPO"), "{err}");
/// # Ok::<(), tool_models::hub::HubError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HubName {
    org: String,
    name: String,
    target: HubTarget,
}

/// What an `hf:` name asks for in its repository.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HubTarget {
    /// The repository's default (`hf:ORG/REPO`).
    Default,
    /// The GGUF file with this quant tag (`hf:ORG/REPO:QUANT`).
    Quant(String),
    /// This file (`hf:ORG/REPO/FILE`).
    File(String),
}

impl HubName {
    /// The repository's id, `ORG/REPO`.
    pub fn repo(&self) -> String {
        format!("{}/{}", self.org, self.name)
    }

    /// The organisation or user that owns the repository.
    pub fn org(&self) -> &str {
        &self.org
    }

    /// The repository's name within [`org`](Self::org).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the name asks for in the repository.
    pub fn target(&self) -> &HubTarget {
        &self.target
    }

    /// Whether `text` is meant as a Hub name (starts with `hf:`), valid or not.
    pub fn is_hub_name(text: &str) -> bool {
        text.starts_with(HF_PREFIX)
    }
}

impl fmt::Display for HubName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{HF_PREFIX}{}/{}", self.org, self.name)?;
        match &self.target {
            HubTarget::Default => Ok(()),
            HubTarget::Quant(quant) => write!(f, ":{quant}"),
            HubTarget::File(file) => write!(f, "/{file}"),
        }
    }
}

impl FromStr for HubName {
    type Err = HubError;

    fn from_str(text: &str) -> Result<HubName, HubError> {
        let bad = |reason: String| HubError::Name {
            name: text.to_owned(),
            reason,
        };
        let rest = text
            .strip_prefix(HF_PREFIX)
            .ok_or_else(|| bad(format!("it does not start with `{HF_PREFIX}`")))?;
        let (org, rest) = rest
            .split_once('/')
            .ok_or_else(|| bad("no `/` between the organisation and the repository".into()))?;
        check_part(org, "organisation").map_err(bad)?;
        let end = rest.find([':', '/']).unwrap_or(rest.len());
        let (name, rest) = rest.split_at(end);
        check_part(name, "repository").map_err(bad)?;
        let target = match rest.chars().next() {
            None => HubTarget::Default,
            Some(':') => {
                let quant = &rest[1..];
                check_quant(quant).map_err(bad)?;
                HubTarget::Quant(quant.to_owned())
            }
            Some(_) => {
                let file = &rest[1..];
                check_file(file).map_err(bad)?;
                HubTarget::File(file.to_owned())
            }
        };
        Ok(HubName {
            org: org.to_owned(),
            name: name.to_owned(),
            target,
        })
    }
}

/// An organisation's or repository's name as the Hub allows it: letters,
/// digits, `-`, `_` and `.`, at most 96, not starting or ending with `-` or
/// `.`, without `--` or `..`.
fn check_part(part: &str, what: &str) -> Result<(), String> {
    let found = |why: &str| format!("the {what} name {part:?} {why}");
    if part.is_empty() {
        return Err(format!("the {what} name is empty"));
    }
    if part.len() > 96 {
        return Err(found("is longer than 96 characters"));
    }
    if let Some(c) = part
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(found(&format!(
            "has {c:?}; expected letters, digits, `-`, `_` and `.`"
        )));
    }
    if part.starts_with(['-', '.']) || part.ends_with(['-', '.']) {
        return Err(found("starts or ends with `-` or `.`"));
    }
    if part.contains("--") || part.contains("..") {
        return Err(found("has `--` or `..`"));
    }
    Ok(())
}

/// A quant tag: letters, digits, `-`, `_` and `.` (`Q4_K_M`, `UD-Q4_K_XL`).
fn check_quant(quant: &str) -> Result<(), String> {
    if quant.is_empty() {
        return Err("the quant tag after `:` is empty (expected one such as Q4_K_M)".into());
    }
    match quant
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        Some(c) => Err(format!(
            "the quant tag {quant:?} has {c:?}; expected letters, digits, `-`, `_` and `.` (such as Q4_K_M)"
        )),
        None => Ok(()),
    }
}

/// A file's path in a repository: `/`-separated, no empty, `.` or `..`
/// parts, no `\` and no control characters.
pub(crate) fn check_file(file: &str) -> Result<(), String> {
    if file.is_empty() {
        return Err("the file name after the repository is empty".into());
    }
    if let Some(c) = file.chars().find(|c| c.is_control() || *c == '\\') {
        return Err(format!("the file name {file:?} has {c:?}"));
    }
    if file
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == "..")
    {
        return Err(format!(
            "the file name {file:?} has an empty, `.` or `..` folder"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn part() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_]([A-Za-z0-9_]|[-.][A-Za-z0-9_]){0,20}"
    }

    fn quant() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_.-]{1,12}"
    }

    fn file() -> impl Strategy<Value = String> {
        proptest::collection::vec("[A-Za-z0-9_ +:@-][A-Za-z0-9_. +:@-]{0,15}", 1..4)
            .prop_map(|parts| parts.join("/"))
            .prop_filter("no `.` or `..` parts", |f| {
                f.split('/').all(|p| p != "." && p != "..")
            })
    }

    /// `hf:{org}/{name}{suffix}` parses to the repository `org/name` and
    /// `target`, and prints back as it was written.
    fn round_trips(
        org: &str,
        name: &str,
        suffix: &str,
        target: HubTarget,
    ) -> Result<(), TestCaseError> {
        let text = format!("hf:{org}/{name}{suffix}");
        let parsed: HubName = text.parse().unwrap();
        prop_assert_eq!(parsed.org(), org);
        prop_assert_eq!(parsed.name(), name);
        prop_assert_eq!(parsed.repo(), format!("{org}/{name}"));
        prop_assert_eq!(parsed.target(), &target);
        prop_assert_eq!(parsed.to_string(), text);
        Ok(())
    }

    proptest! {
        #[test]
        fn repo_names_round_trip(org in part(), name in part()) {
            round_trips(&org, &name, "", HubTarget::Default)?;
        }

        #[test]
        fn quant_names_round_trip(org in part(), name in part(), q in quant()) {
            round_trips(&org, &name, &format!(":{q}"), HubTarget::Quant(q))?;
        }

        #[test]
        fn file_names_round_trip(org in part(), name in part(), f in file()) {
            round_trips(&org, &name, &format!("/{f}"), HubTarget::File(f))?;
        }

        #[test]
        fn junk_is_refused_without_panicking(text in "\\PC{0,40}") {
            let text = format!("hf:{text}");
            if let Err(e) = text.parse::<HubName>() {
                let message = e.to_string();
                prop_assert!(message.contains("expected hf:ORG/REPO"), "{}", message);
                prop_assert!(message.contains(&format!("{text:?}")), "{}", message);
            }
        }
    }

    #[test]
    fn junk_is_refused_with_the_reason() {
        for (text, why) in [
            ("Qwen/Qwen2.5", "does not start with `hf:`"),
            ("hf:", "no `/`"),
            ("hf:Qwen", "no `/`"),
            ("hf:/repo", "organisation name is empty"),
            ("hf:Qwen/", "repository name is empty"),
            ("hf:Qwen/:Q4_K_M", "repository name is empty"),
            ("hf:Qwen/repo:", "quant tag after `:` is empty"),
            ("hf:Qwen/repo:Q4 K", "quant tag \"Q4 K\" has ' '"),
            ("hf:Qwen/repo/", "file name after the repository is empty"),
            ("hf:Qwen/repo/a//b.gguf", "empty, `.` or `..` folder"),
            ("hf:Qwen/repo/../x", "empty, `.` or `..` folder"),
            ("hf:Qwen/repo/a\\b", "has '\\\\'"),
            ("hf:Qw en/repo", "has ' '"),
            ("hf:-Qwen/repo", "starts or ends with"),
            ("hf:Qwen/repo.", "starts or ends with"),
            ("hf:Qwen/re--po", "has `--` or `..`"),
        ] {
            let err = text.parse::<HubName>().unwrap_err().to_string();
            assert!(err.contains(why), "{text}: {err}");
            assert!(err.contains("expected hf:ORG/REPO"), "{text}: {err}");
        }
    }

    #[test]
    fn the_first_separator_after_the_repository_decides() {
        let name: HubName = "hf:a/b/dir/x:y.gguf".parse().unwrap();
        assert_eq!(name.target(), &HubTarget::File("dir/x:y.gguf".into()));
        let err = "hf:a/b:Q4/x".parse::<HubName>().unwrap_err().to_string();
        assert!(err.contains("has '/'"), "{err}");
    }
}
