//! Test support for constrained decoding: synthetic byte-level BPE
//! tokenizers and a seeded random "model" that samples among allowed tokens.

#![allow(dead_code)]

pub mod families;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use tokenizers::Tokenizer;
use tool_models::constrain::TokenEnv;
use tool_models::constrain::ToolConstraint;
use tool_models::generate::TokenConstraint;
use tool_models::parse::{Format, ParseOptions, ParsedResponse};
use tool_runtime::validate::validate_arguments;
use tool_runtime::{Policy, ToolChoice, ToolDefinition};

/// GPT-2's byte → char table.
pub fn byte_to_char() -> Vec<char> {
    let mut next = 0x100u32;
    (0..=255u8)
        .map(|b| {
            if matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF) {
                char::from(b)
            } else {
                let c = char::from_u32(next).unwrap();
                next += 1;
                c
            }
        })
        .collect()
}

/// Words the tokenizer merges whole: JSON punctuation, keys, values.
pub const WORDS: &[&str] = &[
    "{\"",
    "\"}",
    "\", \"",
    "\": \"",
    "\": ",
    ", \"",
    "}}",
    "\"]",
    "[\"",
    "]}",
    "\": {\"",
    "\": [",
    "name",
    "arguments",
    "parameters",
    "\"name\": \"",
    "\"arguments\": {",
    "\"parameters\": {",
    "true",
    "false",
    "null",
    "get_weather",
    "add",
    "search",
    "city",
    "unit",
    "celsius",
    "fahrenheit",
    "Paris",
    "London",
    " the",
    " a",
    " is",
    " weather",
    " call",
    "Hello",
    " world",
    "123",
    "42",
    "0.5",
    "-1",
    "\n\n",
    "  ",
    "tool",
    "_call",
    "<tool",
    "</",
    "query",
    "limit",
    "tags",
    "point",
    "lat",
    "lon",
    "flag",
    "value",
    "items",
    "nested",
    "inner",
    "answer",
    "score",
];

/// Special tokens, in id order after the base vocabulary.
pub const SPECIALS: &[&str] = &[
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<tool_call>",
    "</tool_call>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
];

/// A byte-level BPE tokenizer: 256 byte tokens, merges building `WORDS`,
/// then random words until `size` base tokens, then `specials` as special
/// added tokens.
pub fn tokenizer(size: usize, specials: &[&str], seed: u64) -> Tokenizer {
    let added: Vec<(&str, bool)> = specials.iter().map(|s| (*s, true)).collect();
    tokenizer_with(size, &added, seed)
}

/// As [`tokenizer`], with added tokens `(content, special)`.
pub fn tokenizer_with(size: usize, added: &[(&str, bool)], seed: u64) -> Tokenizer {
    let table = byte_to_char();
    let mut vocab: Vec<String> = table.iter().map(|c| c.to_string()).collect();
    let mut index: HashMap<String, usize> = vocab
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), i))
        .collect();
    let mut merges: Vec<(String, String)> = Vec::new();
    let mut add_word =
        |word: &[u8], vocab: &mut Vec<String>, merges: &mut Vec<(String, String)>| {
            let chars: Vec<String> = word
                .iter()
                .map(|&b| table[b as usize].to_string())
                .collect();
            let mut prefix = chars[0].clone();
            for c in &chars[1..] {
                let joined = format!("{prefix}{c}");
                if !index.contains_key(&joined) {
                    index.insert(joined.clone(), vocab.len());
                    vocab.push(joined.clone());
                    merges.push((prefix.clone(), c.clone()));
                }
                prefix = joined;
            }
        };
    for w in WORDS {
        add_word(w.as_bytes(), &mut vocab, &mut merges);
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let alphabet: &[u8] =
        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.,:\"{}[]";
    while vocab.len() < size {
        let len = rng.random_range(2..9);
        let mut w: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.random_range(0..alphabet.len())])
            .collect();
        if rng.random_bool(0.3) {
            w.insert(0, b' ');
        }
        add_word(&w, &mut vocab, &mut merges);
    }
    vocab.truncate(size.max(256));
    let keep: BTreeSet<&String> = vocab.iter().collect();
    let merges: Vec<Value> = merges
        .iter()
        .filter(|(a, b)| keep.contains(&format!("{a}{b}")))
        .map(|(a, b)| json!([a, b]))
        .collect();
    let vocab_json: serde_json::Map<String, Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), json!(i)))
        .collect();
    let added: Vec<Value> = added
        .iter()
        .enumerate()
        .map(|(i, (s, special))| {
            json!({"id": vocab.len() + i, "content": s, "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false, "special": special})
        })
        .collect();
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true});
    let t = json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": added,
        "normalizer": null,
        "pre_tokenizer": byte_level,
        "post_processor": null,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": null, "unk_token": null,
                  "continuing_subword_prefix": null, "end_of_word_suffix": null,
                  "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                  "vocab": vocab_json, "merges": merges}
    });
    t.to_string().parse().unwrap()
}

