//! Python's `+` on `Markup` and `%` on strings, which minijinja's operators
//! cannot be taught.
//!
//! In Jinja2, `x|safe` and `x|e` are `Markup` strings: `Markup + str`
//! HTML-escapes the plain side (`"<b>"|safe + '"'` is `<b>&#34;`), and
//! `"%d items" % n` is Python's printf formatting. minijinja has neither, so
//! before compiling, each such operator is rewritten into a call of a
//! function that does what Python does: `a + b` becomes `__tool_use_add(a, b)`
//! (only in templates that make `Markup` at all, since the call costs more
//! than the operator) and `a % b` becomes `__tool_use_mod(a, b)`.
//!
//! Finding an operator's operands takes a parse: [`rewrite`] tokenizes each
//! tag and runs a precedence parser with Jinja2's levels over it. Anything it
//! does not understand leaves the template as it was (minijinja then reports
//! real syntax errors itself).

use std::ops::Range;

/// The function `a + b` becomes.
pub(crate) const ADD: &str = "__tool_use_add";
/// The function `a % b` becomes.
pub(crate) const MOD: &str = "__tool_use_mod";

/// Filters whose result is `Markup` in Jinja2.
const MARKUP_FILTERS: &[&str] = &["safe", "e", "escape", "forceescape", "urlize", "xmlattr"];

/// Deepest expression nesting the parser follows; deeper templates are left
/// as they are.
const MAX_DEPTH: usize = 200;

/// The source with `+` (where `Markup` can occur) and `%` rewritten into
/// calls; `None` when nothing needs rewriting or the source cannot be read.
pub(crate) fn rewrite(source: &str) -> Option<String> {
    if !["%", "+", "none", "None"]
        .iter()
        .any(|p| source.contains(p))
    {
        return None;
    }
    let tags = tags(source)?;
    let mut found = Vec::new();
    let mut markup = false;
    for tag in &tags {
        let mut p = Parser {
            toks: tag,
            i: 0,
            found: &mut found,
            markup: &mut markup,
            depth: 0,
        };
        p.tag()?;
    }
    found.retain(|n| n.op != Op::Add || markup);
    if found.is_empty() {
        return None;
    }
    found.sort_by_key(|n| (n.span.start, std::cmp::Reverse(n.span.end)));
    let mut out = String::with_capacity(source.len() + found.len() * 20);
    emit(source, 0..source.len(), &found, &mut out);
    Some(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Mod,
    /// `x == none` (`!=` when `negated`): becomes the `none` test, which
    /// also knows the `None` that stands for absent tools.
    IsNone {
        negated: bool,
        literal_left: bool,
    },
}

/// One operator to rewrite: the whole expression and the operator token.
#[derive(Debug)]
struct Node {
    op: Op,
    span: Range<usize>,
    at: Range<usize>,
}

/// Writes `src[range]` with every node inside it replaced by its call.
/// `nodes` are sorted by start, outer before inner.
fn emit(src: &str, range: Range<usize>, nodes: &[Node], out: &mut String) {
    let mut pos = range.start;
    let mut k = 0;
    while k < nodes.len() {
        let n = &nodes[k];
        let inner_end = k + 1 + nodes[k + 1..].partition_point(|m| m.span.start < n.span.end);
        let inner = &nodes[k + 1..inner_end];
        let split = inner.partition_point(|m| m.span.start < n.at.end);
        out.push_str(&src[pos..n.span.start]);
        let left_end = n.span.start + src[n.span.start..n.at.start].trim_end().len();
        let right_start = n.span.end - src[n.at.end..n.span.end].trim_start().len();
        let left = (n.span.start..left_end, &inner[..split]);
        let right = (right_start..n.span.end, &inner[split..]);
        match n.op {
            Op::Add | Op::Mod => {
                out.push_str(if n.op == Op::Add { ADD } else { MOD });
                out.push('(');
                emit(src, left.0, left.1, out);
                out.push_str(", ");
                emit(src, right.0, right.1, out);
                out.push(')');
            }
            Op::IsNone {
                negated,
                literal_left,
            } => {
                let (value, nodes) = if literal_left { right } else { left };
                out.push('(');
                emit(src, value, nodes, out);
                out.push_str(if negated {
                    " is not none)"
                } else {
                    " is none)"
                });
            }
        }
        pos = n.span.end;
        k = inner_end;
    }
    out.push_str(&src[pos..range.end]);
}

// --- tokens -----------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Name,
    Str,
    Num,
    Punct,
}

