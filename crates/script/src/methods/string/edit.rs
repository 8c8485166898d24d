//! Strings' methods that make a new string: `toUpperCase`, `trim`, `replace`, `split`, `matches`, ...

use super::*;

pub(super) fn to_upper_case(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toUpperCase", [] | [_]) => Value::from(s.to_uppercase()),
        _ => return Ok(None),
    }))
}

pub(super) fn to_lower_case(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toLowerCase", [] | [_]) => Value::from(s.to_lowercase()),
        _ => return Ok(None),
    }))
}

pub(super) fn trim(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("trim", []) => Value::str(java_trim(s)),
        _ => return Ok(None),
    }))
}

pub(super) fn strip(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("strip", []) => Value::str(s.trim()),
        _ => return Ok(None),
    }))
}

pub(super) fn strip_leading(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("stripLeading", []) => Value::str(s.trim_start()),
        _ => return Ok(None),
    }))
}

pub(super) fn strip_trailing(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("stripTrailing", []) => Value::str(s.trim_end()),
        _ => return Ok(None),
    }))
}

pub(super) fn strip_indent_method(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("stripIndent", []) => Value::from(strip_indent(s)),
        _ => return Ok(None),
    }))
}

pub(super) fn intern(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let recv = || this.clone();
    Ok(Some(match (name, args) {
        ("intern" | "toString", []) => recv(),
        _ => return Ok(None),
    }))
}

pub(super) fn concat(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("concat", [x]) => Value::from(format!("{s}{}", char_seq(x).ok_or_else(bad)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn repeat(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("repeat" | "multiply", [n]) => {
            let n = int_arg(n).ok_or_else(bad)?;
            if n < 0 {
                return Err(Thrown::new(
                    "java.lang.IllegalArgumentException",
                    if name == "repeat" {
                        format!("count is negative: {n}")
                    } else {
                        format!("multiply() should be called with a number of 0 or greater not: {n}")
                    },
                ));
            }
            crate::methods::checked_size((s.len() as u64).saturating_mul(n as u64))?;
            Value::from(s.repeat(n as usize))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn replace(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("replace", [a, b]) => {
            let (a, b) = (needle_for_replace(a).ok_or_else(bad)?, needle_for_replace(b).ok_or_else(bad)?);
            if a.is_empty() {
                // Java: the replacement before every char and at the end.
                let size = (s.chars().count() as u64 + 1).saturating_mul(b.len() as u64).saturating_add(s.len() as u64);
                crate::methods::checked_size(size)?;
                let mut out = String::with_capacity(s.len() * (b.len() + 1) + b.len());
                for c in s.chars() {
                    out.push_str(&b);
                    out.push(c);
                }
                out.push_str(&b);
                Value::from(out)
            } else {
                if b.len() > a.len() {
                    // Each match grows the text by the difference: at most this many matches.
                    let most = (s.len() / a.len()) as u64;
                    crate::methods::checked_size(
                        most.saturating_mul((b.len() - a.len()) as u64).saturating_add(s.len() as u64),
                    )?;
                }
                Value::from(s.replace(&*a, &b))
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn replace_all(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("replaceAll", [re, r]) => Value::from(replace_regex(cx, s, &char_seq(re).ok_or_else(bad)?, r, true)?),
        _ => return Ok(None),
    }))
}

pub(super) fn replace_first(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("replaceFirst", [re, r]) => Value::from(replace_regex(cx, s, &char_seq(re).ok_or_else(bad)?, r, false)?),
        _ => return Ok(None),
    }))
}

pub(super) fn split(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("split", []) => str_array(s.split_whitespace().map(String::from).collect()),
        _ => return Ok(None),
    }))
}

pub(super) fn split_2(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("split", [re]) => str_array(java_split(s, &char_seq(re).ok_or_else(bad)?, 0)?),
        _ => return Ok(None),
    }))
}

pub(super) fn split_3(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("split", [re, limit]) => {
            str_array(java_split(s, &char_seq(re).ok_or_else(bad)?, int_arg(limit).ok_or_else(bad)?)?)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn matches(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("matches", [re]) => {
            let re = char_seq(re).ok_or_else(bad)?;
            Value::Bool(compile(&re, 0, Anchor::Whole)?.is_match(&**s).map_err(match_error)?)
        }
        _ => return Ok(None),
    }))
}
