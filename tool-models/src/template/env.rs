//! The minijinja environment that behaves like transformers' Jinja2 sandbox.
//!
//! transformers compiles chat templates in an `ImmutableSandboxedEnvironment`
//! with `trim_blocks`, `lstrip_blocks` and loop controls, and adds `tojson`,
//! `raise_exception` and `strftime_now`. Python semantics leak through
//! everywhere (`str.split`, `dict.items`, `True` when printed), so this also
//! installs Python's methods and Python's printing.

use super::filters;
use super::generation;
use super::limits::{self, Limits};
use super::methods;
use super::operators;
use super::python::{self, is_none};
use super::python_ops;
use super::range::range;
use super::tojson::tojson_filter;
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Value, ValueKind, ValueOrKwargs};
use minijinja::{Environment, Error, ErrorKind, Output, State, UndefinedBehavior};

/// Methods that mutate a list or dict in Python; HF's immutable sandbox refuses them.
const MUTATING_METHODS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "sort",
    "reverse",
    "update",
    "setdefault",
    "popitem",
];

/// A fresh environment configured like transformers' (and bounded by `limits`).
pub(crate) fn environment(limits: &Limits) -> Environment<'static> {
    let mut env = Environment::new();
    let mut syntax = SyntaxConfig::builder();
    syntax.trim_blocks(true).lstrip_blocks(true);
    // The default delimiters always build; keep minijinja's syntax if not.
    if let Ok(syntax) = syntax.build() {
        env.set_syntax(syntax);
    }
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    env.set_fuel(limits.fuel);
    env.set_recursion_limit(limits.recursion);
    env.set_unknown_method_callback(call_method);
    env.set_formatter(format_value);
    env.add_filter("tojson", tojson_filter);
    env.add_filter("string", filters::string);
    env.add_filter("indent", filters::indent);
    env.add_filter("select", filters::select);
    env.add_filter("reject", filters::reject);
    env.add_filter("selectattr", filters::selectattr);
    env.add_filter("rejectattr", filters::rejectattr);
    env.add_filter("map", filters::map);
    env.add_filter("list", filters::list);
    env.add_filter("join", filters::join);
    env.add_filter("sort", filters::sort);
    env.add_filter("unique", filters::unique);
    env.add_filter("reverse", filters::reverse);
    env.add_filter("sum", filters::sum);
    env.add_filter("min", filters::min);
    env.add_filter("max", filters::max);
    env.add_filter("batch", filters::batch);
    env.add_filter("length", filters::length);
    env.add_filter("count", filters::length);
    env.add_filter("first", filters::first);
    env.add_filter("last", filters::last);
    env.add_filter("items", filters::items);
    env.add_filter("int", filters::int);
    env.add_filter("escape", filters::escape);
    env.add_filter("e", filters::escape);
    env.add_filter("forceescape", filters::escape);
    env.add_filter("center", filters::center);
    env.add_filter("wordcount", filters::wordcount);
    env.add_test("sequence", filters::is_sequence);
    env.add_test("iterable", filters::is_iterable);
    env.add_filter(generation::FILTER_NAME, generation::mark);
    env.add_function("raise_exception", raise_exception);
    env.add_function("strftime_now", |format: &str| -> Result<String, Error> {
        limits::check()?;
        Ok(limits::now().strftime(format))
    });
    env.add_function("range", range);
    env.add_function(operators::ADD, python_ops::add);
    env.add_function(operators::MOD, python_ops::modulo);
    env.add_function("namespace", namespace);
    env.add_test("none", |v: &Value| is_none(v));
    env
}

fn fmt_error(_: std::fmt::Error) -> Error {
    Error::new(ErrorKind::WriteFailure, "could not write the output")
}

/// `{{ value }}` prints `str(value)`, as in Python.
fn format_value(out: &mut Output, _state: &mut State, value: &Value) -> Result<(), Error> {
    limits::check()?;
    if let Some(s) = value.as_str() {
        return out.write_str(s).map_err(fmt_error);
    }
    python::write_str(out, value).map_err(fmt_error)
}

/// Python's string/list/dict methods, minus those that mutate.
fn call_method(
    state: &mut State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, Error> {
    limits::check()?;
    if MUTATING_METHODS.contains(&method) && matches!(value.kind(), ValueKind::Seq | ValueKind::Map)
    {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "cannot call {}.{method}(): lists and dicts are immutable in chat templates \
                 (as in transformers' sandbox); build a new one, e.g. `x + [item]`",
                value.kind()
            ),
        ));
    }
    let args = methods::markup_args(value, method, args);
    let result = match methods::call(value, method, &args) {
        Some(result) => result?,
        None => minijinja_contrib::pycompat::unknown_method_callback(state, value, method, &args)?,
    };
    Ok(methods::keep_markup(value, result))
}

/// `raise_exception(message)`: the template refuses the input.
fn raise_exception(message: Option<Value>) -> Result<Value, Error> {
    let message = match message {
        Some(m) => m.as_str().map_or_else(|| m.to_string(), str::to_owned),
        None => String::new(),
    };
    limits::record_raise(&message);
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

/// `namespace(...)`, tracked so that the size of what it holds is bounded.
fn namespace(defaults: Option<ValueOrKwargs>) -> Result<Value, Error> {
    limits::check()?;
    let ns = minijinja::functions::namespace(defaults)?;
    limits::register_namespace(&ns)?;
    Ok(ns)
}
