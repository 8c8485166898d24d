//! commons-lang's `StringUtils` (lang3's and lang's), one row per static, and
//! `RandomStringUtils`.

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

/// A `StringUtils` row: its code sees the arguments through [`Texts`] (commons-lang takes a
/// null string where Java would throw), and a call with another count of arguments is "no
/// such method", as for an overload Java does not have.
macro_rules! su {
    ($name:literal, $min:literal, $max:expr, |$t:ident| $body:expr) => {
        st($name, $min, $max, |_cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>| {
            if !takes(args.len(), $min, $max) {
                return Err(no_method(class, method));
            }
            let $t = Texts { args: &args, method };
            Ok($body)
        })
    };
}

/// Whether a static of `min..=max` arguments takes `n`.
const fn takes(n: usize, min: u8, max: u8) -> bool {
    n >= min as usize && (max == VAR || n <= max as usize)
}

/// The arguments of a `StringUtils` call, as commons-lang reads them.
struct Texts<'a> {
    args: &'a [Value],
    method: &'a str,
}

impl Texts<'_> {
    /// Argument `i` as text, `None` when null.
    fn opt(&self, i: usize) -> Option<String> {
        match arg(self.args, i) {
            Value::Null => None,
            v => Some(v.to_string()),
        }
    }
    /// The first argument (the string the method works on).
    fn s(&self) -> Option<String> {
        self.opt(0)
    }
    /// The first argument, null as empty.
    fn text(&self) -> String {
        self.s().unwrap_or_default()
    }
    fn blank(&self) -> bool {
        self.s().as_deref().is_none_or(|t| t.trim().is_empty())
    }
    /// The first argument changed by `f`, null staying null.
    fn map(&self, f: impl FnOnce(String) -> String) -> Value {
        self.s().map(|t| Value::str(f(t))).unwrap_or(Value::Null)
    }
    /// A comparison of the first two arguments, two nulls being equal.
    fn pair(&self, f: impl FnOnce(&str, &str) -> bool) -> Value {
        Value::Bool(match (self.s(), self.opt(1)) {
            (Some(x), Some(y)) => f(&x, &y),
            (None, None) => true,
            _ => false,
        })
    }
}

