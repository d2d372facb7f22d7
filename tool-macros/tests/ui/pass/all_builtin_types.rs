use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::rc::Rc;
use std::sync::Arc;
use tool_use::tool;

/// Every built-in type.
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
#[tool]
#[allow(clippy::too_many_arguments)]
fn everything(
    a: Box<[u16]>,
    b: VecDeque<i128>,
    c: BTreeSet<char>,
    d: BTreeMap<String, Vec<bool>>,
    e: HashMap<Box<str>, serde_json::Value>,
    f: (u8, String, Option<f32>),
    g: [[i8; 2]; 2],
    h: Arc<str>,
    i: Rc<Vec<u64>>,
    j: &[String],
    k: serde_json::Map<String, serde_json::Value>,
    l: Option<Box<i64>>,
    m: isize,
) -> (bool, u32) {
    let _ = (a, b, c, d, e, f, g, h, i, j, k, l, m);
    (true, 1)
}

fn main() {
    let p = &everything::schema()["function"]["parameters"]["properties"];
    let t = |k: &str| serde_json::to_string(&p[k]).unwrap();
    assert_eq!(t("a"), r#"{"type":"array","items":{"type":"integer","minimum":0,"maximum":65535},"description":"a"}"#);
    assert_eq!(t("c"), r#"{"type":"array","items":{"type":"string","minLength":1,"maxLength":1},"uniqueItems":true,"description":"c"}"#);
    assert_eq!(t("e"), r#"{"type":"object","additionalProperties":{},"description":"e"}"#);
    assert_eq!(t("f"), r#"{"type":"array","prefixItems":[{"type":"integer","minimum":0,"maximum":255},{"type":"string"},{"type":"number","nullable":true}],"description":"f"}"#);
    assert_eq!(t("g"), r#"{"type":"array","items":{"type":"array","items":{"type":"integer","minimum":-128,"maximum":127},"minItems":2,"maxItems":2},"minItems":2,"maxItems":2,"description":"g"}"#);
    assert_eq!(t("h"), r#"{"type":"string","description":"h"}"#);
    assert_eq!(t("k"), r#"{"type":"object","additionalProperties":{},"description":"k"}"#);
    assert_eq!(t("l"), r#"{"type":"integer","nullable":true,"description":"l"}"#);
    assert_eq!(everything::schema()["function"]["return"]["prefixItems"][1]["minimum"], 0);
    assert!(!everything::SCHEMA_JSON.is_empty());
}
