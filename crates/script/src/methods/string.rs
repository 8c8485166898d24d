//! `String` (Java's methods, by UTF-16 index as Java counts, and Groovy's additions) and
//! `Character`.

use super::jregex::{compile, expand, java_regex, match_error, Anchor};
use super::number;
use super::{bad_args, int_arg, Found};
use crate::value::{self, lock, Value};
use crate::{Ctx, Lang, Thrown};
use std::borrow::Cow;
use std::sync::Arc;

/// A string's UTF-16 code units (Java's indices), without copying an ASCII string.
pub(crate) enum Units<'a> {
    Ascii(&'a str),
    Wide(Vec<u16>),
}

impl<'a> Units<'a> {
    pub(crate) fn new(s: &'a str) -> Units<'a> {
        if s.is_ascii() {
            Units::Ascii(s)
        } else {
            Units::Wide(s.encode_utf16().collect())
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Units::Ascii(s) => s.len(),
            Units::Wide(w) => w.len(),
        }
    }

    fn at(&self, i: usize) -> u16 {
        match self {
            Units::Ascii(s) => s.as_bytes()[i] as u16,
            Units::Wide(w) => w[i],
        }
    }

    pub(crate) fn slice(&self, a: usize, b: usize) -> String {
        match self {
            Units::Ascii(s) => s[a..b].to_string(),
            Units::Wide(w) => String::from_utf16_lossy(&w[a..b]),
        }
    }

    fn index_of(&self, needle: &str, from: usize) -> Option<usize> {
        let from = from.min(self.len());
        match self {
            Units::Ascii(s) => s[from..].find(needle).map(|i| i + from),
            Units::Wide(w) => {
                let n: Vec<u16> = needle.encode_utf16().collect();
                if n.is_empty() {
                    return Some(from);
                }
                (from..w.len().saturating_sub(n.len() - 1)).find(|&i| w[i..].starts_with(&n))
            }
        }
    }

    fn last_index_of(&self, needle: &str, from: usize) -> Option<usize> {
        let n: Vec<u16> = needle.encode_utf16().collect();
        if n.len() > self.len() {
            return None;
        }
        let start = from.min(self.len() - n.len());
        (0..=start).rev().find(|&i| (0..n.len()).all(|j| self.at(i + j) == n[j]))
    }
}

/// Java's `String.hashCode()`.
pub(crate) fn java_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
}

fn unit_char(u: u16) -> Value {
    Value::Char(char::from_u32(u as u32).unwrap_or('\u{FFFD}'))
}

/// A `CharSequence` argument (a string, a char where Java converts, a `StringBuilder`).
pub(crate) fn char_seq(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::Str(s) => Some(Cow::Borrowed(s)),
        Value::Char(c) => Some(Cow::Owned(c.to_string())),
        Value::Object(o) => Some(Cow::Owned(o.to_string())),
        _ => None,
    }
}

/// The text to search for in `indexOf`/`contains`: a string, or a char given as a `char` or
/// its code.
fn needle(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::Int(c) => char::from_u32(*c as u32).map(|c| Cow::Owned(c.to_string())),
        _ => char_seq(v),
    }
}

fn str_array(items: Vec<String>) -> Value {
    Value::array(items.into_iter().map(Value::from).collect())
}

fn string_list(items: Vec<String>) -> Value {
    Value::list(items.into_iter().map(Value::from).collect())
}

/// `substring`'s bounds check, with Java's message.
fn check_range(begin: i64, end: i64, len: usize) -> Result<(usize, usize), Thrown> {
    if begin < 0 || end > len as i64 || begin > end {
        return Err(Thrown::new(
            "java.lang.StringIndexOutOfBoundsException",
            format!("begin {begin}, end {end}, length {len}"),
        ));
    }
    Ok((begin as usize, end as usize))
}

/// A negative Groovy index counts from the end.
pub(crate) fn groovy_index(i: i64, len: usize) -> i64 {
    if i < 0 {
        i + len as i64
    } else {
        i
    }
}

/// The `[from, to]` (inclusive) of a range index over `len` elements, and whether reversed.
pub(crate) fn range_bounds(a: i64, b: i64, len: usize, reversed: bool) -> Result<(usize, usize, bool), Thrown> {
    let (x, y) = (groovy_index(a, len), groovy_index(b, len));
    let rev = reversed || x > y;
    let (lo, hi) = (x.min(y), x.max(y));
    if lo < 0 || hi >= len as i64 {
        if len == 0 && lo == 0 {
            return Ok((0, 0, rev));
        }
        return Err(super::index_error("java.lang.IndexOutOfBoundsException", if lo < 0 { lo } else { hi }, len));
    }
    Ok((lo as usize, hi as usize + 1, rev))
}

