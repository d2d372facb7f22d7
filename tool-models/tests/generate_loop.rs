//! The generation loop: determinism, sampling, stop conditions, streaming,
//! constraints and errors.

use tool_models::generate::{
    GenerateError, GenerateOptions, Session, StopReason, TokenConstraint, TokenConstraintError,
    TokenSet,
};
use tool_models::model::tiny::{tiny_token_id, write_tiny_model, TinySpec};
use tool_models::model::Model;

fn load(spec: &TinySpec) -> (tempfile::TempDir, Session) {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), spec).unwrap();
    let session = Session::new(Model::load(tmp.path()).unwrap());
    (tmp, session)
}

/// `spec` with a context of 32 positions, loaded.
fn load_with_32_positions(spec: TinySpec) -> (tempfile::TempDir, Session) {
    load(&TinySpec {
        max_position_embeddings: 32,
        ..spec
    })
}

fn prompt(model: &Model) -> Vec<u32> {
    model
        .tokenizer()
        .encode("<|im_start|>user\nCall a tool please<|im_end|>\n<|im_start|>assistant\n")
        .unwrap()
}

/// `spec` loaded, and [`prompt`] in its tokens.
fn load_with_prompt(spec: &TinySpec) -> (tempfile::TempDir, Session, Vec<u32>) {
    let (tmp, session) = load(spec);
    let p = prompt(session.model());
    (tmp, session, p)
}

/// Greedy for exactly `n` tokens: an end-of-sequence token does not stop it.
fn greedy_past_eos(n: usize) -> GenerateOptions {
    GenerateOptions {
        ignore_eos: true,
        ..GenerateOptions::greedy(n)
    }
}

/// Generates, collecting the streamed deltas.
fn run(
    session: &mut Session,
    prompt: &[u32],
    options: &GenerateOptions,
) -> (tool_models::generate::Generation, Vec<String>) {
    let mut deltas = Vec::new();
    let out = session
        .generate(prompt, options, None, &mut |d| deltas.push(d.to_owned()))
        .unwrap();
    (out, deltas)
}

#[test]
fn greedy_generation_is_deterministic_across_loads() {
    for spec in [TinySpec::llama(21), TinySpec::qwen2(22)] {
        let (_a, mut a) = load(&spec);
        let (_b, mut b) = load(&spec);
        let p = prompt(a.model());
        let (x, _) = run(&mut a, &p, &GenerateOptions::greedy(20));
        let (y, _) = run(&mut b, &p, &GenerateOptions::greedy(20));
        assert_eq!(x.tokens, y.tokens);
        assert_eq!(x.text, y.text);
        assert!(!x.tokens.is_empty());
    }
}

#[test]
fn seeded_sampling_is_deterministic_and_the_seed_matters() {
    let (_tmp, mut session, p) = load_with_prompt(&TinySpec::llama(23));
    let sample = |session: &mut Session, seed| {
        let options = GenerateOptions {
            top_k: 50,
            top_p: 0.95,
            ..GenerateOptions::sampled(24, 1.5, seed)
        };
        run(session, &p, &options).0.tokens
    };
    let a = sample(&mut session, 1);
    assert_eq!(a, sample(&mut session, 1));
    let others: Vec<Vec<u32>> = (2..6).map(|s| sample(&mut session, s)).collect();
    assert!(
        others.iter().any(|o| *o != a),
        "different seeds gave the same samples"
    );
    let greedy = run(&mut session, &p, &GenerateOptions::greedy(24)).0.tokens;
    assert!(
        others.iter().chain([&a]).any(|o| *o != greedy),
        "sampling at temperature 1.5 never left the greedy path"
    );
}

#[test]
fn max_new_tokens_is_exact() {
    let (_tmp, mut session, p) = load_with_prompt(&TinySpec::qwen2(24));
    let (out, _) = run(&mut session, &p, &greedy_past_eos(13));
    assert_eq!(out.stop_reason, StopReason::MaxTokens);
    assert_eq!(out.tokens.len(), 13);
    let (zero, deltas) = run(&mut session, &p, &GenerateOptions::greedy(0));
    assert_eq!(zero.tokens, Vec::<u32>::new());
    assert_eq!(zero.stop_reason, StopReason::MaxTokens);
    assert_eq!(deltas.concat(), "");
}

