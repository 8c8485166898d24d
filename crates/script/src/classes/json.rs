//! JSON: Groovy's `JsonSlurper` (and `JsonSlurperClassic`), `JsonOutput` and `JsonBuilder`,
//! org.json's `JSONObject`/`JSONArray`, Jayway's `JsonPath.read`, and JavaScript's `JSON`.
//!
//! Parsed JSON is built-in values: objects are insertion-ordered maps, arrays lists; numbers
//! as Groovy gives them (`Integer`, `Long`, `BigDecimal` for fractions), or as Java's JSON
//! libraries do (`Double` for fractions) for org.json, JsonPath and JavaScript.

use super::{arg, downcast, fd, illegal_arg, native_base, no_method, no_property, obj, st, str_arg, Class};
use crate::value::{java_double, lock, Key, ListKind, Native, Value};
use crate::{Ctx, Thrown};
use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::sync::{Arc, Mutex, Weak};

mod json_path;
pub(crate) use json_path::json_smart_text;
use json_path::*;

pub(super) const CLASSES: &[Class] = &[
    Class { name: "groovy.json.JsonSlurper", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "groovy.json.JsonSlurperClassic", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "groovy.json.JsonOutput",
        new: None,
        statics: &[st("toJson", 1, 1, call_static), st("prettyPrint", 1, 1, call_static)],
        fields: &[],
    },
    Class { name: "groovy.json.JsonBuilder", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "groovy.json.JsonParserType",
        new: None,
        statics: &[],
        fields: &[
            fd("LAX", get_static),
            fd("INDEX_OVERLAY", get_static),
            fd("CHAR_BUFFER", get_static),
            fd("CHARACTER_SOURCE", get_static),
        ],
    },
    Class {
        name: "org.json.JSONObject",
        new: Some(construct),
        statics: &[st("quote", 1, 1, call_static)],
        fields: &[fd("NULL", get_static)],
    },
    Class { name: "org.json.JSONArray", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "com.jayway.jsonpath.JsonPath",
        new: None,
        statics: &[st("read", 2, 2, call_static), st("parse", 1, 1, call_static), st("compile", 1, 1, call_static)],
        fields: &[],
    },
    // The types scripts declare what Jayway gives as: its parsed document, and json-smart's
    // array and object (lists and maps here).
    Class { name: "com.jayway.jsonpath.DocumentContext", new: None, statics: &[], fields: &[] },
    Class { name: "com.jayway.jsonpath.ReadContext", new: None, statics: &[], fields: &[] },
    Class { name: "net.minidev.json.JSONArray", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "net.minidev.json.JSONObject", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "JSON",
        new: None,
        statics: &[st("parse", 1, 2, call_static), st("stringify", 1, 3, call_static)],
        fields: &[],
    },
];

fn construct(_cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class {
        "groovy.json.JsonSlurper" | "groovy.json.JsonSlurperClassic" => Ok(obj(Slurper(class))),
        "groovy.json.JsonBuilder" => Ok(obj(Builder(Mutex::new(arg(&args, 0).clone())))),
        "org.json.JSONObject" => {
            let map = match arg(&args, 0) {
                Value::Null => Value::map(IndexMap::new()),
                Value::Map(m) => Value::Map(m.clone()),
                v => match parse(&v.to_string(), Numbers::Java).map_err(org_json_error)? {
                    m @ Value::Map(_) => m,
                    _ => return Err(org_json_error("A JSONObject text must begin with '{'".into())),
                },
            };
            Ok(org_object(map))
        }
        "org.json.JSONArray" => {
            let list = match arg(&args, 0) {
                Value::Null => Value::list(Vec::new()),
                Value::List(l) => Value::List(l.clone()),
                v => match parse(&v.to_string(), Numbers::Java).map_err(org_json_error)? {
                    l @ Value::List(_) => l,
                    _ => return Err(org_json_error("A JSONArray text must start with '['".into())),
                },
            };
            Ok(org_array(list))
        }
        "net.minidev.json.JSONArray" => Ok(Value::list(super::items_of(arg(&args, 0)).unwrap_or_default())),
        "net.minidev.json.JSONObject" => match arg(&args, 0) {
            Value::Map(m) => Ok(Value::map(lock(&m.entries).clone())),
            _ => Ok(Value::map(IndexMap::new())),
        },
        _ => Err(illegal_arg(format!("{class} has no public constructor"))),
    }
}