/// The usual test setup: a ~3k-token tokenizer with every special token,
/// eos `<|im_end|>`.
pub fn small() -> (Tokenizer, TokenEnv) {
    with_specials(SPECIALS)
}

/// A ~3k-token tokenizer with `specials`; eos is `<|im_end|>`.
pub fn with_specials(specials: &[&str]) -> (Tokenizer, TokenEnv) {
    let tok = tokenizer(3000, specials, 7);
    let eos = tok.token_to_id("<|im_end|>").unwrap();
    let env = TokenEnv::new(&tok, &[eos]).unwrap();
    (tok, env)
}

/// Sampling biases of the random model.
#[derive(Clone, Debug)]
pub struct Bias {
    /// Added to the logits of tokens with these texts (special tokens by name).
    pub tokens: Vec<(String, f32)>,
    /// Added to tokens containing `"`, `}` or `]`: they end strings,
    /// objects and lists, so outputs stay short.
    pub closers: f32,
}

impl Default for Bias {
    fn default() -> Self {
        Bias {
            tokens: vec![
                ("<tool_call>".into(), 5.0),
                ("</tool_call>".into(), 6.0),
                ("[TOOL_CALLS]".into(), 5.0),
                ("<|python_tag|>".into(), 3.0),
                ("<|im_end|>".into(), 5.0),
            ],
            closers: 3.0,
        }
    }
}

/// A random model: fixed per-token biases, fresh random logits each step.
pub struct RandomModel {
    rng: StdRng,
    bias: Vec<f32>,
    eos: Vec<u32>,
}

impl RandomModel {
    pub fn new(tok: &Tokenizer, env: &TokenEnv, bias: &Bias, seed: u64) -> RandomModel {
        let mut b = vec![0.0f32; env.vocab_size()];
        for (id, slot) in b.iter_mut().enumerate() {
            let bytes = env.token_bytes(id as u32);
            if bytes.iter().any(|c| matches!(c, b'"' | b'}' | b']')) {
                *slot += bias.closers;
            }
        }
        for (text, add) in &bias.tokens {
            if let Some(id) = tok.token_to_id(text) {
                b[id as usize] += add;
            }
        }
        RandomModel {
            rng: StdRng::seed_from_u64(seed),
            bias: b,
            eos: env.eos_ids().to_vec(),
        }
    }

    /// Generates until eos, `finished()`, or `max` tokens; returns the
    /// tokens (eos left out) and whether it ended properly.
    pub fn generate(&mut self, c: &mut dyn TokenConstraint, max: usize) -> (Vec<u32>, bool) {
        let mut out = Vec::new();
        for step in 0..max {
            if c.finished() {
                return (out, true);
            }
            let allowed = c.allowed().unwrap();
            // Long outputs lean harder on closing tokens, so every run ends.
            let push = if step > 100 { 2.0 } else { 1.0 };
            let mut best = (f32::NEG_INFINITY, 0u32);
            let mut consider = |id: u32, rng: &mut StdRng| {
                let u: f32 = rng.random_range(1e-9f32..1.0);
                let gumbel = -(-u.ln()).ln();
                let score = self.bias[id as usize] * push + gumbel;
                if score > best.0 {
                    best = (score, id);
                }
            };
            match &allowed {
                Some(set) => set.iter().for_each(|id| consider(id, &mut self.rng)),
                None => (0..self.bias.len() as u32).for_each(|id| consider(id, &mut self.rng)),
            }
            let t = best.1;
            c.commit(t).unwrap();
            if self.eos.contains(&t) {
                return (out, true);
            }
            out.push(t);
        }
        (out, c.finished())
    }
}

