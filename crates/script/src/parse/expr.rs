//! Expressions, by precedence (lowest first): assignment, `?:` and elvis, `||`, `&&`, `|`,
//! `^`, `&`, equality and matching, relational (`in`, `instanceof`, `as`), ranges, shifts,
//! `+ -`, `* / %`, unary, `**`, postfix (member access, calls, indexing), primaries.

use std::sync::Arc;

use super::super::ast::{BinOp, Body, Expr, ExprKind, Param, Part, Pos, Stmt, StmtKind, TypeName, UnOp};
use super::super::lex::{LexPart, Tok, Token};
use super::super::Lang;
use super::{Parser, PRIMITIVES, R};

/// A binary operator as the precedence climber sees it.
#[derive(Clone, Copy)]
enum Op {
    Bin(BinOp),
    /// JEXL's `!~`: not matching.
    NotFind,
    InstanceOf(bool),
    As,
    Range(bool),
}

const OR: u8 = 1;
const AND: u8 = 2;
const BIT_OR: u8 = 3;
const BIT_XOR: u8 = 4;
const BIT_AND: u8 = 5;
const EQUALITY: u8 = 6;
const RELATIONAL: u8 = 7;
const RANGE: u8 = 8;
const SHIFT: u8 = 9;
const ADDITIVE: u8 = 10;
const MULTIPLICATIVE: u8 = 11;

/// How far ahead a closure's parameter list (`{ String a, b -> `) is looked for.
const MAX_PARAM_SCAN: usize = 64;

fn bx(e: Expr) -> Box<Expr> {
    Box::new(e)
}

