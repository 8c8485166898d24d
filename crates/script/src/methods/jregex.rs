//! Java's regex syntax (`java.util.regex.Pattern`) on `fancy-regex` (look-around,
//! backreferences): the one translation for `String.split`/`replaceAll`/`matches`, `=~`,
//! `==~` and `Pattern`. What Java writes differently is translated here: `\Q...\E` quoting,
//! ASCII `\d \w \s`, POSIX classes `\p{Alpha}`, `\h`, `\R`, `\Z`, a leading `]` in a class,
//! and `Pattern`'s flags; Java's replacement strings (`$1`, `${name}`, `\$`) are expanded here.
//! Compiled patterns are cached per thread: scripts call `replaceAll` in loops.

use super::super::Thrown;
use fancy_regex::{Captures, Regex};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

const CACHE_MAX: usize = 256;

/// How much of the text a pattern must match: anywhere (`find`), a prefix (`lookingAt`), or
/// all of it (`matches`, `==~`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Anchor {
    Find,
    Prefix,
    Whole,
}

type Key = (String, i64, Anchor);

thread_local! {
    static CACHE: RefCell<HashMap<Key, Arc<Regex>>> = RefCell::new(HashMap::new());
}

/// A Java pattern with no flags, compiled (from the cache when it was compiled before on
/// this thread).
pub(crate) fn java_regex(pattern: &str) -> Result<Arc<Regex>, Thrown> {
    compile(pattern, 0, Anchor::Find)
}

/// A Java pattern with `Pattern`'s flags (`CASE_INSENSITIVE` = 2, ...), anchored as asked;
/// the error is Java's `PatternSyntaxException`.
pub(crate) fn compile(pattern: &str, flags: i64, anchor: Anchor) -> Result<Arc<Regex>, Thrown> {
    let key = (pattern.to_string(), flags, anchor);
    if let Some(r) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(r);
    }
    let body = translate(pattern, flags);
    let src = match anchor {
        Anchor::Find => body,
        Anchor::Prefix => format!("\\A(?:{body})"),
        Anchor::Whole => format!("\\A(?:{body})\\z"),
    };
    let r =
        Arc::new(Regex::new(&src).map_err(|e| {
            Thrown::new("java.util.regex.PatternSyntaxException", format!("{e} near index 0\n{pattern}"))
        })?);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_MAX {
            c.clear();
        }
        c.insert(key, r.clone());
    });
    Ok(r)
}

/// A regex error while matching (the backtracking limit): Java would take as long as needed;
/// we say so instead of returning a wrong answer.
pub(crate) fn match_error(e: fancy_regex::Error) -> Thrown {
    Thrown::new("java.lang.StackOverflowError", format!("the regular expression gave up: {e}"))
}

/// `Pattern`'s flags that have an inline form.
const INLINE_FLAGS: [(i64, char); 4] = [(2, 'i'), (4, 'x'), (8, 'm'), (32, 's')];
/// `Pattern.LITERAL`.
const LITERAL: i64 = 16;

/// Java syntax → fancy-regex syntax.
pub(crate) fn translate(p: &str, flags: i64) -> String {
    if flags & LITERAL != 0 {
        return fancy_regex::escape(p).into_owned();
    }
    let mut out = String::with_capacity(p.len() + 8);
    let inline: String = INLINE_FLAGS.iter().filter(|(bit, _)| flags & bit != 0).map(|(_, c)| *c).collect();
    if !inline.is_empty() {
        out.push_str(&format!("(?{inline})"));
    }
    let mut chars = p.chars().peekable();
    let mut in_class = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let class = in_class > 0;
                match n {
                    'Q' => {
                        // Literal up to `\E` (or the end).
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
                    // Java's \d \w \s are ASCII (without UNICODE_CHARACTER_CLASS).
                    'd' => out.push_str(if class { "0-9" } else { "[0-9]" }),
                    'D' if !class => out.push_str("[^0-9]"),
                    'w' => out.push_str(if class { "a-zA-Z_0-9" } else { "[a-zA-Z_0-9]" }),
                    'W' if !class => out.push_str("[^a-zA-Z_0-9]"),
                    's' => out.push_str(if class { SPACE } else { "[ \\t\\n\\x0B\\f\\r]" }),
                    'S' if !class => out.push_str("[^ \\t\\n\\x0B\\f\\r]"),
                    'h' if class => out.push_str(H_SPACE),
                    'h' => out.push_str(&format!("[{H_SPACE}]")),
                    'R' if !class => out.push_str("(?:\\r\\n|[\\n\\x0B\\f\\r\\x{85}\\x{2028}\\x{2029}])"),
                    'Z' if !class => out.push_str("(?=\\n?\\z)"),
                    'p' | 'P' if chars.peek() == Some(&'{') => {
                        let mut name = String::new();
                        chars.next();
                        let mut closed = false;
                        for x in chars.by_ref() {
                            if x == '}' {
                                closed = true;
                                break;
                            }
                            name.push(x);
                        }
                        let name = name.strip_prefix("Is").unwrap_or(&name);
                        match posix_class(name) {
                            Some(cls) if n == 'p' && class => out.push_str(cls),
                            Some(cls) if n == 'p' => out.push_str(&format!("[{cls}]")),
                            Some(cls) => out.push_str(&format!("[^{cls}]")),
                            // Unclosed: left for the regex compiler to refuse.
                            None => out.push_str(&format!("\\{n}{{{name}{}", if closed { "}" } else { "" })),
                        }
                    }
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
                    chars.next();
                    out.push('^');
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

/// Java's `\s` as class contents.
const SPACE: &str = " \\t\\n\\x0B\\f\\r";
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
        "javaLetter" => "\\p{L}",
        "javaDigit" => "\\p{Nd}",
        "javaLetterOrDigit" => "\\p{L}\\p{Nd}",
        _ => return None,
    })
}

