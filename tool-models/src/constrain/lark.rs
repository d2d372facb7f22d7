//! Writing Lark for llguidance: markers, literals, fresh rules, inline JSON.

use super::narrow::bound_any_at_root;
use super::schema::layout;
use super::TokenEnv;
use serde_json::Value;

/// Any text (the lexer never matches special tokens with a regex).
pub(crate) const ANY: &str = r"/(?s:.*)/";

/// A grammar under construction: named rules added as they are needed.
pub(crate) struct Lark<'e> {
    env: &'e TokenEnv,
    rules: String,
    next: usize,
}

impl<'e> Lark<'e> {
    pub(crate) fn new(env: &'e TokenEnv) -> Lark<'e> {
        Lark {
            env,
            rules: String::new(),
            next: 0,
        }
    }

    /// Whether `text` is one special token of the vocabulary.
    pub(crate) fn is_special(&self, text: &str) -> bool {
        self.env.special_token(text).is_some()
    }

    /// A marker: its special token when the vocabulary has one, else text.
    pub(crate) fn mark(&self, text: &str) -> String {
        match self.env.special_token(text) {
            Some(id) => format!("<[{id}]>"),
            None => lit(text),
        }
    }

    /// A new rule (a lexeme when `lexeme`) with this body; its name.
    pub(crate) fn rule(&mut self, lexeme: bool, body: &str) -> String {
        self.next += 1;
        let name = if lexeme {
            format!("T{}", self.next)
        } else {
            format!("r{}", self.next)
        };
        self.rules.push_str(&format!("{name}: {body}\n"));
        name
    }

    /// Adds a rule under a chosen name (`start` and the shared ones).
    pub(crate) fn named(&mut self, name: &str, body: &str) {
        self.rules.push_str(&format!("{name}: {body}\n"));
    }

    /// The grammar text.
    pub(crate) fn finish(self) -> String {
        self.rules
    }
}

/// `s` as a Lark string literal (JSON's syntax).
pub(crate) fn lit(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// Inline JSON for `schema`: bounded "any" values (strings without
/// `marker`), written with the templates' separators.
pub(crate) fn json(mut schema: Value, marker: Option<&str>) -> String {
    bound_any_at_root(&mut schema, marker);
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("x-guidance".into(), layout());
    }
    format!("%json {schema}")
}

/// A lexeme for text that contains none of `forbidden` (Lark lexemes:
/// literals or regexes). One negated alternation: an intersection of
/// several negations makes the lexer's automaton much larger.
pub(crate) fn text_without(forbidden: &[String]) -> String {
    if forbidden.is_empty() {
        return ANY.to_owned();
    }
    format!("{ANY} & ~({ANY} ({}) {ANY})", forbidden.join(" | "))
}

/// A regex as a Lark regex literal.
pub(crate) fn regex(re: &str) -> String {
    format!("/{}/", re.replace('/', "\\/"))
}

/// The texts of `forbidden` that are text in this vocabulary: a special
/// token never appears inside a string.
pub(crate) fn textual<'a>(l: &Lark, forbidden: &[&'a str]) -> Vec<&'a str> {
    forbidden
        .iter()
        .copied()
        .filter(|f| !l.is_special(f))
        .collect()
}
