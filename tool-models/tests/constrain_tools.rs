//! Constrained tool calls: a random model's calls always parse and validate.

mod constrain_util;

use constrain_util::{
    definitions, run, small, tokenizer_with, tools, with_calls, with_specials, Bias, SPECIALS,
};
use serde_json::json;
use tokenizers::Tokenizer;
use tool_models::constrain::{ConstrainError, TokenEnv, ToolConstraint};
use tool_models::generate::{TokenConstraint, TokenSet};
use tool_models::parse::Format;
use tool_models::parse::ParsedResponse;
use tool_runtime::{ToolChoice, ToolDefinition};

/// `run` over the shared `tools()` with an unbiased model: most tests here
/// vary only the format, the choice, the count and the seed.
fn sample(
    model: (&Tokenizer, &TokenEnv),
    format: Format,
    choice: &ToolChoice,
    n: usize,
    seed: u64,
) -> Vec<(String, ParsedResponse)> {
    run(model, format, &tools(), choice, &Bias::default(), n, seed)
}

/// The tokens `constraint` allows after the tokens of `text` (committed on
/// a copy).
fn allowed_after(constraint: &ToolConstraint, tok: &Tokenizer, text: &str) -> TokenSet {
    let mut probe = constraint.clone();
    for t in tok.encode(text, false).unwrap().get_ids() {
        probe.commit(*t).unwrap();
    }
    probe.allowed().unwrap().unwrap()
}

#[test]
fn hermes_auto_hundred_of_hundred_valid() {
    let (tok, env) = small();
    let outs = sample((&tok, &env), Format::Hermes, &ToolChoice::Auto, 100, 1);
    let with_calls = with_calls(&outs);
    let mut names = std::collections::BTreeSet::new();
    for (_, parsed) in &outs {
        names.extend(parsed.tool_calls.iter().map(|c| c.name.clone()));
    }
    // The bias makes calls common but not universal: both paths are tested.
    assert!(
        (30..100).contains(&with_calls),
        "{with_calls} of 100 outputs had calls"
    );
    assert_eq!(names.len(), 4, "tools called: {names:?}");
}

#[test]
fn hermes_plain_text_markers() {
    // As in Qwen2.5's tokenizer: `<tool_call>` is one added token but not a
    // special one, so it is text, and the grammar takes the marker as a lexeme.
    let tok = tokenizer_with(
        3000,
        &[
            ("<|im_end|>", true),
            ("<tool_call>", false),
            ("</tool_call>", false),
        ],
        7,
    );
    let env = TokenEnv::new(&tok, &[tok.token_to_id("<|im_end|>").unwrap()]).unwrap();
    assert_eq!(env.special_token("<tool_call>"), None);
    let open = tok.token_to_id("<tool_call>").unwrap();
    assert_eq!(env.token_bytes(open), b"<tool_call>");
    let tools = tools();
    let c = ToolConstraint::new(
        &env,
        Format::Hermes,
        &definitions(&tools),
        &ToolChoice::Auto,
    )
    .unwrap();
    assert!(c.grammar().contains("head[lazy]"), "{}", c.grammar());
    // Inside a string the end marker cannot appear: the parser would end
    // the call there.
    let head = "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"a";
    let inside = allowed_after(&c, &tok, head);
    assert!(!inside.contains(tok.token_to_id("</tool_call>").unwrap()));
    assert!(inside.contains(tok.token_to_id("\"}").unwrap()));
    assert!(inside.contains(tok.token_to_id("</").unwrap()));
    // Past a call, the text cannot write the closing marker either (the
    // parser would keep a stray `</tool_call>` as words); `</` stays.
    let call = "<tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call> ok";
    let text = allowed_after(&c, &tok, call);
    assert!(!text.contains(tok.token_to_id("</tool_call>").unwrap()));
    assert!(text.contains(tok.token_to_id("</").unwrap()));
    let outs = sample((&tok, &env), Format::Hermes, &ToolChoice::Auto, 100, 2);
    let with_calls = with_calls(&outs);
    assert!(
        (30..100).contains(&with_calls),
        "{with_calls} of 100 outputs had calls"
    );
}

#[test]
fn hermes_marker_spelled_in_byte_tokens() {
    // No added tokens for the markers at all: they take several tokens.
    let (tok, env) = with_specials(&["<|im_end|>"]);
    let tools = tools();
    let mut c = ToolConstraint::new(
        &env,
        Format::Hermes,
        &definitions(&tools),
        &ToolChoice::Auto,
    )
    .unwrap();
    let byte = |b: u8| {
        tok.token_to_id(&constrain_util::byte_to_char()[b as usize].to_string())
            .unwrap()
    };
    let text = "Hi <tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call> ok";
    for (i, b) in text.bytes().enumerate() {
        let allowed = c.allowed().unwrap().unwrap();
        assert!(allowed.contains(byte(b)), "byte {i} of {text:?} refused");
        if i == "Hi <tool_call>".len() {
            // Inside the call only JSON may follow.
            assert!(!allowed.contains(byte(b'H')));
        }
        c.commit(byte(b)).unwrap();
    }
    let eos = tok.token_to_id("<|im_end|>").unwrap();
    assert!(c.allowed().unwrap().unwrap().contains(eos));
    // And random generation stays valid.
    sample((&tok, &env), Format::Hermes, &ToolChoice::Auto, 30, 12);
}

