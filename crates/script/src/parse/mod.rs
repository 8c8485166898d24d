//! Script text to [`super::ast::Program`], for every dialect; errors at line:column.
//!
//! A hand-written recursive-descent parser over the tokens of `lex`, one for all four
//! dialects: the dialect decides only where the languages differ (Groovy's newlines and command
//! calls, JavaScript's object literals and arrows, JEXL's word operators).
//!
//! # Layout
//! - `mod.rs`: the token cursor, errors, types and the nesting limit.
//! - `stmt.rs`: statements, declarations, functions, imports.
//! - `class.rs`: Groovy class and interface declarations.
//! - `expr.rs`: expressions by precedence, literals, closures, GStrings.
//!
//! Every decision that needs lookahead looks at a bounded run of tokens (a type, a parameter
//! list) or at the precomputed partner of a bracket, so parsing stays linear.

mod class;
mod expr;
mod stmt;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_real;

use super::ast::{Import, Pos, Program, TypeName};
use super::lex::{self, Tok, Token};
use super::{CompileError, Lang};

/// How deeply statements and expressions may nest before a script is refused (hostile input
/// must not overflow the stack). It bounds the depth of the tree too (a chain of operators or
/// calls counts one level per link), so the evaluator's recursion over it is bounded as well.
pub(crate) const MAX_DEPTH: u32 = 256;

/// The stack the parser runs on: [`MAX_DEPTH`] levels of its largest frames (over 20 KB
/// each in an unoptimised build) with room to spare. Only the pages used are ever touched.
const PARSE_STACK: usize = 32 << 20;

/// Scripts of at most this many tokens (`${__jexl3(${n} == 3)}`, which may be compiled per
/// call when its text changes) parse on the caller's thread: each level of nesting takes at
/// least one token, so they cannot nest deeper than a small stack holds.
const INLINE_TOKENS: usize = 32;

/// Parses a whole script.
///
/// Hostile input nests deeply, so a script of more than `INLINE_TOKENS` tokens is parsed on
/// a thread of its own whose stack fits [`MAX_DEPTH`] levels, whatever thread (a 2 MB async
/// worker) the caller is on. Scripts are parsed once, when the plan loads.
pub(crate) fn parse(source: &str, lang: Lang) -> Result<Program, CompileError> {
    let toks = lex::lex(source, lang)?;
    if count_tokens(&toks) <= INLINE_TOKENS {
        return parse_tokens(toks, source, lang);
    }
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("script-parse".into())
            .stack_size(PARSE_STACK)
            .spawn_scoped(scope, || parse_tokens(toks, source, lang));
        match spawned {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(CompileError {
                    pos: Pos { line: 1, col: 1 },
                    message: "the script parser failed".into(),
                    syntax: false,
                })
            }),
            Err(e) => Err(CompileError {
                pos: Pos { line: 1, col: 1 },
                message: format!("cannot start the script parser: {e}"),
                syntax: false,
            }),
        }
    })
}

/// The tokens of a script, those inside `${...}` included.
fn count_tokens(toks: &[Token]) -> usize {
    let inner = |t: &Token| match &t.tok {
        Tok::GStr(parts) => parts
            .iter()
            .map(|p| match p {
                lex::LexPart::Code(code) => count_tokens(code),
                lex::LexPart::Path(names) => names.len(),
                lex::LexPart::Lit(_) => 0,
            })
            .sum(),
        _ => 0,
    };
    toks.iter().map(|t| 1 + inner(t)).sum()
}

fn parse_tokens(toks: Vec<Token>, source: &str, lang: Lang) -> Result<Program, CompileError> {
    let src: Vec<char> = source.chars().collect();
    let mut p = Parser::new(toks, lang, &src, 0);
    let body = p.statements(true)?;
    if !p.at_eof() {
        let t = p.peek().clone();
        return p.fail(&t, "a statement");
    }
    Ok(Program { imports: p.imports, body })
}

type R<T> = Result<T, CompileError>;

/// Java's primitive types (and `void`): a cast to one is recognised whatever follows.
const PRIMITIVES: &[&str] = &["int", "long", "short", "byte", "char", "boolean", "float", "double", "void"];

/// Declaration modifiers, skipped (the interpreter has no use for them).
const MODIFIERS: &[&str] = &[
    "final",
    "static",
    "private",
    "public",
    "protected",
    "synchronized",
    "abstract",
    "transient",
    "volatile",
    "native",
    "strictfp",
];

