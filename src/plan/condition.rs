//! Conditions of `if` and `while` steps: this module parses text like `${role} == 'admin' && !(${n} < 3)`
//! once when the plan loads, then evaluates it each time it is used, over whatever type the caller compiles
//! operands (templates) into.
//!
//! The parser is written by hand because no crate evaluates untyped template text by JMeter's rules:
//! compare as numbers when both sides are numbers and as strings otherwise, and treat a lone operand as
//! true when it reads `true`. Operands may also hold `${...}` with quotes, spaces and parentheses inside.

use regex::Regex;
use std::cmp::Ordering;
use std::fmt;

/// Nobody writes conditions this deep on purpose. The limit keeps parsing, evaluating and dropping a
/// hostile condition from overflowing the stack.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub enum Condition<T> {
    /// A lone operand: true when its text, trimmed, is `true` in any case (JMeter's "interpret condition
    /// as variable expression").
    Truthy(T),
    Compare {
        left: T,
        op: CmpOp,
        right: T,
    },
    /// `=~` (or `!~` when `negated`): a regex search in the left operand's text.
    Matches {
        left: T,
        pattern: Pattern,
        negated: bool,
    },
    Not(Box<Condition<T>>),
    And(Vec<Condition<T>>),
    Or(Vec<Condition<T>>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
    NotContains,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Contains => "contains",
            CmpOp::NotContains => "!contains",
        }
    }

    /// Applies the operator to two rendered operands. Orderings and equality are numeric when both
    /// sides read as numbers (so `10 > 9.5` and `200 == 200.0`), byte-wise on the exact text otherwise.
    pub fn apply(self, left: &str, right: &str) -> bool {
        let ord = match self {
            CmpOp::Contains => return left.contains(right),
            CmpOp::NotContains => return !left.contains(right),
            _ => match (number(left), number(right)) {
                (Some(l), Some(r)) => l.partial_cmp(&r),
                _ => Some(left.cmp(right)),
            },
        };
        match self {
            CmpOp::Eq => ord == Some(Ordering::Equal),
            CmpOp::Ne => ord != Some(Ordering::Equal),
            CmpOp::Lt => ord == Some(Ordering::Less),
            CmpOp::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
            CmpOp::Gt => ord == Some(Ordering::Greater),
            CmpOp::Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
            CmpOp::Contains | CmpOp::NotContains => unreachable!("handled above"),
        }
    }
}

/// Rust's float parser also accepts `inf`, `infinity` and `NaN`; a variable holding the word "nan"
/// would then never equal itself, so words are strings here.
fn number(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.bytes().any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') {
        return None;
    }
    t.parse().ok()
}

/// A regex compiled at load time. Two patterns are equal when their source text is, since `Regex`
/// itself has no equality.
#[derive(Clone)]
pub struct Pattern(Regex);

impl Pattern {
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    pub fn regex(&self) -> &Regex {
        &self.0
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern({:?})", self.as_str())
    }
}

/// Parses `src`; `operand` compiles the raw text of each operand (quotes removed, the text between them
/// kept as is, templates included) into a `T`. The pattern to the right of `=~`/`!~` is compiled as a regex
/// instead and never goes through `operand`.
pub fn parse<T>(src: &str, operand: impl FnMut(&str) -> Result<T, String>) -> Result<Condition<T>, String> {
    let mut p = Parser { src, pos: 0, depth: 0, after_lone: false, operand };
    p.skip_ws();
    if p.pos == src.len() {
        return Err(p.err(0, "empty expression"));
    }
    let cond = p.or(None)?;
    p.skip_ws();
    if p.pos < src.len() {
        return Err(if p.rest().starts_with(')') { p.err(p.pos, "unmatched `)`") } else { p.unexpected("the end") });
    }
    Ok(cond)
}

impl<T> Condition<T> {
    /// Evaluates; `render` turns an operand into its current text. `&&` and `||` stop as soon as the
    /// answer is known, so operands they skip are not rendered (rendering may have effects, such as
    /// advancing a counter).
    pub fn eval(&self, render: &mut dyn FnMut(&T) -> String) -> bool {
        match self {
            Condition::Truthy(t) => render(t).trim().eq_ignore_ascii_case("true"),
            Condition::Compare { left, op, right } => {
                let left = render(left);
                op.apply(&left, &render(right))
            }
            Condition::Matches { left, pattern, negated } => pattern.0.is_match(&render(left)) != *negated,
            Condition::Not(c) => !c.eval(render),
            Condition::And(cs) => cs.iter().all(|c| c.eval(render)),
            Condition::Or(cs) => cs.iter().any(|c| c.eval(render)),
        }
    }