pub(super) const STRING_UTILS: &[Static] = &[
    su!("isEmpty", 1, 1, |t| Value::Bool(t.text().is_empty())),
    su!("isBlank", 1, 1, |t| Value::Bool(t.blank())),
    su!("isNotEmpty", 1, 1, |t| Value::Bool(!t.text().is_empty())),
    su!("isNotBlank", 1, 1, |t| Value::Bool(!t.blank())),
    su!("isAnyEmpty", 0, VAR, |t| Value::Bool(t.args.iter().any(|a| a.is_null() || a.to_string().is_empty()))),
    su!("isAnyBlank", 0, VAR, |t| Value::Bool(t.args.iter().any(|a| a.is_null() || a.to_string().trim().is_empty()))),
    su!("substringBetween", 2, 3, |t| {
        let open = t.opt(1).unwrap_or_default();
        let close = if t.args.len() == 3 { t.opt(2).unwrap_or_default() } else { open.clone() };
        let found = t.s().and_then(|s| {
            let start = s.find(&open)? + open.len();
            let end = s[start..].find(&close)? + start;
            Some(s[start..end].to_string())
        });
        found.map(Value::from).unwrap_or(Value::Null)
    }),
    su!("substringAfter", 2, 2, |t| substring(&t)),
    su!("substringBefore", 2, 2, |t| substring(&t)),
    su!("substringAfterLast", 2, 2, |t| substring(&t)),
    su!("substringBeforeLast", 2, 2, |t| substring(&t)),
    su!("leftPad", 2, 3, |t| pad(&t)?),
    su!("rightPad", 2, 3, |t| pad(&t)?),
    su!("join", 0, VAR, |t| {
        let (items, sep) = match t.args {
            [v, sep] if items_of(v).is_some() => (items_of(v).unwrap_or_default(), sep.to_string()),
            [v] => (items_of(v).unwrap_or_default(), String::new()),
            _ => (t.args.to_vec(), String::new()),
        };
        let sep = if sep == "null" { String::new() } else { sep };
        Value::str(crate::methods::join_texts(&items, &sep, "")?)
    }),
    su!("capitalize", 1, 1, |t| t.map(|s| {
        let mut c = s.chars();
        match c.next() {
            Some(f) => f.to_uppercase().chain(c).collect(),
            None => s.clone(),
        }
    })),
    su!("uncapitalize", 1, 1, |t| t.map(|s| {
        let mut c = s.chars();
        match c.next() {
            Some(f) => f.to_lowercase().chain(c).collect(),
            None => s.clone(),
        }
    })),
    su!("defaultString", 1, 2, |t| match t.args.len() {
        1 => Value::str(t.text()),
        _ => t.s().map(Value::from).unwrap_or_else(|| t.args[1].clone()),
    }),
    su!("defaultIfEmpty", 2, 2, |t| if t.text().is_empty() { t.args[1].clone() } else { Value::str(t.text()) }),
    su!("defaultIfBlank", 2, 2, |t| if t.blank() { t.args[1].clone() } else { Value::str(t.text()) }),
    su!("repeat", 2, 2, |t| match t.s() {
        Some(s) => {
            let n = int_arg(t.args, 1).unwrap_or(0).max(0) as u64;
            crate::methods::checked_size((s.len() as u64).saturating_mul(n))?;
            Value::str(s.repeat(n as usize))
        }
        None => Value::Null,
    }),
    su!("reverse", 1, 1, |t| t.map(|s| s.chars().rev().collect())),
    su!("strip", 1, 1, |t| t.map(|s| s.trim().to_string())),
    su!("trim", 1, 1, |t| t.map(|s| s.trim_matches(|c: char| c <= ' ').to_string())),
    su!("trimToEmpty", 1, 1, |t| Value::str(t.text().trim())),
    su!("trimToNull", 1, 1, |t| {
        let text = t.text();
        if text.trim().is_empty() {
            Value::Null
        } else {
            Value::str(text.trim())
        }
    }),
    su!("contains", 2, 2, |t| Value::Bool(t.s().is_some() && t.opt(1).is_some_and(|n| t.text().contains(n.as_str())))),
    su!("containsIgnoreCase", 2, 2, |t| Value::Bool(
        t.s().is_some() && t.opt(1).is_some_and(|n| t.text().to_lowercase().contains(&n.to_lowercase()))
    )),
    su!("countMatches", 2, 2, |t| {
        let n = t.opt(1).unwrap_or_default();
        Value::Int(if n.is_empty() { 0 } else { t.text().matches(n.as_str()).count() as i32 })
    }),
    su!("equals", 2, 2, |t| Value::Bool(t.s() == t.opt(1))),
    su!("equalsIgnoreCase", 2, 2, |t| t.pair(|x, y| x.to_lowercase() == y.to_lowercase())),
    su!("upperCase", 1, 1, |t| t.map(|s| s.to_uppercase())),
    su!("lowerCase", 1, 1, |t| t.map(|s| s.to_lowercase())),
    su!("replace", 3, 3, |t| t.map(|s| match (t.opt(1), t.opt(2)) {
        (Some(f), Some(r)) if !f.is_empty() => s.replace(&f, &r),
        _ => s,
    })),
    su!("remove", 2, 2, |t| t.map(|s| match t.opt(1) {
        Some(f) if !f.is_empty() => s.replace(&f, ""),
        _ => s,
    })),
    su!("split", 1, 2, |t| match t.s() {
        Some(s) => {
            let seps: Vec<char> = t.opt(1).map(|x| x.chars().collect()).unwrap_or_default();
            let parts: Vec<Value> = s
                .split(|c: char| if seps.is_empty() { c.is_whitespace() } else { seps.contains(&c) })
                .filter(|p| !p.is_empty())
                .map(Value::from)
                .collect();
            Value::array(parts)
        }
        None => Value::Null,
    }),
    su!("isNumeric", 1, 1, |t| {
        let text = t.text();
        Value::Bool(!text.is_empty() && text.chars().all(|c| c.is_numeric()))
    }),
    su!("isAlpha", 1, 1, |t| {
        let text = t.text();
        Value::Bool(!text.is_empty() && text.chars().all(char::is_alphabetic))
    }),
    su!("isAlphanumeric", 1, 1, |t| {
        let text = t.text();
        Value::Bool(!text.is_empty() && text.chars().all(char::is_alphanumeric))
    }),
    su!("startsWith", 2, 2, |t| t.pair(|x, y| x.starts_with(y))),
    su!("endsWith", 2, 2, |t| t.pair(|x, y| x.ends_with(y))),
    su!("left", 2, 2, |t| t.map(|s| s.chars().take(int_arg(t.args, 1).unwrap_or(0).max(0) as usize).collect())),
    su!("right", 2, 2, |t| t.map(|s| {
        let n = int_arg(t.args, 1).unwrap_or(0).max(0) as usize;
        let len = s.chars().count();
        s.chars().skip(len.saturating_sub(n)).collect()
    })),
    su!("chop", 1, 1, |t| t.map(|mut s| {
        if s.ends_with("\r\n") {
            s.truncate(s.len() - 2);
        } else {
            s.pop();
        }
        s
    })),
    su!("deleteWhitespace", 1, 1, |t| t.map(|s| s.chars().filter(|c| !c.is_whitespace()).collect())),
];

pub(super) const STRING_UTILS_FIELDS: &[Field] = &[fd("EMPTY", |_, _, _| Ok(Value::str("")))];

/// `substringAfter`, `substringBefore` and their `...Last` forms.
fn substring(t: &Texts<'_>) -> Value {
    let Some(s) = t.s() else { return Value::Null };
    let last = t.method.ends_with("Last");
    let found = match t.opt(1) {
        None => None,
        Some(sep) if last => s.rfind(sep.as_str()).map(|i| (i, sep.len())),
        Some(sep) => s.find(sep.as_str()).map(|i| (i, sep.len())),
    };
    Value::str(match (t.method.starts_with("substringAfter"), found) {
        (true, Some((i, n))) => s[i + n..].to_string(),
        (true, None) => String::new(),
        (false, Some((i, _))) => s[..i].to_string(),
        (false, None) => s,
    })
}

/// `leftPad` and `rightPad`: to `size` characters with a char, a string, or spaces.
fn pad(t: &Texts<'_>) -> Result<Value, Thrown> {
    let Some(s) = t.s() else { return Ok(Value::Null) };
    let size = crate::methods::checked_size(int_arg(t.args, 1)?.max(0) as u64)?;
    let pad: Vec<char> = match t.args.get(2) {
        Some(Value::Char(c)) => vec![*c],
        Some(p) if !p.is_null() && !p.to_string().is_empty() => p.to_string().chars().collect(),
        _ => vec![' '],
    };
    let n = size.saturating_sub(s.chars().count());
    let fill: String = pad.iter().cycle().take(n).collect();
    Ok(Value::str(if t.method == "leftPad" { fill + &s } else { s + &fill }))
}
