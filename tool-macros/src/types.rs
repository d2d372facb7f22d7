//! Maps Rust types to JSON schema, by their syntax (the macro sees no type
//! information). Types outside the built-in table become `Json::Extern` and
//! must implement `schemars::JsonSchema`, which the compiler checks.

use crate::json::Json;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type, TypePath};

/// The built-in types, named in error messages.
pub const BUILT_IN: &str = "bool, char, integers, f32, f64, String, &str, Cow<str>, Option<T>, \
Vec<T>, &[T], [T; N], tuples, HashSet<T>, BTreeSet<T>, HashMap<String, V>, BTreeMap<String, V>, \
serde_json::Value, Box<T>, Arc<T>, Rc<T>";

/// Which schema to build.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// The schema the model sees (transformers' dialect).
    Published,
    /// What arguments are checked against: also the bounds of the wide integer
    /// types, so that validation accepts exactly what serde accepts.
    Validation,
}

/// The schema of a parameter or return type, as the model sees it.
pub fn schema(ty: &Type) -> syn::Result<Json> {
    schema_in(ty, Mode::Published)
}

/// The schema of a type in `mode`.
pub fn schema_in(ty: &Type, mode: Mode) -> syn::Result<Json> {
    let schema = |t: &Type| schema_in(t, mode);
    let array = |t: &Type| array(t, mode);
    match ty {
        Type::Reference(r) => schema(&r.elem),
        Type::Paren(p) => schema(&p.elem),
        Type::Group(g) => schema(&g.elem),
        Type::Slice(s) => array(&s.elem),
        Type::Array(a) => {
            let mut schema = array(&a.elem)?;
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) = &a.len
            {
                let n: i128 = n.base10_parse()?;
                schema.push("minItems", Json::Int(n));
                schema.push("maxItems", Json::Int(n));
            }
            Ok(schema)
        }
        Type::Tuple(t) if t.elems.is_empty() => Err(syn::Error::new(
            t.span(),
            "a parameter of type `()` carries no value; remove it",
        )),
        Type::Tuple(t) => {
            let items = t.elems.iter().map(schema).collect::<syn::Result<_>>()?;
            Ok(Json::object([
                ("type", Json::str("array")),
                ("prefixItems", Json::Array(items)),
            ]))
        }
        Type::Path(p) if p.qself.is_none() => path_schema(p, mode),
        Type::ImplTrait(_) => Err(syn::Error::new(
            ty.span(),
            "`impl Trait` has no JSON schema: a tool's parameters and return value need concrete types",
        )),
        Type::TraitObject(_) => Err(syn::Error::new(
            ty.span(),
            "a trait object has no JSON schema: use a concrete type",
        )),
        Type::BareFn(_) | Type::Ptr(_) | Type::Never(_) | Type::Infer(_) => Err(syn::Error::new(
            ty.span(),
            format!("this type cannot cross JSON; supported types are {BUILT_IN}, or any type implementing `schemars::JsonSchema`"),
        )),
        _ => Ok(external(ty)),
    }
}

fn external(ty: &Type) -> Json {
    Json::Extern {
        ty: Box::new(strip_lifetimes(ty)),
        extra: Vec::new(),
    }
}

/// `&'a Foo<'a>` → `Foo<'static>`: the schema call lives outside the function's lifetimes.
fn strip_lifetimes(ty: &Type) -> Type {
    match ty {
        Type::Reference(r) => static_lifetimes(&r.elem),
        other => static_lifetimes(other),
    }
}

/// Replaces every lifetime with `'static`.
fn static_lifetimes(ty: &Type) -> Type {
    struct Strip;
    impl syn::visit_mut::VisitMut for Strip {
        fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
            *l = syn::Lifetime::new("'static", l.span());
        }
    }
    let mut ty = ty.clone();
    syn::visit_mut::VisitMut::visit_type_mut(&mut Strip, &mut ty);
    ty
}