    /// Every operand, left to right (the caller checks them, e.g. for unknown variables). A regex pattern
    /// is not an operand.
    pub fn operands(&self) -> Vec<&T> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    /// Every operand, mutably, in the same order as [`Condition::operands`] (to fold constants once the
    /// plan is read).
    pub fn operands_mut(&mut self) -> Vec<&mut T> {
        let mut out = Vec::new();
        self.collect_mut(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a T>) {
        match self {
            Condition::Truthy(t) | Condition::Matches { left: t, .. } => out.push(t),
            Condition::Compare { left, right, .. } => out.extend([left, right]),
            Condition::Not(c) => c.collect(out),
            Condition::And(cs) | Condition::Or(cs) => cs.iter().for_each(|c| c.collect(out)),
        }
    }

    fn collect_mut<'a>(&'a mut self, out: &mut Vec<&'a mut T>) {
        match self {
            Condition::Truthy(t) | Condition::Matches { left: t, .. } => out.push(t),
            Condition::Compare { left, right, .. } => out.extend([left, right]),
            Condition::Not(c) => c.collect_mut(out),
            Condition::And(cs) | Condition::Or(cs) => cs.iter_mut().for_each(|c| c.collect_mut(out)),
        }
    }
}

#[derive(Clone, Copy)]
enum Op {
    Cmp(CmpOp),
    Match { negated: bool },
}

/// Longer symbols first where one is a prefix of another.
const SYMBOLS: [(&str, Op); 8] = [
    ("==", Op::Cmp(CmpOp::Eq)),
    ("=~", Op::Match { negated: false }),
    ("!=", Op::Cmp(CmpOp::Ne)),
    ("!~", Op::Match { negated: true }),
    ("<=", Op::Cmp(CmpOp::Le)),
    (">=", Op::Cmp(CmpOp::Ge)),
    ("<", Op::Cmp(CmpOp::Lt)),
    (">", Op::Cmp(CmpOp::Gt)),
];

const WORDS: [(&str, Op); 2] = [("!contains", Op::Cmp(CmpOp::NotContains)), ("contains", Op::Cmp(CmpOp::Contains))];

/// Positions are byte offsets into `src`; messages turn them into 1-based character columns.
struct Parser<'s, F> {
    src: &'s str,
    pos: usize,
    depth: usize,
    /// Whether the last thing parsed was a lone operand, so an error right after it can say that an
    /// operator would have been welcome there.
    after_lone: bool,
    operand: F,
}

impl<'s, T, F: FnMut(&str) -> Result<T, String>> Parser<'s, F> {
    fn or(&mut self, after: Option<&'static str>) -> Result<Condition<T>, String> {
        let mut items = vec![self.and(after)?];
        while self.eat("||") {
            items.push(self.and(Some("||"))?);
        }
        Ok(if items.len() == 1 { items.pop().expect("one item") } else { Condition::Or(items) })
    }

    fn and(&mut self, after: Option<&'static str>) -> Result<Condition<T>, String> {
        let mut items = vec![self.unary(after)?];
        while self.eat("&&") {
            items.push(self.unary(Some("&&"))?);
        }
        Ok(if items.len() == 1 { items.pop().expect("one item") } else { Condition::And(items) })
    }

    fn unary(&mut self, after: Option<&'static str>) -> Result<Condition<T>, String> {
        self.skip_ws();
        let start = self.pos;
        if self.rest().starts_with('(') {
            self.enter(start)?;
            self.pos += 1;
            let inner = self.or(Some("("))?;
            self.skip_ws();
            if !self.eat(")") {
                return Err(if self.pos == self.src.len() {
                    self.err(start, "unclosed `(`")
                } else {
                    self.unexpected("`)`")
                });
            }
            self.depth -= 1;
            self.after_lone = false;
            return Ok(inner);
        }
        // `!=`, `!~` and `!contains` here are misplaced operators, which `comparison` reports.
        if self.rest().starts_with('!') && self.op_at(self.pos).is_none() {
            self.enter(start)?;
            self.pos += 1;
            let inner = self.unary(Some("!"))?;
            self.depth -= 1;
            return Ok(Condition::Not(Box::new(inner)));
        }
        self.comparison(after)
    }

