//! java.lang: `Math`, the boxed numbers and their statics, `String` statics and Java's
//! `Formatter` (`String.format`), `StringBuilder`, `System`, `Thread`, `Object`.

use super::{
    arg, bytes_of, f64_arg, fd, illegal_arg, int_arg, items_of, native_base, no_method, no_property, obj, st, str_arg,
    Class, Field, Static, VAR,
};
use crate::value::{java_double, lock, Native, Value};
use crate::{budget, Ctx, Thrown};
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::Decimal;
use std::sync::{Arc, Mutex, OnceLock, Weak};

mod format;
pub(crate) use format::format;
use format::*;
mod builder;
pub(crate) use builder::char_offset;
use builder::*;

const NUMBER_STATICS: &[Static] = &[
    st("parseInt", 1, 2, call_static),
    st("parseLong", 1, 2, call_static),
    st("parseShort", 1, 2, call_static),
    st("parseByte", 1, 2, call_static),
    st("valueOf", 1, 2, call_static),
    st("toString", 1, 2, call_static),
    st("toHexString", 1, 1, call_static),
    st("toBinaryString", 1, 1, call_static),
    st("toOctalString", 1, 1, call_static),
    st("compare", 2, 2, call_static),
    st("sum", 2, 2, call_static),
    st("max", 2, 2, call_static),
    st("min", 2, 2, call_static),
    st("signum", 1, 1, call_static),
    st("bitCount", 1, 1, call_static),
    st("abs", 1, 1, call_static),
    st("decode", 1, 2, call_static),
    st("hashCode", 1, 1, call_static),
    st("parseUnsignedInt", 1, 2, call_static),
];

const NUMBER_FIELDS: &[Field] =
    &[fd("MAX_VALUE", get_static), fd("MIN_VALUE", get_static), fd("SIZE", get_static), fd("BYTES", get_static)];

const DOUBLE_STATICS: &[Static] = &[
    st("parseDouble", 1, 1, call_static),
    st("parseFloat", 1, 1, call_static),
    st("valueOf", 1, 1, call_static),
    st("toString", 1, 1, call_static),
    st("isNaN", 1, 1, call_static),
    st("isInfinite", 1, 1, call_static),
    st("isFinite", 1, 1, call_static),
    st("compare", 2, 2, call_static),
    st("sum", 2, 2, call_static),
    st("max", 2, 2, call_static),
    st("min", 2, 2, call_static),
];

const DOUBLE_FIELDS: &[Field] = &[
    fd("MAX_VALUE", get_static),
    fd("MIN_VALUE", get_static),
    fd("POSITIVE_INFINITY", get_static),
    fd("NEGATIVE_INFINITY", get_static),
    fd("NaN", get_static),
];

