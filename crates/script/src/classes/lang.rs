//! java.lang: `Math`, the boxed numbers and their statics, `String` statics and Java's
//! `Formatter` (`String.format`), `StringBuilder`, `System`, `Thread`, `Object`.

use super::{
    arg, bytes_of, f64_arg, illegal_arg, int_arg, items_of, native_base, no_method, no_property, obj, str_arg,
    ClassDef, Family,
};
use crate::value::{java_double, lock, Native, Value};
use crate::{budget, Ctx, Thrown};
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::Decimal;
use std::sync::{Arc, Mutex, OnceLock, Weak};

const FAMILY: Family = Family { construct, call_static, get_static };

const NUMBER_STATICS: &[&str] = &[
    "parseInt",
    "parseLong",
    "parseShort",
    "parseByte",
    "valueOf",
    "toString",
    "toHexString",
    "toBinaryString",
    "toOctalString",
    "MAX_VALUE",
    "MIN_VALUE",
    "SIZE",
    "BYTES",
    "compare",
    "sum",
    "max",
    "min",
    "signum",
    "bitCount",
    "abs",
    "decode",
    "hashCode",
    "parseUnsignedInt",
];

const DOUBLE_STATICS: &[&str] = &[
    "parseDouble",
    "parseFloat",
    "valueOf",
    "toString",
    "MAX_VALUE",
    "MIN_VALUE",
    "POSITIVE_INFINITY",
    "NEGATIVE_INFINITY",
    "NaN",
    "isNaN",
    "isInfinite",
    "isFinite",
    "compare",
    "sum",
    "max",
    "min",
];

pub(super) const CLASSES: &[ClassDef] = &[
    ClassDef {
        name: "java.lang.Math",
        statics: &[
            "abs",
            "max",
            "min",
            "pow",
            "sqrt",
            "cbrt",
            "floor",
            "ceil",
            "round",
            "rint",
            "random",
            "floorDiv",
            "floorMod",
            "log",
            "log10",
            "exp",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "atan2",
            "signum",
            "hypot",
            "toRadians",
            "toDegrees",
            "addExact",
            "subtractExact",
            "multiplyExact",
            "negateExact",
            "incrementExact",
            "decrementExact",
            "toIntExact",
            "PI",
            "E",
        ],
        family: &FAMILY,
    },
    ClassDef {
        name: "java.lang.StrictMath",
        statics: &["abs", "max", "min", "pow", "sqrt", "floor", "ceil", "round", "random"],
        family: &FAMILY,
    },
    ClassDef { name: "java.lang.Integer", statics: NUMBER_STATICS, family: &FAMILY },
    ClassDef { name: "java.lang.Long", statics: NUMBER_STATICS, family: &FAMILY },
    ClassDef { name: "java.lang.Short", statics: NUMBER_STATICS, family: &FAMILY },
    ClassDef { name: "java.lang.Byte", statics: NUMBER_STATICS, family: &FAMILY },
    ClassDef { name: "java.lang.Double", statics: DOUBLE_STATICS, family: &FAMILY },
    ClassDef { name: "java.lang.Float", statics: DOUBLE_STATICS, family: &FAMILY },
    ClassDef { name: "java.lang.Number", statics: &[], family: &FAMILY },
    ClassDef {
        name: "java.lang.Boolean",
        statics: &[
            "parseBoolean",
            "valueOf",
            "toString",
            "TRUE",
            "FALSE",
            "logicalAnd",
            "logicalOr",
            "logicalXor",
            "compare",
        ],
        family: &FAMILY,
    },
    ClassDef {
        name: "java.lang.Character",
        statics: &[
            "isDigit",
            "isLetter",
            "isLetterOrDigit",
            "isAlphabetic",
            "isWhitespace",
            "isSpaceChar",
            "isUpperCase",
            "isLowerCase",
            "toUpperCase",
            "toLowerCase",
            "getNumericValue",
            "digit",
            "forDigit",
            "valueOf",
            "toString",
            "toChars",
            "compare",
            "MAX_VALUE",
            "MIN_VALUE",
        ],
        family: &FAMILY,
    },
    ClassDef {
        name: "java.lang.String",
        statics: &["valueOf", "format", "join", "copyValueOf", "CASE_INSENSITIVE_ORDER"],
        family: &FAMILY,
    },
    ClassDef { name: "java.lang.CharSequence", statics: &[], family: &FAMILY },
    ClassDef { name: "java.lang.Comparable", statics: &[], family: &FAMILY },
    ClassDef { name: "java.lang.Iterable", statics: &[], family: &FAMILY },
    ClassDef { name: "java.lang.StringBuilder", statics: &[], family: &FAMILY },
    ClassDef { name: "java.lang.StringBuffer", statics: &[], family: &FAMILY },
    ClassDef {
        name: "java.lang.System",
        statics: &[
            "currentTimeMillis",
            "nanoTime",
            "getProperty",
            "getenv",
            "lineSeparator",
            "out",
            "err",
            "exit",
            "load",
            "loadLibrary",
            "setProperty",
            "clearProperty",
            "setOut",
            "setErr",
            "gc",
            "arraycopy",
            "identityHashCode",
        ],
        family: &FAMILY,
    },
    ClassDef {
        name: "java.lang.Thread",
        statics: &["sleep", "currentThread", "yield", "onSpinWait", "interrupted"],
        family: &FAMILY,
    },
    ClassDef { name: "java.lang.Object", statics: &[], family: &FAMILY },
    ClassDef { name: "java.lang.Class", statics: &[], family: &FAMILY },
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
        ("digit", 2) => Value::Int(c.to_digit(int_arg(args, 1)? as u32).map(|d| d as i32).unwrap_or(-1)),
        ("forDigit", 2) => {
            let (d, r) = (int_arg(args, 0)?, int_arg(args, 1)?);
            Value::Char(std::char::from_digit(d as u32, r as u32).unwrap_or('\0'))
        }
        ("valueOf", 1) => Value::Char(c),
        ("toString", 1) => Value::str(c.to_string()),
        ("toChars", 1) => Value::array(vec![Value::Char(c)]),
        ("compare", 2) => Value::Int(c as i32 - char_arg(args, 1)? as i32),
        _ => return Err(no_method("java.lang.Character", method)),
    })
}

