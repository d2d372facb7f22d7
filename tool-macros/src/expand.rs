//! Generates code: for `#[tool]` on a function, an item of the same name that
//! carries the definition and implements `Tool`; for `#[tools]` on an impl
//! block, one hidden tool per `#[tool]` method and a `ToolSet` impl.

use crate::analyse::{self, Definition, Param, Receiver};
use crate::attr::ToolArgs;
use crate::types::{self, Pass};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{ItemFn, ItemImpl, Signature};

/// The item an attribute is on, as `T`, and the attribute's arguments (with
/// the problems found in them); or, when the item is not a `T`, `wrong_item`
/// as a compile error, the item kept as it was.
fn parse<T: syn::parse::Parse>(
    attr: TokenStream,
    item: TokenStream,
    wrong_item: &str,
) -> Result<(T, ToolArgs, Vec<syn::Error>), TokenStream> {
    let Ok(parsed) = syn::parse2(item.clone()) else {
        let err = syn::Error::new(Span::call_site(), wrong_item).to_compile_error();
        return Err(quote!(#err #item));
    };
    let mut errors = Vec::new();
    let args = ToolArgs::parse(attr, &mut errors);
    Ok((parsed, args, errors))
}

/// Expands `#[tool(attr)] item`.
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let (mut func, args, mut errors) = match parse::<ItemFn>(
        attr,
        item,
        "`#[tool]` goes on a function (`fn name(...) -> T`), or on a method in an impl block marked `#[tools]`",
    ) {
        Ok(parsed) => parsed,
        Err(refused) => return refused,
    };
    let params = analyse::take_params(&mut func.sig, Receiver::Forbidden, &mut errors);
    let def = analyse::definition(&func.attrs, &func.sig, &args, &params, &mut errors);
    let def = match def {
        Some(def) if errors.is_empty() => def,
        _ => {
            let errors = errors.iter().map(syn::Error::to_compile_error);
            return quote!(#(#errors)* #func);
        }
    };

    let krate = args.krate();
    let vis = &func.vis;
    let ident = &func.sig.ident;
    let doc = format!(
        "The tool definition of [`{}()`]: its name and JSON schema.",
        ident.unraw()
    );
    let items = definition_items(&def, &krate);
    let fn_path = quote!(#ident);
    let tool_impl = tool_impl(ident, &func.sig, &params, &fn_path, &krate);
    quote! {
        #func

        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        #[allow(dead_code)]
        impl #ident {
            #items
            #[doc(hidden)]
            pub const __NEW: Self = Self {};
        }

        #tool_impl
    }
}

/// Expands `#[tools] impl Type { ... }`.
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    let (mut block, args, mut errors) = match parse::<ItemImpl>(
        attr,
        item,
        "`#[tools]` goes on an inherent impl block (`impl Type { ... }`)",
    ) {
        Ok(parsed) => parsed,
        Err(refused) => return refused,
    };
    if args.name.is_some() || args.description.is_some() {
        errors.push(syn::Error::new(
            Span::call_site(),
            "`#[tools]` only takes `crate = \"...\"`; name and describe each `#[tool]` method",
        ));
    }
    if let Some(t) = &block.trait_ {
        errors.push(syn::Error::new(
            t.1.span(),
            "`#[tools]` goes on an inherent impl block, not a trait impl",
        ));
    }
    if !block.generics.params.is_empty() {
        errors.push(syn::Error::new(
            block.generics.span(),
            "`#[tools]` cannot be generic: each tool needs one concrete schema",
        ));
    }
    let self_ty = block.self_ty.clone();
    let type_name = match &*self_ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.unraw().to_string()),
        _ => None,
    }
    .unwrap_or_else(|| "Tools".into());
    let krate = args.krate();

    let mut generated = Vec::new();
    let mut constructors = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for item in &mut block.items {
        let syn::ImplItem::Fn(method) = item else {
            continue;
        };
        let Some(pos) = method.attrs.iter().position(|a| a.path().is_ident("tool")) else {
            continue;
        };
        let attr = method.attrs.remove(pos);
        let tool_args = match &attr.meta {
            syn::Meta::Path(_) => ToolArgs::default(),
            syn::Meta::List(list) => ToolArgs::parse(list.tokens.clone(), &mut errors),
            syn::Meta::NameValue(nv) => {
                errors.push(syn::Error::new(
                    nv.span(),
                    "write `#[tool]` or `#[tool(...)]`",
                ));
                continue;
            }
        };
        let before = errors.len();
        let params = analyse::take_params(&mut method.sig, Receiver::Required, &mut errors);
        let def = analyse::definition(&method.attrs, &method.sig, &tool_args, &params, &mut errors);
        let Some(def) = def.filter(|_| errors.len() == before) else {
            continue;
        };
        if seen.contains(&def.name) {
            errors.push(syn::Error::new(
                method.sig.ident.span(),
                format!("two tools in this block are named `{}`; rename one with `#[tool(name = \"...\")]`", def.name),
            ));
            continue;
        }
        seen.push(def.name.clone());

        let method_ident = &method.sig.ident;
        let holder = format_ident!("__{}_{}_tool", type_name, method_ident.unraw());
        let doc = format!("The `{}` tool of `{type_name}`.", def.name);
        let items = definition_items(&def, &krate);
        let call = quote!(self.0.#method_ident);
        let tool_impl = tool_impl(&holder, &method.sig, &params, &call, &krate);
        generated.push(quote! {
            #[doc = #doc]
            #[allow(non_camel_case_types, dead_code)]
            struct #holder(::std::sync::Arc<#self_ty>);

            #[allow(dead_code)]
            impl #holder {
                #items
            }

            #tool_impl
        });
        constructors.push(quote! {
            ::std::sync::Arc::new(#holder(::std::sync::Arc::clone(&self)))
                as ::std::sync::Arc<dyn #krate::__private::Tool>
        });
    }
    if seen.is_empty() && errors.is_empty() {
        errors.push(syn::Error::new(
            block.impl_token.span(),
            "`#[tools]` found no `#[tool]` method in this impl block",
        ));
    }
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote! {
        #(#errors)*
        #block

        #(#generated)*

        impl #krate::__private::ToolSet for #self_ty {
            fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::__private::Tool>> {
                ::std::vec![#(#constructors),*]
            }
        }
    }
}

