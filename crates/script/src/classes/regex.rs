//! Regular expressions in Java's syntax: `Pattern`, `Matcher` (Java's methods and Groovy's:
//! `m[0]`, `m.size()`, `each`, truth), and `=~`. The translation of Java's syntax, the
//! per-thread cache and replacement strings are `methods::jregex`'s (one for the whole
//! interpreter).

use super::{fd, illegal_arg, int_arg, native_base, no_method, no_property, obj, st, str_arg, Class};
use crate::methods::jregex::{self, Anchor};
use crate::value::{lock, Native, Value};
use crate::{Ctx, Thrown};
use fancy_regex::Regex;
use std::sync::{Arc, Mutex, Weak};

const FLAGS: &[(&str, i64)] = &[
    ("UNIX_LINES", 1),
    ("CASE_INSENSITIVE", 2),
    ("COMMENTS", 4),
    ("MULTILINE", 8),
    ("LITERAL", 16),
    ("DOTALL", 32),
    ("UNICODE_CASE", 64),
    ("CANON_EQ", 128),
    ("UNICODE_CHARACTER_CLASS", 256),
];

pub(super) const CLASSES: &[Class] = &[
    Class {
        name: "java.util.regex.Pattern",
        new: None,
        statics: &[st("compile", 1, 2, call_static), st("matches", 2, 2, call_static), st("quote", 1, 1, call_static)],
        fields: &[
            fd("UNIX_LINES", get_static),
            fd("CASE_INSENSITIVE", get_static),
            fd("COMMENTS", get_static),
            fd("MULTILINE", get_static),
            fd("LITERAL", get_static),
            fd("DOTALL", get_static),
            fd("UNICODE_CASE", get_static),
            fd("CANON_EQ", get_static),
            fd("UNICODE_CHARACTER_CLASS", get_static),
        ],
    },
    Class {
        name: "java.util.regex.Matcher",
        new: None,
        statics: &[st("quoteReplacement", 1, 1, call_static)],
        fields: &[],
    },
];

fn get_static(_cx: &mut Ctx<'_>, class: &'static str, name: &str) -> Result<Value, Thrown> {
    match FLAGS.iter().find(|(n, _)| *n == name) {
        Some((_, v)) if class == "java.util.regex.Pattern" => Ok(Value::Int(*v as i32)),
        _ => Err(no_property(class, name)),
    }
}

fn call_static(_cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match (class, method, args.len()) {
        ("java.util.regex.Pattern", "compile", 1 | 2) => {
            let flags = args.get(1).and_then(Value::as_i64).unwrap_or(0);
            Ok(obj(Pattern::new(&str_arg(&args, 0)?, flags)?))
        }
        ("java.util.regex.Pattern", "matches", 2) => {
            let p = Pattern::new(&str_arg(&args, 0)?, 0)?;
            Ok(Value::Bool(p.full(&args[1].to_string())?.is_some()))
        }
        ("java.util.regex.Pattern", "quote", 1) => Ok(Value::str(quote(&str_arg(&args, 0)?))),
        ("java.util.regex.Matcher", "quoteReplacement", 1) => {
            Ok(Value::str(str_arg(&args, 0)?.replace('\\', "\\\\").replace('$', "\\$")))
        }
        _ => Err(no_method(class, method)),
    }
}

/// Java's `Pattern.quote`: `\Q...\E` (a `\E` inside is split out).
pub(crate) fn quote(s: &str) -> String {
    format!("\\Q{}\\E", s.replace("\\E", "\\E\\\\E\\Q"))
}

/// A compiled `Pattern`: its source, flags, and the regex; the anchored forms are built when
/// `matches()` or `lookingAt()` first needs them.
#[derive(Debug)]
struct Pattern {
    src: String,
    flags: i64,
    re: Arc<Regex>,
}

type Groups = Vec<Option<(usize, usize)>>;

impl Pattern {
    fn new(src: &str, flags: i64) -> Result<Pattern, Thrown> {
        Ok(Pattern { src: src.to_string(), flags, re: jregex::compile(src, flags, Anchor::Find)? })
    }