fn string_static(cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match (method, args.len()) {
        ("valueOf" | "copyValueOf", 1) => match &args[0] {
            // Java's `String.valueOf` calls `toString()`: JSON for json-smart's JSONArray.
            v @ Value::List(l) if l.json => Ok(Value::str(super::json_smart_text(v))),
            Value::List(l) if lock(&l.items).iter().all(|c| matches!(c, Value::Char(_))) => {
                Ok(Value::str(lock(&l.items).iter().map(|c| c.to_string()).collect::<String>()))
            }
            // An object of a declared class (at any depth) by its `toString()`.
            v => Ok(Value::str(crate::interp::text_of(cx, v)?)),
        },
        ("valueOf" | "copyValueOf", 3) => {
            let chars: Vec<Value> = items_of(&args[0]).unwrap_or_default();
            let (from, n) = (int_arg(&args, 1)?, int_arg(&args, 2)?);
            let range =
                usize::try_from(from).ok().zip(usize::try_from(n).ok()).and_then(|(a, n)| Some(a..a.checked_add(n)?));
            let slice = range
                .and_then(|r| chars.get(r))
                .ok_or_else(|| Thrown::new("java.lang.StringIndexOutOfBoundsException", "offset/count out of range"))?;
            Ok(Value::str(slice.iter().map(|c| c.to_string()).collect::<String>()))
        }
        ("format", n) if n >= 1 => {
            // `String.format(Locale, fmt, args...)`: a locale is a string here; skip it when
            // the next argument is the format.
            let mut args = args;
            let first = args.remove(0);
            let fmt_args = match &first {
                Value::Str(_) => collect_varargs(args),
                _ => Vec::new(),
            };
            Ok(Value::str(format(&first.to_string(), &fmt_args)?))
        }
        ("join", n) if n >= 2 => {
            let sep = args[0].to_string();
            let parts: Vec<Value> =
                if n == 2 { items_of(&args[1]).unwrap_or_else(|| vec![args[1].clone()]) } else { args[1..].to_vec() };
            Ok(Value::str(crate::methods::join_texts(&parts, &sep, "null")?))
        }
        _ => Err(no_method("java.lang.String", method)),
    }
}

/// Varargs passed as one array (`String.format(fmt, arr)`) spread as Java does; a list stays
/// one argument (Groovy passes it as an Object).
fn collect_varargs(args: Vec<Value>) -> Vec<Value> {
    if let [Value::List(l)] = args.as_slice() {
        if l.kind == crate::value::ListKind::Array {
            return lock(&l.items).clone();
        }
    }
    args
}

// ---- java.util.Formatter ----