    fn comparison(&mut self, after: Option<&'static str>) -> Result<Condition<T>, String> {
        let (left_pos, left) = self.operand_text(after)?;
        let left = self.compile(left_pos, &left)?;
        self.skip_ws();
        let Some((op, sym)) = self.op_at(self.pos) else {
            self.after_lone = true;
            return Ok(Condition::Truthy(left));
        };
        self.pos += sym.len();
        self.after_lone = false;
        let (right_pos, right) = self.operand_text(Some(sym))?;
        match op {
            Op::Cmp(op) => Ok(Condition::Compare { left, op, right: self.compile(right_pos, &right)? }),
            Op::Match { negated } => {
                // A pattern rendered per use would be compiled per use, and its errors would only show
                // at run time.
                if right.contains("${") {
                    return Err(self.err(
                        right_pos,
                        format!("the pattern `{right}` after `{sym}` must be a literal regex, not a template"),
                    ));
                }
                let re = Regex::new(&right).map_err(|e| {
                    // The regex crate's message spans several lines (pattern, caret, reason); keep the reason.
                    let e = e.to_string();
                    let reason = e.lines().last().unwrap_or_default().trim_start_matches("error: ");
                    format!("{}: {reason}", self.err(right_pos, format!("invalid regex `{right}` after `{sym}`")))
                })?;
                Ok(Condition::Matches { left, pattern: Pattern(re), negated })
            }
        }
    }

    /// Reads one operand and returns where it starts and its text, quotes removed.
    fn operand_text(&mut self, after: Option<&'static str>) -> Result<(usize, String), String> {
        self.skip_ws();
        let start = self.pos;
        match self.rest().chars().next() {
            Some(q @ ('\'' | '"')) => Ok((start, self.quoted(q)?)),
            Some(_) if !self.stops_bare(start) => Ok((start, self.bare()?)),
            _ => {
                let what = match after {
                    Some(a) => format!("expected an operand after `{a}`"),
                    None => "expected an operand".to_string(),
                };
                Err(self.err(start, format!("{what}, found {}", self.describe(start))))
            }
        }
    }