fn get_static(_cx: &mut Ctx<'_>, class: &'static str, name: &str) -> Result<Value, Thrown> {
    match (class, name) {
        ("groovy.json.JsonParserType", _) => Ok(Value::str(name)),
        ("org.json.JSONObject", "NULL") => Ok(Value::Null),
        _ => Err(no_property(class, name)),
    }
}

fn call_static(cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match (class, method, args.len()) {
        ("groovy.json.JsonOutput", "toJson", 1) => Ok(Value::str(to_json(&args[0], Style::GROOVY)?)),
        ("groovy.json.JsonOutput", "prettyPrint", 1) => Ok(Value::str(pretty_print(&str_arg(&args, 0)?)?)),
        ("org.json.JSONObject", "quote", 1) => Ok(Value::str(to_json(&Value::str(args[0].to_string()), Style::PLAIN)?)),
        // Jayway's trailing `Predicate...` (filters for `[?]`) are not supported: a path's own
        // filters are.
        ("com.jayway.jsonpath.JsonPath", "read", 2) => JsonPathCompiled::of(&args[1])?.read(&json_doc(&args[0])?),
        ("com.jayway.jsonpath.JsonPath", "parse", 1) => Ok(obj(JsonDocument(json_doc(&args[0])?))),
        ("com.jayway.jsonpath.JsonPath", "compile", 1) => Ok(obj(JsonPathCompiled::of(&args[0])?)),
        ("JSON", "parse", 1 | 2) => {
            parse(&str_arg(&args, 0)?, Numbers::Java).map_err(|e| Thrown::new("SyntaxError", e))
        }
        ("JSON", "stringify", 1..=3) => {
            let indent = match arg(&args, 2) {
                Value::Null => None,
                Value::Str(s) => Some(s.to_string()),
                v => Some(" ".repeat(v.as_i64().unwrap_or(0).clamp(0, 10) as usize)),
            };
            let _ = cx;
            if args[0].is_null() && args.len() == 1 {
                return Ok(Value::str("null"));
            }
            match indent.filter(|i| !i.is_empty()) {
                Some(i) => Ok(Value::str(to_json_indented(&args[0], &i)?)),
                None => Ok(Value::str(to_json(&args[0], Style::PLAIN)?)),
            }
        }
        _ => Err(no_method(class, method)),
    }
}

// ---- parsing ----

/// How JSON numbers become values.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Numbers {
    /// Groovy's JsonSlurper: `Integer`, `Long`, `BigDecimal` for fractions and exponents.
    Groovy,
    /// Java JSON libraries and JavaScript: integers as `Integer`/`Long`, fractions `Double`.
    Java,
}

/// Parses JSON text; the error says where it went wrong.
pub(crate) fn parse(text: &str, numbers: Numbers) -> Result<Value, String> {
    let mut p = Parser { s: text.as_bytes(), i: 0, numbers, depth: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i < p.s.len() {
        return Err(p.error("unexpected text after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    numbers: Numbers,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        let before = &self.s[..self.i.min(self.s.len())];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&c| c != b'\n').count() + 1;
        format!("{what} at line {line}, column {col}")
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", c as char)))
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.ws();
        match self.peek() {
            None => Err(self.error("unexpected end of the JSON text")),
            Some(b'{') => {
                self.enter()?;
                self.i += 1;
                let mut m = IndexMap::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(Value::map(m));
                }
                loop {
                    self.ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.error("expected a string key"));
                    }
                    let k = self.string()?;
                    self.expect(b':')?;
                    let v = self.value()?;
                    m.insert(Key(Value::str(k)), v);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            self.depth -= 1;
                            return Ok(Value::map(m));
                        }
                        _ => return Err(self.error("expected ',' or '}'")),
                    }
                }
            }
            Some(b'[') => {
                self.enter()?;
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(Value::list(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            self.depth -= 1;
                            return Ok(Value::list(items));
                        }
                        _ => return Err(self.error("expected ',' or ']'")),
                    }
                }
            }
            Some(b'"') => Ok(Value::str(self.string()?)),
            Some(b't') => self.word("true", Value::Bool(true)),
            Some(b'f') => self.word("false", Value::Bool(false)),
            Some(b'n') => self.word("null", Value::Null),
            Some(c) if c == b'-' || c.is_ascii_digit() => self.number(),
            Some(c) => Err(self.error(&format!("unexpected character '{}'", c as char))),
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > 512 {
            return Err(self.error("the JSON nests too deeply"));
        }
        Ok(())
    }

    fn word(&mut self, w: &str, v: Value) -> Result<Value, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.error("unexpected word"))
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        let mut fraction = false;
        while let Some(c) = self.peek() {
            match c {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => fraction = true,
                _ => break,
            }
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        if !fraction {
            if let Ok(n) = text.parse::<i64>() {
                return Ok(super::int_value(n));
            }
        }
        let bad = || self.error(&format!("invalid number '{text}'"));
        match self.numbers {
            Numbers::Java if fraction => text.parse::<f64>().map(Value::Double).map_err(|_| bad()),
            _ => {
                let d = if text.contains(['e', 'E']) {
                    Decimal::from_scientific(text)
                } else {
                    Decimal::from_str_exact(text)
                };
                match d {
                    Ok(d) => Ok(Value::Decimal(d)),
                    Err(_) => text.parse::<f64>().map(Value::Double).map_err(|_| bad()),
                }
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while self.i < self.s.len() && !matches!(self.s[self.i], b'"' | b'\\') && self.s[self.i] >= 0x20 {
                self.i += 1;
            }
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.error("invalid UTF-8"))?);
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.peek().ok_or_else(|| self.error("unterminated string"))?;
                    self.i += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) && self.s[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let lo = self.hex4()?;
                                char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3ff))
                            } else {
                                char::from_u32(hi)
                            };
                            out.push(c.unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(self.error("invalid escape")),
                    }
                }
                None => return Err(self.error("unterminated string")),
                Some(_) => return Err(self.error("control character in a string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        self.i += 4;
        h.ok_or_else(|| self.error("invalid \\u escape"))
    }
}