/// Java's `String.split(regex, limit)`: a zero-width match at the start makes no leading
/// empty string; with `limit == 0` trailing empty strings go.
pub(crate) fn java_split(s: &str, regex: &str, limit: i64) -> Result<Vec<String>, Thrown> {
    let re = java_regex(regex)?;
    let mut out: Vec<String> = Vec::new();
    let mut index = 0usize;
    let limited = limit > 0;
    for m in re.find_iter(s) {
        let m = m.map_err(match_error)?;
        if !limited || (out.len() as i64) < limit - 1 {
            if index == 0 && m.start() == 0 && m.end() == 0 {
                continue;
            }
            if out.len() % 1024 == 0 {
                // Each part is a string and an element: a split into characters of a long
                // text is many times its size.
                crate::budget::check(out.len() as u64 * 2 * crate::budget::VALUE_BYTES)?;
            }
            out.push(s[index..m.start()].to_string());
            index = m.end();
        } else {
            break;
        }
    }
    if index == 0 && out.is_empty() {
        return Ok(vec![s.to_string()]);
    }
    out.push(s[index..].to_string());
    if limit == 0 {
        while out.last().is_some_and(String::is_empty) {
            out.pop();
        }
    }
    Ok(out)
}

/// The names of a regex's groups, by index (for `${name}` in replacements).
fn group_names(re: &fancy_regex::Regex) -> Vec<Option<&str>> {
    re.capture_names().collect()
}

/// `replaceAll`/`replaceFirst` with a Java replacement string or a Groovy closure (given the
/// match, or the list of the match and its groups).
fn replace_regex(cx: &mut Ctx<'_>, s: &str, regex: &str, repl: &Value, all: bool) -> Result<String, Thrown> {
    let re = java_regex(regex)?;
    let names = group_names(&re);
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for caps in re.captures_iter(s) {
        let caps = caps.map_err(match_error)?;
        let m = caps.get(0).expect("group 0 always matches");
        out.push_str(&s[last..m.start()]);
        match repl {
            Value::Closure(_) => {
                let arg = match_value(&caps);
                out.push_str(&cx.call_value(repl, vec![arg])?.to_string());
            }
            other => {
                let r = char_seq(other)
                    .ok_or_else(|| bad_args(&Value::str(s), "replaceAll", std::slice::from_ref(other)))?;
                out.push_str(&expand(&caps, &r, &names)?);
            }
        }
        last = m.end();
        crate::budget::check(out.len() as u64)?;
        if !all {
            break;
        }
    }
    out.push_str(&s[last..]);
    Ok(out)
}

/// What Groovy gives for a match: the text, or a list of the text and its groups.
fn match_value(caps: &fancy_regex::Captures<'_, str>) -> Value {
    if caps.len() == 1 {
        return Value::str(caps.get(0).map(|m| m.as_str()).unwrap_or(""));
    }
    Value::list((0..caps.len()).map(|i| caps.get(i).map(|m| Value::str(m.as_str())).unwrap_or(Value::Null)).collect())
}

/// Java's `String.trim()`: code points up to space.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Groovy's padding: the pad string repeated and cut to `n` characters.
fn padding(pad: &str, n: usize) -> String {
    pad.chars().cycle().take(if pad.is_empty() { 0 } else { n }).collect()
}

/// Java's `compareTo`: the difference of the first differing UTF-16 units, or of the lengths.
fn java_compare(a: &str, b: &str, fold: bool) -> i32 {
    let f = |c: u16| -> u16 {
        if !fold {
            return c;
        }
        let ch = char::from_u32(c as u32).unwrap_or('\0');
        let up = ch.to_uppercase().next().unwrap_or(ch);
        let low = up.to_lowercase().next().unwrap_or(up);
        if (low as u32) < 0x10000 {
            low as u16
        } else {
            c
        }
    };
    let (mut x, mut y) = (a.encode_utf16(), b.encode_utf16());
    loop {
        match (x.next(), y.next()) {
            (Some(p), Some(q)) if f(p) != f(q) => return f(p) as i32 - f(q) as i32,
            (Some(_), Some(_)) => {}
            (Some(_), None) => return 1 + x.count() as i32,
            (None, Some(_)) => return -1 - y.count() as i32,
            (None, None) => return 0,
        }
    }
}

/// `getBytes(charset)`.
pub(crate) fn encode(s: &str, charset: &str) -> Result<Vec<u8>, Thrown> {
    Ok(match charset.to_ascii_uppercase().replace('_', "-").as_str() {
        "UTF-8" | "UTF8" => s.as_bytes().to_vec(),
        "ISO-8859-1" | "ISO8859-1" | "LATIN1" => {
            s.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }).collect()
        }
        "US-ASCII" | "ASCII" => s.chars().map(|c| if c.is_ascii() { c as u8 } else { b'?' }).collect(),
        "UTF-16" => [0xFE, 0xFF].into_iter().chain(s.encode_utf16().flat_map(u16::to_be_bytes)).collect(),
        "UTF-16BE" => s.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        "UTF-16LE" => s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        _ => return Err(Thrown::new("java.io.UnsupportedEncodingException", charset.to_string())),
    })
}

/// Groovy's `stripIndent()`: the indentation all non-blank lines share, removed.
fn strip_indent(s: &str) -> String {
    let indent = s.lines().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let lines: Vec<&str> =
        s.split('\n').map(|l| if l.len() >= indent { &l[indent..] } else { l.trim_start() }).collect();
    lines.join("\n")
}