/// Java's `String.format(fmt, args)`: `%s %d %5d %-5s %05d %,d %.2f %e %x %X %c %b %n %% %1$s %<s`.
pub(crate) fn format(fmt: &str, args: &[Value]) -> Result<String, Thrown> {
    let mut out = String::new();
    let mut chars = fmt.char_indices().peekable();
    let mut next_arg = 0usize;
    let mut last_arg: Option<usize> = None;
    while let Some((start, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // %[index$][flags][width][.precision]conversion
        let mut spec = String::new();
        let mut conv = None;
        for (_, ch) in chars.by_ref() {
            if ch.is_ascii_alphabetic() || ch == '%' {
                conv = Some(ch);
                break;
            }
            spec.push(ch);
        }
        let conv = conv.ok_or_else(|| {
            format_error("UnknownFormatConversionException", format!("Conversion = '{}'", &fmt[start..]))
        })?;
        let (index, rest) =
            match spec.split_once('$') {
                Some((i, rest)) => (
                    Some(i.parse::<usize>().map_err(|_| {
                        format_error("UnknownFormatConversionException", format!("Conversion = '{spec}'"))
                    })?),
                    rest.to_string(),
                ),
                None => (None, spec.clone()),
            };
        let relative = rest.starts_with('<');
        let rest = rest.trim_start_matches('<');
        let flags: String = rest.chars().take_while(|c| "-#+ 0,(".contains(*c)).collect();
        let rest = &rest[flags.len()..];
        let (width, precision) = match rest.split_once('.') {
            Some((w, p)) => (
                w.parse::<usize>().ok(),
                Some(p.parse::<usize>().map_err(|_| format_error("IllegalFormatPrecisionException", p.to_string()))?),
            ),
            None => (rest.parse::<usize>().ok(), None),
        };
        // A width or precision is text made before it is padded: `%0999999999d` must not ask
        // for a gigabyte.
        let size =
            (out.len() as u64).saturating_add(width.unwrap_or(0) as u64).saturating_add(precision.unwrap_or(0) as u64);
        crate::methods::checked_size(size)?;
        let spec_text = format!("%{spec}{conv}");
        let text = match conv {
            '%' => "%".to_string(),
            'n' => "\n".to_string(),
            _ => {
                let i = if relative {
                    last_arg.ok_or_else(|| {
                        format_error("MissingFormatArgumentException", format!("Format specifier '{spec_text}'"))
                    })?
                } else if let Some(i) = index {
                    i.saturating_sub(1)
                } else {
                    next_arg += 1;
                    next_arg - 1
                };
                last_arg = Some(i);
                let v = args.get(i).ok_or_else(|| {
                    format_error("MissingFormatArgumentException", format!("Format specifier '{spec_text}'"))
                })?;
                convert(conv, v, &flags, precision, &spec_text)?
            }
        };
        pad(&mut out, &text, width, &flags, conv);
    }
    Ok(out)
}

fn format_error(class: &str, message: String) -> Thrown {
    Thrown::new(&format!("java.util.{class}"), message)
}

fn pad(out: &mut String, text: &str, width: Option<usize>, flags: &str, conv: char) {
    let len = text.chars().count();
    let fill = width.unwrap_or(0).saturating_sub(len);
    if fill == 0 {
        out.push_str(text);
    } else if flags.contains('-') {
        out.push_str(text);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if flags.contains('0') && "dxXofeEgG".contains(conv) {
        let digits_at = text.find(|c: char| c.is_ascii_alphanumeric()).unwrap_or(0);
        let (sign, digits) = text.split_at(digits_at);
        let (prefix, digits) =
            if digits.starts_with("0x") || digits.starts_with("0X") { digits.split_at(2) } else { ("", digits) };
        out.push_str(sign);
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(text);
    }
}

fn convert(conv: char, v: &Value, flags: &str, precision: Option<usize>, spec: &str) -> Result<String, Thrown> {
    let mismatch =
        || format_error("IllegalFormatConversionException", format!("{} != java.lang.{}", conv, v.type_name()));
    let upper = conv.is_ascii_uppercase();
    let text = match conv.to_ascii_lowercase() {
        's' => {
            let s = v.to_string();
            match precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            }
        }
        'b' => match v {
            Value::Null => "false".into(),
            Value::Bool(b) => b.to_string(),
            _ => "true".into(),
        },
        'h' => match v {
            Value::Null => "null".into(),
            Value::Str(s) => {
                format!("{:x}", s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32)))
            }
            other => format!("{:x}", other.as_i64().unwrap_or(0) as i32),
        },
        'c' => match v {
            Value::Null => "null".into(),
            Value::Char(c) => c.to_string(),
            Value::Int(n) => char::from_u32(*n as u32).ok_or_else(mismatch)?.to_string(),
            _ => return Err(mismatch()),
        },
        'd' => {
            let digits = match v {
                Value::Null => return Ok("null".into()),
                Value::Int(_) | Value::Long(_) => v.as_i64().unwrap_or(0).to_string(),
                Value::Decimal(d) if d.fract().is_zero() => d.trunc().to_string(),
                _ => return Err(mismatch()),
            };
            signed(digits, flags)
        }
        'x' | 'o' => {
            let radix = if conv.eq_ignore_ascii_case(&'x') { 16 } else { 8 };
            let s = match v {
                Value::Null => return Ok("null".into()),
                Value::Int(n) => unsigned_radix("java.lang.Integer", *n as i64, radix),
                Value::Long(n) => unsigned_radix("java.lang.Long", *n, radix),
                _ => return Err(mismatch()),
            };
            let prefix = match (flags.contains('#'), radix) {
                (true, 16) => "0x",
                (true, _) => "0",
                _ => "",
            };
            format!("{prefix}{s}")
        }
        'f' | 'e' | 'g' => {
            if v.is_null() {
                return Ok("null".into());
            }
            if !matches!(v, Value::Double(_) | Value::Decimal(_)) {
                return Err(mismatch());
            }
            let p = precision.unwrap_or(6);
            if let Value::Double(d) = v {
                if d.is_nan() || d.is_infinite() {
                    return Ok(java_double(*d));
                }
            }
            match conv.to_ascii_lowercase() {
                'f' => signed(fixed(v, p), flags),
                'e' => signed(scientific(v, p), flags),
                _ => {
                    let x = v.as_f64().unwrap_or(0.0).abs();
                    let p = if p == 0 { 1 } else { p };
                    if x != 0.0 && (x < 1e-4 || x >= 10f64.powi(p as i32)) {
                        signed(scientific(v, p - 1), flags)
                    } else {
                        let exp = if x == 0.0 { 0 } else { x.log10().floor() as i32 };
                        signed(fixed(v, (p as i32 - 1 - exp).max(0) as usize), flags)
                    }
                }
            }
        }
        _ => return Err(format_error("UnknownFormatConversionException", format!("Conversion = '{conv}' in {spec}"))),
    };
    Ok(if upper { text.to_uppercase() } else { text })
}

