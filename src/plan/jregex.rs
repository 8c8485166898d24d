//! Regular expressions as JMeter reads them: Perl5 syntax (JMeter's default engine is Jakarta
//! ORO). Most patterns compile with the `regex` crate, which is fast and never backtracks; the
//! few it refuses because they need backtracking (look-ahead, backreferences) compile with
//! `fancy-regex`. A `{` that does not open a repetition is a literal, as in Perl5; look-behind
//! and named groups are errors, as in ORO.

use serde::{Serialize, Serializer};

/// A compiled pattern and its source text.
#[derive(Debug, Clone)]
pub(crate) enum Pattern {
    Plain(regex::Regex),
    /// Look-around or backreferences: a backtracking engine.
    Fancy(fancy_regex::Regex),
}

impl From<regex::Regex> for Pattern {
    fn from(r: regex::Regex) -> Pattern {
        Pattern::Plain(r)
    }
}

impl PartialEq for Pattern {
    fn eq(&self, o: &Pattern) -> bool {
        self.as_str() == o.as_str()
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Pattern {
    /// A Perl5 pattern; the error is the `regex` crate's message when neither engine takes it.
    pub(crate) fn perl5(src: &str) -> Result<Pattern, String> {
        // ORO's Perl5 has look-ahead but neither look-behind nor named groups.
        if opens_look_behind_or_name(src) {
            return Err("`(?<` (look-behind or a named group) is not Perl5 syntax".into());
        }
        let src = literal_braces(src);
        match regex::Regex::new(&src) {
            Ok(r) => Ok(Pattern::Plain(r)),
            Err(e) => fancy_regex::Regex::new(&src).map(Pattern::Fancy).map_err(|_| e.to_string()),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            Pattern::Plain(r) => r.as_str(),
            Pattern::Fancy(r) => r.as_str(),
        }
    }

    /// How many groups, counting group 0 (the whole match).
    pub(crate) fn captures_len(&self) -> usize {
        match self {
            Pattern::Plain(r) => r.captures_len(),
            Pattern::Fancy(r) => r.captures_len(),
        }
    }

    /// Whether the pattern matches somewhere in the text. A backtracking match that gives up
    /// (its step limit) is no match.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        match self {
            Pattern::Plain(r) => r.is_match(text),
            Pattern::Fancy(r) => r.is_match(text).unwrap_or(false),
        }
    }

    /// Every match, left to right, as its groups (index 0 the whole match; `None` for a group
    /// that took no part).
    pub(crate) fn captures_all<'t>(&self, text: &'t str) -> Vec<Vec<Option<&'t str>>> {
        match self {
            Pattern::Plain(r) => {
                r.captures_iter(text).map(|c| c.iter().map(|m| m.map(|m| m.as_str())).collect()).collect()
            }
            Pattern::Fancy(r) => r
                .captures_iter(text)
                .map_while(Result::ok)
                .map(|c| c.iter().map(|m| m.map(|m| m.as_str())).collect())
                .collect(),
        }
    }
}

/// Whether a group opens with `(?<` (look-behind or a named group): a `(` escaped or in a
/// character class is a literal, and `\(?<` an optional `(` then `<`.
fn opens_look_behind_or_name(src: &str) -> bool {
    let (mut escaped, mut in_class) = (false, false);
    for (i, ch) in src.char_indices() {
        match ch {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class && src[i..].starts_with("(?<") => return true,
            _ => {}
        }
    }
    false
}

/// The pattern with each `{` that does not open a repetition (`{n}`, `{n,}`, `{n,m}`) escaped:
/// Perl5 reads such a brace as itself, the `regex` crate refuses it.
fn literal_braces(src: &str) -> std::borrow::Cow<'_, str> {
    if !src.contains('{') {
        return src.into();
    }
    let repetition = |rest: &str| -> bool {
        let Some(end) = rest.find('}') else { return false };
        let inner = &rest[1..end];
        let (a, b) = inner.split_once(',').unwrap_or((inner, "0"));
        !a.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit())
    };
    let mut out = String::with_capacity(src.len() + 4);
    let mut escaped = false;
    let mut in_class = false;
    for (i, ch) in src.char_indices() {
        if escaped {
            escaped = false;
            out.push(ch);
            continue;
        }
        match ch {
            '\\' => escaped = true,
            '[' => in_class = true,
            ']' => in_class = false,
            // A repetition follows something to repeat; `{` first or after `(` or `|` is literal.
            '{' if !in_class && (!repetition(&src[i..]) || i == 0 || src[..i].ends_with(['(', '|'])) => {
                out.push_str("\\{");
                continue;
            }
            _ => {}
        }
        out.push(ch);
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_patterns_use_the_regex_crate() {
        let p = Pattern::perl5(r"id=(\d+)").unwrap();
        assert!(matches!(p, Pattern::Plain(_)));
        assert_eq!(p.captures_all("id=1 id=22"), vec![vec![Some("id=1"), Some("1")], vec![Some("id=22"), Some("22")]]);
    }

    #[test]
    fn look_ahead_and_backreferences_use_fancy_regex() {
        let p = Pattern::perl5(r#"(["'])(.*?)\1"#).unwrap();
        assert!(matches!(p, Pattern::Fancy(_)));
        assert_eq!(p.captures_all(r#"x='a"b' y"#)[0][2], Some("a\"b"));
        assert!(Pattern::perl5(r"foo(?!bar)").unwrap().is_match("foobaz"));
        assert!(!Pattern::perl5(r"foo(?!bar)").unwrap().is_match("foobar"));
    }

    #[test]
    fn look_behind_and_named_groups_are_not_perl5() {
        // JMeter 5.6.3 logs "Error in pattern" for both and leaves the default.
        assert!(Pattern::perl5(r"(?<=token=)\w+").is_err());
        assert!(Pattern::perl5(r"(?<id>\d+)").is_err());
        // An escaped `(` or one in a class opens no group: `\(?<` is an optional `(` then `<`.
        assert!(Pattern::perl5(r"\(?<b>").unwrap().is_match("(<b>"));
        assert!(Pattern::perl5(r"[(?<]+x").unwrap().is_match("?<x"));
        assert!(Pattern::perl5(r"\\(?<=a)b").is_err(), "an escaped backslash then a look-behind");
    }

    #[test]
    fn a_brace_that_opens_no_repetition_is_literal() {
        let p = Pattern::perl5(r"^(00000000|{0,|{315,|22060000)").unwrap();
        assert!(p.is_match("{315,rest"));
        assert!(Pattern::perl5(r"a{2}").unwrap().is_match("aa"));
        assert!(!Pattern::perl5(r"^a{2}$").unwrap().is_match("a{2}"));
        assert!(Pattern::perl5(r#"\{"id":\d{1,3}"#).unwrap().is_match(r#"{"id":12"#));
        assert!(Pattern::perl5(r#"{"id":"#).unwrap().is_match(r#"{"id":1}"#));
    }

    #[test]
    fn what_no_engine_takes_is_an_error() {
        assert!(Pattern::perl5("*global*").is_err());
        assert!(Pattern::perl5("(unclosed").is_err());
    }
}
