//! Conditions of `if` and `while` steps: this module parses text like `${role} == 'admin' && !(${n} < 3)`
//! once when the plan loads, then evaluates it each time it is used, over whatever type the caller compiles
//! operands (templates) into.
//!
//! The parser is written by hand because no crate evaluates untyped template text by JMeter's rules:
//! compare as numbers when both sides are numbers and as strings otherwise, and treat a lone operand as
//! true when it reads `true`. Operands may also hold `${...}` with quotes, spaces and parentheses inside.

pub(crate) use super::compare::CmpOp;
use regex::Regex;
use std::fmt;

/// Nobody writes conditions this deep on purpose. The limit keeps parsing, evaluating and dropping a
/// hostile condition from overflowing the stack.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Condition<T> {
    /// A lone operand: true when its text, trimmed, is `true` in any case (JMeter's "interpret condition
    /// as variable expression").
    Truthy(T),
    /// A lone operand that is true unless its text, trimmed, is `false` in any case (the condition of
    /// JMeter's While Controller, which is text: the loop ends only when it reads `false`).
    NotFalse(T),
    /// A While Controller's condition text: as [`Condition::NotFalse`], but text that reads
    /// blank when tested (a function that failed, an empty variable) is JMeter's blank
    /// condition: true on entering the loop, then `last_ok` (`${JMeterThread.last_sample_ok}`)
    /// not reading `false` (WhileController.endOfLoop). [`Condition::eval`] cannot know the
    /// first test: it reads the last sample; the loop's test op handles entering.
    WhileText {
        text: T,
        last_ok: T,
    },
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

/// A regex compiled at load time. Two patterns are equal when their source text is, since `Regex`
/// itself has no equality.
#[derive(Clone)]
pub(crate) struct Pattern(Regex);

