//! `String` (Java's methods, by UTF-16 index as Java counts, and Groovy's additions) and
//! `Character`.

use super::jregex::{compile, expand, java_regex, match_error, Anchor};
use super::number;
use super::{bad_args, int_arg, Found, Method, ANY};
use crate::value::{self, lock, Value};
use crate::{Ctx, Lang, Thrown};
use std::borrow::Cow;
use std::sync::Arc;

mod convert;
mod edit;
mod groovy;
mod read;

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

/// A string method: its rows in [`STRING`].
pub(crate) fn call(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    super::dispatch(string_rows(name), cx, recv, name, args)
}

/// The methods of strings (`Value::Str`), sorted by name.
pub(crate) static STRING: &[Method] = &[
    Method::new("any", 0, ANY, groovy::each),
    Method::new("asBoolean", 0, 0, groovy::as_boolean),
    Method::new("bitwiseNegate", 0, 0, groovy::bitwise_negate),
    Method::new("capitalize", 0, 0, convert::capitalize),
    Method::new("center", 1, 2, convert::pad_left),
    Method::new("charAt", 1, 1, read::char_at),
    Method::new("chars", 0, 0, convert::chars),
    Method::new("codePointAt", 1, 1, read::code_point_at),
    Method::new("codePoints", 0, 0, convert::code_points),
    Method::new("collect", 0, ANY, groovy::each),
    Method::new("collectEntries", 0, ANY, groovy::each),
    Method::new("compareTo", 1, 1, read::compare_to),
    Method::new("compareToIgnoreCase", 1, 1, read::compare_to_ignore_case),
    Method::new("concat", 1, 1, edit::concat),
    Method::new("contains", 1, 1, read::contains),
    Method::new("contentEquals", 1, 1, read::content_equals),
    Method::new("count", 1, 1, groovy::count),
    Method::new("countBy", 0, ANY, groovy::each),
    Method::new("decodeBase64", 0, 0, groovy::decode_base64),
    Method::new("decodeHex", 0, 0, groovy::decode_hex_method),
    Method::new("denormalize", 0, 0, groovy::denormalize),
    Method::new("drop", 1, 1, groovy::drop),
    Method::new("each", 0, ANY, groovy::each),
    Method::new("eachLine", 1, 1, groovy::each_line),
    Method::new("eachMatch", 1, 2, groovy::find_all),
    Method::new("eachWithIndex", 0, ANY, groovy::each),
    Method::new("encodeBase64", 0, 0, groovy::encode_base64),
    Method::new("endsWith", 1, 1, read::ends_with),
    Method::new("equals", 1, 1, read::equals),
    Method::new("equalsIgnoreCase", 1, 1, read::equals_ignore_case),
    Method::new("every", 0, ANY, groovy::each),
    Method::new("execute", 0, ANY, groovy::execute),
    Method::new("find", 1, 1, groovy::find),
    Method::new("find", 2, 2, groovy::find_2),
    Method::new("find", 1, 1, groovy::find_3),
    Method::new("findAll", 1, 2, groovy::find_all),
    Method::new("findAll", 0, ANY, groovy::each),
    Method::new("findIndexOf", 0, ANY, groovy::each),
    Method::new("first", 0, ANY, groovy::each),
    Method::new("formatted", 0, ANY, groovy::formatted),
    Method::new("getAt", 1, 1, groovy::get_at),
    Method::new("getAt", 1, 1, groovy::get_at_2),
    Method::new("getBytes", 0, 0, convert::get_bytes),
    Method::new("getBytes", 1, 1, convert::get_bytes_2),
    Method::new("groupBy", 0, ANY, groovy::each),
    Method::new("hashCode", 0, 0, convert::hash_code),
    Method::new("indexOf", 1, 2, read::index_of),
    Method::new("inject", 0, ANY, groovy::each),
    Method::new("intern", 0, 0, edit::intern),
    Method::new("isAllWhitespace", 0, 0, read::is_all_whitespace),
    Method::new("isBigDecimal", 0, 0, convert::is_number),
    Method::new("isBlank", 0, 0, read::is_blank),
    Method::new("isCase", 1, 1, groovy::is_case),
    Method::new("isDouble", 0, 0, convert::is_double),
    Method::new("isEmpty", 0, 0, read::is_empty),
    Method::new("isFloat", 0, 0, convert::is_double),
    Method::new("isInteger", 0, 0, convert::is_integer),
    Method::new("isLong", 0, 0, convert::is_long),
    Method::new("isNumber", 0, 0, convert::is_number),
    Method::new("join", 0, ANY, groovy::each),
    Method::new("last", 0, ANY, groovy::each),
    Method::new("lastIndexOf", 1, 2, read::last_index_of),
    Method::new("length", 0, 0, read::length),
    Method::new("lines", 0, 0, convert::lines_method),
    Method::new("matches", 1, 1, edit::matches),
    Method::new("max", 0, ANY, groovy::each),
    Method::new("md5", 0, 0, groovy::md5),
    Method::new("min", 0, ANY, groovy::each),
    Method::new("minus", 1, 1, groovy::minus),
    Method::new("multiply", 1, 1, edit::repeat),
    Method::new("next", 0, 0, groovy::next),
    Method::new("normalize", 0, 0, groovy::normalize),
    Method::new("padLeft", 1, 2, convert::pad_left),
    Method::new("padRight", 1, 2, convert::pad_left),
    Method::new("plus", 1, 1, groovy::plus),
    Method::new("previous", 0, 0, groovy::previous),
    Method::new("readLines", 0, 0, convert::lines_method),
    Method::new("repeat", 1, 1, edit::repeat),
    Method::new("replace", 2, 2, edit::replace),
    Method::new("replaceAll", 2, 2, edit::replace_all),
    Method::new("replaceFirst", 2, 2, edit::replace_first),
    Method::new("reverse", 0, 0, convert::reverse),
    Method::new("sha256", 0, 0, groovy::md5),
    Method::new("size", 0, 0, read::length),
    Method::new("slice", 0, ANY, read::substr),
    Method::new("sort", 0, ANY, groovy::each),
    Method::new("split", 0, 0, edit::split),
    Method::new("split", 1, 1, edit::split_2),
    Method::new("split", 2, 2, edit::split_3),
    Method::new("startsWith", 1, 1, read::starts_with),
    Method::new("startsWith", 2, 2, read::starts_with_2),
    Method::new("strip", 0, 0, edit::strip),
    Method::new("stripIndent", 0, 0, edit::strip_indent_method),
    Method::new("stripLeading", 0, 0, edit::strip_leading),
    Method::new("stripTrailing", 0, 0, edit::strip_trailing),
    Method::new("subSequence", 2, 2, read::substring_2),
    Method::new("substr", 0, ANY, read::substr),
    Method::new("substring", 1, 1, read::substring),
    Method::new("substring", 2, 2, read::substring_2),
    Method::new("sum", 0, ANY, groovy::each),
    Method::new("take", 1, 1, groovy::take),
    Method::new("takeRight", 1, 1, groovy::take_right),
    Method::new("toBigDecimal", 0, 0, convert::to_big_decimal),
    Method::new("toBigInteger", 0, 0, convert::to_big_integer),
    Method::new("toBoolean", 0, 0, convert::to_boolean),
    Method::new("toCharArray", 0, 0, convert::to_char_array),
    Method::new("toCharacter", 0, 0, convert::to_character),
    Method::new("toDouble", 0, 0, convert::to_double),
    Method::new("toFloat", 0, 0, convert::to_float),
    Method::new("toInteger", 0, 0, convert::to_integer),
    Method::new("toList", 0, 0, groovy::to_list),
    Method::new("toLong", 0, 0, convert::to_long),
    Method::new("toLowerCase", 0, 1, edit::to_lower_case),
    Method::new("toSet", 0, 0, groovy::to_list),
    Method::new("toShort", 0, 0, convert::to_short),
    Method::new("toString", 0, 0, edit::intern),
    Method::new("toURI", 0, 0, groovy::to_u_r_l),
    Method::new("toURL", 0, 0, groovy::to_u_r_l),
    Method::new("toUpperCase", 0, 1, edit::to_upper_case),
    Method::new("tokenize", 0, 0, convert::tokenize),
    Method::new("tokenize", 1, 1, convert::tokenize_2),
    Method::new("trim", 0, 0, edit::trim),
    Method::new("uncapitalize", 0, 0, convert::uncapitalize),
    Method::new("unique", 0, ANY, groovy::each),
    Method::new("withIndex", 0, ANY, groovy::each),
];

