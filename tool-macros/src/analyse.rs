//! Reads a tool from a function: checks the signature against its doc
//! comment and builds the definition (published schema and validation schema).

use crate::attr::{ArgOptions, ToolArgs};
use crate::doc;
use crate::json::{self, Json};
use crate::types::{self, ContextParam, Mode};
use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, Pat, Signature};

/// One parameter: its JSON name, type and `#[arg]` options; or the call's
/// `&ToolContext`, which the model does not see.
pub struct Param {
    pub name: String,
    pub ident: syn::Ident,
    pub ty: syn::Type,
    pub options: ArgOptions,
    /// The `&ToolContext` parameter: passed, not read from the arguments.
    pub context: bool,
}

/// Whether the function may take `self`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Receiver {
    /// A free function: `self` is an error.
    Forbidden,
    /// A method in a `#[tools]` impl block: `&self` is required.
    Required,
}

/// Validates the signature and collects the parameters, removing `#[arg]`.
pub fn take_params(
    sig: &mut Signature,
    receiver: Receiver,
    errors: &mut Vec<syn::Error>,
) -> Vec<Param> {
    for g in &sig.generics.params {
        match g {
            syn::GenericParam::Lifetime(_) => {}
            _ => errors.push(syn::Error::new(
                g.span(),
                "a tool cannot be generic: its parameters need concrete types to have a JSON schema",
            )),
        }
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.push(syn::Error::new(
            unsafety.span(),
            "a tool cannot be `unsafe fn`: the model would call it with no one to uphold its contract",
        ));
    }
    if let Some(v) = &sig.variadic {
        errors.push(syn::Error::new(v.span(), "a tool cannot be variadic"));
    }
    let mut params = Vec::new();
    for input in &mut sig.inputs {
        match input {
            FnArg::Receiver(r) if receiver == Receiver::Forbidden => errors.push(syn::Error::new(
                r.self_token.span(),
                "`self` in a free function: put the method in an `impl` block marked `#[tools]`, \
                 or take the value as a named parameter",
            )),
            FnArg::Receiver(r) if r.reference.is_none() || r.mutability.is_some() => {
                errors.push(syn::Error::new(
                    r.span(),
                    "tools share their value through `&self`: several calls may run at once, \
                     so use interior mutability (a Mutex, atomics) for state that changes",
                ))
            }
            FnArg::Receiver(_) => {}
            FnArg::Typed(pt) => {
                let options = ArgOptions::take(&mut pt.attrs, errors);
                match types::context_param(&pt.ty) {
                    Some(ContextParam::Unpassable(span)) => {
                        errors.push(syn::Error::new(
                            span,
                            "take the call's context as `&ToolContext`: the generated code lends it \
                             to the function, and a clone is cheap where you need one of your own",
                        ));
                        continue;
                    }
                    Some(ContextParam::Shared) => {
                        if let Some(attr) = pt.attrs.first() {
                            errors.push(syn::Error::new(
                                attr.span(),
                                "the context is not an argument the model writes: it takes no attributes",
                            ));
                        }
                        if params.iter().any(|p: &Param| p.context) {
                            errors.push(syn::Error::new_spanned(
                                &pt.ty,
                                "a tool takes at most one `&ToolContext`",
                            ));
                        }
                        let ident = match &*pt.pat {
                            Pat::Ident(p) => p.ident.clone(),
                            _ => syn::Ident::new("_context", pt.pat.span()),
                        };
                        params.push(Param {
                            name: ident.unraw().to_string(),
                            ident,
                            ty: (*pt.ty).clone(),
                            options,
                            context: true,
                        });
                        continue;
                    }
                    None => {}
                }
                match &*pt.pat {
                    _ if types::nested_borrow(&pt.ty).is_some() => errors.push(syn::Error::new(
                        types::nested_borrow(&pt.ty).unwrap_or_else(|| pt.ty.span()),
                        "a tool parameter may borrow only at the top (`&str`, `&[T]`, `&T`): \
                         arguments are read into owned values, so use `String` here (`&[String]`, not `&[&str]`)",
                    )),
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                        params.push(Param {
                            name: p.ident.unraw().to_string(),
                            ident: p.ident.clone(),
                            ty: (*pt.ty).clone(),
                            options,
                            context: false,
                        })
                    }
                    pat => errors.push(syn::Error::new(
                        pat.span(),
                        "a tool parameter needs a plain name, which becomes its JSON key: \
                         bind it (`point: Point`) and destructure in the body",
                    )),
                }
            }
        }
    }
    if receiver == Receiver::Required && !matches!(sig.inputs.first(), Some(FnArg::Receiver(_))) {
        errors.push(syn::Error::new(
            sig.ident.span(),
            "a tool in a `#[tools]` impl block takes `&self`; move a function without it out of the block",
        ));
    }
    params
}

/// A tool definition, read from a function.
pub struct Definition {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// `{"type": "function", "function": {...}}`
    pub schema: Json,
    /// The `parameters` object arguments are checked against.
    pub validation: Json,
}

