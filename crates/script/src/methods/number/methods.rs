//! Numbers' methods, one function per signature (the rows of `NUMBER`).

use super::*;

pub(super) fn int_value(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("intValue" | "toInteger", []) => Value::Int(to_i32(recv).ok_or_else(bad)?),
        _ => return Ok(None),
    }))
}

pub(super) fn short_value(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("shortValue" | "toShort", []) => Value::Int(to_i32(recv).ok_or_else(bad)? as i16 as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn byte_value(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("byteValue", []) => Value::Int(to_i32(recv).ok_or_else(bad)? as i8 as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn long_value(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("longValue" | "toLong", []) => Value::Long(to_i64(recv).ok_or_else(bad)?),
        _ => return Ok(None),
    }))
}

pub(super) fn double_value(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("doubleValue" | "toDouble", []) => Value::Double(recv.as_f64().ok_or_else(bad)?),
        _ => return Ok(None),
    }))
}

pub(super) fn float_value(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("floatValue" | "toFloat", []) => Value::Double(to_float(recv.as_f64().ok_or_else(bad)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn to_big_decimal(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("toBigDecimal", []) => Value::Decimal(to_decimal(recv).ok_or_else(bad)?),
        _ => return Ok(None),
    }))
}

pub(super) fn to_big_integer(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("toBigInteger" | "longValueExact", []) => Value::Long(to_i64(recv).ok_or_else(bad)?),
        _ => return Ok(None),
    }))
}

pub(super) fn int_value_exact(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("intValueExact", []) => {
            let i = to_i64(recv).ok_or_else(bad)?;
            Value::Int(i32::try_from(i).map_err(|_| arith_error("Overflow"))?)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn to_string(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("toString", []) => Value::from(match recv {
            Value::Decimal(d) => decimal_string(d),
            other => other.to_string(),
        }),
        _ => return Ok(None),
    }))
}

pub(super) fn to_plain_string(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("toPlainString", []) => Value::from(recv.to_string()),
        _ => return Ok(None),
    }))
}

pub(super) fn compare_to(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("compareTo", [x]) if num(x) => Value::Int(crate::value::compare(recv, x).map_or(0, |o| o as i32)),
        _ => return Ok(None),
    }))
}

pub(super) fn equals(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("equals", [x]) => Value::Bool(crate::methods::java_equals(recv, x)),
        _ => return Ok(None),
    }))
}

pub(super) fn abs(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("abs", []) => match recv {
            Value::Int(i) => Value::Int(i.wrapping_abs()),
            Value::Long(i) => Value::Long(i.wrapping_abs()),
            Value::Double(d) => Value::Double(d.abs()),
            Value::Decimal(d) => Value::Decimal(d.abs()),
            _ => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

pub(super) fn negate(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("negate", []) => arith(Op::Minus, &Value::Int(0), recv)?,
        _ => return Ok(None),
    }))
}

pub(super) fn signum(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("signum", []) => Value::Int(match crate::value::compare(recv, &Value::Int(0)) {
            Some(std::cmp::Ordering::Less) => -1,
            Some(std::cmp::Ordering::Greater) => 1,
            _ => 0,
        }),
        _ => return Ok(None),
    }))
}

pub(super) fn round(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("round", []) => match recv {
            Value::Double(d) => Value::Long((d + 0.5).floor() as i64),
            Value::Decimal(d) => Value::Decimal(d.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero)),
            other => other.clone(),
        },
        _ => return Ok(None),
    }))
}

pub(super) fn round_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("round", [n]) => {
            let n = int_arg(n).ok_or_else(bad)?;
            match recv {
                Value::Double(d) => {
                    let p = 10f64.powi(n as i32);
                    Value::Double((d * p + 0.5).floor() / p)
                }
                Value::Decimal(d) => Value::Decimal(set_scale(*d, n, Some(RoundingStrategy::MidpointAwayFromZero))?),
                other => other.clone(),
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn trunc(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("trunc", []) => match recv {
            Value::Double(d) => Value::Double(d.trunc()),
            other => other.clone(),
        },
        _ => return Ok(None),
    }))
}

pub(super) fn ceil(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("ceil", []) => Value::Double(recv.as_f64().ok_or_else(bad)?.ceil()),
        _ => return Ok(None),
    }))
}

pub(super) fn floor(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("floor", []) => Value::Double(recv.as_f64().ok_or_else(bad)?.floor()),
        _ => return Ok(None),
    }))
}

pub(super) fn plus(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("plus" | "add", [x]) if num(x) => arith(Op::Plus, recv, x)?,
        _ => return Ok(None),
    }))
}

pub(super) fn plus_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("plus", [Value::Str(s)]) => Value::from(format!("{recv}{s}")),
        _ => return Ok(None),
    }))
}

pub(super) fn minus(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("minus" | "subtract", [x]) if num(x) => arith(Op::Minus, recv, x)?,
        _ => return Ok(None),
    }))
}

pub(super) fn multiply(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("multiply", [x]) if num(x) => arith(Op::Multiply, recv, x)?,
        _ => return Ok(None),
    }))
}

pub(super) fn div(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("div", [x]) if num(x) => arith(Op::Div, recv, x)?,
        _ => return Ok(None),
    }))
}