#[test]
fn streamed_deltas_concatenate_to_the_text() {
    for spec in [TinySpec::llama(25), TinySpec::qwen2(26)] {
        let (_tmp, mut session, p) = load_with_prompt(&spec);
        for seed in 0..4 {
            let (out, deltas) = run(&mut session, &p, &GenerateOptions::sampled(40, 1.0, seed));
            assert_eq!(deltas.concat(), out.text);
            let visible: Vec<u32> = match out.stop_reason {
                StopReason::Eos(_) => out.tokens[..out.tokens.len() - 1].to_vec(),
                _ => out.tokens.clone(),
            };
            assert_eq!(
                out.text,
                session.model().tokenizer().decode(&visible).unwrap()
            );
        }
    }
}

#[test]
fn a_stop_string_ends_generation_and_is_not_returned_or_streamed() {
    let options = greedy_past_eos(40);
    // Random models emit many stray bytes (U+FFFD in text, which is held
    // back until the next token shows it is final): find one whose text has
    // a plain stretch to take a stop string from.
    let found = (0..20).find_map(|seed| {
        let (tmp, mut session, p) = load_with_prompt(&TinySpec::llama(seed));
        let (free, _) = run(&mut session, &p, &options);
        let chars: Vec<char> = free.text.chars().collect();
        let start = (3..chars.len().saturating_sub(2))
            .find(|&i| !chars[i..i + 2].contains(&char::REPLACEMENT_CHARACTER))?;
        let stop: String = chars[start..start + 2].iter().collect();
        Some((tmp, session, p, free, stop))
    });
    let (_tmp, mut session, p, free, stop) = found.expect("no seed gave plain text");
    let at = free.text.find(&stop).unwrap();
    let options = GenerateOptions {
        stop_strings: vec!["never appears \u{1}".into(), stop.clone()],
        ..options
    };
    let (out, deltas) = run(&mut session, &p, &options);
    assert_eq!(out.stop_reason, StopReason::StopString(stop.clone()));
    assert_eq!(out.text, free.text[..at]);
    assert_eq!(deltas.concat(), out.text);
    assert!(out.tokens.len() < free.tokens.len());
    assert_eq!(out.tokens[..], free.tokens[..out.tokens.len()]);
}

#[test]
fn extra_eos_ids_end_generation_without_text() {
    let (_tmp, mut session, p) = load_with_prompt(&TinySpec::qwen2(28));
    let (free, _) = run(&mut session, &p, &GenerateOptions::greedy(5));
    let first = free.tokens[0];
    let options = GenerateOptions {
        eos_token_ids: vec![first],
        ..GenerateOptions::greedy(5)
    };
    let (out, deltas) = run(&mut session, &p, &options);
    assert_eq!(out.stop_reason, StopReason::Eos(first));
    assert_eq!(out.tokens, vec![first]);
    assert_eq!(out.text, "");
    assert!(deltas.concat().is_empty());
}

/// Allows a fixed set of tokens; finishes after `limit` tokens.
struct Only {
    set: TokenSet,
    committed: Vec<u32>,
    limit: usize,
}

impl TokenConstraint for Only {
    fn allowed(&mut self) -> Result<Option<TokenSet>, TokenConstraintError> {
        Ok(Some(self.set.clone()))
    }

    fn commit(&mut self, token: u32) -> Result<(), TokenConstraintError> {
        if !self.set.contains(token) {
            return Err(TokenConstraintError(format!(
                "token {token} was not allowed"
            )));
        }
        self.committed.push(token);
        Ok(())
    }

    fn finished(&self) -> bool {
        self.committed.len() >= self.limit
    }
}

fn only(model: &Model, text: &str, limit: usize) -> Only {
    let mut set = TokenSet::empty(model.tokenizer().vocab_size());
    for id in model.tokenizer().encode(text).unwrap() {
        set.insert(id);
    }
    Only {
        set,
        committed: Vec::new(),
        limit,
    }
}

#[test]
fn a_constraint_is_obeyed_at_every_step_and_can_finish_generation() {
    for spec in [TinySpec::llama(29), TinySpec::qwen2(30)] {
        let (_tmp, mut session, p) = load_with_prompt(&spec);
        for seed in 0..5 {
            let mut c = only(session.model(), "0123456789", 12);
            let out = session
                .generate(
                    &p,
                    &GenerateOptions::sampled(50, 2.0, seed),
                    Some(&mut c),
                    &mut |_| {},
                )
                .unwrap();
            assert_eq!(out.stop_reason, StopReason::ConstraintFinished);
            assert_eq!(out.tokens.len(), 12);
            assert_eq!(c.committed, out.tokens);
            assert!(
                out.text.chars().all(|ch| ch.is_ascii_digit()),
                "{:?}",
                out.text
            );
        }
    }
}