impl Parser<'_> {
    /// A whole expression, assignments included.
    pub(super) fn expr(&mut self) -> R<Expr> {
        self.enter()?;
        let lhs = self.unary()?;
        let r = self.expr_rest(lhs);
        self.leave();
        r
    }

    /// An expression statement's expression: in Groovy, `name args` and `a.b args` without
    /// parentheses are command calls (`log.info "x"`, `vars.put "k", v`).
    pub(super) fn statement_expr(&mut self) -> R<Expr> {
        if !self.groovy() || !matches!(self.peek_tok(), Tok::Ident(w) if !self.reserved(w)) {
            return self.expr();
        }
        self.enter()?;
        let e = self.unary()?;
        let r = if self.command_arg_ahead() && matches!(e.kind, ExprKind::Ident(_) | ExprKind::Property { .. }) {
            let pos = e.pos;
            let (target, name, safe, spread) = match e.kind {
                ExprKind::Property { target, name, safe, spread } => (Some(target), name, safe, spread),
                ExprKind::Ident(name) => (None, name, false, false),
                _ => (None, String::new(), false, false),
            };
            let mut named = Vec::new();
            let mut args = Vec::new();
            loop {
                self.arg(&mut named, &mut args)?;
                if !self.eat_p(",") {
                    break;
                }
            }
            if !named.is_empty() {
                args.insert(0, Expr { kind: ExprKind::Map(named), pos });
            }
            Ok(Expr { kind: ExprKind::Call { target, name, args, safe, spread }, pos })
        } else {
            self.expr_rest(e)
        };
        self.leave();
        r
    }

    /// Whether the next token, on the same line, starts a command call's first argument.
    fn command_arg_ahead(&self) -> bool {
        let t = self.peek();
        if t.nl {
            return false;
        }
        match &t.tok {
            Tok::Ident(w) => {
                !matches!(w.as_str(), "in" | "as" | "instanceof")
                    && (!self.reserved(w) || matches!(w.as_str(), "true" | "false" | "null" | "this" | "new"))
            }
            Tok::Num(_) | Tok::Str(_) | Tok::GStr(_) | Tok::Char(_) => true,
            // `println !done`; `-` and `[` continue the expression (`x -1`, `x[1]`), as in Groovy.
            Tok::Punct("!") => !(self.is_word_at(self.i + 1, "instanceof") || self.is_word_at(self.i + 1, "in")),
            _ => false,
        }
    }

    /// The rest of an expression whose first operand is parsed: binary operators, `?:`,
    /// assignment.
    fn expr_rest(&mut self, lhs: Expr) -> R<Expr> {
        let cond = self.binary(lhs, OR)?;
        let pos = cond.pos;
        if self.is_p("?") {
            self.bump();
            let then = self.expr()?;
            self.expect_p(":", "after the `?` branch of the conditional")?;
            let els = self.expr()?;
            return Ok(Expr { kind: ExprKind::Ternary { cond: bx(cond), then: bx(then), els: bx(els) }, pos });
        }
        if self.is_p("?:") {
            self.bump();
            let right = self.expr()?;
            return Ok(Expr { kind: ExprKind::Elvis { left: bx(cond), right: bx(right) }, pos });
        }
        if let Tok::Punct(p) = self.peek_tok() {
            if let Some(op) = assign_op(p) {
                if !matches!(cond.kind, ExprKind::Ident(_) | ExprKind::Property { .. } | ExprKind::Index { .. }) {
                    return self.error(self.pos(), format!("cannot assign to the expression before `{p}`"));
                }
                self.bump();
                let value = self.expr()?;
                return Ok(Expr { kind: ExprKind::Assign { target: bx(cond), op, value: bx(value) }, pos });
            }
        }
        Ok(cond)
    }

    /// The binary operator ahead: precedence, operator, tokens it takes.
    fn binop_ahead(&self) -> Option<(u8, Op, usize)> {
        let t = self.peek();
        let groovy = self.groovy();
        let jexl = self.lang == Lang::Jexl;
        let bin = |prec, op| Some((prec, Op::Bin(op), 1));
        match &t.tok {
            // In Groovy a line starting with `+`/`-` is a new statement (`+x`).
            Tok::Punct("+" | "-") if t.nl && groovy => None,
            Tok::Punct(p) => match *p {
                "||" => bin(OR, BinOp::Or),
                "&&" => bin(AND, BinOp::And),
                "|" => bin(BIT_OR, BinOp::BitOr),
                "^" => bin(BIT_XOR, BinOp::BitXor),
                "&" => bin(BIT_AND, BinOp::BitAnd),
                "==" => bin(EQUALITY, BinOp::Eq),
                "!=" => bin(EQUALITY, BinOp::Ne),
                "===" => bin(EQUALITY, BinOp::StrictEq),
                "!==" => bin(EQUALITY, BinOp::StrictNe),
                "<=>" if !self.js() => bin(EQUALITY, BinOp::Cmp),
                "=~" if !self.js() => bin(EQUALITY, BinOp::Find),
                "==~" if groovy => bin(EQUALITY, BinOp::Match),
                "!~" if jexl => Some((EQUALITY, Op::NotFind, 1)),
                "<" => bin(RELATIONAL, BinOp::Lt),
                "<=" => bin(RELATIONAL, BinOp::Le),
                ">" => bin(RELATIONAL, BinOp::Gt),
                ">=" => bin(RELATIONAL, BinOp::Ge),
                "!" if groovy && !t.nl => {
                    // `!in`, `!instanceof`, written without a space.
                    let next = self.at(self.i + 1);
                    if next.start != t.end {
                        return None;
                    }
                    match &next.tok {
                        Tok::Ident(w) if w == "in" => Some((RELATIONAL, Op::Bin(BinOp::NotIn), 2)),
                        Tok::Ident(w) if w == "instanceof" => Some((RELATIONAL, Op::InstanceOf(true), 2)),
                        _ => None,
                    }
                }
                ".." if groovy => Some((RANGE, Op::Range(false), 1)),
                "..<" if groovy => Some((RANGE, Op::Range(true), 1)),
                "<<" => bin(SHIFT, BinOp::Shl),
                ">>" => bin(SHIFT, BinOp::Shr),
                ">>>" => bin(SHIFT, BinOp::UShr),
                "+" => bin(ADDITIVE, BinOp::Add),
                "-" => bin(ADDITIVE, BinOp::Sub),
                "*" => bin(MULTIPLICATIVE, BinOp::Mul),
                "/" => bin(MULTIPLICATIVE, BinOp::Div),
                "%" => bin(MULTIPLICATIVE, BinOp::Rem),
                _ => None,
            },
            Tok::Ident(w) => match w.as_str() {
                "instanceof" if !jexl => Some((RELATIONAL, Op::InstanceOf(false), 1)),
                "in" if groovy || self.js() => bin(RELATIONAL, BinOp::In),
                "as" if groovy => Some((RELATIONAL, Op::As, 1)),
                "or" if jexl => bin(OR, BinOp::Or),
                "and" if jexl => bin(AND, BinOp::And),
                "eq" if jexl => bin(EQUALITY, BinOp::Eq),
                "ne" if jexl => bin(EQUALITY, BinOp::Ne),
                "lt" if jexl => bin(RELATIONAL, BinOp::Lt),
                "le" if jexl => bin(RELATIONAL, BinOp::Le),
                "gt" if jexl => bin(RELATIONAL, BinOp::Gt),
                "ge" if jexl => bin(RELATIONAL, BinOp::Ge),
                "div" if jexl => bin(MULTIPLICATIVE, BinOp::Div),
                "mod" if jexl => bin(MULTIPLICATIVE, BinOp::Rem),
                _ => None,
            },
            _ => None,
        }
    }

    /// Precedence climbing from `lhs`: operators binding at least as tight as `min`.
    fn binary(&mut self, mut lhs: Expr, min: u8) -> R<Expr> {
        // Each operator nests the tree one level deeper (`a + b + c` is `(a + b) + c`): the
        // links count toward the nesting limit, which bounds the tree's depth.
        let mut links = 0;
        while let Some((prec, op, ntok)) = self.binop_ahead() {
            if prec < min {
                break;
            }
            self.enter()?;
            links += 1;
            for _ in 0..ntok {
                self.bump();
            }
            let pos = lhs.pos;
            let kind = match op {
                Op::InstanceOf(negated) => {
                    let ty = self.parse_type("a type after `instanceof`")?;
                    ExprKind::InstanceOf { expr: bx(lhs), ty, negated }
                }
                Op::As => {
                    let ty = self.parse_type("a type after `as`")?;
                    ExprKind::Cast { ty, expr: bx(lhs), coerce: true }
                }
                Op::Range(exclusive) => {
                    let rhs = self.operand(prec)?;
                    ExprKind::Range { from: bx(lhs), to: bx(rhs), exclusive }
                }
                Op::NotFind => {
                    let rhs = self.operand(prec)?;
                    let find = Expr { kind: ExprKind::Binary { op: BinOp::Find, left: bx(lhs), right: bx(rhs) }, pos };
                    ExprKind::Unary { op: UnOp::Not, expr: bx(find) }
                }
                Op::Bin(op) => {
                    let rhs = self.operand(prec)?;
                    ExprKind::Binary { op, left: bx(lhs), right: bx(rhs) }
                }
            };
            lhs = Expr { kind, pos };
        }
        for _ in 0..links {
            self.leave();
        }
        Ok(lhs)
    }

    /// The right operand of a left-associative operator of precedence `prec`.
    fn operand(&mut self, prec: u8) -> R<Expr> {
        self.enter()?;
        let rhs = self.unary()?;
        let r = self.binary(rhs, prec + 1);
        self.leave();
        r
    }

    /// Prefix operators and casts, then `**` and postfix.
    pub(super) fn unary(&mut self) -> R<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.leave();
        r
    }

    fn unary_inner(&mut self) -> R<Expr> {
        let pos = self.pos();
        let un = |op, e: Expr| Expr { kind: ExprKind::Unary { op, expr: bx(e) }, pos };
        let op = match self.peek_tok() {
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("+") => Some(UnOp::Plus),
            Tok::Punct("~") => Some(UnOp::BitNot),
            Tok::Ident(w) if w == "typeof" && self.js() => Some(UnOp::TypeOf),
            Tok::Ident(w) if w == "not" && self.lang == Lang::Jexl => Some(UnOp::Not),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let e = self.unary()?;
            return Ok(un(op, e));
        }
        if self.is_p("!~") {
            self.bump();
            let e = self.unary()?;
            return Ok(un(UnOp::Not, un(UnOp::BitNot, e)));
        }
        if self.is_p("++") || self.is_p("--") {
            let inc = self.is_p("++");
            self.bump();
            let target = self.unary()?;
            return Ok(Expr { kind: ExprKind::IncDec { target: bx(target), inc, prefix: true }, pos });
        }
        if self.is_p("(") && !self.js() {
            if let Some(ty) = self.cast_ahead() {
                let ty = ty?;
                let e = self.unary()?;
                return Ok(Expr { kind: ExprKind::Cast { ty, expr: bx(e), coerce: false }, pos });
            }
        }
        self.power()
    }

    /// `(Type) operand`: the type (consumed with its parentheses), or `None` (nothing consumed)
    /// for a parenthesised expression.
    fn cast_ahead(&mut self) -> Option<R<TypeName>> {
        let close = self.partner_of(self.i)?;
        let (end, typeish) = self.scan_type(self.i + 1)?;
        if end != close || !typeish {
            return None;
        }
        let primitive = matches!(self.word_at(self.i + 1), Some(w) if PRIMITIVES.contains(&w)) && end == self.i + 2;
        let next = self.at(close + 1);
        if next.nl && self.groovy() {
            return None;
        }
        let operand = match &next.tok {
            Tok::Ident(w) => {
                !matches!(w.as_str(), "in" | "as" | "instanceof")
                    && (!self.reserved(w) || matches!(w.as_str(), "true" | "false" | "null" | "this" | "new"))
            }
            Tok::Num(_) | Tok::Str(_) | Tok::GStr(_) | Tok::Char(_) => true,
            Tok::Punct("(" | "!" | "~") => true,
            Tok::Punct("[") => self.groovy(),
            Tok::Punct("-" | "+" | "++" | "--") => primitive,
            _ => false,
        };
        if !operand {
            return None;
        }
        self.bump();
        let ty = self.parse_type("a type");
        self.i = close + 1;
        Some(ty)
    }

    /// `a ** b` (binds tighter than unary minus, right-associative).
    fn power(&mut self) -> R<Expr> {
        let base = self.postfix()?;
        if self.is_p("**") && !(self.peek().nl && self.groovy()) {
            self.bump();
            let exp = self.unary()?;
            let pos = base.pos;
            return Ok(Expr { kind: ExprKind::Binary { op: BinOp::Pow, left: bx(base), right: bx(exp) }, pos });
        }
        Ok(base)
    }

    /// Whether a token that continues an expression on a new line does so here (Groovy ends
    /// the statement at the line break instead, except for `.` and friends).
    fn same_line(&self) -> bool {
        !(self.peek().nl && self.groovy())
    }

    /// A primary, then member access, calls, indexing, postfix `++`/`--`.
    fn postfix(&mut self) -> R<Expr> {
        // `(f)(x)` calls the value of `f`; `f(x)` calls the function `f`.
        let parenthesised = self.is_p("(");
        let mut e = self.primary()?;
        // Like binary operators, each link nests the tree deeper and counts toward the limit.
        let mut links = 0u32;
        loop {
            self.enter()?;
            links += 1;
            let pos = e.pos;
            let tok = self.peek_tok().clone();
            match tok {
                Tok::Punct(p @ ("." | "?." | "*." | ".@")) => {
                    self.bump();
                    let (safe, spread) = (p == "?.", p == "*.");
                    let name = self.member_name()?;
                    if name == "class" && p == "." {
                        if let Some(ty) = type_of_chain(&e, 0) {
                            e = Expr { kind: ExprKind::ClassLit(ty), pos };
                            continue;
                        }
                    }
                    if p != ".@" && ((self.is_p("(") && self.same_line()) || self.trailing_closure_ahead()) {
                        let args = self.call_args(&name)?;
                        let target = Some(bx(e));
                        e = Expr { kind: ExprKind::Call { target, name, args, safe, spread }, pos };
                    } else {
                        e = Expr { kind: ExprKind::Property { target: bx(e), name, safe, spread }, pos };
                    }
                }
                Tok::Punct(".&" | "::") => {
                    self.bump();
                    let name = if self.eat_word("new") { "new".to_string() } else { self.member_name()? };
                    e = Expr { kind: ExprKind::MethodRef { target: bx(e), name }, pos };
                }
                Tok::Punct("(") if self.same_line() => {
                    e = match e.kind {
                        ExprKind::Ident(name) if !(parenthesised && links == 1) => {
                            let args = self.call_args(&name)?;
                            Expr { kind: ExprKind::Call { target: None, name, args, safe: false, spread: false }, pos }
                        }
                        kind => {
                            let callee = Expr { kind, pos };
                            let args = self.call_args("the value")?;
                            Expr { kind: ExprKind::CallValue { callee: bx(callee), args }, pos }
                        }
                    };
                }
                Tok::Punct("{") if matches!(e.kind, ExprKind::Ident(_)) && self.trailing_closure_ahead() => {
                    let ExprKind::Ident(name) = e.kind else { unreachable!("matched above") };
                    let args = self.call_args(&name)?;
                    e = Expr { kind: ExprKind::Call { target: None, name, args, safe: false, spread: false }, pos };
                }
                Tok::Punct("[") if self.same_line() => {
                    if self.is_p_at(self.i + 1, "]") {
                        // `String[].class`
                        let mut dims = 0u8;
                        while self.is_p("[") && self.is_p_at(self.i + 1, "]") {
                            self.bump();
                            self.bump();
                            dims = dims.saturating_add(1);
                        }
                        let ty = type_of_chain(&e, dims);
                        if let (Some(ty), true, true) = (ty, self.is_p("."), self.is_word_at(self.i + 1, "class")) {
                            self.bump();
                            self.bump();
                            e = Expr { kind: ExprKind::ClassLit(ty), pos };
                            continue;
                        }
                        let t = self.peek().clone();
                        return self.fail(&t, "an index inside `[]`");
                    }
                    self.bump();
                    let index = self.expr()?;
                    self.expect_p("]", "after the index")?;
                    e = Expr { kind: ExprKind::Index { target: bx(e), index: bx(index), safe: false }, pos };
                }
                Tok::Punct("?") if self.safe_index_ahead() => {
                    self.bump();
                    self.bump();
                    let index = self.expr()?;
                    self.expect_p("]", "after the index")?;
                    e = Expr { kind: ExprKind::Index { target: bx(e), index: bx(index), safe: true }, pos };
                }
                Tok::Punct(p @ ("++" | "--")) if !self.peek().nl || self.lang.is_java_like() => {
                    self.bump();
                    e = Expr { kind: ExprKind::IncDec { target: bx(e), inc: p == "++", prefix: false }, pos };
                }
                _ => {
                    for _ in 0..links {
                        self.leave();
                    }
                    return Ok(e);
                }
            }
        }
    }

    /// `a?[i]`, written without spaces (`a ? [1] : [2]` is a conditional).
    fn safe_index_ahead(&self) -> bool {
        let q = self.peek();
        let prev = self.at(self.i.saturating_sub(1));
        let next = self.at(self.i + 1);
        self.groovy() && prev.end == q.start && self.is_p_at(self.i + 1, "[") && next.start == q.end
    }

    /// A Groovy closure passed after a call without parentheses: `list.each { ... }`.
    fn trailing_closure_ahead(&self) -> bool {
        self.groovy() && self.is_p("{") && !self.peek().nl
    }

    /// The name after `.`: any word (`a.class`, `m.in`), or a quoted name (`a.'b-c'`).
    fn member_name(&mut self) -> R<String> {
        match self.peek_tok().clone() {
            Tok::Ident(w) | Tok::Str(w) => {
                self.bump();
                Ok(w)
            }
            _ => {
                let t = self.peek().clone();
                self.fail(&t, "a name after `.`")
            }
        }
    }

    /// `(args)` and, in Groovy, trailing closures: the arguments of a call to `name`.
    fn call_args(&mut self, name: &str) -> R<Vec<Expr>> {
        let mut named = Vec::new();
        let mut args = Vec::new();
        let pos = self.pos();
        if self.eat_p("(") {
            self.enter()?;
            while !self.is_p(")") {
                self.arg(&mut named, &mut args)?;
                if !self.eat_p(",") {
                    break;
                }
            }
            self.leave();
            self.expect_p(")", &format!("after the arguments of `{name}`"))?;
        }
        if !named.is_empty() {
            args.insert(0, Expr { kind: ExprKind::Map(named), pos });
        }
        while self.trailing_closure_ahead() {
            args.push(self.closure()?);
        }
        Ok(args)
    }

    /// One argument: `key: value` (Groovy named argument, into `named`) or an expression.
    fn arg(&mut self, named: &mut Vec<(Expr, Expr)>, args: &mut Vec<Expr>) -> R<()> {
        if self.groovy() && self.is_p_at(self.i + 1, ":") {
            if let Some(key) = self.map_key() {
                self.bump();
                named.push((key, self.expr()?));
                return Ok(());
            }
        }
        if self.is_p("*") && self.groovy() {
            return self.unsupported(self.pos(), "spread arguments `*list` are not supported");
        }
        args.push(self.expr()?);
        Ok(())
    }

    /// A map key written as a bare word, a string or a number (consumed), when one is here.
    fn map_key(&mut self) -> Option<Expr> {
        let t = self.peek().clone();
        let kind = match t.tok {
            Tok::Ident(w) => ExprKind::Str(w),
            Tok::Str(s) => ExprKind::Str(s),
            Tok::Num(n) => ExprKind::Num(n),
            Tok::GStr(_) => return None,
            _ => return None,
        };
        self.bump();
        Some(Expr { kind, pos: t.pos })
    }

    fn primary(&mut self) -> R<Expr> {
        let t = self.peek().clone();
        let pos = t.pos;
        let lit = |kind| Ok(Expr { kind, pos });
        match t.tok {
            Tok::Num(n) => {
                self.bump();
                lit(ExprKind::Num(n))
            }
            Tok::Str(s) => {
                self.bump();
                lit(ExprKind::Str(s))
            }
            Tok::Char(c) => {
                self.bump();
                lit(ExprKind::Char(c))
            }
            Tok::GStr(parts) => {
                self.bump();
                let parts = self.gstring(parts)?;
                lit(ExprKind::GString(parts))
            }
            Tok::Ident(w) => self.word(w, pos),
            Tok::Punct("(") => {
                if let Some(close) = self.partner_of(self.i) {
                    let arrow = if self.js() { "=>" } else { "->" };
                    if self.is_p_at(close + 1, arrow) {
                        self.bump();
                        let params = self.params(")")?;
                        self.expect_p(")", "after the lambda's parameters")?;
                        self.bump();
                        return self.lambda_body(params, pos);
                    }
                }
                self.bump();
                let e = self.expr()?;
                self.expect_p(")", "closing the parenthesis")?;
                Ok(e)
            }
            Tok::Punct("[") => self.list_or_map(),
            Tok::Punct("{") => match self.lang {
                Lang::Groovy => self.closure(),
                Lang::JavaScript | Lang::Jexl => self.object_literal(),
                Lang::Java | Lang::BeanShell => self.array_init(),
            },
            Tok::Punct("@") if self.groovy() => {
                self.skip_annotation();
                self.primary()
            }
            _ => self.fail(&t, "an expression"),
        }
    }

    /// A word in operand position: a literal keyword, `new`, `function`, a lambda, a name.
    fn word(&mut self, w: String, pos: Pos) -> R<Expr> {
        let lit = |kind| Ok(Expr { kind, pos });
        match w.as_str() {
            "true" | "false" => {
                self.bump();
                return lit(ExprKind::Bool(w == "true"));
            }
            "null" => {
                self.bump();
                return lit(ExprKind::Null);
            }
            "this" => {
                self.bump();
                return lit(ExprKind::This);
            }
            "new" if !(self.lang == Lang::Jexl && self.is_p_at(self.i + 1, "(")) => return self.new_expr(),
            "function" if self.js() => {
                self.bump();
                let name = match self.peek_tok() {
                    Tok::Ident(n) if !self.reserved(n) => n.clone(),
                    _ => "function".to_string(),
                };
                if name != "function" {
                    self.bump();
                }
                let body = self.function_rest(&name)?;
                return lit(ExprKind::Closure(body));
            }
            "class" | "interface" | "enum" => {
                return self.unsupported(pos, "a class declaration is a statement of the script's top level")
            }
            _ => {}
        }
        if self.reserved(&w) && !(self.lang == Lang::Jexl && w == "new") {
            let t = self.peek().clone();
            return self.fail(&t, "an expression");
        }
        self.bump();
        // `x -> ...` (Java lambda), `x => ...` (JavaScript arrow).
        let arrow = if self.js() { "=>" } else { "->" };
        if self.is_p(arrow) && self.lang != Lang::Jexl {
            self.bump();
            let params = vec![Param { name: w, ty: None, default: None }];
            return self.lambda_body(params, pos);
        }
        lit(ExprKind::Ident(w))
    }

    /// The body of a lambda or arrow function, after its arrow.
    fn lambda_body(&mut self, params: Vec<Param>, pos: Pos) -> R<Expr> {
        let stmts = if self.is_p("{") {
            self.block("")?
        } else {
            let epos = self.pos();
            let e = self.expr()?;
            vec![Stmt { kind: StmtKind::Expr(e), pos: epos }]
        };
        Ok(Expr { kind: ExprKind::Closure(Arc::new(Body { params, implicit_it: false, stmts })), pos })
    }

    /// `new T(args)`, `new T[n]`, `new T[] {a, b}`.
    fn new_expr(&mut self) -> R<Expr> {
        let pos = self.pos();
        self.bump();
        let mut ty = self.parse_type("a type after `new`")?;
        if self.is_p("[") {
            let mut dims = Vec::new();
            while self.is_p("[") && !self.is_p_at(self.i + 1, "]") {
                self.bump();
                dims.push(self.expr()?);
                self.expect_p("]", "after the array's size")?;
            }
            while self.is_p("[") && self.is_p_at(self.i + 1, "]") {
                self.bump();
                self.bump();
                ty.dims = ty.dims.saturating_add(1);
            }
            ty.dims = ty.dims.saturating_add(dims.len().min(255) as u8);
            return Ok(Expr { kind: ExprKind::NewArray { ty, dims, init: None }, pos });
        }
        if ty.dims > 0 {
            if !self.is_p("{") {
                let t = self.peek().clone();
                return self.fail(&t, &format!("`{{` with the elements of the new `{}[]`", ty.name));
            }
            let ExprKind::List(items) = self.array_init()?.kind else { unreachable!("array_init makes a list") };
            return Ok(Expr { kind: ExprKind::NewArray { ty, dims: Vec::new(), init: Some(items) }, pos });
        }
        if !self.is_p("(") {
            if self.js() {
                return Ok(Expr { kind: ExprKind::New { ty, args: Vec::new() }, pos });
            }
            let t = self.peek().clone();
            return self.fail(&t, &format!("`(` after `new {}`", ty.name));
        }
        let name = ty.name.clone();
        let mut named = Vec::new();
        let mut args = Vec::new();
        self.bump();
        while !self.is_p(")") {
            self.arg(&mut named, &mut args)?;
            if !self.eat_p(",") {
                break;
            }
        }
        self.expect_p(")", &format!("after the arguments of `new {name}`"))?;
        if !named.is_empty() {
            args.insert(0, Expr { kind: ExprKind::Map(named), pos });
        }
        if self.is_p("{") && !(self.groovy() && self.peek().nl) {
            return self.unsupported(self.pos(), "anonymous classes (a class body after `new`) are not supported");
        }
        Ok(Expr { kind: ExprKind::New { ty, args }, pos })
    }

    /// `[a, b]`, `[k: v]`, `[:]`.
    fn list_or_map(&mut self) -> R<Expr> {
        let pos = self.pos();
        self.enter()?;
        self.bump();
        if self.is_p(":") && self.is_p_at(self.i + 1, "]") && !self.js() {
            self.bump();
            self.bump();
            self.leave();
            return Ok(Expr { kind: ExprKind::Map(Vec::new()), pos });
        }
        let mut items = Vec::new();
        let mut entries = Vec::new();
        let mut is_map = false;
        while !self.is_p("]") {
            let key = if !self.js() && self.is_p_at(self.i + 1, ":") { self.map_key() } else { None };
            let first = match key {
                Some(k) => k,
                None => self.expr()?,
            };
            if (items.is_empty() && entries.is_empty() || is_map) && !self.js() && self.eat_p(":") {
                is_map = true;
                entries.push((first, self.expr()?));
            } else if is_map {
                let t = self.peek().clone();
                return self.fail(&t, "`:` after the map key");
            } else {
                items.push(first);
            }
            if !self.eat_p(",") {
                break;
            }
        }
        self.expect_p("]", if is_map { "closing the map" } else { "closing the list" })?;
        self.leave();
        Ok(Expr { kind: if is_map { ExprKind::Map(entries) } else { ExprKind::List(items) }, pos })
    }

    /// JavaScript's `{a: 1, "b": 2, [k]: 3, c}`, JEXL's `{'a': 1}` (and its set `{1, 2}`).
    fn object_literal(&mut self) -> R<Expr> {
        let pos = self.pos();
        self.enter()?;
        self.bump();
        let mut entries = Vec::new();
        let mut items = Vec::new();
        while !self.is_p("}") {
            let kpos = self.pos();
            let key = if self.is_p("[") && self.js() {
                self.bump();
                let k = self.expr()?;
                self.expect_p("]", "after the computed key")?;
                k
            } else if self.is_p_at(self.i + 1, ":") {
                match self.map_key() {
                    Some(k) => k,
                    None => self.expr()?,
                }
            } else if self.js() {
                // `{a, b}`: shorthand for `{a: a, b: b}`.
                let name = self.expect_name("a property name")?;
                entries.push((
                    Expr { kind: ExprKind::Str(name.clone()), pos: kpos },
                    Expr { kind: ExprKind::Ident(name), pos: kpos },
                ));
                if !self.eat_p(",") {
                    break;
                }
                continue;
            } else {
                self.expr()?
            };
            if self.eat_p(":") {
                entries.push((key, self.expr()?));
            } else {
                items.push(key);
            }
            if !self.eat_p(",") {
                break;
            }
        }
        self.expect_p("}", "closing the object literal")?;
        self.leave();
        if !items.is_empty() && entries.is_empty() {
            return Ok(Expr { kind: ExprKind::List(items), pos });
        }
        if !items.is_empty() {
            return self.error(pos, "a literal mixes `key: value` entries and plain values");
        }
        Ok(Expr { kind: ExprKind::Map(entries), pos })
    }

    /// Whether a `{` at statement start is a JEXL map literal (`{'a': 1}.size()`).
    pub(super) fn object_literal_ahead(&self) -> bool {
        self.lang == Lang::Jexl
            && (self.is_p_at(self.i + 1, "}")
                || matches!(self.at(self.i + 1).tok, Tok::Str(_) | Tok::Num(_)) && self.is_p_at(self.i + 2, ":"))
    }

    /// A Groovy closure `{ a, b -> ... }`, `{ -> ... }`, `{ it * 2 }`, at `{`.
    pub(super) fn closure(&mut self) -> R<Expr> {
        let pos = self.pos();
        self.enter()?;
        self.bump();
        let (params, implicit_it) = if self.eat_p("->") {
            (Vec::new(), false)
        } else if self.closure_params_ahead() {
            let params = self.params("->")?;
            self.expect_p("->", "after the closure's parameters")?;
            (params, false)
        } else {
            (Vec::new(), true)
        };
        let stmts = self.statements(false)?;
        self.expect_p("}", "closing the closure")?;
        self.leave();
        Ok(Expr { kind: ExprKind::Closure(Arc::new(Body { params, implicit_it, stmts })), pos })
    }

    /// Whether a parameter list ending in `->` follows (a bounded look).
    fn closure_params_ahead(&self) -> bool {
        // After `=`, a parameter's default value: any tokens but a block's, up to `,` or `->`.
        let mut default = false;
        for k in 0..MAX_PARAM_SCAN {
            match &self.at(self.i + k).tok {
                Tok::Punct("->") => return k > 0,
                Tok::Punct(",") => default = false,
                Tok::Punct("=") => default = true,
                Tok::Ident(_) | Tok::Punct("." | "<" | ">" | ">>" | "[" | "]" | "?" | "...") => {}
                Tok::Punct("{" | "}" | ";") | Tok::Eof => return false,
                _ if default => {}
                _ => return false,
            }
        }
        false
    }

    /// The parts of an interpolated string, their code parsed.
    fn gstring(&mut self, parts: Vec<LexPart>) -> R<Vec<Part>> {
        let mut out = Vec::with_capacity(parts.len());
        for part in parts {
            out.push(match part {
                LexPart::Lit(s) => Part::Lit(s),
                LexPart::Path(names) => {
                    let mut it = names.into_iter();
                    let (first, pos) = it.next().unwrap_or_default();
                    let mut e = Expr { kind: ExprKind::Ident(first), pos };
                    for (name, _) in it {
                        e = Expr { kind: ExprKind::Property { target: bx(e), name, safe: false, spread: false }, pos };
                    }
                    Part::Expr(e)
                }
                LexPart::Code(toks) => Part::Expr(self.embedded(toks)?),
            });
        }
        Ok(out)
    }

    /// The code of a `${...}`: one expression (empty is `null`, as in Groovy).
    fn embedded(&mut self, toks: Vec<Token>) -> R<Expr> {
        let pos = toks.first().map(|t| t.pos).unwrap_or_default();
        let mut sub = Parser::new(toks, self.lang, self.src, self.depth);
        sub.embedded = true;
        if sub.at_eof() {
            return Ok(Expr { kind: ExprKind::Null, pos });
        }
        sub.enter()?;
        let e = if sub.groovy() { sub.statement_expr()? } else { sub.expr()? };
        if !sub.at_eof() {
            let t = sub.peek().clone();
            return sub.fail(&t, "`}` closing `${`");
        }
        Ok(e)
    }
}

