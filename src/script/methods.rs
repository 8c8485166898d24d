//! The methods and properties of built-in values: `String`, numbers, `Boolean`, `Character`,
//! `List`/arrays, `Map`, `byte[]`, ranges — Java's methods and Groovy's (GDK) additions.
//!
//! STUB: the contract the other parts build on.

use super::value::Value;
use super::{Ctx, Thrown};

/// Calls `name` on a built-in value (not on `Object`, `Class`, `Host` or `Closure` values,
/// which the interpreter dispatches itself). An unknown method is [`Thrown::no_method`].
pub fn call_method(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let _ = (cx, args);
    Err(Thrown::no_method(recv.type_name(), name))
}

/// Reads a property of a built-in value: `map.key`, `array.length`, `list*.x` elements,
/// `str.bytes` (getter), `s.empty` (`isEmpty()`).
pub fn get_property(cx: &mut Ctx<'_>, recv: &Value, name: &str) -> Result<Value, Thrown> {
    let _ = cx;
    Err(Thrown::new(
        "groovy.lang.MissingPropertyException",
        format!("No such property: {name} for class: {}", recv.type_name()),
    ))
}

/// A cast or coercion to a type as written: `(int) x`, `x as Integer`, `int n = x`,
/// `String s = 5` (`coerce` is `as` and typed declarations in Groovy, which convert more
/// than a cast does: `"12" as int` is 12). `type_name` is as written (`int`, `Integer`,
/// `java.util.List`, `String`), `dims` its array dimensions.
pub fn cast(cx: &mut Ctx<'_>, value: Value, type_name: &str, dims: u8, coerce: bool) -> Result<Value, Thrown> {
    let _ = (cx, type_name, dims, coerce);
    Ok(value)
}
