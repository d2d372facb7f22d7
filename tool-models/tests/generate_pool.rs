//! Several KV caches: interleaved conversations each continue their own
//! sequence, with the tokens a fresh computation gives, within the budget.

use tool_models::generate::{GenerateOptions, Generation, Session, DEFAULT_KV_BUDGET};
use tool_models::model::tiny::{write_tiny_model, TinySpec};
use tool_models::model::Model;

const CITIES: [&str; 3] = ["Paris", "Tokyo", "Lima"];

/// Tokens generated each round.
const NEW_TOKENS: usize = 6;

fn load(spec: &TinySpec, n: usize) -> (tempfile::TempDir, Vec<Session>) {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), spec).unwrap();
    let models = (0..n)
        .map(|_| Session::new(Model::load(tmp.path()).unwrap()))
        .collect();
    (tmp, models)
}

fn specs() -> [TinySpec; 2] {
    [TinySpec::llama(21), TinySpec::qwen2(22)]
}

fn encode(model: &Model, text: &str) -> Vec<u32> {
    model.tokenizer().encode(text).unwrap()
}

/// The first prompt of a conversation: the same system message for all,
/// then its own question.
fn opening(model: &Model, city: &str) -> Vec<u32> {
    encode(
        model,
        &format!(
            "<|im_start|>system\nYou answer with the tools you are given.<|im_end|>\n\
             <|im_start|>user\nWhat is the weather in {city}?<|im_end|>\n<|im_start|>assistant\n"
        ),
    )
}

/// What a client appends after the assistant turn: a tool result.
fn tool_result(model: &Model, round: usize) -> Vec<u32> {
    encode(
        model,
        &format!(
            "<|im_end|>\n<|im_start|>user\n<tool_response>\n{round}.5\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
        ),
    )
}

fn greedy(session: &mut Session, prompt: &[u32]) -> Generation {
    session
        .generate(
            prompt,
            &GenerateOptions::greedy(NEW_TOKENS),
            None,
            &mut |_| {},
        )
        .unwrap()
}

/// The generation from an empty cache.
fn fresh(session: &mut Session, prompt: &[u32]) -> Generation {
    session.reset_cache();
    greedy(session, prompt)
}

fn shared_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// What the KV cache holds after generating `out` from `prompt`: the
/// last generated token is sampled, never run.
fn held_after(prompt: &[u32], out: &Generation) -> Vec<u32> {
    let mut held = prompt.to_vec();
    held.extend(&out.tokens[..out.tokens.len() - 1]);
    held
}

/// The next request of a conversation: the previous one, the answer, a
/// tool result.
fn next_prompt(model: &Model, prompt: &[u32], out: &Generation, round: usize) -> Vec<u32> {
    let mut next = prompt.to_vec();
    next.extend(&out.tokens);
    next.extend(tool_result(model, round));
    next
}

#[test]
fn interleaved_conversations_reuse_their_own_history_with_fresh_outputs() {
    for spec in specs() {
        let (_tmp, mut models) = load(&spec, 3);
        let [pooled, single, reference] = &mut models[..] else {
            unreachable!()
        };
        assert_eq!(pooled.kv_budget(), DEFAULT_KV_BUDGET);
        single.set_kv_budget(0);
        let mut prompts: Vec<Vec<u32>> =
            CITIES.iter().map(|c| opening(pooled.model(), c)).collect();
        // What the single cache holds: the last request's sequence.
        let mut last_held: Vec<u32> = Vec::new();
        for round in 0..3 {
            for (c, prompt) in prompts.iter_mut().enumerate() {
                let out = greedy(pooled, prompt);
                let one = greedy(single, prompt);
                let expected = fresh(reference, prompt);
                assert_eq!(out.tokens, expected.tokens, "{:?} {c}/{round}", spec.arch);
                assert_eq!(one.tokens, expected.tokens, "{:?} {c}/{round}", spec.arch);

                let own_history = match round {
                    // The first question shares the system message with
                    // the conversation before it.
                    0 => shared_prefix(&last_held, prompt),
                    _ => prompt.len() - tool_result(pooled.model(), round - 1).len() - 1,
                };
                assert_eq!(
                    out.stats.reused_tokens, own_history,
                    "{:?} conversation {c} round {round}",
                    spec.arch
                );
                assert_eq!(
                    one.stats.reused_tokens,
                    shared_prefix(&last_held, prompt),
                    "{:?}: one cache reuses what the last request left",
                    spec.arch
                );
                if round > 0 {
                    assert!(one.stats.reused_tokens < own_history);
                }
                last_held = held_after(prompt, &out);
                *prompt = next_prompt(pooled.model(), prompt, &out, round);
            }
        }
        let sequences = pooled.cached_sequences();
        assert_eq!(sequences.len(), CITIES.len());
        assert!(sequences[0].active && !sequences[1].active);
        assert_eq!(sequences[0].tokens, last_held);
        assert_eq!(single.cached_sequences().len(), 1);
    }
}