pub(super) fn divide(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("divide", [x]) if num(x) => match (recv, to_decimal(x)) {
            (Value::Decimal(d), Some(y)) => {
                let q = groovy_divide(*d, y)?;
                if q.checked_mul(y) != Some(*d) {
                    return Err(arith_error(
                        "Non-terminating decimal expansion; no exact representable decimal result.",
                    ));
                }
                Value::Decimal(q)
            }
            _ => arith(Op::Div, recv, x)?,
        },
        _ => return Ok(None),
    }))
}

pub(super) fn divide_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("divide", [x, m]) if num(x) => {
            let (d, y) = (to_decimal(recv).ok_or_else(bad)?, to_decimal(x).ok_or_else(bad)?);
            let mode = rounding(m).ok_or_else(bad)?;
            // divide(x, RoundingMode): the scale of the receiver.
            Value::Decimal(set_scale(groovy_divide(d, y)?, d.scale() as i64, mode)?)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn divide_3(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("divide", [x, n, m]) if num(x) => {
            let (d, y) = (to_decimal(recv).ok_or_else(bad)?, to_decimal(x).ok_or_else(bad)?);
            let q = d.checked_div(y).ok_or_else(|| arith_error("Division by zero"))?;
            Value::Decimal(set_scale(q, int_arg(n).ok_or_else(bad)?, rounding(m).ok_or_else(bad)?)?)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn intdiv(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("intdiv", [x]) if num(x) => arith(Op::IntDiv, recv, x)?,
        _ => return Ok(None),
    }))
}

pub(super) fn mod_method(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("mod" | "remainder", [x]) if num(x) => arith(Op::Mod, recv, x)?,
        _ => return Ok(None),
    }))
}

pub(super) fn power_method(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("power" | "pow", [x]) if num(x) => arith(Op::Power, recv, x)?,
        _ => return Ok(None),
    }))
}

pub(super) fn max(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("max", [x]) if num(x) => {
            if crate::value::compare(recv, x) == Some(std::cmp::Ordering::Less) {
                x.clone()
            } else {
                recv.clone()
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn min(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("min", [x]) if num(x) => {
            if crate::value::compare(recv, x) == Some(std::cmp::Ordering::Greater) {
                x.clone()
            } else {
                recv.clone()
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn next(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("next", []) => arith(Op::Plus, recv, &Value::Int(1))?,
        _ => return Ok(None),
    }))
}

pub(super) fn previous(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("previous", []) => arith(Op::Minus, recv, &Value::Int(1))?,
        _ => return Ok(None),
    }))
}

pub(super) fn is_na_n(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("isNaN", []) => Value::Bool(matches!(recv, Value::Double(d) if d.is_nan())),
        _ => return Ok(None),
    }))
}

pub(super) fn is_infinite(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("isInfinite", []) => Value::Bool(matches!(recv, Value::Double(d) if d.is_infinite())),
        _ => return Ok(None),
    }))
}

pub(super) fn hash_code(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("hashCode", []) => Value::Int(crate::methods::hash_code(recv)),
        _ => return Ok(None),
    }))
}

pub(super) fn times(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("times", [f]) => {
            let n = to_i64(recv).ok_or_else(bad)?;
            for i in 0..n {
                cx.call_value(f, vec![int_or_long(i)])?;
            }
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn upto(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("upto", [to, f]) if num(to) => {
            each_number(cx, f, recv, to, &Value::Int(1))?;
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn downto(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("downto", [to, f]) if num(to) => {
            each_number(cx, f, recv, to, &Value::Int(-1))?;
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn step(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let num = |v: &Value| rank(v).is_some();
    Ok(Some(match (name, args) {
        ("step", [to, by, f]) if num(to) && num(by) => {
            each_number(cx, f, recv, to, by)?;
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn as_boolean(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("asBoolean", []) => Value::Bool(recv.truthy()),
        _ => return Ok(None),
    }))
}

/// BigDecimal.
pub(super) fn scale(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("scale", []) => Value::Int(to_decimal(recv).ok_or_else(bad)?.scale() as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn precision_method(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("precision", []) => Value::Int(precision(&to_decimal(recv).ok_or_else(bad)?) as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn unscaled_value(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("unscaledValue", []) => Value::Long(to_decimal(recv).ok_or_else(bad)?.mantissa() as i64),
        _ => return Ok(None),
    }))
}

pub(super) fn set_scale_method(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("setScale", [n]) => {
            Value::Decimal(set_scale(to_decimal(recv).ok_or_else(bad)?, int_arg(n).ok_or_else(bad)?, None)?)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn set_scale_method_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("setScale", [n, m]) => Value::Decimal(set_scale(
            to_decimal(recv).ok_or_else(bad)?,
            int_arg(n).ok_or_else(bad)?,
            rounding(m).ok_or_else(bad)?,
        )?),
        _ => return Ok(None),
    }))
}

pub(super) fn strip_trailing_zeros(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("stripTrailingZeros", []) => Value::Decimal(to_decimal(recv).ok_or_else(bad)?.normalize()),
        _ => return Ok(None),
    }))
}

pub(super) fn to_hex_string(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("toHexString", []) => Value::from(format!("{:x}", to_i64(recv).ok_or_else(bad)?)),
        _ => return Ok(None),
    }))
}
