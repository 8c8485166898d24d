//! The methods and properties of built-in values: `String`, numbers, `Boolean`, `Character`,
//! `List`/arrays, `Map`, `byte[]`, ranges — Java's methods and Groovy's (GDK) additions.
//!
//! # Layout
//!
//! - `string`: `String` and `Character`, with the regex methods (`split`, `replaceAll`, ...).
//! - `jregex`: Java regex syntax and replacement strings on `fancy-regex`.
//! - `number`: `Integer`, `Long`, `Double`, `BigDecimal`, their arithmetic and conversions.
//! - `list`: lists, arrays, sets, ranges and `byte[]`; `iterator()` objects.
//! - `map`: maps and their `Map.Entry` objects.
//! - `convert`: casts and coercions (`(int) x`, `x as List`, `String s = 5`).
//!
//! The methods of strings, lists, maps and numbers are tables of rows ([`Method`]: name, how
//! many arguments, function), one function per signature in the family's folder
//! (`list/access.rs`, `string/read.rs`, ...): `STRING`, `LIST`, `MAP`, `NUMBER`, sorted by
//! name, each with a `match` on the name that gives a name's rows (`list_rows`, ...). A call
//! tries its name's rows in order, or the rows it was bound to at load ([`Known`]); what the
//! tables list is what docs/scripts.md lists (a test checks both, and calls every row).
//!
//! Each family answers `Ok(None)` for a method it does not have; the methods every object has
//! (`toString`, `equals`, `getClass`, `with`, ...) are tried last, then `MissingMethodException`.
//! Closures are called through [`Ctx::call_value`]; no container lock is held while a closure
//! runs (it may touch the same container).

mod convert;
pub(crate) mod jregex;
mod list;
mod map;
mod number;
#[cfg(test)]
mod script_tests;
mod string;
#[cfg(test)]
mod table_tests;

pub(crate) use convert::cast;

use super::value::{self, lock, ListKind, Value};
use super::{Ctx, Lang, Thrown};
use std::sync::Arc;

/// A family's answer: `None` when it has no such method.
pub(crate) type Found = Result<Option<Value>, Thrown>;

/// A method's code: the context, the receiver (of the table's type), the name the script
/// called (rows sharing a function tell by it) and the arguments. `Ok(None)` when these
/// arguments are not its signature (another row of the name may take them).
pub(crate) type MethodFn = fn(&mut Ctx<'_>, &Value, &str, &[Value]) -> Found;

/// No upper bound on a row's argument count.
pub(crate) const ANY: u8 = u8::MAX;

/// One method of a receiver type: its name, how many arguments it takes, its code. A type's
/// rows are one table sorted by name, rows of one name in the order they are tried; what the
/// tables list is what a receiver of that type answers (the object methods aside). A call
/// finds its rows by the table's `match` on the name, or at load when its receiver's type is
/// known then ([`Known`]).
#[derive(Debug)]
pub(crate) struct Method {
    pub(crate) name: &'static str,
    pub(crate) min: u8,
    pub(crate) max: u8,
    pub(crate) f: MethodFn,
}

impl Method {
    pub(crate) const fn new(name: &'static str, min: u8, max: u8, f: MethodFn) -> Method {
        Method { name, min, max, f }
    }

    /// Whether this row takes `n` arguments.
    pub(crate) fn takes(&self, n: usize) -> bool {
        n >= self.min as usize && (self.max == ANY || n <= self.max as usize)
    }
}

/// The rows of `name` in a table sorted by name, by a binary search: what each table's `match`
/// on the name (`list::list_rows`, ...) must give, which a test checks.
#[cfg(test)]
pub(crate) fn rows<'t>(table: &'t [Method], name: &str) -> &'t [Method] {
    let start = table.partition_point(|m| m.name < name);
    let len = table[start..].iter().take_while(|m| m.name == name).count();
    &table[start..start + len]
}