/// Applies the sign flags (`+`, ` `, `(`) and grouping (`,`) to a number's digits.
fn signed(digits: String, flags: &str) -> String {
    let (neg, body) = match digits.strip_prefix('-') {
        Some(b) => (true, b.to_string()),
        None => (false, digits),
    };
    let body = if flags.contains(',') { group(&body) } else { body };
    match (neg, flags) {
        (true, f) if f.contains('(') => format!("({body})"),
        (true, _) => format!("-{body}"),
        (false, f) if f.contains('+') => format!("+{body}"),
        (false, f) if f.contains(' ') => format!(" {body}"),
        _ => body,
    }
}

/// `1234567.5` → `1,234,567.5`.
pub(crate) fn group(body: &str) -> String {
    let (int, frac) = match body.find('.') {
        Some(i) => body.split_at(i),
        None => (body, ""),
    };
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out + frac
}

/// The decimal value Java's Formatter starts from: a double's shortest representation
/// (`Double.toString`'s digits), a BigDecimal as it is.
fn decimal_of(v: &Value) -> Option<Decimal> {
    match v {
        Value::Decimal(d) => Some(*d),
        Value::Double(d) => Decimal::from_str_exact(&format!("{d}")).ok().or_else(|| Decimal::from_f64(*d)),
        other => other.as_i64().map(Decimal::from),
    }
}