pub(super) struct Parser<'s> {
    toks: Vec<Token>,
    i: usize,
    lang: Lang,
    src: &'s [char],
    depth: u32,
    /// For each bracket token, the index of its partner (`usize::MAX` when unmatched).
    partner: Vec<usize>,
    imports: Vec<Import>,
    /// Parsing the code of a `${...}` inside a string.
    embedded: bool,
}

impl<'s> Parser<'s> {
    fn new(toks: Vec<Token>, lang: Lang, src: &'s [char], depth: u32) -> Parser<'s> {
        let partner = partners(&toks);
        Parser { toks, i: 0, lang, src, depth, partner, imports: Vec::new(), embedded: false }
    }

    fn groovy(&self) -> bool {
        self.lang == Lang::Groovy
    }

    fn js(&self) -> bool {
        self.lang == Lang::JavaScript
    }

    fn peek(&self) -> &Token {
        self.at(self.i)
    }

    fn at(&self, i: usize) -> &Token {
        // The last token is always `Eof`.
        &self.toks[i.min(self.toks.len() - 1)]
    }

    fn peek_tok(&self) -> &Tok {
        &self.peek().tok
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek_tok(), Tok::Eof)
    }

    fn pos(&self) -> Pos {
        self.peek().pos
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn is_p(&self, p: &str) -> bool {
        matches!(self.peek_tok(), Tok::Punct(q) if *q == p)
    }

    fn is_p_at(&self, i: usize, p: &str) -> bool {
        matches!(&self.at(i).tok, Tok::Punct(q) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek_tok(), Tok::Ident(x) if x == w)
    }

    fn is_word_at(&self, i: usize, w: &str) -> bool {
        matches!(&self.at(i).tok, Tok::Ident(x) if x == w)
    }

    fn word_at(&self, i: usize) -> Option<&str> {
        match &self.at(i).tok {
            Tok::Ident(x) => Some(x),
            _ => None,
        }
    }

    fn eat_p(&mut self, p: &str) -> bool {
        if self.is_p(p) {
            self.bump();
            return true;
        }
        false
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            return true;
        }
        false
    }

    /// Consumes `p` or fails with "expected `p` {after}, found ...".
    fn expect_p(&mut self, p: &str, after: &str) -> R<Token> {
        if self.is_p(p) {
            return Ok(self.bump());
        }
        let t = self.peek().clone();
        self.fail(&t, &format!("`{p}` {after}"))
    }

    /// A name (not a reserved word), or fails naming what it is for.
    fn expect_name(&mut self, what: &str) -> R<String> {
        if let Tok::Ident(w) = self.peek_tok() {
            if !self.reserved(w) {
                let w = w.clone();
                self.bump();
                return Ok(w);
            }
        }
        let t = self.peek().clone();
        self.fail(&t, what)
    }

    fn fail<T>(&self, found: &Token, expected: &str) -> R<T> {
        // The end of a `${...}`'s tokens is its closing brace.
        let found_text = match found.tok {
            Tok::Eof if self.embedded => "`}`".to_string(),
            ref t => describe(t),
        };
        Err(CompileError { pos: found.pos, message: format!("expected {expected}, found {found_text}"), syntax: true })
    }

    fn error<T>(&self, pos: Pos, message: impl Into<String>) -> R<T> {
        Err(CompileError { pos, message: message.into(), syntax: true })
    }

    /// A construct of the language that stampede's scripts do not have (not a syntax error).
    fn unsupported<T>(&self, pos: Pos, message: impl Into<String>) -> R<T> {
        Err(CompileError { pos, message: message.into(), syntax: false })
    }