/// Calls the first of these rows (a name's, in order) that takes these arguments.
pub(crate) fn dispatch(rows: &[Method], cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    for m in rows {
        debug_assert_eq!(m.name, name, "a table's match gave another name's rows");
        if m.takes(args.len()) {
            if let Some(v) = (m.f)(cx, recv, name, args)? {
                return Ok(Some(v));
            }
        }
    }
    Ok(None)
}

/// A receiver type known at load (a literal, a local declared `String`, `List`, `Map`, an
/// array): a call on it is bound to the rows of its name in the type's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Known {
    Str,
    List,
    Map,
}

impl Known {
    /// The rows `recv.name(...)` binds to: `None` when the type has no method of that name
    /// (the call stays dynamic: what every value has, a map's closure, or a run-time error).
    pub(crate) fn bind(self, name: &str) -> Option<&'static [Method]> {
        let rows = match self {
            Known::Str => string::string_rows(name),
            Known::List => list::list_rows(name),
            Known::Map => map::map_rows(name),
        };
        Some(rows).filter(|r| !r.is_empty())
    }

    /// Whether the value is of this type, so the bound rows apply to it: a declared type does
    /// not guarantee it (a `String` local may hold null), and a map holding a closure under the
    /// method's name calls the closure.
    pub(crate) fn holds(self, v: &Value, name: &str) -> bool {
        match (self, v) {
            (Known::Str, Value::Str(_)) | (Known::List, Value::List(_)) => true,
            (Known::Map, Value::Map(m)) => {
                !matches!(lock(&m.entries).get(&value::Key(Value::str(name))), Some(Value::Closure(_)))
            }
            _ => false,
        }
    }
}

/// `recv.name(args)` bound at load to `rows` (which [`Known::holds`] says apply): the first
/// that takes these arguments, else what every object has.
pub(crate) fn call_bound(
    cx: &mut Ctx<'_>,
    rows: &[Method],
    recv: &Value,
    name: &str,
    args: Vec<Value>,
) -> Result<Value, Thrown> {
    for m in rows {
        if m.takes(args.len()) {
            if let Some(v) = (m.f)(cx, recv, name, &args)? {
                return Ok(v);
            }
        }
    }
    object_method(cx, recv, name, args)
}

/// Calls `name` on a built-in value (not on `Object`, `Class`, `Host` or `Closure` values,
/// which the interpreter dispatches itself). An unknown method is [`Thrown::no_method`].
pub(crate) fn call_method(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let found = match recv {
        Value::Null if cx.lang == Lang::Groovy => return null_method(name, &args),
        Value::Null => return Err(npe(format!("Cannot invoke method {name}() on null object"))),
        Value::Str(_) => string::call(cx, recv, name, &args)?,
        Value::Char(c) => match string::call_char(cx, *c, name, &args)? {
            Some(v) => Some(v),
            None => number::call(cx, recv, name, &args)?,
        },
        Value::Int(_) | Value::Long(_) | Value::Double(_) | Value::Decimal(_) => number::call(cx, recv, name, &args)?,
        Value::Bool(b) => bool_method(*b, name, &args),
        Value::List(l) => list::call(cx, recv, l, name, &args)?,
        Value::Range(a, b) => list::call_range(cx, *a, *b, name, &args)?,
        Value::Bytes(b) => list::call_bytes(cx, b, name, &args)?,
        Value::Map(m) => map::call(cx, recv, m, name, &args)?,
        _ => None,
    };
    match found {
        Some(v) => Ok(v),
        None => object_method(cx, recv, name, args),
    }
}

