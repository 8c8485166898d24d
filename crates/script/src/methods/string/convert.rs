//! Strings' methods that convert: `getBytes`, `toInteger`, `isNumber`, `tokenize`, `padLeft`, ...

use super::*;

pub(super) fn get_bytes(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("getBytes", []) => Value::Bytes(Arc::new(s.as_bytes().to_vec())),
        _ => return Ok(None),
    }))
}

pub(super) fn get_bytes_2(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("getBytes", [cs]) => Value::Bytes(Arc::new(encode(s, &charset_name(cs).ok_or_else(bad)?)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn to_char_array(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toCharArray", []) => {
            crate::methods::checked_items(s.len() as u64)?;
            Value::array(s.chars().map(Value::Char).collect())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn chars(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("chars", []) => {
            crate::methods::checked_items(s.len() as u64)?;
            Value::list(s.encode_utf16().map(|c| Value::Int(c as i32)).collect())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn code_points(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("codePoints", []) => {
            crate::methods::checked_items(s.len() as u64)?;
            Value::list(s.chars().map(|c| Value::Int(c as i32)).collect())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn hash_code(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("hashCode", []) => Value::Int(java_hash(s)),
        _ => return Ok(None),
    }))
}

pub(super) fn lines_method(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("lines" | "readLines", []) => string_list(lines(s)),
        _ => return Ok(None),
    }))
}

pub(super) fn is_number(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isNumber" | "isBigDecimal", []) => Value::Bool(number::parse_decimal(s.trim()).is_ok()),
        _ => return Ok(None),
    }))
}

pub(super) fn is_integer(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isInteger", []) => Value::Bool(number::parse_int(s.trim(), 10, i32::MIN as i64, i32::MAX as i64).is_ok()),
        _ => return Ok(None),
    }))
}

pub(super) fn is_long(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isLong", []) => Value::Bool(number::parse_int(s.trim(), 10, i64::MIN, i64::MAX).is_ok()),
        _ => return Ok(None),
    }))
}

pub(super) fn is_double(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isDouble" | "isFloat", []) => Value::Bool(number::parse_double(s).is_ok()),
        _ => return Ok(None),
    }))
}

pub(super) fn to_integer(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toInteger", []) => Value::Int(number::parse_int(s.trim(), 10, i32::MIN as i64, i32::MAX as i64)? as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn to_long(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toLong", []) => Value::Long(number::parse_int(s.trim(), 10, i64::MIN, i64::MAX)?),
        _ => return Ok(None),
    }))
}

pub(super) fn to_short(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toShort", []) => Value::Int(number::parse_int(s.trim(), 10, i16::MIN as i64, i16::MAX as i64)? as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn to_double(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toDouble", []) => Value::Double(number::parse_double(s)?),
        _ => return Ok(None),
    }))
}

pub(super) fn to_float(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toFloat", []) => Value::Double(number::to_float(number::parse_double(s)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn to_big_decimal(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toBigDecimal", []) => Value::Decimal(number::parse_decimal(s.trim())?),
        _ => return Ok(None),
    }))
}

pub(super) fn to_big_integer(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toBigInteger", []) => Value::Long(number::parse_int(s.trim(), 10, i64::MIN, i64::MAX)?),
        _ => return Ok(None),
    }))
}

pub(super) fn to_boolean(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toBoolean", []) => Value::Bool(matches!(s.trim().to_lowercase().as_str(), "true" | "y" | "1")),
        _ => return Ok(None),
    }))
}

pub(super) fn to_character(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toCharacter", []) => Value::Char(s.chars().next().ok_or_else(|| {
            Thrown::new("java.lang.StringIndexOutOfBoundsException", "Index 0 out of bounds for length 0")
        })?),
        _ => return Ok(None),
    }))
}

pub(super) fn reverse(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("reverse", []) => Value::from(s.chars().rev().collect::<String>()),
        _ => return Ok(None),
    }))
}

pub(super) fn capitalize(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("capitalize", []) => Value::from(value::capitalize(s)),
        _ => return Ok(None),
    }))
}

pub(super) fn uncapitalize(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("uncapitalize", []) => {
            let mut c = s.chars();
            Value::from(c.next().map(|f| f.to_lowercase().chain(c).collect::<String>()).unwrap_or_default())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn tokenize(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("tokenize", []) => string_list(s.split_whitespace().map(String::from).collect()),
        _ => return Ok(None),
    }))
}

pub(super) fn tokenize_2(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("tokenize", [d]) => {
            let d: Vec<char> = char_seq(d).ok_or_else(bad)?.chars().collect();
            string_list(s.split(|c| d.contains(&c)).filter(|t| !t.is_empty()).map(String::from).collect())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn pad_left(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let recv = || this.clone();
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("padLeft" | "padRight" | "center", [n]) | ("padLeft" | "padRight" | "center", [n, _]) => {
            let n = crate::methods::checked_size(int_arg(n).ok_or_else(bad)?.max(0) as u64)?;
            let pad = match args.get(1) {
                Some(p) => char_seq(p).ok_or_else(bad)?.into_owned(),
                None => " ".into(),
            };
            let len = s.chars().count();
            if n <= len {
                recv()
            } else if pad.is_empty() {
                // Groovy divides by the pad's length.
                return Err(Thrown::new("java.lang.ArithmeticException", "/ by zero"));
            } else {
                let add = n - len;
                Value::from(match name {
                    "padLeft" => format!("{}{s}", padding(&pad, add)),
                    "padRight" => format!("{s}{}", padding(&pad, add)),
                    _ => {
                        let left = padding(&pad, add / 2);
                        let right = padding(&pad, add - add / 2);
                        format!("{left}{s}{right}")
                    }
                })
            }
        }
        _ => return Ok(None),
    }))
}
