//! Random interleavings of growing conversations: with several KV caches,
//! under any budget, each generation equals the one from an empty cache,
//! and reuses at least what one cache would.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::sync::Arc;
use tool_models::generate::{GenerateOptions, Generation, Session};
use tool_models::model::tiny::{write_tiny_model, TinySpec, TINY_VOCAB_SIZE};
use tool_models::model::Model;

const CONVERSATIONS: usize = 3;

/// One request: which conversation, whether the client writes the last
/// answer back in other tokens (a re-rendered assistant turn), and the
/// tokens it appends.
#[derive(Debug, Clone)]
struct Step {
    conversation: usize,
    rewrite: bool,
    appended: Vec<u32>,
}

fn token() -> impl Strategy<Value = u32> {
    0..TINY_VOCAB_SIZE as u32
}

fn step() -> impl Strategy<Value = Step> {
    (
        0..CONVERSATIONS,
        proptest::bool::weighted(0.25),
        proptest::collection::vec(token(), 1..8),
    )
        .prop_map(|(conversation, rewrite, appended)| Step {
            conversation,
            rewrite,
            appended,
        })
}

fn greedy(session: &mut Session, prompt: &[u32]) -> Generation {
    session
        .generate(prompt, &GenerateOptions::greedy(3), None, &mut |_| {})
        .unwrap()
}

/// The models compared, loaded once: proptest runs many cases.
struct Models {
    _dir: tempfile::TempDir,
    /// The default budget.
    pooled: Session,
    /// Room for about two short conversations: eviction happens.
    small: Session,
    /// One cache.
    single: Session,
    /// Reset before each request.
    reference: Session,
}

impl Models {
    /// What the reference generates from `prompt` after an empty cache.
    fn generated_afresh(&mut self, prompt: &[u32]) -> Generation {
        self.reference.reset_cache();
        greedy(&mut self.reference, prompt)
    }
}

fn models(spec: &TinySpec) -> Models {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path(), spec).unwrap();
    // Sessions on one model.
    let model = Arc::new(Model::load(dir.path()).unwrap());
    let load = || Session::new(Arc::clone(&model));
    let (pooled, mut small, mut single, reference) = (load(), load(), load(), load());
    // A Llama's 2 layers, keys and values, 2 heads of 16: 512 bytes a
    // token.
    small.set_kv_budget(64 * 512);
    single.set_kv_budget(0);
    Models {
        _dir: dir,
        pooled,
        small,
        single,
        reference,
    }
}

/// What a case sends: the tokens every conversation starts with, each
/// conversation's own opening, the requests in order, and the tokens a
/// rewritten answer is written back in.
#[derive(Debug, Clone)]
struct Script {
    shared: Vec<u32>,
    openings: Vec<Vec<u32>>,
    steps: Vec<Step>,
    rewrite_with: Vec<u32>,
}

fn script() -> impl Strategy<Value = Script> {
    (
        proptest::collection::vec(token(), 0..12),
        proptest::collection::vec(proptest::collection::vec(token(), 1..10), CONVERSATIONS),
        proptest::collection::vec(step(), 1..12),
        proptest::collection::vec(token(), 3),
    )
        .prop_map(|(shared, openings, steps, rewrite_with)| Script {
            shared,
            openings,
            steps,
            rewrite_with,
        })
}

/// The conversations' next prompts, request by request: each starts with
/// the shared tokens and its own opening; what was generated last is
/// appended (or rewritten) at its next request. `request` runs a prompt and
/// returns what the model generates from an empty cache.
fn drive(
    script: &Script,
    mut request: impl FnMut(&[u32]) -> Result<Vec<u32>, TestCaseError>,
) -> Result<(), TestCaseError> {
    let Script {
        shared,
        openings,
        steps,
        rewrite_with,
    } = script;
    let mut histories: Vec<Vec<u32>> = openings
        .iter()
        .map(|own| shared.iter().chain(own).copied().collect())
        .collect();
    let mut answers: Vec<Vec<u32>> = vec![Vec::new(); CONVERSATIONS];
    for step in steps {
        let c = step.conversation;
        let answer = std::mem::take(&mut answers[c]);
        if step.rewrite && !answer.is_empty() {
            histories[c].extend(&rewrite_with[..answer.len()]);
        } else {
            histories[c].extend(&answer);
        }
        histories[c].extend(&step.appended);
        answers[c] = request(&histories[c])?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn interleavings_generate_as_from_scratch_and_reuse_at_least_one_cache(script in script()) {
        let mut m = models(&TinySpec::llama(31));
        drive(&script, |prompt| {
            let expected = m.generated_afresh(prompt);
            let pooled = greedy(&mut m.pooled, prompt);
            let small = greedy(&mut m.small, prompt);
            let single = greedy(&mut m.single, prompt);
            prop_assert_eq!(&pooled.tokens, &expected.tokens);
            prop_assert_eq!(&small.tokens, &expected.tokens);
            prop_assert_eq!(&single.tokens, &expected.tokens);
            prop_assert!(
                pooled.stats.reused_tokens >= single.stats.reused_tokens,
                "pooled reused {} < one cache's {}", pooled.stats.reused_tokens, single.stats.reused_tokens
            );
            prop_assert!(small.stats.reused_tokens >= single.stats.reused_tokens);
            prop_assert!(pooled.stats.reused_tokens >= small.stats.reused_tokens);
            prop_assert_eq!(m.single.cached_sequences().len(), 1);
            Ok(expected.tokens)
        })?;
    }

    /// A hybrid model's Mamba-2 states resume only where a copy was kept:
    /// sequences cut back, forked and parked still generate as from an
    /// empty cache.
    #[test]
    fn hybrid_interleavings_generate_as_from_scratch(script in script()) {
        let mut m = models(&TinySpec::granite_h(31));
        drive(&script, |prompt| {
            let expected = m.generated_afresh(prompt);
            for session in [&mut m.pooled, &mut m.small, &mut m.single] {
                let out = greedy(session, prompt);
                prop_assert_eq!(&out.tokens, &expected.tokens);
            }
            prop_assert_eq!(m.single.cached_sequences().len(), 1);
            Ok(expected.tokens)
        })?;
    }
}