pub(super) const CLASSES: &[Class] = &[
    Class {
        name: "java.lang.Math",
        new: None,
        statics: &[
            st("abs", 1, 1, call_static),
            st("max", 2, 2, call_static),
            st("min", 2, 2, call_static),
            st("pow", 2, 2, call_static),
            st("sqrt", 1, 1, call_static),
            st("cbrt", 1, 1, call_static),
            st("floor", 1, 1, call_static),
            st("ceil", 1, 1, call_static),
            st("round", 1, 1, call_static),
            st("rint", 1, 1, call_static),
            st("random", 0, 0, call_static),
            st("floorDiv", 2, 2, call_static),
            st("floorMod", 2, 2, call_static),
            st("log", 1, 1, call_static),
            st("log10", 1, 1, call_static),
            st("exp", 1, 1, call_static),
            st("sin", 1, 1, call_static),
            st("cos", 1, 1, call_static),
            st("tan", 1, 1, call_static),
            st("asin", 1, 1, call_static),
            st("acos", 1, 1, call_static),
            st("atan", 1, 1, call_static),
            st("atan2", 2, 2, call_static),
            st("signum", 1, 1, call_static),
            st("hypot", 2, 2, call_static),
            st("toRadians", 1, 1, call_static),
            st("toDegrees", 1, 1, call_static),
            st("addExact", 2, 2, call_static),
            st("subtractExact", 2, 2, call_static),
            st("multiplyExact", 2, 2, call_static),
            st("negateExact", 1, 1, call_static),
            st("incrementExact", 1, 1, call_static),
            st("decrementExact", 1, 1, call_static),
            st("toIntExact", 1, 1, call_static),
        ],
        fields: &[fd("PI", get_static), fd("E", get_static)],
    },
    Class {
        name: "java.lang.StrictMath",
        new: None,
        statics: &[
            st("abs", 1, 1, call_static),
            st("max", 2, 2, call_static),
            st("min", 2, 2, call_static),
            st("pow", 2, 2, call_static),
            st("sqrt", 1, 1, call_static),
            st("floor", 1, 1, call_static),
            st("ceil", 1, 1, call_static),
            st("round", 1, 1, call_static),
            st("random", 0, 0, call_static),
        ],
        fields: &[],
    },
    Class { name: "java.lang.Integer", new: Some(construct), statics: NUMBER_STATICS, fields: NUMBER_FIELDS },
    Class { name: "java.lang.Long", new: Some(construct), statics: NUMBER_STATICS, fields: NUMBER_FIELDS },
    Class { name: "java.lang.Short", new: Some(construct), statics: NUMBER_STATICS, fields: NUMBER_FIELDS },
    Class { name: "java.lang.Byte", new: Some(construct), statics: NUMBER_STATICS, fields: NUMBER_FIELDS },
    Class { name: "java.lang.Double", new: Some(construct), statics: DOUBLE_STATICS, fields: DOUBLE_FIELDS },
    Class { name: "java.lang.Float", new: Some(construct), statics: DOUBLE_STATICS, fields: DOUBLE_FIELDS },
    Class { name: "java.lang.Number", new: None, statics: &[], fields: &[] },
    Class {
        name: "java.lang.Boolean",
        new: Some(construct),
        statics: &[
            st("parseBoolean", 1, 1, call_static),
            st("valueOf", 1, 1, call_static),
            st("toString", 1, 1, call_static),
            st("logicalAnd", 2, 2, call_static),
            st("logicalOr", 2, 2, call_static),
            st("logicalXor", 2, 2, call_static),
            st("compare", 2, 2, call_static),
        ],
        fields: &[fd("TRUE", get_static), fd("FALSE", get_static)],
    },
    Class {
        name: "java.lang.Character",
        new: None,
        statics: &[
            st("isDigit", 1, 1, call_static),
            st("isLetter", 1, 1, call_static),
            st("isLetterOrDigit", 1, 1, call_static),
            st("isAlphabetic", 1, 1, call_static),
            st("isWhitespace", 1, 1, call_static),
            st("isSpaceChar", 1, 1, call_static),
            st("isUpperCase", 1, 1, call_static),
            st("isLowerCase", 1, 1, call_static),
            st("toUpperCase", 1, 1, call_static),
            st("toLowerCase", 1, 1, call_static),
            st("getNumericValue", 1, 1, call_static),
            st("digit", 2, 2, call_static),
            st("forDigit", 2, 2, call_static),
            st("valueOf", 1, 1, call_static),
            st("toString", 1, 1, call_static),
            st("toChars", 1, 1, call_static),
            st("compare", 2, 2, call_static),
        ],
        fields: &[fd("MAX_VALUE", get_static), fd("MIN_VALUE", get_static)],
    },
    Class {
        name: "java.lang.String",
        new: Some(construct),
        statics: &[
            st("valueOf", 1, 1, call_static),
            st("format", 1, VAR, call_static),
            st("join", 2, VAR, call_static),
            st("copyValueOf", 1, 1, call_static),
        ],
        fields: &[fd("CASE_INSENSITIVE_ORDER", get_static)],
    },
    Class { name: "java.lang.CharSequence", new: None, statics: &[], fields: &[] },
    Class { name: "java.lang.Comparable", new: None, statics: &[], fields: &[] },
    Class { name: "java.lang.Iterable", new: None, statics: &[], fields: &[] },
    Class { name: "java.lang.StringBuilder", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.lang.StringBuffer", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "java.lang.System",
        new: None,
        statics: &[
            st("currentTimeMillis", 0, 0, call_static),
            st("nanoTime", 0, 0, call_static),
            st("getProperty", 1, 2, call_static),
            st("getenv", 1, 1, call_static),
            st("lineSeparator", 0, 0, call_static),
            st("exit", 0, VAR, call_static),
            st("load", 0, VAR, call_static),
            st("loadLibrary", 0, VAR, call_static),
            st("setProperty", 0, VAR, call_static),
            st("clearProperty", 0, VAR, call_static),
            st("setOut", 0, VAR, call_static),
            st("setErr", 0, VAR, call_static),
            st("gc", 0, 0, call_static),
            st("identityHashCode", 1, 1, call_static),
        ],
        fields: &[fd("out", get_static), fd("err", get_static)],
    },
    Class {
        name: "java.lang.Thread",
        new: None,
        statics: &[
            st("sleep", 1, 2, call_static),
            st("currentThread", 0, 0, call_static),
            st("yield", 0, 0, call_static),
            st("onSpinWait", 0, 0, call_static),
            st("interrupted", 0, 0, call_static),
        ],
        fields: &[],
    },
    Class { name: "java.lang.Object", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.lang.Class", new: None, statics: &[], fields: &[] },
];

/// Supertypes of this family's objects, for `instanceof`.
pub(super) fn object_is(o: &dyn Native, class: &str) -> bool {
    matches!(
        (o.class_name(), class),
        ("java.lang.StringBuilder" | "java.lang.StringBuffer", "java.lang.CharSequence")
            | ("java.util.Date", "java.lang.Comparable")
            | ("java.io.BufferedWriter" | "java.io.PrintWriter" | "java.io.FileWriter", "java.io.Writer")
            | ("java.io.BufferedReader" | "java.io.FileReader", "java.io.Reader")
            | (
                "java.util.concurrent.atomic.AtomicInteger" | "java.util.concurrent.atomic.AtomicLong",
                "java.lang.Number"
            )
    )
}

fn construct(_cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class {
        "java.lang.StringBuilder" | "java.lang.StringBuffer" => {
            let init = match args.first() {
                None | Some(Value::Int(_) | Value::Long(_)) => String::new(),
                Some(v) => v.to_string(),
            };
            budget::charge(init.len() as u64)?;
            Ok(StringBuilder::value(class, init))
        }
        "java.lang.Object" => Ok(obj(PlainObject)),
        "java.lang.String" => new_string(&args),
        "java.lang.Integer" | "java.lang.Long" | "java.lang.Short" | "java.lang.Byte" | "java.lang.Double"
        | "java.lang.Float" | "java.lang.Boolean" => number_static(class, "valueOf", args),
        "java.lang.Thread" => Err(Thrown::security("scripts may not start threads")),
        _ => Err(illegal_arg(format!("{class} has no public constructor"))),
    }
}

/// `new String(bytes[, charset])`, `new String(chars)`, `new String(s)`.
fn new_string(args: &[Value]) -> Result<Value, Thrown> {
    match args.first() {
        None => Ok(Value::str("")),
        Some(Value::Bytes(b)) => {
            let charset = args.get(1).map(|c| c.to_string().to_ascii_uppercase());
            Ok(Value::str(super::codec::decode_charset(b, charset.as_deref())?))
        }
        Some(Value::List(l)) if lock(&l.items).iter().all(|c| matches!(c, Value::Char(_))) => {
            Ok(Value::str(lock(&l.items).iter().map(|c| c.to_string()).collect::<String>()))
        }
        Some(v @ Value::List(_)) => Ok(Value::str(String::from_utf8_lossy(&bytes_of(v)?).into_owned())),
        Some(v) => Ok(Value::str(v.to_string())),
    }
}

fn get_static(_cx: &mut Ctx<'_>, class: &'static str, name: &str) -> Result<Value, Thrown> {
    Ok(match (class, name) {
        ("java.lang.Math" | "java.lang.StrictMath", "PI") => Value::Double(std::f64::consts::PI),
        ("java.lang.Math" | "java.lang.StrictMath", "E") => Value::Double(std::f64::consts::E),
        ("java.lang.Integer", "MAX_VALUE") => Value::Int(i32::MAX),
        ("java.lang.Integer", "MIN_VALUE") => Value::Int(i32::MIN),
        ("java.lang.Long", "MAX_VALUE") => Value::Long(i64::MAX),
        ("java.lang.Long", "MIN_VALUE") => Value::Long(i64::MIN),
        ("java.lang.Short", "MAX_VALUE") => Value::Int(i16::MAX as i32),
        ("java.lang.Short", "MIN_VALUE") => Value::Int(i16::MIN as i32),
        ("java.lang.Byte", "MAX_VALUE") => Value::Int(i8::MAX as i32),
        ("java.lang.Byte", "MIN_VALUE") => Value::Int(i8::MIN as i32),
        ("java.lang.Integer", "SIZE") => Value::Int(32),
        ("java.lang.Long", "SIZE") => Value::Int(64),
        ("java.lang.Integer", "BYTES") => Value::Int(4),
        ("java.lang.Long", "BYTES") => Value::Int(8),
        ("java.lang.Short", "SIZE") => Value::Int(16),
        ("java.lang.Byte", "SIZE") => Value::Int(8),
        ("java.lang.Short", "BYTES") => Value::Int(2),
        ("java.lang.Byte", "BYTES") => Value::Int(1),
        ("java.lang.Double", "MAX_VALUE") => Value::Double(f64::MAX),
        ("java.lang.Double", "MIN_VALUE") => Value::Double(f64::from_bits(1)),
        ("java.lang.Float", "MAX_VALUE") => Value::Double(f32::MAX as f64),
        ("java.lang.Float", "MIN_VALUE") => Value::Double(f32::from_bits(1) as f64),
        ("java.lang.Double" | "java.lang.Float", "POSITIVE_INFINITY") => Value::Double(f64::INFINITY),
        ("java.lang.Double" | "java.lang.Float", "NEGATIVE_INFINITY") => Value::Double(f64::NEG_INFINITY),
        ("java.lang.Double" | "java.lang.Float", "NaN") => Value::Double(f64::NAN),
        ("java.lang.Boolean", "TRUE") => Value::Bool(true),
        ("java.lang.Boolean", "FALSE") => Value::Bool(false),
        ("java.lang.Character", "MAX_VALUE") => Value::Char('\u{ffff}'),
        ("java.lang.Character", "MIN_VALUE") => Value::Char('\0'),
        ("java.lang.System", "out") => obj(PrintStream { err: false }),
        ("java.lang.System", "err") => obj(PrintStream { err: true }),
        ("java.lang.String", "CASE_INSENSITIVE_ORDER") => Value::str("CASE_INSENSITIVE_ORDER"),
        _ => return Err(no_property(class, name)),
    })
}

fn call_static(cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class {
        "java.lang.Math" | "java.lang.StrictMath" => {
            math(method, &args).ok_or_else(|| math_error(class, method, &args))?
        }
        "java.lang.String" => string_static(cx, method, args),
        "java.lang.System" => system(cx, method, args),
        "java.lang.Thread" => thread_static(cx, method, &args),
        "java.lang.Character" => character(method, &args),
        _ => number_static(class, method, args),
    }
}

fn math_error(class: &str, method: &str, args: &[Value]) -> Thrown {
    if args.iter().any(Value::is_null) {
        return Thrown::new("java.lang.NullPointerException", format!("Math.{method}: an argument is null"));
    }
    if method.ends_with("Exact") {
        return Thrown::new(
            "java.lang.ArithmeticException",
            format!("{} overflow", if method == "toIntExact" { "integer" } else { "long" }),
        );
    }
    if matches!(method, "floorDiv" | "floorMod") {
        return Thrown::new("java.lang.ArithmeticException", "/ by zero");
    }
    no_method(class, method)
}

/// The numeric kind of arguments, as Java's overloads pick: int, long or double.
#[derive(PartialEq, PartialOrd, Clone, Copy)]
enum Kind {
    Int,
    Long,
    Double,
}

fn kind(args: &[Value]) -> Option<Kind> {
    args.iter().try_fold(Kind::Int, |k, v| {
        let this = match v {
            Value::Int(_) | Value::Char(_) => Kind::Int,
            Value::Long(_) => Kind::Long,
            Value::Double(_) | Value::Decimal(_) => Kind::Double,
            _ => return None,
        };
        Some(if this > k { this } else { k })
    })
}

fn math(method: &str, args: &[Value]) -> Option<Result<Value, Thrown>> {
    let k = kind(args)?;
    let f = |i: usize| args.get(i).and_then(Value::as_f64);
    let l = |i: usize| args.get(i).and_then(Value::as_i64);
    let d = |x: f64| Some(Ok(Value::Double(x)));
    let typed = |x: i64| Some(Ok(if k == Kind::Int { Value::Int(x as i32) } else { Value::Long(x) }));
    match (method, args.len()) {
        ("random", 0) => d(rand::random::<f64>()),
        ("abs", 1) if k == Kind::Double => d(f(0)?.abs()),
        ("abs", 1) if k == Kind::Int => typed((l(0)? as i32).wrapping_abs() as i64),
        ("abs", 1) => typed(l(0)?.wrapping_abs()),
        ("max", 2) if k == Kind::Double => d(java_max(f(0)?, f(1)?)),
        ("min", 2) if k == Kind::Double => d(java_min(f(0)?, f(1)?)),
        ("max", 2) => typed(l(0)?.max(l(1)?)),
        ("min", 2) => typed(l(0)?.min(l(1)?)),
        ("pow", 2) => d(f(0)?.powf(f(1)?)),
        ("sqrt", 1) => d(f(0)?.sqrt()),
        ("cbrt", 1) => d(f(0)?.cbrt()),
        ("floor", 1) => d(f(0)?.floor()),
        ("ceil", 1) => d(f(0)?.ceil()),
        ("rint", 1) => d(f(0)?.round_ties_even()),
        ("round", 1) => {
            let x = f(0)?;
            // Java: floor(x + 0.5), NaN → 0, saturating.
            Some(Ok(Value::Long(if x.is_nan() { 0 } else { (x + 0.5).floor() as i64 })))
        }
        ("floorDiv", 2) if k != Kind::Double => {
            let (a, b) = (l(0)?, l(1)?);
            if b == 0 {
                return None;
            }
            Some(Ok(floor_div(a, b, k)))
        }
        ("floorMod", 2) if k != Kind::Double => {
            let (a, b) = (l(0)?, l(1)?);
            if b == 0 {
                return None;
            }
            typed(a - floor_div_raw(a, b) * b)
        }
        ("log", 1) => d(f(0)?.ln()),
        ("log10", 1) => d(f(0)?.log10()),
        ("exp", 1) => d(f(0)?.exp()),
        ("sin", 1) => d(f(0)?.sin()),
        ("cos", 1) => d(f(0)?.cos()),
        ("tan", 1) => d(f(0)?.tan()),
        ("asin", 1) => d(f(0)?.asin()),
        ("acos", 1) => d(f(0)?.acos()),
        ("atan", 1) => d(f(0)?.atan()),
        ("atan2", 2) => d(f(0)?.atan2(f(1)?)),
        ("hypot", 2) => d(f(0)?.hypot(f(1)?)),
        ("toRadians", 1) => d(f(0)?.to_radians()),
        ("toDegrees", 1) => d(f(0)?.to_degrees()),
        ("signum", 1) => {
            let x = f(0)?;
            d(if x == 0.0 || x.is_nan() { x } else { x.signum() })
        }
        ("addExact" | "subtractExact" | "multiplyExact", 2) if k != Kind::Double => {
            let (a, b) = (l(0)?, l(1)?);
            let r = match method {
                "addExact" => a.checked_add(b),
                "subtractExact" => a.checked_sub(b),
                _ => a.checked_mul(b),
            }?;
            if k == Kind::Int && i32::try_from(r).is_err() {
                return None;
            }
            typed(r)
        }
        ("negateExact" | "incrementExact" | "decrementExact", 1) if k != Kind::Double => {
            let a = l(0)?;
            let r = match method {
                "negateExact" => a.checked_neg(),
                "incrementExact" => a.checked_add(1),
                _ => a.checked_sub(1),
            }?;
            if k == Kind::Int && i32::try_from(r).is_err() {
                return None;
            }
            typed(r)
        }
        ("toIntExact", 1) => Some(Ok(Value::Int(i32::try_from(l(0)?).ok()?))),
        _ => None,
    }
}

fn floor_div_raw(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn floor_div(a: i64, b: i64, k: Kind) -> Value {
    let q = floor_div_raw(a, b);
    if k == Kind::Int {
        Value::Int(q as i32)
    } else {
        Value::Long(q)
    }
}

fn java_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn java_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `NumberFormatException: For input string: "x"` (with ` under radix 16` when not 10).
pub(crate) fn number_format(s: &str, radix: u32) -> Thrown {
    let under = if radix == 10 { String::new() } else { format!(" under radix {radix}") };
    Thrown::new("java.lang.NumberFormatException", format!("For input string: \"{s}\"{under}"))
}

/// Java's `Long.parseLong(s, radix)`, bounded to `[min, max]`.
pub(crate) fn parse_integer(v: &Value, radix: u32, min: i64, max: i64) -> Result<i64, Thrown> {
    if !(2..=36).contains(&radix) {
        let side = if radix < 2 { "less than Character.MIN_RADIX" } else { "greater than Character.MAX_RADIX" };
        return Err(Thrown::new("java.lang.NumberFormatException", format!("radix {radix} {side}")));
    }
    let s = match v {
        Value::Null => return Err(Thrown::new("java.lang.NumberFormatException", "Cannot parse null string: null")),
        Value::Str(s) => s.to_string(),
        other => other.to_string(),
    };
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, &s[..]),
    };
    if digits.is_empty() || !(2..=36).contains(&radix) {
        return Err(number_format(&s, radix));
    }
    let mut n: i128 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix).ok_or_else(|| number_format(&s, radix))?;
        n = n * radix as i128 + d as i128;
        if n > (max as i128) + 1 {
            return Err(number_format(&s, radix));
        }
    }
    let n = if neg { -n } else { n };
    if n < min as i128 || n > max as i128 {
        return Err(number_format(&s, radix));
    }
    Ok(n as i64)
}