/// Builds the definition from the doc comment and parameters.
pub fn definition(
    attrs: &[syn::Attribute],
    sig: &Signature,
    args: &ToolArgs,
    params: &[Param],
    errors: &mut Vec<syn::Error>,
) -> Option<Definition> {
    let (lines, spans) = doc_lines(attrs, errors);
    let docs = match doc::parse(&lines) {
        Ok(d) => d,
        Err(errs) => {
            // Later checks would only repeat these as "not documented".
            errors.extend(
                errs.into_iter()
                    .map(|e| syn::Error::new(spans[e.line], e.message)),
            );
            return None;
        }
    };

    let ident = &sig.ident;
    let name = match &args.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (ident.unraw().to_string(), ident.span()),
    };
    if !valid_name(&name.0) {
        errors.push(syn::Error::new(
            name.1,
            format!(
                "invalid tool name `{}`: names must match ^[A-Za-z0-9_-]{{1,64}}$ \
                 (rename it with `#[tool(name = \"...\")]`)",
                name.0
            ),
        ));
    }

    let description = match &args.description {
        Some(lit) => lit.value(),
        None => docs.description.clone(),
    };
    if description.trim().is_empty() {
        let message = if lines.iter().all(|l| l.trim().is_empty()) {
            "a tool needs a doc comment: the model reads it to decide when to call the tool \
             (or give `#[tool(description = \"...\")]`)"
        } else {
            "the doc comment has no description before its sections: start it with a sentence \
             saying what the tool does"
        };
        errors.push(syn::Error::new(ident.span(), message));
    }

    let mut properties = Vec::new();
    let mut checked = Vec::new();
    let mut required = Vec::new();
    for p in params.iter().filter(|p| !p.context) {
        let documented = docs.args.iter().find(|a| a.name == p.name);
        if let Some((schema, validation)) = property(p, documented, &spans, errors) {
            let optional = types::option_inner(&p.ty).is_some() || p.options.default.is_some();
            if !optional {
                required.push(Json::str(&p.name));
            }
            properties.push((p.name.clone(), schema));
            checked.push((p.name.clone(), validation));
        }
    }
    // A parameter without a name (already an error) would make every entry look unknown.
    let receivers = sig
        .inputs
        .iter()
        .filter(|i| matches!(i, FnArg::Receiver(_)))
        .count();
    let all_named = params.len() + receivers == sig.inputs.len();
    for a in docs.args.iter().filter(|_| all_named) {
        if params.iter().any(|p| p.context && p.name == a.name) {
            errors.push(syn::Error::new(
                spans[a.line],
                format!(
                    "`{}` is the call's context, which the model neither sees nor writes: \
                     leave it out of `Args:`",
                    a.name
                ),
            ));
        } else if !params.iter().any(|p| p.name == a.name) {
            let named = params.iter().filter(|p| !p.context);
            let hint = closest(&a.name, named.map(|p| p.name.as_str()))
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            errors.push(syn::Error::new(
                spans[a.line],
                format!(
                    "the doc comment documents `{}`, but the function has no such parameter{hint}",
                    a.name
                ),
            ));
        }
    }

    let object = |properties| {
        let mut o = Json::object([
            ("type", Json::str("object")),
            ("properties", Json::Object(properties)),
        ]);
        if !required.is_empty() {
            o.push("required", Json::Array(required.clone()));
        }
        o
    };
    let parameters = object(properties);
    let validation = object(checked);
    let mut function = Json::object([
        ("name", Json::str(&name.0)),
        ("description", Json::str(&description)),
        ("parameters", parameters),
    ]);

    let output = match &sig.output {
        syn::ReturnType::Type(_, ty) => types::returned(ty),
        syn::ReturnType::Default => None,
    };
    match (output, &docs.returns) {
        (Some(ty), returns) => match types::schema(ty) {
            Ok(mut schema) => {
                if let Some(r) = returns.as_ref().filter(|r| !r.text.is_empty()) {
                    schema.push("description", Json::str(&r.text));
                }
                function.push("return", schema);
            }
            Err(e) => errors.push(e),
        },
        (None, Some(r)) => errors.push(syn::Error::new(
            spans[r.line],
            "the doc comment documents a return value, but the function returns nothing",
        )),
        (None, None) => {}
    }

    let schema = Json::object([("type", Json::str("function")), ("function", function)]);
    errors.is_empty().then_some(Definition {
        name: name.0,
        description,
        schema,
        validation,
    })
}