/// The JSON families that share the Hermes/Mistral grammar shapes, with
/// their markers as special tokens (Nemotron, Granite) or as text.
#[test]
fn json_families_hundred_of_hundred_valid() {
    let (tok, env) = with_specials(&[
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<TOOLCALL>",
        "</TOOLCALL>",
        "<|tool_call|>",
    ]);
    let tools = tools();
    for (i, format) in [
        Format::NemotronV2,
        Format::Granite,
        Format::Phi4Mini,
        Format::Granite20bFc,
    ]
    .into_iter()
    .enumerate()
    {
        assert!(ToolConstraint::supports(format));
        let outs = sample(
            (&tok, &env),
            format,
            &ToolChoice::Required,
            100,
            20 + i as u64,
        );
        assert_eq!(with_calls(&outs), 100, "{format}");
        for choice in [ToolChoice::Auto, ToolChoice::Named("now".into())] {
            let outs = sample((&tok, &env), format, &choice, 10, 40);
            if let ToolChoice::Named(name) = &choice {
                for (text, p) in &outs {
                    assert!(
                        p.tool_calls.len() == 1 && &p.tool_calls[0].name == name,
                        "{format}: {text:?}"
                    );
                }
            }
        }
        // `none` never opens a call, nor writes the marker as text.
        let outs = sample((&tok, &env), format, &ToolChoice::None, 10, 50);
        assert_eq!(with_calls(&outs), 0, "{format}");
        let special = match format {
            Format::NemotronV2 => Some("<TOOLCALL>"),
            Format::Granite => Some("<|tool_call|>"),
            _ => None,
        };
        if let Some(open) = special.and_then(|m| tok.token_to_id(m)) {
            let mut none =
                ToolConstraint::new(&env, format, &definitions(&tools), &ToolChoice::None).unwrap();
            assert!(!none.allowed().unwrap().unwrap().contains(open), "{format}");
        }
    }
}

#[test]
fn required_always_calls_and_nothing_else() {
    let (tok, env) = small();
    let outs = sample((&tok, &env), Format::Hermes, &ToolChoice::Required, 30, 3);
    for (text, parsed) in &outs {
        assert!(!parsed.tool_calls.is_empty(), "no call in {text:?}");
        assert!(
            parsed.content.as_deref().unwrap_or("").trim().is_empty(),
            "text around the calls in {text:?}"
        );
    }
}

#[test]
fn none_never_calls() {
    let (tok, env) = small();
    let tools = tools();
    let open = tok.token_to_id("<tool_call>").unwrap();
    let mut c = ToolConstraint::new(
        &env,
        Format::Hermes,
        &definitions(&tools),
        &ToolChoice::None,
    )
    .unwrap();
    assert!(!c.allowed().unwrap().unwrap().contains(open));
    // Even a model that wants nothing but to call cannot.
    let mut bias = Bias::default();
    bias.tokens.push(("<tool".into(), 8.0));
    bias.tokens.push(("_call".into(), 8.0));
    let outs = run(
        (&tok, &env),
        Format::Hermes,
        &tools,
        &ToolChoice::None,
        &bias,
        30,
        4,
    );
    for (text, parsed) in &outs {
        assert!(
            parsed.tool_calls.is_empty() && parsed.invalid_tool_calls.is_empty(),
            "{text:?}"
        );
        assert!(!text.contains("<tool_call>"), "{text:?}");
    }
}

#[test]
fn named_calls_only_that_tool_once() {
    let (tok, env) = small();
    for name in ["search", "now"] {
        let choice: ToolChoice = name.parse().unwrap();
        let outs = sample((&tok, &env), Format::Hermes, &choice, 20, 5);
        for (text, parsed) in &outs {
            assert_eq!(parsed.tool_calls.len(), 1, "{text:?}");
            assert_eq!(parsed.tool_calls[0].name, name);
        }
    }
}

#[test]
fn allowed_tools_are_the_only_ones_called() {
    let (tok, env) = small();
    let allowed = vec!["search".to_owned(), "now".to_owned()];
    for (required, seed) in [(true, 11), (false, 12)] {
        let choice = ToolChoice::Allowed {
            tools: allowed.clone(),
            required,
        };
        let outs = sample((&tok, &env), Format::Hermes, &choice, 40, seed);
        let mut called = std::collections::BTreeSet::new();
        for (text, parsed) in &outs {
            if required {
                assert!(!parsed.tool_calls.is_empty(), "{text:?}");
            }
            for call in &parsed.tool_calls {
                assert!(allowed.contains(&call.name), "{} in {text:?}", call.name);
                called.insert(call.name.clone());
            }
        }
        assert_eq!(
            called.len(),
            2,
            "both allowed tools are reachable: {called:?}"
        );
    }
    // A name that is not offered is refused before any grammar is built.
    let unknown = ToolChoice::Allowed {
        tools: vec!["fly".into()],
        required: false,
    };
    let err =
        ToolConstraint::new(&env, Format::Hermes, &definitions(&tools()), &unknown).unwrap_err();
    assert!(err.to_string().contains("unknown tool `fly`"), "{err}");
}

