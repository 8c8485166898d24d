//! commons-lang's `StringUtils` and `RandomStringUtils`.

use super::*;

// ---- commons-lang ----

pub(super) fn random_string(class: &str, method: &str, args: &[Value]) -> Result<Value, Thrown> {
    use rand::Rng;
    let (lo, hi) = match args.len() {
        2 if args[1].is_number() => (int_arg(args, 0)?, int_arg(args, 1)?),
        _ => (int_arg(args, 0)?, int_arg(args, 0)?.saturating_add(1)),
    };
    if lo < 0 || hi <= lo {
        return Err(illegal_arg(format!("Requested random string length {lo} is less than 0.")));
    }
    let count = crate::methods::checked_size(rand::rng().random_range(lo..hi) as u64)?;
    const ALPHA: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const DIGITS: &str = "0123456789";
    let pool: Vec<char> = match method {
        "randomAlphanumeric" => ALPHA.chars().chain(DIGITS.chars()).collect(),
        "randomNumeric" => DIGITS.chars().collect(),
        "randomAlphabetic" => ALPHA.chars().collect(),
        "randomAscii" | "randomPrint" => (32u8..127).map(char::from).collect(),
        "randomGraph" => (33u8..127).map(char::from).collect(),
        "random" => match (args.get(1), args.get(2)) {
            (Some(Value::Str(chars)), None) => chars.chars().collect(),
            (Some(Value::Bool(letters)), Some(Value::Bool(numbers))) => {
                let mut p: Vec<char> = Vec::new();
                if *letters {
                    p.extend(ALPHA.chars());
                }
                if *numbers {
                    p.extend(DIGITS.chars());
                }
                if p.is_empty() {
                    p.extend((32u8..127).map(char::from));
                }
                p
            }
            (None, None) => (32u8..127).map(char::from).collect(),
            _ => return Err(no_method(class, method)),
        },
        _ => return Err(no_method(class, method)),
    };
    if pool.is_empty() {
        return Err(illegal_arg("The chars array must not be empty"));
    }
    let mut rng = rand::rng();
    Ok(Value::str((0..count).map(|_| pool[rng.random_range(0..pool.len())]).collect::<String>()))
}

