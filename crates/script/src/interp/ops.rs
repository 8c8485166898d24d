//! Operators on numbers: promotion (Integer → Long → BigDecimal → Double), Groovy's
//! BigDecimal division, Java's truncating division, JavaScript's doubles.

use crate::ast::BinOp;
use crate::value::Value;
use crate::{Lang, Thrown};
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::{Decimal, RoundingStrategy};

/// A number, promoted.
#[derive(Debug, Clone, Copy)]
enum N {
    I(i32),
    L(i64),
    D(Decimal),
    F(f64),
}

fn n(v: &Value) -> Option<N> {
    Some(match v {
        Value::Int(i) => N::I(*i),
        Value::Long(i) => N::L(*i),
        Value::Decimal(d) => N::D(*d),
        Value::Double(d) => N::F(*d),
        Value::Char(c) => N::I(*c as i32),
        _ => return None,
    })
}

fn rank(x: N) -> u8 {
    match x {
        N::I(_) => 0,
        N::L(_) => 1,
        N::D(_) => 2,
        N::F(_) => 3,
    }
}

fn to_l(x: N) -> i64 {
    match x {
        N::I(i) => i as i64,
        N::L(i) => i,
        N::D(d) => d.trunc().to_i64().unwrap_or(0),
        N::F(f) => f as i64,
    }
}

fn to_d(x: N) -> Decimal {
    match x {
        N::I(i) => Decimal::from(i),
        N::L(i) => Decimal::from(i),
        N::D(d) => d,
        N::F(f) => Decimal::from_f64(f).unwrap_or_default(),
    }
}

fn to_f(x: N) -> f64 {
    match x {
        N::I(i) => i as f64,
        N::L(i) => i as f64,
        N::D(d) => d.to_f64().unwrap_or(f64::NAN),
        N::F(f) => f,
    }
}

fn arith_err(message: &str) -> Thrown {
    Thrown::new("java.lang.ArithmeticException", message)
}

fn overflow() -> Thrown {
    arith_err("the result has more than the 28 digits stampede's BigDecimal holds")
}

/// A JavaScript number: integral results that fit an int stay `Int` (Nashorn's too), so
/// they print without `.0`.
fn js(f: f64) -> Value {
    if f.fract() == 0.0 && f >= i32::MIN as f64 && f <= i32::MAX as f64 && !(f == 0.0 && f.is_sign_negative()) {
        Value::Int(f as i32)
    } else {
        Value::Double(f)
    }
}

/// `a op b` for two numbers (`None` when either is not a number). Arithmetic, remainder,
/// power, bitwise operators and shifts.
pub(crate) fn arith(op: BinOp, a: &Value, b: &Value, lang: Lang) -> Option<Result<Value, Thrown>> {
    let (x, y) = (n(a)?, n(b)?);
    Some(arith_n(op, x, y, lang))
}

