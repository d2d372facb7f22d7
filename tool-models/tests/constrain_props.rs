//! Random tool schemas: whatever the schema, constrained calls validate.

mod constrain_util;

use constrain_util::{small, unsign_zeros, Bias, RandomModel};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tool_models::constrain::{TokenEnv, ToolConstraint};
use tool_models::parse::{Format, ParseOptions};
use tool_runtime::validate::validate_arguments;
use tool_runtime::Policy;
use tool_runtime::ToolChoice;

const NAMES: &[&str] = &[
    "city", "unit", "limit", "query", "flag", "value", "items", "inner",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        (proptest::option::of(1u32..20)).prop_map(|max| match max {
            Some(m) => json!({"type": "string", "maxLength": m}),
            None => json!({"type": "string"}),
        }),
        proptest::sample::subsequence(
            vec!["celsius", "fahrenheit", "kelvin", "a b", "\"q\""],
            1..4
        )
        .prop_map(|vs| json!({"type": "string", "enum": vs})),
        (proptest::option::of(-50i64..50), 0i64..100).prop_map(|(min, span)| match min {
            Some(m) => json!({"type": "integer", "minimum": m, "maximum": m + span}),
            None => json!({"type": "integer"}),
        }),
        any::<bool>().prop_map(|bounded| if bounded {
            json!({"type": "number", "minimum": -1.5, "maximum": 99.25})
        } else {
            json!({"type": "number"})
        }),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": ["string", "null"]})),
        // Values of any shape.
        Just(json!({})),
        Just(json!({"type": "object"})),
        Just(json!({"type": "array", "description": "anything"})),
    ]
}

fn object(inner: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    (
        proptest::collection::vec(inner, 0..4),
        proptest::collection::vec(any::<bool>(), 4),
        any::<bool>(),
    )
        .prop_map(|(props, req, closed)| {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for (i, p) in props.into_iter().enumerate() {
                properties.insert(NAMES[i * 2 % NAMES.len()].to_owned(), p);
                if req[i] {
                    required.push(NAMES[i * 2 % NAMES.len()]);
                }
            }
            let mut o = json!({"type": "object", "properties": properties, "required": required});
            if closed {
                o["additionalProperties"] = false.into();
            }
            o
        })
}

fn schema() -> impl Strategy<Value = Value> {
    let value = leaf().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            (inner.clone(), 1usize..4)
                .prop_map(|(item, max)| json!({"type": "array", "items": item, "maxItems": max})),
            object(inner),
        ]
    });
    object(value)
}

fn env() -> &'static (tokenizers::Tokenizer, TokenEnv) {
    static ENV: std::sync::OnceLock<(tokenizers::Tokenizer, TokenEnv)> = std::sync::OnceLock::new();
    ENV.get_or_init(small)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_schemas_yield_valid_calls(params in schema(), seed in any::<u64>(), auto in any::<bool>()) {
        let (tok, env) = env();
        let tool = json!({"type": "function", "function": {"name": "f", "parameters": params}});
        let choice = if auto { ToolChoice::Auto } else { ToolChoice::Required };
        let fresh = ToolConstraint::new(env, Format::Hermes, &constrain_util::definitions(std::slice::from_ref(&tool)), &choice)
            .unwrap_or_else(|e| panic!("{params}: {e}"));
        let mut model = RandomModel::new(tok, env, &Bias::default(), seed);
        for _ in 0..3 {
            let mut c = fresh.clone();
            let (ids, ended) = model.generate(&mut c, 3000);
            let text = tok.decode(&ids, false).unwrap();
            prop_assert!(ended, "did not end: {:?}", text);
            let parsed = Format::Hermes.parse(&text, &ParseOptions::default());
            prop_assert!(parsed.invalid_tool_calls.is_empty(), "{:?}: {:?}", text, parsed.invalid_tool_calls);
            prop_assert!(auto || !parsed.tool_calls.is_empty(), "{:?}", text);
            for call in parsed.tool_calls {
                let mut args = call.arguments;
                unsign_zeros(&mut args);
                let Value::Object(mut args) = args else { panic!("{text:?}") };
                let strict = Policy { lenient: false, allow_extra: false };
                let r = validate_arguments(&tool["function"]["parameters"], &mut args, strict);
                prop_assert!(r.is_ok(), "{} / {:?}: {:?}", params, text, r);
            }
        }
    }
}