    fn quoted(&mut self, q: char) -> Result<String, String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = self.rest();
            let mut chars = rest.chars();
            match chars.next() {
                None => return Err(self.err(start, format!("unterminated string (no closing {q})"))),
                Some('\\') if matches!(chars.next(), Some(c) if c == q || c == '\\') => {
                    out.push(rest.as_bytes()[1] as char);
                    self.pos += 2;
                }
                // The template engine reads `\${` as a literal `${`, so it must not be scanned as one here.
                Some('$') if rest.starts_with("${") && !out.ends_with('\\') => {
                    let end = self.template_end(self.pos)?;
                    out.push_str(&self.src[self.pos..end]);
                    self.pos = end;
                }
                Some(c) if c == q => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(c) => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    fn bare(&mut self) -> Result<String, String> {
        let start = self.pos;
        while let Some(c) = self.rest().chars().next() {
            if self.rest().starts_with("${") && !self.src[start..self.pos].ends_with('\\') {
                self.pos = self.template_end(self.pos)?;
            } else if c.is_whitespace() || self.stops_bare(self.pos) {
                break;
            } else {
                self.pos += c.len_utf8();
            }
        }
        Ok(self.src[start..self.pos].to_string())
    }

    /// The end of the `${...}` at `pos`, matched the way the template engine matches it: each `${` opens,
    /// each `}` closes, and nothing else (quotes, parentheses, spaces) counts.
    fn template_end(&self, pos: usize) -> Result<usize, String> {
        let bytes = self.src.as_bytes();
        let (mut depth, mut i) = (0usize, pos);
        while i < bytes.len() {
            if bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'{') {
                depth += 1;
                i += 2;
            } else {
                if bytes[i] == b'}' {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(i + 1);
                    }
                }
                i += 1;
            }
        }
        Err(self.err(pos, "unterminated `${`"))
    }

    /// Whether a bare operand ends at `pos` (whitespace aside). A lone `=` ends it too, so that `a=b`
    /// is reported as a likely typo for `==` rather than read as the text "a=b".
    fn stops_bare(&self, pos: usize) -> bool {
        let rest = &self.src[pos..];
        rest.starts_with(['(', ')', '<', '>', '='])
            || rest.starts_with("&&")
            || rest.starts_with("||")
            || (rest.starts_with('!') && self.op_at(pos).is_some())
    }

    fn op_at(&self, pos: usize) -> Option<(Op, &'static str)> {
        let rest = &self.src[pos..];
        if let Some(&(sym, op)) = SYMBOLS.iter().find(|(sym, _)| rest.starts_with(sym)) {
            return Some((op, sym));
        }
        // `containsX` is a word of its own, not `contains` followed by `X`.
        WORDS.iter().find_map(|&(word, op)| {
            let tail = rest.strip_prefix(word)?;
            (!tail.starts_with(|c: char| c.is_alphanumeric() || c == '_')).then_some((op, word))
        })
    }

    fn compile(&mut self, pos: usize, text: &str) -> Result<T, String> {
        (self.operand)(text)
            .map_err(|m| format!("{m} (operand at column {} in condition `{}`)", self.column(pos), self.src))
    }

    fn enter(&mut self, pos: usize) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(pos, format!("more than {MAX_DEPTH} nested `(` or `!`")));
        }
        Ok(())
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        let found = self.rest().starts_with(token);
        if found {
            self.pos += token.len();
        }
        found
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn rest(&self) -> &'s str {
        &self.src[self.pos..]
    }

    fn column(&self, pos: usize) -> usize {
        self.src[..pos].chars().count() + 1
    }

    fn err(&self, pos: usize, what: impl fmt::Display) -> String {
        format!("{what} at column {} in condition `{}`", self.column(pos), self.src)
    }

    /// The error for a token where only a continuation or `closing` (`)` or the end) may stand.
    fn unexpected(&self, closing: &str) -> String {
        let expected = if self.after_lone { "an operator, `&&`, `||`" } else { "`&&`, `||`" };
        let mut m = self.err(self.pos, format!("expected {expected} or {closing}, found {}", self.describe(self.pos)));
        if self.rest().starts_with('=') && self.op_at(self.pos).is_none() {
            m.push_str("; did you mean `==`?");
        }
        m
    }

    fn describe(&self, pos: usize) -> String {
        let rest = &self.src[pos..];
        if rest.is_empty() {
            return "the end".to_string();
        }
        if let Some((_, sym)) = self.op_at(pos) {
            return format!("operator `{sym}`");
        }
        if let Some(tok) = ["&&", "||", "(", ")"].iter().find(|t| rest.starts_with(**t)) {
            return format!("`{tok}`");
        }
        let word: String =
            rest.chars().take_while(|c| !c.is_whitespace() && !matches!(c, '(' | ')')).take(20).collect();
        format!("`{word}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Nested references come first so they are replaced whole, before their inner `${y}` could be.
    const VARS: &[(&str, &str)] = &[
        ("__P(x,${y})", "px"),
        ("__Random(1, 5)", "3"),
        ("__groovy(vars.get(\"a\") == 'b')", "true"),
        ("role", "admin"),
        ("count", "7"),
        ("token", "abc"),
        ("empty", ""),
        ("status", "200"),
        ("body", "all OK here"),
        ("id", "do_42"),
        ("loggedIn", " TRUE "),
        ("no", "false"),
        ("a", "x y"),
        ("n10", "10"),
        ("n95", "9.5"),
        ("ws", " 5 "),
        ("nan", "nan"),
        ("inf", "inf"),
    ];

    fn render(text: &str) -> String {
        VARS.iter().fold(text.to_string(), |t, (k, v)| t.replace(&format!("${{{k}}}"), v))
    }

    fn parse_str(src: &str) -> Result<Condition<String>, String> {
        parse(src, |s| Ok(s.to_string()))
    }

    fn eval_str(src: &str) -> bool {
        parse_str(src).unwrap_or_else(|e| panic!("{src}: {e}")).eval(&mut |t| render(t))
    }

    #[test]
    fn evaluates() {
        let cases: &[(&str, bool)] = &[
            // each operator, string and numeric
            ("${role} == 'admin'", true),
            ("${role} == \"admin \"", false),
            ("${role} != 'admin'", false),
            ("${role} != 'user'", true),
            ("${count} < 10 && ${token} != ''", true),
            ("${count} < 10 && ${empty} != ''", false),
            ("${count} <= 7", true),
            ("${count} > 7", false),
            ("${count} >= 7", true),
            ("${status} == 200.0", true),
            ("${status} == '200'", true),
            ("${n10} > ${n95}", true),
            ("${n10} < ${n95}", false),
            ("'10' > '9.5'", true),
            ("'abc' < 'abd'", true),
            ("'10' < 'abc'", true),
            ("'b' > 'a'", true),
            ("'a' >= 'a'", true),
            ("'a' <= 'b'", true),
            ("'b' <= 'a'", false),
            ("${ws} == 5", true),
            ("${ws} == ' 5'", true),
            ("${role} == ' admin'", false),
            ("${nan} == 'nan'", true),
            ("${inf} > 5", true),
            ("1e3 == 1000", true),
            ("${a} == 'x y'", true),
            ("'${a}' == \"x y\"", true),
            ("${body} contains 'OK'", true),
            ("${body} contains 'ok'", false),
            ("${body} contains ''", true),
            ("${body} !contains 'KO'", true),
            ("${body}!contains'OK'", false),
            ("${body} contains'here'", true),
            ("${id} =~ '^do_[0-9]+$'", true),
            ("${id} =~ ^do_[0-9]+$", true),
            ("${id}=~'o_4'", true),
            ("${id} =~ '\\d+'", true),
            ("${id} !~ '^x'", true),
            ("${id} !~ 'do'", false),
            // lone operands
            ("${loggedIn}", true),
            ("${no}", false),
            ("true", true),
            ("false", false),
            ("TRUE", true),
            ("'true'", true),
            ("yes", false),
            ("1", false),
            ("contains", false),
            // precedence, negation, grouping
            ("true || false && false", true),
            ("false && true || true", true),
            ("(true || false) && false", false),
            ("!(${status} == 200)", false),
            ("!${status} == 200", false),
            ("!${status} == 201", true),
            ("!true", false),
            ("!!true", true),
            ("! ( false )", true),
            ("!(false || !(true && !false))", true),
            // templates with parentheses, commas, quotes and spaces inside
            ("${__P(x,${y})} == 'px'", true),
            ("${__Random(1, 5)} >= 1 && ${__Random(1, 5)} <= 5", true),
            ("${__groovy(vars.get(\"a\") == 'b')}", true),
            ("'${__groovy(vars.get(\"a\") == 'b')}' == true", true),
            ("(${__Random(1, 5)} == 3)", true),
            // quoting and escapes
            ("'it\\'s' == \"it's\"", true),
            ("\"say \\\"hi\\\"\" contains '\"hi\"'", true),
            ("'a\\\\b' contains '\\\\'", true),
            ("'a\\b' == 'a\\\\b'", true),
            ("'&& || ( ) == !' contains '('", true),
            // whitespace
            ("  ${role}=='admin'  ", true),
            ("\n${count}\t<\t10\n", true),
        ];
        for &(src, want) in cases {
            assert_eq!(eval_str(src), want, "{src}");
        }
    }

    #[test]
    fn structure() {
        let t = |s: &str| Condition::Truthy(s.to_string());
        assert_eq!(
            parse_str("a || b && c").unwrap(),
            Condition::Or(vec![t("a"), Condition::And(vec![t("b"), t("c")])])
        );
        assert_eq!(parse_str("!a && b").unwrap(), Condition::And(vec![Condition::Not(Box::new(t("a"))), t("b")]));
        assert_eq!(
            parse_str("x<=y").unwrap(),
            Condition::Compare { left: "x".into(), op: CmpOp::Le, right: "y".into() }
        );
        // Patterns compare by their text.
        assert_eq!(parse_str("a =~ 'x+'").unwrap(), parse_str("a=~x+").unwrap());
        assert_ne!(parse_str("a =~ 'x+'").unwrap(), parse_str("a =~ 'x*'").unwrap());
    }

    #[test]
    fn operands_keep_templates_whole() {
        let c = parse_str(r#"${__P(x,${y})} == '${__Random(1, 5)}' && ${id} =~ 'x' || !"\${a b}" || z"#).unwrap();
        assert_eq!(c.operands(), ["${__P(x,${y})}", "${__Random(1, 5)}", "${id}", "\\${a b}", "z"]);
        let mut c = c;
        c.operands_mut().into_iter().for_each(|t| t.push('!'));
        assert_eq!(c.operands()[4], "z!");
    }

    #[test]
    fn short_circuits() {
        let cases: &[(&str, usize)] = &[
            ("false && ${x} == 1", 1),
            ("true || ${x}", 1),
            ("${status} == 200 || ${x}", 2),
            ("!(false) || ${x}", 1),
            ("true && false && ${x}", 2),
            ("false || false || true", 3),
        ];
        for &(src, want) in cases {
            let calls = Cell::new(0);
            parse_str(src).unwrap().eval(&mut |t| {
                calls.set(calls.get() + 1);
                render(t)
            });
            assert_eq!(calls.get(), want, "{src}");
        }
    }

    #[test]
    fn errors_say_what_and_where() {
        let deep = format!("{}a{}", "(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
        let cases: &[(&str, &str, usize)] = &[
            ("", "empty expression", 1),
            ("   ", "empty expression", 1),
            ("(${a}", "unclosed `(`", 1),
            ("((a) ", "unclosed `(`", 1),
            ("a)", "unmatched `)`", 2),
            ("(a))", "unmatched `)`", 4),
            ("()", "expected an operand after `(`, found `)`", 2),
            ("'abc", "unterminated string (no closing ')", 1),
            ("${a} == \"x", "unterminated string (no closing \")", 9),
            ("${a", "unterminated `${`", 1),
            ("x == '${__P(a,${b})'", "unterminated `${`", 7),
            ("${a} ==", "expected an operand after `==`, found the end", 8),
            ("${a} contains ", "expected an operand after `contains`, found the end", 15),
            ("${a} &&", "expected an operand after `&&`, found the end", 8),
            ("a || && b", "expected an operand after `||`, found `&&`", 6),
            ("!", "expected an operand after `!`, found the end", 2),
            ("|| a", "expected an operand, found `||`", 1),
            ("== a", "expected an operand, found operator `==`", 1),
            ("!= a", "expected an operand, found operator `!=`", 1),
            ("a == (b)", "expected an operand after `==`, found `(`", 6),
            ("a b", "expected an operator, `&&`, `||` or the end, found `b`", 3),
            ("a == b c", "expected `&&`, `||` or the end, found `c`", 8),
            ("a == b == c", "found operator `==`", 8),
            ("a = b", "found `=`", 3),
            ("a=b", "did you mean `==`?", 2),
            ("(a b)", "expected an operator, `&&`, `||` or `)`, found `b`", 4),
            ("(a == b c)", "expected `&&`, `||` or `)`, found `c`", 9),
            ("${a} =~ '('", "invalid regex `(` after `=~`", 9),
            ("${a} !~ '${b}'", "the pattern `${b}` after `!~` must be a literal regex", 9),
            ("é é", "found `é`", 3),
            (&deep, "nested", MAX_DEPTH + 1),
        ];
        for &(src, what, col) in cases {
            let e = parse_str(src).expect_err(src);
            assert!(e.contains(what), "{src:?}: {e}");
            assert!(e.contains(&format!("at column {col} ")), "{src:?}: {e}");
            assert!(e.contains(&format!("in condition `{src}`")), "{src:?}: {e}");
        }
    }

    #[test]
    fn regex_error_is_one_line() {
        let e = parse_str("${a} =~ '('").unwrap_err();
        assert!(!e.contains('\n') && e.ends_with("unclosed group"), "{e}");
    }

    #[test]
    fn operand_errors_pass_through_with_position() {
        let e =
            parse("a == ${bad}", |s| if s.contains("bad") { Err(format!("unknown {s}")) } else { Ok(()) }).unwrap_err();
        assert_eq!(e, "unknown ${bad} (operand at column 6 in condition `a == ${bad}`)");
    }

    #[test]
    fn fuzz_never_panics() {
        const PIECES: &[&str] = &[
            "$",
            "{",
            "}",
            "(",
            ")",
            "'",
            "\"",
            "\\",
            "!",
            "=",
            "~",
            "<",
            ">",
            "&",
            "|",
            " ",
            "a",
            "1",
            ".",
            ",",
            "é",
            "\t",
            "${",
            "&&",
            "||",
            "==",
            "contains",
            "!contains",
            "true",
            "=~",
            "[",
        ];
        let mut seed: u64 = 0x5eed;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let (mut ok, mut failed) = (0, 0);
        for _ in 0..5000 {
            let len = next() % 16;
            let src: String = (0..len).map(|_| PIECES[next() % PIECES.len()]).collect();
            match parse_str(&src) {
                Ok(c) => {
                    ok += 1;
                    c.eval(&mut |t| t.clone());
                    assert!(!c.operands().is_empty(), "{src:?}");
                }
                Err(e) => {
                    failed += 1;
                    assert!(e.contains(" at column ") && e.contains(&format!("`{src}`")), "{src:?}: {e}");
                }
            }
        }
        // Both paths must actually be exercised for the test to mean anything.
        assert!(ok > 100 && failed > 100, "ok {ok}, failed {failed}");
    }
}
