//! The KV cache: incremental decoding and prefix reuse give the same logits
//! and tokens as recomputing from scratch.

mod common;

use common::max_diff;
use tool_models::generate::{GenerateOptions, Generation, Session, StopReason};
use tool_models::model::tiny::{write_tiny_model, TinyArch, TinySpec};
use tool_models::model::Model;

const TOLERANCE: f32 = 1e-4;

fn load(spec: &TinySpec) -> (tempfile::TempDir, Session, Session) {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), spec).unwrap();
    let a = Session::new(Model::load(tmp.path()).unwrap());
    let b = Session::new(Model::load(tmp.path()).unwrap());
    (tmp, a, b)
}

fn specs() -> [TinySpec; 4] {
    [
        TinySpec::llama(11),
        TinySpec::qwen2(12),
        // Convolutions and Mamba-2 layers: caches that hold more than keys
        // and values.
        TinySpec::lfm2(13),
        TinySpec::granite_h(14),
    ]
}

/// Each of [`specs`] loaded twice (a session to test and a reference), and
/// [`prompt`] in its tokens; with the folder, kept while they are used.
fn models() -> impl Iterator<Item = (tempfile::TempDir, TinySpec, Session, Session, Vec<u32>)> {
    specs().into_iter().map(|spec| {
        let (tmp, session, reference) = load(&spec);
        let prompt = prompt(session.model());
        (tmp, spec, session, reference, prompt)
    })
}

fn prompt(model: &Model) -> Vec<u32> {
    model
        .tokenizer()
        .encode(
            "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n",
        )
        .unwrap()
}

/// Logits of `tokens` computed from an empty cache.
/// `n` greedy tokens after `prompt`.
fn greedy(session: &mut Session, prompt: &[u32], n: usize) -> Generation {
    session
        .generate(prompt, &GenerateOptions::greedy(n), None, &mut |_| {})
        .unwrap()
}

fn fresh(session: &mut Session, tokens: &[u32]) -> Vec<f32> {
    session.reset_cache();
    session.logits(tokens).unwrap()
}

/// `session`'s logits of `tokens`, from what it has cached, match
/// `reference`'s from an empty cache.
fn assert_cached_logits_fresh(
    session: &mut Session,
    reference: &mut Session,
    tokens: &[u32],
    spec: &TinySpec,
) {
    let d = max_diff(&session.logits(tokens).unwrap(), &fresh(reference, tokens));
    assert!(d < TOLERANCE, "{:?}: logits differ by {d}", spec.arch);
}

#[test]
fn incremental_decoding_equals_full_recomputation_at_every_step() {
    for (_tmp, spec, mut cached, mut full, mut tokens) in models() {
        let out = greedy(&mut cached, &tokens, 24);
        tokens.extend(&out.tokens);
        cached.reset_cache();
        // Each step feeds one token to the cache; `full` recomputes all.
        let start = 5;
        cached.logits(&tokens[..start]).unwrap();
        for end in start + 1..=tokens.len() {
            let step = cached.logits(&tokens[..end]).unwrap();
            assert_eq!(cached.cached_tokens(), &tokens[..end]);
            let d = max_diff(&step, &fresh(&mut full, &tokens[..end]));
            assert!(
                d < TOLERANCE,
                "{:?} step {end}: logits differ by {d}",
                spec.arch
            );
        }
    }
}

#[test]
fn generation_with_the_cache_matches_greedy_recomputation() {
    for (_tmp, spec, mut session, mut reference, prompt) in models() {
        let out = greedy(&mut session, &prompt, 16);
        // Greedy by hand, recomputing the whole sequence for every token.
        let mut seq = prompt.clone();
        for &token in &out.tokens {
            let logits = fresh(&mut reference, &seq);
            let best = (0..logits.len())
                .max_by(|&a, &b| logits[a].total_cmp(&logits[b]).then(b.cmp(&a)))
                .unwrap() as u32;
            assert_eq!(token, best, "{:?}", spec.arch);
            seq.push(token);
        }
    }
}