    fn search(re: &Regex, text: &str, from: usize) -> Result<Option<Groups>, Thrown> {
        if from > text.len() {
            return Ok(None);
        }
        let caps = re.captures_from_pos(text, from).map_err(jregex::match_error)?;
        Ok(caps.map(|c| (0..c.len()).map(|i| c.get(i).map(|m| (m.start(), m.end()))).collect()))
    }

    /// The pattern anchored at the start (`lookingAt()`), or at both ends (`matches()`).
    fn anchored(&self, whole: bool) -> Result<Arc<Regex>, Thrown> {
        jregex::compile(&self.src, self.flags, if whole { Anchor::Whole } else { Anchor::Prefix })
    }

    /// The match of the whole text (`matches()`).
    fn full(&self, text: &str) -> Result<Option<Groups>, Thrown> {
        Self::search(&*self.anchored(true)?, text, 0)
    }

    fn names(&self) -> Vec<Option<String>> {
        self.re.capture_names().map(|n| n.map(str::to_string)).collect()
    }

    /// Java's `Pattern.split`: trailing empty strings dropped (limit 0), no leading empty
    /// string for a zero-width match at the start.
    fn split(&self, text: &str, limit: i64) -> Result<Vec<Value>, Thrown> {
        let mut out = Vec::new();
        let mut last = 0;
        let mut from = 0;
        while let Some(g) = Self::search(&self.re, text, from)? {
            let (s, e) = g[0].unwrap_or((0, 0));
            if limit > 0 && out.len() as i64 >= limit - 1 {
                break;
            }
            if e == 0 && s == 0 {
                from = next_char(text, 0);
                continue;
            }
            if s == e && s >= text.len() {
                break;
            }
            out.push(Value::str(&text[last..s]));
            last = e;
            from = if s == e { next_char(text, e) } else { e };
        }
        out.push(Value::str(&text[last..]));
        if limit == 0 {
            while out.len() > 1 && out.last().is_some_and(|v| v.to_string().is_empty()) {
                out.pop();
            }
            if out.len() == 1 && text.is_empty() {
                return Ok(vec![Value::str("")]);
            }
        }
        Ok(out)
    }
}

fn next_char(text: &str, i: usize) -> usize {
    i + text[i..].chars().next().map(char::len_utf8).unwrap_or(1)
}

impl Native for Pattern {
    native_base!("java.util.regex.Pattern");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("matcher", 1) => Ok(Matcher::value(
                Pattern { src: self.src.clone(), flags: self.flags, re: self.re.clone() },
                args[0].to_string(),
            )),
            ("pattern" | "toString", 0) => Ok(Value::str(self.src.as_str())),
            ("flags", 0) => Ok(Value::Int(self.flags as i32)),
            ("split" | "splitAsStream", 1 | 2) => {
                let limit = args.get(1).and_then(Value::as_i64).unwrap_or(0);
                Ok(Value::array(self.split(&args[0].to_string(), limit)?))
            }
            ("asPredicate" | "asMatchPredicate", 0) => Err(no_method("java.util.regex.Pattern", method)),
            _ => Err(no_method("java.util.regex.Pattern", method)),
        }
    }
    fn to_string(&self) -> String {
        self.src.clone()
    }
}

/// A `Matcher`: the pattern, the text, the current match and where the next `find` starts.
#[derive(Debug)]
struct Matcher {
    pattern: Pattern,
    names: Vec<Option<String>>,
    state: Mutex<MatchState>,
    me: Weak<Matcher>,
}

#[derive(Debug, Default)]
struct MatchState {
    text: String,
    groups: Option<Groups>,
    /// Where the next `find()` starts (Java's "append position" logic).
    next: usize,
}

/// `text =~ pattern`.
pub(super) fn matcher(pattern: &str, text: &str) -> Result<Value, Thrown> {
    Ok(Matcher::value(Pattern::new(pattern, 0)?, text.to_string()))
}

impl Matcher {
    fn value(pattern: Pattern, text: String) -> Value {
        let names = pattern.names();
        Value::Object(Arc::new_cyclic(|me| Matcher {
            pattern,
            names,
            state: Mutex::new(MatchState { text, ..Default::default() }),
            me: me.clone(),
        }))
    }

