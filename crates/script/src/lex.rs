//! Script text to tokens, for every dialect.
//!
//! The lexer knows three things the grammar would otherwise have to: whether a newline came
//! before a token (Groovy ends statements there), whether a `/` starts a regex (Groovy's
//! slashy strings, JavaScript's regex literals: only where an operand is expected, decided by
//! the token before), and the insides of interpolated strings (`"a ${b} $c.d"`, JavaScript's
//! `` `a ${b}` ``), whose embedded code it lexes into tokens of its own for the parser.

use super::ast::{Num, Pos};
use super::{CompileError, Lang};

/// How deep `${ "${ ... }" }` may nest before the script is refused.
const MAX_INTERPOLATION_DEPTH: u32 = 50;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A name or a keyword: the parser tells them apart (keywords depend on the dialect and on
    /// where they stand: `a.class`, `[in: 1]`).
    Ident(String),
    Num(Num),
    /// A string without interpolation.
    Str(String),
    /// `'a'` in BeanShell/Java.
    Char(char),
    /// A string with interpolation.
    GStr(Vec<LexPart>),
    Punct(&'static str),
    Eof,
}

/// A piece of an interpolated string.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LexPart {
    Lit(String),
    /// `${...}`: the tokens inside, ending with `Eof`.
    Code(Vec<Token>),
    /// `$a.b.c`: the names and where each starts.
    Path(Vec<(String, Pos)>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: Pos,
    /// The token's first and one-past-last character index in the script.
    pub start: usize,
    pub end: usize,
    /// A line break came between the previous token and this one.
    pub nl: bool,
}

/// Operators and punctuation, longest first (the lexer takes the first that matches).
const PUNCTS: &[&str] = &[
    ">>>=", "<<=", ">>=", "**=", "===", "!==", "==~", "<=>", "...", "..<", ">>>", "?.", "*.", ".@", ".&", "::", "->",
    "=>", "==", "!=", "<=", ">=", "=~", "!~", "&&", "||", "?:", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
    "^=", "**", "<<", ">>", "..", "(", ")", "[", "]", "{", "}", ";", ",", ".", "=", "<", ">", "!", "~", "?", ":", "+",
    "-", "*", "/", "%", "&", "|", "^", "@",
];

/// Words after which an operand is expected, so a `/` starts a regex.
const OPERAND_BEFORE: &[&str] =
    &["return", "in", "case", "typeof", "throw", "else", "do", "and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge"];

/// Lexes a whole script into tokens ending with `Eof`.
pub(crate) fn lex(source: &str, lang: Lang) -> Result<Vec<Token>, CompileError> {
    let mut lx = Lexer { chars: source.chars().collect(), i: 0, line: 1, col: 1, lang, depth: 0 };
    lx.tokens(false)
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: u32,
    col: u32,
    lang: Lang,
    depth: u32,
}

fn err<T>(pos: Pos, message: impl Into<String>) -> Result<T, CompileError> {
    Err(CompileError { pos, message: message.into(), syntax: true })
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.i + n).copied()
    }

    fn pos(&self) -> Pos {
        Pos { line: self.line, col: self.col }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn starts_with(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(k, c)| self.chars.get(self.i + k) == Some(&c))
    }

    /// Skips spaces and comments; true when a line break was among them.
    fn skip_space(&mut self) -> Result<bool, CompileError> {
        let mut nl = false;
        if self.i == 0 && self.starts_with("#!") {
            while self.peek().is_some_and(|c| c != '\n') {
                self.bump();
            }
        }
        while let Some(c) = self.peek() {
            if c == '\n' {
                nl = true;
                self.bump();
            } else if c.is_whitespace() || c == '\u{feff}' {
                self.bump();
            } else if c == '\\' && matches!(self.peek_at(1), Some('\n')) {
                // A line continuation: the line break does not end the statement.
                self.bump();
                self.bump();
            } else if c == '\\' && self.peek_at(1) == Some('\r') && self.peek_at(2) == Some('\n') {
                self.bump();
                self.bump();
                self.bump();
            } else if self.starts_with("//") {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else if self.starts_with("/*") {
                let pos = self.pos();
                self.bump();
                self.bump();
                loop {
                    if self.starts_with("*/") {
                        self.bump();
                        self.bump();
                        break;
                    }
                    match self.bump() {
                        Some('\n') => nl = true,
                        Some(_) => {}
                        None => return err(pos, "a comment `/*` is never closed by `*/`"),
                    }
                }
            } else {
                break;
            }
        }
        Ok(nl)
    }

    /// Lexes tokens up to the end of the script, or (`in_braces`) up to the `}` closing a
    /// `${`, which it consumes.
    fn tokens(&mut self, in_braces: bool) -> Result<Vec<Token>, CompileError> {
        let mut out: Vec<Token> = Vec::new();
        let mut braces = 0usize;
        let open_pos = self.pos();
        loop {
            let nl = self.skip_space()?;
            let pos = self.pos();
            let start = self.i;
            let Some(c) = self.peek() else {
                if in_braces {
                    return err(open_pos, "`${` is never closed by `}`");
                }
                out.push(Token { tok: Tok::Eof, pos, start, end: start, nl: true });
                return Ok(out);
            };
            if in_braces && c == '}' && braces == 0 {
                self.bump();
                out.push(Token { tok: Tok::Eof, pos, start, end: start, nl: false });
                return Ok(out);
            }
            let operand_expected = operand_expected(out.last());
            let tok = self.token(c, operand_expected)?;
            match tok {
                Tok::Punct("{") => braces += 1,
                Tok::Punct("}") => braces = braces.saturating_sub(1),
                _ => {}
            }
            out.push(Token { tok, pos, start, end: self.i, nl });
        }
    }

    fn token(&mut self, c: char, operand_expected: bool) -> Result<Tok, CompileError> {
        let pos = self.pos();
        let groovy = self.lang == Lang::Groovy;
        if c.is_ascii_digit() || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit())) {
            return self.number();
        }
        if groovy && c == '$' && self.peek_at(1) == Some('/') && operand_expected {
            self.bump();
            self.bump();
            return self.interpolated(pos, Delim::DollarSlashy);
        }
        if is_ident_start(c) {
            let mut s = String::new();
            while let Some(c) = self.peek().filter(|&c| is_ident_char(c)) {
                s.push(c);
                self.bump();
            }
            return Ok(Tok::Ident(s));
        }
        match c {
            '"' => {
                if self.starts_with("\"\"\"") && (groovy || self.lang.is_java_like()) {
                    for _ in 0..3 {
                        self.bump();
                    }
                    // Java's text blocks do not interpolate.
                    if !groovy {
                        return self.plain_triple(pos, "\"\"\"");
                    }
                    return self.interpolated(pos, Delim::Triple('"'));
                }
                self.bump();
                if groovy {
                    return self.interpolated(pos, Delim::Quote('"'));
                }
                self.plain_string(pos, '"')
            }
            '\'' => {
                if groovy && self.starts_with("'''") {
                    for _ in 0..3 {
                        self.bump();
                    }
                    return self.plain_triple(pos, "'''");
                }
                self.bump();
                let s = self.plain_string(pos, '\'')?;
                if self.lang.is_java_like() {
                    if let Tok::Str(text) = &s {
                        let mut it = text.chars();
                        if let (Some(ch), None) = (it.next(), it.next()) {
                            return Ok(Tok::Char(ch));
                        }
                    }
                }
                Ok(s)
            }
            '`' if self.lang == Lang::JavaScript => {
                self.bump();
                self.interpolated(pos, Delim::Backtick)
            }
            '/' if operand_expected && groovy => {
                self.bump();
                self.interpolated(pos, Delim::Slash)
            }
            '/' if operand_expected && self.lang == Lang::JavaScript => self.regex(pos),
            _ => {
                for p in PUNCTS.iter().filter(|p| p.starts_with(c)) {
                    if self.starts_with(p) {
                        // `a*.b` is a spread, `2*.5` a product; `x?.5` would be a ternary.
                        if (*p == "*." || *p == "?.") && !self.peek_at(2).is_some_and(is_ident_start) {
                            continue;
                        }
                        for _ in 0..p.chars().count() {
                            self.bump();
                        }
                        return Ok(Tok::Punct(p));
                    }
                }
                err(pos, format!("unexpected character `{c}`"))
            }
        }
    }

    fn number(&mut self) -> Result<Tok, CompileError> {
        let pos = self.pos();
        let mut text = String::new();
        let radix = if self.peek() == Some('0') && matches!(self.peek_at(1), Some('x' | 'X')) {
            16
        } else if self.peek() == Some('0') && matches!(self.peek_at(1), Some('b' | 'B')) {
            2
        } else {
            10
        };
        let mut fraction = false;
        if radix != 10 {
            self.bump();
            self.bump();
            while let Some(c) = self.peek().filter(|c| c.is_digit(radix) || *c == '_') {
                if c != '_' {
                    text.push(c);
                }
                self.bump();
            }
        } else {
            self.digits(&mut text);
            if self.peek() == Some('.') && self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) {
                fraction = true;
                text.push('.');
                self.bump();
                self.digits(&mut text);
            }
            if matches!(self.peek(), Some('e' | 'E'))
                && (self.peek_at(1).is_some_and(|d| d.is_ascii_digit())
                    || (matches!(self.peek_at(1), Some('+' | '-'))
                        && self.peek_at(2).is_some_and(|d| d.is_ascii_digit())))
            {
                fraction = true;
                text.push('e');
                self.bump();
                if let Some(sign @ ('+' | '-')) = self.peek() {
                    text.push(sign);
                    self.bump();
                }
                self.digits(&mut text);
            }
        }
        if text.is_empty() {
            return err(pos, "expected digits after the number's prefix");
        }
        let suffix = match self.peek() {
            Some(c @ ('l' | 'L' | 'i' | 'I' | 'g' | 'G' | 'd' | 'D' | 'f' | 'F')) if self.lang != Lang::JavaScript => {
                self.bump();
                Some(c.to_ascii_uppercase())
            }
            _ => None,
        };
        if self.peek().is_some_and(is_ident_char) {
            return err(pos, format!("unexpected `{}` after the number `{text}`", self.peek().unwrap_or(' ')));
        }
        // A leading zero means octal in Java and Groovy (`017` is 15).
        // JavaScript reads `09` as decimal (`0${n} < 10` after JMeter substitutes `n`).
        let legacy_js_decimal = self.lang == Lang::JavaScript && !text.chars().all(|c| c.is_digit(8));
        let (text, radix) = if radix == 10 && !fraction && text.len() > 1 && text.starts_with('0') && !legacy_js_decimal
        {
            if !text.chars().all(|c| c.is_digit(8)) {
                return err(pos, format!("`{text}` is not an octal number"));
            }
            (text[1..].to_string(), 8)
        } else {
            (text, radix)
        };
        self.num_value(pos, &text, radix, fraction, suffix).map(Tok::Num)
    }

    fn digits(&mut self, text: &mut String) {
        while let Some(c) = self.peek().filter(|c| c.is_ascii_digit() || *c == '_') {
            if c != '_' {
                text.push(c);
            }
            self.bump();
        }
    }

    fn num_value(
        &self,
        pos: Pos,
        text: &str,
        radix: u32,
        fraction: bool,
        suffix: Option<char>,
    ) -> Result<Num, CompileError> {
        let float = |text: &str| -> Result<f64, CompileError> {
            text.parse::<f64>().or_else(|_| err(pos, format!("`{text}` is not a number")))
        };
        match suffix {
            Some('D') => return float(text).map(Num::Double),
            Some('F') => return float(text).map(Num::Float),
            Some('G') if fraction => return Ok(Num::Decimal(text.to_string())),
            _ => {}
        }
        if fraction {
            if suffix.is_some() {
                return err(pos, format!("`{text}` has a fraction and an integer suffix"));
            }
            return match self.lang {
                Lang::Groovy => Ok(Num::Decimal(text.to_string())),
                _ => float(text).map(Num::Double),
            };
        }
        let Ok(v) = u128::from_str_radix(text, radix) else {
            return err(pos, format!("the number `{text}` is too large"));
        };
        let java_like = self.lang != Lang::Groovy && self.lang != Lang::JavaScript;
        match suffix {
            Some('G') => Ok(Num::BigInt(v.to_string())),
            Some('L') => match i64::try_from(v) {
                Ok(l) => Ok(Num::Long(l)),
                Err(_) if radix != 10 && v <= u128::from(u64::MAX) => Ok(Num::Long(v as u64 as i64)),
                Err(_) => err(pos, format!("the number `{text}` does not fit a long")),
            },
            Some('I') => match i32::try_from(v) {
                Ok(n) => Ok(Num::Int(n)),
                Err(_) => err(pos, format!("the number `{text}` does not fit an int")),
            },
            _ => {
                if let Ok(n) = i32::try_from(v) {
                    Ok(Num::Int(n))
                } else if java_like && radix != 10 && v <= u128::from(u32::MAX) {
                    // Java's `0xFFFFFFFF` is the int -1.
                    Ok(Num::Int(v as u32 as i32))
                } else if let Ok(l) = i64::try_from(v) {
                    Ok(Num::Long(l))
                } else if self.lang == Lang::JavaScript {
                    Ok(Num::Double(v as f64))
                } else if self.lang == Lang::Groovy {
                    Ok(Num::BigInt(v.to_string()))
                } else {
                    err(pos, format!("the number `{text}` does not fit an int"))
                }
            }
        }
    }

    /// A string without interpolation: `'a'`, Java's `"a"`.
    fn plain_string(&mut self, pos: Pos, quote: char) -> Result<Tok, CompileError> {
        let mut s = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => return err(pos, format!("the string starting here is never closed by `{quote}`")),
                Some(c) if c == quote => {
                    self.bump();
                    return Ok(Tok::Str(s));
                }
                Some('\\') => self.escape(&mut s)?,
                Some(c) => {
                    s.push(c);
                    self.bump();
                }
            }
        }
    }

    /// `'''...'''` (Groovy), `\"\"\"...\"\"\"` (Java's text blocks): no interpolation, may span lines.
    fn plain_triple(&mut self, pos: Pos, close: &str) -> Result<Tok, CompileError> {
        let mut s = String::new();
        loop {
            if self.starts_with(close) {
                for _ in 0..3 {
                    self.bump();
                }
                return Ok(Tok::Str(s));
            }
            match self.peek() {
                None => return err(pos, format!("the string starting here is never closed by `{close}`")),
                Some('\\') => self.escape(&mut s)?,
                Some(c) => {
                    s.push(c);
                    self.bump();
                }
            }
        }
    }

    /// A backslash escape, at `\`.
    fn escape(&mut self, s: &mut String) -> Result<(), CompileError> {
        let pos = self.pos();
        self.bump();
        let Some(c) = self.bump() else {
            return err(pos, "a `\\` ends the script");
        };
        let ch = match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            's' => ' ',
            '\\' | '"' | '\'' | '$' | '/' | '`' => c,
            '\n' => return Ok(()),
            'u' => {
                while self.peek() == Some('u') {
                    self.bump();
                }
                let mut v = 0u32;
                for _ in 0..4 {
                    let Some(d) = self.peek().and_then(|d| d.to_digit(16)) else {
                        return err(pos, "expected four hex digits after `\\u`");
                    };
                    v = v * 16 + d;
                    self.bump();
                }
                // A surrogate pair written as two escapes.
                if (0xD800..0xDC00).contains(&v) && self.starts_with("\\u") {
                    let hex: String = self.chars.iter().skip(self.i + 2).take(4).collect();
                    if let Ok(lo) = u32::from_str_radix(&hex, 16) {
                        if (0xDC00..0xE000).contains(&lo) {
                            for _ in 0..6 {
                                self.bump();
                            }
                            v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                        }
                    }
                }
                char::from_u32(v).unwrap_or('\u{fffd}')
            }
            '0'..='7' => {
                let mut v = c.to_digit(8).unwrap_or(0);
                let max = if c <= '3' { 2 } else { 1 };
                for _ in 0..max {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            self.bump();
                        }
                        None => break,
                    }
                }
                char::from_u32(v).unwrap_or('\u{fffd}')
            }
            _ if self.lang == Lang::JavaScript || self.lang == Lang::Jexl => c,
            _ => return err(pos, format!("unknown escape `\\{c}` in a string")),
        };
        s.push(ch);
        Ok(())
    }

    /// A JavaScript regex literal `/re/flags`, at `/`: the pattern as a string.
    fn regex(&mut self, pos: Pos) -> Result<Tok, CompileError> {
        self.bump();
        let mut s = String::new();
        let mut class = false;
        loop {
            match self.bump() {
                None | Some('\n') => return err(pos, "the regular expression starting here is never closed by `/`"),
                Some('\\') => {
                    s.push('\\');
                    if let Some(c) = self.bump() {
                        s.push(c);
                    }
                }
                Some('[') => {
                    class = true;
                    s.push('[');
                }
                Some(']') => {
                    class = false;
                    s.push(']');
                }
                Some('/') if !class => break,
                Some(c) => s.push(c),
            }
        }
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.bump();
        }
        Ok(Tok::Str(s))
    }

    /// An interpolated string, after its opening delimiter.
    fn interpolated(&mut self, pos: Pos, delim: Delim) -> Result<Tok, CompileError> {
        let mut parts: Vec<LexPart> = Vec::new();
        let mut lit = String::new();
        loop {
            if self.at_close(delim) {
                break;
            }
            let Some(c) = self.peek() else {
                return err(pos, format!("the string starting here is never closed by `{}`", delim.close()));
            };
            match c {
                '\n' if matches!(delim, Delim::Quote(_)) => {
                    return err(pos, format!("the string starting here is never closed by `{}`", delim.close()));
                }
                '\\' if delim == Delim::Slash => {
                    // Slashy strings keep backslashes (they are for regexes), except before `/`.
                    self.bump();
                    if self.peek() == Some('/') {
                        self.bump();
                        lit.push('/');
                    } else {
                        lit.push('\\');
                    }
                }
                '\\' if delim != Delim::DollarSlashy => self.escape(&mut lit)?,
                '$' if delim == Delim::DollarSlashy && matches!(self.peek_at(1), Some('$' | '/')) => {
                    self.bump();
                    lit.push(self.bump().unwrap_or('$'));
                }
                '$' if self.peek_at(1) == Some('{') => {
                    self.depth += 1;
                    if self.depth > MAX_INTERPOLATION_DEPTH {
                        return err(self.pos(), "strings nest `${...}` too deeply");
                    }
                    self.bump();
                    self.bump();
                    let toks = self.tokens(true)?;
                    self.depth -= 1;
                    if !lit.is_empty() {
                        parts.push(LexPart::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(LexPart::Code(toks));
                }
                '$' if delim != Delim::Backtick && self.peek_at(1).is_some_and(|c| is_ident_start(c) && c != '$') => {
                    self.bump();
                    let mut names = Vec::new();
                    loop {
                        let npos = self.pos();
                        let mut name = String::new();
                        while let Some(c) = self.peek().filter(|&c| is_ident_char(c) && c != '$') {
                            name.push(c);
                            self.bump();
                        }
                        names.push((name, npos));
                        // `$a.b` goes on through `.name`, not through a final `.`.
                        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| is_ident_start(c) && c != '$') {
                            self.bump();
                        } else {
                            break;
                        }
                    }
                    if !lit.is_empty() {
                        parts.push(LexPart::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(LexPart::Path(names));
                }
                '\r' if self.peek_at(1) == Some('\n') && delim != Delim::Quote('"') => {
                    // Groovy normalises line ends inside multi-line strings.
                    self.bump();
                }
                _ => {
                    lit.push(c);
                    self.bump();
                }
            }
        }
        if !lit.is_empty() {
            parts.push(LexPart::Lit(lit));
        }
        if parts.iter().all(|p| matches!(p, LexPart::Lit(_))) {
            let s: String =
                parts.into_iter().map(|p| if let LexPart::Lit(s) = p { s } else { String::new() }).collect();
            return Ok(Tok::Str(s));
        }
        Ok(Tok::GStr(parts))
    }

    /// At the closing delimiter: consumes it.
    fn at_close(&mut self, delim: Delim) -> bool {
        let close = delim.close();
        if self.starts_with(close) {
            for _ in 0..close.chars().count() {
                self.bump();
            }
            return true;
        }
        false
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Delim {
    Quote(char),
    Triple(char),
    Slash,
    DollarSlashy,
    Backtick,
}

impl Delim {
    fn close(self) -> &'static str {
        match self {
            Delim::Quote(_) => "\"",
            Delim::Triple(_) => "\"\"\"",
            Delim::Slash => "/",
            Delim::DollarSlashy => "/$",
            Delim::Backtick => "`",
        }
    }
}

/// Whether an operand is expected after this token (so `/` starts a regex, not a division).
fn operand_expected(prev: Option<&Token>) -> bool {
    match prev.map(|t| &t.tok) {
        None => true,
        Some(Tok::Ident(w)) => OPERAND_BEFORE.contains(&w.as_str()),
        Some(Tok::Num(_) | Tok::Str(_) | Tok::Char(_) | Tok::GStr(_)) => false,
        Some(Tok::Punct(p)) => !matches!(*p, ")" | "]" | "}" | "++" | "--"),
        Some(Tok::Eof) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str, lang: Lang) -> Vec<Tok> {
        lex(src, lang).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numbers_with_suffixes_and_radixes() {
        let g = |s| toks(s, Lang::Groovy)[0].clone();
        assert_eq!(g("1_000"), Tok::Num(Num::Int(1000)));
        assert_eq!(g("10L"), Tok::Num(Num::Long(10)));
        assert_eq!(g("1.50"), Tok::Num(Num::Decimal("1.50".into())));
        assert_eq!(g("1.5d"), Tok::Num(Num::Double(1.5)));
        assert_eq!(g("2f"), Tok::Num(Num::Float(2.0)));
        assert_eq!(g("0x1F"), Tok::Num(Num::Int(31)));
        assert_eq!(g("017"), Tok::Num(Num::Int(15)));
        assert_eq!(g("0b101"), Tok::Num(Num::Int(5)));
        assert_eq!(g("3000000000"), Tok::Num(Num::Long(3_000_000_000)));
        assert_eq!(g("123456789012345678901234"), Tok::Num(Num::BigInt("123456789012345678901234".into())));
        assert_eq!(g("5G"), Tok::Num(Num::BigInt("5".into())));
        assert_eq!(toks("1.5", Lang::Java)[0], Tok::Num(Num::Double(1.5)));
        assert_eq!(toks("0xFFFFFFFF", Lang::Java)[0], Tok::Num(Num::Int(-1)));
        assert_eq!(toks("1.5", Lang::JavaScript)[0], Tok::Num(Num::Double(1.5)));
        assert_eq!(toks("010 09", Lang::JavaScript)[..2], [Tok::Num(Num::Int(8)), Tok::Num(Num::Int(9))]);
        // `1..3` is a range, `1.toString()` a call.
        assert_eq!(toks("1..3", Lang::Groovy)[1], Tok::Punct(".."));
        assert_eq!(toks("1.abs()", Lang::Groovy)[1], Tok::Punct("."));
        assert!(lex("12abc", Lang::Groovy).is_err());
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(toks(r#""a\tb\u0041\$""#, Lang::Groovy)[0], Tok::Str("a\tbA$".into()));
        assert_eq!(toks("'it''s'", Lang::Groovy)[0], Tok::Str("it".into()));
        assert_eq!(toks("'''a\nb'''", Lang::Groovy)[0], Tok::Str("a\nb".into()));
        assert_eq!(toks("'a'", Lang::Java)[0], Tok::Char('a'));
        assert_eq!(toks("'ab'", Lang::BeanShell)[0], Tok::Str("ab".into()));
        assert_eq!(toks("'a'", Lang::Groovy)[0], Tok::Str("a".into()));
        assert_eq!(toks(r#""$x""#, Lang::Java)[0], Tok::Str("$x".into()));
        assert_eq!(toks("\"\"\"a $x\n\"\"\"", Lang::Java)[0], Tok::Str("a $x\n".into()));
        let e = lex("\"abc\n\"", Lang::Groovy).unwrap_err();
        assert_eq!(e.to_string(), "line 1, column 1: the string starting here is never closed by `\"`");
        assert!(lex(r#""\q""#, Lang::Groovy).is_err());
    }

    #[test]
    fn slashy_only_where_an_operand_is_expected() {
        assert_eq!(toks(r"x = /a\d+\/b/", Lang::Groovy)[2], Tok::Str(r"a\d+/b".into()));
        assert_eq!(toks("a / b / c", Lang::Groovy)[1], Tok::Punct("/"));
        assert_eq!(toks("(a) / 2", Lang::Groovy)[3], Tok::Punct("/"));
        assert_eq!(toks("x = $/a/b$$/$", Lang::Groovy)[2], Tok::Str("a/b$".into()));
        assert_eq!(toks("s.match(/a[/]b/g)", Lang::JavaScript)[4], Tok::Str("a[/]b".into()));
    }

    #[test]
    fn interpolation_parts() {
        let t = toks(r#""a ${b + 1} $c.d. e""#, Lang::Groovy);
        let Tok::GStr(parts) = &t[0] else { panic!("{t:?}") };
        assert_eq!(parts.len(), 5);
        assert_eq!(parts[0], LexPart::Lit("a ".into()));
        let LexPart::Code(code) = &parts[1] else { panic!() };
        assert_eq!(code.len(), 4);
        let LexPart::Path(names) = &parts[3] else { panic!() };
        assert_eq!(names.iter().map(|n| n.0.as_str()).collect::<Vec<_>>(), ["c", "d"]);
        assert_eq!(parts[4], LexPart::Lit(". e".into()));
        // Nested braces and strings inside `${}`.
        let t = toks(r#""${m.collect { "${it}" }.join('}')}!""#, Lang::Groovy);
        assert!(matches!(&t[0], Tok::GStr(p) if p.len() == 2));
        let t = toks("`a ${b} $c`", Lang::JavaScript);
        assert!(matches!(&t[0], Tok::GStr(p) if p.len() == 3));
    }

    #[test]
    fn newlines_and_comments() {
        let t = lex("a // c\n/* x\n */ b /* */ c", Lang::Groovy).unwrap();
        assert!(!t[0].nl);
        assert!(t[1].nl);
        assert!(!t[2].nl);
        assert_eq!(t[2].pos, Pos { line: 3, col: 13 });
        assert!(lex("/* open", Lang::Groovy).is_err());
    }
}
