//! Numbers: `Integer`, `Long`, `Double`, `BigDecimal` (and `Character` as a number): Java's
//! methods, Groovy's arithmetic methods (`plus`, `div`, `intdiv`, `power`, ...) with Groovy's
//! type promotion, the closure loops (`times`, `upto`, `step`), and the parsing Java does.

use super::{bad_args, int_arg, Found, Method};
use crate::value::{java_double, Value};
use crate::{Ctx, Thrown};
use base64::Engine as _;
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::{Decimal, RoundingStrategy};

mod methods;

/// An `Integer` when it fits, else a `Long` (range ends, counts).
pub(crate) fn int_or_long(v: i64) -> Value {
    match i32::try_from(v) {
        Ok(i) => Value::Int(i),
        Err(_) => Value::Long(v),
    }
}

pub(crate) fn nfe(s: &str) -> Thrown {
    Thrown::new("java.lang.NumberFormatException", format!("For input string: \"{s}\""))
}

/// Java's `Long.parseLong`/`Integer.parseInt`: an optional sign and digits, nothing else;
/// out of `[min, max]` is an error too.
pub(crate) fn parse_int(s: &str, radix: u32, min: i64, max: i64) -> Result<i64, Thrown> {
    let err = || {
        if radix == 10 {
            nfe(s)
        } else {
            Thrown::new("java.lang.NumberFormatException", format!("For input string: \"{s}\" under radix {radix}"))
        }
    };
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(err());
    }
    let v = i128::from_str_radix(s, radix).map_err(|_| err())?;
    if v < min as i128 || v > max as i128 {
        return Err(err());
    }
    Ok(v as i64)
}

/// Java's `Double.parseDouble`: surrounding spaces, a `d`/`f` suffix, `NaN`, `Infinity`.
pub(crate) fn parse_double(s: &str) -> Result<f64, Thrown> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let body = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    match unsigned {
        "NaN" => return Ok(f64::NAN),
        "Infinity" => return Ok(if body.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY }),
        _ => {}
    }
    let ok = !unsigned.is_empty()
        && unsigned.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && unsigned.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '.');
    if !ok {
        return Err(nfe(s));
    }
    body.parse::<f64>().map_err(|_| nfe(s))
}

/// `new BigDecimal(s)`: digits with an optional point and exponent.
pub(crate) fn parse_decimal(s: &str) -> Result<Decimal, Thrown> {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    if unsigned.is_empty() || !unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return Err(nfe(s));
    }
    if unsigned.contains(['e', 'E']) {
        return Decimal::from_scientific(s).map_err(|_| nfe(s));
    }
    if !unsigned.chars().all(|c| c.is_ascii_digit() || c == '.') || unsigned == "." {
        return Err(nfe(s));
    }
    Decimal::from_str_exact(s.strip_prefix('+').unwrap_or(s)).map_err(|_| nfe(s))
}

/// A double rounded to a `float`, kept as the double that prints as the float does.
pub(crate) fn to_float(d: f64) -> f64 {
    let f = d as f32;
    if !f.is_finite() {
        return f as f64;
    }
    f.to_string().parse().unwrap_or(f as f64)
}

pub(crate) fn base64_encode(b: &[u8], url: bool) -> String {
    if url {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
    } else {
        base64::engine::general_purpose::STANDARD.encode(b)
    }
}

pub(crate) fn base64_decode(s: &str) -> Result<Vec<u8>, Thrown> {
    let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(&t)
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(t.trim_end_matches('=')))
        .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(t.trim_end_matches('=')))
        .map_err(|e| Thrown::new("java.lang.IllegalArgumentException", e.to_string()))
}