// ---- writing ----

/// How strings and numbers are written.
#[derive(Clone, Copy)]
pub(crate) struct Style {
    /// Groovy writes every non-ASCII character as `\uXXXX`.
    escape_unicode: bool,
}

impl Style {
    pub(crate) const GROOVY: Style = Style { escape_unicode: true };
    pub(crate) const PLAIN: Style = Style { escape_unicode: false };
}

fn json_error(message: String) -> Thrown {
    Thrown::new("groovy.json.JsonException", message)
}

fn org_json_error(message: String) -> Thrown {
    Thrown::new("org.json.JSONException", message)
}

fn write_string(out: &mut String, s: &str, style: Style) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (style.escape_unicode && (c as u32) > 0x7e) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `JsonOutput.toJson`: compact, keys in their order.
pub(crate) fn to_json(v: &Value, style: Style) -> Result<String, Thrown> {
    let mut out = String::new();
    write(&mut out, v, style, None, 0)?;
    Ok(out)
}

/// `JSON.stringify(v, null, indent)`, org.json's `toString(indent)`.
fn to_json_indented(v: &Value, indent: &str) -> Result<String, Thrown> {
    let mut out = String::new();
    write(&mut out, v, Style::PLAIN, Some(indent), 0)?;
    Ok(out)
}

fn newline(out: &mut String, indent: Option<&str>, level: usize) {
    if let Some(i) = indent {
        out.push('\n');
        for _ in 0..level {
            out.push_str(i);
        }
    }
}

fn write(out: &mut String, v: &Value, style: Style, indent: Option<&str>, level: usize) -> Result<(), Thrown> {
    if level > 256 {
        return Err(json_error("the value nests too deeply (a cycle?)".into()));
    }
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(_) | Value::Long(_) | Value::Decimal(_) => out.push_str(&v.to_string()),
        Value::Double(d) => {
            if !d.is_finite() {
                return Err(json_error(format!("Number {} can't be serialized as JSON", java_double(*d))));
            }
            out.push_str(&java_double(*d));
        }
        Value::Str(s) => write_string(out, s, style),
        Value::Char(c) => write_string(out, &c.to_string(), style),
        Value::List(l) => {
            let items = lock(&l.items).clone();
            write_seq(out, items.iter().map(|x| (None, x)), '[', ']', style, indent, level)?;
        }
        Value::Range(a, b) => {
            crate::methods::checked_items(a.abs_diff(*b).saturating_add(1))?;
            let items: Vec<Value> = (*a..=*b).map(super::int_value).collect();
            write_seq(out, items.iter().map(|x| (None, x)), '[', ']', style, indent, level)?;
        }
        Value::Map(m) => {
            let entries: Vec<(String, Value)> =
                lock(&m.entries).iter().map(|(k, v)| (k.0.to_string(), v.clone())).collect();
            write_seq(out, entries.iter().map(|(k, v)| (Some(k.as_str()), v)), '{', '}', style, indent, level)?;
        }
        Value::Object(o) => {
            if let Some(OrgJson { value, .. }) = o.as_any().downcast_ref::<OrgJson>() {
                return write(out, value, style, indent, level);
            }
            if let Some(b) = o.as_any().downcast_ref::<Builder>() {
                let content = lock(&b.0).clone();
                return write(out, &content, style, indent, level);
            }
            if let Some(millis) = super::time::date::date_millis(v) {
                write_string(out, &super::time::date::format_millis(millis, "yyyy-MM-dd'T'HH:mm:ssZ", 0), style);
                return Ok(());
            }
            write_string(out, &o.to_string(), style)
        }
        Value::Bytes(b) => {
            crate::methods::checked_items(b.len() as u64)?;
            let items: Vec<Value> = b.iter().map(|x| Value::Int(*x as i8 as i32)).collect();
            write_seq(out, items.iter().map(|x| (None, x)), '[', ']', style, indent, level)?;
        }
        other => write_string(out, &other.to_string(), style),
    }
    Ok(())
}