/// Java's `lines()` and Groovy's `readLines()`: split at `\n`, `\r\n` or `\r`, no trailing
/// empty line.
fn lines(s: &str) -> Vec<String> {
    let mut out: Vec<String> = s.replace("\r\n", "\n").replace('\r', "\n").split('\n').map(String::from).collect();
    if out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// The characters of a string as one-character strings (what Groovy iterates).
fn char_strings(s: &str) -> Result<Vec<Value>, Thrown> {
    super::checked_items(s.len() as u64)?;
    Ok(s.chars().map(|c| Value::str(c.to_string())).collect())
}

/// A string method.
pub(crate) fn call(cx: &mut Ctx<'_>, s: &Arc<str>, name: &str, args: &[Value]) -> Found {
    let recv = || Value::Str(s.clone());
    let bad = || bad_args(&Value::Str(s.clone()), name, args);
    let v = match (name, args) {
        ("length", []) | ("size", []) => Value::Int(Units::new(s).len() as i32),
        ("isEmpty", []) => Value::Bool(s.is_empty()),
        ("isBlank", []) => Value::Bool(s.chars().all(char::is_whitespace)),
        ("isAllWhitespace", []) => Value::Bool(s.chars().all(char::is_whitespace)),
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
        ("codePointAt", [i]) => {
            let u = Units::new(s);
            let i = int_arg(i).ok_or_else(bad)?;
            let c = s.encode_utf16().skip(i.max(0) as usize).take(2).collect::<Vec<_>>();
            if i < 0 || c.is_empty() {
                return Err(super::index_error("java.lang.StringIndexOutOfBoundsException", i, u.len()));
            }
            Value::Int(
                char::decode_utf16(c.clone()).next().and_then(Result::ok).map(|c| c as i32).unwrap_or(c[0] as i32),
            )
        }
        ("substring", [a]) => {
            let u = Units::new(s);
            let a = int_arg(a).ok_or_else(bad)?;
            let (a, b) = check_range(a, u.len() as i64, u.len())?;
            Value::from(u.slice(a, b))
        }
        ("substring" | "subSequence", [a, b]) => {
            let u = Units::new(s);
            let (a, b) = check_range(int_arg(a).ok_or_else(bad)?, int_arg(b).ok_or_else(bad)?, u.len())?;
            Value::from(u.slice(a, b))
        }
        // JavaScript's `substr(start[, length])` and `slice(start[, end])`.
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
        ("indexOf", [x]) | ("indexOf", [x, _]) => {
            let n = needle(x).ok_or_else(bad)?;
            let from = match args.get(1) {
                Some(f) => int_arg(f).ok_or_else(bad)?.max(0) as usize,
                None => 0,
            };
            Value::Int(Units::new(s).index_of(&n, from).map_or(-1, |i| i as i32))
        }
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
        ("contains", [x]) => Value::Bool(s.contains(&*char_seq(x).ok_or_else(bad)?)),
        ("startsWith", [x]) => Value::Bool(s.starts_with(&*char_seq(x).ok_or_else(bad)?)),
        ("startsWith", [x, off]) => {
            let u = Units::new(s);
            let off = int_arg(off).ok_or_else(bad)?;
            let p = char_seq(x).ok_or_else(bad)?;
            Value::Bool(off >= 0 && off as usize <= u.len() && u.slice(off as usize, u.len()).starts_with(&*p))
        }
        ("endsWith", [x]) => Value::Bool(s.ends_with(&*char_seq(x).ok_or_else(bad)?)),
        ("equals", [x]) => Value::Bool(matches!(x, Value::Str(t) if t == s)),
        ("equalsIgnoreCase", [x]) => Value::Bool(match x {
            Value::Str(t) => {
                t.len() == s.len() && java_compare(s, t, true) == 0 || t.to_lowercase() == s.to_lowercase()
            }
            _ => false,
        }),
        ("contentEquals", [x]) => Value::Bool(char_seq(x).is_some_and(|t| *t == **s)),
        ("compareTo", [x]) => Value::Int(java_compare(s, &char_seq(x).ok_or_else(bad)?, false)),
        ("compareToIgnoreCase", [x]) => Value::Int(java_compare(s, &char_seq(x).ok_or_else(bad)?, true)),
        ("toUpperCase", [] | [_]) => Value::from(s.to_uppercase()),
        ("toLowerCase", [] | [_]) => Value::from(s.to_lowercase()),
        ("trim", []) => Value::str(java_trim(s)),
        ("strip", []) => Value::str(s.trim()),
        ("stripLeading", []) => Value::str(s.trim_start()),
        ("stripTrailing", []) => Value::str(s.trim_end()),
        ("stripIndent", []) => Value::from(strip_indent(s)),
        ("intern" | "toString", []) => recv(),
        ("concat", [x]) => Value::from(format!("{s}{}", char_seq(x).ok_or_else(bad)?)),
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
            super::checked_size((s.len() as u64).saturating_mul(n as u64))?;
            Value::from(s.repeat(n as usize))
        }
        ("replace", [a, b]) => {
            let (a, b) = (needle_for_replace(a).ok_or_else(bad)?, needle_for_replace(b).ok_or_else(bad)?);
            if a.is_empty() {
                // Java: the replacement before every char and at the end.
                let size = (s.chars().count() as u64 + 1).saturating_mul(b.len() as u64).saturating_add(s.len() as u64);
                super::checked_size(size)?;
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
                    super::checked_size(
                        most.saturating_mul((b.len() - a.len()) as u64).saturating_add(s.len() as u64),
                    )?;
                }
                Value::from(s.replace(&*a, &b))
            }
        }
        ("replaceAll", [re, r]) => Value::from(replace_regex(cx, s, &char_seq(re).ok_or_else(bad)?, r, true)?),
        ("replaceFirst", [re, r]) => Value::from(replace_regex(cx, s, &char_seq(re).ok_or_else(bad)?, r, false)?),
        ("split", []) => str_array(s.split_whitespace().map(String::from).collect()),
        ("split", [re]) => str_array(java_split(s, &char_seq(re).ok_or_else(bad)?, 0)?),
        ("split", [re, limit]) => {
            str_array(java_split(s, &char_seq(re).ok_or_else(bad)?, int_arg(limit).ok_or_else(bad)?)?)
        }
        ("matches", [re]) => {
            let re = char_seq(re).ok_or_else(bad)?;
            Value::Bool(compile(&re, 0, Anchor::Whole)?.is_match(&**s).map_err(match_error)?)
        }
        ("getBytes", []) => Value::Bytes(Arc::new(s.as_bytes().to_vec())),
        ("getBytes", [cs]) => Value::Bytes(Arc::new(encode(s, &charset_name(cs).ok_or_else(bad)?)?)),
        ("toCharArray", []) => {
            super::checked_items(s.len() as u64)?;
            Value::array(s.chars().map(Value::Char).collect())
        }
        ("chars", []) => {
            super::checked_items(s.len() as u64)?;
            Value::list(s.encode_utf16().map(|c| Value::Int(c as i32)).collect())
        }
        ("codePoints", []) => {
            super::checked_items(s.len() as u64)?;
            Value::list(s.chars().map(|c| Value::Int(c as i32)).collect())
        }
        ("hashCode", []) => Value::Int(java_hash(s)),
        ("lines" | "readLines", []) => string_list(lines(s)),
        ("isNumber" | "isBigDecimal", []) => Value::Bool(number::parse_decimal(s.trim()).is_ok()),
        ("isInteger", []) => Value::Bool(number::parse_int(s.trim(), 10, i32::MIN as i64, i32::MAX as i64).is_ok()),
        ("isLong", []) => Value::Bool(number::parse_int(s.trim(), 10, i64::MIN, i64::MAX).is_ok()),
        ("isDouble" | "isFloat", []) => Value::Bool(number::parse_double(s).is_ok()),
        ("toInteger", []) => Value::Int(number::parse_int(s.trim(), 10, i32::MIN as i64, i32::MAX as i64)? as i32),
        ("toLong", []) => Value::Long(number::parse_int(s.trim(), 10, i64::MIN, i64::MAX)?),
        ("toShort", []) => Value::Int(number::parse_int(s.trim(), 10, i16::MIN as i64, i16::MAX as i64)? as i32),
        ("toDouble", []) => Value::Double(number::parse_double(s)?),
        ("toFloat", []) => Value::Double(number::to_float(number::parse_double(s)?)),
        ("toBigDecimal", []) => Value::Decimal(number::parse_decimal(s.trim())?),
        ("toBigInteger", []) => Value::Long(number::parse_int(s.trim(), 10, i64::MIN, i64::MAX)?),
        ("toBoolean", []) => Value::Bool(matches!(s.trim().to_lowercase().as_str(), "true" | "y" | "1")),
        ("toCharacter", []) => Value::Char(s.chars().next().ok_or_else(|| {
            Thrown::new("java.lang.StringIndexOutOfBoundsException", "Index 0 out of bounds for length 0")
        })?),
        ("reverse", []) => Value::from(s.chars().rev().collect::<String>()),
        ("capitalize", []) => Value::from(value::capitalize(s)),
        ("uncapitalize", []) => {
            let mut c = s.chars();
            Value::from(c.next().map(|f| f.to_lowercase().chain(c).collect::<String>()).unwrap_or_default())
        }
        ("tokenize", []) => string_list(s.split_whitespace().map(String::from).collect()),
        ("tokenize", [d]) => {
            let d: Vec<char> = char_seq(d).ok_or_else(bad)?.chars().collect();
            string_list(s.split(|c| d.contains(&c)).filter(|t| !t.is_empty()).map(String::from).collect())
        }
        ("padLeft" | "padRight" | "center", [n]) | ("padLeft" | "padRight" | "center", [n, _]) => {
            let n = super::checked_size(int_arg(n).ok_or_else(bad)?.max(0) as u64)?;
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
        ("plus", [x]) => Value::from(format!("{s}{x}")),
        ("minus", [x]) => {
            let t = x.to_string();
            Value::from(match s.find(&t) {
                Some(i) => format!("{}{}", &s[..i], &s[i + t.len()..]),
                None => s.to_string(),
            })
        }
        ("getAt", [Value::Range(a, b)]) => {
            let chars: Vec<char> = s.chars().collect();
            let (lo, hi, rev) = range_bounds(*a, *b, chars.len(), false)?;
            let mut out: String = chars[lo..hi].iter().collect();
            if rev {
                out = out.chars().rev().collect();
            }
            Value::from(out)
        }
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
        ("take", [n]) => Value::from(s.chars().take(int_arg(n).ok_or_else(bad)?.max(0) as usize).collect::<String>()),
        ("drop", [n]) => Value::from(s.chars().skip(int_arg(n).ok_or_else(bad)?.max(0) as usize).collect::<String>()),
        ("takeRight", [n]) => {
            let chars: Vec<char> = s.chars().collect();
            let n = (int_arg(n).ok_or_else(bad)?.max(0) as usize).min(chars.len());
            Value::from(chars[chars.len() - n..].iter().collect::<String>())
        }
        ("find", [re]) if !matches!(re, Value::Closure(_)) => {
            let re = java_regex(&char_seq(re).ok_or_else(bad)?)?;
            match re.captures(&**s).map_err(match_error)? {
                Some(c) => Value::str(c.get(0).map(|m| m.as_str()).unwrap_or("")),
                None => Value::Null,
            }
        }
        ("find", [re, f @ Value::Closure(_)]) => {
            let re = java_regex(&char_seq(re).ok_or_else(bad)?)?;
            match re.captures(&**s).map_err(match_error)? {
                Some(c) => cx.call_value(f, vec![match_value(&c)])?,
                None => Value::Null,
            }
        }
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
        ("eachLine", [f]) => {
            let mut last = Value::Null;
            for (i, l) in lines(s).into_iter().enumerate() {
                last = match super::arity(f) {
                    Some(2) => cx.call_value(f, vec![Value::from(l), Value::Int(i as i32)])?,
                    _ => cx.call_value(f, vec![Value::from(l)])?,
                };
            }
            last
        }
        ("toList" | "toSet", []) => {
            let items = char_strings(s)?;
            if name == "toSet" {
                super::list::make_set(items)
            } else {
                Value::list(items)
            }
        }
        (
            "each" | "collect" | "eachWithIndex" | "findAll" | "any" | "every" | "collectEntries" | "inject"
            | "groupBy" | "countBy" | "sum" | "join" | "max" | "min" | "sort" | "unique" | "first" | "last"
            | "withIndex" | "findIndexOf",
            _,
        ) => {
            let chars = Value::list(char_strings(s)?);
            let Value::List(l) = &chars else { unreachable!() };
            let r = super::list::call(cx, &chars, l, name, args)?;
            match (name, r) {
                ("each" | "eachWithIndex", Some(_)) => Some(recv()),
                ("findAll", Some(Value::List(l))) => {
                    Some(Value::from(lock(&l.items).iter().map(|c| c.to_string()).collect::<String>()))
                }
                (_, r) => r,
            }
            .ok_or_else(bad)?
        }
        // Groovy's `String.md5()` and `sha256()`: lowercase hex.
        ("md5" | "sha256", []) => Value::from(crate::classes::digest_hex(name, s.as_bytes())),
        ("encodeBase64", []) => Value::from(number::base64_encode(s.as_bytes(), false)),
        ("decodeBase64", []) => Value::Bytes(Arc::new(number::base64_decode(s)?)),
        ("decodeHex", []) => Value::Bytes(Arc::new(decode_hex(s)?)),
        ("normalize", []) => Value::from(s.replace("\r\n", "\n").replace('\r', "\n")),
        ("denormalize", []) => Value::from(s.replace("\r\n", "\n").replace('\n', "\r\n")),
        ("asBoolean", []) => Value::Bool(!s.is_empty()),
        ("next", []) => Value::from(next_string(s, 1)),
        ("previous", []) => Value::from(next_string(s, -1)),
        ("formatted", _) => {
            let mut a = vec![recv()];
            a.extend(args.iter().cloned());
            crate::classes::call_static(cx, "java.lang.String", "format", a)?
        }
        // `~/re/`: a `Pattern` when the library has one; else the text, which every method
        // taking a regex here reads as one.
        ("bitwiseNegate", []) => {
            java_regex(s)?;
            match crate::classes::call_static(cx, "java.util.regex.Pattern", "compile", vec![recv()]) {
                Ok(p) => p,
                Err(_) => recv(),
            }
        }
        ("execute", _) => return Err(Thrown::security("process execution is not allowed")),
        ("toURL" | "toURI", []) => return Err(Thrown::security("network access is not allowed")),
        ("isCase", [x]) => Value::Bool(!x.is_null() && x.to_string() == **s),
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// `replace`'s arguments: two chars or two strings (Java has both).
fn needle_for_replace(v: &Value) -> Option<Cow<'_, str>> {
    char_seq(v)
}

fn charset_name(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.to_string()),
        // `StandardCharsets.UTF_8` as the classes give it.
        Value::Object(o) => Some(o.to_string()),
        _ => None,
    }
}