#[test]
fn a_constraint_allowing_only_eos_ends_at_once() {
    let (_tmp, mut session, p) = load_with_prompt(&TinySpec::llama(31));
    let mut c = only(session.model(), "<|im_end|>", 99);
    let out = session
        .generate(&p, &GenerateOptions::greedy(10), Some(&mut c), &mut |_| {})
        .unwrap();
    let im_end = tiny_token_id("<|im_end|>").unwrap();
    assert_eq!(out.stop_reason, StopReason::Eos(im_end));
    assert_eq!(c.committed, vec![im_end]);
}

#[test]
fn a_constraint_allowing_nothing_is_an_error_not_a_panic() {
    let (_tmp, mut session, p) = load_with_prompt(&TinySpec::llama(32));
    let mut c = Only {
        set: TokenSet::empty(session.model().tokenizer().vocab_size()),
        committed: Vec::new(),
        limit: 5,
    };
    let err = session
        .generate(&p, &GenerateOptions::greedy(10), Some(&mut c), &mut |_| {})
        .unwrap_err();
    assert!(
        matches!(err, GenerateError::AllMasked { step: 0, .. }),
        "{err}"
    );
    // The model is still usable afterwards.
    let out = session
        .generate(&p, &GenerateOptions::greedy(3), None, &mut |_| {})
        .unwrap();
    assert_eq!(out.stats.reused_tokens, p.len());
}

#[test]
fn bad_prompts_and_options_are_errors_before_anything_runs() {
    let (_tmp, mut session) = load_with_32_positions(TinySpec::llama(33));
    let long: Vec<u32> = (0..33).collect();
    let err = session
        .generate(&long, &GenerateOptions::greedy(1), None, &mut |_| {})
        .unwrap_err();
    assert!(
        matches!(
            err,
            GenerateError::ContextOverflow {
                prompt_tokens: 33,
                context_length: 32
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("33") && err.to_string().contains("32"));
    assert!(session.cached_tokens().is_empty(), "nothing ran");

    let err = session
        .generate(&[], &GenerateOptions::greedy(1), None, &mut |_| {})
        .unwrap_err();
    assert!(matches!(err, GenerateError::EmptyPrompt), "{err}");

    let err = session
        .generate(&[1, 99999], &GenerateOptions::greedy(1), None, &mut |_| {})
        .unwrap_err();
    assert!(
        matches!(
            err,
            GenerateError::InvalidToken {
                token: 99999,
                position: 1,
                ..
            }
        ),
        "{err}"
    );

    for options in [
        GenerateOptions {
            temperature: -1.0,
            ..GenerateOptions::default()
        },
        GenerateOptions {
            top_p: 0.0,
            ..GenerateOptions::default()
        },
        GenerateOptions {
            stop_strings: vec![String::new()],
            ..GenerateOptions::default()
        },
    ] {
        let err = session
            .generate(&[1, 2], &options, None, &mut |_| {})
            .unwrap_err();
        assert!(matches!(err, GenerateError::InvalidOptions(_)), "{err}");
    }
}

#[test]
fn a_full_context_stops_generation() {
    let (_tmp, mut session) = load_with_32_positions(TinySpec::qwen2(34));
    let p: Vec<u32> = (40..70).collect();
    let options = greedy_past_eos(50);
    let out = session.generate(&p, &options, None, &mut |_| {}).unwrap();
    assert_eq!(out.stop_reason, StopReason::ContextFull);
    // 30 prompt tokens: positions 30 and 31 take two generated tokens, and
    // the third is sampled from the logits after position 31.
    assert_eq!(out.tokens.len(), 3);
    assert_eq!(session.cached_tokens().len(), 32);
}

#[test]
fn timings_and_counts_are_reported() {
    let (_tmp, mut session, p) = load_with_prompt(&TinySpec::llama(35));
    let (out, _) = run(&mut session, &p, &greedy_past_eos(8));
    assert_eq!(out.stats.prompt_tokens, p.len());
    assert!(out.stats.time_to_first_token >= out.stats.prefill);
    assert!(out.stats.prefill_tokens_per_second() > 0.0);
    assert_eq!(out.tokens.len(), 8);
    assert!(out.stats.decode_tokens_per_second() > 0.0);
    assert!(out.stats.decode > std::time::Duration::ZERO);
}