#[derive(Debug, Clone, Copy)]
struct Tok<'a> {
    kind: Kind,
    text: &'a str,
    span: (usize, usize),
}

/// The tokens of every `{{ … }}` and `{% … %}` tag; comments and raw blocks
/// skipped. `None` when a tag or string never ends.
fn tags(src: &str) -> Option<Vec<Vec<Tok<'_>>>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = src[i..].find('{') {
        let at = i + p;
        match b.get(at + 1) {
            Some(b'#') => {
                i = at + 2 + src[at + 2..].find("#}")? + 2;
            }
            Some(&c @ (b'{' | b'%')) => {
                let close = if c == b'{' { b'}' } else { b'%' };
                let (toks, end) = tag_tokens(src, at + 2, close)?;
                i = end;
                let raw = c == b'%' && toks.first().is_some_and(|t| t.text == "raw");
                out.push(toks);
                if raw {
                    i = skip_raw(src, i)?;
                }
            }
            _ => i = at + 1,
        }
    }
    Some(out)
}

/// After `{% raw %}`: where the matching `{% endraw %}` ends.
fn skip_raw(src: &str, mut i: usize) -> Option<usize> {
    while let Some(p) = src[i..].find("{%") {
        let at = i + p;
        let (toks, end) = tag_tokens(src, at + 2, b'%')?;
        if toks.first().is_some_and(|t| t.text == "endraw") {
            return Some(end);
        }
        i = at + 2;
    }
    None
}

/// Tokenizes a tag body from `start` to its closing `}}` / `%}` (outside
/// brackets, as Jinja2's lexer balances them); returns the tokens and the
/// offset after the closer.
fn tag_tokens(src: &str, start: usize, close: u8) -> Option<(Vec<Tok<'_>>, usize)> {
    let b = src.as_bytes();
    let mut i = start;
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let mut toks = Vec::new();
    let mut depth = 0usize;
    loop {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let c = *b.get(i)?;
        if depth == 0 {
            let closer = |j: usize| b.get(j) == Some(&close) && b.get(j + 1) == Some(&b'}');
            if closer(i) {
                return Some((toks, i + 2));
            }
            if matches!(c, b'-' | b'+') && closer(i + 1) {
                return Some((toks, i + 3));
            }
        }
        let start = i;
        let kind = match c {
            b'\'' | b'"' => {
                i += 1;
                loop {
                    match *b.get(i)? {
                        b'\\' => i += 2,
                        q if q == c => break,
                        _ => i += 1,
                    }
                }
                i += 1;
                Kind::Str
            }
            b'0'..=b'9' => {
                while let Some(&d) = b.get(i) {
                    let fraction = d == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit);
                    let exponent_sign = matches!(d, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E');
                    if d.is_ascii_alphanumeric() || d == b'_' || fraction || exponent_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                Kind::Num
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                while b
                    .get(i)
                    .is_some_and(|&d| d.is_ascii_alphanumeric() || d == b'_' || d >= 0x80)
                {
                    i += 1;
                }
                Kind::Name
            }
            _ => {
                let two = src.get(i..i + 2).unwrap_or("");
                i += if matches!(two, "**" | "//" | "==" | "!=" | "<=" | ">=") {
                    2
                } else {
                    1
                };
                match c {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth = depth.checked_sub(1)?,
                    _ => {}
                }
                Kind::Punct
            }
        };
        toks.push(Tok {
            kind,
            text: src.get(start..i)?,
            span: (start, i),
        });
    }
}

// --- parser -----------------------------------------------------------------

/// Jinja2's binding levels, loosest first.
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const COMPARE: u8 = 4;
const MATH1: u8 = 5;
const CONCAT: u8 = 6;
const MATH2: u8 = 7;
const POW: u8 = 8;

struct Parser<'t, 'a> {
    toks: &'t [Tok<'a>],
    i: usize,
    found: &'t mut Vec<Node>,
    markup: &'t mut bool,
    depth: usize,
}