/// Reads a property of a built-in value: `map.key`, `array.length`, `list.x` (each element's
/// `x`, as Groovy spreads a property a list does not have), `str.bytes` (the getter
/// `getBytes()`), `s.empty` (`isEmpty()`).
pub(crate) fn get_property(cx: &mut Ctx<'_>, recv: &Value, name: &str) -> Result<Value, Thrown> {
    match recv {
        // Groovy: a property of a map is its key, even `class` and `empty`.
        Value::Map(m) => return Ok(map::get(m, &Value::str(name))),
        Value::List(l) if l.kind == ListKind::Array && name == "length" => {
            return Ok(Value::Int(lock(&l.items).len() as i32))
        }
        Value::Bytes(b) if name == "length" => return Ok(Value::Int(b.len() as i32)),
        Value::List(l) if name == "length" && cx.lang == Lang::JavaScript => {
            return Ok(Value::Int(lock(&l.items).len() as i32))
        }
        Value::Str(s) if name == "length" && cx.lang == Lang::JavaScript => {
            return Ok(Value::Int(s.encode_utf16().count() as i32))
        }
        Value::Range(a, b) => match name {
            "from" => return Ok(number::int_or_long(*a.min(b))),
            "to" => return Ok(number::int_or_long(*a.max(b))),
            "reverse" => return Ok(Value::Bool(a > b)),
            _ => {}
        },
        Value::Null => return Err(npe(format!("Cannot get property '{name}' on null object"))),
        _ => {}
    }
    let getter = if name == "class" { "getClass".to_string() } else { format!("get{}", value::capitalize(name)) };
    match call_method(cx, recv, &getter, Vec::new()) {
        Err(e) if e.is_no_method() => {}
        r => return r,
    }
    match call_method(cx, recv, &format!("is{}", value::capitalize(name)), Vec::new()) {
        Err(e) if e.is_no_method() => {}
        r => return r,
    }
    if let Value::List(l) = recv {
        // `list.name`: the property of each element.
        let items = lock(&l.items).clone();
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            out.push(property_of_any(cx, &item, name)?);
        }
        return Ok(Value::list(out));
    }
    Err(no_property(recv, name))
}

/// A property of any value, built-in or not (for `list.name` over elements of any kind).
pub(crate) fn property_of_any(cx: &mut Ctx<'_>, v: &Value, name: &str) -> Result<Value, Thrown> {
    match v {
        Value::Host(h) => cx.host.get(*h, name),
        Value::Object(o) => o.clone().get(cx, name),
        Value::Null => Ok(Value::Null),
        _ => get_property(cx, v, name),
    }
}

pub(crate) fn no_property(recv: &Value, name: &str) -> Thrown {
    Thrown::new(
        "groovy.lang.MissingPropertyException",
        format!("No such property: {name} for class: {}", class_name(recv)),
    )
}

/// Wrong arguments for a method that exists: Groovy reports it as a missing signature.
pub(crate) fn bad_args(recv: &Value, name: &str, args: &[Value]) -> Thrown {
    let types: Vec<&str> = args.iter().map(Value::type_name).collect();
    Thrown::new(
        "groovy.lang.MissingMethodException",
        format!(
            "No signature of method: {}.{name}() is applicable for argument types: ({})",
            class_name(recv),
            types.join(", ")
        ),
    )
}

/// The canonical Java class of a value (`getClass()`).
pub(crate) fn class_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "org.codehaus.groovy.runtime.NullObject",
        Value::Bool(_) => "java.lang.Boolean",
        Value::Int(_) => "java.lang.Integer",
        Value::Long(_) => "java.lang.Long",
        Value::Double(_) => "java.lang.Double",
        Value::Decimal(_) => "java.math.BigDecimal",
        Value::Char(_) => "java.lang.Character",
        Value::Str(_) => "java.lang.String",
        Value::Bytes(_) => "byte[]",
        Value::List(l) => match l.kind {
            ListKind::List if l.json => "net.minidev.json.JSONArray",
            ListKind::List => "java.util.ArrayList",
            ListKind::Array => "java.lang.Object[]",
            ListKind::Set => "java.util.LinkedHashSet",
        },
        Value::Map(m) if m.sorted => "java.util.TreeMap",
        Value::Map(_) => "java.util.LinkedHashMap",
        Value::Range(..) => "groovy.lang.IntRange",
        Value::Closure(_) => "groovy.lang.Closure",
        Value::Object(o) => o.class_name(),
        Value::Class(_) => "java.lang.Class",
        Value::Host(_) => "java.lang.Object",
    }
}

fn npe(message: String) -> Thrown {
    Thrown::new("java.lang.NullPointerException", message)
}