impl Pattern {
    pub(crate) fn as_str(&self) -> &str {
        self.0.as_str()
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

/// Why a condition cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ConditionError {
    /// The text is not a condition; the message names the column.
    #[error("{0}")]
    Syntax(String),
    /// An operand did not compile (a template error, in `message`).
    #[error("{message} (operand at column {column} in condition `{src}`)")]
    Operand { message: String, column: usize, src: String },
}

/// Parses `src`; `operand` compiles the raw text of each operand (quotes removed, the text between them
/// kept as is, templates included) into a `T`. The pattern to the right of `=~`/`!~` is compiled as a regex
/// instead and never goes through `operand`.
pub(crate) fn parse<T, E: fmt::Display>(
    src: &str,
    operand: impl FnMut(&str) -> Result<T, E>,
) -> Result<Condition<T>, ConditionError> {
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
    pub(crate) fn eval(&self, render: &mut dyn FnMut(&T) -> String) -> bool {
        match self {
            Condition::Truthy(t) => render(t).trim().eq_ignore_ascii_case("true"),
            Condition::NotFalse(t) => !render(t).trim().eq_ignore_ascii_case("false"),
            Condition::WhileText { text, last_ok } => match render(text).trim() {
                "" => !render(last_ok).trim().eq_ignore_ascii_case("false"),
                t => !t.eq_ignore_ascii_case("false"),
            },
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
    pub(crate) fn operands(&self) -> Vec<&T> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    /// Every operand, mutably, in the same order as [`Condition::operands`] (to fold constants once the
    /// plan is read).
    pub(crate) fn operands_mut(&mut self) -> Vec<&mut T> {
        let mut out = Vec::new();
        self.collect_mut(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a T>) {
        match self {
            Condition::Truthy(t) | Condition::NotFalse(t) | Condition::Matches { left: t, .. } => out.push(t),
            Condition::Compare { left, right, .. } | Condition::WhileText { text: left, last_ok: right } => {
                out.extend([left, right])
            }
            Condition::Not(c) => c.collect(out),
            Condition::And(cs) | Condition::Or(cs) => cs.iter().for_each(|c| c.collect(out)),
        }
    }

    fn collect_mut<'a>(&'a mut self, out: &mut Vec<&'a mut T>) {
        match self {
            Condition::Truthy(t) | Condition::NotFalse(t) | Condition::Matches { left: t, .. } => out.push(t),
            Condition::Compare { left, right, .. } | Condition::WhileText { text: left, last_ok: right } => {
                out.extend([left, right])
            }
            Condition::Not(c) => c.collect_mut(out),
            Condition::And(cs) | Condition::Or(cs) => cs.iter_mut().for_each(|c| c.collect_mut(out)),
        }
    }
}

/// The operators by symbol, longer symbols first where one is a prefix of another. `None` is a
/// regex search (`=~`, and `!~` negated), which compares nothing: it yields a
/// [`Condition::Matches`].
const SYMBOLS: [(&str, Option<CmpOp>); 8] = [
    ("==", Some(CmpOp::Eq)),
    ("=~", None),
    ("!=", Some(CmpOp::Ne)),
    ("!~", None),
    ("<=", Some(CmpOp::Le)),
    (">=", Some(CmpOp::Ge)),
    ("<", Some(CmpOp::Lt)),
    (">", Some(CmpOp::Gt)),
];

const WORDS: [(&str, Option<CmpOp>); 2] =
    [("!contains", Some(CmpOp::NotContains)), ("contains", Some(CmpOp::Contains))];

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

impl<'s, T, E: fmt::Display, F: FnMut(&str) -> Result<T, E>> Parser<'s, F> {
    fn or(&mut self, after: Option<&'static str>) -> Result<Condition<T>, ConditionError> {
        let mut items = vec![self.and(after)?];
        while self.eat("||") {
            items.push(self.and(Some("||"))?);
        }
        Ok(if items.len() == 1 { items.pop().expect("one item") } else { Condition::Or(items) })
    }

    fn and(&mut self, after: Option<&'static str>) -> Result<Condition<T>, ConditionError> {
        let mut items = vec![self.unary(after)?];
        while self.eat("&&") {
            items.push(self.unary(Some("&&"))?);
        }
        Ok(if items.len() == 1 { items.pop().expect("one item") } else { Condition::And(items) })
    }

    fn unary(&mut self, after: Option<&'static str>) -> Result<Condition<T>, ConditionError> {
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

    fn comparison(&mut self, after: Option<&'static str>) -> Result<Condition<T>, ConditionError> {
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
            Some(op) => Ok(Condition::Compare { left, op, right: self.compile(right_pos, &right)? }),
            None => {
                let negated = sym == "!~";
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
                    let m = self.err(right_pos, format!("invalid regex `{right}` after `{sym}`"));
                    ConditionError::Syntax(format!("{m}: {reason}"))
                })?;
                Ok(Condition::Matches { left, pattern: Pattern(re), negated })
            }
        }
    }

    /// Reads one operand and returns where it starts and its text, quotes removed.
    fn operand_text(&mut self, after: Option<&'static str>) -> Result<(usize, String), ConditionError> {
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

    fn quoted(&mut self, q: char) -> Result<String, ConditionError> {
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

    fn bare(&mut self) -> Result<String, ConditionError> {
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
    fn template_end(&self, pos: usize) -> Result<usize, ConditionError> {
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

    fn op_at(&self, pos: usize) -> Option<(Option<CmpOp>, &'static str)> {
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

    fn compile(&mut self, pos: usize, text: &str) -> Result<T, ConditionError> {
        (self.operand)(text).map_err(|m| ConditionError::Operand {
            message: m.to_string(),
            column: self.column(pos),
            src: self.src.to_string(),
        })
    }

    fn enter(&mut self, pos: usize) -> Result<(), ConditionError> {
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

    fn err(&self, pos: usize, what: impl fmt::Display) -> ConditionError {
        ConditionError::Syntax(format!("{what} at column {} in condition `{}`", self.column(pos), self.src))
    }

    /// The error for a token where only a continuation or `closing` (`)` or the end) may stand.
    fn unexpected(&self, closing: &str) -> ConditionError {
        let expected = if self.after_lone { "an operator, `&&`, `||`" } else { "`&&`, `||`" };
        let m = self.err(self.pos, format!("expected {expected} or {closing}, found {}", self.describe(self.pos)));
        if self.rest().starts_with('=') && self.op_at(self.pos).is_none() {
            return ConditionError::Syntax(format!("{m}; did you mean `==`?"));
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
mod tests;