#[test]
fn long_prompts_are_prefilled_in_chunks_with_the_same_logits() {
    for (_tmp, spec, mut chunked, mut stepped, _) in models() {
        // 700 tokens: more than one prefill chunk.
        let tokens: Vec<u32> = (0..700u32).map(|i| (i * 37 + 11) % 256).collect();
        let whole = chunked.logits(&tokens).unwrap();
        stepped.logits(&tokens[..1]).unwrap();
        for end in 2..=tokens.len() {
            stepped.logits(&tokens[..end]).unwrap();
        }
        let d = max_diff(&whole, &stepped.logits(&tokens).unwrap());
        assert!(d < TOLERANCE, "{:?}: logits differ by {d}", spec.arch);
    }
}

#[test]
fn a_prompt_extending_the_last_generation_reuses_all_of_it() {
    for (_tmp, spec, mut session, mut reference, first) in models() {
        let out1 = greedy(&mut session, &first, 10);
        assert_eq!(out1.stats.reused_tokens, 0);
        assert_eq!(out1.stop_reason, StopReason::MaxTokens);
        // The next round: the conversation so far plus a tool result.
        let mut second = first.clone();
        second.extend(&out1.tokens);
        second.extend(
            session
                .model().tokenizer()
                .encode("<|im_end|>\n<|im_start|>user\n<tool_response>\n22.0\n</tool_response><|im_end|>\n<|im_start|>assistant\n")
                .unwrap(),
        );
        let out2 = greedy(&mut session, &second, 10);
        // The last generated token was sampled but never run through the session.
        assert_eq!(
            out2.stats.reused_tokens,
            first.len() + out1.tokens.len() - 1
        );
        let expected = greedy(&mut reference, &second, 10);
        assert_eq!(expected.stats.reused_tokens, 0);
        assert_eq!(out2.tokens, expected.tokens, "{:?}", spec.arch);
        assert_eq!(out2.text, expected.text);
        assert_cached_logits_fresh(&mut session, &mut reference, &second, &spec);
    }
}

#[test]
fn a_prompt_extending_only_the_last_prompt_restarts_from_the_snapshot() {
    for (_tmp, spec, mut session, mut reference, first) in models() {
        let out1 = greedy(&mut session, &first, 8);
        // The assistant turn re-rendered differently from what was generated.
        let mut second = first.clone();
        let other = session
            .model()
            .tokenizer()
            .encode("Sure.<|im_end|>\n<|im_start|>user\nThanks<|im_end|>\n<|im_start|>assistant\n")
            .unwrap();
        assert_ne!(other[0], out1.tokens[0], "the test needs a diverging turn");
        second.extend(&other);
        let out2 = greedy(&mut session, &second, 8);
        assert_eq!(out2.stats.reused_tokens, first.len(), "{:?}", spec.arch);
        let expected = greedy(&mut reference, &second, 8);
        assert_eq!(out2.tokens, expected.tokens, "{:?}", spec.arch);
        assert_cached_logits_fresh(&mut session, &mut reference, &second, &spec);

        // An unrelated prompt recomputes from scratch.
        let unrelated = session.model().tokenizer().encode("Hello").unwrap();
        let out3 = greedy(&mut session, &unrelated, 4);
        assert_eq!(out3.stats.reused_tokens, 0);
        let expected = greedy(&mut reference, &unrelated, 4);
        assert_eq!(out3.tokens, expected.tokens);
    }
}

#[test]
fn the_same_prompt_twice_reuses_everything_and_repeats_the_output() {
    let (_tmp, mut session, _) = load(&TinySpec::qwen2(2));
    let p = prompt(session.model());
    let a = greedy(&mut session, &p, 6);
    let b = greedy(&mut session, &p, 6);
    assert_eq!(b.stats.reused_tokens, p.len());
    assert_eq!(a.tokens, b.tokens);
}