fn assign_op(p: &str) -> Option<Option<BinOp>> {
    Some(match p {
        "=" => None,
        "+=" => Some(BinOp::Add),
        "-=" => Some(BinOp::Sub),
        "*=" => Some(BinOp::Mul),
        "/=" => Some(BinOp::Div),
        "%=" => Some(BinOp::Rem),
        "**=" => Some(BinOp::Pow),
        "<<=" => Some(BinOp::Shl),
        ">>=" => Some(BinOp::Shr),
        ">>>=" => Some(BinOp::UShr),
        "&=" => Some(BinOp::BitAnd),
        "|=" => Some(BinOp::BitOr),
        "^=" => Some(BinOp::BitXor),
        _ => return None,
    })
}

/// `a.b.C` written as names and properties, as a type (for `a.b.C.class`).
fn type_of_chain(e: &Expr, dims: u8) -> Option<TypeName> {
    fn dotted(e: &Expr, out: &mut String) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => {
                out.push_str(n);
                true
            }
            ExprKind::Property { target, name, safe: false, spread: false } => {
                if !dotted(target, out) {
                    return false;
                }
                out.push('.');
                out.push_str(name);
                true
            }
            _ => false,
        }
    }
    let mut name = String::new();
    dotted(e, &mut name).then_some(TypeName { name, dims, pos: e.pos })
}