/// Java's `Double.parseDouble`: surrounding whitespace is ignored, a `d`/`f` suffix allowed.
pub(crate) fn parse_double(v: &Value) -> Result<f64, Thrown> {
    if v.is_null() {
        return Err(Thrown::new("java.lang.NullPointerException", "Cannot parse null string"));
    }
    if let Some(f) = v.as_f64().filter(|_| !matches!(v, Value::Char(_))) {
        return Ok(f);
    }
    let raw = v.to_string();
    let t = raw.trim_matches(|c: char| c <= ' ');
    if t.is_empty() {
        return Err(Thrown::new(
            "java.lang.NumberFormatException",
            if raw.is_empty() { "empty String".into() } else { format!("For input string: \"{raw}\"") },
        ));
    }
    let unsigned = t.trim_start_matches(['+', '-']);
    if matches!(unsigned, "NaN" | "Infinity") && t.len() - unsigned.len() <= 1 {
        let inf = if t.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY };
        return Ok(if unsigned == "NaN" { f64::NAN } else { inf });
    }
    let body = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
    if body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')) {
        if let Ok(f) = body.parse::<f64>() {
            return Ok(f);
        }
    }
    Err(Thrown::new("java.lang.NumberFormatException", format!("For input string: \"{raw}\"")))
}