    /// Enters one level of nesting; fails past [`MAX_DEPTH`].
    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.unsupported(self.pos(), format!("the script nests deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Words that cannot be a variable's name in this dialect.
    fn reserved(&self, w: &str) -> bool {
        const COMMON: &[&str] = &[
            "if",
            "else",
            "while",
            "do",
            "for",
            "switch",
            "case",
            "default",
            "try",
            "catch",
            "finally",
            "return",
            "break",
            "continue",
            "throw",
            "new",
            "class",
            "import",
            "true",
            "false",
            "null",
            "this",
            "instanceof",
            "interface",
            "enum",
        ];
        if COMMON.contains(&w) {
            return true;
        }
        match self.lang {
            Lang::Groovy => matches!(w, "def" | "in" | "as" | "assert" | "trait"),
            Lang::Java | Lang::BeanShell => matches!(w, "assert") || PRIMITIVES.contains(&w),
            Lang::JavaScript => matches!(w, "function" | "var" | "let" | "const" | "typeof" | "in" | "of"),
            Lang::Jexl => {
                matches!(w, "var" | "and" | "or" | "not" | "eq" | "ne" | "lt" | "le" | "gt" | "ge" | "div" | "mod")
            }
        }
    }

    /// The source text between two character indices (for `assert`'s message).
    fn text(&self, start: usize, end: usize) -> String {
        self.src.get(start..end.min(self.src.len())).map(|s| s.iter().collect()).unwrap_or_default()
    }

    /// The end (character index) of the last consumed token.
    fn last_end(&self) -> usize {
        self.at(self.i.saturating_sub(1)).end
    }

    /// If a type starts at token `i` (`a.b.C`, `List<Map<K, V>>`, `int[]`, `String...`),
    /// the index after it and whether it looks like a type on its own (a primitive, a
    /// capitalised last name, type arguments or array brackets).
    fn scan_type(&self, mut i: usize) -> Option<(usize, bool)> {
        let Tok::Ident(first) = &self.at(i).tok else { return None };
        let mut last = first.as_str();
        let mut typeish = PRIMITIVES.contains(&last);
        i += 1;
        while self.is_p_at(i, ".") {
            let Tok::Ident(w) = &self.at(i + 1).tok else { return None };
            last = w;
            i += 2;
        }
        typeish |= last.starts_with(|c: char| c.is_uppercase());
        if self.is_p_at(i, "<") {
            i = self.scan_type_args(i)?;
            typeish = true;
        }
        while self.is_p_at(i, "[") && self.is_p_at(i + 1, "]") {
            i += 2;
            typeish = true;
        }
        if self.is_p_at(i, "...") {
            i += 1;
        }
        Some((i, typeish))
    }

    /// Skips `<...>` at `i`; the index after it.
    fn scan_type_args(&self, mut i: usize) -> Option<usize> {
        let mut depth = 0i32;
        loop {
            match &self.at(i).tok {
                Tok::Punct("<") => depth += 1,
                Tok::Punct(">") => depth -= 1,
                Tok::Punct(">>") => depth -= 2,
                Tok::Punct(">>>") => depth -= 3,
                Tok::Punct("," | "." | "?" | "[" | "]" | "&") | Tok::Ident(_) => {}
                _ => return None,
            }
            i += 1;
            if depth == 0 {
                return Some(i);
            }
            if depth < 0 {
                return None;
            }
        }
    }

    /// Parses a type (consuming it); generic arguments are dropped.
    fn parse_type(&mut self, what: &str) -> R<TypeName> {
        let pos = self.pos();
        let Tok::Ident(first) = self.peek_tok().clone() else {
            let t = self.peek().clone();
            return self.fail(&t, what);
        };
        self.bump();
        let mut name = first;
        while self.is_p(".") && matches!(self.at(self.i + 1).tok, Tok::Ident(_)) {
            self.bump();
            if let Tok::Ident(w) = self.bump().tok {
                name.push('.');
                name.push_str(&w);
            }
        }
        if self.is_p("<") {
            match self.scan_type_args(self.i) {
                Some(end) => self.i = end,
                None => {
                    let t = self.peek().clone();
                    return self.fail(&t, &format!("type arguments closed by `>` after `{name}`"));
                }
            }
        }
        let mut dims = 0u8;
        while self.is_p("[") && self.is_p_at(self.i + 1, "]") {
            self.bump();
            self.bump();
            dims = dims.saturating_add(1);
        }
        if self.eat_p("...") {
            dims = dims.saturating_add(1);
        }
        Ok(TypeName { name, dims, pos })
    }

    /// The index of the bracket partnering the one at `i`.
    fn partner_of(&self, i: usize) -> Option<usize> {
        self.partner.get(i).copied().filter(|&j| j != usize::MAX)
    }
}

/// Pairs every bracket with its partner, in one pass.
fn partners(toks: &[Token]) -> Vec<usize> {
    let mut out = vec![usize::MAX; toks.len()];
    let mut stack: Vec<(usize, &str)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::Punct(p @ ("(" | "[" | "{")) => stack.push((i, p)),
            Tok::Punct(p @ (")" | "]" | "}")) => {
                let open = match p {
                    ")" => "(",
                    "]" => "[",
                    _ => "{",
                };
                if stack.last().is_some_and(|&(_, o)| o == open) {
                    if let Some((j, _)) = stack.pop() {
                        out[i] = j;
                        out[j] = i;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A token as an error message names it.
fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(w) => format!("`{w}`"),
        Tok::Num(_) => "a number".into(),
        Tok::Str(_) | Tok::GStr(_) => "a string".into(),
        Tok::Char(_) => "a character".into(),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Eof => "the end of the script".into(),
    }
}
