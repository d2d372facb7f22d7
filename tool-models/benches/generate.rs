//! Local generation on seeded random-weight Llamas: prefill and decode
//! throughput, time to first token, and the prefix-reuse saving over a
//! 3-round agent conversation.
//!
//! Two models: the test-sized one (hidden 64, 2 layers) and a larger one
//! (hidden 256, 6 layers, ~5M parameters, near the bundled model's size),
//! both with the tiny byte-level tokenizer. The prompt is the tiny chat
//! template rendered with two tool schemas (~900 tokens: the tiny tokenizer
//! has few merges, about the size of
//! the `tool-use chat` system prompt).
//!
//! `cargo bench -p tool-models --bench generate`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::json;
use std::time::Duration;
use tool_models::generate::{GenerateOptions, Session};
use tool_models::model::tiny::{write_tiny_model, TinySpec};
use tool_models::model::Model;
use tool_models::template::RenderOptions;
use tool_runtime::Message;

const DECODE_TOKENS: usize = 32;

fn models() -> Vec<(&'static str, TinySpec)> {
    vec![
        (
            "tiny-64x2",
            TinySpec {
                max_position_embeddings: 4096,
                ..TinySpec::llama(1)
            },
        ),
        (
            "small-256x6",
            TinySpec {
                hidden_size: 256,
                intermediate_size: 688,
                num_layers: 6,
                num_heads: 8,
                num_kv_heads: 4,
                max_position_embeddings: 4096,
                ..TinySpec::llama(1)
            },
        ),
    ]
}

fn load(spec: &TinySpec) -> (tempfile::TempDir, Session) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    write_tiny_model(tmp.path(), spec).expect("the model is written");
    let session = Session::new(Model::load(tmp.path()).expect("the model loads"));
    (tmp, session)
}

/// The first round's prompt: a system turn with two tool schemas and a question.
fn first_prompt(model: &Model) -> Vec<u32> {
    let tool = |name: &str, what: &str| {
        json!({"type": "function", "function": {
            "name": name,
            "description": format!("Get the current {what} at a location."),
            "parameters": {"type": "object", "properties": {
                "location": {"type": "string", "description": "The location, in the format \"City, Country\""},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "The unit to return it in."}
            }, "required": ["location", "unit"]}
        }})
    };
    let tools = [
        tool("get_current_temperature", "temperature"),
        tool("get_current_wind_speed", "wind speed"),
    ];
    let messages = [
        Message::system("You are a helpful assistant. Use the tools when they help."),
        Message::user("Hey, what's the temperature in Paris right now?"),
    ];
    let text = model
        .chat_template()
        .expect("a chat template")
        .render(
            &RenderOptions::new(&messages)
                .tools(&tools)
                .add_generation_prompt(true),
        )
        .expect("the template renders")
        .text;
    model.tokenizer().encode(&text).expect("the prompt encodes")
}

fn options(max_new_tokens: usize) -> GenerateOptions {
    GenerateOptions {
        ignore_eos: true,
        ..GenerateOptions::greedy(max_new_tokens)
    }
}

/// Runs three agent rounds: each next prompt is the previous prompt, the
/// generated tokens and a tool result. Returns (prompt tokens, reused tokens).
fn three_rounds(session: &mut Session, first: &[u32], reuse: bool) -> (usize, usize) {
    let tool_turn = session
        .model().tokenizer()
        .encode("<|im_end|>\n<|im_start|>user\n<tool_response>\n{\"temperature\": 22.0}\n</tool_response><|im_end|>\n<|im_start|>assistant\n")
        .expect("encodes");
    let mut prompt = first.to_vec();
    let (mut total, mut reused) = (0, 0);
    for _ in 0..3 {
        if !reuse {
            session.reset_cache();
        }
        let out = session
            .generate(&prompt, &options(DECODE_TOKENS), None, &mut |_| {})
            .expect("generates");
        total += out.stats.prompt_tokens;
        reused += out.stats.reused_tokens;
        prompt.extend(&out.tokens);
        prompt.extend(&tool_turn);
    }
    (total, reused)
}

fn bench(c: &mut Criterion) {
    for (label, spec) in models() {
        let (_tmp, mut session) = load(&spec);
        let prompt = first_prompt(session.model());
        eprintln!(
            "{label}: {} parameters, prompt of {} tokens",
            session.model().parameter_count().unwrap_or(0),
            prompt.len()
        );
        let mut group = c.benchmark_group(format!("generate/{label}"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));

        group.throughput(Throughput::Elements(prompt.len() as u64));
        group.bench_function(BenchmarkId::new("prefill", prompt.len()), |b| {
            b.iter(|| {
                session.reset_cache();
                session.logits(&prompt).expect("runs")
            })
        });

        group.throughput(Throughput::Elements(1));
        group.bench_function("time to first token", |b| {
            b.iter(|| {
                session.reset_cache();
                session
                    .generate(&prompt, &options(1), None, &mut |_| {})
                    .expect("generates")
            })
        });

        // The prompt is reused from the cache, so this is decoding only.
        group.throughput(Throughput::Elements(DECODE_TOKENS as u64));
        group.bench_function(BenchmarkId::new("decode", DECODE_TOKENS), |b| {
            b.iter(|| {
                session
                    .generate(&prompt, &options(DECODE_TOKENS), None, &mut |_| {})
                    .expect("generates")
            })
        });

        session.reset_cache();
        let (total, reused) = three_rounds(&mut session, &prompt, true);
        eprintln!(
            "{label}: 3 rounds of {DECODE_TOKENS} tokens: {total} prompt tokens, {reused} reused ({:.0}%)",
            100.0 * reused as f64 / total as f64
        );
        group.throughput(Throughput::Elements(3));
        for (name, reuse) in [
            ("3 rounds, prefix reuse", true),
            ("3 rounds, recompute", false),
        ] {
            group.bench_function(name, |b| {
                b.iter(|| {
                    session.reset_cache();
                    three_rounds(&mut session, &prompt, reuse)
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