fn bounds(class: &str) -> (i64, i64) {
    match class {
        "java.lang.Long" => (i64::MIN, i64::MAX),
        "java.lang.Short" => (i16::MIN as i64, i16::MAX as i64),
        "java.lang.Byte" => (i8::MIN as i64, i8::MAX as i64),
        _ => (i32::MIN as i64, i32::MAX as i64),
    }
}

fn boxed(class: &str, n: i64) -> Value {
    if class == "java.lang.Long" {
        Value::Long(n)
    } else {
        Value::Int(n as i32)
    }
}

/// Java's `Integer.toString(i, radix)`: lower-case digits, a leading `-`.
fn to_radix(n: i64, radix: u32) -> String {
    let radix = if (2..=36).contains(&radix) { radix } else { 10 };
    let mut u = n.unsigned_abs();
    if u == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while u > 0 {
        out.push(std::char::from_digit((u % radix as u64) as u32, radix).unwrap_or('?'));
        u /= radix as u64;
    }
    if n < 0 {
        out.push('-');
    }
    out.iter().rev().collect()
}

/// Unsigned digits of the value's two's complement (`toHexString(-1)` is `ffffffff`).
fn unsigned_radix(class: &str, n: i64, radix: u32) -> String {
    let u = if class == "java.lang.Long" { n as u64 } else { n as i32 as u32 as u64 };
    match radix {
        16 => format!("{u:x}"),
        8 => format!("{u:o}"),
        _ => format!("{u:b}"),
    }
}

