//! Cost of constrained decoding per token: `allowed()` (the mask, as a
//! `TokenSet`) then `commit()`, for a ~3k-token and a ~150k-token byte-level
//! vocabulary, in `auto` mode inside a hermes call and in free text.
//! Also prints one-off costs: building the token environment (once per
//! model) and compiling a tool grammar (once per request).
//!
//! Then, for every format (each in a ~3k-token vocabulary with its
//! markers, as the tests build them), the cost per token of a call a
//! random model wrote under `required`, against a decode step of the
//! bundled model measured in the same run.

#[path = "../tests/constrain_util/mod.rs"]
mod constrain_util;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tool_models::constrain::{TokenEnv, ToolConstraint};
use tool_models::generate::{GenerateOptions, Session, TokenConstraint};
use tool_models::model::Model;
use tool_models::parse::Format;
use tool_runtime::ToolChoice;

const TEXT: &str = "Sure, let me look that up for you. The weather in Paris is usually mild.";
/// A call of the kind most tools get: free strings, an enum, an integer.
const CALL: &str = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris, in the north of France\", \"unit\": \"celsius\", \"days\": 3}}</tool_call>";
/// A call whose string has a `maxLength` (with the end-marker pattern, the
/// slow case), plus numbers, a boolean, a list and a nested object.
const CALL_BOUNDED: &str = "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"weather in Paris today\", \"limit\": 5, \"exact\": true, \"tags\": [\"news\", \"web\"], \"point\": {\"lat\": 48.85, \"lon\": 2.35}}}</tool_call>";

fn steps(c: &mut dyn TokenConstraint, tokens: &[u32]) {
    for &t in tokens {
        black_box(c.allowed().unwrap());
        c.commit(t).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    for (label, size) in [("vocab-3k", 3_000), ("vocab-150k", 150_000)] {
        let t0 = Instant::now();
        let tok = constrain_util::tokenizer(size, constrain_util::SPECIALS, 7);
        let made = t0.elapsed();
        let eos = tok.token_to_id("<|im_end|>").unwrap();
        let t0 = Instant::now();
        let env = TokenEnv::new(&tok, &[eos]).unwrap();
        let env_time = t0.elapsed();
        let tools = constrain_util::definitions(&constrain_util::tools());
        let t0 = Instant::now();
        let fresh = ToolConstraint::new(&env, Format::Hermes, &tools, &ToolChoice::Auto).unwrap();
        let compile = t0.elapsed();
        eprintln!(
            "{label}: {} tokens; tokenizer built in {made:.2?}, TokenEnv::new {env_time:.2?}, \
             ToolConstraint::new (4 tools) {compile:.2?}",
            env.vocab_size()
        );

        let text: Vec<u32> = tok.encode(TEXT, false).unwrap().get_ids().to_vec();
        let call: Vec<u32> = tok.encode(CALL, false).unwrap().get_ids().to_vec();
        let bounded: Vec<u32> = tok.encode(CALL_BOUNDED, false).unwrap().get_ids().to_vec();
        // The state just before the call: after the free text.
        let mut before_call = fresh.clone();
        for &t in &text {
            before_call.commit(t).unwrap();
        }

        let mut g = c.benchmark_group(format!("constrain/{label}"));
        g.sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        for (name, start, tokens) in [
            ("auto-inside-call", &before_call, &call),
            ("auto-inside-call-maxlength", &before_call, &bounded),
            ("auto-free-text", &fresh, &text),
        ] {
            g.throughput(Throughput::Elements(tokens.len() as u64));
            g.bench_function(format!("{name} ({} tokens)", tokens.len()), |b| {
                b.iter_batched(
                    || start.clone(),
                    |mut c| steps(&mut c, tokens),
                    BatchSize::SmallInput,
                )
            });
        }
        g.finish();
    }
}

/// The bundled model's time per decoded token (greedy, 64 tokens after a
/// short prompt that is already cached), the median of five runs.
fn decode_step() -> Duration {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/tool-use-mini");
    let mut session = Session::new(Model::load(dir).expect("the bundled model loads"));
    let prompt = session
        .model()
        .tokenizer()
        .encode(
            "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n",
        )
        .expect("encodes");
    let options = GenerateOptions {
        ignore_eos: true,
        ..GenerateOptions::greedy(64)
    };
    let mut runs: Vec<Duration> = (0..6)
        .map(|_| {
            let t0 = Instant::now();
            session
                .generate(&prompt, &options, None, &mut |_| {})
                .expect("generates");
            t0.elapsed() / 64
        })
        .skip(1)
        .collect();
    runs.sort();
    runs[runs.len() / 2]
}

/// Per format: mask and commit per token over one call, as a share of a
/// decode step.
fn families(_: &mut Criterion) {
    use constrain_util::families::{vocab, CASES};
    let step = decode_step();
    eprintln!("bundled model: {step:.2?} per decoded token");
    let tools = constrain_util::definitions(&constrain_util::tools());
    for (i, case) in CASES.iter().enumerate() {
        let (tok, env, bias) = vocab(case);
        let f = case.format;
        let fresh = ToolConstraint::new(&env, f, &tools, &ToolChoice::Required).unwrap();
        // A call with arguments: the longest of a few the random model writes.
        let mut model = constrain_util::RandomModel::new(&tok, &env, &bias, 7 + i as u64);
        let call = (0..8)
            .map(|_| model.generate(&mut fresh.clone(), 400).0)
            .max_by_key(Vec::len)
            .unwrap_or_default();
        let reps = 20;
        let t0 = Instant::now();
        for _ in 0..reps {
            steps(&mut fresh.clone(), &call);
        }
        let per = t0.elapsed() / (reps * call.len().max(1) as u32);
        eprintln!(
            "{:<16} {:>4} tokens  {per:>9.2?} per token  {:.2}% of a decode step",
            f.id(),
            call.len(),
            100.0 * per.as_secs_f64() / step.as_secs_f64()
        );
    }
}

criterion_group!(benches, bench, families);
criterion_main!(benches);