#[test]
fn a_prompt_diverging_inside_the_cache_keeps_the_shared_prefix() {
    for (_tmp, spec, mut session, mut reference, first) in models() {
        greedy(&mut session, &first, 8);
        // The same conversation with the question edited near its end:
        // everything before the edit comes from the cache.
        let edited = session
            .model()
            .tokenizer()
            .encode(
                "<|im_start|>user\nWhat is the weather in Oslo?<|im_end|>\n<|im_start|>assistant\n",
            )
            .unwrap();
        let shared = first
            .iter()
            .zip(&edited)
            .take_while(|(a, b)| a == b)
            .count();
        assert!(
            shared > 5 && shared < first.len(),
            "the test needs a late edit"
        );
        let out = greedy(&mut session, &edited, 8);
        // A Mamba-2 state is kept only after each prompt (and every 256
        // positions), so the edit reruns the prompt from its start.
        let resumable = match spec.arch {
            TinyArch::GraniteH => 0,
            _ => shared,
        };
        assert_eq!(out.stats.reused_tokens, resumable, "{:?}", spec.arch);
        assert_eq!(session.cached_tokens()[..edited.len()], edited[..]);
        let expected = greedy(&mut reference, &edited, 8);
        assert_eq!(out.tokens, expected.tokens, "{:?}", spec.arch);

        // A prompt that is a prefix of what the cache holds runs only its
        // last token again, for the logits after it.
        let prefix = &edited[..edited.len() - 2];
        let d = max_diff(
            &session.logits(prefix).unwrap(),
            &fresh(&mut reference, prefix),
        );
        assert!(d < TOLERANCE, "{:?}: logits differ by {d}", spec.arch);
        assert_eq!(session.cached_tokens(), prefix);
    }
}

/// An f16 cache (llama.cpp's default) rounds each key and value to 11
/// significant bits: logits stay within that rounding of the f32 cache's,
/// a prompt run whole equals it run token by token (both read the same
/// f16 rows), and a position takes half the bytes of keys and values.
#[test]
fn an_f16_cache_stays_within_its_rounding_and_halves_the_bytes() {
    use tool_models::model::{CacheType, LoadOptions};
    for spec in specs() {
        let tmp = tempfile::tempdir().unwrap();
        write_tiny_model(tmp.path(), &spec).unwrap();
        let half = LoadOptions::default().cache_type(CacheType::F16);
        let f16 = Model::load_with(tmp.path(), &half).unwrap();
        assert_eq!(f16.cache_type(), CacheType::F16);
        let f32 = Model::load(tmp.path()).unwrap();
        let prompt = prompt(&f32);
        let attention = spec.attention_layers().iter().filter(|a| **a).count();
        let kv = 2 * spec.num_kv_heads * spec.head_dim();
        let saved = f32.kv_bytes_per_position().unwrap() - f16.kv_bytes_per_position().unwrap();
        assert_eq!(
            saved,
            attention * kv * 2,
            "{spec:?}: two bytes saved per value"
        );

        let exact = Session::new(f32).logits(&prompt).unwrap();
        let mut whole = Session::new(f16);
        let rounded = whole.logits(&prompt).unwrap();
        let range = exact.iter().fold(0f32, |m, x| m.max(x.abs()));
        let diff = max_diff(&exact, &rounded);
        assert!(diff > 0.0, "{spec:?}: the f16 cache changed nothing");
        assert!(
            diff <= 1e-2 * range,
            "{spec:?}: {diff} against logits up to {range}"
        );

        let mut stepwise = Session::new(whole.model().clone());
        let mut last = Vec::new();
        for i in 0..prompt.len() {
            last = stepwise.logits(&prompt[..=i]).unwrap();
        }
        assert!(
            max_diff(&rounded, &last) <= TOLERANCE,
            "{spec:?}: whole vs step by step"
        );
    }
}
