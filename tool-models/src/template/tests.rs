//! Tests of the public template API: Python parity, loaders, generation
//! spans, input normalisation and the limits on adversarial templates.

use super::tojson::{dumps, JsonStyle};
use super::*;
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tool_runtime::{Message, ToolCall};

fn render(source: &str, kwargs: Json) -> Result<String, TemplateError> {
    ChatTemplate::new(source)?.render_json(&kwargs)
}

fn ok(source: &str, kwargs: Json) -> String {
    render(source, kwargs).unwrap_or_else(|e| panic!("{source:?} failed: {e}"))
}

fn frozen() -> Clock {
    Clock::Fixed(DateTime::parse("2026-01-15T10:30:00").unwrap())
}

/// A directory of its own under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "tool-models-template-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// --- tojson -----------------------------------------------------------------

#[test]
fn tojson_matches_python_json_dumps() {
    let cases = [
        (json!(1e20), "1e+20"),
        (json!(1.0), "1.0"),
        (json!(1e-7), "1e-07"),
        (json!(-0.0), "-0.0"),
        (json!(0.5), "0.5"),
        (json!(123456789012345678_i64), "123456789012345678"),
        (json!(18446744073709551615_u64), "18446744073709551615"),
        (
            json!("naïve “quotes” \"x\" \\ \n\t\u{1} </b> 日本"),
            r#""naïve “quotes” \"x\" \\ \n\t\u0001 </b> 日本""#,
        ),
        (
            json!({"b": [1, {"c": null}], "a": true}),
            r#"{"b": [1, {"c": null}], "a": true}"#,
        ),
        (json!([]), "[]"),
        (json!({}), "{}"),
    ];
    for (value, want) in cases {
        let got = ok("{{ x|tojson }}", json!({"x": value}));
        assert_eq!(got, want, "tojson of {value}");
    }
}

