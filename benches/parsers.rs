//! Tool-call parser throughput per format: one-shot `parse` and streaming
//! in 16-byte deltas (about the size of a few tokens), over ~64 KB outputs
//! made of prose and calls in each format.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tool_use::parse::{Collector, Format, ParseOptions};

/// One message's worth of output in each format: some prose and a call.
fn sample(format: Format) -> &'static str {
    match format {
        Format::Hermes => "Let me check the weather for you, it will take a second.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\", \"days\": [1, 2, 3]}}\n</tool_call>\n",
        Format::Llama3Json => "Let me check the weather for you, it will take a second. {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"unit\": \"celsius\", \"days\": [1, 2, 3]}}; ",
        Format::Mistral => "Let me check the weather for you, it will take a second.[TOOL_CALLS]get_weather[CALL_ID]abc123def[ARGS]{\"city\": \"Paris\", \"unit\": \"celsius\", \"days\": [1, 2, 3]}",
        Format::Pythonic => "Let me check the weather for you, it will take a second. [get_weather(city='Paris', unit='celsius', days=[1, 2, 3])] ",
        Format::Cohere => "<|START_THINKING|>Let me check the weather for you, it will take a second.<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}]<|END_ACTION|>",
        Format::Phi4Mini => "Let me check the weather for you, it will take a second. functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}] ",
        Format::Granite => "Let me check the weather for you, it will take a second. <|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}] ",
        Format::Granite20bFc => "Let me check the weather for you, it will take a second. <function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}} ",
        Format::Internlm2 => "Let me check the weather for you, it will take a second. <|action_start|><|plugin|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}<|action_end|>",
        Format::Xlam => "Let me check the weather for you, it will take a second. [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}] ",
        Format::Qwen3Xml => "Let me check the weather for you, it will take a second.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\n",
        Format::DeepseekV3 => "Let me check the weather for you, it will take a second.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\", \"unit\": \"celsius\"}\n```<｜tool▁call▁end｜>",
        Format::DeepseekV31 => "Let me check the weather for you, it will take a second.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\", \"unit\": \"celsius\"}<｜tool▁call▁end｜>",
        Format::KimiK2 => "Let me check the weather for you, it will take a second. <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\", \"unit\": \"celsius\"}<|tool_call_end|>",
        Format::FunctionGemma => "Let me check the weather for you, it will take a second. <start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>",
        Format::Harmony => "<|channel|>analysis<|message|>Let me check the weather for you, it will take a second.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\", \"unit\": \"celsius\"}<|call|><|start|>assistant",
        Format::MinimaxM2 => "Let me check the weather for you, it will take a second.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n</minimax:tool_call>",
        Format::NemotronV2 => "Let me check the weather for you, it will take a second.\n<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}]</TOOLCALL>\n",
        Format::FunctionaryV31 => "Let me check the weather for you, it will take a second.<function=get_weather>{\"city\": \"Paris\", \"unit\": \"celsius\"}</function>",
        Format::FunctionaryV32 => "all\nLet me check the weather for you, it will take a second.>>>get_weather\n{\"city\": \"Paris\", \"unit\": \"celsius\"}>>>",
        Format::Glm45 => "Let me check the weather for you, it will take a second.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        Format::SeedOss => "Let me check the weather for you, it will take a second.\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</seed:tool_call>",
        Format::Apertus => "Let me check the weather for you, it will take a second.<|tools_prefix|>[{\"get_weather\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}]<|tools_suffix|>",
        Format::Lfm2 => "Let me check the weather for you, it will take a second.<|tool_call_start|>[get_weather(city='Paris', unit='celsius', days=[1, 2, 3])]<|tool_call_end|>",
        Format::Generic => "{\"tool_call\": {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}}",
    }
}

/// ~64 KB of output. DeepSeek and Kimi drop text after their call section,
/// so their calls repeat inside one section rather than whole messages.
fn output(format: Format) -> String {
    let s = sample(format);
    let mut out = String::new();
    while out.len() < 64 * 1024 {
        out.push_str(s);
    }
    out
}

fn bench(c: &mut Criterion) {
    let options = ParseOptions {
        tools: tool_use::ToolDefinition::list_from_json(&[
            serde_json::json!({"type": "function", "function": {"name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}),
        ])
        .unwrap(),
        ..Default::default()
    };
    for format in Format::all() {
        let text = output(format);
        let mut g = c.benchmark_group(format.id());
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("one-shot", |b| {
            b.iter(|| black_box(format.parse(black_box(&text), &options)))
        });
        g.bench_function("stream-16B", |b| {
            b.iter(|| {
                let mut p = format.stream(&options);
                let mut col = Collector::default();
                let mut rest = text.as_str();
                while !rest.is_empty() {
                    let mut n = rest.len().min(16);
                    while !rest.is_char_boundary(n) {
                        n += 1;
                    }
                    col.extend(p.feed(&rest[..n]));
                    rest = &rest[n..];
                }
                col.extend(p.finish());
                black_box(col.finish())
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