fn number_static(class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let is_double = matches!(class, "java.lang.Double" | "java.lang.Float");
    if class == "java.lang.Boolean" {
        return boolean_static(method, &args);
    }
    if is_double {
        return double_static(class, method, &args);
    }
    let (min, max) = bounds(class);
    let radix = || args.get(1).and_then(Value::as_i64).unwrap_or(10) as u32;
    let int = |i: usize| -> Result<i64, Thrown> {
        let v = arg(&args, i);
        match v.as_i64() {
            Some(n) if !matches!(v, Value::Double(_) | Value::Decimal(_)) => Ok(n),
            _ => Err(no_method(class, method)),
        }
    };
    match (method, args.len()) {
        ("parseInt" | "parseLong" | "parseShort" | "parseByte" | "valueOf" | "decode", 1 | 2) => {
            let v = arg(&args, 0);
            if method == "valueOf" && v.is_number() && args.len() == 1 {
                return Ok(boxed(class, v.as_i64().unwrap_or(0)));
            }
            if method == "decode" {
                return decode(class, v, min, max);
            }
            Ok(boxed(class, parse_integer(v, radix(), min, max)?))
        }
        ("parseUnsignedInt", 1 | 2) => {
            Ok(Value::Int(parse_integer(arg(&args, 0), radix(), 0, u32::MAX as i64)? as u32 as i32))
        }
        ("toString", 0) => Err(no_method(class, method)),
        ("toString", 1) => Ok(Value::str(int(0)?.to_string())),
        ("toString", 2) => Ok(Value::str(to_radix(int(0)?, radix()))),
        ("toHexString", 1) => Ok(Value::str(unsigned_radix(class, int(0)?, 16))),
        ("toOctalString", 1) => Ok(Value::str(unsigned_radix(class, int(0)?, 8))),
        ("toBinaryString", 1) => Ok(Value::str(unsigned_radix(class, int(0)?, 2))),
        ("compare", 2) => Ok(Value::Int(int(0)?.cmp(&int(1)?) as i32)),
        ("sum", 2) => Ok(boxed(
            class,
            if class == "java.lang.Long" {
                int(0)?.wrapping_add(int(1)?)
            } else {
                (int(0)? as i32).wrapping_add(int(1)? as i32) as i64
            },
        )),
        ("max", 2) => Ok(boxed(class, int(0)?.max(int(1)?))),
        ("min", 2) => Ok(boxed(class, int(0)?.min(int(1)?))),
        ("abs", 1) => Ok(boxed(class, int(0)?.wrapping_abs())),
        ("signum", 1) => Ok(Value::Int(int(0)?.signum() as i32)),
        ("hashCode", 1) => Ok(Value::Int(int(0)? as i32)),
        ("bitCount", 1) => {
            Ok(Value::Int(
                if class == "java.lang.Long" { int(0)?.count_ones() } else { (int(0)? as i32).count_ones() } as i32
            ))
        }
        _ => Err(no_method(class, method)),
    }
}

/// `Integer.decode`: `0x1F`, `#1F`, `010` (octal), `-5`.
fn decode(class: &str, v: &Value, min: i64, max: i64) -> Result<Value, Thrown> {
    let s = v.to_string();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    let (radix, digits) = if let Some(h) =
        body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")).or_else(|| body.strip_prefix('#'))
    {
        (16, h)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let text = format!("{}{digits}", if neg { "-" } else { "" });
    let n = parse_integer(&Value::str(text), radix, min, max).map_err(|_| number_format(&s, 10))?;
    Ok(boxed(class, n))
}

fn double_static(class: &'static str, method: &str, args: &[Value]) -> Result<Value, Thrown> {
    let f = |i: usize| f64_arg(args, i);
    Ok(match (method, args.len()) {
        ("parseDouble" | "parseFloat" | "valueOf", 1) => Value::Double(parse_double(arg(args, 0))?),
        ("toString", 1) => Value::str(java_double(f(0)?)),
        ("isNaN", 1) => Value::Bool(f(0)?.is_nan()),
        ("isInfinite", 1) => Value::Bool(f(0)?.is_infinite()),
        ("isFinite", 1) => Value::Bool(f(0)?.is_finite()),
        ("compare", 2) => Value::Int(f(0)?.total_cmp(&f(1)?) as i32),
        ("sum", 2) => Value::Double(f(0)? + f(1)?),
        ("max", 2) => Value::Double(java_max(f(0)?, f(1)?)),
        ("min", 2) => Value::Double(java_min(f(0)?, f(1)?)),
        _ => return Err(no_method(class, method)),
    })
}

fn boolean_static(method: &str, args: &[Value]) -> Result<Value, Thrown> {
    let b = |i: usize| match arg(args, i) {
        Value::Bool(b) => *b,
        Value::Null => false,
        v => v.to_string().eq_ignore_ascii_case("true"),
    };
    Ok(match (method, args.len()) {
        ("parseBoolean" | "valueOf", 1) => Value::Bool(b(0)),
        ("toString", 1) => Value::str(b(0).to_string()),
        ("logicalAnd", 2) => Value::Bool(b(0) && b(1)),
        ("logicalOr", 2) => Value::Bool(b(0) || b(1)),
        ("logicalXor", 2) => Value::Bool(b(0) ^ b(1)),
        ("compare", 2) => Value::Int(b(0).cmp(&b(1)) as i32),
        _ => return Err(no_method("java.lang.Boolean", method)),
    })
}

/// A char argument: a `char`, a one-character string, or a code point.
pub(crate) fn char_arg(args: &[Value], i: usize) -> Result<char, Thrown> {
    match arg(args, i) {
        Value::Char(c) => Ok(*c),
        Value::Str(s) if s.chars().count() == 1 => Ok(s.chars().next().unwrap_or('\0')),
        v => v
            .as_i64()
            .and_then(|n| char::from_u32(n as u32))
            .ok_or_else(|| illegal_arg(format!("a char was expected, not {}", v.type_name()))),
    }
}

fn character(method: &str, args: &[Value]) -> Result<Value, Thrown> {
    let c = char_arg(args, 0)?;
    let b = Value::Bool;
    Ok(match (method, args.len()) {
        ("isDigit", 1) => b(c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())),
        ("isLetter", 1) => b(c.is_alphabetic()),
        ("isAlphabetic", 1) => b(c.is_alphabetic()),
        ("isLetterOrDigit", 1) => b(c.is_alphanumeric()),
        ("isWhitespace", 1) => b(c.is_whitespace() && !matches!(c, '\u{a0}' | '\u{2007}' | '\u{202f}')),
        ("isSpaceChar", 1) => b(c == ' ' || c == '\u{a0}'),
        ("isUpperCase", 1) => b(c.is_uppercase()),
        ("isLowerCase", 1) => b(c.is_lowercase()),
        ("toUpperCase", 1) => Value::Char(c.to_uppercase().next().unwrap_or(c)),
        ("toLowerCase", 1) => Value::Char(c.to_lowercase().next().unwrap_or(c)),
        ("getNumericValue", 1) => Value::Int(c.to_digit(36).map(|d| d as i32).unwrap_or(-1)),
        // Java answers -1 and '\0' for a radix outside 2..=36 (Rust's digit functions panic).
        ("digit", 2) => Value::Int(match int_arg(args, 1)? {
            r @ 2..=36 => c.to_digit(r as u32).map(|d| d as i32).unwrap_or(-1),
            _ => -1,
        }),
        ("forDigit", 2) => {
            let (d, r) = (int_arg(args, 0)?, int_arg(args, 1)?);
            let digit = match (u32::try_from(d), r) {
                (Ok(d), 2..=36) => std::char::from_digit(d, r as u32),
                _ => None,
            };
            Value::Char(digit.unwrap_or('\0'))
        }
        ("valueOf", 1) => Value::Char(c),
        ("toString", 1) => Value::str(c.to_string()),
        ("toChars", 1) => Value::array(vec![Value::Char(c)]),
        ("compare", 2) => Value::Int(c as i32 - char_arg(args, 1)? as i32),
        _ => return Err(no_method("java.lang.Character", method)),
    })
}