impl<'a> Parser<'_, 'a> {
    /// A tag: expressions wherever one can start, other tokens (statement
    /// keywords, `=`, `,`) skipped.
    fn tag(&mut self) -> Option<()> {
        while let Some(t) = self.peek() {
            if starts_expr(t) {
                self.expr()?;
            } else {
                self.i += 1;
            }
        }
        Some(())
    }

    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.i).copied()
    }

    fn is(&self, text: &str) -> bool {
        self.peek()
            .is_some_and(|t| t.text == text && t.kind != Kind::Str)
    }

    fn eat(&mut self, text: &str) -> bool {
        let hit = self.is(text);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn expect(&mut self, text: &str) -> Option<()> {
        self.eat(text).then_some(())
    }

    fn start(&self) -> usize {
        self.toks.get(self.i).map_or(usize::MAX, |t| t.span.0)
    }

    fn end(&self) -> usize {
        self.toks[self.i - 1].span.1
    }

    /// A full expression, inline `if` included.
    fn expr(&mut self) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.binary(OR)?;
        while self.eat("if") {
            self.binary(OR)?;
            if self.eat("else") {
                self.binary(OR)?;
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// Operators binding at least as tightly as `level`, left-associative.
    fn binary(&mut self, level: u8) -> Option<()> {
        let start = self.start();
        if level == NOT && self.eat("not") {
            return self.binary(NOT);
        }
        if level > POW {
            return self.unary();
        }
        let first = self.i;
        self.binary(level + 1)?;
        let mut chained = false;
        while let Some(t) = self.peek() {
            let matches = match level {
                OR => t.text == "or",
                AND => t.text == "and",
                COMPARE => {
                    matches!(t.text, "==" | "!=" | "<" | ">" | "<=" | ">=" | "in")
                        || (t.text == "not"
                            && self.toks.get(self.i + 1).is_some_and(|n| n.text == "in"))
                }
                MATH1 => matches!(t.text, "+" | "-"),
                CONCAT => t.text == "~",
                MATH2 => matches!(t.text, "*" | "/" | "//" | "%"),
                POW => t.text == "**",
                _ => false,
            } && t.kind != Kind::Str;
            if !matches {
                break;
            }
            let at = t.span.0..t.span.1;
            let op_index = self.i;
            self.i += if t.text == "not" { 2 } else { 1 };
            self.binary(level + 1)?;
            let is_none_literal = |i: usize| {
                self.toks
                    .get(i)
                    .is_some_and(|t| t.kind == Kind::Name && matches!(t.text, "none" | "None"))
            };
            let op = match t.text {
                "+" => Some(Op::Add),
                "%" => Some(Op::Mod),
                "==" | "!=" if level == COMPARE => {
                    // `a == b == none` is a chain, not `(a == b) == none`.
                    if chained {
                        if self.found.last().is_some_and(|n| {
                            matches!(n.op, Op::IsNone { .. }) && n.span.start == start
                        }) {
                            self.found.pop();
                        }
                        None
                    } else if self.i == op_index + 2 && is_none_literal(op_index + 1) {
                        Some(Op::IsNone {
                            negated: t.text == "!=",
                            literal_left: false,
                        })
                    } else if op_index == first + 1 && is_none_literal(first) {
                        Some(Op::IsNone {
                            negated: t.text == "!=",
                            literal_left: true,
                        })
                    } else {
                        None
                    }
                }
                _ => None,
            };
            chained |= level == COMPARE;
            if let Some(op) = op {
                self.found.push(Node {
                    op,
                    span: start..self.end(),
                    at,
                });
            }
        }
        Some(())
    }

    /// `-x`, `+x`, then a primary with its postfix operators, filters and tests.
    fn unary(&mut self) -> Option<()> {
        if self.eat("-") || self.eat("+") {
            return self.unary();
        }
        self.primary()?;
        self.postfix()?;
        loop {
            if self.eat("|") {
                let name = self.name()?;
                while self.eat(".") {
                    self.name()?;
                }
                if MARKUP_FILTERS.contains(&name) {
                    *self.markup = true;
                }
                if self.is("(") {
                    self.call()?;
                }
            } else if self.eat("is") {
                self.eat("not");
                self.name()?;
                while self.eat(".") {
                    self.name()?;
                }
                if self.is("(") {
                    self.call()?;
                } else if let Some(t) = self.peek() {
                    let arg = matches!(t.kind, Kind::Name | Kind::Str | Kind::Num)
                        || matches!(t.text, "[" | "{");
                    if arg && !matches!(t.text, "else" | "or" | "and" | "is") {
                        self.primary()?;
                        self.postfix()?;
                    }
                }
            } else {
                return Some(());
            }
        }
    }

    fn name(&mut self) -> Option<&'a str> {
        let t = self.peek()?;
        (t.kind == Kind::Name).then(|| {
            self.i += 1;
            t.text
        })
    }

    fn primary(&mut self) -> Option<()> {
        let t = self.peek()?;
        match t.kind {
            Kind::Name | Kind::Num => self.i += 1,
            Kind::Str => {
                while self.peek().is_some_and(|t| t.kind == Kind::Str) {
                    self.i += 1;
                }
            }
            Kind::Punct => match t.text {
                "(" => self.list("(", ")")?,
                "[" => self.list("[", "]")?,
                "{" => {
                    self.i += 1;
                    while !self.eat("}") {
                        self.expr()?;
                        self.expect(":")?;
                        self.expr()?;
                        if !self.eat(",") {
                            self.expect("}")?;
                            break;
                        }
                    }
                }
                _ => return None,
            },
        }
        Some(())
    }

    /// `open` expressions separated by commas `close` (lists, tuples).
    fn list(&mut self, open: &str, close: &str) -> Option<()> {
        self.expect(open)?;
        while !self.eat(close) {
            self.expr()?;
            if !self.eat(",") {
                return self.expect(close);
            }
        }
        Some(())
    }

    fn postfix(&mut self) -> Option<()> {
        loop {
            if self.eat(".") {
                let t = self.peek()?;
                if !matches!(t.kind, Kind::Name | Kind::Num) {
                    return None;
                }
                self.i += 1;
            } else if self.eat("[") {
                // Subscripts and slices: any of `a`, `a:b`, `:b:c`, …
                while !self.eat("]") {
                    if self.eat(":") || self.eat(",") {
                        continue;
                    }
                    self.expr()?;
                }
            } else if self.is("(") {
                self.call()?;
            } else {
                return Some(());
            }
        }
    }

    /// Call arguments: `(a, k=v, *args, **kwargs)`.
    fn call(&mut self) -> Option<()> {
        self.expect("(")?;
        while !self.eat(")") {
            if !(self.eat("**") || self.eat("*")) {
                let kwarg = self.peek().is_some_and(|t| t.kind == Kind::Name)
                    && self.toks.get(self.i + 1).is_some_and(|t| t.text == "=");
                if kwarg {
                    self.i += 2;
                }
            }
            self.expr()?;
            if !self.eat(",") {
                return self.expect(")");
            }
        }
        Some(())
    }
}

fn starts_expr(t: Tok<'_>) -> bool {
    matches!(t.kind, Kind::Name | Kind::Str | Kind::Num) || matches!(t.text, "(" | "[" | "{" | "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_operators_into_calls() {
        assert_eq!(
            rewrite(r#"{{ ("<a>"|safe) + x + y }}"#).as_deref(),
            Some(r#"{{ __tool_use_add(__tool_use_add(("<a>"|safe), x), y) }}"#)
        );
        // `~` binds tighter than `+`, filters tighter than both.
        assert_eq!(
            rewrite(r#"{% set s = a|e %}{{ s ~ t + u|tojson }}"#).as_deref(),
            Some(r#"{% set s = a|e %}{{ __tool_use_add(s ~ t, u|tojson) }}"#)
        );
        assert_eq!(
            rewrite(r#"{{ "%d-%s" % (n, f(a % 2)) }}"#).as_deref(),
            Some(r#"{{ __tool_use_mod("%d-%s", (n, f(__tool_use_mod(a, 2)))) }}"#)
        );
        // `+` is left alone where no Markup can be made.
        assert_eq!(rewrite("{{ a + b }}"), None);
        // Tags inside strings, comments and raw blocks are not tags.
        assert_eq!(
            rewrite("{# {{ a % b }} #}{% raw %}{{ a % b }}{% endraw %}"),
            None
        );
        assert_eq!(
            rewrite("{{ '}}' ~ {'a': {'b': 1}}['a'] % 3 }}").as_deref(),
            Some("{{ '}}' ~ __tool_use_mod({'a': {'b': 1}}['a'], 3) }}")
        );
        assert_eq!(
            rewrite("{%- if x is divisibleby 3 and y % 2 -%}").as_deref(),
            Some("{%- if x is divisibleby 3 and __tool_use_mod(y, 2) -%}")
        );
        // Comparing with none becomes the none test; chains are left alone.
        assert_eq!(
            rewrite("{% if tools == none or none != x.y|first %}").as_deref(),
            Some("{% if (tools is none) or (x.y|first is not none) %}")
        );
        assert_eq!(rewrite("{{ a == b == none }}"), None);
        assert_eq!(rewrite("{{ a == none == b }}"), None);
        // What the parser cannot read is left to minijinja.
        assert_eq!(rewrite("{{ a % }}"), None);
        assert_eq!(rewrite("{{ 'unterminated % 2 }}"), None);
    }
}