    fn this(&self) -> Value {
        self.me.upgrade().map(|a| Value::Object(a as Arc<dyn Native>)).unwrap_or(Value::Null)
    }

    fn find(&self, st: &mut MatchState) -> Result<bool, Thrown> {
        let g = Pattern::search(&self.pattern.re, &st.text, st.next)?;
        if let Some(g) = &g {
            let (s, e) = g[0].unwrap_or((0, 0));
            st.next = if s == e { next_char(&st.text, e) } else { e };
        } else {
            st.next = st.text.len() + 1;
        }
        st.groups = g;
        Ok(st.groups.is_some())
    }

    /// Every match from the start, as Groovy's iterator gives them: the whole match, or a
    /// list `[whole, g1, ...]` when the pattern has groups.
    fn all(&self, text: &str) -> Result<Vec<Value>, Thrown> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(g) = Pattern::search(&self.pattern.re, text, from)? {
            let (s, e) = g[0].unwrap_or((0, 0));
            from = if s == e { next_char(text, e) } else { e };
            let strs: Vec<Value> =
                g.iter().map(|m| m.map(|(a, b)| Value::str(&text[a..b])).unwrap_or(Value::Null)).collect();
            out.push(if strs.len() > 1 { Value::list(strs) } else { strs.into_iter().next().unwrap_or(Value::Null) });
            if from > text.len() {
                break;
            }
        }
        Ok(out)
    }

    fn group_index(&self, v: &Value) -> Result<usize, Thrown> {
        match v {
            Value::Str(name) => self
                .names
                .iter()
                .position(|n| n.as_deref() == Some(name))
                .ok_or_else(|| illegal_arg(format!("No group with name <{name}>"))),
            other => {
                let i = other.as_i64().ok_or_else(|| illegal_arg("a group number or name was expected"))?;
                usize::try_from(i)
                    .ok()
                    .filter(|i| *i < self.names.len())
                    .ok_or_else(|| Thrown::new("java.lang.IndexOutOfBoundsException", format!("No group {i}")))
            }
        }
    }
}

/// Java's replacement string (`$1`, `${name}`, `\x`) for one match.
fn expand(repl: &str, text: &str, groups: &Groups, names: &[Option<String>]) -> Result<String, Thrown> {
    let names: Vec<Option<&str>> = names.iter().map(Option::as_deref).collect();
    jregex::expand_groups(repl, groups.len(), &names, |i| groups.get(i).copied().flatten().map(|(a, b)| &text[a..b]))
}

fn char_index(text: &str, byte: usize) -> Value {
    Value::Int(text[..byte.min(text.len())].chars().count() as i32)
}

