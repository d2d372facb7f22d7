//! Structured output: the whole output is JSON valid against a schema.

mod constrain_util;

use constrain_util::{small, unsign_zeros, Bias, RandomModel};
use serde_json::{json, Value};
use tool_models::constrain::{ConstrainError, JsonConstraint};
use tool_models::generate::TokenConstraint;
use tool_runtime::validate::validate_arguments;
use tool_runtime::Policy;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "answer": {"type": "string", "maxLength": 30},
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "count": {"type": "integer"},
            "ok": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 4},
            "inner": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "note": {"type": ["string", "null"]}},
                "required": ["lat"],
                "additionalProperties": false
            }
        },
        "required": ["answer", "ok"],
        "additionalProperties": false
    })
}

#[test]
fn random_outputs_parse_and_validate() {
    let (tok, env) = small();
    let schema = schema();
    let fresh = JsonConstraint::new(&env, &schema).unwrap();
    let mut model = RandomModel::new(&tok, &env, &Bias::default(), 11);
    for i in 0..50 {
        let mut c = fresh.clone();
        let (ids, ended) = model.generate(&mut c, 2000);
        let text = tok.decode(&ids, false).unwrap();
        assert!(ended, "run {i} did not end: {text:?}");
        let mut value: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("run {i}: {text:?} is not JSON: {e}"));
        unsign_zeros(&mut value);
        let Value::Object(mut obj) = value else {
            panic!("run {i}: {text:?} is not an object");
        };
        let strict = Policy {
            lenient: false,
            allow_extra: false,
        };
        if let Err(issues) = validate_arguments(&schema, &mut obj, strict) {
            panic!("run {i}: {text:?} does not validate: {issues:?}");
        }
    }
}

#[test]
fn ends_when_the_value_is_complete() {
    let (tok, env) = small();
    let mut c = JsonConstraint::new(&env, &json!({"type": "boolean"})).unwrap();
    let first = c.allowed().unwrap().unwrap();
    assert!(!first.contains(tok.token_to_id("Hello").unwrap()));
    assert!(
        !first.contains(tok.token_to_id("<|im_end|>").unwrap()),
        "empty output is not JSON"
    );
    for t in tok.encode("true", false).unwrap().get_ids() {
        c.commit(*t).unwrap();
    }
    assert!(c.finished(), "nothing may follow `true`");
    let eos = tok.token_to_id("<|im_end|>").unwrap();
    assert_eq!(
        c.allowed().unwrap().unwrap().iter().collect::<Vec<_>>(),
        vec![eos]
    );
}

#[test]
fn bad_schemas_are_errors() {
    let (_, env) = small();
    let e = JsonConstraint::new(&env, &json!(5)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "schema of the output: expected a JSON schema object, found 5"
    );
    let e = JsonConstraint::new(&env, &json!({"type": "strange"})).unwrap_err();
    assert!(
        matches!(&e, ConstrainError::Schema { what, .. } if what == "the output"),
        "{e}"
    );
    let e = JsonConstraint::new(
        &env,
        &json!({"type": "string", "minLength": 5, "maxLength": 2}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("minLength"), "{e}");
    assert!(JsonConstraint::new(&env, &json!(true)).is_ok());
}