/// Groovy's `NullObject`: the few methods `null` has.
fn null_method(name: &str, args: &[Value]) -> Result<Value, Thrown> {
    match (name, args) {
        ("toString" | "inspect", []) => Ok(Value::str("null")),
        ("equals" | "is", [x]) => Ok(Value::Bool(x.is_null())),
        ("asBoolean", []) => Ok(Value::Bool(false)),
        ("hashCode", []) => Ok(Value::Int(0)),
        ("plus", [Value::Str(s)]) => Ok(Value::str(format!("null{s}"))),
        ("getClass", []) => Ok(Value::Class("org.codehaus.groovy.runtime.NullObject")),
        ("isCase", [x]) => Ok(Value::Bool(x.is_null())),
        ("asType", [_]) => Ok(Value::Null),
        _ => Err(npe(format!("Cannot invoke method {name}() on null object"))),
    }
}

fn bool_method(b: bool, name: &str, args: &[Value]) -> Option<Value> {
    Some(match (name, args) {
        ("booleanValue" | "asBoolean", []) => Value::Bool(b),
        ("and", [x]) => Value::Bool(b && x.truthy()),
        ("or", [x]) => Value::Bool(b || x.truthy()),
        ("xor", [x]) => Value::Bool(b ^ x.truthy()),
        ("implies", [x]) => Value::Bool(!b || x.truthy()),
        ("compareTo", [Value::Bool(x)]) => Value::Int(b as i32 - *x as i32),
        _ => return None,
    })
}

/// Java's `hashCode()` of a value.
pub(crate) fn hash_code(v: &Value) -> i32 {
    match v {
        Value::Null => 0,
        Value::Bool(b) => {
            if *b {
                1231
            } else {
                1237
            }
        }
        Value::Int(i) => *i,
        Value::Long(l) => (*l ^ ((*l as u64) >> 32) as i64) as i32,
        Value::Double(d) => {
            let bits = if d.is_nan() { 0x7ff8000000000000u64 } else { d.to_bits() };
            (bits ^ (bits >> 32)) as i32
        }
        Value::Decimal(d) => {
            // 31 * unscaledValue.hashCode() + scale; the unscaled value's hash as a long's
            // (exact for values that fit in one).
            let m = d.mantissa() as i64;
            31i32.wrapping_mul((m ^ ((m as u64) >> 32) as i64) as i32).wrapping_add(d.scale() as i32)
        }
        Value::Char(c) => *c as i32,
        Value::Str(s) => string::java_hash(s),
        Value::List(l) => {
            let items = lock(&l.items).clone();
            if l.kind == ListKind::Set {
                items.iter().fold(0i32, |h, x| h.wrapping_add(hash_code(x)))
            } else {
                items.iter().fold(1i32, |h, x| h.wrapping_mul(31).wrapping_add(hash_code(x)))
            }
        }
        Value::Map(m) => {
            let entries = lock(&m.entries).clone();
            entries.iter().fold(0i32, |h, (k, v)| h.wrapping_add(hash_code(&k.0) ^ hash_code(v)))
        }
        Value::Range(a, b) => {
            let (a, b) = (*a.min(b), *a.max(b));
            (a..=b).fold(1i32, |h, x| h.wrapping_mul(31).wrapping_add(x as i32))
        }
        Value::Bytes(b) => Arc::as_ptr(b) as usize as i32,
        Value::Closure(c) => Arc::as_ptr(c) as *const () as usize as i32,
        Value::Object(o) => Arc::as_ptr(o) as *const () as usize as i32,
        Value::Class(c) => string::java_hash(c),
        Value::Host(h) => h.0 as i32,
    }
}