// ---- System, Thread, Object ----

fn process_start() -> std::time::Instant {
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    *START.get_or_init(std::time::Instant::now)
}

pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

fn system(cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let opt = |s: Option<String>| s.map(Value::from).unwrap_or(Value::Null);
    match (method, args.len()) {
        ("currentTimeMillis", 0) => Ok(Value::Long(now_millis())),
        ("nanoTime", 0) => Ok(Value::Long(process_start().elapsed().as_nanos() as i64 + 1_000_000_000)),
        ("getProperty", 1 | 2) => {
            let name = str_arg(&args, 0)?;
            let v = cx.host.system_property(&name);
            Ok(match (v, args.get(1)) {
                (Some(v), _) => Value::from(v),
                (None, Some(d)) => d.clone(),
                (None, None) => Value::Null,
            })
        }
        ("getenv", 1) => {
            let name = str_arg(&args, 0)?;
            Ok(opt(cx.host.env(&name)))
        }
        ("getenv", 0) => {
            Err(Thrown::security("System.getenv() without a name is not available to scripts; name the variable"))
        }
        ("lineSeparator", 0) => Ok(Value::str("\n")),
        ("identityHashCode", 1) => Ok(Value::Int(match &args[0] {
            Value::Object(o) => Arc::as_ptr(o) as *const () as usize as i32,
            _ => 0,
        })),
        ("arraycopy", 5) => {
            let (Value::List(src), Value::List(dst)) = (&args[0], &args[2]) else {
                return Err(Thrown::new("java.lang.ArrayStoreException", "arraycopy: not arrays"));
            };
            let (sp, dp, n) = (int_arg(&args, 1)?, int_arg(&args, 3)?, int_arg(&args, 4)?);
            let items: Vec<Value> = lock(&src.items).clone();
            let mut out = lock(&dst.items);
            if sp < 0 || dp < 0 || n < 0 || (sp + n) as usize > items.len() || (dp + n) as usize > out.len() {
                return Err(Thrown::new(
                    "java.lang.ArrayIndexOutOfBoundsException",
                    "arraycopy: last source index out of bounds",
                ));
            }
            for i in 0..n as usize {
                out[dp as usize + i] = items[sp as usize + i].clone();
            }
            Ok(Value::Null)
        }
        ("gc" | "runFinalization", 0) => Ok(Value::Null),
        (
            "exit" | "load" | "loadLibrary" | "setProperty" | "clearProperty" | "setOut" | "setErr" | "setIn"
            | "setSecurityManager",
            _,
        ) => Err(Thrown::security(format!("System.{method} is not available to scripts"))),
        _ => Err(no_method("java.lang.System", method)),
    }
}

fn thread_static(cx: &mut Ctx<'_>, method: &str, args: &[Value]) -> Result<Value, Thrown> {
    match (method, args.len()) {
        ("sleep", 1 | 2) => {
            let ms = int_arg(args, 0)?;
            if ms < 0 {
                return Err(illegal_arg("timeout value is negative"));
            }
            cx.host.sleep(ms as u64);
            Ok(Value::Null)
        }
        ("currentThread", 0) => Ok(obj(ThreadObj)),
        ("yield" | "onSpinWait", 0) => Ok(Value::Null),
        ("interrupted", 0) => Ok(Value::Bool(false)),
        _ => Err(no_method("java.lang.Thread", method)),
    }
}

/// `Thread.currentThread()`: its name comes from the host (JMeter's `Thread Group 1-1`).
#[derive(Debug)]
struct ThreadObj;

impl Native for ThreadObj {
    native_base!("java.lang.Thread");
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match method {
            "getName" | "toString" => cx.host.call_static("java.lang.Thread", "currentThreadName", Vec::new()),
            "getId" | "threadId" => Ok(Value::Long(1)),
            "isInterrupted" => Ok(Value::Bool(false)),
            "isAlive" => Ok(Value::Bool(true)),
            "interrupt" => Ok(Value::Null),
            "getStackTrace" => Ok(Value::array(Vec::new())),
            "sleep" => thread_static(cx, "sleep", &args),
            "start" | "run" | "join" | "setName" | "setPriority" | "setDaemon" => {
                Err(Thrown::security(format!("Thread.{method} is not available to scripts")))
            }
            _ => Err(no_method("java.lang.Thread", method)),
        }
    }
}

