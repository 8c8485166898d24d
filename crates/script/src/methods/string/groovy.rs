//! The GDK's string methods: `plus`, `minus`, `getAt`, `find`, `findAll`, `eachLine`, `md5`, ...

use super::*;

pub(super) fn plus(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("plus", [x]) => Value::from(format!("{s}{x}")),
        _ => return Ok(None),
    }))
}

pub(super) fn minus(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("minus", [x]) => {
            let t = x.to_string();
            Value::from(match s.find(&t) {
                Some(i) => format!("{}{}", &s[..i], &s[i + t.len()..]),
                None => s.to_string(),
            })
        }
        _ => return Ok(None),
    }))
}

pub(super) fn get_at(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("getAt", [Value::Range(a, b)]) => {
            let chars: Vec<char> = s.chars().collect();
            let (lo, hi, rev) = range_bounds(*a, *b, chars.len(), false)?;
            let mut out: String = chars[lo..hi].iter().collect();
            if rev {
                out = out.chars().rev().collect();
            }
            Value::from(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn get_at_2(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("getAt", [i]) if int_arg(i).is_some() => {
            let chars: Vec<char> = s.chars().collect();
            let i = groovy_index(int_arg(i).unwrap_or(0), chars.len());
            match chars.get(usize::try_from(i).unwrap_or(usize::MAX)) {
                Some(c) => Value::from(c.to_string()),
                None => {
                    // Groovy takes `substring(i, i + 1)`.
                    return Err(Thrown::new(
                        "java.lang.StringIndexOutOfBoundsException",
                        format!("begin {i}, end {}, length {}", i.saturating_add(1), chars.len()),
                    ));
                }
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn take(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("take", [n]) => Value::from(s.chars().take(int_arg(n).ok_or_else(bad)?.max(0) as usize).collect::<String>()),
        _ => return Ok(None),
    }))
}

pub(super) fn drop(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("drop", [n]) => Value::from(s.chars().skip(int_arg(n).ok_or_else(bad)?.max(0) as usize).collect::<String>()),
        _ => return Ok(None),
    }))
}