/// Java's `equals`: like Groovy's `==` but strict about types (`Integer.equals(Long)` is false,
/// as is a `String` and a `Character`).
pub(crate) fn java_equals(a: &Value, b: &Value) -> bool {
    use Value::*;
    match (a, b) {
        (Int(_), Int(_)) | (Long(_), Long(_)) | (Double(_), Double(_)) | (Char(_), Char(_)) => value::equals(a, b),
        (Decimal(x), Decimal(y)) => x == y && x.scale() == y.scale(),
        (Int(_) | Long(_) | Double(_) | Decimal(_) | Char(_) | Str(_), _) => {
            std::mem::discriminant(a) == std::mem::discriminant(b) && value::equals(a, b)
        }
        _ => value::equals(a, b),
    }
}

/// Groovy's `inspect()`: strings quoted, containers recursively.
pub(crate) fn inspect(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        Value::Char(c) => format!("'{c}'"),
        Value::List(l) => {
            // Metered as `Display` is: lists nested by reference print to far more than they hold.
            let items: Vec<String> = lock(&l.items)
                .iter()
                .map_while(|v| crate::budget::show(value::shown_size(v)).then(|| inspect(v)))
                .collect();
            format!("[{}]", items.join(", "))
        }
        Value::Map(m) => {
            let m = lock(&m.entries);
            if m.is_empty() {
                return "[:]".into();
            }
            let items: Vec<String> = m
                .iter()
                .map_while(|(k, v)| {
                    crate::budget::show(value::shown_size(&k.0) + value::shown_size(v))
                        .then(|| format!("{}:{}", inspect(&k.0), inspect(v)))
                })
                .collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// Identity (`is`, Java's `==` on objects): the same container, or equal plain values.
pub(crate) fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => Arc::ptr_eq(x, y),
        (Value::Map(x), Value::Map(y)) => Arc::ptr_eq(x, y),
        (Value::Bytes(x), Value::Bytes(y)) => Arc::ptr_eq(x, y),
        (Value::Object(x), Value::Object(y)) => std::ptr::addr_eq(Arc::as_ptr(x), Arc::as_ptr(y)),
        (Value::Closure(x), Value::Closure(y)) => Arc::ptr_eq(x, y),
        _ => java_equals(a, b),
    }
}

/// Groovy's `isCase` (what `switch` and `in` use): a class matches its instances, a
/// collection its elements, a closure by calling it, otherwise equality.
pub(crate) fn is_case(cx: &mut Ctx<'_>, case: &Value, x: &Value) -> Result<bool, Thrown> {
    Ok(match case {
        Value::List(l) => lock(&l.items).clone().iter().any(|e| value::equals(e, x)),
        Value::Range(a, b) => {
            x.is_number() && x.as_f64().is_some_and(|f| f >= *a.min(b) as f64 && f <= *a.max(b) as f64)
        }
        Value::Map(m) => map::get(m, x).truthy(),
        Value::Closure(_) => cx.call_value(case, vec![x.clone()])?.truthy(),
        Value::Class(c) => class_name(x) == *c,
        Value::Str(_) => value::equals(case, &Value::str(x.to_string())) && !x.is_null(),
        _ => value::equals(case, x),
    })
}

/// The methods every object has.
fn object_method(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    Ok(match (name, args.as_slice()) {
        ("toString", []) => Value::str(recv.to_string()),
        ("equals", [x]) => Value::Bool(java_equals(recv, x)),
        ("hashCode", []) => Value::Int(hash_code(recv)),
        ("getClass", []) => Value::Class(class_name(recv)),
        ("is", [x]) => Value::Bool(identical(recv, x)),
        ("inspect", []) => Value::str(inspect(recv)),
        ("dump", []) => Value::str(format!("<{}@{:x}>", class_name(recv), hash_code(recv))),
        ("asBoolean", []) => Value::Bool(recv.truthy()),
        ("isCase", [x]) => Value::Bool(is_case(cx, recv, x)?),
        ("asType", [Value::Class(c)]) => cast(cx, recv.clone(), c, 0, true)?,
        ("asType", [Value::Str(c)]) => cast(cx, recv.clone(), c, 0, true)?,
        ("with", [f @ Value::Closure(_)]) => cx.call_value(f, vec![recv.clone()])?,
        ("tap", [f @ Value::Closure(_)]) => {
            cx.call_value(f, vec![recv.clone()])?;
            recv.clone()
        }
        ("identity", [f @ Value::Closure(_)]) => cx.call_value(f, vec![recv.clone()])?,
        ("compareTo", [x]) => match value::compare(recv, x) {
            Some(o) => Value::Int(o as i32),
            None => return Err(bad_args(recv, name, &args)),
        },
        ("execute", _) => return Err(Thrown::security("process execution is not allowed")),
        _ => return Err(Thrown::no_method(class_name(recv).rsplit('.').next().unwrap_or("Object"), name)),
    })
}