/// The rows of `name` in [`STRING`]: a `match` on the name, which compiles to a few length and
/// byte comparisons (about 5 ns where a binary search over the rows took 75); a test checks
/// it gives each name's rows.
pub(crate) fn string_rows(name: &str) -> &'static [Method] {
    match name {
        "any" => &STRING[0..1],
        "asBoolean" => &STRING[1..2],
        "bitwiseNegate" => &STRING[2..3],
        "capitalize" => &STRING[3..4],
        "center" => &STRING[4..5],
        "charAt" => &STRING[5..6],
        "chars" => &STRING[6..7],
        "codePointAt" => &STRING[7..8],
        "codePoints" => &STRING[8..9],
        "collect" => &STRING[9..10],
        "collectEntries" => &STRING[10..11],
        "compareTo" => &STRING[11..12],
        "compareToIgnoreCase" => &STRING[12..13],
        "concat" => &STRING[13..14],
        "contains" => &STRING[14..15],
        "contentEquals" => &STRING[15..16],
        "count" => &STRING[16..17],
        "countBy" => &STRING[17..18],
        "decodeBase64" => &STRING[18..19],
        "decodeHex" => &STRING[19..20],
        "denormalize" => &STRING[20..21],
        "drop" => &STRING[21..22],
        "each" => &STRING[22..23],
        "eachLine" => &STRING[23..24],
        "eachMatch" => &STRING[24..25],
        "eachWithIndex" => &STRING[25..26],
        "encodeBase64" => &STRING[26..27],
        "endsWith" => &STRING[27..28],
        "equals" => &STRING[28..29],
        "equalsIgnoreCase" => &STRING[29..30],
        "every" => &STRING[30..31],
        "execute" => &STRING[31..32],
        "find" => &STRING[32..35],
        "findAll" => &STRING[35..37],
        "findIndexOf" => &STRING[37..38],
        "first" => &STRING[38..39],
        "formatted" => &STRING[39..40],
        "getAt" => &STRING[40..42],
        "getBytes" => &STRING[42..44],
        "groupBy" => &STRING[44..45],
        "hashCode" => &STRING[45..46],
        "indexOf" => &STRING[46..47],
        "inject" => &STRING[47..48],
        "intern" => &STRING[48..49],
        "isAllWhitespace" => &STRING[49..50],
        "isBigDecimal" => &STRING[50..51],
        "isBlank" => &STRING[51..52],
        "isCase" => &STRING[52..53],
        "isDouble" => &STRING[53..54],
        "isEmpty" => &STRING[54..55],
        "isFloat" => &STRING[55..56],
        "isInteger" => &STRING[56..57],
        "isLong" => &STRING[57..58],
        "isNumber" => &STRING[58..59],
        "join" => &STRING[59..60],
        "last" => &STRING[60..61],
        "lastIndexOf" => &STRING[61..62],
        "length" => &STRING[62..63],
        "lines" => &STRING[63..64],
        "matches" => &STRING[64..65],
        "max" => &STRING[65..66],
        "md5" => &STRING[66..67],
        "min" => &STRING[67..68],
        "minus" => &STRING[68..69],
        "multiply" => &STRING[69..70],
        "next" => &STRING[70..71],
        "normalize" => &STRING[71..72],
        "padLeft" => &STRING[72..73],
        "padRight" => &STRING[73..74],
        "plus" => &STRING[74..75],
        "previous" => &STRING[75..76],
        "readLines" => &STRING[76..77],
        "repeat" => &STRING[77..78],
        "replace" => &STRING[78..79],
        "replaceAll" => &STRING[79..80],
        "replaceFirst" => &STRING[80..81],
        "reverse" => &STRING[81..82],
        "sha256" => &STRING[82..83],
        "size" => &STRING[83..84],
        "slice" => &STRING[84..85],
        "sort" => &STRING[85..86],
        "split" => &STRING[86..89],
        "startsWith" => &STRING[89..91],
        "strip" => &STRING[91..92],
        "stripIndent" => &STRING[92..93],
        "stripLeading" => &STRING[93..94],
        "stripTrailing" => &STRING[94..95],
        "subSequence" => &STRING[95..96],
        "substr" => &STRING[96..97],
        "substring" => &STRING[97..99],
        "sum" => &STRING[99..100],
        "take" => &STRING[100..101],
        "takeRight" => &STRING[101..102],
        "toBigDecimal" => &STRING[102..103],
        "toBigInteger" => &STRING[103..104],
        "toBoolean" => &STRING[104..105],
        "toCharArray" => &STRING[105..106],
        "toCharacter" => &STRING[106..107],
        "toDouble" => &STRING[107..108],
        "toFloat" => &STRING[108..109],
        "toInteger" => &STRING[109..110],
        "toList" => &STRING[110..111],
        "toLong" => &STRING[111..112],
        "toLowerCase" => &STRING[112..113],
        "toSet" => &STRING[113..114],
        "toShort" => &STRING[114..115],
        "toString" => &STRING[115..116],
        "toURI" => &STRING[116..117],
        "toURL" => &STRING[117..118],
        "toUpperCase" => &STRING[118..119],
        "tokenize" => &STRING[119..121],
        "trim" => &STRING[121..122],
        "uncapitalize" => &STRING[122..123],
        "unique" => &STRING[123..124],
        "withIndex" => &STRING[124..125],
        _ => &[],
    }
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
