//! The library classes a script may name, and nothing else: `Math`, `Integer`, `Random`,
//! `UUID`, `System`, dates, JSON, encoders, digests, regexes, `StringBuilder`, files (through
//! the host's policy). A class not here cannot load: no process execution, no network.
//!
//! STUB: the contract the other parts build on.

use super::ast::Import;
use super::value::Value;
use super::{Ctx, Thrown};

/// The canonical name of the class a script names (`Random`, `java.util.Random`, an imported
/// or aliased name), or `None` when the class is outside the subset.
pub fn resolve(name: &str, imports: &[Import]) -> Option<&'static str> {
    let _ = (name, imports);
    None
}

/// Whether a class has a static method or field of this name (checked at load time).
pub fn has_static(class: &'static str, name: &str) -> bool {
    let _ = (class, name);
    false
}

/// `new C(args)`.
pub fn construct(cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    let _ = (cx, args);
    Err(Thrown::new("java.lang.UnsupportedOperationException", format!("new {class}")))
}

/// `C.m(args)`.
pub fn call_static(cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let _ = (cx, args);
    Err(Thrown::no_method(class, method))
}

/// `C.FIELD` (`Integer.MAX_VALUE`, `TimeUnit.SECONDS`).
pub fn get_static(cx: &mut Ctx<'_>, class: &'static str, name: &str) -> Result<Value, Thrown> {
    let _ = cx;
    Err(Thrown::new("groovy.lang.MissingPropertyException", format!("No such property: {name} for class: {class}")))
}

/// `v instanceof C`, and which `catch` clause takes an exception (`Thrown` classes are
/// matched by name and superclass).
pub fn is_instance(value: &Value, class: &'static str) -> bool {
    let _ = (value, class);
    false
}

/// Whether an exception of class `thrown` is caught by `catch (C e)` for this `class`
/// (`Exception` catches `NumberFormatException`; `Throwable` catches all).
pub fn catches(class: &'static str, thrown: &str) -> bool {
    let _ = (class, thrown);
    false
}

/// `text =~ pattern`: a `java.util.regex.Matcher` object (Java regex syntax).
pub fn matcher(cx: &mut Ctx<'_>, pattern: &str, text: &str) -> Result<Value, Thrown> {
    let _ = (cx, text);
    Err(Thrown::new("java.util.regex.PatternSyntaxException", format!("regexes are not built yet: {pattern}")))
}

/// The value `catch (e)` binds for an exception: a Throwable object (`getMessage()`,
/// `toString()`, `getClass().getName()`), or the thrown value itself when the script threw one.
pub fn exception_value(thrown: &Thrown) -> Value {
    thrown.value.clone().unwrap_or(Value::Null)
}

/// What `throw v` throws, from the value thrown (an exception object, or anything in Groovy).
pub fn thrown_from(value: Value) -> Thrown {
    Thrown { class: "java.lang.Exception".into(), message: value.to_string(), pos: None, value: Some(value) }
}