/// How many parameters a closure declares (`None` when unknown: not a closure, or the
/// evaluator does not say). A closure written without `->` has one (`it`).
pub(crate) fn arity(f: &Value) -> Option<usize> {
    match f {
        Value::Closure(c) => match &c.kind {
            super::interp::ClosureKind::Code { proto, .. } => Some(proto.params.len().saturating_sub(c.curried.len())),
            super::interp::ClosureKind::Method { .. } => None,
        },
        _ => None,
    }
}

/// The arguments as an `i64` (numbers and chars).
pub(crate) fn int_arg(v: &Value) -> Option<i64> {
    match v {
        Value::Int(_) | Value::Long(_) | Value::Char(_) => v.as_i64(),
        _ => None,
    }
}

/// A Java index check: `Index 5 out of bounds for length 3`.
/// The most characters (or elements) one string, builder or list a script builds may hold:
/// `"x" * n`, `padLeft(n)`, `setLength(n)` with a huge `n` is Java's `OutOfMemoryError`,
/// not gigabytes allocated.
pub(crate) const SIZE_MAX: u64 = 1 << 27;

/// `Ok(n)` when a string of `n` characters fits under [`SIZE_MAX`] and in what is left of the
/// execution's memory budget, else an `OutOfMemoryError`: checked before it is made.
pub(crate) fn checked_size(n: u64) -> Result<usize, Thrown> {
    if n > SIZE_MAX {
        return Err(Thrown::new(
            "java.lang.OutOfMemoryError",
            format!("Java heap space: {n} characters or elements is over stampede's limit of {SIZE_MAX} for one value"),
        ));
    }
    crate::budget::check(n)?;
    Ok(n as usize)
}

/// [`checked_size`] for a list, array or set of `n` elements.
pub(crate) fn checked_items(n: u64) -> Result<usize, Thrown> {
    let n = checked_size(n)?;
    crate::budget::check(n as u64 * crate::budget::VALUE_BYTES)?;
    Ok(n)
}

/// The texts of these values joined by `sep` (`null` as `null_text`), the size checked against
/// the memory budget before it is made: a list of a million references to one long string is
/// small, its join is not.
pub(crate) fn join_texts(items: &[Value], sep: &str, null_text: &str) -> Result<String, Thrown> {
    let mut size = (sep.len() as u64).saturating_mul(items.len().saturating_sub(1) as u64);
    for v in items {
        size = size.saturating_add(match v {
            Value::Str(s) => s.len() as u64,
            _ => 8,
        });
    }
    crate::budget::check(size)?;
    let mut out = String::new();
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        match v {
            Value::Str(s) => out.push_str(s),
            Value::Null => out.push_str(null_text),
            other => {
                let t = other.to_string();
                crate::budget::check((out.len() + t.len()) as u64)?;
                out.push_str(&t);
            }
        }
    }
    Ok(out)
}

