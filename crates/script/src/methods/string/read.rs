//! Strings' methods that read: `length`, `charAt`, `substring`, `indexOf`, `contains`, `equals`, ...

use super::*;

pub(super) fn length(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("length", []) | ("size", []) => Value::Int(Units::new(s).len() as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn is_empty(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isEmpty", []) => Value::Bool(s.is_empty()),
        _ => return Ok(None),
    }))
}

pub(super) fn is_blank(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isBlank", []) => Value::Bool(s.chars().all(char::is_whitespace)),
        _ => return Ok(None),
    }))
}

pub(super) fn is_all_whitespace(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isAllWhitespace", []) => Value::Bool(s.chars().all(char::is_whitespace)),
        _ => return Ok(None),
    }))
}

pub(super) fn char_at(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("charAt", [i]) => {
            let u = Units::new(s);
            let i = int_arg(i).ok_or_else(bad)?;
            if i < 0 || i >= u.len() as i64 {
                // Groovy 3.0.20 on Java 17: "String index out of range: 5".
                return Err(Thrown::new(
                    "java.lang.StringIndexOutOfBoundsException",
                    format!("String index out of range: {i}"),
                ));
            }
            unit_char(u.at(i as usize))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn code_point_at(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("codePointAt", [i]) => {
            let u = Units::new(s);
            let i = int_arg(i).ok_or_else(bad)?;
            let c = s.encode_utf16().skip(i.max(0) as usize).take(2).collect::<Vec<_>>();
            if i < 0 || c.is_empty() {
                return Err(crate::methods::index_error("java.lang.StringIndexOutOfBoundsException", i, u.len()));
            }
            Value::Int(
                char::decode_utf16(c.clone()).next().and_then(Result::ok).map(|c| c as i32).unwrap_or(c[0] as i32),
            )
        }
        _ => return Ok(None),
    }))
}

pub(super) fn substring(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("substring", [a]) => {
            let u = Units::new(s);
            let a = int_arg(a).ok_or_else(bad)?;
            let (a, b) = check_range(a, u.len() as i64, u.len())?;
            Value::from(u.slice(a, b))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn substring_2(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("substring" | "subSequence", [a, b]) => {
            let u = Units::new(s);
            let (a, b) = check_range(int_arg(a).ok_or_else(bad)?, int_arg(b).ok_or_else(bad)?, u.len())?;
            Value::from(u.slice(a, b))
        }
        _ => return Ok(None),
    }))
}

/// JavaScript's `substr(start[, length])` and `slice(start[, end])`.
pub(super) fn substr(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("substr" | "slice", [..]) if cx.lang == Lang::JavaScript && !args.is_empty() && args.len() <= 2 => {
            let u = Units::new(s);
            let len = u.len() as i64;
            let clamp = |i: i64| if i < 0 { (len + i).max(0) } else { i.min(len) };
            let a = clamp(int_arg(&args[0]).ok_or_else(bad)?);
            let b = match args.get(1) {
                None => len,
                Some(x) if name == "substr" => (a + int_arg(x).ok_or_else(bad)?.max(0)).min(len),
                Some(x) => clamp(int_arg(x).ok_or_else(bad)?),
            };
            Value::from(if a < b { u.slice(a as usize, b as usize) } else { String::new() })
        }
        _ => return Ok(None),
    }))
}

pub(super) fn index_of(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("indexOf", [x]) | ("indexOf", [x, _]) => {
            let n = needle(x).ok_or_else(bad)?;
            let from = match args.get(1) {
                Some(f) => int_arg(f).ok_or_else(bad)?.max(0) as usize,
                None => 0,
            };
            Value::Int(Units::new(s).index_of(&n, from).map_or(-1, |i| i as i32))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn last_index_of(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("lastIndexOf", [x]) | ("lastIndexOf", [x, _]) => {
            let n = needle(x).ok_or_else(bad)?;
            let from = match args.get(1) {
                Some(f) => int_arg(f).ok_or_else(bad)?,
                None => i64::MAX,
            };
            if from < 0 {
                Value::Int(-1)
            } else {
                Value::Int(Units::new(s).last_index_of(&n, from as usize).map_or(-1, |i| i as i32))
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn contains(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("contains", [x]) => Value::Bool(s.contains(&*char_seq(x).ok_or_else(bad)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn starts_with(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("startsWith", [x]) => Value::Bool(s.starts_with(&*char_seq(x).ok_or_else(bad)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn starts_with_2(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("startsWith", [x, off]) => {
            let u = Units::new(s);
            let off = int_arg(off).ok_or_else(bad)?;
            let p = char_seq(x).ok_or_else(bad)?;
            Value::Bool(off >= 0 && off as usize <= u.len() && u.slice(off as usize, u.len()).starts_with(&*p))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn ends_with(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("endsWith", [x]) => Value::Bool(s.ends_with(&*char_seq(x).ok_or_else(bad)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn equals(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("equals", [x]) => Value::Bool(matches!(x, Value::Str(t) if t == s)),
        _ => return Ok(None),
    }))
}

pub(super) fn equals_ignore_case(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("equalsIgnoreCase", [x]) => Value::Bool(match x {
            Value::Str(t) => {
                t.len() == s.len() && java_compare(s, t, true) == 0 || t.to_lowercase() == s.to_lowercase()
            }
            _ => false,
        }),
        _ => return Ok(None),
    }))
}

pub(super) fn content_equals(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("contentEquals", [x]) => Value::Bool(char_seq(x).is_some_and(|t| *t == **s)),
        _ => return Ok(None),
    }))
}

pub(super) fn compare_to(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("compareTo", [x]) => Value::Int(java_compare(s, &char_seq(x).ok_or_else(bad)?, false)),
        _ => return Ok(None),
    }))
}

pub(super) fn compare_to_ignore_case(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("compareToIgnoreCase", [x]) => Value::Int(java_compare(s, &char_seq(x).ok_or_else(bad)?, true)),
        _ => return Ok(None),
    }))
}