#[test]
fn tojson_takes_indent_separators_and_sort_keys() {
    let x = json!({"b": [1, 2], "a": {}, "c": "é"});
    let kw = |expr: &str| ok(&format!("{{{{ x|tojson({expr}) }}}}"), json!({"x": x}));
    assert_eq!(
        kw("indent=2"),
        "{\n  \"b\": [\n    1,\n    2\n  ],\n  \"a\": {},\n  \"c\": \"é\"\n}"
    );
    assert_eq!(kw("separators=(',', ':')"), r#"{"b":[1,2],"a":{},"c":"é"}"#);
    assert_eq!(kw("sort_keys=true"), r#"{"a": {}, "b": [1, 2], "c": "é"}"#);
    assert_eq!(
        kw("ensure_ascii=true"),
        r#"{"b": [1, 2], "a": {}, "c": "\u00e9"}"#
    );
    assert_eq!(
        kw("indent='\\t', sort_keys=true").lines().nth(1),
        Some("\t\"a\": {},")
    );
    assert_eq!(
        dumps(&minijinja::Value::from(2.5), &JsonStyle::default()).unwrap(),
        "2.5"
    );
    assert!(render("{{ x|tojson(indent=[1]) }}", json!({"x": 1})).is_err());
    assert!(render("{{ undefined_thing|tojson }}", json!({})).is_err());
}

#[test]
fn prints_values_as_python_does() {
    let kwargs = json!({"x": {"a": [1, 2.0, true, null]}, "f": 1e20, "b": false});
    assert_eq!(
        ok("{{ x }} {{ f }} {{ b }} {{ none }} {{ tools }}", kwargs),
        "{'a': [1, 2.0, True, None]} 1e+20 False None None"
    );
}

// --- environment ------------------------------------------------------------

#[test]
fn trims_blocks_and_strips_leading_space_like_transformers() {
    let src = "{% for m in messages %}\n    {% if true %}\n[{{ m.content }}]\n    {% endif %}\n{% endfor %}\n";
    let kwargs =
        json!({"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]});
    assert_eq!(ok(src, kwargs), "[a]\n[b]\n");
}

#[test]
fn python_methods_and_loop_controls_work() {
    let src = "{% for w in s.split(' ') %}{% if loop.index > 2 %}{% break %}{% endif %}\
               {{ w.upper() }}{% endfor %}|{{ d.get('k', 'none') }}|{% for k, v in d.items() %}{{ k }}={{ v }}{% endfor %}\
               |{{ s.startswith('hello') }}|{{ '  x '.strip() }}";
    assert_eq!(
        ok(src, json!({"s": "hello big world", "d": {"a": 1}})),
        "HELLOBIG|none|a=1|True|x"
    );
}

#[test]
fn dict_attributes_shadow_keys_as_in_jinja2() {
    // `schema.items` is the dict method in Jinja2; `schema['items']` the key.
    let kwargs = json!({"s": {"type": "array", "items": {"type": "string"}}});
    assert_eq!(
        ok(
            "{{ s['items'].type }}|{{ s.items.type is defined }}|{{ s.type }}",
            kwargs
        ),
        "string|False|array"
    );
}

#[test]
fn appending_to_a_list_fails() {
    let err = render("{% set xs = [] %}{{ xs.append(1) }}", json!({})).unwrap_err();
    assert!(err.to_string().contains("immutable"), "{err}");
    let err = render("{{ messages.append(1) }}", json!({"messages": []})).unwrap_err();
    assert!(matches!(err, TemplateError::Render { .. }), "{err}");
    assert!(render("{% set d = {} %}{{ d.update({'a': 1}) }}", json!({})).is_err());
}

#[test]
fn raise_exception_is_an_error_with_its_message() {
    let err = render(
        "{{ raise_exception('Only user and assistant roles!') }}",
        json!({}),
    )
    .unwrap_err();
    match err {
        TemplateError::Raised(message) => assert_eq!(message, "Only user and assistant roles!"),
        other => panic!("expected Raised, found {other:?}"),
    }
}

#[test]
fn syntax_errors_name_the_line() {
    let err = ChatTemplate::new("line one\n{% if x %}\n{% endfor %}").unwrap_err();
    match &err {
        TemplateError::Syntax { line, .. } => assert_eq!(*line, Some(3), "{err}"),
        other => panic!("expected a syntax error, found {other:?}"),
    }
    assert!(err.to_string().contains("line 3"), "{err}");
}

#[test]
fn strftime_now_reads_the_injected_clock() {
    let t = ChatTemplate::new("{{ strftime_now('%d %b %Y') }} {{ strftime_now('%H:%M') }}")
        .unwrap()
        .with_clock(frozen());
    assert_eq!(t.render_json(&json!({})).unwrap(), "15 Jan 2026 10:30");
    let other = Clock::Fixed(DateTime::parse("1999-12-31T23:59:00").unwrap());
    let r = t.render(&RenderOptions::default().clock(other)).unwrap();
    assert_eq!(r.text, "31 Dec 1999 23:59");
}

// --- inputs -----------------------------------------------------------------

#[test]
fn null_message_keys_stay_none_and_tools_default_to_none() {
    let src = "{% for m in messages %}{{ m.role }}:{{ m.content is defined }}:{{ m.content is none }};{% endfor %}\
               {{ tools is none }} {{ documents is none }} {{ add_generation_prompt }}";
    let kwargs = json!({"messages": [{"role": "assistant", "content": null, "tool_calls": [1]}]});
    assert_eq!(ok(src, kwargs), "assistant:True:True;True True False");
    // A typed message leaves an absent field out.
    let template = ChatTemplate::new(src).unwrap();
    let call = ToolCall::new("call_0", "f", json!({}));
    let text = template
        .render(&RenderOptions::new(&[Message::assistant_calls(
            None,
            vec![call],
        )]))
        .unwrap()
        .text;
    assert!(text.starts_with("assistant:False:False;"), "{text}");
    // Python cannot iterate None; neither can we.
    assert!(render("{% for t in tools %}{% endfor %}", json!({})).is_err());
    assert!(render("{% for t in tools %}{% endfor %}", json!({"tools": null})).is_err());
    assert_eq!(
        ok(
            "{% for t in tools %}{{ t }}{% endfor %}",
            json!({"tools": []})
        ),
        ""
    );
}

#[test]
fn reasoning_is_passed_under_both_names_as_transformers_does() {
    let src = "{% for m in messages %}{{ m|tojson }}\n{% endfor %}";
    let kwargs = json!({"messages": [
        {"role": "assistant", "content": "a", "reasoning": "r1"},
        {"role": "assistant", "reasoning_content": "r2", "content": "b", "thinking": "t"},
        {"role": "user", "content": "c", "thinking": null},
    ]});
    assert_eq!(
        ok(src, kwargs),
        "{\"thinking\": \"r1\", \"role\": \"assistant\", \"content\": \"a\", \"reasoning\": \"r1\", \"reasoning_content\": \"r1\"}\n\
         {\"thinking\": \"t\", \"role\": \"assistant\", \"reasoning_content\": \"r2\", \"content\": \"b\"}\n\
         {\"role\": \"user\", \"content\": \"c\", \"thinking\": null}\n"
    );
}

#[test]
fn typed_messages_and_tools_render() {
    let template = ChatTemplate::new(
        "{% for m in messages %}{{ m.role }}|{% if m.tool_calls %}{{ m.tool_calls[0].function.arguments|tojson }}\
         {% else %}{{ m.content }}{% endif %}{{ '\\n' }}{% endfor %}{{ tools|length }}{{ bos_token }}{{ flag }}",
    )
    .unwrap();
    let call = ToolCall::new("c1", "get_weather", json!({"city": "Paris"}));
    let messages = [
        Message::user("Hi"),
        Message::assistant_calls(None, vec![call]),
        Message::tool("c1", "get_weather", "22"),
    ];
    let tools = [json!({"type": "function", "function": {"name": "get_weather"}})];
    let tokens = [("bos_token".to_owned(), "<s>".to_owned())]
        .into_iter()
        .collect();
    let options = RenderOptions::new(&messages)
        .tools(&tools)
        .special_tokens(&tokens)
        .var("flag", true);
    let r = template.render(&options).unwrap();
    assert_eq!(
        r.text,
        "user|Hi\nassistant|{\"city\": \"Paris\"}\ntool|22\n1<s>True"
    );
}

#[test]
fn continue_final_message_cuts_after_the_final_text() {
    let template = ChatTemplate::new(
        "{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}",
    )
    .unwrap();
    let messages = [Message::user("Hi"), Message::assistant("The answer is")];
    let r = template
        .render(&RenderOptions::new(&messages).continue_final_message(true))
        .unwrap();
    assert_eq!(r.text, "<user>Hi</user><assistant>The answer is");
    let via_json = template
        .render_json(&json!({"messages": [{"role": "user", "content": "x "}], "continue_final_message": true}))
        .unwrap();
    assert_eq!(via_json, "<user>x ");
}

// --- generation spans -------------------------------------------------------

#[test]
fn generation_blocks_report_assistant_spans() {
    let src = "{% for m in messages %}{% if m.role == 'assistant' %}A: {% generation %}{{ m.content }}{% endgeneration %}{{ '\\n' }}\
               {%- else %}U: {{ m.content }}{{ '\\n' }}{% endif %}{% endfor %}";
    let template = ChatTemplate::new(src).unwrap();
    assert!(template.has_generation_blocks());
    let messages = [
        Message::user("héllo"),
        Message::assistant("wörld"),
        Message::user("again"),
        Message::assistant("ok"),
    ];
    let r = template.render(&RenderOptions::new(&messages)).unwrap();
    assert_eq!(r.text, "U: héllo\nA: wörld\nU: again\nA: ok\n");
    let spans: Vec<&str> = r.generation.iter().map(|s| &r.text[s.clone()]).collect();
    assert_eq!(spans, ["wörld", "ok"]);
    // Char ranges, as transformers reports them.
    assert_eq!(r.generation_char_ranges()[0], 12..17);
    // Without assistant messages there is nothing to report, and no markers leak.
    let r = template
        .render(&RenderOptions::new(&messages[..1]))
        .unwrap();
    assert!(r.generation.is_empty());
    assert_eq!(r.text, "U: héllo\n");
}

#[test]
fn generation_tags_keep_whitespace_control() {
    let src = "{%- for m in messages %}\n  {%- generation -%}\n   {{ m.content }}\n  {%- endgeneration %}\n{% endfor -%}";
    let template = ChatTemplate::new(src).unwrap();
    let r = template
        .render(&RenderOptions::new(&[Message::assistant("x")]))
        .unwrap();
    assert_eq!(r.text, "x");
    assert_eq!(r.generation, vec![0..1]);
}

// --- loaders ----------------------------------------------------------------

#[test]
fn loads_a_jinja_file_and_tokenizer_configs() {
    let dir = TempDir::new("loaders");
    let jinja = dir.0.join("t.jinja");
    std::fs::write(&jinja, "{{ bos_token }}J").unwrap();
    let m = ModelTemplates::load(&jinja).unwrap();
    assert_eq!(m.select(None, false).unwrap(), "{{ bos_token }}J");

    let config = dir.0.join("tokenizer_config.json");
    std::fs::write(
        &config,
        r#"{"chat_template": "S", "bos_token": "<s>", "eos_token": {"content": "</s>", "lstrip": false}, "model_max_length": 5}"#,
    )
    .unwrap();
    let m = ModelTemplates::load(&config).unwrap();
    assert_eq!(m.select(None, true).unwrap(), "S");
    assert_eq!(m.special_tokens["bos_token"], "<s>");
    assert_eq!(m.special_tokens["eos_token"], "</s>");
    assert_eq!(m.special_tokens.len(), 2);

    std::fs::write(
        &config,
        r#"{"chat_template": [{"name": "default", "template": "D"}, {"name": "tool_use", "template": "T"}, {"name": "rag", "template": "R"}]}"#,
    )
    .unwrap();
    let m = ModelTemplates::load(&config).unwrap();
    assert_eq!(m.select(None, false).unwrap(), "D");
    assert_eq!(m.select(None, true).unwrap(), "T");
    assert_eq!(m.select(Some("rag"), false).unwrap(), "R");
    let err = m.select(Some("nope"), false).unwrap_err().to_string();
    assert!(err.contains("\"nope\"") && err.contains("rag"), "{err}");

    // No chat_template key: the chat_template.jinja beside it.
    std::fs::write(&config, r#"{"bos_token": "<s>"}"#).unwrap();
    let err = ModelTemplates::load(&config).unwrap_err().to_string();
    assert!(err.contains("chat_template"), "{err}");
    std::fs::write(dir.0.join("chat_template.jinja"), "FROM FILE").unwrap();
    assert_eq!(
        ModelTemplates::load(&config)
            .unwrap()
            .select(None, false)
            .unwrap(),
        "FROM FILE"
    );

    // A model directory: chat_template.jinja wins, tokens from the config.
    std::fs::write(&config, r#"{"chat_template": "OLD", "eos_token": "<e>"}"#).unwrap();
    let m = ModelTemplates::load(&dir.0).unwrap();
    assert_eq!(m.select(None, false).unwrap(), "FROM FILE");
    assert_eq!(m.special_tokens["eos_token"], "<e>");
    let compiled = m.compile(None, false).unwrap();
    assert_eq!(compiled.render_json(&json!({})).unwrap(), "FROM FILE");
}

#[test]
fn loader_errors_say_what_was_wrong() {
    let dir = TempDir::new("loader-errors");
    let missing = dir.0.join("missing.jinja");
    assert!(matches!(
        ModelTemplates::load(&missing),
        Err(TemplateError::Io { .. })
    ));
    let bad = dir.0.join("tokenizer_config.json");
    std::fs::write(&bad, "{not json").unwrap();
    assert!(matches!(
        ModelTemplates::load(&bad),
        Err(TemplateError::Json { .. })
    ));
    std::fs::write(&bad, r#"{"chat_template": 42}"#).unwrap();
    let err = ModelTemplates::load(&bad).unwrap_err().to_string();
    assert!(
        err.contains("expected \"chat_template\" to be a string"),
        "{err}"
    );
    let empty = TempDir::new("loader-empty");
    assert!(matches!(
        ModelTemplates::load(&empty.0),
        Err(TemplateError::NoTemplate { .. })
    ));
}

/// A GGUF v3 writer just big enough for the tests.
fn gguf_bytes(entries: &[(&str, GgufValue)]) -> Vec<u8> {
    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn value(out: &mut Vec<u8>, v: &GgufValue, with_type: bool) {
        let ty: u32 = match v {
            GgufValue::Uint(_) => 4,
            GgufValue::Int(_) => 11,
            GgufValue::Float(_) => 12,
            GgufValue::Bool(_) => 7,
            GgufValue::String(_) => 8,
            GgufValue::Array(_) => 9,
        };
        if with_type {
            out.extend_from_slice(&ty.to_le_bytes());
        }
        match v {
            GgufValue::Uint(u) => out.extend_from_slice(&(*u as u32).to_le_bytes()),
            GgufValue::Int(i) => out.extend_from_slice(&i.to_le_bytes()),
            GgufValue::Float(f) => out.extend_from_slice(&f.to_le_bytes()),
            GgufValue::Bool(b) => out.push(u8::from(*b)),
            GgufValue::String(s) => string(out, s),
            GgufValue::Array(items) => {
                out.extend_from_slice(&8u32.to_le_bytes()); // strings only here
                out.extend_from_slice(&(items.len() as u64).to_le_bytes());
                for item in items {
                    value(out, item, false);
                }
            }
        }
    }
    let mut out = b"GGUF".to_vec();
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (key, v) in entries {
        string(&mut out, key);
        value(&mut out, v, true);
    }
    out
}

#[test]
fn loads_gguf_metadata() {
    let dir = TempDir::new("gguf");
    let path = dir.0.join("model.gguf");
    let tokens = ["<unk>", "<s>", "</s>", "hi"].map(|t| GgufValue::String(t.into()));
    let bytes = gguf_bytes(&[
        ("general.architecture", GgufValue::String("llama".into())),
        ("general.file_type", GgufValue::Uint(15)),
        ("tokenizer.ggml.tokens", GgufValue::Array(tokens.to_vec())),
        ("tokenizer.ggml.bos_token_id", GgufValue::Uint(1)),
        ("tokenizer.ggml.eos_token_id", GgufValue::Uint(2)),
        ("tokenizer.ggml.add_bos_token", GgufValue::Bool(true)),
        (
            "tokenizer.chat_template",
            GgufValue::String("{{ bos_token }}{{ messages[0].content }}{{ eos_token }}".into()),
        ),
    ]);
    std::fs::write(&path, &bytes).unwrap();
    let meta = read_gguf_metadata(&path).unwrap();
    assert_eq!(meta.version, 3);
    assert_eq!(
        meta.get("general.architecture").and_then(GgufValue::as_str),
        Some("llama")
    );
    let m = ModelTemplates::load(&path).unwrap();
    assert_eq!(m.special_tokens["bos_token"], "<s>");
    assert_eq!(m.special_tokens["eos_token"], "</s>");
    let kwargs = json!({"messages": [{"role": "user", "content": "hi"}], "bos_token": "<s>", "eos_token": "</s>"});
    assert_eq!(
        m.compile(None, false)
            .unwrap()
            .render_json(&kwargs)
            .unwrap(),
        "<s>hi</s>"
    );

    // Cut anywhere inside the metadata: a clear error, never a panic.
    for cut in [3, 10, 30, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let err = read_gguf_metadata(&path).unwrap_err();
        assert!(
            matches!(err, TemplateError::Gguf { .. }),
            "cut at {cut}: {err}"
        );
        assert!(err.to_string().contains("truncated"), "cut at {cut}: {err}");
    }
    // A huge declared string length is refused before allocating it.
    let mut huge = bytes[..24].to_vec();
    huge.extend_from_slice(&u64::MAX.to_le_bytes());
    std::fs::write(&path, &huge).unwrap();
    let err = read_gguf_metadata(&path).unwrap_err().to_string();
    assert!(err.contains("truncated"), "{err}");
    std::fs::write(&path, b"GGML\x03\0\0\0").unwrap();
    let err = read_gguf_metadata(&path).unwrap_err().to_string();
    assert!(err.contains("magic"), "{err}");
}

// --- limits -----------------------------------------------------------------

/// Renders an adversarial template and checks that it fails fast.
fn must_fail_fast(source: &str) -> TemplateError {
    let start = Instant::now();
    let result = render(source, json!({"messages": []}));
    let elapsed = start.elapsed();
    assert!(
        elapsed < Duration::from_secs(5),
        "{source:?} took {elapsed:?}"
    );
    match result {
        Err(e) => e,
        Ok(out) => panic!("{source:?} rendered {} bytes instead of failing", out.len()),
    }
}

#[test]
fn huge_ranges_fail() {
    let err = must_fail_fast("{% for i in range(10**9) %}x{% endfor %}");
    assert!(err.to_string().contains("range"), "{err}");
}

#[test]
fn long_loops_run_out_of_fuel() {
    let err = must_fail_fast(
        "{% for i in range(100000) %}{% for j in range(100000) %}{% set x = i + j %}{% endfor %}{% endfor %}",
    );
    assert!(matches!(err, TemplateError::LimitExceeded(_)), "{err}");
}

#[test]
fn endless_recursion_fails() {
    let err = must_fail_fast("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
    assert!(err.to_string().contains("recursion"), "{err}");
    must_fail_fast("{% for m in [[1]] recursive %}{{ loop([m]) }}{% endfor %}");
}

#[test]
fn huge_strings_fail() {
    must_fail_fast("{{ 'x' * 10**10 }}");
    // Doubling inside a namespace: 2^40 bytes if nothing stopped it.
    let err = must_fail_fast(
        "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}",
    );
    assert!(matches!(err, TemplateError::LimitExceeded(_)), "{err}");
    // Doubling into the output.
    let err = must_fail_fast(
        "{% set ns = namespace(s='xxxxxxxxxxxxxxxx') %}{% for i in range(30) %}{{ ns.s }}{% set ns.s = ns.s + ns.s %}{% endfor %}",
    );
    assert!(matches!(err, TemplateError::LimitExceeded(_)), "{err}");
}

#[test]
fn output_is_bounded() {
    let limits = Limits {
        max_output_bytes: 1000,
        ..Limits::default()
    };
    let t = ChatTemplate::limited("{% for i in range(2000) %}ab{% endfor %}", limits).unwrap();
    let err = t.render_json(&json!({})).unwrap_err();
    assert!(
        matches!(err, TemplateError::LimitExceeded(ref m) if m.contains("output")),
        "{err}"
    );
}

#[test]
fn render_state_does_not_leak_between_renders() {
    let t = ChatTemplate::new("{{ raise_exception('no') }}").unwrap();
    assert!(matches!(
        t.render_json(&json!({})),
        Err(TemplateError::Raised(_))
    ));
    let plain = ChatTemplate::new("{{ x.y }}").unwrap();
    assert!(matches!(
        plain.render_json(&json!({})),
        Err(TemplateError::Render { .. })
    ));
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let t = ChatTemplate::new("{{ messages|length }}").unwrap();
    assert!(matches!(
        t.render_json(&json!([1])),
        Err(TemplateError::Input(_))
    ));
    assert!(matches!(
        t.render_json(&json!({"messages": "hi"})),
        Err(TemplateError::Input(_))
    ));
    assert!(matches!(
        t.render_json(&json!({"messages": [1]})),
        Err(TemplateError::Input(_))
    ));
    assert!(matches!(
        t.render_json(&json!({"messages": [], "documents": [1]})),
        Err(TemplateError::Input(_))
    ));
}

/// A turn that only calls tools reaches a template that reads its text as
/// a string (Qwen 3's) with `""`, and one that joins the arguments as text
/// (functionary v3.2's) with JSON text; a template that renders the turn
/// as it is sees it unchanged.
#[test]
fn call_only_turns_adapt_to_templates_that_cannot_render_them_as_they_are() {
    let call = ToolCall::new("c1", "get_weather", json!({"city": "Paris"}));
    let messages = [
        Message::user("Weather?"),
        Message::assistant_calls(None, vec![call]),
    ];
    let options = RenderOptions::new(&messages);
    let render = |source: &str| ChatTemplate::new(source).unwrap().render(&options);
    // Qwen 3 strips every assistant turn's text.
    let strips = "{% for m in messages %}{% if m.role == 'assistant' %}[{{ m.content.lstrip('\\n') }}]\
        {% for c in m.tool_calls %}{{ c.function.name }}{{ c.function.arguments | tojson }}{% endfor %}{% endif %}{% endfor %}";
    assert_eq!(
        render(strips).unwrap().text,
        r#"[]get_weather{"city": "Paris"}"#
    );
    // functionary v3.2 joins the arguments as text.
    let joins = "{% for m in messages %}{% for c in m.tool_calls or [] %}{{ c.function.name + ':' + c.function.arguments }}{% endfor %}{% endfor %}";
    assert_eq!(
        render(joins).unwrap().text,
        r#"get_weather:{"city":"Paris"}"#
    );
    // A template that renders the turn as it is sees no text there.
    let tells = "{% for m in messages %}{% if m.role == 'assistant' %}{{ m.content is defined }}{% endif %}{% endfor %}";
    assert_eq!(render(tells).unwrap().text, "False");
    // A template that fails whatever the turn still fails, with its own error.
    let e = render("{{ raise_exception('no') }}").unwrap_err();
    assert!(e.to_string().contains("no"), "{e}");
}