#[test]
fn llama3_json_auto_and_required() {
    let (tok, env) = small();
    let tools = tools();
    for (choice, seed) in [(ToolChoice::Auto, 6), (ToolChoice::Required, 7)] {
        let mut bias = Bias::default();
        bias.tokens.push(("{\"".into(), 5.0));
        let outs = run(
            (&tok, &env),
            Format::Llama3Json,
            &tools,
            &choice,
            &bias,
            50,
            seed,
        );
        let with_calls = with_calls(&outs);
        if choice == ToolChoice::Required {
            assert_eq!(with_calls, 50);
        } else {
            assert!(with_calls >= 5, "{with_calls} of 50");
        }
    }
}

#[test]
fn mistral_auto_and_named() {
    let (tok, env) = small();
    for (choice, seed) in [(ToolChoice::Auto, 8), (ToolChoice::Named("add".into()), 9)] {
        let outs = sample((&tok, &env), Format::Mistral, &choice, 50, seed);
        let with_calls = with_calls(&outs);
        for (text, parsed) in &outs {
            if let ToolChoice::Named(n) = &choice {
                assert_eq!(parsed.tool_calls.len(), 1, "{text:?}");
                assert_eq!(&parsed.tool_calls[0].name, n);
            }
        }
        assert!(with_calls >= 5, "{with_calls} of 50");
    }
}

#[test]
fn no_tools_means_no_calls() {
    let (tok, env) = small();
    let open = tok.token_to_id("<tool_call>").unwrap();
    let mut c = ToolConstraint::new(&env, Format::Hermes, &[], &ToolChoice::Auto).unwrap();
    assert!(!c.allowed().unwrap().unwrap().contains(open));
    let e = ToolConstraint::new(&env, Format::Hermes, &[], &ToolChoice::Required).unwrap_err();
    assert_eq!(
        e,
        ConstrainError::Choice(tool_runtime::UnmetChoice::NoTools("required".into()))
    );
}

#[test]
fn errors_are_clear() {
    let (_, env) = small();
    let tools = tools();
    let e = ToolConstraint::new(
        &env,
        Format::Hermes,
        &definitions(&tools),
        &ToolChoice::Named("fly".into()),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "tool_choice: unknown tool `fly`. Available tools: get_weather, add, search, now"
    );
    // Every format the parsers read has a grammar.
    for format in Format::all() {
        assert!(ToolConstraint::supports(format), "{format}");
    }
    let bad = vec![json!({"type": "function", "function": {"name": "f",
        "parameters": {"type": "object", "properties": {"x": {"type": "integer", "minimum": 5, "maximum": 1}}, "required": ["x"]}}})];
    let e = ToolConstraint::new(&env, Format::Hermes, &definitions(&bad), &ToolChoice::Auto)
        .unwrap_err();
    assert!(
        matches!(&e, ConstrainError::Schema { what, .. } if what == "tool `f`'s parameters"),
        "{e}"
    );
    let e = ToolDefinition::list_from_json(&[json!({"function": {}})]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("tool definition #0: expected `function.name`"),
        "{e}"
    );
}

#[test]
fn commit_rejects_disallowed_tokens() {
    let (tok, env) = small();
    let close = tok.token_to_id("</tool_call>").unwrap();
    let mut c = ToolConstraint::new(
        &env,
        Format::Hermes,
        &definitions(&tools()),
        &ToolChoice::Required,
    )
    .unwrap();
    let allowed = c.allowed().unwrap().unwrap();
    assert!(!allowed.contains(close));
    let e = c.commit(close).unwrap_err();
    assert!(e.to_string().contains(&format!("token {close}")), "{e}");
}

#[test]
fn required_call_then_only_eos_or_another_call() {
    let (tok, env) = small();
    let id = |s: &str| tok.token_to_id(s).unwrap();
    let mut c = ToolConstraint::new(
        &env,
        Format::Hermes,
        &definitions(&tools()),
        &ToolChoice::Named("now".into()),
    )
    .unwrap();
    let text = "<tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call>";
    for t in tok.encode(text, false).unwrap().get_ids() {
        assert!(
            c.allowed().unwrap().unwrap().contains(*t),
            "token {t} refused"
        );
        c.commit(*t).unwrap();
    }
    let after = c.allowed().unwrap().unwrap();
    assert!(after.contains(id("<|im_end|>")));
    assert!(
        !after.contains(id("<tool_call>")),
        "Named allows one call only"
    );
    assert!(!after.contains(id("Hello")));
    let _ = SPECIALS;
}