pub(crate) fn index_error(class: &str, i: i64, len: usize) -> Thrown {
    Thrown::new(class, format!("Index {i} out of bounds for length {len}"))
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::NoHost;

    /// Calls a method with a fresh context and no host.
    pub(crate) fn invoke(recv: &Value, name: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        call_in(Lang::Groovy, recv, name, args)
    }

    pub(crate) fn call_in(lang: Lang, recv: &Value, name: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut host = NoHost::default();
        let mut cx = Ctx { host: &mut host, lang, state: Default::default() };
        call_method(&mut cx, recv, name, args)
    }

    pub(crate) fn prop(recv: &Value, name: &str) -> Result<Value, Thrown> {
        let mut host = NoHost::default();
        let mut cx = Ctx { host: &mut host, lang: Lang::Groovy, state: Default::default() };
        get_property(&mut cx, recv, name)
    }

    pub(crate) fn cast_in(lang: Lang, v: Value, ty: &str, dims: u8, coerce: bool) -> Result<Value, Thrown> {
        let mut host = NoHost::default();
        let mut cx = Ctx { host: &mut host, lang, state: Default::default() };
        cast(&mut cx, v, ty, dims, coerce)
    }

    /// `call` that must succeed, as the value's string.
    pub(crate) fn s(recv: &Value, name: &str, args: Vec<Value>) -> String {
        match invoke(recv, name, args) {
            Ok(v) => v.to_string(),
            Err(e) => panic!("{name}: {e}"),
        }
    }

    pub(crate) fn ints(xs: &[i32]) -> Value {
        Value::list(xs.iter().map(|&i| Value::Int(i)).collect())
    }

    pub(crate) fn strs(xs: &[&str]) -> Value {
        Value::list(xs.iter().map(|&s| Value::str(s)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn every_value_has_the_object_methods() {
        assert_eq!(s(&Value::Int(5), "toString", vec![]), "5");
        assert_eq!(s(&Value::Double(1.0), "toString", vec![]), "1.0");
        assert!(matches!(invoke(&"a".into(), "getClass", vec![]), Ok(Value::Class("java.lang.String"))));
        assert!(matches!(invoke(&ints(&[1]), "getClass", vec![]), Ok(Value::Class("java.util.ArrayList"))));
        assert_eq!(s(&strs(&["a"]), "inspect", vec![]), "['a']");
        assert_eq!(s(&Value::Int(1), "equals", vec![Value::Long(1)]), "false");
        assert_eq!(s(&Value::Int(1), "equals", vec![Value::Int(1)]), "true");
        let l = ints(&[1]);
        assert_eq!(s(&l, "is", vec![l.clone()]), "true");
        assert_eq!(s(&l, "is", vec![ints(&[1])]), "false");
        assert!(invoke(&Value::Int(1), "frobnicate", vec![]).unwrap_err().is_no_method());
    }

    #[test]
    fn null_has_only_null_objects_methods() {
        assert_eq!(s(&Value::Null, "toString", vec![]), "null");
        let e = invoke(&Value::Null, "size", vec![]).unwrap_err();
        assert_eq!(e.class, "java.lang.NullPointerException");
        assert_eq!(e.message, "Cannot invoke method size() on null object");
    }

    #[test]
    fn hash_codes_are_javas() {
        assert_eq!(hash_code(&"hello".into()), 99162322);
        assert_eq!(hash_code(&Value::Long(1 << 40)), 256);
        assert_eq!(hash_code(&Value::Bool(true)), 1231);
        assert_eq!(hash_code(&Value::Double(1.5)), 1073217536);
        assert_eq!(hash_code(&ints(&[1, 2, 3])), 30817);
        assert_eq!(hash_code(&Value::Null), 0);
    }

    #[test]
    fn properties_are_getters_then_spread_over_lists() {
        assert_eq!(prop(&"".into(), "empty").unwrap().to_string(), "true");
        assert_eq!(prop(&"ab".into(), "bytes").unwrap().type_name(), "byte[]");
        assert!(matches!(prop(&"ab".into(), "class"), Ok(Value::Class("java.lang.String"))));
        let arr = Value::array(vec![Value::Int(1), Value::Int(2)]);
        assert_eq!(prop(&arr, "length").unwrap().to_string(), "2");
        let words = strs(&["a", "bcd"]);
        assert_eq!(prop(&words, "bytes").unwrap().type_name(), "ArrayList");
        assert_eq!(prop(&words, "empty").unwrap().to_string(), "false");
        assert!(prop(&Value::Int(1), "nope").is_err());
        assert_eq!(prop(&Value::Range(1, 4), "to").unwrap().to_string(), "4");
    }
}