pub(super) fn take_right(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("takeRight", [n]) => {
            let chars: Vec<char> = s.chars().collect();
            let n = (int_arg(n).ok_or_else(bad)?.max(0) as usize).min(chars.len());
            Value::from(chars[chars.len() - n..].iter().collect::<String>())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("find", [re]) if !matches!(re, Value::Closure(_)) => {
            let re = java_regex(&char_seq(re).ok_or_else(bad)?)?;
            match re.captures(&**s).map_err(match_error)? {
                Some(c) => Value::str(c.get(0).map(|m| m.as_str()).unwrap_or("")),
                None => Value::Null,
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find_2(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("find", [re, f @ Value::Closure(_)]) => {
            let re = java_regex(&char_seq(re).ok_or_else(bad)?)?;
            match re.captures(&**s).map_err(match_error)? {
                Some(c) => cx.call_value(f, vec![match_value(&c)])?,
                None => Value::Null,
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find_3(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("find", [f @ Value::Closure(_)]) => {
            let mut found = Value::Null;
            for c in char_strings(s)? {
                if cx.call_value(f, vec![c.clone()])?.truthy() {
                    found = c;
                    break;
                }
            }
            found
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find_all(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let recv = || this.clone();
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("findAll" | "eachMatch", [re]) | ("findAll" | "eachMatch", [re, Value::Closure(_)])
            if char_seq(re).is_some() =>
        {
            let re = java_regex(&char_seq(re).ok_or_else(bad)?)?;
            let mut out = Vec::new();
            for c in re.captures_iter(&**s) {
                let m = match_value(&c.map_err(match_error)?);
                out.push(match args.get(1) {
                    Some(f) => cx.call_value(f, vec![m])?,
                    None => m,
                });
            }
            if name == "eachMatch" {
                recv()
            } else {
                Value::list(out)
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn count(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        ("count", [x]) => {
            let t = char_seq(x).ok_or_else(bad)?;
            let u = Units::new(s);
            let mut n = 0;
            let mut i = 0;
            while let Some(at) = u.index_of(&t, i) {
                n += 1;
                i = at + 1;
                if t.is_empty() && i > u.len() {
                    break;
                }
            }
            Value::Int(n)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn each_line(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("eachLine", [f]) => {
            let mut last = Value::Null;
            for (i, l) in lines(s).into_iter().enumerate() {
                last = match crate::methods::arity(f) {
                    Some(2) => cx.call_value(f, vec![Value::from(l), Value::Int(i as i32)])?,
                    _ => cx.call_value(f, vec![Value::from(l)])?,
                };
            }
            last
        }
        _ => return Ok(None),
    }))
}

pub(super) fn to_list(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toList" | "toSet", []) => {
            let items = char_strings(s)?;
            if name == "toSet" {
                crate::methods::list::make_set(items)
            } else {
                Value::list(items)
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn each(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let recv = || this.clone();
    let bad = || bad_args(this, name, args);
    Ok(Some(match (name, args) {
        (
            "each" | "collect" | "eachWithIndex" | "findAll" | "any" | "every" | "collectEntries" | "inject"
            | "groupBy" | "countBy" | "sum" | "join" | "max" | "min" | "sort" | "unique" | "first" | "last"
            | "withIndex" | "findIndexOf",
            _,
        ) => {
            let chars = Value::list(char_strings(s)?);
            let Value::List(l) = &chars else { unreachable!() };
            let r = crate::methods::list::call(cx, &chars, l, name, args)?;
            match (name, r) {
                ("each" | "eachWithIndex", Some(_)) => Some(recv()),
                ("findAll", Some(Value::List(l))) => {
                    Some(Value::from(lock(&l.items).iter().map(|c| c.to_string()).collect::<String>()))
                }
                (_, r) => r,
            }
            .ok_or_else(bad)?
        }
        _ => return Ok(None),
    }))
}

/// Groovy's `String.md5()` and `sha256()`: lowercase hex.
pub(super) fn md5(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("md5" | "sha256", []) => Value::from(crate::classes::digest_hex(name, s.as_bytes())),
        _ => return Ok(None),
    }))
}

pub(super) fn encode_base64(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("encodeBase64", []) => Value::from(number::base64_encode(s.as_bytes(), false)),
        _ => return Ok(None),
    }))
}

pub(super) fn decode_base64(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("decodeBase64", []) => Value::Bytes(Arc::new(number::base64_decode(s)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn decode_hex_method(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("decodeHex", []) => Value::Bytes(Arc::new(decode_hex(s)?)),
        _ => return Ok(None),
    }))
}

pub(super) fn normalize(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("normalize", []) => Value::from(s.replace("\r\n", "\n").replace('\r', "\n")),
        _ => return Ok(None),
    }))
}

pub(super) fn denormalize(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("denormalize", []) => Value::from(s.replace("\r\n", "\n").replace('\n', "\r\n")),
        _ => return Ok(None),
    }))
}

pub(super) fn as_boolean(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("asBoolean", []) => Value::Bool(!s.is_empty()),
        _ => return Ok(None),
    }))
}

pub(super) fn next(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("next", []) => Value::from(next_string(s, 1)),
        _ => return Ok(None),
    }))
}

pub(super) fn previous(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("previous", []) => Value::from(next_string(s, -1)),
        _ => return Ok(None),
    }))
}

pub(super) fn formatted(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let recv = || this.clone();
    Ok(Some(match (name, args) {
        ("formatted", _) => {
            let mut a = vec![recv()];
            a.extend(args.iter().cloned());
            crate::classes::call_static(cx, "java.lang.String", "format", a)?
        }
        _ => return Ok(None),
    }))
}

/// `~/re/`: a `Pattern` when the library has one; else the text, which every method
/// taking a regex here reads as one.
pub(super) fn bitwise_negate(cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    let recv = || this.clone();
    Ok(Some(match (name, args) {
        ("bitwiseNegate", []) => {
            java_regex(s)?;
            match crate::classes::call_static(cx, "java.util.regex.Pattern", "compile", vec![recv()]) {
                Ok(p) => p,
                Err(_) => recv(),
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn execute(_cx: &mut Ctx<'_>, _this: &Value, name: &str, args: &[Value]) -> Found {
    match (name, args) {
        ("execute", _) => Err(Thrown::security("process execution is not allowed")),
        _ => Ok(None),
    }
}

pub(super) fn to_u_r_l(_cx: &mut Ctx<'_>, _this: &Value, name: &str, args: &[Value]) -> Found {
    match (name, args) {
        ("toURL" | "toURI", []) => Err(Thrown::security("network access is not allowed")),
        _ => Ok(None),
    }
}

pub(super) fn is_case(_cx: &mut Ctx<'_>, this: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Str(s) = this else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isCase", [x]) => Value::Bool(!x.is_null() && x.to_string() == **s),
        _ => return Ok(None),
    }))
}