fn arith_n(op: BinOp, x: N, y: N, lang: Lang) -> Result<Value, Thrown> {
    use BinOp::*;
    if lang == Lang::JavaScript {
        let (p, q) = (to_f(x), to_f(y));
        return Ok(match op {
            Add => js(p + q),
            Sub => js(p - q),
            Mul => js(p * q),
            Div => js(p / q),
            Rem => js(p % q),
            Pow => js(p.powf(q)),
            BitAnd => Value::Int(js_int(p) & js_int(q)),
            BitOr => Value::Int(js_int(p) | js_int(q)),
            BitXor => Value::Int(js_int(p) ^ js_int(q)),
            Shl => Value::Int(js_int(p).wrapping_shl(js_int(q) as u32 & 31)),
            Shr => Value::Int(js_int(p).wrapping_shr(js_int(q) as u32 & 31)),
            UShr => js(((js_int(p) as u32) >> (js_int(q) as u32 & 31)) as f64),
            _ => return Err(Thrown::new("java.lang.IllegalArgumentException", format!("{op:?} on numbers"))),
        });
    }
    let r = rank(x).max(rank(y));
    match op {
        Add | Sub | Mul => Ok(match r {
            0 => {
                let (p, q) = (to_l(x) as i32, to_l(y) as i32);
                Value::Int(match op {
                    Add => p.wrapping_add(q),
                    Sub => p.wrapping_sub(q),
                    _ => p.wrapping_mul(q),
                })
            }
            1 => {
                let (p, q) = (to_l(x), to_l(y));
                Value::Long(match op {
                    Add => p.wrapping_add(q),
                    Sub => p.wrapping_sub(q),
                    _ => p.wrapping_mul(q),
                })
            }
            2 => {
                let (p, q) = (to_d(x), to_d(y));
                Value::Decimal(
                    match op {
                        Add => p.checked_add(q),
                        Sub => p.checked_sub(q),
                        _ => p.checked_mul(q),
                    }
                    .ok_or_else(overflow)?,
                )
            }
            _ => {
                let (p, q) = (to_f(x), to_f(y));
                Value::Double(match op {
                    Add => p + q,
                    Sub => p - q,
                    _ => p * q,
                })
            }
        }),
        Div => {
            if r == 3 {
                return Ok(Value::Double(to_f(x) / to_f(y)));
            }
            if lang.is_java_like() && r <= 1 {
                let (p, q) = (to_l(x), to_l(y));
                if q == 0 {
                    return Err(arith_err("/ by zero"));
                }
                return Ok(if r == 0 {
                    Value::Int((p as i32).wrapping_div(q as i32))
                } else {
                    Value::Long(p.wrapping_div(q))
                });
            }
            Ok(Value::Decimal(groovy_div(to_d(x), to_d(y))?))
        }
        Rem => match r {
            0 | 1 => {
                let (p, q) = (to_l(x), to_l(y));
                if q == 0 {
                    return Err(arith_err("/ by zero"));
                }
                Ok(if r == 0 { Value::Int((p as i32).wrapping_rem(q as i32)) } else { Value::Long(p.wrapping_rem(q)) })
            }
            2 => {
                let q = to_d(y);
                if q.is_zero() {
                    return Err(arith_err("Division by zero"));
                }
                Ok(Value::Decimal(to_d(x).checked_rem(q).ok_or_else(overflow)?))
            }
            _ => Ok(Value::Double(to_f(x) % to_f(y))),
        },
        Pow => pow(x, y),
        BitAnd | BitOr | BitXor | Shl | Shr | UShr => {
            if r >= 2 {
                return Err(Thrown::new(
                    "groovy.lang.MissingMethodException",
                    format!("No signature of method: {op:?} is applicable to non-integral numbers"),
                ));
            }
            let (p, q) = (to_l(x), to_l(y));
            Ok(if rank(x) == 0 {
                let p = p as i32;
                Value::Int(match op {
                    BitAnd => p & q as i32,
                    BitOr => p | q as i32,
                    BitXor => p ^ q as i32,
                    Shl => p.wrapping_shl(q as u32 & 31),
                    Shr => p.wrapping_shr(q as u32 & 31),
                    _ => ((p as u32) >> (q as u32 & 31)) as i32,
                })
            } else {
                Value::Long(match op {
                    BitAnd => p & q,
                    BitOr => p | q,
                    BitXor => p ^ q,
                    Shl => p.wrapping_shl(q as u32 & 63),
                    Shr => p.wrapping_shr(q as u32 & 63),
                    _ => ((p as u64) >> (q as u32 & 63)) as i64,
                })
            })
        }
        _ => Err(Thrown::new("java.lang.IllegalArgumentException", format!("{op:?} on numbers"))),
    }
}

fn js_int(f: f64) -> i32 {
    if f.is_finite() {
        (f.trunc() as i64) as i32
    } else {
        0
    }
}

/// Groovy's `**`: integral when both are and the result fits (Integer, then Long), a
/// BigDecimal power for a BigDecimal base, otherwise a double.
fn pow(x: N, y: N) -> Result<Value, Thrown> {
    if let (N::I(_) | N::L(_), N::I(_) | N::L(_)) = (x, y) {
        let (b, e) = (to_l(x), to_l(y));
        if e >= 0 {
            if let Some(p) = u32::try_from(e).ok().and_then(|e| b.checked_pow(e)) {
                if matches!(x, N::I(_)) && matches!(y, N::I(_)) {
                    if let Ok(i) = i32::try_from(p) {
                        return Ok(Value::Int(i));
                    }
                }
                return Ok(Value::Long(p));
            }
            if let Some(d) = u64::try_from(e).ok().and_then(|e| dec_pow(Decimal::from(b), e)) {
                return Ok(Value::Decimal(d));
            }
        }
    }
    if let (N::D(d), N::I(_) | N::L(_)) = (x, y) {
        if let Some(d) = u64::try_from(to_l(y)).ok().and_then(|e| dec_pow(d, e)) {
            return Ok(Value::Decimal(d));
        }
    }
    Ok(Value::Double(to_f(x).powf(to_f(y))))
}

fn dec_pow(base: Decimal, e: u64) -> Option<Decimal> {
    let mut r = Decimal::ONE;
    for _ in 0..e.min(4096) {
        r = r.checked_mul(base)?;
    }
    (e <= 4096).then_some(r)
}

fn precision(d: Decimal) -> u32 {
    let m = d.mantissa().unsigned_abs();
    if m == 0 {
        1
    } else {
        m.ilog10() + 1
    }
}