fn write_seq<'a>(
    out: &mut String,
    items: impl Iterator<Item = (Option<&'a str>, &'a Value)>,
    open: char,
    close: char,
    style: Style,
    indent: Option<&str>,
    level: usize,
) -> Result<(), Thrown> {
    out.push(open);
    let mut any = false;
    for (i, (key, v)) in items.enumerate() {
        // Values nested by reference may write far more than they hold.
        crate::budget::check(out.len() as u64)?;
        if i > 0 {
            out.push(',');
        }
        newline(out, indent, level + 1);
        if let Some(k) = key {
            write_string(out, k, style);
            out.push(':');
            if indent.is_some() {
                out.push(' ');
            }
        }
        write(out, v, style, indent, level + 1)?;
        any = true;
    }
    if any {
        newline(out, indent, level);
    }
    out.push(close);
    Ok(())
}

/// `JsonOutput.prettyPrint`: Groovy's layout, token by token (4 spaces; an empty object or
/// array keeps a blank indented line, as Groovy prints it).
pub(crate) fn pretty_print(json: &str) -> Result<String, Thrown> {
    let mut out = String::with_capacity(json.len() * 2);
    let mut level: usize = 0;
    let indent = |out: &mut String, level: usize| out.extend(std::iter::repeat_n(' ', level * 4));
    let b = json.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'{' | b'[' => {
                level += 1;
                out.push(c as char);
                out.push('\n');
                indent(&mut out, level);
            }
            b'}' | b']' => {
                level = level.saturating_sub(1);
                out.push('\n');
                indent(&mut out, level);
                out.push(c as char);
            }
            b',' => {
                out.push_str(",\n");
                indent(&mut out, level);
            }
            b':' => out.push_str(": "),
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let end = (i + 1).min(b.len());
                let raw = &json[start..end];
                // Groovy re-escapes the string's characters (non-ASCII as \uXXXX).
                match parse(raw, Numbers::Groovy) {
                    Ok(Value::Str(s)) => write_string(&mut out, &s, Style::GROOVY),
                    _ => return Err(json_error(format!("Unable to pretty print: an unterminated string at {start}"))),
                }
            }
            _ => {
                let start = i;
                while i + 1 < b.len()
                    && !matches!(
                        b[i + 1],
                        b'{' | b'}' | b'[' | b']' | b',' | b':' | b' ' | b'\n' | b'\r' | b'\t' | b'"'
                    )
                {
                    i += 1;
                }
                let word = &json[start..=i];
                if !matches!(word, "true" | "false" | "null") && word.parse::<f64>().is_err() {
                    return Err(json_error(format!("Unable to pretty print: unexpected '{word}'")));
                }
                out.push_str(word);
            }
        }
        i += 1;
    }
    Ok(out)
}

// ---- JsonSlurper, JsonBuilder ----

#[derive(Debug)]
struct Slurper(&'static str);

impl Native for Slurper {
    fn class_name(&self) -> &'static str {
        self.0
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let text = match (method, args.first()) {
            ("parseText", Some(v)) if !v.is_null() => v.to_string(),
            ("parse", Some(Value::Bytes(b))) => String::from_utf8_lossy(b).into_owned(),
            ("parse", Some(v @ Value::Object(_))) => match super::io::read_text(cx, v)? {
                Some(t) => t,
                None => return Err(illegal_arg(format!("JsonSlurper.parse: cannot read a {}", v.type_name()))),
            },
            ("parse", Some(Value::Str(s))) => s.to_string(),
            ("parseText" | "parse", _) => return Err(illegal_arg("Text must not be null or empty")),
            ("setType" | "setCheckDates" | "setChop" | "setLazyChop" | "setMaxSizeForInMemory", Some(_)) => {
                return Ok(obj(Slurper(self.0)))
            }
            _ => return Err(no_method(self.0, method)),
        };
        if text.trim().is_empty() {
            return Err(illegal_arg("Text must not be null or empty"));
        }
        parse(&text, Numbers::Groovy).map_err(|e| json_error(format!("Unable to parse JSON: {e}")))
    }
}