/// How a deserialised argument is handed to the function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pass {
    /// By value.
    Value,
    /// As `&arg`.
    Ref,
    /// As `&mut arg`.
    RefMut,
}

/// The owned type an argument is deserialised into, and how it is passed:
/// `&str` reads a `String` passed by reference, `&[T]` a `Vec<T>`.
pub fn owned(ty: &Type) -> (Type, Pass) {
    match ty {
        Type::Reference(r) => {
            let pass = if r.mutability.is_some() {
                Pass::RefMut
            } else {
                Pass::Ref
            };
            let inner: Type = match &*r.elem {
                Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
                    syn::parse_quote!(::std::string::String)
                }
                Type::Slice(s) => {
                    let item = static_lifetimes(&s.elem);
                    syn::parse_quote!(::std::vec::Vec<#item>)
                }
                other => static_lifetimes(other),
            };
            (inner, pass)
        }
        Type::Paren(p) => owned(&p.elem),
        Type::Group(g) => owned(&g.elem),
        other => (static_lifetimes(other), Pass::Value),
    }
}

/// The first reference nested inside `ty` (below a top-level `&`): such a
/// parameter cannot be read from owned JSON.
pub fn nested_borrow(ty: &Type) -> Option<Span> {
    struct Find(Option<Span>);
    impl syn::visit_mut::VisitMut for Find {
        fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
            self.0.get_or_insert(r.and_token.span);
        }
    }
    let mut find = Find(None);
    let mut inner = match ty {
        Type::Reference(r) => (*r.elem).clone(),
        other => other.clone(),
    };
    syn::visit_mut::VisitMut::visit_type_mut(&mut find, &mut inner);
    find.0
}

/// How a parameter names the call's context, if it does: by the type's
/// last path segment, `ToolContext`, since a macro sees no further.
pub enum ContextParam {
    /// `&ToolContext`: what the generated code passes.
    Shared,
    /// `ToolContext` or `&mut ToolContext`: refused, with this span.
    Unpassable(Span),
}

/// Whether `ty` is the call's context (see [`ContextParam`]).
pub fn context_param(ty: &Type) -> Option<ContextParam> {
    let names_context = |ty: &Type| {
        matches!(ty, Type::Path(p) if p.qself.is_none()
            && p.path.segments.last().is_some_and(|s| s.ident == "ToolContext"))
    };
    match ty {
        Type::Reference(r) if names_context(&r.elem) => Some(match r.mutability {
            None => ContextParam::Shared,
            Some(m) => ContextParam::Unpassable(m.span),
        }),
        Type::Path(_) if names_context(ty) => Some(ContextParam::Unpassable(ty.span())),
        _ => None,
    }
}

/// Whether a return type is a `Result` (its `Err` goes to the model as an error).
pub fn is_result(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Result"))
}

fn array(item: &Type, mode: Mode) -> syn::Result<Json> {
    Ok(Json::object([
        ("type", Json::str("array")),
        ("items", schema_in(item, mode)?),
    ]))
}

fn scalar(ty: &str) -> Json {
    Json::object([("type", Json::str(ty))])
}

fn integer(min: Option<i128>, max: Option<i128>) -> Json {
    let mut s = scalar("integer");
    if let Some(min) = min {
        s.push("minimum", Json::Int(min));
    }
    if let Some(max) = max {
        s.push("maximum", Json::Int(max));
    }
    s
}

/// The type arguments of the last path segment.
fn type_args(p: &TypePath) -> Vec<&Type> {
    match &p.path.segments.last().map(|s| &s.arguments) {
        Some(PathArguments::AngleBracketed(a)) => a
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// If `ty` is `Option<T>`, returns `T`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let args = type_args(p);
            (last.ident == "Option" && args.len() == 1).then(|| args[0])
        }
        Type::Paren(p) => option_inner(&p.elem),
        Type::Group(g) => option_inner(&g.elem),
        _ => None,
    }
}

