//! Jinja2 semantics that real chat templates lean on, each against what
//! transformers itself printed for the same snippet
//! (`scripts/jinja2_parity.py` writes `data/jinja2_parity.jsonl`).

use serde_json::Value;
use tool_models::template::ChatTemplate;

#[test]
fn snippets_render_as_transformers_renders_them() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/jinja2_parity.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the parity cases");
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON case");
        let source = case["template"].as_str().expect("template");
        cases += 1;
        let ours = ChatTemplate::new(source).and_then(|t| t.render_json(&case["vars"]));
        match (&ours, case.get("output").and_then(Value::as_str)) {
            (Ok(got), Some(want)) if got == want => {}
            (Err(_), None) => {}
            (got, want) => failures.push(format!(
                "{source}\n  transformers: {}\n  ours:         {got:?}",
                want.map_or_else(|| case["error"].to_string(), |w| format!("{w:?}"))
            )),
        }
    }
    assert!(cases >= 100, "only {cases} cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

mod rewritten_operators {
    //! `+` and `%` are rewritten into calls before compiling; whatever the
    //! nesting, the rewritten template must compute what Python computes.

    use proptest::prelude::*;
    use tool_models::template::ChatTemplate;

    #[derive(Debug, Clone)]
    enum Expr {
        Int(i64),
        Neg(Box<Expr>),
        Bin(Box<Expr>, &'static str, Box<Expr>),
        Paren(Box<Expr>),
    }

    impl Expr {
        fn source(&self) -> String {
            match self {
                Expr::Int(i) => i.to_string(),
                Expr::Neg(e) => format!("-{}", e.source()),
                Expr::Bin(a, op, b) => format!("{} {op} {}", a.source(), b.source()),
                Expr::Paren(e) => format!("({})", e.source()),
            }
        }
    }

    fn expr() -> impl Strategy<Value = Expr> {
        let leaf = (-20i64..20).prop_map(Expr::Int);
        leaf.prop_recursive(5, 40, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(|e| Expr::Paren(Box::new(e))),
                inner
                    .clone()
                    .prop_map(|e| Expr::Neg(Box::new(Expr::Paren(Box::new(e))))),
                (
                    inner.clone(),
                    prop::sample::select(vec!["+", "-", "*", "%"]),
                    inner
                )
                    .prop_map(|(a, op, b)| Expr::Bin(Box::new(a), op, Box::new(b))),
            ]
        })
    }

    /// Python's precedence: `*` and `%` bind tighter than `+` and `-`, all
    /// left-associative; `%` floors. `None` where Python raises.
    fn python(source: &str) -> Option<i128> {
        fn parse(tokens: &[&str], i: &mut usize, level: u8) -> Option<i128> {
            if level == 2 {
                return match tokens[*i] {
                    "-" => {
                        *i += 1;
                        Some(-parse(tokens, i, 2)?)
                    }
                    "(" => {
                        *i += 1;
                        let v = parse(tokens, i, 0)?;
                        *i += 1;
                        Some(v)
                    }
                    t => {
                        *i += 1;
                        t.parse().ok()
                    }
                };
            }
            let mut v = parse(tokens, i, level + 1)?;
            while let Some(&op) = tokens.get(*i) {
                let ours = if level == 0 { ["+", "-"] } else { ["*", "%"] };
                if !ours.contains(&op) {
                    break;
                }
                *i += 1;
                let r = parse(tokens, i, level + 1)?;
                v = match op {
                    "+" => v.checked_add(r)?,
                    "-" => v.checked_sub(r)?,
                    "*" => v.checked_mul(r)?,
                    _ => {
                        if r == 0 {
                            return None;
                        }
                        let m = v % r;
                        if m != 0 && (m < 0) != (r < 0) {
                            m + r
                        } else {
                            m
                        }
                    }
                };
            }
            Some(v)
        }
        let spaced = source
            .replace('(', " ( ")
            .replace(')', " ) ")
            .replace('-', " - ");
        let tokens: Vec<&str> = spaced.split_whitespace().collect();
        let mut i = 0;
        let v = parse(&tokens, &mut i, 0)?;
        (i64::try_from(v).is_ok()).then_some(v)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn arithmetic_survives_the_rewrite(e in expr(), markup in any::<bool>()) {
            let source = e.source();
            // A `|safe` anywhere makes `+` a call too.
            let prefix = if markup { "{% set m = ''|safe %}" } else { "" };
            let template = format!("{prefix}{{{{ {source} }}}}");
            let ours = ChatTemplate::new(&template)
                .and_then(|t| t.render_json(&serde_json::json!({})));
            match python(&source) {
                Some(want) => prop_assert_eq!(ours.ok(), Some(want.to_string()), "{}", source),
                None => prop_assert!(ours.is_err(), "{} should fail", source),
            }
        }
    }
}