pub(super) fn string_utils(class: &str, method: &str, args: &[Value]) -> Result<Value, Thrown> {
    let opt = |i: usize| match arg(args, i) {
        Value::Null => None,
        v => Some(v.to_string()),
    };
    let s = opt(0);
    let text = s.clone().unwrap_or_default();
    let blank = |t: &Option<String>| t.as_deref().is_none_or(|t| t.trim().is_empty());
    let str_or_null = |o: Option<String>| o.map(Value::from).unwrap_or(Value::Null);
    let b = Value::Bool;
    Ok(match (method, args.len()) {
        ("isEmpty", 1) => b(text.is_empty()),
        ("isNotEmpty", 1) => b(!text.is_empty()),
        ("isBlank", 1) => b(blank(&s)),
        ("isNotBlank", 1) => b(!blank(&s)),
        ("isAnyEmpty", _) => b(args.iter().any(|a| a.is_null() || a.to_string().is_empty())),
        ("isAnyBlank", _) => b(args.iter().any(|a| a.is_null() || a.to_string().trim().is_empty())),
        ("substringBetween", 2 | 3) => {
            let open = opt(1).unwrap_or_default();
            let close = if args.len() == 3 { opt(2).unwrap_or_default() } else { open.clone() };
            str_or_null(s.and_then(|t| {
                let start = t.find(&open)? + open.len();
                let end = t[start..].find(&close)? + start;
                Some(t[start..end].to_string())
            }))
        }
        ("substringAfter" | "substringBefore" | "substringAfterLast" | "substringBeforeLast", 2) => {
            let Some(t) = s else { return Ok(Value::Null) };
            let sep = opt(1);
            let found = match &sep {
                None => None,
                Some(sep) if method.ends_with("Last") => t.rfind(sep.as_str()).map(|i| (i, sep.len())),
                Some(sep) => t.find(sep.as_str()).map(|i| (i, sep.len())),
            };
            Value::str(match (method, found) {
                ("substringAfter" | "substringAfterLast", Some((i, n))) => t[i + n..].to_string(),
                ("substringAfter" | "substringAfterLast", None) => String::new(),
                (_, Some((i, _))) => t[..i].to_string(),
                (_, None) => t,
            })
        }
        ("leftPad" | "rightPad", 2 | 3) => {
            let Some(t) = s else { return Ok(Value::Null) };
            let size = crate::methods::checked_size(int_arg(args, 1)?.max(0) as u64)?;
            let pad: Vec<char> = match args.get(2) {
                Some(Value::Char(c)) => vec![*c],
                Some(p) if !p.is_null() && !p.to_string().is_empty() => p.to_string().chars().collect(),
                _ => vec![' '],
            };
            let n = size.saturating_sub(t.chars().count());
            let fill: String = pad.iter().cycle().take(n).collect();
            Value::str(if method == "leftPad" { fill + &t } else { t + &fill })
        }
        ("join", _) => {
            let (items, sep) = match args {
                [v, sep] if items_of(v).is_some() => (items_of(v).unwrap_or_default(), sep.to_string()),
                [v] => (items_of(v).unwrap_or_default(), String::new()),
                _ => (args.to_vec(), String::new()),
            };
            let sep = if sep == "null" { String::new() } else { sep };
            Value::str(crate::methods::join_texts(&items, &sep, "")?)
        }
        ("capitalize" | "uncapitalize", 1) => str_or_null(s.map(|t| {
            let mut c = t.chars();
            match c.next() {
                Some(f) if method == "capitalize" => f.to_uppercase().chain(c).collect(),
                Some(f) => f.to_lowercase().chain(c).collect(),
                None => t.clone(),
            }
        })),
        ("defaultString", 1) => Value::str(text),
        ("defaultString", 2) => s.map(Value::from).unwrap_or_else(|| args[1].clone()),
        ("defaultIfEmpty", 2) => {
            if text.is_empty() {
                args[1].clone()
            } else {
                Value::str(text)
            }
        }
        ("defaultIfBlank", 2) => {
            if blank(&s) {
                args[1].clone()
            } else {
                Value::str(text)
            }
        }
        ("repeat", 2) => match s {
            Some(t) => {
                let n = int_arg(args, 1).unwrap_or(0).max(0) as u64;
                crate::methods::checked_size((t.len() as u64).saturating_mul(n))?;
                Value::str(t.repeat(n as usize))
            }
            None => Value::Null,
        },
        ("reverse", 1) => str_or_null(s.map(|t| t.chars().rev().collect())),
        ("strip" | "trim", 1) => str_or_null(s.map(|t| {
            if method == "strip" {
                t.trim().to_string()
            } else {
                t.trim_matches(|c: char| c <= ' ').to_string()
            }
        })),
        ("trimToEmpty", 1) => Value::str(text.trim()),
        ("trimToNull", 1) => {
            if text.trim().is_empty() {
                Value::Null
            } else {
                Value::str(text.trim())
            }
        }
        ("contains", 2) => b(s.is_some() && opt(1).is_some_and(|n| text.contains(n.as_str()))),
        ("containsIgnoreCase", 2) => {
            b(s.is_some() && opt(1).is_some_and(|n| text.to_lowercase().contains(&n.to_lowercase())))
        }
        ("countMatches", 2) => {
            let n = opt(1).unwrap_or_default();
            Value::Int(if n.is_empty() { 0 } else { text.matches(n.as_str()).count() as i32 })
        }
        ("equals", 2) => b(s == opt(1)),
        ("equalsIgnoreCase", 2) => b(match (&s, opt(1)) {
            (Some(x), Some(y)) => x.to_lowercase() == y.to_lowercase(),
            (None, None) => true,
            _ => false,
        }),
        ("startsWith", 2) => b(match (&s, opt(1)) {
            (Some(x), Some(y)) => x.starts_with(&y),
            (None, None) => true,
            _ => false,
        }),
        ("endsWith", 2) => b(match (&s, opt(1)) {
            (Some(x), Some(y)) => x.ends_with(&y),
            (None, None) => true,
            _ => false,
        }),
        ("upperCase", 1) => str_or_null(s.map(|t| t.to_uppercase())),
        ("lowerCase", 1) => str_or_null(s.map(|t| t.to_lowercase())),
        ("replace", 3) => str_or_null(s.map(|t| match (opt(1), opt(2)) {
            (Some(f), Some(r)) if !f.is_empty() => t.replace(&f, &r),
            _ => t,
        })),
        ("remove", 2) => str_or_null(s.map(|t| match opt(1) {
            Some(f) if !f.is_empty() => t.replace(&f, ""),
            _ => t,
        })),
        ("deleteWhitespace", 1) => str_or_null(s.map(|t| t.chars().filter(|c| !c.is_whitespace()).collect())),
        ("split", 1 | 2) => {
            let Some(t) = s else { return Ok(Value::Null) };
            let seps: Vec<char> = opt(1).map(|x| x.chars().collect()).unwrap_or_default();
            let parts: Vec<Value> = t
                .split(|c: char| if seps.is_empty() { c.is_whitespace() } else { seps.contains(&c) })
                .filter(|p| !p.is_empty())
                .map(Value::from)
                .collect();
            Value::array(parts)
        }
        ("isNumeric", 1) => b(!text.is_empty() && text.chars().all(|c| c.is_numeric())),
        ("isAlpha", 1) => b(!text.is_empty() && text.chars().all(char::is_alphabetic)),
        ("isAlphanumeric", 1) => b(!text.is_empty() && text.chars().all(char::is_alphanumeric)),
        ("left" | "right", 2) => str_or_null(s.map(|t| {
            let n = int_arg(args, 1).unwrap_or(0).max(0) as usize;
            let len = t.chars().count();
            if method == "left" {
                t.chars().take(n).collect()
            } else {
                t.chars().skip(len.saturating_sub(n)).collect()
            }
        })),
        ("chop", 1) => str_or_null(s.map(|mut t| {
            if t.ends_with("\r\n") {
                t.truncate(t.len() - 2);
            } else {
                t.pop();
            }
            t
        })),
        _ => return Err(no_method(class, method)),
    })
}