/// The tool definitions the tests offer: every JSON type, enums, optional
/// fields, arrays, nested objects.
/// `tools` checked, as a server or an agent checks them where they enter.
pub fn definitions(tools: &[Value]) -> Vec<ToolDefinition> {
    ToolDefinition::list_from_json(tools).unwrap()
}

pub fn tools() -> Vec<Value> {
    let f = |name: &str, params: Value| json!({"type": "function", "function": {"name": name, "description": format!("The {name} tool: {{\"quotes\"}} and braces"), "parameters": params}});
    vec![
        f(
            "get_weather",
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer", "minimum": 1, "maximum": 14}
                },
                "required": ["city"]
            }),
        ),
        f(
            "add",
            json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            }),
        ),
        f(
            "search",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "maxLength": 40},
                    "limit": {"type": "integer"},
                    "exact": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["news", "web", "images"]}, "maxItems": 3},
                    "point": {
                        "type": "object",
                        "properties": {"lat": {"type": "number"}, "lon": {"type": "number"},
                                       "label": {"type": ["string", "null"]}},
                        "required": ["lat", "lon"],
                        "additionalProperties": false
                    }
                },
                "required": ["query"]
            }),
        ),
        f("now", json!({"type": "object", "properties": {}})),
    ]
}

/// `-0` is a JSON integer, but serde_json reads it as the float -0.0, which
/// the runtime's strict policy refuses (its default, lenient one repairs
/// it); tests check strictly after turning it into 0.
pub fn unsign_zeros(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() && n.as_f64() == Some(0.0) => *v = json!(0),
        Value::Array(a) => a.iter_mut().for_each(unsign_zeros),
        Value::Object(o) => o.values_mut().for_each(unsign_zeros),
        _ => {}
    }
}

const STRICT: Policy = Policy {
    lenient: false,
    allow_extra: false,
};

/// Generates `n` outputs, parses each with `format`'s parser, and checks
/// that every call in them is valid (see [`assert_valid`]): the property
/// every test here relies on, so no test can forget it.
pub fn run(
    (tok, env): (&Tokenizer, &TokenEnv),
    format: Format,
    tools: &[Value],
    choice: &ToolChoice,
    bias: &Bias,
    n: usize,
    seed: u64,
) -> Vec<(String, ParsedResponse)> {
    let definitions = ToolDefinition::list_from_json(tools).unwrap();
    let fresh = ToolConstraint::new(env, format, &definitions, choice).unwrap();
    let mut model = RandomModel::new(tok, env, bias, seed);
    (0..n)
        .map(|i| {
            let mut c = fresh.clone();
            let (ids, ended) = model.generate(&mut c, 2000);
            let text = tok.decode(&ids, false).unwrap();
            assert!(ended, "run {i} did not end: {text:?}");
            // The parser gets the tools, as the agent gives them: the XML
            // families type their values by the schemas.
            let options = ParseOptions {
                tools: definitions.clone(),
                ..ParseOptions::default()
            };
            let parsed = format.parse(&text, &options);
            assert_valid(tools, &text, &parsed);
            (text, parsed)
        })
        .collect()
}

/// How many of `outs` have at least one call.
pub fn with_calls(outs: &[(String, ParsedResponse)]) -> usize {
    outs.iter()
        .filter(|(_, p)| !p.tool_calls.is_empty())
        .count()
}

/// Every call names an offered tool and its arguments validate strictly.
pub fn assert_valid(tools: &[Value], text: &str, parsed: &ParsedResponse) {
    assert!(
        parsed.invalid_tool_calls.is_empty(),
        "invalid calls in {text:?}: {:?}",
        parsed.invalid_tool_calls
    );
    for call in &parsed.tool_calls {
        let def = tools
            .iter()
            .find(|t| t["function"]["name"] == call.name.as_str())
            .unwrap_or_else(|| panic!("unknown tool {} in {text:?}", call.name));
        let mut args = call.arguments.clone();
        // `-0` is a JSON integer, but serde_json reads it as the float -0.0,
        // which the strict policy refuses (the default, lenient one repairs it).
        unsign_zeros(&mut args);
        let Value::Object(mut args) = args else {
            panic!("arguments are not an object in {text:?}");
        };
        if let Err(issues) = validate_arguments(&def["function"]["parameters"], &mut args, STRICT) {
            panic!("arguments of {text:?} do not validate: {issues:?}");
        }
    }
}