/// `System.out` / `System.err`: both print through the host.
#[derive(Debug)]
struct PrintStream {
    err: bool,
}

impl Native for PrintStream {
    native_base!("java.io.PrintStream");
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let _ = self.err;
        match method {
            "println" => {
                let text = args.first().map(|v| v.to_string()).unwrap_or_default();
                cx.host.print(&format!("{text}\n"));
                Ok(Value::Null)
            }
            "print" | "write" => {
                cx.host.print(&arg(&args, 0).to_string());
                Ok(Value::Null)
            }
            "printf" | "format" => {
                let f = str_arg(&args, 0)?;
                let text = format(&f, &collect_varargs(args[1..].to_vec()))?;
                cx.host.print(&text);
                Ok(Value::Null)
            }
            "flush" | "close" => Ok(Value::Null),
            _ => Err(no_method("java.io.PrintStream", method)),
        }
    }
}

/// `new Object()` (a lock, a marker).
#[derive(Debug)]
struct PlainObject;

impl Native for PlainObject {
    native_base!("java.lang.Object");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match method {
            "toString" => Ok(Value::str(Native::to_string(self))),
            "hashCode" => Ok(Value::Int(self as *const Self as usize as i32)),
            "equals" => Ok(Value::Bool(
                matches!(arg(&args, 0), Value::Object(o) if std::ptr::addr_eq(Arc::as_ptr(o), self as *const Self)),
            )),
            _ => Err(no_method("java.lang.Object", method)),
        }
    }
}

/// A number for a Decimal argument that Java would take as a double.
pub(crate) fn to_decimal(v: &Value) -> Option<Decimal> {
    match v {
        Value::Decimal(d) => Some(*d),
        Value::Double(d) => Decimal::from_f64(*d),
        other => other.as_i64().map(Decimal::from),
    }
}

