//! Java's regex syntax (`java.util.regex.Pattern`) on `fancy-regex`, which reads nearly all
//! of it: what differs is translated here (`\Q...\E` quoting, POSIX classes `\p{Alpha}`,
//! `\h`, `\Z`), and Java's replacement strings (`$1`, `${name}`, `\$`) are expanded here.
//! Compiled patterns are cached per thread: scripts call `replaceAll` in loops.

use super::super::Thrown;
use fancy_regex::{Captures, Regex};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

const CACHE_MAX: usize = 256;

thread_local! {
    static CACHE: RefCell<HashMap<String, Arc<Regex>>> = RefCell::new(HashMap::new());
}

/// A Java pattern, compiled (from the cache when it was compiled before on this thread).
pub(crate) fn java_regex(pattern: &str) -> Result<Arc<Regex>, Thrown> {
    if let Some(r) = CACHE.with(|c| c.borrow().get(pattern).cloned()) {
        return Ok(r);
    }
    let r = Arc::new(
        Regex::new(&translate(pattern))
            .map_err(|e| Thrown::new("java.util.regex.PatternSyntaxException", format!("{e}\n{pattern}")))?,
    );
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_MAX {
            c.clear();
        }
        c.insert(pattern.to_string(), r.clone());
    });
    Ok(r)
}

/// A regex error while matching (the backtracking limit): Java would take as long as needed;
/// we say so instead of returning a wrong answer.
pub(crate) fn match_error(e: fancy_regex::Error) -> Thrown {
    Thrown::new("java.lang.IllegalStateException", format!("regex match failed: {e}"))
}

/// Java syntax → fancy-regex syntax.
fn translate(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 8);
    let mut chars = p.chars().peekable();
    let mut in_class = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    out.push('\\');
                    break;
                };
                match n {
                    'Q' => {
                        // Literal up to `\E`.
                        let mut lit = String::new();
                        while let Some(x) = chars.next() {
                            if x == '\\' && chars.peek() == Some(&'E') {
                                chars.next();
                                break;
                            }
                            lit.push(x);
                        }
                        out.push_str(&fancy_regex::escape(&lit));
                    }
                    'p' | 'P' if chars.peek() == Some(&'{') => {
                        let mut name = String::new();
                        chars.next();
                        for x in chars.by_ref() {
                            if x == '}' {
                                break;
                            }
                            name.push(x);
                        }
                        match posix_class(&name) {
                            Some(cls) => {
                                let neg = if n == 'P' { "^" } else { "" };
                                if in_class > 0 {
                                    if neg.is_empty() {
                                        out.push_str(cls);
                                    } else {
                                        out.push_str(&format!("[^{cls}]"));
                                    }
                                } else {
                                    out.push_str(&format!("[{neg}{cls}]"));
                                }
                            }
                            None => {
                                let name = name.strip_prefix("Is").unwrap_or(&name);
                                out.push_str(&format!("\\{n}{{{name}}}"));
                            }
                        }
                    }
                    'h' if in_class > 0 => out.push_str(H_SPACE),
                    'h' => out.push_str(&format!("[{H_SPACE}]")),
                    'Z' => out.push_str("(?=\\n?\\z)"),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            '[' => {
                in_class += 1;
                out.push('[');
                // `[]...]` and `[^]...]`: a leading `]` is a literal in Java.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str("\\]");
                }
            }
            ']' if in_class > 0 => {
                in_class -= 1;
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

const H_SPACE: &str = "\\t \\x{A0}\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}";

/// Java's POSIX classes (US-ASCII only, as Java's default) as class contents.
fn posix_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "Lower" => "a-z",
        "Upper" => "A-Z",
        "ASCII" => "\\x00-\\x7F",
        "Alpha" => "a-zA-Z",
        "Digit" => "0-9",
        "Alnum" => "a-zA-Z0-9",
        "Punct" => "!-/:-@\\[-`{-~",
        "Graph" => "!-~",
        "Print" => " -~",
        "Blank" => " \\t",
        "Cntrl" => "\\x00-\\x1F\\x7F",
        "XDigit" => "0-9a-fA-F",
        "Space" => " \\t\\n\\x0B\\f\\r",
        "javaLowerCase" => "\\p{Ll}",
        "javaUpperCase" => "\\p{Lu}",
        "javaWhitespace" => "\\s",
        _ => return None,
    })
}

/// Expands a Java replacement string for one match: `$n` and `${name}` are groups (a group
/// that took no part is empty), `\x` is `x`.
pub(crate) fn expand(caps: &Captures<'_, str>, repl: &str, names: &[Option<&str>]) -> Result<String, Thrown> {
    let mut out = String::new();
    let mut chars = repl.chars().peekable();
    let illegal = |m: &str| Thrown::new("java.lang.IllegalArgumentException", m.to_string());
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(x) => out.push(x),
                None => return Err(illegal("character to be escaped is missing")),
            },
            '$' => match chars.peek().copied() {
                Some('{') => {
                    chars.next();
                    let mut name = String::new();
                    for x in chars.by_ref() {
                        if x == '}' {
                            break;
                        }
                        name.push(x);
                    }
                    if !names.contains(&Some(name.as_str())) {
                        return Err(illegal(&format!("No group with name {{{name}}}")));
                    }
                    out.push_str(caps.name(&name).map(|m| m.as_str()).unwrap_or(""));
                }
                Some(d) if d.is_ascii_digit() => {
                    chars.next();
                    let mut n = d as usize - '0' as usize;
                    if n >= caps.len() {
                        return Err(Thrown::new("java.lang.IndexOutOfBoundsException", format!("No group {n}")));
                    }
                    // Java takes more digits while the number stays a group.
                    while let Some(&d2) = chars.peek() {
                        let Some(v) = d2.to_digit(10) else { break };
                        let m = n * 10 + v as usize;
                        if m >= caps.len() {
                            break;
                        }
                        n = m;
                        chars.next();
                    }
                    out.push_str(caps.get(n).map(|m| m.as_str()).unwrap_or(""));
                }
                _ => return Err(illegal("Illegal group reference")),
            },
            _ => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_only_syntax_is_translated() {
        assert!(java_regex(r"\Qa.b\E").unwrap().is_match("a.b").unwrap());
        assert!(!java_regex(r"^\Qa.b\E$").unwrap().is_match("axb").unwrap());
        assert!(java_regex(r"^\p{Alpha}+$").unwrap().is_match("abC").unwrap());
        assert!(java_regex(r"^[\p{Digit}_]+$").unwrap().is_match("1_2").unwrap());
        assert!(java_regex(r"^\P{Digit}$").unwrap().is_match("x").unwrap());
        assert!(java_regex(r"^[]a]+$").unwrap().is_match("]a").unwrap());
        assert!(java_regex(r"a\Z").unwrap().is_match("a\n").unwrap());
        assert!(java_regex(r"(?<=x)y").unwrap().is_match("xy").unwrap());
        assert_eq!(java_regex("(").unwrap_err().class, "java.util.regex.PatternSyntaxException");
    }
}