/// Expands a Java replacement string for one match: `$n` and `${name}` are groups (a group
/// that took no part is empty), `\x` is `x`.
pub(crate) fn expand(caps: &Captures<'_, str>, repl: &str, names: &[Option<&str>]) -> Result<String, Thrown> {
    expand_groups(repl, caps.len(), names, |i| caps.get(i).map(|m| m.as_str()))
}

/// [`expand`] over any match: `count` groups (with group 0), their `names`, and `group(i)`
/// the text of group `i` (`None` when it took no part).
pub(crate) fn expand_groups<'t>(
    repl: &str,
    count: usize,
    names: &[Option<&str>],
    group: impl Fn(usize) -> Option<&'t str>,
) -> Result<String, Thrown> {
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
                    let Some(i) = names.iter().position(|n| *n == Some(name.as_str())) else {
                        return Err(illegal(&format!("No group with name {{{name}}}")));
                    };
                    out.push_str(group(i).unwrap_or(""));
                }
                Some(d) if d.is_ascii_digit() => {
                    chars.next();
                    let mut n = d as usize - '0' as usize;
                    if n >= count {
                        return Err(Thrown::new("java.lang.IndexOutOfBoundsException", format!("No group {n}")));
                    }
                    // Java takes more digits while the number stays a group.
                    while let Some(&d2) = chars.peek() {
                        let Some(v) = d2.to_digit(10) else { break };
                        let m = n * 10 + v as usize;
                        if m >= count {
                            break;
                        }
                        n = m;
                        chars.next();
                    }
                    out.push_str(group(n).unwrap_or(""));
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
        // Java's \d and \w are ASCII; \p{Print} has the space.
        assert!(!java_regex(r"\d").unwrap().is_match("٣").unwrap());
        assert!(java_regex(r"^\p{Print}+$").unwrap().is_match("a b").unwrap());
        assert!(java_regex(r"^\p{javaLetter}$").unwrap().is_match("é").unwrap());
    }

    #[test]
    fn bad_patterns_throw_instead_of_panicking() {
        for p in [r"\p{", r"\p{Alpha", r"\P{", "[", r"\Qabc", "\\"] {
            let _ = java_regex(p);
            let _ = compile(p, 2 | 8, Anchor::Whole);
        }
        assert_eq!(java_regex(r"\p{").unwrap_err().class, "java.util.regex.PatternSyntaxException");
        assert!(java_regex(r"^\Qa.b$").unwrap().is_match("a.b$").unwrap());
    }

    #[test]
    fn flags_and_anchors() {
        let whole = compile("b", 8, Anchor::Whole).unwrap();
        // MULTILINE does not make `matches()` match one line of several.
        assert!(!whole.is_match("a\nb").unwrap());
        assert!(compile("B", 2, Anchor::Prefix).unwrap().is_match("bc").unwrap());
        assert!(!compile("c", 0, Anchor::Prefix).unwrap().is_match("bc").unwrap());
        assert!(compile("a.b", 16, Anchor::Whole).unwrap().is_match("a.b").unwrap());
        assert!(!compile("a.b", 16, Anchor::Find).unwrap().is_match("axb").unwrap());
        assert!(compile("a.b", 32, Anchor::Whole).unwrap().is_match("a\nb").unwrap());
    }
}