/// Runs the first round of each conversation; returns the next prompts.
fn first_rounds(session: &mut Session, cities: &[&str]) -> Vec<Vec<u32>> {
    cities
        .iter()
        .map(|city| {
            let prompt = opening(session.model(), city);
            let out = greedy(session, &prompt);
            next_prompt(session.model(), &prompt, &out, 0)
        })
        .collect()
}

#[test]
fn the_least_recently_used_conversation_is_dropped_to_fit_the_budget() {
    let (_tmp, mut models) = load(&TinySpec::llama(23), 2);
    let [measured, limited] = &mut models[..] else {
        unreachable!()
    };
    first_rounds(measured, &CITIES);
    let all: usize = measured.cached_sequences().iter().map(|s| s.bytes).sum();
    // One byte short of the three conversations: the oldest must go.
    limited.set_kv_budget(all - 1);
    let next = first_rounds(limited, &CITIES);

    let tokyo = greedy(limited, &next[1]);
    assert_eq!(
        tokyo.stats.reused_tokens,
        next[1].len() - tool_result(limited.model(), 0).len() - 1,
        "a recent conversation continues its own history"
    );
    let sequences = limited.cached_sequences();
    assert_eq!(sequences.len(), 2, "{sequences:?}");
    let paris_first = opening(limited.model(), "Paris");
    assert!(
        sequences
            .iter()
            .all(|s| !s.tokens.starts_with(&paris_first)),
        "the oldest conversation was dropped"
    );
    assert!(sequences.iter().map(|s| s.bytes).sum::<usize>() < all);

    // The oldest one recomputes all but the system message it shares.
    let paris = greedy(limited, &next[0]);
    let system = shared_prefix(&paris_first, &opening(limited.model(), "Lima"));
    assert_eq!(paris.stats.reused_tokens, system);
    let expected = fresh(measured, &next[0]);
    assert_eq!(paris.tokens, expected.tokens);
}

#[test]
fn a_budget_of_zero_keeps_one_sequence() {
    let (_tmp, mut models) = load(&TinySpec::qwen2(24), 1);
    let session = &mut models[0];
    let next = first_rounds(session, &CITIES);
    assert_eq!(session.cached_sequences().len(), 3);
    let active = session.cached_tokens().to_vec();
    session.set_kv_budget(0);
    assert_eq!(session.kv_budget(), 0);
    let sequences = session.cached_sequences();
    assert_eq!(sequences.len(), 1, "the parked ones are dropped at once");
    assert_eq!(sequences[0].tokens, active, "the active one stays");

    // Paris's second round shares only the system message with Lima's.
    let out = greedy(session, &next[0]);
    assert_eq!(out.stats.reused_tokens, shared_prefix(&active, &next[0]));
    assert!(out.stats.reused_tokens < opening(session.model(), "Paris").len());
    assert_eq!(session.cached_sequences().len(), 1);
}

#[test]
fn reset_cache_drops_every_sequence_and_keeps_the_budget() {
    let (_tmp, mut models) = load(&TinySpec::llama(25), 1);
    let session = &mut models[0];
    session.set_kv_budget(1 << 20);
    let next = first_rounds(session, &CITIES[..2]);
    assert_eq!(session.cached_sequences().len(), 2);
    session.reset_cache();
    assert!(session.cached_sequences().is_empty());
    assert!(session.cached_tokens().is_empty());
    assert_eq!(session.kv_budget(), 1 << 20);
    let out = greedy(session, &next[0]);
    assert_eq!(out.stats.reused_tokens, 0);
}

#[test]
fn the_bytes_counted_cover_every_layers_keys_and_values() {
    let spec = TinySpec::llama(26);
    let (_tmp, mut models) = load(&spec, 1);
    let session = &mut models[0];
    first_rounds(session, &CITIES[..2]);
    let head_dim = spec.hidden_size / spec.num_heads;
    let per_token = spec.num_layers * 2 * spec.num_kv_heads * head_dim * 4;
    for sequence in session.cached_sequences() {
        assert!(
            sequence.bytes >= sequence.tokens.len() * per_token,
            "{} bytes for {} tokens",
            sequence.bytes,
            sequence.tokens.len()
        );
    }
}
