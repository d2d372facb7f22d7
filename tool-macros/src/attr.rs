//! The macro's own attributes: `#[tool(name = "...", description = "...")]`
//! and `#[arg(default = LITERAL, description = "...")]` on parameters.

use crate::json::Json;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr, UnOp};

/// Options of `#[tool(...)]`.
#[derive(Default)]
pub struct ToolArgs {
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    /// Path of the facade crate in generated code (`::tool_use` by default).
    pub krate: Option<syn::Path>,
}

impl ToolArgs {
    pub fn parse(tokens: TokenStream, errors: &mut Vec<syn::Error>) -> ToolArgs {
        let mut args = ToolArgs::default();
        let parser = syn::meta::parser(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let slot_taken = match key.as_str() {
                "name" => set(&mut args.name, meta.value()?.parse()?),
                "description" => set(&mut args.description, meta.value()?.parse()?),
                "crate" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    set(&mut args.krate, lit.parse()?)
                }
                _ => {
                    return Err(meta.error(format!(
                        "unknown `#[tool]` option `{}`; expected `name`, `description` or `crate`",
                        meta.path.to_token_stream()
                    )))
                }
            };
            if slot_taken {
                return Err(meta.error(format!("`{key}` is given twice")));
            }
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, tokens) {
            errors.push(e);
        }
        args
    }

    pub fn krate(&self) -> TokenStream {
        match &self.krate {
            Some(path) => quote!(#path),
            None => quote!(::tool_use),
        }
    }
}

/// Sets `slot` unless it already holds a value; returns whether it did.
fn set<T>(slot: &mut Option<T>, value: T) -> bool {
    let taken = slot.is_some();
    if !taken {
        *slot = Some(value);
    }
    taken
}

/// Options of `#[arg(...)]` on one parameter.
#[derive(Default)]
pub struct ArgOptions {
    /// The default as JSON, with the span of its expression.
    pub default: Option<(Json, Span)>,
    pub description: Option<LitStr>,
    /// `grounded`: the value must be copied from the conversation (the
    /// span of the option, for errors).
    pub grounded: Option<Span>,
}

impl ArgOptions {
    /// Reads and removes the `#[arg]` attributes of a parameter.
    pub fn take(attrs: &mut Vec<syn::Attribute>, errors: &mut Vec<syn::Error>) -> ArgOptions {
        let mut options = ArgOptions::default();
        attrs.retain(|attr| {
            if !attr.path().is_ident("arg") {
                return true;
            }
            let result = attr.parse_nested_meta(|meta| {
                let taken = if meta.path.is_ident("default") {
                    let expr: Expr = meta.value()?.parse()?;
                    let value = literal_json(&expr)?;
                    set(&mut options.default, (value, expr.span()))
                } else if meta.path.is_ident("description") {
                    set(&mut options.description, meta.value()?.parse()?)
                } else if meta.path.is_ident("grounded") {
                    set(&mut options.grounded, meta.path.span())
                } else {
                    return Err(meta.error(format!(
                        "unknown `#[arg]` option `{}`; expected `default`, `description` or `grounded`",
                        meta.path.to_token_stream()
                    )));
                };
                if taken {
                    return Err(meta.error("this option is given twice"));
                }
                Ok(())
            });
            if let Err(e) = result {
                errors.push(e);
            }
            false
        });
        options
    }
}

/// A default value: a literal, a negated number, or an array of those.
fn literal_json(expr: &Expr) -> syn::Result<Json> {
    let err = || {
        syn::Error::new(
            expr.span(),
            "`default` must be a literal (number, string, char, bool) or an array of literals",
        )
    };
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(i) => Ok(Json::Int(i.base10_parse()?)),
            Lit::Float(f) => Ok(Json::Float(f.base10_parse()?)),
            Lit::Str(s) => Ok(Json::Str(s.value())),
            Lit::Char(c) => Ok(Json::Str(c.value().to_string())),
            Lit::Bool(b) => Ok(Json::Bool(b.value)),
            _ => Err(err()),
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match literal_json(&u.expr)? {
            Json::Int(i) => Ok(Json::Int(-i)),
            Json::Float(f) => Ok(Json::Float(-f)),
            _ => Err(err()),
        },
        Expr::Array(a) => Ok(Json::Array(
            a.elems
                .iter()
                .map(literal_json)
                .collect::<syn::Result<_>>()?,
        )),
        Expr::Group(g) => literal_json(&g.expr),
        Expr::Paren(p) => literal_json(&p.expr),
        _ => Err(err()),
    }
}