/// `NAME`, `DESCRIPTION`, `SCHEMA_JSON` and `schema()` (plus the validation schema).
fn definition_items(def: &Definition, krate: &TokenStream) -> TokenStream {
    let name = &def.name;
    let description = &def.description;
    let value = quote!(#krate::__private::serde_json::Value);
    let (schema_const, build) = if def.schema.is_static() {
        let text = def.schema.to_json_string();
        (
            quote! {
                /// The tool definition as compact JSON text, made at compile time.
                pub const SCHEMA_JSON: &'static str = #text;
            },
            quote!(#krate::__private::parse_schema(Self::SCHEMA_JSON)),
        )
    } else {
        (TokenStream::new(), def.schema.to_tokens(krate))
    };
    let validation = def.validation.to_tokens(krate);
    quote! {
        /// The tool's name, as the model calls it.
        pub const NAME: &'static str = #name;
        /// What the tool does, as the model reads it.
        pub const DESCRIPTION: &'static str = #description;
        #schema_const
        /// The tool definition `{"type": "function", "function": {...}}`, built once.
        pub fn schema() -> &'static #value {
            Self::__definition().as_json()
        }
        /// The tool definition, built and read once.
        #[doc(hidden)]
        pub fn __definition() -> &'static #krate::__private::ToolDefinition {
            static DEFINITION: ::std::sync::OnceLock<#krate::__private::ToolDefinition> =
                ::std::sync::OnceLock::new();
            DEFINITION.get_or_init(|| #krate::__private::definition(#build))
        }
        /// The `parameters` schema with every bound serde enforces, built once.
        #[doc(hidden)]
        pub fn __validation_schema() -> &'static #value {
            static SCHEMA: ::std::sync::OnceLock<#value> = ::std::sync::OnceLock::new();
            SCHEMA.get_or_init(|| #validation)
        }
    }
}

/// `impl Tool for #holder`: reads each argument, calls `#call`, writes the result.
fn tool_impl(
    holder: &syn::Ident,
    sig: &Signature,
    params: &[Param],
    call: &TokenStream,
    krate: &TokenStream,
) -> TokenStream {
    let p = quote!(#krate::__private);
    let vars: Vec<_> = (0..params.len())
        .map(|i| format_ident!("__arg{}", i))
        .collect();
    let reads = params.iter().zip(&vars).filter(|(param, _)| !param.context).map(|(param, var)| {
        let (ty, pass) = types::owned(&param.ty);
        let name = &param.name;
        let binding = if pass == Pass::RefMut {
            quote!(mut #var)
        } else {
            quote!(#var)
        };
        // Spanned on the parameter's type, so a type serde cannot read is reported there.
        let take = respan(quote!(#p::take_arg), param.ty.span());
        quote_spanned!(param.ty.span()=> let #binding: #ty = #take(Self::NAME, &mut args, #name)?;)
    });
    let passes = params
        .iter()
        .zip(&vars)
        .map(|(param, var)| match types::owned(&param.ty).1 {
            _ if param.context => quote!(&__context),
            Pass::Value => quote!(#var),
            Pass::Ref => quote!(&#var),
            Pass::RefMut => quote!(&mut #var),
        });
    let awaited = if sig.asyncness.is_some() {
        quote!(.await)
    } else {
        TokenStream::new()
    };
    let returned = quote!(#call(#(#passes),*)#awaited);
    let output = match &sig.output {
        syn::ReturnType::Type(_, ty) if types::is_result(ty) => {
            let write = respan(quote!(#p::result_output), ty.span());
            quote!(#write(Self::NAME, #returned))
        }
        syn::ReturnType::Type(_, ty) => {
            let write = respan(quote!(#p::output), ty.span());
            quote!(#write(Self::NAME, #returned))
        }
        syn::ReturnType::Default => quote!(#p::output(Self::NAME, #returned)),
    };
    let body = quote! {
        #(#reads)*
        #output
    };
    let invocation = if sig.asyncness.is_some() {
        quote!(#p::Invocation::Future(::std::boxed::Box::pin(async move { #body })))
    } else {
        quote!(#p::Invocation::Blocking(::std::boxed::Box::new(move || { #body })))
    };
    let mut_args = if params.iter().all(|p| p.context) {
        quote!(args)
    } else {
        quote!(mut args)
    };
    quote! {
        impl #p::Tool for #holder {
            fn name(&self) -> &str {
                Self::NAME
            }
            fn definition(&self) -> &#p::ToolDefinition {
                Self::__definition()
            }
            fn validation_schema(&self) -> &#p::serde_json::Value {
                Self::__validation_schema()
            }
            fn invoke(
                self: ::std::sync::Arc<Self>,
                #mut_args: #p::serde_json::Map<::std::string::String, #p::serde_json::Value>,
                __context: #p::ToolContext,
            ) -> #p::Invocation {
                let _ = (&args, &__context);
                #invocation
            }
        }
    }
}

/// The same tokens, all located at `span` (so errors about them point there).
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            if let proc_macro2::TokenTree::Group(g) = &t {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                return proc_macro2::TokenTree::Group(group);
            }
            t.set_span(span);
            t
        })
        .collect()
}