/// Groovy's `/` on integers and BigDecimals (`BigDecimalMath.divideImpl`): the exact
/// quotient when there is one (with the scale Java prefers), else rounded half-up to the
/// operands' precision plus 10 digits, and to at most max(scales, 10) decimals.
pub(crate) fn groovy_div(a: Decimal, b: Decimal) -> Result<Decimal, Thrown> {
    if b.is_zero() {
        return Err(arith_err(if a.is_zero() { "Division undefined" } else { "Division by zero" }));
    }
    let q = a.checked_div(b).ok_or_else(overflow)?;
    // A quotient that fills the 28 digits was rounded (its product with `b` may round back
    // to `a`: 100.0 / 3.0): not exact.
    if precision(q) < 27 && q.checked_mul(b) == Some(a) {
        let mut q = q.normalize();
        let preferred = a.scale() as i64 - b.scale() as i64;
        if preferred > q.scale() as i64 {
            q.rescale(preferred as u32);
        }
        return Ok(q);
    }
    let digits = precision(a).max(precision(b)) + 10;
    let mut r = q.round_sf_with_strategy(digits, RoundingStrategy::MidpointAwayFromZero).unwrap_or(q);
    let scale = a.scale().max(b.scale()).max(10);
    if r.scale() > scale {
        r = r.round_dp_with_strategy(scale, RoundingStrategy::MidpointAwayFromZero);
    }
    Ok(r)
}

/// JavaScript's global functions `parseInt`, `parseFloat`, `isNaN`, `isFinite`, `Number`,
/// `String` and `Boolean` (ECMAScript 5.1, 15.1.2 and 15.5-15.7), given the arguments and
/// their text.
pub(crate) fn js_global(name: &str, args: &[Value], texts: &[String]) -> Value {
    let text = texts.first().map(String::as_str).unwrap_or("undefined");
    let number = |v: Option<&Value>| v.and_then(js_to_number).unwrap_or(f64::NAN);
    match name {
        "parseInt" => {
            let radix = args.get(1).and_then(Value::as_i64).unwrap_or(0);
            js(js_parse_int(text, radix))
        }
        "parseFloat" => js(js_parse_float(text)),
        "isNaN" => Value::Bool(number(args.first()).is_nan()),
        "isFinite" => Value::Bool(number(args.first()).is_finite()),
        "Number" if args.is_empty() => Value::Int(0),
        "Number" => js(number(args.first())),
        "Boolean" => Value::Bool(match args.first() {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(v) if v.is_number() => {
                let d = v.as_f64().unwrap_or(f64::NAN);
                d != 0.0 && !d.is_nan()
            }
            Some(_) => !text.is_empty(),
        }),
        _ => Value::str(if args.is_empty() { "" } else { text }),
    }
}

/// ToNumber of a string: the whole (trimmed) text is a number, or NaN; empty is 0.
fn js_text_number(s: &str) -> f64 {
    let t = s.trim();
    if t.is_empty() {
        return 0.0;
    }
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map(|n| n as f64).unwrap_or(f64::NAN);
    }
    match t.trim_start_matches(['+', '-']) {
        "Infinity" => return if t.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY },
        u if u.starts_with(|c: char| c.is_ascii_alphabetic()) => return f64::NAN,
        _ => {}
    }
    t.parse().unwrap_or(f64::NAN)
}

/// `parseInt`: leading digits of the radix (10, or 16 after `0x`), after blanks and a sign.
fn js_parse_int(s: &str, radix: i64) -> f64 {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, t) = match (radix, t.get(..2)) {
        (0 | 16, Some("0x" | "0X")) => (16, &t[2..]),
        (0, _) => (10, t),
        (2..=36, _) => (radix as u32, t),
        _ => return f64::NAN,
    };
    let digits: Vec<u32> = t.chars().map_while(|c| c.to_digit(radix)).collect();
    if digits.is_empty() {
        return f64::NAN;
    }
    let n = digits.iter().fold(0.0, |acc, &d| acc * f64::from(radix) + f64::from(d));
    if neg {
        -n
    } else {
        n
    }
}

/// `parseFloat`: the longest prefix (after blanks) that is a decimal number, or NaN.
fn js_parse_float(s: &str) -> f64 {
    let t = s.trim_start();
    let body = t.trim_start_matches(['+', '-']);
    if body.starts_with("Infinity") {
        return if t.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    // The longest prefix that parses, scanning at most the number's characters.
    let end = t.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))).unwrap_or(t.len());
    (1..=end).rev().find_map(|i| t[..i].parse::<f64>().ok()).unwrap_or(f64::NAN)
}

/// JavaScript's `Number.prototype.toString` for a double: integral values without `.0`.
pub(crate) fn js_number(d: f64) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if d.fract() == 0.0 && d.abs() < 1e21 {
        format!("{}", d as i128)
    } else {
        format!("{d}")
    }
}

/// JavaScript's `ToNumber` of a string (`"12"` → 12, `""` → 0, else NaN).
pub(crate) fn js_to_number(v: &Value) -> Option<f64> {
    match v {
        Value::Str(s) => Some(js_text_number(s)),
        Value::Bool(b) => Some(*b as i32 as f64),
        Value::Null => Some(0.0),
        other => other.as_f64(),
    }
}