/// Groovy's `next()`/`previous()` on a string: the last character plus or minus one.
fn next_string(s: &str, by: i32) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    match chars.pop() {
        Some(c) => {
            let n = char::from_u32((c as i32 + by).max(0) as u32).unwrap_or(c);
            chars.push(n);
            chars.into_iter().collect()
        }
        None => String::new(),
    }
}

fn decode_hex(s: &str) -> Result<Vec<u8>, Thrown> {
    let bad = || Thrown::new("java.lang.NumberFormatException", format!("For input string: \"{s}\""));
    if s.len() % 2 != 0 {
        return Err(bad());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect()
}

/// A `Character` method (`isDigit`, `toUpperCase`, ...).
pub(crate) fn call_char(_cx: &mut Ctx<'_>, c: char, name: &str, args: &[Value]) -> Found {
    let v = match (name, args) {
        ("isDigit", []) => Value::Bool(c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())),
        ("isLetter", []) => Value::Bool(c.is_alphabetic()),
        ("isLetterOrDigit", []) => Value::Bool(c.is_alphanumeric()),
        ("isWhitespace", []) => Value::Bool(c.is_whitespace()),
        ("isUpperCase", []) => Value::Bool(c.is_uppercase()),
        ("isLowerCase", []) => Value::Bool(c.is_lowercase()),
        ("toUpperCase", []) => Value::Char(c.to_uppercase().next().unwrap_or(c)),
        ("toLowerCase", []) => Value::Char(c.to_lowercase().next().unwrap_or(c)),
        ("charValue", []) => Value::Char(c),
        ("compareTo", [Value::Char(d)]) => Value::Int(c as i32 - *d as i32),
        ("equals", [x]) => Value::Bool(matches!(x, Value::Char(d) if *d == c)),
        ("hashCode", []) => Value::Int(c as i32),
        ("next", []) => Value::Char(char::from_u32(c as u32 + 1).unwrap_or(c)),
        ("previous", []) => Value::Char(char::from_u32((c as u32).saturating_sub(1)).unwrap_or(c)),
        ("asBoolean", []) => Value::Bool(c != '\0'),
        ("getNumericValue", []) => Value::Int(c.to_digit(36).map_or(-1, |d| d as i32)),
        _ => return Ok(None),
    };
    Ok(Some(v))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn st(x: &str) -> Value {
        Value::str(x)
    }

    fn split(s_: &str, re: &str, limit: Option<i32>) -> String {
        let mut args = vec![st(re)];
        args.extend(limit.map(Value::Int));
        let v = invoke(&st(s_), "split", args).unwrap();
        assert_eq!(v.type_name(), "Object[]");
        super::super::inspect(&v)
    }

    #[test]
    fn split_follows_javas_rules() {
        assert_eq!(split("a,b,,c,,", ",", None), "['a', 'b', '', 'c']");
        assert_eq!(split(",a,b", ",", None), "['', 'a', 'b']");
        assert_eq!(split("abc", "", None), "['a', 'b', 'c']");
        assert_eq!(split("", ",", None), "['']");
        assert_eq!(split(",,,", ",", None), "[]");
        assert_eq!(split("a,b,,", ",", Some(-1)), "['a', 'b', '', '']");
        assert_eq!(split("a,b,c,d", ",", Some(2)), "['a', 'b,c,d']");
        assert_eq!(split("a1b22c", "\\d+", None), "['a', 'b', 'c']");
        assert_eq!(split("a.b.c", ".", None), "[]");
        assert_eq!(split("a.b.c", "\\.", None), "['a', 'b', 'c']");
        assert_eq!(split("a|b", "\\|", None), "['a', 'b']");
        assert_eq!(split(" a  b ", " ", None), "['', 'a', '', 'b']");
        assert_eq!(
            s(&st(" a  b "), "split", vec![]),
            super::super::inspect(&Value::array(vec![st("a"), st("b")])).replace('\'', "")
        );
    }

    #[test]
    fn replace_all_uses_java_regex_and_replacement_syntax() {
        assert_eq!(s(&st("a1b22"), "replaceAll", vec![st("\\d"), st("#")]), "a#b##");
        assert_eq!(s(&st("john smith"), "replaceAll", vec![st("(\\w+) (\\w+)"), st("$2, $1")]), "smith, john");
        assert_eq!(s(&st("price 5"), "replaceAll", vec![st("\\d"), st("\\$")]), "price $");
        assert_eq!(s(&st("k=v"), "replaceAll", vec![st("(?<k>\\w)=(?<v>\\w)"), st("${v}=${k}")]), "v=k");
        assert_eq!(s(&st("abc"), "replaceAll", vec![st(""), st("-")]), "-a-b-c-");
        assert_eq!(s(&st("aaa"), "replaceFirst", vec![st("a"), st("b")]), "baa");
        assert_eq!(s(&st("a.b"), "replaceAll", vec![st("\\Q.\\E"), st("!")]), "a!b");
        let e = invoke(&st("a"), "replaceAll", vec![st("a"), st("$")]).unwrap_err();
        assert_eq!(e.class, "java.lang.IllegalArgumentException");
        let e = invoke(&st("a"), "replaceAll", vec![st("a"), st("$2")]).unwrap_err();
        assert_eq!(e.class, "java.lang.IndexOutOfBoundsException");
        // `$1` then a literal digit when group 12 does not exist.
        assert_eq!(s(&st("ab"), "replaceAll", vec![st("(a)"), st("$12")]), "a2b");
    }

    #[test]
    fn literal_replace_and_matches() {
        assert_eq!(s(&st("a.b.c"), "replace", vec![st("."), st("-")]), "a-b-c");
        assert_eq!(s(&st("abc"), "replace", vec![Value::Char('b'), Value::Char('x')]), "axc");
        assert_eq!(s(&st("ab"), "replace", vec![st(""), st("-")]), "-a-b-");
        assert_eq!(s(&st("$1"), "replace", vec![st("$1"), st("\\")]), "\\");
        assert_eq!(s(&st("abc123"), "matches", vec![st("[a-z]+\\d+")]), "true");
        assert_eq!(s(&st("abc123x"), "matches", vec![st("[a-z]+\\d+")]), "false");
        assert_eq!(s(&st("ab"), "matches", vec![st("a|ab")]), "true");
    }

    #[test]
    fn indices_are_javas() {
        assert_eq!(s(&st("hello"), "substring", vec![Value::Int(1)]), "ello");
        assert_eq!(s(&st("hello"), "substring", vec![Value::Int(1), Value::Int(3)]), "el");
        assert_eq!(s(&st("hello"), "substring", vec![Value::Int(5)]), "");
        let e = invoke(&st("abc"), "substring", vec![Value::Int(2), Value::Int(5)]).unwrap_err();
        assert_eq!(e.to_string(), "java.lang.StringIndexOutOfBoundsException: begin 2, end 5, length 3");
        assert!(matches!(invoke(&st("héllo"), "charAt", vec![Value::Int(1)]), Ok(Value::Char('é'))));
        assert_eq!(s(&st("héllo"), "indexOf", vec![st("l")]), "2");
        assert_eq!(s(&st("héllo"), "substring", vec![Value::Int(2)]), "llo");
        assert_eq!(s(&st("hello"), "indexOf", vec![Value::Char('l'), Value::Int(3)]), "3");
        assert_eq!(s(&st("hello"), "indexOf", vec![Value::Int('o' as i32)]), "4");
        assert_eq!(s(&st("hello"), "indexOf", vec![st("z")]), "-1");
        assert_eq!(s(&st("hello"), "lastIndexOf", vec![st("l")]), "3");
        assert_eq!(s(&st("hello"), "lastIndexOf", vec![st("l"), Value::Int(2)]), "2");
        assert_eq!(s(&st("hello"), "lastIndexOf", vec![st("")]), "5");
        assert_eq!(s(&st("hello"), "length", vec![]), "5");
        assert!(invoke(&st("abc"), "charAt", vec![Value::Int(3)]).is_err());
    }

    #[test]
    fn comparisons_and_hash_are_javas() {
        assert_eq!(s(&st("apple"), "compareTo", vec![st("banana")]), "-1");
        assert_eq!(s(&st("a"), "compareTo", vec![st("abc")]), "-2");
        assert_eq!(s(&st("ABC"), "compareToIgnoreCase", vec![st("abd")]), "-1");
        assert_eq!(s(&st("ABC"), "equalsIgnoreCase", vec![st("abc")]), "true");
        assert_eq!(s(&st("a"), "equals", vec![Value::Char('a')]), "false");
        assert_eq!(s(&st("Aa"), "hashCode", vec![]), s(&st("BB"), "hashCode", vec![]));
        assert_eq!(s(&st(""), "hashCode", vec![]), "0");
    }

    #[test]
    fn trims_cases_and_tests() {
        assert_eq!(s(&st("  a b \t\n"), "trim", vec![]), "a b");
        assert_eq!(s(&st("  a "), "stripLeading", vec![]), "a ");
        assert_eq!(s(&st("aBc"), "toUpperCase", vec![]), "ABC");
        assert_eq!(s(&st(" \t"), "isBlank", vec![]), "true");
        assert_eq!(s(&st(""), "isEmpty", vec![]), "true");
        assert_eq!(s(&st("abc"), "contains", vec![st("bc")]), "true");
        assert_eq!(s(&st("abc"), "startsWith", vec![st("ab")]), "true");
        assert_eq!(s(&st("abc"), "startsWith", vec![st("bc"), Value::Int(1)]), "true");
        assert_eq!(s(&st("abc"), "endsWith", vec![st("bc")]), "true");
        assert_eq!(s(&st("ab"), "concat", vec![st("cd")]), "abcd");
        assert_eq!(s(&st("ab"), "repeat", vec![Value::Int(3)]), "ababab");
        assert_eq!(s(&st("ab"), "multiply", vec![Value::Int(2)]), "abab");
    }

    #[test]
    fn numbers_parse_as_groovy_and_java_do() {
        assert!(matches!(invoke(&st(" 12 "), "toInteger", vec![]), Ok(Value::Int(12))));
        assert!(matches!(invoke(&st("-5"), "toLong", vec![]), Ok(Value::Long(-5))));
        assert_eq!(s(&st("1.5"), "toDouble", vec![]), "1.5");
        assert_eq!(s(&st("1.50"), "toBigDecimal", vec![]), "1.50");
        let e = invoke(&st("x1"), "toInteger", vec![]).unwrap_err();
        assert_eq!(e.to_string(), "java.lang.NumberFormatException: For input string: \"x1\"");
        assert!(invoke(&st("3000000000"), "toInteger", vec![]).is_err());
        assert_eq!(s(&st("12"), "isInteger", vec![]), "true");
        assert_eq!(s(&st("1.2"), "isInteger", vec![]), "false");
        assert_eq!(s(&st("1.2"), "isNumber", vec![]), "true");
        assert_eq!(s(&st("1e3"), "isDouble", vec![]), "true");
        assert_eq!(s(&st("abc"), "isNumber", vec![]), "false");
        assert_eq!(s(&st("Y"), "toBoolean", vec![]), "true");
        assert_eq!(s(&st("no"), "toBoolean", vec![]), "false");
    }

    #[test]
    fn groovy_string_additions() {
        assert_eq!(s(&st("abc"), "reverse", vec![]), "cba");
        assert_eq!(s(&st("abc"), "capitalize", vec![]), "Abc");
        assert_eq!(s(&st("Abc"), "uncapitalize", vec![]), "abc");
        assert_eq!(s(&st("a b\tc"), "tokenize", vec![]), "[a, b, c]");
        assert_eq!(s(&st("a,b;;c"), "tokenize", vec![st(",;")]), "[a, b, c]");
        assert_eq!(s(&st("7"), "padLeft", vec![Value::Int(3), st("0")]), "007");
        assert_eq!(s(&st("ab"), "padRight", vec![Value::Int(5), st("xy")]), "abxyx");
        assert_eq!(s(&st("ab"), "center", vec![Value::Int(5), st("*")]), "*ab**");
        assert_eq!(s(&st("abc"), "padLeft", vec![Value::Int(2)]), "abc");
        assert_eq!(s(&st("abc"), "plus", vec![Value::Int(1)]), "abc1");
        assert_eq!(s(&st("abcb"), "minus", vec![st("b")]), "acb");
        assert_eq!(s(&st("hello"), "getAt", vec![Value::Int(-1)]), "o");
        assert_eq!(s(&st("hello"), "getAt", vec![Value::Range(1, 3)]), "ell");
        assert_eq!(s(&st("hello"), "getAt", vec![Value::Range(-1, 0)]), "olleh");
        assert_eq!(s(&st("hello"), "take", vec![Value::Int(2)]), "he");
        assert_eq!(s(&st("hello"), "drop", vec![Value::Int(2)]), "llo");
        assert_eq!(s(&st("id=42;x=7"), "find", vec![st("\\d+")]), "42");
        assert_eq!(s(&st("abc"), "find", vec![st("\\d")]), "null");
        assert_eq!(s(&st("a1b2"), "findAll", vec![st("\\d")]), "[1, 2]");
        assert_eq!(s(&st("a1b2"), "findAll", vec![st("([a-z])(\\d)")]), "[[a1, a, 1], [b2, b, 2]]");
        assert_eq!(s(&st("aaa"), "count", vec![st("aa")]), "2");
        assert_eq!(s(&st("a\r\nb\n"), "readLines", vec![]), "[a, b]");
        assert_eq!(s(&st("  a\n    b"), "stripIndent", vec![]), "a\n  b");
        assert_eq!(s(&st("ab"), "toList", vec![]), "[a, b]");
        assert_eq!(s(&st("hello"), "size", vec![]), "5");
        assert!(
            matches!(invoke(&st("aGVsbG8="), "decodeBase64", vec![]), Ok(Value::Bytes(b)) if b.as_slice() == b"hello")
        );
        assert_eq!(invoke(&st("ls"), "execute", vec![]).unwrap_err().class, "java.lang.SecurityException");
        assert_eq!(invoke(&st("http://x"), "toURL", vec![]).unwrap_err().message, "network access is not allowed");
    }

    #[test]
    fn bytes_and_chars() {
        let b = invoke(&st("é"), "getBytes", vec![]).unwrap();
        assert!(matches!(&b, Value::Bytes(b) if b.as_slice() == [0xC3, 0xA9]));
        let b = invoke(&st("é"), "getBytes", vec![st("ISO-8859-1")]).unwrap();
        assert!(matches!(&b, Value::Bytes(b) if b.as_slice() == [0xE9]));
        assert_eq!(s(&st("ab"), "toCharArray", vec![]), "[a, b]");
        assert_eq!(s(&Value::Char('a'), "isLetter", vec![]), "true");
        assert_eq!(s(&Value::Char('5'), "isDigit", vec![]), "true");
        assert_eq!(s(&Value::Char('a'), "toUpperCase", vec![]), "A");
    }

    #[test]
    fn javascript_strings_have_length_and_substr() {
        assert_eq!(
            call_in(Lang::JavaScript, &st("hello"), "substr", vec![Value::Int(1), Value::Int(3)]).unwrap().to_string(),
            "ell"
        );
        assert_eq!(call_in(Lang::JavaScript, &st("hello"), "slice", vec![Value::Int(-3)]).unwrap().to_string(), "llo");
    }
}