/// The value a fallible or plain return type carries: `T` for `Result<T, E>`
/// (and one-argument aliases such as `anyhow::Result<T>`), `None` for `()`.
pub fn returned(ty: &Type) -> Option<&Type> {
    let inner = match ty {
        Type::Path(p) if p.qself.is_none() => {
            let args = type_args(p);
            match p.path.segments.last() {
                Some(last) if last.ident == "Result" && (1..=2).contains(&args.len()) => args[0],
                _ => ty,
            }
        }
        _ => ty,
    };
    match inner {
        Type::Tuple(t) if t.elems.is_empty() => None,
        other => Some(other),
    }
}

fn is_str_like(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => is_str_like(&r.elem),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let args = type_args(p);
            match last.ident.to_string().as_str() {
                "str" | "String" => args.is_empty(),
                "Box" | "Arc" | "Rc" | "Cow" => args.len() == 1 && is_str_like(args[0]),
                _ => false,
            }
        }
        _ => false,
    }
}

fn path_schema(p: &TypePath, mode: Mode) -> syn::Result<Json> {
    let schema = |t: &Type| schema_in(t, mode);
    let array = |t: &Type| array(t, mode);
    let wide = |min: i128, max: i128| match mode {
        Mode::Published => integer((min == 0).then_some(0), None),
        Mode::Validation => integer(Some(min), Some(max)),
    };
    let ty = Type::Path(p.clone());
    let Some(last) = p.path.segments.last() else {
        return Ok(external(&ty));
    };
    let name = last.ident.to_string();
    let args = type_args(p);
    let single = p.path.segments.len() == 1 && p.path.leading_colon.is_none();
    let plain = args.is_empty() && matches!(last.arguments, PathArguments::None);
    if single && plain {
        let s = match name.as_str() {
            "f32" | "f64" => Some(scalar("number")),
            "i32" => Some(wide(i32::MIN.into(), i32::MAX.into())),
            "i64" | "isize" => Some(wide(i64::MIN.into(), i64::MAX.into())),
            "i128" => Some(integer(None, None)),
            "i8" => Some(integer(Some(i8::MIN.into()), Some(i8::MAX.into()))),
            "i16" => Some(integer(Some(i16::MIN.into()), Some(i16::MAX.into()))),
            "u8" => Some(integer(Some(0), Some(u8::MAX.into()))),
            "u16" => Some(integer(Some(0), Some(u16::MAX.into()))),
            "u32" => Some(wide(0, u32::MAX.into())),
            "u64" | "usize" => Some(wide(0, u64::MAX.into())),
            "u128" => Some(integer(Some(0), None)),
            "bool" => Some(scalar("boolean")),
            "str" | "String" => Some(scalar("string")),
            "char" => {
                let mut s = scalar("string");
                s.push("minLength", Json::Int(1));
                s.push("maxLength", Json::Int(1));
                Some(s)
            }
            "Value" => Some(Json::Object(Vec::new())),
            _ => None,
        };
        if let Some(s) = s {
            return Ok(s);
        }
    }
    match (name.as_str(), args.as_slice()) {
        ("String", []) => Ok(scalar("string")),
        ("Value", []) if p.path.segments.len() == 2 && p.path.segments[0].ident == "serde_json" => {
            Ok(Json::Object(Vec::new()))
        }
        ("Map", [])
            if p.path
                .segments
                .first()
                .is_some_and(|s| s.ident == "serde_json") =>
        {
            Ok(Json::object([
                ("type", Json::str("object")),
                ("additionalProperties", Json::Object(Vec::new())),
            ]))
        }
        ("Box" | "Arc" | "Rc" | "Cow", [inner]) if is_str_like(inner) => Ok(scalar("string")),
        ("Box" | "Arc" | "Rc" | "Cow", [inner]) => schema(inner),
        ("Option", [inner]) => {
            let mut s = schema(inner)?;
            if !has_key(&s, "nullable") {
                s.push("nullable", Json::Bool(true));
            }
            Ok(s)
        }
        ("Vec" | "VecDeque" | "LinkedList", [item]) => array(item),
        ("HashSet" | "BTreeSet" | "IndexSet", [item, ..]) => {
            let mut s = array(item)?;
            s.push("uniqueItems", Json::Bool(true));
            Ok(s)
        }
        ("HashMap" | "BTreeMap" | "IndexMap" | "Map", [key, value, ..]) => {
            if !is_str_like(key) {
                return Err(syn::Error::new(
                    key.span(),
                    "JSON object keys are strings: use `String` as the map's key type",
                ));
            }
            Ok(Json::object([
                ("type", Json::str("object")),
                ("additionalProperties", schema(value)?),
            ]))
        }
        _ => Ok(external(&ty)),
    }
}