/// `%.{p}f`: rounded half-up, as Java does.
fn fixed(v: &Value, p: usize) -> String {
    match decimal_of(v) {
        Some(d) => {
            let r = d.round_dp_with_strategy(p as u32, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
            let s = format!("{r:.p$}");
            if s.starts_with('-') && r.is_zero() {
                s[1..].to_string()
            } else {
                s
            }
        }
        None => format!("{:.p$}", v.as_f64().unwrap_or(0.0)),
    }
}

/// `%.{p}e`: `1.234560e+01`.
fn scientific(v: &Value, p: usize) -> String {
    let x = v.as_f64().unwrap_or(0.0);
    if x == 0.0 {
        return format!("{:.p$}e+00", 0.0);
    }
    let mut exp = x.abs().log10().floor() as i32;
    let scaled = |exp: i32| {
        decimal_of(&Value::Double(x / 10f64.powi(exp)))
            .map(|d| d.round_dp_with_strategy(p as u32, rust_decimal::RoundingStrategy::MidpointAwayFromZero))
    };
    let mut m = scaled(exp).unwrap_or_default();
    if m.abs() >= Decimal::TEN {
        exp += 1;
        m = scaled(exp).unwrap_or_default();
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{m:.p$}e{sign}{:02}", exp.abs())
}

// ---- StringBuilder ----

/// `StringBuilder` / `StringBuffer`: a buffer appended in place (amortised O(1), as Java's),
/// which knows its length in characters while only appends change it, so that `append` and
/// `length()` in a loop stay linear.
#[derive(Debug)]
pub(crate) struct StringBuilder {
    class: &'static str,
    text: Mutex<Buf>,
    me: Weak<StringBuilder>,
}

#[derive(Debug)]
struct Buf {
    text: String,
    /// The length in characters, when known (an edit other than an append forgets it).
    chars: Option<usize>,
}

impl Buf {
    fn chars(&mut self) -> usize {
        *self.chars.get_or_insert_with(|| self.text.chars().count())
    }

    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        if let Some(n) = &mut self.chars {
            *n += s.chars().count();
        }
    }
}

impl StringBuilder {
    fn value(class: &'static str, text: String) -> Value {
        let buf = Buf { text, chars: None };
        Value::Object(Arc::new_cyclic(|me| StringBuilder { class, text: Mutex::new(buf), me: me.clone() }))
    }

    fn this(&self) -> Value {
        self.me.upgrade().map(|a| Value::Object(a as Arc<dyn Native>)).unwrap_or(Value::Null)
    }
}

/// The byte offset of the `i`-th character (the end for `i` = length); `None` past it.
pub(crate) fn char_offset(s: &str, i: i64) -> Option<usize> {
    if i < 0 {
        return None;
    }
    let i = i as usize;
    if i == 0 {
        return Some(0);
    }
    s.char_indices().map(|(b, _)| b).chain(std::iter::once(s.len())).nth(i)
}

fn index_error(i: i64, len: usize) -> Thrown {
    Thrown::new("java.lang.StringIndexOutOfBoundsException", format!("index {i}, length {len}"))
}

impl Native for StringBuilder {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn to_string(&self) -> String {
        lock(&self.text).text.clone()
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut b = lock(&self.text);
        let before = b.text.len();
        match (method, args.len()) {
            // Groovy's `sb << x` is `leftShift`, an append.
            ("append" | "leftShift", 1) => match &args[0] {
                Value::List(l)
                    if l.kind == crate::value::ListKind::Array
                        && lock(&l.items).iter().all(|c| matches!(c, Value::Char(_))) =>
                {
                    let s: String = lock(&l.items).iter().map(|c| c.to_string()).collect();
                    b.push(&s)
                }
                Value::Str(s) => b.push(s),
                v => b.push(&v.to_string()),
            },
            ("toString", 0) => return Ok(Value::str(b.text.as_str())),
            ("length", 0) => return Ok(Value::Int(b.chars() as i32)),
            ("isEmpty", 0) => return Ok(Value::Bool(b.text.is_empty())),
            _ => {
                let len = b.chars();
                let r = self.edit(&mut b.text, len, method, &args);
                let read_only = matches!(
                    method,
                    "charAt"
                        | "indexOf"
                        | "lastIndexOf"
                        | "substring"
                        | "capacity"
                        | "chars"
                        | "equals"
                        | "hashCode"
                        | "compareTo"
                        | "trimToSize"
                        | "ensureCapacity"
                );
                if read_only || r.is_err() {
                    return r;
                }
                b.chars = None;
                let after = b.text.len();
                drop(b);
                grown(before, after)?;
                return r;
            }
        }
        let after = b.text.len();
        drop(b);
        grown(before, after)?;
        Ok(self.this())
    }
}

/// What a buffer grew by is the execution's (and work: bytes copied in); what it lost is not.
fn grown(before: usize, after: usize) -> Result<(), Thrown> {
    if after > before {
        budget::grew((after - before) as u64)
    } else {
        budget::release((before - after) as u64);
        Ok(())
    }
}

impl StringBuilder {
    /// Every method but the hot ones (`append`, `toString`, `length`): `t` is the text, `len`
    /// its length in characters.
    fn edit(&self, t: &mut String, len: usize, method: &str, args: &[Value]) -> Result<Value, Thrown> {
        let at = |t: &str, i: usize| -> Result<usize, Thrown> {
            let n = int_arg(args, i)?;
            char_offset(t, n).ok_or_else(|| index_error(n, len))
        };
        match (method, args.len()) {
            ("append", 3) => {
                let s = args[0].to_string();
                let (a, b) = (int_arg(args, 1)?, int_arg(args, 2)?);
                let sub: String = s.chars().skip(a as usize).take(b.saturating_sub(a).max(0) as usize).collect();
                t.push_str(&sub);
                Ok(self.this())
            }
            ("insert", 2) => {
                let o = at(t, 0)?;
                t.insert_str(o, &args[1].to_string());
                Ok(self.this())
            }
            ("charAt", 1) => {
                let i = int_arg(args, 0)?;
                t.chars().nth(i.max(0) as usize).filter(|_| i >= 0).map(Value::Char).ok_or_else(|| index_error(i, len))
            }
            ("deleteCharAt", 1) => {
                let i = int_arg(args, 0)?;
                if i < 0 || i as usize >= len {
                    return Err(index_error(i, len));
                }
                let o = at(t, 0)?;
                t.remove(o);
                Ok(self.this())
            }
            ("delete", 2) => {
                let a = at(t, 0)?;
                let end = int_arg(args, 1)?.min(len as i64);
                let b = char_offset(t, end).ok_or_else(|| index_error(end, len))?;
                if a > b {
                    return Err(index_error(end, len));
                }
                t.replace_range(a..b, "");
                Ok(self.this())
            }
            ("replace", 3) => {
                let a = at(t, 0)?;
                let end = int_arg(args, 1)?.min(len as i64);
                let b = char_offset(t, end).ok_or_else(|| index_error(end, len))?;
                t.replace_range(a..b.max(a), &args[2].to_string());
                Ok(self.this())
            }
            ("reverse", 0) => {
                *t = t.chars().rev().collect();
                Ok(self.this())
            }
            ("setLength", 1) => {
                let n = int_arg(args, 0)?;
                if n < 0 {
                    return Err(index_error(n, len));
                }
                let n = crate::methods::checked_size(n as u64)?;
                if n <= len {
                    let o = char_offset(t, n as i64).unwrap_or(t.len());
                    t.truncate(o);
                } else {
                    t.extend(std::iter::repeat_n('\0', n - len));
                }
                Ok(Value::Null)
            }
            ("setCharAt", 2) => {
                let i = int_arg(args, 0)?;
                if i < 0 || i as usize >= len {
                    return Err(index_error(i, len));
                }
                let c = char_arg(args, 1)?;
                let o = at(t, 0)?;
                let old = t[o..].chars().next().map(char::len_utf8).unwrap_or(0);
                t.replace_range(o..o + old, &c.to_string());
                Ok(Value::Null)
            }
            ("indexOf" | "lastIndexOf", 1 | 2) => {
                let needle = args[0].to_string();
                let found = if method == "indexOf" {
                    let from = args.get(1).and_then(Value::as_i64).unwrap_or(0).max(0);
                    char_offset(t, from).and_then(|o| t[o..].find(&needle).map(|b| b + o))
                } else {
                    t.rfind(&needle)
                };
                Ok(Value::Int(found.map(|b| t[..b].chars().count() as i32).unwrap_or(-1)))
            }
            ("substring", 1 | 2) => {
                let a = at(t, 0)?;
                let b = if args.len() == 2 { at(t, 1)? } else { t.len() };
                if a > b {
                    return Err(index_error(int_arg(args, 0)?, len));
                }
                Ok(Value::str(&t[a..b]))
            }
            ("capacity", 0) => Ok(Value::Int(len.max(16) as i32)),
            ("trimToSize" | "ensureCapacity", _) => Ok(Value::Null),
            ("chars", 0) => Ok(Value::list(t.chars().map(|c| Value::Int(c as i32)).collect())),
            ("equals", 1) => Ok(Value::Bool(
                matches!(&args[0], Value::Object(o) if std::ptr::addr_eq(Arc::as_ptr(o), self as *const Self)),
            )),
            ("hashCode", 0) => Ok(Value::Int(self as *const Self as usize as i32)),
            ("compareTo", 1) => Ok(Value::Int(t.as_str().cmp(args[0].to_string().as_str()) as i32)),
            _ => Err(no_method(self.class, method)),
        }
    }
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
