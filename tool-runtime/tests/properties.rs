//! Properties of dispatch over open-ended inputs:
//! - values of every built-in parameter type, serialised and dispatched
//!   through the toolbox, reach the function unchanged;
//! - schema validation accepts exactly the JSON values serde accepts.

// Generated code names the facade `::tool_use`; here the runtime stands in for it.
extern crate tool_runtime as tool_use;

use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap};
use tool_macros::tool;
use tool_runtime::validate::{validate_arguments, Policy};
use tool_runtime::{toolbox, Tool, ToolCall};

/// Echo every argument back.
///
/// Args:
///     a: a
///     b: b
///     c: c
///     d: d
///     e: e
///     f: f
///     g: g
///     h: h
///     i: i
///     j: j
///     k: k
///     l: l
///     m: m
///     n: n
///     o: o
///     p: p
///     q: q
#[tool]
#[allow(clippy::too_many_arguments)]
fn echo(
    a: i8,
    b: u16,
    c: i32,
    d: u64,
    e: f64,
    f: f32,
    g: &str,
    h: char,
    i: bool,
    j: &[i32],
    k: Option<String>,
    l: HashMap<String, u8>,
    m: (i64, String),
    n: [u8; 3],
    o: BTreeSet<String>,
    p: Option<Vec<Option<f64>>>,
    q: i64,
) -> Value {
    json!([a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q])
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        -1e3..1e3f64
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn dispatch_hands_the_function_the_same_values(
        a in any::<i8>(), b in any::<u16>(), c in any::<i32>(), d in any::<u64>(),
        e in finite_f64(), f in any::<f32>().prop_filter("finite", |f| f.is_finite()),
        g in ".{0,12}", h in any::<char>(), i in any::<bool>(),
        j in prop::collection::vec(any::<i32>(), 0..5),
        k in prop::option::of(".{0,8}"),
        l in prop::collection::hash_map("[a-z]{0,4}", any::<u8>(), 0..4),
        m in (any::<i64>(), ".{0,6}"), n in any::<[u8; 3]>(),
        o in prop::collection::btree_set("[a-z]{1,3}", 0..4),
        p in prop::option::of(prop::collection::vec(prop::option::of(finite_f64()), 0..4)),
        q in any::<i64>(),
        lenient in any::<bool>(),
    ) {
        let args = json!({"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "g": g, "h": h, "i": i,
            "j": j, "k": k, "l": l, "m": m, "n": n, "o": o, "p": p, "q": q});
        let want = json!([a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q]);
        let t = toolbox![echo].lenient(lenient);
        let m = t.call_blocking(&ToolCall::new("1", "echo", args));
        let got: Value = serde_json::from_str(m.text()).map_err(|e| TestCaseError::fail(format!("{e}: {}", m.text())))?;
        prop_assert_eq!(got, want);
    }
}

/// Any JSON value, leaning towards the edges of the built-in types.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![
            Just(-129i64),
            Just(-128),
            Just(127),
            Just(128),
            Just(255),
            Just(256),
            Just(-1),
            Just(0),
            Just(65535),
            Just(65536),
            Just(i32::MAX as i64 + 1),
            Just(i32::MIN as i64 - 1),
            Just(u32::MAX as i64 + 1)
        ]
        .prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(i64::MAX as u64 + 1)),
        finite_f64().prop_map(Value::from),
        Just(json!(1.0)),
        Just(json!(-0.0)),
        ".{0,3}".prop_map(Value::from),
        prop_oneof![
            Just("x"),
            Just("é"),
            Just(""),
            Just("ab"),
            Just("7"),
            Just("true")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]{0,2}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

macro_rules! probes {
    ($($name:ident: $ty:ty),* $(,)?) => {
        $(
            #[doc = "A probe.\n\nArgs:\n    x: the value"]
            #[tool]
            #[allow(unused_variables)]
            fn $name(x: $ty) {}
        )*

        /// Each probe's validation schema with its serde check.
        fn probes() -> Vec<(&'static str, &'static Value, fn(&Value) -> bool)> {
            vec![$(
                (stringify!($ty), $name::__validation_schema(), serde_accepts::<$ty> as fn(&Value) -> bool),
            )*]
        }
    };
}

fn serde_accepts<T: DeserializeOwned>(v: &Value) -> bool {
    serde_json::from_value::<T>(v.clone()).is_ok()
}

probes! {
    p_i8: i8, p_i16: i16, p_u8: u8, p_u16: u16, p_i32: i32, p_u32: u32, p_i64: i64, p_u64: u64,
    p_usize: usize, p_f64: f64, p_f32: f32, p_bool: bool, p_char: char, p_string: String,
    p_vec: Vec<i32>, p_option: Option<u8>, p_array: [u8; 2], p_tuple: (i8, bool),
    p_map: HashMap<String, i8>, p_set: BTreeSet<u8>, p_nested: Option<Vec<Option<bool>>>,
    p_value: Value, p_deque: std::collections::VecDeque<u16>,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn validation_accepts_exactly_what_serde_accepts(v in arb_json()) {
        let strict = Policy { lenient: false, allow_extra: false };
        for (ty, schema, serde_ok) in probes() {
            let mut args = Map::new();
            args.insert("x".into(), v.clone());
            let schema_ok = validate_arguments(schema, &mut args, strict).is_ok();
            // `null` means "absent" for the argument, so serde sees the default path.
            prop_assert_eq!(schema_ok, serde_ok(&v), "type {} value {}", ty, v);
        }
    }
}

#[test]
fn probes_use_their_validation_schema() {
    // The published schema of i32 has no bounds (as transformers); validation does.
    assert_eq!(
        p_i32::schema()["function"]["parameters"]["properties"]["x"],
        json!({"type": "integer", "description": "the value"})
    );
    assert_eq!(
        p_i32 {}.validation_schema()["properties"]["x"],
        json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX, "description": "the value"})
    );
}