#[allow(dead_code)]
pub(crate) fn decimal_to_f64(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{s, with_cx};
    use super::super::{call_static, construct, get_static};
    use super::*;

    fn fmt(f: &str, args: Vec<Value>) -> String {
        format(f, &args).unwrap()
    }

    #[test]
    fn string_format_follows_java() {
        assert_eq!(fmt("%s-%d", vec![s("a"), Value::Int(5)]), "a-5");
        assert_eq!(fmt("[%5d][%-5s][%05d]", vec![Value::Int(42), s("ab"), Value::Int(-42)]), "[   42][ab   ][-0042]");
        assert_eq!(fmt("%,d", vec![Value::Long(1234567)]), "1,234,567");
        assert_eq!(fmt("%.2f", vec![Value::Double(1.23456)]), "1.23");
        assert_eq!(fmt("%.2f", vec![Value::Double(0.125)]), "0.13");
        assert_eq!(fmt("%.1f", vec![Value::Double(0.15)]), "0.2");
        assert_eq!(fmt("%.2f", vec![Value::Decimal(Decimal::new(25, 1))]), "2.50");
        assert_eq!(fmt("%,.2f", vec![Value::Double(1234567.891)]), "1,234,567.89");
        assert_eq!(fmt("%f", vec![Value::Double(1.5)]), "1.500000");
        assert_eq!(fmt("%e", vec![Value::Double(12.3456)]), "1.234560e+01");
        assert_eq!(fmt("%.3E", vec![Value::Double(0.000123)]), "1.230E-04");
        assert_eq!(fmt("%x %X %08x", vec![Value::Int(255), Value::Int(-1), Value::Int(255)]), "ff FFFFFFFF 000000ff");
        assert_eq!(fmt("%c%b%n%%", vec![Value::Char('z'), Value::Null]), "zfalse\n%");
        assert_eq!(fmt("%2$s %1$s %<s", vec![s("a"), s("b")]), "b a a");
        assert_eq!(fmt("%S %.2s", vec![s("up"), s("abc")]), "UP ab");
        assert_eq!(fmt("%+d %(d", vec![Value::Int(5), Value::Int(-5)]), "+5 (5)");
        assert!(format("%d", &[Value::Double(1.0)]).is_err());
        assert!(format("%s %s", &[s("a")]).is_err());
    }

    #[test]
    fn number_statics() {
        with_cx(|cx| {
            let st = |cx: &mut Ctx<'_>, c: &'static str, m: &str, a: Vec<Value>| call_static(cx, c, m, a);
            assert!(matches!(st(cx, "java.lang.Integer", "parseInt", vec![s("-42")]), Ok(Value::Int(-42))));
            assert!(matches!(
                st(cx, "java.lang.Integer", "parseInt", vec![s("ff"), Value::Int(16)]),
                Ok(Value::Int(255))
            ));
            let e = st(cx, "java.lang.Integer", "parseInt", vec![s("12a")]).unwrap_err();
            assert_eq!(e.to_string(), "java.lang.NumberFormatException: For input string: \"12a\"");
            assert!(st(cx, "java.lang.Integer", "parseInt", vec![s("2147483648")]).is_err());
            assert!(matches!(
                st(cx, "java.lang.Long", "parseLong", vec![s("2147483648")]),
                Ok(Value::Long(2147483648))
            ));
            assert!(matches!(st(cx, "java.lang.Integer", "valueOf", vec![s("7")]), Ok(Value::Int(7))));
            assert_eq!(
                st(cx, "java.lang.Integer", "toHexString", vec![Value::Int(-1)]).unwrap().to_string(),
                "ffffffff"
            );
            assert_eq!(st(cx, "java.lang.Integer", "toBinaryString", vec![Value::Int(5)]).unwrap().to_string(), "101");
            assert_eq!(
                st(cx, "java.lang.Integer", "toString", vec![Value::Int(-255), Value::Int(16)]).unwrap().to_string(),
                "-ff"
            );
            assert!(
                matches!(st(cx, "java.lang.Double", "parseDouble", vec![s(" 1.5e3 ")]), Ok(Value::Double(d)) if d == 1500.0)
            );
            assert!(st(cx, "java.lang.Double", "parseDouble", vec![s("inf")]).is_err());
            assert!(matches!(st(cx, "java.lang.Boolean", "parseBoolean", vec![s("TRUE")]), Ok(Value::Bool(true))));
            assert!(matches!(get_static(cx, "java.lang.Integer", "MAX_VALUE"), Ok(Value::Int(i32::MAX))));
            assert!(matches!(st(cx, "java.lang.Character", "isDigit", vec![Value::Char('7')]), Ok(Value::Bool(true))));
            assert!(matches!(
                st(cx, "java.lang.Character", "toUpperCase", vec![Value::Char('a')]),
                Ok(Value::Char('A'))
            ));
        })
    }

    #[test]
    fn math_picks_java_overloads() {
        with_cx(|cx| {
            let m = |cx: &mut Ctx<'_>, name: &str, a: Vec<Value>| call_static(cx, "java.lang.Math", name, a).unwrap();
            assert!(matches!(m(cx, "max", vec![Value::Int(3), Value::Int(7)]), Value::Int(7)));
            assert!(matches!(m(cx, "max", vec![Value::Int(3), Value::Long(7)]), Value::Long(7)));
            assert!(matches!(m(cx, "min", vec![Value::Int(3), Value::Double(1.5)]), Value::Double(d) if d == 1.5));
            assert!(matches!(m(cx, "abs", vec![Value::Int(-3)]), Value::Int(3)));
            assert!(matches!(m(cx, "round", vec![Value::Double(2.5)]), Value::Long(3)));
            assert!(matches!(m(cx, "round", vec![Value::Double(-2.5)]), Value::Long(-2)));
            assert!(matches!(m(cx, "floor", vec![Value::Decimal(Decimal::new(27, 1))]), Value::Double(d) if d == 2.0));
            assert!(matches!(m(cx, "pow", vec![Value::Int(2), Value::Int(10)]), Value::Double(d) if d == 1024.0));
            assert!(matches!(m(cx, "floorDiv", vec![Value::Int(-7), Value::Int(2)]), Value::Int(-4)));
            assert!(matches!(m(cx, "floorMod", vec![Value::Int(-7), Value::Int(2)]), Value::Int(1)));
            let r = m(cx, "random", vec![]).as_f64().unwrap();
            assert!((0.0..1.0).contains(&r));
            assert!(call_static(cx, "java.lang.Math", "addExact", vec![Value::Int(i32::MAX), Value::Int(1)]).is_err());
            assert!(call_static(cx, "java.lang.Math", "floorMod", vec![Value::Int(1), Value::Int(0)]).is_err());
        })
    }

    #[test]
    fn string_builder_edits_in_place() {
        with_cx(|cx| {
            let sb = construct(cx, "java.lang.StringBuilder", vec![s("ab")]).unwrap();
            let Value::Object(o) = &sb else { panic!() };
            let chained = o.call(cx, "append", vec![Value::Int(1)]).unwrap();
            let Value::Object(c) = chained else { panic!() };
            c.call(cx, "append", vec![Value::Char('c')]).unwrap();
            c.call(cx, "append", vec![Value::Double(1.0)]).unwrap();
            assert_eq!(sb.to_string(), "ab1c1.0");
            o.call(cx, "insert", vec![Value::Int(0), s(">")]).unwrap();
            o.call(cx, "deleteCharAt", vec![Value::Int(1)]).unwrap();
            assert_eq!(sb.to_string(), ">b1c1.0");
            o.call(cx, "setLength", vec![Value::Int(3)]).unwrap();
            o.call(cx, "reverse", vec![]).unwrap();
            assert_eq!(sb.to_string(), "1b>");
            o.call(cx, "replace", vec![Value::Int(0), Value::Int(1), s("xy")]).unwrap();
            assert_eq!(sb.to_string(), "xyb>");
            assert!(matches!(o.call(cx, "indexOf", vec![s("b")]), Ok(Value::Int(2))));
            assert!(matches!(o.call(cx, "length", vec![]), Ok(Value::Int(4))));
            assert!(o.call(cx, "charAt", vec![Value::Int(9)]).is_err());
        })
    }

    #[test]
    fn system_and_thread_go_through_the_host() {
        with_cx(|cx| {
            let out = get_static(cx, "java.lang.System", "out").unwrap();
            let Value::Object(o) = out else { panic!() };
            o.call(cx, "println", vec![s("hi")]).unwrap();
            o.call(cx, "printf", vec![s("%d!"), Value::Int(3)]).unwrap();
            let t = call_static(cx, "java.lang.System", "currentTimeMillis", vec![]).unwrap();
            assert!(t.as_i64().unwrap() > 1_600_000_000_000);
            assert!(call_static(cx, "java.lang.System", "exit", vec![Value::Int(0)])
                .unwrap_err()
                .to_string()
                .contains("SecurityException"));
            assert!(construct(cx, "java.lang.Thread", vec![]).is_err());
            call_static(cx, "java.lang.Thread", "sleep", vec![Value::Int(5)]).unwrap();
        });
        let mut host = crate::NoHost::default();
        let mut cx = Ctx { host: &mut host, lang: crate::Lang::Groovy, state: Default::default() };
        let Value::Object(o) = get_static(&mut cx, "java.lang.System", "out").unwrap() else { panic!() };
        o.call(&mut cx, "println", vec![s("hi")]).unwrap();
        assert_eq!(host.printed, "hi\n");
    }

    #[test]
    fn new_string_from_bytes() {
        with_cx(|cx| {
            let b = super::super::bytes(b"h\xc3\xa9".to_vec());
            assert_eq!(construct(cx, "java.lang.String", vec![b.clone(), s("UTF-8")]).unwrap().to_string(), "hé");
            assert_eq!(construct(cx, "java.lang.String", vec![b, s("ISO-8859-1")]).unwrap().to_string(), "hÃ©");
            assert_eq!(
                call_static(cx, "java.lang.String", "join", vec![s(","), Value::list(vec![s("a"), s("b")])])
                    .unwrap()
                    .to_string(),
                "a,b"
            );
            assert_eq!(
                call_static(cx, "java.lang.String", "format", vec![s("%03d"), Value::Int(7)]).unwrap().to_string(),
                "007"
            );
        })
    }
}