/// A number as a `BigDecimal` (doubles by their shortest decimal, as `BigDecimal.valueOf`).
pub(crate) fn to_decimal(v: &Value) -> Option<Decimal> {
    match v {
        Value::Int(i) => Some(Decimal::from(*i)),
        Value::Long(i) => Some(Decimal::from(*i)),
        Value::Char(c) => Some(Decimal::from(*c as u32)),
        Value::Decimal(d) => Some(*d),
        Value::Double(d) => java_double(*d).parse::<f64>().ok().and_then(|_| {
            let s = java_double(*d);
            if s.contains('E') {
                Decimal::from_scientific(&s.replace("E", "e")).ok().or_else(|| Decimal::from_f64(*d))
            } else {
                Decimal::from_str_exact(&s).ok()
            }
        }),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Op {
    Plus,
    Minus,
    Multiply,
    Div,
    IntDiv,
    Mod,
    Power,
}

/// The type Groovy computes a binary operation in.
#[derive(PartialEq, PartialOrd)]
enum Rank {
    Int,
    Long,
    Decimal,
    Double,
}

fn rank(v: &Value) -> Option<Rank> {
    Some(match v {
        Value::Int(_) | Value::Char(_) => Rank::Int,
        Value::Long(_) => Rank::Long,
        Value::Decimal(_) => Rank::Decimal,
        Value::Double(_) => Rank::Double,
        _ => return None,
    })
}

fn arith_error(m: &str) -> Thrown {
    Thrown::new("java.lang.ArithmeticException", m)
}

/// Groovy's arithmetic on two numbers: `Integer` op `Integer` stays `Integer` (wrapping as
/// Java does), `Long` wins over it, `BigDecimal` over both, `Double` over all; `div` of
/// whole numbers is a `BigDecimal`.
pub(crate) fn arith(op: Op, a: &Value, b: &Value) -> Result<Value, Thrown> {
    let (Some(ra), Some(rb)) = (rank(a), rank(b)) else {
        return Err(Thrown::new("groovy.lang.MissingMethodException", format!("cannot compute {a:?} and {b:?}")));
    };
    let r = if ra > rb { ra } else { rb };
    if op == Op::IntDiv {
        if r >= Rank::Decimal {
            return Err(bad_args(a, "intdiv", std::slice::from_ref(b)));
        }
        let (x, y) = (a.as_i64().unwrap_or(0), b.as_i64().unwrap_or(0));
        if y == 0 {
            return Err(arith_error("/ by zero"));
        }
        return Ok(if r == Rank::Int {
            Value::Int((x as i32).wrapping_div(y as i32))
        } else {
            Value::Long(x.wrapping_div(y))
        });
    }
    if op == Op::Power {
        return power(a, b);
    }
    if op == Op::Div && r != Rank::Double {
        let (x, y) = (to_decimal(a).unwrap_or_default(), to_decimal(b).unwrap_or_default());
        return Ok(Value::Decimal(groovy_divide(x, y)?));
    }
    Ok(match r {
        Rank::Int | Rank::Long => {
            // Wrapping in 64 bits then keeping 32 is Java's wrapping `int` arithmetic.
            let (x, y) = (a.as_i64().unwrap_or(0), b.as_i64().unwrap_or(0));
            let v = match op {
                Op::Plus => x.wrapping_add(y),
                Op::Minus => x.wrapping_sub(y),
                Op::Multiply => x.wrapping_mul(y),
                _ if y == 0 => return Err(arith_error("/ by zero")),
                _ => x.wrapping_rem(y),
            };
            if r == Rank::Int {
                Value::Int(v as i32)
            } else {
                Value::Long(v)
            }
        }
        Rank::Decimal => {
            let (x, y) = (to_decimal(a).unwrap_or_default(), to_decimal(b).unwrap_or_default());
            let overflow = || arith_error("BigDecimal overflow");
            Value::Decimal(match op {
                Op::Plus => x.checked_add(y).ok_or_else(overflow)?,
                Op::Minus => x.checked_sub(y).ok_or_else(overflow)?,
                Op::Multiply => x.checked_mul(y).ok_or_else(overflow)?,
                _ => x.checked_rem(y).ok_or_else(|| arith_error("Division by zero"))?,
            })
        }
        Rank::Double => {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            Value::Double(match op {
                Op::Plus => x + y,
                Op::Minus => x - y,
                Op::Multiply => x * y,
                Op::Div => x / y,
                _ => x % y,
            })
        }
    })
}

/// Digits in the unscaled value (`BigDecimal.precision()`).
pub(crate) fn precision(d: &Decimal) -> u32 {
    let m = d.mantissa().unsigned_abs();
    if m == 0 {
        1
    } else {
        m.ilog10() + 1
    }
}

/// Groovy's `BigDecimal` division: exact when the quotient terminates (at the smallest scale
/// not below `x.scale - y.scale`), else to `max(precision) + 10` significant digits, HALF_UP.
pub(crate) fn groovy_divide(x: Decimal, y: Decimal) -> Result<Decimal, Thrown> {
    if y.is_zero() {
        return Err(arith_error("Division by zero"));
    }
    let q = x.checked_div(y).ok_or_else(|| arith_error("BigDecimal overflow"))?;
    let preferred = x.scale().saturating_sub(y.scale());
    // Exact when `q * y` gives back `x` without rounding (a product over 96 bits is rounded
    // and loses scale: 3.33...3 * 3 would pass for 10).
    let exact = q.checked_mul(y).is_some_and(|p| p == x && p.scale() == q.scale() + y.scale());
    if exact && q.scale() < 28 {
        let mut n = q.normalize();
        if n.scale() < preferred {
            n.rescale(preferred);
        }
        return Ok(n);
    }
    // Java's `divide(y, new MathContext(max precision + 10))`, then at most
    // `max(x.scale, y.scale, 10)` decimals, both HALF_UP.
    let digits = (precision(&x).max(precision(&y)) + 10) as i64;
    let lead = if q.is_zero() { 0 } else { precision(&q) as i64 - 1 - q.scale() as i64 };
    let sig_scale = (digits - 1 - lead).clamp(0, 28) as u32;
    let r = q.round_dp_with_strategy(sig_scale, RoundingStrategy::MidpointAwayFromZero);
    let cap = x.scale().max(y.scale()).max(10);
    Ok(if r.scale() > cap { r.round_dp_with_strategy(cap, RoundingStrategy::MidpointAwayFromZero) } else { r })
}

fn power(a: &Value, b: &Value) -> Result<Value, Thrown> {
    let whole = |v: &Value| matches!(v, Value::Int(_) | Value::Long(_));
    if whole(a) && whole(b) && b.as_i64().unwrap_or(0) >= 0 {
        let (x, y) = (a.as_i64().unwrap_or(0), b.as_i64().unwrap_or(0));
        let exact = u32::try_from(y).ok().and_then(|y| x.checked_pow(y));
        return Ok(match (exact, a, b) {
            (Some(v), Value::Int(_), Value::Int(_)) => int_or_long(v),
            (Some(v), _, _) => Value::Long(v),
            (None, _, _) => Value::Double((x as f64).powf(y as f64)),
        });
    }
    if let (Value::Decimal(x), Some(y)) = (a, int_arg(b)) {
        if (0..=1000).contains(&y) {
            let mut r = Decimal::ONE;
            for _ in 0..y {
                r = r.checked_mul(*x).ok_or_else(|| arith_error("BigDecimal overflow"))?;
            }
            return Ok(Value::Decimal(r));
        }
    }
    Ok(Value::Double(a.as_f64().unwrap_or(0.0).powf(b.as_f64().unwrap_or(0.0))))
}

/// A `RoundingMode` as the classes give it (`"HALF_UP"`) or a legacy `BigDecimal.ROUND_*`.
fn rounding(v: &Value) -> Option<Option<RoundingStrategy>> {
    use RoundingStrategy::*;
    let name = match v {
        Value::Str(s) => s.rsplit('.').next().unwrap_or("").to_string(),
        Value::Object(o) => o.to_string(),
        Value::Int(i) => ["UP", "DOWN", "CEILING", "FLOOR", "HALF_UP", "HALF_DOWN", "HALF_EVEN", "UNNECESSARY"]
            .get(*i as usize)?
            .to_string(),
        _ => return None,
    };
    Some(Some(match name.as_str() {
        "UP" => AwayFromZero,
        "DOWN" => ToZero,
        "CEILING" => ToPositiveInfinity,
        "FLOOR" => ToNegativeInfinity,
        "HALF_UP" => MidpointAwayFromZero,
        "HALF_DOWN" => MidpointTowardZero,
        "HALF_EVEN" => MidpointNearestEven,
        "UNNECESSARY" => return Some(None),
        _ => return None,
    }))
}

/// `setScale(n, mode)`; `None` mode is `UNNECESSARY` (an error if digits would be lost).
pub(crate) fn set_scale(d: Decimal, n: i64, mode: Option<RoundingStrategy>) -> Result<Decimal, Thrown> {
    let n = u32::try_from(n).map_err(|_| arith_error("negative scales are not supported"))?.min(28);
    if n >= d.scale() {
        let mut r = d;
        r.rescale(n);
        return Ok(r);
    }
    let mut r = match mode {
        Some(m) => d.round_dp_with_strategy(n, m),
        None => {
            let r = d.round_dp_with_strategy(n, RoundingStrategy::ToZero);
            if r != d {
                return Err(arith_error("Rounding necessary"));
            }
            r
        }
    };
    r.rescale(n);
    Ok(r)
}

/// Java's `BigDecimal.toString()`: scientific when the exponent is below -6.
pub(crate) fn decimal_string(d: &Decimal) -> String {
    let adjusted = precision(d) as i64 - 1 - d.scale() as i64;
    if d.scale() == 0 || adjusted >= -6 {
        return d.to_string();
    }
    let m = d.mantissa().unsigned_abs().to_string();
    let sign = if d.is_sign_negative() { "-" } else { "" };
    let (head, tail) = m.split_at(1);
    let frac = if tail.is_empty() { String::new() } else { format!(".{tail}") };
    format!("{sign}{head}{frac}E{adjusted}")
}

/// Java's narrowing to `int` of any number.
pub(crate) fn to_i32(v: &Value) -> Option<i32> {
    Some(match v {
        Value::Double(d) => *d as i32,
        Value::Decimal(d) => d.trunc().to_i128().map(|i| i as i32).unwrap_or(0),
        other => other.as_i64()? as i32,
    })
}

pub(crate) fn to_i64(v: &Value) -> Option<i64> {
    Some(match v {
        Value::Double(d) => *d as i64,
        Value::Decimal(d) => d.trunc().to_i128().map(|i| i as i64).unwrap_or(0),
        other => other.as_i64()?,
    })
}

/// Calls a closure for each number of a loop (`times`, `upto`, `downto`, `step`).
fn each_number(cx: &mut Ctx<'_>, f: &Value, from: &Value, to: &Value, step: &Value) -> Result<(), Thrown> {
    let up = super::super::value::compare(step, &Value::Int(0)) == Some(std::cmp::Ordering::Greater);
    if super::super::value::equals(step, &Value::Int(0)) {
        return Err(Thrown::new("java.lang.IllegalArgumentException", "step must not be zero"));
    }
    let mut i = from.clone();
    loop {
        let c = super::super::value::compare(&i, to);
        let go = if up { c != Some(std::cmp::Ordering::Greater) } else { c != Some(std::cmp::Ordering::Less) };
        if !go {
            return Ok(());
        }
        cx.call_value(f, vec![i.clone()])?;
        i = arith(Op::Plus, &i, step)?;
    }
}

/// A number method: its rows in [`NUMBER`].
pub(crate) fn call(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    super::dispatch(number_rows(name), cx, recv, name, args)
}

/// The methods of numbers (and of characters, after their own), sorted by name.
pub(crate) static NUMBER: &[Method] = &[
    Method::new("abs", 0, 0, methods::abs),
    Method::new("add", 1, 1, methods::plus),
    Method::new("asBoolean", 0, 0, methods::as_boolean),
    Method::new("byteValue", 0, 0, methods::byte_value),
    Method::new("ceil", 0, 0, methods::ceil),
    Method::new("compareTo", 1, 1, methods::compare_to),
    Method::new("div", 1, 1, methods::div),
    Method::new("divide", 1, 1, methods::divide),
    Method::new("divide", 2, 2, methods::divide_2),
    Method::new("divide", 3, 3, methods::divide_3),
    Method::new("doubleValue", 0, 0, methods::double_value),
    Method::new("downto", 2, 2, methods::downto),
    Method::new("equals", 1, 1, methods::equals),
    Method::new("floatValue", 0, 0, methods::float_value),
    Method::new("floor", 0, 0, methods::floor),
    Method::new("hashCode", 0, 0, methods::hash_code),
    Method::new("intValue", 0, 0, methods::int_value),
    Method::new("intValueExact", 0, 0, methods::int_value_exact),
    Method::new("intdiv", 1, 1, methods::intdiv),
    Method::new("isInfinite", 0, 0, methods::is_infinite),
    Method::new("isNaN", 0, 0, methods::is_na_n),
    Method::new("longValue", 0, 0, methods::long_value),
    Method::new("longValueExact", 0, 0, methods::to_big_integer),
    Method::new("max", 1, 1, methods::max),
    Method::new("min", 1, 1, methods::min),
    Method::new("minus", 1, 1, methods::minus),
    Method::new("mod", 1, 1, methods::mod_method),
    Method::new("multiply", 1, 1, methods::multiply),
    Method::new("negate", 0, 0, methods::negate),
    Method::new("next", 0, 0, methods::next),
    Method::new("plus", 1, 1, methods::plus),
    Method::new("plus", 1, 1, methods::plus_2),
    Method::new("pow", 1, 1, methods::power_method),
    Method::new("power", 1, 1, methods::power_method),
    Method::new("precision", 0, 0, methods::precision_method),
    Method::new("previous", 0, 0, methods::previous),
    Method::new("remainder", 1, 1, methods::mod_method),
    Method::new("round", 0, 0, methods::round),
    Method::new("round", 1, 1, methods::round_2),
    Method::new("scale", 0, 0, methods::scale),
    Method::new("setScale", 1, 1, methods::set_scale_method),
    Method::new("setScale", 2, 2, methods::set_scale_method_2),
    Method::new("shortValue", 0, 0, methods::short_value),
    Method::new("signum", 0, 0, methods::signum),
    Method::new("step", 3, 3, methods::step),
    Method::new("stripTrailingZeros", 0, 0, methods::strip_trailing_zeros),
    Method::new("subtract", 1, 1, methods::minus),
    Method::new("times", 1, 1, methods::times),
    Method::new("toBigDecimal", 0, 0, methods::to_big_decimal),
    Method::new("toBigInteger", 0, 0, methods::to_big_integer),
    Method::new("toDouble", 0, 0, methods::double_value),
    Method::new("toFloat", 0, 0, methods::float_value),
    Method::new("toHexString", 0, 0, methods::to_hex_string),
    Method::new("toInteger", 0, 0, methods::int_value),
    Method::new("toLong", 0, 0, methods::long_value),
    Method::new("toPlainString", 0, 0, methods::to_plain_string),
    Method::new("toShort", 0, 0, methods::short_value),
    Method::new("toString", 0, 0, methods::to_string),
    Method::new("trunc", 0, 0, methods::trunc),
    Method::new("unscaledValue", 0, 0, methods::unscaled_value),
    Method::new("upto", 2, 2, methods::upto),
];

/// The rows of `name` in [`NUMBER`]: a `match` on the name, which compiles to a few length and
/// byte comparisons (about 5 ns where a binary search over the rows took 75); a test checks
/// it gives each name's rows.
pub(crate) fn number_rows(name: &str) -> &'static [Method] {
    match name {
        "abs" => &NUMBER[0..1],
        "add" => &NUMBER[1..2],
        "asBoolean" => &NUMBER[2..3],
        "byteValue" => &NUMBER[3..4],
        "ceil" => &NUMBER[4..5],
        "compareTo" => &NUMBER[5..6],
        "div" => &NUMBER[6..7],
        "divide" => &NUMBER[7..10],
        "doubleValue" => &NUMBER[10..11],
        "downto" => &NUMBER[11..12],
        "equals" => &NUMBER[12..13],
        "floatValue" => &NUMBER[13..14],
        "floor" => &NUMBER[14..15],
        "hashCode" => &NUMBER[15..16],
        "intValue" => &NUMBER[16..17],
        "intValueExact" => &NUMBER[17..18],
        "intdiv" => &NUMBER[18..19],
        "isInfinite" => &NUMBER[19..20],
        "isNaN" => &NUMBER[20..21],
        "longValue" => &NUMBER[21..22],
        "longValueExact" => &NUMBER[22..23],
        "max" => &NUMBER[23..24],
        "min" => &NUMBER[24..25],
        "minus" => &NUMBER[25..26],
        "mod" => &NUMBER[26..27],
        "multiply" => &NUMBER[27..28],
        "negate" => &NUMBER[28..29],
        "next" => &NUMBER[29..30],
        "plus" => &NUMBER[30..32],
        "pow" => &NUMBER[32..33],
        "power" => &NUMBER[33..34],
        "precision" => &NUMBER[34..35],
        "previous" => &NUMBER[35..36],
        "remainder" => &NUMBER[36..37],
        "round" => &NUMBER[37..39],
        "scale" => &NUMBER[39..40],
        "setScale" => &NUMBER[40..42],
        "shortValue" => &NUMBER[42..43],
        "signum" => &NUMBER[43..44],
        "step" => &NUMBER[44..45],
        "stripTrailingZeros" => &NUMBER[45..46],
        "subtract" => &NUMBER[46..47],
        "times" => &NUMBER[47..48],
        "toBigDecimal" => &NUMBER[48..49],
        "toBigInteger" => &NUMBER[49..50],
        "toDouble" => &NUMBER[50..51],
        "toFloat" => &NUMBER[51..52],
        "toHexString" => &NUMBER[52..53],
        "toInteger" => &NUMBER[53..54],
        "toLong" => &NUMBER[54..55],
        "toPlainString" => &NUMBER[55..56],
        "toShort" => &NUMBER[56..57],
        "toString" => &NUMBER[57..58],
        "trunc" => &NUMBER[58..59],
        "unscaledValue" => &NUMBER[59..60],
        "upto" => &NUMBER[60..61],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn dec(s: &str) -> Value {
        Value::Decimal(s.parse().unwrap())
    }

    #[test]
    fn conversions_narrow_as_java_does() {
        assert!(matches!(invoke(&Value::Double(3.7), "intValue", vec![]), Ok(Value::Int(3))));
        assert!(matches!(invoke(&Value::Long(1 << 33), "intValue", vec![]), Ok(Value::Int(0))));
        assert!(matches!(invoke(&Value::Int(3), "longValue", vec![]), Ok(Value::Long(3))));
        assert_eq!(s(&Value::Int(3), "doubleValue", vec![]), "3.0");
        assert_eq!(s(&Value::Double(1.1), "floatValue", vec![]), "1.1");
        assert_eq!(s(&Value::Int(3), "toBigDecimal", vec![]), "3");
        assert_eq!(s(&Value::Double(0.1), "toBigDecimal", vec![]), "0.1");
        assert_eq!(s(&Value::Double(1e10), "toString", vec![]), "1.0E10");
    }

    #[test]
    fn groovy_arithmetic_promotes() {
        assert!(matches!(invoke(&Value::Int(i32::MAX), "plus", vec![Value::Int(1)]), Ok(Value::Int(i32::MIN))));
        assert!(matches!(invoke(&Value::Int(2), "plus", vec![Value::Long(1)]), Ok(Value::Long(3))));
        assert_eq!(s(&Value::Int(1), "div", vec![Value::Int(3)]), "0.3333333333");
        assert_eq!(s(&Value::Int(2), "div", vec![Value::Int(3)]), "0.6666666667");
        assert_eq!(s(&Value::Int(10), "div", vec![Value::Int(4)]), "2.5");
        assert_eq!(s(&Value::Int(10), "div", vec![Value::Int(5)]), "2");
        assert_eq!(s(&Value::Double(1.0), "div", vec![Value::Int(4)]), "0.25");
        assert_eq!(s(&Value::Int(7), "intdiv", vec![Value::Int(2)]), "3");
        assert_eq!(s(&Value::Int(-7), "mod", vec![Value::Int(3)]), "-1");
        assert_eq!(s(&Value::Int(2), "power", vec![Value::Int(10)]), "1024");
        assert_eq!(s(&Value::Int(2), "power", vec![Value::Double(0.5)]), java_double(2f64.sqrt()));
        assert_eq!(s(&dec("1.5"), "plus", vec![Value::Int(1)]), "2.5");
        assert_eq!(s(&dec("1.5"), "multiply", vec![Value::Double(2.0)]), "3.0");
        assert_eq!(s(&Value::Int(5), "abs", vec![]), "5");
        assert_eq!(s(&Value::Double(-2.5), "abs", vec![]), "2.5");
        assert_eq!(s(&Value::Double(2.5), "round", vec![]), "3");
        assert_eq!(s(&Value::Double(2.345), "round", vec![Value::Int(2)]), "2.35");
        assert!(invoke(&Value::Int(1), "intdiv", vec![Value::Int(0)]).is_err());
    }

    #[test]
    fn big_decimal_scale_and_rounding() {
        assert_eq!(s(&dec("1.2345"), "setScale", vec![Value::Int(2), Value::str("HALF_UP")]), "1.23");
        assert_eq!(s(&dec("1.235"), "setScale", vec![Value::Int(2), Value::str("HALF_UP")]), "1.24");
        assert_eq!(s(&dec("1.225"), "setScale", vec![Value::Int(2), Value::str("HALF_EVEN")]), "1.22");
        assert_eq!(s(&dec("1.5"), "setScale", vec![Value::Int(3)]), "1.500");
        assert_eq!(s(&dec("-1.25"), "setScale", vec![Value::Int(1), Value::str("FLOOR")]), "-1.3");
        assert_eq!(s(&dec("1.29"), "setScale", vec![Value::Int(1), Value::str("DOWN")]), "1.2");
        assert_eq!(s(&dec("1.29"), "setScale", vec![Value::Int(1), Value::Int(4)]), "1.3");
        assert_eq!(invoke(&dec("1.25"), "setScale", vec![Value::Int(1)]).unwrap_err().message, "Rounding necessary");
        assert_eq!(s(&dec("1.500"), "scale", vec![]), "3");
        assert_eq!(s(&dec("123.45"), "precision", vec![]), "5");
        assert_eq!(s(&dec("1.500"), "stripTrailingZeros", vec![]), "1.5");
        assert_eq!(s(&dec("0.00000001"), "toString", vec![]), "1E-8");
        assert_eq!(s(&dec("0.00000001"), "toPlainString", vec![]), "0.00000001");
        assert_eq!(s(&dec("10"), "divide", vec![dec("4")]), "2.5");
        // Groovy 3.0.20: `10 / 3` is 3.3333333333, `new BigDecimal("10").divide(3)` throws.
        assert_eq!(groovy_divide(Decimal::from(10), Decimal::from(3)).unwrap().to_string(), "3.3333333333");
        assert_eq!(groovy_divide(Decimal::from(1), Decimal::from(1024)).unwrap().to_string(), "0.0009765625");
        assert!(invoke(&dec("10"), "divide", vec![dec("3")]).is_err());
        assert!(invoke(&dec("1"), "divide", vec![dec("3")]).is_err());
        assert_eq!(s(&dec("1"), "divide", vec![dec("3"), Value::Int(4), Value::str("HALF_UP")]), "0.3333");
        assert_eq!(s(&dec("1.10"), "add", vec![dec("2.205")]), "3.305");
        assert_eq!(s(&dec("5"), "subtract", vec![dec("1.5")]), "3.5");
        assert_eq!(s(&dec("2.0"), "compareTo", vec![dec("2.00")]), "0");
        assert_eq!(s(&dec("2.0"), "equals", vec![dec("2.00")]), "false");
    }

    #[test]
    fn parsing_is_javas() {
        assert_eq!(parse_int("+12", 10, i32::MIN as i64, i32::MAX as i64).unwrap(), 12);
        assert!(parse_int("1 ", 10, i32::MIN as i64, i32::MAX as i64).is_err());
        assert!(parse_int("", 10, i32::MIN as i64, i32::MAX as i64).is_err());
        assert_eq!(parse_int("ff", 16, i32::MIN as i64, i32::MAX as i64).unwrap(), 255);
        assert_eq!(parse_double(" 1.5d ").unwrap(), 1.5);
        assert!(parse_double("1.5x").is_err());
        assert!(parse_double("inf").is_err());
        assert!(parse_double("Infinity").unwrap().is_infinite());
        assert_eq!(parse_decimal("1e3").unwrap(), Decimal::from(1000));
        assert!(parse_decimal("1,5").is_err());
    }

    #[test]
    fn closure_loops_need_the_evaluator() {
        // Without a closure a loop is a wrong call, not a silent no-op.
        assert!(invoke(&Value::Int(3), "times", vec![Value::Int(1)]).is_err());
    }
}