impl Native for Matcher {
    native_base!("java.util.regex.Matcher");
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut st = lock(&self.state);
        let no_match = || Thrown::new("java.lang.IllegalStateException", "No match found");
        match (method, args.len()) {
            ("find" | "asBoolean", 0) => Ok(Value::Bool(self.find(&mut st)?)),
            ("find", 1) => {
                let from = int_arg(&args, 0)?;
                let byte = super::lang::char_offset(&st.text, from)
                    .ok_or_else(|| Thrown::new("java.lang.IndexOutOfBoundsException", "Illegal start index"))?;
                st.next = byte;
                Ok(Value::Bool(self.find(&mut st)?))
            }
            ("matches" | "lookingAt", 0) => {
                let re = self.pattern.anchored(method == "matches")?;
                st.groups = Pattern::search(&re, &st.text, 0)?;
                if let Some((_, e)) = st.groups.as_ref().and_then(|g| g[0]) {
                    st.next = e;
                }
                Ok(Value::Bool(st.groups.is_some()))
            }
            ("group", 0 | 1) => {
                let i = if args.is_empty() { 0 } else { self.group_index(&args[0])? };
                let g = st.groups.as_ref().ok_or_else(no_match)?;
                Ok(g.get(i).copied().flatten().map(|(a, b)| Value::str(&st.text[a..b])).unwrap_or(Value::Null))
            }
            ("start" | "end", 0 | 1) => {
                let i = if args.is_empty() { 0 } else { self.group_index(&args[0])? };
                let g = st.groups.as_ref().ok_or_else(no_match)?;
                Ok(match g.get(i).copied().flatten() {
                    Some((a, b)) => char_index(&st.text, if method == "start" { a } else { b }),
                    None => Value::Int(-1),
                })
            }
            ("groupCount", 0) => Ok(Value::Int(self.names.len() as i32 - 1)),
            ("hasGroup", 0) => Ok(Value::Bool(self.names.len() > 1)),
            ("reset", 0 | 1) => {
                if let Some(t) = args.first() {
                    st.text = t.to_string();
                }
                st.groups = None;
                st.next = 0;
                drop(st);
                Ok(self.this())
            }
            ("replaceAll" | "replaceFirst", 1) => {
                let text = st.text.clone();
                let mut out = String::new();
                let (mut last, mut from) = (0, 0);
                while let Some(g) = Pattern::search(&self.pattern.re, &text, from)? {
                    let (s, e) = g[0].unwrap_or((0, 0));
                    out.push_str(&text[last..s]);
                    match &args[0] {
                        f @ Value::Closure(_) => {
                            let strs: Vec<Value> = g
                                .iter()
                                .map(|m| m.map(|(a, b)| Value::str(&text[a..b])).unwrap_or(Value::Null))
                                .collect();
                            let arg = if strs.len() > 1 { Value::list(strs) } else { strs[0].clone() };
                            out.push_str(&cx.call_value(f, vec![arg])?.to_string());
                        }
                        r => out.push_str(&expand(&r.to_string(), &text, &g, &self.names)?),
                    }
                    last = e;
                    from = if s == e { next_char(&text, e) } else { e };
                    if method == "replaceFirst" || from > text.len() {
                        break;
                    }
                }
                out.push_str(&text[last.min(text.len())..]);
                st.groups = None;
                st.next = 0;
                Ok(Value::str(out))
            }
            ("getAt", 1) => {
                let all = self.all(&st.text)?;
                let n = all.len() as i64;
                let i = int_arg(&args, 0)?;
                let idx = if i < 0 { i + n } else { i };
                if idx < 0 || idx >= n {
                    return Err(Thrown::new(
                        "java.lang.IndexOutOfBoundsException",
                        format!("index is out of range {}..{} (index = {i})", -n, n - 1),
                    ));
                }
                Ok(all[idx as usize].clone())
            }
            ("size" | "getCount", 0) => Ok(Value::Int(self.all(&st.text)?.len() as i32)),
            ("each" | "collect" | "findAll" | "toList", _) => {
                let all = self.all(&st.text)?;
                drop(st);
                match (method, args.first()) {
                    ("toList", None) => Ok(Value::list(all)),
                    ("each", Some(f)) => {
                        for m in all {
                            cx.call_value(f, vec![m])?;
                        }
                        Ok(self.this())
                    }
                    ("collect", Some(f)) => {
                        let mut out = Vec::new();
                        for m in all {
                            out.push(cx.call_value(f, vec![m])?);
                        }
                        Ok(Value::list(out))
                    }
                    ("findAll", None) => Ok(Value::list(all)),
                    _ => Err(no_method("java.util.regex.Matcher", method)),
                }
            }
            ("pattern", 0) => Ok(obj(Pattern {
                src: self.pattern.src.clone(),
                flags: self.pattern.flags,
                re: self.pattern.re.clone(),
            })),
            ("hitEnd", 0) => Ok(Value::Bool(st.next >= st.text.len())),
            ("toString", 0) => Ok(Value::str(format!(
                "java.util.regex.Matcher[pattern={} region=0,{} lastmatch=]",
                self.pattern.src,
                st.text.chars().count()
            ))),
            _ => Err(no_method("java.util.regex.Matcher", method)),
        }
    }
    fn get(&self, cx: &mut Ctx<'_>, name: &str) -> Result<Value, Thrown> {
        match name {
            "count" => self.call(cx, "getCount", Vec::new()),
            _ => Err(no_property("java.util.regex.Matcher", name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::call_static;
    use super::super::testing::{call, s, with_cx};
    use super::*;

    #[test]
    fn matcher_finds_groups_as_java_does() {
        with_cx(|cx| {
            let m = matcher(r#""token":"(\w+)""#, r#"{"token":"abc123","x":1}"#).unwrap();
            assert_eq!(call(cx, &m, "find", vec![]).to_string(), "true");
            assert_eq!(call(cx, &m, "group", vec![Value::Int(1)]).to_string(), "abc123");
            assert_eq!(call(cx, &m, "start", vec![Value::Int(1)]).to_string(), "10");
            assert_eq!(call(cx, &m, "groupCount", vec![]).to_string(), "1");
            assert_eq!(call(cx, &m, "find", vec![]).to_string(), "false");
            // Groovy: m[0] is [whole, g1] with groups; m.size() counts matches.
            assert_eq!(call(cx, &m, "getAt", vec![Value::Int(0)]).to_string(), r#"["token":"abc123", abc123]"#);
            let m2 = matcher(r"\d+", "a1b22c333").unwrap();
            assert_eq!(call(cx, &m2, "size", vec![]).to_string(), "3");
            assert_eq!(call(cx, &m2, "getAt", vec![Value::Int(-1)]).to_string(), "333");
            assert_eq!(call(cx, &m2, "replaceAll", vec![s("<$0>")]).to_string(), "a<1>b<22>c<333>");
            let named = matcher(r"(?<year>\d{4})-(?<mon>\d\d)", "on 2026-11").unwrap();
            assert_eq!(call(cx, &named, "find", vec![]).to_string(), "true");
            assert_eq!(call(cx, &named, "group", vec![s("mon")]).to_string(), "11");
            let g = matcher("x", "y").unwrap();
            let Value::Object(o) = &g else { panic!() };
            assert_eq!(o.call(cx, "group", vec![]).unwrap_err().class, "java.lang.IllegalStateException");
        })
    }

    #[test]
    fn patterns_with_flags_and_java_syntax() {
        with_cx(|cx| {
            let ci = call_static(cx, "java.util.regex.Pattern", "CASE_INSENSITIVE", vec![]).is_err();
            assert!(ci, "a field is not a method");
            let p =
                call_static(cx, "java.util.regex.Pattern", "compile", vec![s("^hello\\s\\p{Alpha}+$"), Value::Int(2)])
                    .unwrap();
            let m = call(cx, &p, "matcher", vec![s("HELLO World")]);
            assert_eq!(call(cx, &m, "matches", vec![]).to_string(), "true");
            assert_eq!(
                call_static(cx, "java.util.regex.Pattern", "matches", vec![s("\\d+"), s("123")]).unwrap().to_string(),
                "true"
            );
            assert_eq!(
                call_static(cx, "java.util.regex.Pattern", "matches", vec![s("\\d+"), s("123a")]).unwrap().to_string(),
                "false"
            );
            // \d is ASCII in Java.
            assert_eq!(
                call_static(cx, "java.util.regex.Pattern", "matches", vec![s("\\d"), s("٣")]).unwrap().to_string(),
                "false"
            );
            let q = call_static(cx, "java.util.regex.Pattern", "quote", vec![s("a.b")]).unwrap().to_string();
            assert_eq!(q, "\\Qa.b\\E");
            assert_eq!(
                call_static(cx, "java.util.regex.Pattern", "matches", vec![s(&q), s("axb")]).unwrap().to_string(),
                "false"
            );
            let sp = call_static(cx, "java.util.regex.Pattern", "compile", vec![s(",")]).unwrap();
            assert_eq!(call(cx, &sp, "split", vec![s("a,b,,c,,")]).to_string(), "[a, b, , c]");
            assert!(call_static(cx, "java.util.regex.Pattern", "compile", vec![s("(unclosed")]).is_err());
            let m = matcher("(a)(b)?", "a").unwrap();
            assert_eq!(call(cx, &m, "find", vec![]).to_string(), "true");
            assert!(call(cx, &m, "group", vec![Value::Int(2)]).is_null());
        })
    }
}
