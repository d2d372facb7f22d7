//! Constrained calls in every format: a random model's calls always parse,
//! name an offered tool and validate, under every tool choice.

mod constrain_util;

use constrain_util::families::{vocab, CASES};
use constrain_util::{run, tools, with_calls};
use tool_models::constrain::ToolConstraint;
use tool_models::generate::TokenConstraint;
use tool_models::parse::Format;
use tool_runtime::ToolChoice;

#[test]
fn every_format_writes_hundred_of_hundred_valid_calls() {
    let tools = tools();
    assert!(
        Format::all().all(|f| CASES.iter().any(|c| c.format == f)),
        "a format has no case"
    );
    for (i, c) in CASES.iter().enumerate() {
        let (tok, env, bias) = vocab(c);
        let f = c.format;
        let seed = 100 + i as u64;
        let outs = run(
            (&tok, &env),
            f,
            &tools,
            &ToolChoice::Required,
            &bias,
            100,
            seed,
        );
        assert_eq!(with_calls(&outs), 100, "{f} (case {i})");
        let mut names = std::collections::BTreeSet::new();
        for (_, p) in &outs {
            names.extend(p.tool_calls.iter().map(|c| c.name.clone()));
        }
        assert_eq!(names.len(), 4, "{f} (case {i}) called {names:?}");
        // Named: exactly that tool, once.
        for name in ["search", "now"] {
            let choice = ToolChoice::Named(name.into());
            for (text, p) in run((&tok, &env), f, &tools, &choice, &bias, 10, seed) {
                assert!(
                    p.tool_calls.len() == 1 && p.tool_calls[0].name == name,
                    "{f} (case {i}) named {name}: {text:?}"
                );
            }
        }
        // Auto: calls or text, every call valid.
        run((&tok, &env), f, &tools, &ToolChoice::Auto, &bias, 20, seed);
        // None: no call, and no opening marker even as a token.
        for (text, p) in run((&tok, &env), f, &tools, &ToolChoice::None, &bias, 10, seed) {
            assert!(
                p.tool_calls.is_empty() && p.invalid_tool_calls.is_empty(),
                "{f} (case {i}) none: {text:?}"
            );
        }
        if let Some(open) = c.specials.first().and_then(|m| tok.token_to_id(m)) {
            let mut none = ToolConstraint::new(
                &env,
                f,
                &constrain_util::definitions(&tools),
                &ToolChoice::None,
            )
            .unwrap();
            if f != Format::Harmony {
                assert!(!none.allowed().unwrap().unwrap().contains(open), "{f}");
            }
        }
    }
}