/// `new JsonBuilder(content)`: its content (the closure DSL is not supported).
#[derive(Debug)]
struct Builder(Mutex<Value>);

impl Native for Builder {
    native_base!("groovy.json.JsonBuilder");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.as_slice()) {
            ("toString", []) => Ok(Value::str(to_json(&lock(&self.0), Style::GROOVY)?)),
            ("toPrettyString", []) => Ok(Value::str(pretty_print(&to_json(&lock(&self.0), Style::GROOVY)?)?)),
            ("getContent", []) => Ok(lock(&self.0).clone()),
            ("call", [v @ (Value::Map(_) | Value::List(_))]) => {
                *lock(&self.0) = v.clone();
                Ok(v.clone())
            }
            (_, [.., Value::Closure(_)]) | ("call", _) => Err(Thrown::new(
                "java.lang.UnsupportedOperationException",
                "JsonBuilder's closure DSL is not supported by stampede: build a map or list and pass it to new JsonBuilder(...)",
            )),
            _ => Err(no_method("groovy.json.JsonBuilder", method)),
        }
    }
    fn to_string(&self) -> String {
        to_json(&lock(&self.0), Style::GROOVY).unwrap_or_default()
    }
}

// ---- org.json ----

/// A `JSONObject` or `JSONArray` over a map or list value (shared: `getJSONObject` gives a
/// view of the nested map, so `put` on it changes the whole).
#[derive(Debug)]
struct OrgJson {
    value: Value,
    me: Weak<OrgJson>,
}

fn org_object(map: Value) -> Value {
    Value::Object(Arc::new_cyclic(|me| OrgJson { value: map, me: me.clone() }))
}

fn org_array(list: Value) -> Value {
    org_object(list)
}

/// A value as org.json hands it out: nested maps and lists wrapped.
fn org_wrap(v: Value) -> Value {
    match v {
        Value::Map(_) | Value::List(_) => org_object(v),
        other => other,
    }
}

/// A value put into org.json: its wrapped objects unwrapped.
fn org_unwrap(v: Value) -> Value {
    match downcast::<OrgJson>(&v) {
        Some(o) => o.value.clone(),
        None => v,
    }
}

impl OrgJson {
    fn this(&self) -> Value {
        self.me.upgrade().map(|a| Value::Object(a as Arc<dyn Native>)).unwrap_or(Value::Null)
    }

    fn lookup(&self, key: &Value) -> Option<Value> {
        match &self.value {
            Value::Map(m) => lock(&m.entries).get(&Key(Value::str(key.to_string()))).cloned(),
            Value::List(l) => key.as_i64().and_then(|i| lock(&l.items).get(usize::try_from(i).ok()?).cloned()),
            _ => None,
        }
    }

    fn describe(&self, key: &Value) -> String {
        match &self.value {
            Value::Map(_) => format!("JSONObject[\"{key}\"]"),
            _ => format!("JSONArray[{key}]"),
        }
    }
}