/// The schema of one parameter, published and for validation: its type,
/// then `nullable`, `enum`, `default`, `description`.
fn property(
    p: &Param,
    documented: Option<&doc::ArgDoc>,
    spans: &[Span],
    errors: &mut Vec<syn::Error>,
) -> Option<(Json, Json)> {
    let (mut schema, mut validation) = match (
        types::schema_in(&p.ty, Mode::Published),
        types::schema_in(&p.ty, Mode::Validation),
    ) {
        (Ok(s), Ok(v)) => (s, v),
        (Err(e), _) | (_, Err(e)) => {
            errors.push(e);
            return None;
        }
    };
    let description = match (&p.options.description, documented) {
        (Some(lit), None) => Some(lit.value()),
        (Some(lit), Some(_)) => {
            errors.push(syn::Error::new(
                lit.span(),
                format!(
                    "`{}` is described both here and in the doc comment; keep one",
                    p.name
                ),
            ));
            None
        }
        (None, Some(a)) => Some(a.description.clone()),
        (None, None) => {
            errors.push(syn::Error::new(
                p.ident.span(),
                format!(
                    "parameter `{0}` is not documented: add `{0}: <what it is>` under `Args:` \
                     in the doc comment (or ``* `{0}` - <what it is>`` under `# Arguments`)",
                    p.name
                ),
            ));
            None
        }
    };

    if let Some((text, a)) = documented.and_then(|a| a.choices.as_ref().map(|c| (c, a))) {
        match json::parse(text) {
            Ok(Json::Array(items)) => {
                // transformers strips each string choice.
                let items: Vec<Json> = items
                    .into_iter()
                    .map(|v| match v {
                        Json::Str(s) => Json::Str(s.trim().to_owned()),
                        v => v,
                    })
                    .collect();
                for item in &items {
                    if let Err(why) = json::check(item, &validation) {
                        errors.push(syn::Error::new(
                            spans[a.line],
                            format!(
                                "choice `{}` does not fit parameter `{}`: {why}",
                                item.to_json_string(),
                                p.name
                            ),
                        ));
                    }
                }
                schema.push("enum", Json::Array(items.clone()));
                validation.push("enum", Json::Array(items));
            }
            Ok(other) => errors.push(syn::Error::new(
                spans[a.line],
                format!(
                    "`(choices: ...)` must be a JSON array such as [\"a\", \"b\"], found {}",
                    other.kind()
                ),
            )),
            Err(why) => errors.push(syn::Error::new(
                spans[a.line],
                format!(
                    "`(choices: ...)` must be a JSON array such as [\"a\", \"b\"]: {why} in `{text}`"
                ),
            )),
        }
    }
    if let Some((value, span)) = &p.options.default {
        if let Err(why) = json::check(value, &validation) {
            errors.push(syn::Error::new(
                *span,
                format!(
                    "default `{}` does not fit parameter `{}`: {why}",
                    value.to_json_string(),
                    p.name
                ),
            ));
        }
        schema.push("default", value.clone());
        validation.push("default", value.clone());
    }
    if let Some(span) = p.options.grounded {
        let free = |s: &Json| {
            let typed = |t: &str| s.get("type") == Some(&Json::str(t));
            (typed("string") || typed("number") || typed("integer")) && s.get("enum").is_none()
        };
        let list = schema.get("type") == Some(&Json::str("array"))
            && schema.get("items").is_some_and(free);
        if free(&schema) || list {
            // Published only: decoders read it, validation has no use for it.
            schema.push("x-grounded", Json::Bool(true));
        } else {
            errors.push(syn::Error::new(
                span,
                format!(
                    "`grounded` needs a free string or number parameter (`String`, `&str`, \
                     `f64`, `u32`, …, or an `Option` of one) or a list of them (`Vec<String>`); \
                     `{}` is {}",
                    p.name,
                    match (schema.get("enum"), schema.get("type")) {
                        (Some(_), _) => "limited to choices already".to_owned(),
                        (None, Some(Json::Str(t))) => format!("of type {t}"),
                        (None, _) => "not of one type".to_owned(),
                    }
                ),
            ));
        }
    }
    let description = Json::str(description?);
    schema.push("description", description.clone());
    validation.push("description", description);
    Some((schema, validation))
}

/// The doc comment's lines, each with the span of the attribute it came from.
fn doc_lines(attrs: &[syn::Attribute], errors: &mut Vec<syn::Error>) -> (Vec<String>, Vec<Span>) {
    let mut lines = Vec::new();
    let mut spans = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        let text = match &attr.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }),
                ..
            }) => s.value(),
            _ => {
                errors.push(syn::Error::new(
                    attr.span(),
                    "`#[tool]` reads only literal doc comments; describe the tool with \
                     `#[tool(description = \"...\")]` and `#[arg(description = \"...\")]`",
                ));
                continue;
            }
        };
        for line in text.split('\n') {
            lines.push(line.to_owned());
            spans.push(attr.span());
        }
    }
    (lines, spans)
}

pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The candidate within edit distance 2 of `name`, if any.
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    tool_runtime::suggest::closest(name, candidates, |d, _| d <= 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(valid_name("get_weather-2"));
        assert!(!valid_name(""));
        assert!(!valid_name("has space"));
        assert!(!valid_name("dot.ted"));
        assert!(!valid_name(&"a".repeat(65)));
        assert!(valid_name(&"a".repeat(64)));
    }

    #[test]
    fn closest_name() {
        assert_eq!(
            closest("lcoation", ["location", "unit"].into_iter()),
            Some("location")
        );
        assert_eq!(closest("zzz", ["location", "unit"].into_iter()), None);
    }
}