fn has_key(schema: &Json, key: &str) -> bool {
    match schema {
        Json::Object(entries) | Json::Extern { extra: entries, .. } => {
            entries.iter().any(|(k, _)| k == key)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(ty: &str) -> String {
        let ty: Type = syn::parse_str(ty).unwrap();
        schema(&ty).unwrap().to_json_string()
    }

    #[test]
    fn table() {
        assert_eq!(text("f32"), r#"{"type":"number"}"#);
        assert_eq!(
            text("i8"),
            r#"{"type":"integer","minimum":-128,"maximum":127}"#
        );
        assert_eq!(text("usize"), r#"{"type":"integer","minimum":0}"#);
        assert_eq!(text("&'a str"), r#"{"type":"string"}"#);
        assert_eq!(text("Cow<'a, str>"), r#"{"type":"string"}"#);
        assert_eq!(text("Box<str>"), r#"{"type":"string"}"#);
        assert_eq!(
            text("char"),
            r#"{"type":"string","minLength":1,"maxLength":1}"#
        );
        assert_eq!(
            text("&[bool]"),
            r#"{"type":"array","items":{"type":"boolean"}}"#
        );
        assert_eq!(
            text("std::collections::BTreeSet<u8>"),
            r#"{"type":"array","items":{"type":"integer","minimum":0,"maximum":255},"uniqueItems":true}"#
        );
        assert_eq!(
            text("[f64; 2]"),
            r#"{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":2}"#
        );
        assert_eq!(
            text("HashMap<String, Vec<i64>>"),
            r#"{"type":"object","additionalProperties":{"type":"array","items":{"type":"integer"}}}"#
        );
        assert_eq!(text("serde_json::Value"), "{}");
        assert_eq!(
            text("Arc<Option<bool>>"),
            r#"{"type":"boolean","nullable":true}"#
        );
        assert_eq!(
            text("Option<Option<bool>>"),
            r#"{"type":"boolean","nullable":true}"#
        );
    }

    #[test]
    fn unknown_types_are_external() {
        let ty: Type = syn::parse_str("my::Point").unwrap();
        assert!(!schema(&ty).unwrap().is_static());
        let ty: Type = syn::parse_str("Vec<Point>").unwrap();
        assert!(!schema(&ty).unwrap().is_static());
    }

    #[test]
    fn rejected_types() {
        for ty in [
            "impl Display",
            "&dyn Display",
            "fn()",
            "*const u8",
            "_",
            "HashMap<i64, u8>",
            "()",
        ] {
            let ty: Type = syn::parse_str(ty).unwrap();
            assert!(schema(&ty).is_err(), "{}", quote::quote!(#ty));
        }
    }

    #[test]
    fn returned_types() {
        let t = |s: &str| -> Option<String> {
            let ty: Type = syn::parse_str(s).unwrap();
            returned(&ty).map(|t| quote::quote!(#t).to_string())
        };
        assert_eq!(t("Result<f64, String>").as_deref(), Some("f64"));
        assert_eq!(t("anyhow::Result<u8>").as_deref(), Some("u8"));
        assert_eq!(t("Result<(), String>"), None);
        assert_eq!(t("()"), None);
        assert_eq!(t("Vec<u8>").as_deref(), Some("Vec < u8 >"));
    }
}