impl Native for OrgJson {
    fn class_name(&self) -> &'static str {
        match self.value {
            Value::Map(_) => "org.json.JSONObject",
            _ => "org.json.JSONArray",
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let key = arg(&args, 0).clone();
        let found = self.lookup(&key);
        let missing = || org_json_error(format!("{} not found.", self.describe(&key)));
        let typed = |what: &str| org_json_error(format!("{} is not a {what}.", self.describe(&key)));
        let number = |v: &Value| -> Option<Value> {
            match v {
                Value::Str(s) => s.trim().parse::<f64>().ok().map(Value::Double),
                v if v.is_number() => Some(v.clone()),
                _ => None,
            }
        };
        match (method, args.len()) {
            ("get", 1) => found.map(org_wrap).ok_or_else(missing),
            ("opt", 1) => Ok(found.map(org_wrap).unwrap_or(Value::Null)),
            ("getString", 1) => match found {
                Some(Value::Str(s)) => Ok(Value::Str(s)),
                Some(Value::Null) | None => Err(missing()),
                Some(v) => Ok(Value::str(to_json(&v, Style::PLAIN).map(|j| {
                    if matches!(v, Value::Map(_) | Value::List(_)) {
                        j
                    } else {
                        v.to_string()
                    }
                })?)),
            },
            ("optString", 1 | 2) => Ok(match found {
                Some(Value::Null) | None => args.get(1).cloned().unwrap_or_else(|| Value::str("")),
                Some(v) => Value::str(v.to_string()),
            }),
            ("getInt" | "getLong" | "getDouble" | "optInt" | "optLong" | "optDouble", 1 | 2) => {
                let n = found.as_ref().and_then(number);
                let n = match (n, method.starts_with("opt")) {
                    (Some(n), _) => n,
                    (None, true) => {
                        return Ok(args.get(1).cloned().unwrap_or(if method == "optDouble" {
                            Value::Double(f64::NAN)
                        } else {
                            Value::Int(0)
                        }))
                    }
                    (None, false) if found.is_none() => return Err(missing()),
                    (None, false) => return Err(typed("number")),
                };
                Ok(match method {
                    "getInt" | "optInt" => Value::Int(n.as_i64().unwrap_or(0) as i32),
                    "getLong" | "optLong" => Value::Long(n.as_i64().unwrap_or(0)),
                    _ => Value::Double(n.as_f64().unwrap_or(0.0)),
                })
            }
            ("getBoolean" | "optBoolean", 1 | 2) => match found {
                Some(Value::Bool(b)) => Ok(Value::Bool(b)),
                Some(Value::Str(s)) if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") => {
                    Ok(Value::Bool(s.eq_ignore_ascii_case("true")))
                }
                _ if method == "optBoolean" => Ok(args.get(1).cloned().unwrap_or(Value::Bool(false))),
                None => Err(missing()),
                Some(_) => Err(typed("Boolean")),
            },
            ("getJSONObject" | "optJSONObject", 1) => match found {
                Some(m @ Value::Map(_)) => Ok(org_object(m)),
                _ if method.starts_with("opt") => Ok(Value::Null),
                None => Err(missing()),
                Some(_) => Err(typed("JSONObject")),
            },
            ("getJSONArray" | "optJSONArray", 1) => match found {
                Some(l @ Value::List(_)) => Ok(org_array(l)),
                _ if method.starts_with("opt") => Ok(Value::Null),
                None => Err(missing()),
                Some(_) => Err(typed("JSONArray")),
            },
            ("has", 1) => Ok(Value::Bool(found.is_some())),
            ("isNull", 1) => Ok(Value::Bool(found.is_none_or(|v| v.is_null()))),
            ("put", 2) => {
                match &self.value {
                    Value::Map(m) => {
                        lock(&m.entries).insert(Key(Value::str(key.to_string())), org_unwrap(args[1].clone()));
                    }
                    Value::List(l) => {
                        let i = key
                            .as_i64()
                            .filter(|i| *i >= 0)
                            .ok_or_else(|| org_json_error("JSONArray index must be a number".into()))?
                            as usize;
                        let mut items = lock(&l.items);
                        if i >= items.len() {
                            items.resize(i + 1, Value::Null);
                        }
                        items[i] = org_unwrap(args[1].clone());
                    }
                    _ => {}
                }
                Ok(self.this())
            }
            ("put", 1) => {
                if let Value::List(l) = &self.value {
                    lock(&l.items).push(org_unwrap(args[0].clone()));
                }
                Ok(self.this())
            }
            ("remove", 1) => Ok(match &self.value {
                Value::Map(m) => {
                    lock(&m.entries).shift_remove(&Key(Value::str(key.to_string()))).unwrap_or(Value::Null)
                }
                Value::List(l) => {
                    let mut items = lock(&l.items);
                    match key.as_i64().and_then(|i| usize::try_from(i).ok()).filter(|i| *i < items.len()) {
                        Some(i) => items.remove(i),
                        None => Value::Null,
                    }
                }
                _ => Value::Null,
            }),
            ("length", 0) => Ok(Value::Int(match &self.value {
                Value::Map(m) => lock(&m.entries).len(),
                Value::List(l) => lock(&l.items).len(),
                _ => 0,
            } as i32)),
            ("keys" | "keySet" | "names", 0) => Ok(match &self.value {
                Value::Map(m) => {
                    let keys = lock(&m.entries).keys().map(|k| k.0.clone()).collect();
                    if method == "names" {
                        org_array(Value::list(keys))
                    } else {
                        Value::List(Arc::new(crate::value::ListObj {
                            json: false,
                            kind: ListKind::Set,
                            items: Mutex::new(keys),
                        }))
                    }
                }
                _ => Value::Null,
            }),
            ("toMap" | "toList", 0) => Ok(self.value.clone()),
            ("toString", 0) => Ok(Value::str(to_json(&self.value, Style::PLAIN)?)),
            ("toString", 1) => {
                let n = super::int_arg(&args, 0)?.clamp(0, 16) as usize;
                Ok(Value::str(if n == 0 {
                    to_json(&self.value, Style::PLAIN)?
                } else {
                    to_json_indented(&self.value, &" ".repeat(n))?
                }))
            }
            _ => Err(no_method(self.class_name(), method)),
        }
    }
    fn to_string(&self) -> String {
        to_json(&self.value, Style::PLAIN).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{s, try_call as call, with_cx};
    use super::super::{call_static, construct};
    use super::*;

    #[test]
    fn slurper_numbers_and_order_are_groovys() {
        with_cx(|cx| {
            let sl = construct(cx, "groovy.json.JsonSlurper", vec![]).unwrap();
            let v = call(
                cx,
                &sl,
                "parseText",
                vec![s(r#"{"z":1,"b":2.50,"c":12345678901,"d":[true,null,"\u00e9\n"],"a":{}}"#)],
            )
            .unwrap();
            let Value::Map(m) = &v else { panic!() };
            let m = lock(&m.entries).clone();
            let keys: Vec<String> = m.keys().map(|k| k.0.to_string()).collect();
            assert_eq!(keys, ["z", "b", "c", "d", "a"]);
            assert!(matches!(m[&Key(s("z"))], Value::Int(1)));
            assert!(matches!(&m[&Key(s("b"))], Value::Decimal(d) if d.to_string() == "2.50"));
            assert!(matches!(m[&Key(s("c"))], Value::Long(12345678901)));
            assert_eq!(m[&Key(s("d"))].to_string(), "[true, null, é\n]");
            let e = call(cx, &sl, "parseText", vec![s("{\"a\":}")]).unwrap_err();
            assert_eq!(e.class, "groovy.json.JsonException");
            assert!(call(cx, &sl, "parseText", vec![s("")]).is_err());
        })
    }

    #[test]
    fn json_output_is_groovys() {
        // Checked against Groovy 3.0.20 (JMeter 5.6.3's).
        with_cx(|cx| {
            let sl = construct(cx, "groovy.json.JsonSlurper", vec![]).unwrap();
            let v = call(
                cx,
                &sl,
                "parseText",
                vec![s(r#"{"a":1,"b":[1,2.5,"x\"é/\n"],"c":null,"d":true,"e":{},"f":[],"h":1.50,"i":10000000000}"#)],
            )
            .unwrap();
            let out = call_static(cx, "groovy.json.JsonOutput", "toJson", vec![v]).unwrap().to_string();
            assert_eq!(
                out,
                r#"{"a":1,"b":[1,2.5,"x\"\u00e9/\n"],"c":null,"d":true,"e":{},"f":[],"h":1.50,"i":10000000000}"#
            );
            assert_eq!(to_json(&Value::Double(1e10), Style::GROOVY).unwrap(), "1.0E10");
            assert_eq!(to_json(&s("tab\t\u{1}"), Style::GROOVY).unwrap(), r#""tab\t\u0001""#);
            let pretty = pretty_print(r#"{"a":1,"b":[1,2],"e":{},"f":[],"s":"q\"é"}"#).unwrap();
            assert_eq!(pretty, "{\n    \"a\": 1,\n    \"b\": [\n        1,\n        2\n    ],\n    \"e\": {\n        \n    },\n    \"f\": [\n        \n    ],\n    \"s\": \"q\\\"\\u00e9\"\n}");
            let mut m = IndexMap::new();
            m.insert(Key(s("a")), Value::Int(1));
            let b = construct(cx, "groovy.json.JsonBuilder", vec![Value::map(m)]).unwrap();
            assert_eq!(b.to_string(), r#"{"a":1}"#);
            assert_eq!(call(cx, &b, "toPrettyString", vec![]).unwrap().to_string(), "{\n    \"a\": 1\n}");
        })
    }

    #[test]
    fn org_json_and_js_json() {
        with_cx(|cx| {
            let o = construct(cx, "org.json.JSONObject", vec![s(r#"{"a":"x","n":5,"o":{"k":[1,2]}}"#)]).unwrap();
            assert_eq!(call(cx, &o, "getString", vec![s("a")]).unwrap().to_string(), "x");
            assert!(matches!(call(cx, &o, "getInt", vec![s("n")]).unwrap(), Value::Int(5)));
            let inner = call(cx, &o, "getJSONObject", vec![s("o")]).unwrap();
            let arr = call(cx, &inner, "getJSONArray", vec![s("k")]).unwrap();
            assert!(matches!(call(cx, &arr, "length", vec![]).unwrap(), Value::Int(2)));
            call(cx, &inner, "put", vec![s("new"), Value::Bool(true)]).unwrap();
            assert_eq!(o.to_string(), r#"{"a":"x","n":5,"o":{"k":[1,2],"new":true}}"#);
            assert!(call(cx, &o, "getString", vec![s("missing")]).is_err());
            assert_eq!(call(cx, &o, "optString", vec![s("missing")]).unwrap().to_string(), "");
            let js = call_static(cx, "JSON", "parse", vec![s(r#"{"a":[1,1.5]}"#)]).unwrap();
            assert_eq!(call_static(cx, "JSON", "stringify", vec![js.clone()]).unwrap().to_string(), r#"{"a":[1,1.5]}"#);
            assert_eq!(
                call_static(cx, "JSON", "stringify", vec![js, Value::Null, Value::Int(2)]).unwrap().to_string(),
                "{\n  \"a\": [\n    1,\n    1.5\n  ]\n}"
            );
        })
    }

    #[test]
    fn json_path_reads_like_jayway() {
        with_cx(|cx| {
            let doc = s(r#"{"store":{"book":[{"title":"A","price":8.95},{"title":"B","price":12}]},"token":"t0k"}"#);
            let read = |cx: &mut Ctx<'_>, p: &str| {
                call_static(cx, "com.jayway.jsonpath.JsonPath", "read", vec![doc.clone(), s(p)])
            };
            assert_eq!(read(cx, "$.token").unwrap().to_string(), "t0k");
            assert_eq!(read(cx, "$.store.book[1].price").unwrap().to_string(), "12");
            assert_eq!(read(cx, "$..title").unwrap().to_string(), "[A, B]");
            assert_eq!(read(cx, "$.store.book[?(@.price > 10)].title").unwrap().to_string(), "[B]");
            assert_eq!(read(cx, "$.nope").unwrap_err().class, "com.jayway.jsonpath.PathNotFoundException");
            assert_eq!(read(cx, "$..nope").unwrap().to_string(), "[]");
            assert_eq!(read(cx, "$.store.book.length()").unwrap().to_string(), "2");
            assert!(matches!(read(cx, "$.store.book[0].price").unwrap(), Value::Double(_)));
            assert!(matches!(read(cx, "$.store.book[1].price").unwrap(), Value::Int(12)));
        })
    }

    #[test]
    fn json_path_parse_and_compile_read_the_document_in_its_order() {
        with_cx(|cx| {
            let jp = "com.jayway.jsonpath.JsonPath";
            let doc = s(r#"{"z":{"y":1,"b":[true,null]},"a":"x"}"#);
            let ctx = call_static(cx, jp, "parse", vec![doc.clone()]).unwrap();
            assert_eq!(call(cx, &ctx, "read", vec![s("$.z")]).unwrap().to_string(), "[y:1, b:[true, null]]");
            assert_eq!(call(cx, &ctx, "read", vec![s("$.z.b[1]")]).unwrap().to_string(), "null");
            assert_eq!(call(cx, &ctx, "read", vec![s("$.*")]).unwrap().to_string(), "[[y:1, b:[true, null]], x]");
            let compiled = call_static(cx, jp, "compile", vec![s("$.a")]).unwrap();
            assert_eq!(call(cx, &compiled, "read", vec![doc.clone()]).unwrap().to_string(), "x");
            assert_eq!(call_static(cx, jp, "read", vec![doc.clone(), compiled.clone()]).unwrap().to_string(), "x");
            assert_eq!(call(cx, &ctx, "read", vec![compiled]).unwrap().to_string(), "x");
            // Checked on Jayway 2.9 (JMeter 5.6.3's): a scan lists each level's before deeper ones.
            let scan = s(r#"{"a":{"id":1,"c":{"id":2}},"id":3,"b":[{"id":4}]}"#);
            assert_eq!(call_static(cx, jp, "read", vec![scan, s("$..id")]).unwrap().to_string(), "[3, 1, 2, 4]");
            let e = call_static(cx, jp, "read", vec![s("{nope"), s("$.a")]).unwrap_err();
            assert_eq!(e.class, "com.jayway.jsonpath.InvalidJsonException");
            let e = call_static(cx, jp, "compile", vec![s("$[")]).unwrap_err();
            assert_eq!(e.class, "com.jayway.jsonpath.InvalidPathException");
        })
    }
}
