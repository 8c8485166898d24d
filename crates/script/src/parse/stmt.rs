//! Statements: declarations, control flow, functions, imports.

use std::sync::Arc;

use super::super::ast::{Body, Catch, Expr, ExprKind, Import, Param, Pos, Stmt, StmtKind, SwitchArm, TypeName};
use super::super::lex::Tok;
use super::super::Lang;
use super::{Parser, MODIFIERS, R};

impl Parser<'_> {
    /// Statements up to `}` (not consumed) or the end; `top` at script level.
    pub(super) fn statements(&mut self, top: bool) -> R<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            if self.at_eof() || (!top && self.is_p("}")) {
                return Ok(out);
            }
            if top && self.is_p("}") {
                let t = self.peek().clone();
                return self.fail(&t, "a statement (this `}` closes nothing)");
            }
            self.statement(&mut out)?;
        }
    }

    /// `{ statements }`.
    pub(super) fn block(&mut self, what: &str) -> R<Vec<Stmt>> {
        self.expect_p("{", what)?;
        self.enter()?;
        let body = self.statements(false)?;
        self.leave();
        self.expect_p("}", "closing the block")?;
        Ok(body)
    }

    /// One statement as a single node (several declarations become a block).
    fn single(&mut self) -> R<Stmt> {
        let pos = self.pos();
        let mut out = Vec::new();
        self.statement(&mut out)?;
        if out.len() == 1 {
            if let Some(s) = out.pop() {
                return Ok(s);
            }
        }
        Ok(Stmt { kind: StmtKind::Block(out), pos })
    }

    /// The end of a simple statement: `;`, or (Groovy, JavaScript, JEXL) a line break or `}`.
    pub(super) fn end_stmt(&mut self, what: &str) -> R<()> {
        if self.eat_p(";") || self.at_eof() {
            return Ok(());
        }
        let t = self.peek().clone();
        if !self.lang.is_java_like() && (t.nl || self.is_p("}") || self.is_word("else")) {
            return Ok(());
        }
        if self.lang.is_java_like() {
            self.fail(&t, &format!("`;` after {what}"))
        } else {
            self.fail(&t, &format!("`;` or a new line after {what}"))
        }
    }

    /// Parses one statement into `out` (declarations of several names give several).
    pub(super) fn statement(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        self.enter()?;
        let r = self.statement_inner(out);
        self.leave();
        r
    }

    fn statement_inner(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.pos();
        let stmt = |kind| Stmt { kind, pos };
        if self.eat_p(";") {
            out.push(stmt(StmtKind::Empty));
            return Ok(());
        }
        if self.is_p("{") {
            if matches!(self.lang, Lang::JavaScript | Lang::Jexl) && self.object_literal_ahead() {
                return self.expr_statement(out);
            }
            let body = self.block("")?;
            out.push(stmt(StmtKind::Block(body)));
            return Ok(());
        }
        if self.is_p("@") && self.lang != Lang::JavaScript {
            self.skip_annotation();
            return self.statement_inner(out);
        }
        let Tok::Ident(word) = self.peek_tok().clone() else {
            return self.expr_statement(out);
        };
        // A word followed by `.`, `(`, `=` is a name in an expression, whatever it spells
        // (`import` and friends aside, which scripts do not use as names).
        let kw = |p: &Parser| !p.is_p_at(p.i + 1, ".") && !p.is_p_at(p.i + 1, "=");
        match word.as_str() {
            "import" if kw(self) && self.lang != Lang::Jexl => return self.import(),
            "package" if kw(self) && self.lang != Lang::Jexl => {
                while !self.at_eof() && !self.is_p(";") && !self.at(self.i + 1).nl {
                    self.bump();
                }
                self.bump();
                self.eat_p(";");
                return Ok(());
            }
            "class" | "interface" | "enum" | "trait" if kw(self) => return self.class_decl(out, pos),
            "if" => return self.if_stmt(out),
            "while" => {
                self.bump();
                let cond = self.paren_cond("while")?;
                let body = Box::new(self.single()?);
                out.push(stmt(StmtKind::While { cond, body }));
                return Ok(());
            }
            "do" if self.is_p_at(self.i + 1, "{") || self.lang != Lang::Groovy => {
                self.bump();
                let body = Box::new(self.single()?);
                if !self.eat_word("while") {
                    let t = self.peek().clone();
                    return self.fail(&t, "`while` after the body of `do`");
                }
                let cond = self.paren_cond("while")?;
                self.end_stmt("`do ... while (...)`")?;
                out.push(stmt(StmtKind::DoWhile { body, cond }));
                return Ok(());
            }
            "for" => return self.for_stmt(out),
            "switch" => return self.switch_stmt(out),
            "try" => return self.try_stmt(out),
            "return" => {
                self.bump();
                let value = if self.value_follows() { Some(self.expr()?) } else { None };
                self.end_stmt("`return`")?;
                out.push(stmt(StmtKind::Return(value)));
                return Ok(());
            }
            "break" | "continue" => {
                self.bump();
                let label = match self.peek_tok() {
                    Tok::Ident(w) if !self.peek().nl && !self.reserved(w) => Some(w.clone()),
                    _ => None,
                };
                if label.is_some() {
                    self.bump();
                }
                self.end_stmt(&format!("`{word}`"))?;
                out.push(stmt(if word == "break" { StmtKind::Break(label) } else { StmtKind::Continue(label) }));
                return Ok(());
            }
            "throw" => {
                self.bump();
                let e = self.expr()?;
                self.end_stmt("`throw`")?;
                out.push(stmt(StmtKind::Throw(e)));
                return Ok(());
            }
            "assert" if !self.js() && self.lang != Lang::Jexl && kw(self) => {
                self.bump();
                let start = self.peek().start;
                let cond = self.expr()?;
                let text = self.text(start, self.last_end());
                let message = if self.eat_p(":") || self.eat_p(",") { Some(self.expr()?) } else { None };
                self.end_stmt("`assert`")?;
                out.push(stmt(StmtKind::Assert { cond, message, text }));
                return Ok(());
            }
            "function" if self.js() && matches!(self.at(self.i + 1).tok, Tok::Ident(_)) => {
                self.bump();
                let name = self.expect_name("the function's name after `function`")?;
                let body = self.function_rest(&name)?;
                out.push(stmt(StmtKind::Function { name, body }));
                return Ok(());
            }
            "var" | "let" | "const"
                if (word == "var" || self.js())
                    && matches!(self.at(self.i + 1).tok, Tok::Ident(_))
                    && !self.is_word_at(self.i + 1, "in") =>
            {
                self.bump();
                return self.declarators(out, None, pos);
            }
            "def" if self.groovy() => {
                self.bump();
                return self.after_def(out, pos);
            }
            _ => {}
        }
        // Users run scripts in parallel: a lock between them is not something to drop silently.
        if word == "synchronized" && self.is_p_at(self.i + 1, "(") {
            return self.unsupported(pos, "`synchronized` blocks are not supported");
        }
        if MODIFIERS.contains(&word.as_str()) && matches!(self.at(self.i + 1).tok, Tok::Ident(_)) {
            while matches!(self.peek_tok(), Tok::Ident(w) if MODIFIERS.contains(&w.as_str())) {
                self.bump();
            }
            if ["class", "interface", "enum", "trait"].iter().any(|w| self.is_word(w)) {
                return self.class_decl(out, pos);
            }
            if self.groovy() && self.eat_word("def") {
                return self.after_def(out, pos);
            }
            if self.decl_type_ahead(true).is_some() {
                return self.typed_decl(out, pos);
            }
            // `final x = 1` (Groovy): a declaration without a type.
            return self.after_def(out, pos);
        }
        // `label: statement`
        if self.is_p_at(self.i + 1, ":") && !self.reserved(&word) && self.lang != Lang::Jexl {
            self.bump();
            self.bump();
            let body = Box::new(self.single()?);
            out.push(stmt(StmtKind::Labeled { label: word, body }));
            return Ok(());
        }
        if self.decl_type_ahead(self.lang.is_java_like()).is_some() {
            return self.typed_decl(out, pos);
        }
        // BeanShell's untyped method: `name(a, b) { ... }`.
        if self.lang.is_java_like() && self.is_p_at(self.i + 1, "(") {
            if let Some(close) = self.partner_of(self.i + 1) {
                if self.is_p_at(close + 1, "{") {
                    self.bump();
                    let body = self.function_rest(&word)?;
                    out.push(stmt(StmtKind::Function { name: word, body }));
                    return Ok(());
                }
            }
        }
        self.expr_statement(out)
    }

    /// An expression statement; in Groovy, a command call (`log.info "x"`) at its start.
    fn expr_statement(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.pos();
        let e = self.statement_expr()?;
        self.end_stmt("the statement")?;
        out.push(Stmt { kind: StmtKind::Expr(e), pos });
        Ok(())
    }

    /// Whether a value follows `return` on the same statement.
    fn value_follows(&self) -> bool {
        let t = self.peek();
        !(self.at_eof() || self.is_p(";") || self.is_p("}") || (t.nl && !self.lang.is_java_like()))
    }

    /// `(cond)` after `if`/`while`.
    pub(super) fn paren_cond(&mut self, what: &str) -> R<Expr> {
        self.expect_p("(", &format!("after `{what}`"))?;
        let cond = self.expr()?;
        self.expect_p(")", &format!("after the condition of `{what}`"))?;
        Ok(cond)
    }

    fn if_stmt(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.pos();
        self.bump();
        let cond = self.paren_cond("if")?;
        let then = Box::new(self.single()?);
        // `else` may follow a `;` that ended the branch.
        let els = if self.is_word("else") || (self.is_p(";") && self.is_word_at(self.i + 1, "else")) {
            self.eat_p(";");
            self.bump();
            Some(Box::new(self.single()?))
        } else {
            None
        };
        out.push(Stmt { kind: StmtKind::If { cond, then, els }, pos });
        Ok(())
    }

    fn for_stmt(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.pos();
        self.bump();
        if self.js() && self.is_word("each") {
            return self.unsupported(self.pos(), "`for each` is not supported; use `for (x of xs)`");
        }
        self.expect_p("(", "after `for`")?;
        if let Some((ty, var, keys)) = self.foreach_head()? {
            let iter = self.expr()?;
            self.expect_p(")", "after the collection of `for`")?;
            let body = Box::new(self.single()?);
            out.push(Stmt { kind: StmtKind::ForEach { ty, var, iter, keys, body }, pos });
            return Ok(());
        }
        let mut init = Vec::new();
        if !self.is_p(";") {
            let ipos = self.pos();
            let decl = self.is_word("var") || self.is_word("let") || self.is_word("const") || self.is_word("def");
            if decl && matches!(self.at(self.i + 1).tok, Tok::Ident(_)) {
                self.bump();
                self.declarator_list(&mut init, None, ipos)?;
            } else if self.decl_type_ahead(true).is_some() {
                while matches!(self.peek_tok(), Tok::Ident(w) if w == "final") {
                    self.bump();
                }
                let ty = self.parse_type("a type")?;
                self.declarator_list(&mut init, Some(ty), ipos)?;
            } else {
                loop {
                    let epos = self.pos();
                    let e = self.expr()?;
                    init.push(Stmt { kind: StmtKind::Expr(e), pos: epos });
                    if !self.eat_p(",") {
                        break;
                    }
                }
            }
        }
        self.expect_p(";", "after the initialisation of `for`")?;
        let cond = if self.is_p(";") { None } else { Some(self.expr()?) };
        self.expect_p(";", "after the condition of `for`")?;
        let mut update = Vec::new();
        if !self.is_p(")") {
            loop {
                update.push(self.expr()?);
                if !self.eat_p(",") {
                    break;
                }
            }
        }
        self.expect_p(")", "after the update of `for`")?;
        let body = Box::new(self.single()?);
        out.push(Stmt { kind: StmtKind::For { init, cond, update, body }, pos });
        Ok(())
    }

    /// `x in`, `T x :`, `var k in`, `let v of`: the head of a for-each loop (consumed), or
    /// `None` (nothing consumed) for a classic `for`.
    fn foreach_head(&mut self) -> R<Option<(Option<TypeName>, String, bool)>> {
        let mut j = self.i;
        while self.is_word_at(j, "final") {
            j += 1;
        }
        let untyped_kw = ["var", "let", "const", "def"].iter().any(|w| self.is_word_at(j, w));
        let sep = |p: &Parser, k: usize| -> Option<bool> {
            if p.is_word_at(k, "in") {
                Some(p.js())
            } else if p.is_p_at(k, ":") || (p.js() && p.is_word_at(k, "of")) {
                Some(false)
            } else {
                None
            }
        };
        let name_at = |p: &Parser, k: usize| matches!(p.word_at(k), Some(w) if !p.reserved(w));
        // `x in xs`, `var x in xs`
        let k = if untyped_kw { j + 1 } else { j };
        if name_at(self, k) {
            if let Some(keys) = sep(self, k + 1) {
                self.i = k;
                let var = self.expect_name("the loop variable")?;
                self.bump();
                return Ok(Some((None, var, keys)));
            }
        }
        // `T x : xs`, `T x in xs`
        if !untyped_kw {
            if let Some((end, _)) = self.scan_type(j) {
                if name_at(self, end) {
                    if let Some(keys) = sep(self, end + 1) {
                        self.i = j;
                        let ty = self.parse_type("the loop variable's type")?;
                        let var = self.expect_name("the loop variable")?;
                        self.bump();
                        return Ok(Some((Some(ty), var, keys)));
                    }
                }
            }
        }
        Ok(None)
    }

    fn switch_stmt(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.pos();
        self.bump();
        let subject = self.paren_cond("switch")?;
        self.expect_p("{", "opening the body of `switch`")?;
        let mut arms: Vec<SwitchArm> = Vec::new();
        // The arm being filled: its labels (None for `default`) and whether it has a body.
        let mut cur: Option<(Option<Vec<Expr>>, Vec<Stmt>)> = None;
        loop {
            if self.eat_p("}") {
                break;
            }
            if self.at_eof() {
                let t = self.peek().clone();
                return self.fail(&t, "`}` closing the body of `switch`");
            }
            let is_case = self.is_word("case");
            let is_default = self.is_word("default") && self.is_p_at(self.i + 1, ":");
            if is_case || is_default {
                // A new label after statements, or a switch between `case` and `default`,
                // starts a new arm (falling through keeps the meaning).
                let start_new = match &cur {
                    None => true,
                    Some((labels, body)) => !body.is_empty() || labels.is_none() || is_default,
                };
                if start_new {
                    if let Some(arm) = cur.take() {
                        arms.push(to_arm(arm));
                    }
                    cur = Some((if is_default { None } else { Some(Vec::new()) }, Vec::new()));
                }
                self.bump();
                if is_case {
                    let label = self.expr()?;
                    if self.is_p("->") {
                        return self.unsupported(self.pos(), "arrow `case ->` labels are not supported; use `case x:`");
                    }
                    self.expect_p(":", "after the `case` label")?;
                    if let Some((Some(labels), _)) = &mut cur {
                        labels.push(label);
                    }
                } else {
                    self.bump();
                }
                continue;
            }
            let Some((_, body)) = &mut cur else {
                let t = self.peek().clone();
                return self.fail(&t, "`case` or `default` in the body of `switch`");
            };
            let mut stmts = std::mem::take(body);
            self.statement(&mut stmts)?;
            if let Some((_, body)) = &mut cur {
                *body = stmts;
            }
        }
        if let Some(arm) = cur.take() {
            arms.push(to_arm(arm));
        }
        out.push(Stmt { kind: StmtKind::Switch { subject, arms }, pos });
        Ok(())
    }

    fn try_stmt(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.pos();
        self.bump();
        if self.is_p("(") {
            return self.unsupported(self.pos(), "try-with-resources is not supported");
        }
        let body = self.block("after `try`")?;
        let mut catches = Vec::new();
        while self.eat_word("catch") {
            self.expect_p("(", "after `catch`")?;
            while self.eat_word("final") {}
            let mut types = Vec::new();
            let var = if matches!(self.peek_tok(), Tok::Ident(_)) && self.is_p_at(self.i + 1, ")") {
                self.expect_name("the exception's name")?
            } else {
                loop {
                    types.push(self.parse_type("an exception type")?);
                    if !self.eat_p("|") {
                        break;
                    }
                }
                self.expect_name("the exception's name after its type")?
            };
            self.expect_p(")", "after the exception's name")?;
            let body = self.block("after `catch (...)`")?;
            catches.push(Catch { types, var, body });
        }
        let finally = if self.eat_word("finally") { Some(self.block("after `finally`")?) } else { None };
        if catches.is_empty() && finally.is_none() {
            let t = self.peek().clone();
            return self.fail(&t, "`catch` or `finally` after the body of `try`");
        }
        out.push(Stmt { kind: StmtKind::Try { body, catches, finally }, pos });
        Ok(())
    }

    fn import(&mut self) -> R<()> {
        let pos = self.pos();
        self.bump();
        let is_static = self.eat_word("static");
        let mut path = match self.bump().tok {
            Tok::Ident(w) => w,
            _ => {
                let t = self.at(self.i.saturating_sub(1)).clone();
                return self.fail(&t, "a name after `import`");
            }
        };
        let mut star = false;
        while self.eat_p(".") {
            if self.eat_p("*") {
                star = true;
                break;
            }
            match self.peek_tok().clone() {
                Tok::Ident(w) => {
                    self.bump();
                    path.push('.');
                    path.push_str(&w);
                }
                _ => {
                    let t = self.peek().clone();
                    return self.fail(&t, "a name or `*` after `.` in the import");
                }
            }
        }
        let alias = if self.eat_word("as") { Some(self.expect_name("the alias after `as`")?) } else { None };
        self.end_stmt("the import")?;
        self.imports.push(Import { path, star, is_static, alias, pos });
        Ok(())
    }

    /// Skips an annotation: `@Name`, `@a.b.Name(...)`.
    pub(super) fn skip_annotation(&mut self) {
        self.bump();
        self.bump();
        while self.is_p(".") {
            self.bump();
            self.bump();
        }
        if self.is_p("(") && !self.peek().nl {
            match self.partner_of(self.i) {
                Some(close) => self.i = close + 1,
                None => {
                    self.bump();
                }
            }
        }
    }

    /// After `def` (or modifiers): `def x = 1, y`, `def (a, b) = ...`, `def f(a) { ... }`.
    fn after_def(&mut self, out: &mut Vec<Stmt>, pos: Pos) -> R<()> {
        if self.is_p("(") {
            self.bump();
            let mut names = Vec::new();
            loop {
                let typed = self.typed_name_ahead();
                if typed {
                    self.parse_type("a type")?;
                }
                names.push(self.expect_name("a name in `def (...)`")?);
                if !self.eat_p(",") {
                    break;
                }
            }
            self.expect_p(")", "after the names of `def (...)`")?;
            self.expect_p("=", "after `def (...)`")?;
            let init = self.expr()?;
            self.end_stmt("the declaration")?;
            out.push(Stmt { kind: StmtKind::MultiVar { names, init }, pos });
            return Ok(());
        }
        // `def String x` is legal Groovy: the type wins.
        if self.decl_type_ahead(true).is_some() {
            return self.typed_decl(out, pos);
        }
        if matches!(self.peek_tok(), Tok::Ident(_) | Tok::Str(_)) && self.is_p_at(self.i + 1, "(") {
            let name = match self.bump().tok {
                Tok::Ident(w) | Tok::Str(w) => w,
                _ => String::new(),
            };
            let body = self.function_rest(&name)?;
            out.push(Stmt { kind: StmtKind::Function { name, body }, pos });
            return Ok(());
        }
        self.declarators(out, None, pos)
    }

    /// Whether a type then a name start here (`String a`, `int... xs`): a typed parameter.
    fn typed_name_ahead(&self) -> bool {
        matches!(self.scan_type(self.i), Some((end, _)) if matches!(self.word_at(end), Some(w) if !self.reserved(w)))
    }

    /// If a declaration `Type name ...` starts here (after modifiers): the type's end.
    /// `loose` accepts any name as a type (Java, or after `def`/a modifier); otherwise the
    /// type must look like one (`String x`, not Groovy's command call `println x`).
    pub(super) fn decl_type_ahead(&self, loose: bool) -> Option<usize> {
        if matches!(self.lang, Lang::JavaScript | Lang::Jexl) {
            return None;
        }
        let mut j = self.i;
        while matches!(self.word_at(j), Some(w) if w == "final") {
            j += 1;
        }
        let (end, typeish) = self.scan_type(j)?;
        if !(typeish || loose) {
            return None;
        }
        let Tok::Ident(name) = &self.at(end).tok else { return None };
        if self.reserved(name) || matches!(name.as_str(), "in" | "as" | "instanceof" | "of") {
            return None;
        }
        // The type itself must not be a keyword (`return x`, `throw e`, `new T`).
        if matches!(self.word_at(j), Some(w) if self.reserved(w) && !super::PRIMITIVES.contains(&w)) {
            return None;
        }
        if self.at(end).nl && self.groovy() {
            return None;
        }
        let next = self.at(end + 1);
        let ok = match &next.tok {
            Tok::Punct("=" | ";" | "," | "(" | "}" | "[") | Tok::Eof => true,
            _ => next.nl,
        };
        ok.then_some(end)
    }

    /// `Type a = 1, b` or `Type f(params) { ... }`, at the type (after modifiers).
    fn typed_decl(&mut self, out: &mut Vec<Stmt>, pos: Pos) -> R<()> {
        while self.eat_word("final") {}
        let ty = self.parse_type("a type")?;
        if self.is_p_at(self.i + 1, "(") {
            let name = self.expect_name("the method's name")?;
            let body = self.function_rest(&name)?;
            out.push(Stmt { kind: StmtKind::Function { name, body }, pos });
            return Ok(());
        }
        let ty = if ty.name == "var" && ty.dims == 0 { None } else { Some(ty) };
        self.declarators(out, ty, pos)
    }

    /// `a = 1, b, c = 2` then the end of the statement.
    fn declarators(&mut self, out: &mut Vec<Stmt>, ty: Option<TypeName>, pos: Pos) -> R<()> {
        self.declarator_list(out, ty, pos)?;
        self.end_stmt("the declaration")
    }

    pub(super) fn declarator_list(&mut self, out: &mut Vec<Stmt>, ty: Option<TypeName>, pos: Pos) -> R<()> {
        loop {
            let npos = self.pos();
            let name = self.expect_name("a variable name")?;
            let mut ty = ty.clone();
            // Java's `String a[]`.
            while self.is_p("[") && self.is_p_at(self.i + 1, "]") {
                self.bump();
                self.bump();
                if let Some(t) = &mut ty {
                    t.dims = t.dims.saturating_add(1);
                }
            }
            let init = if self.eat_p("=") {
                if self.is_p("{") && self.lang.is_java_like() {
                    Some(self.array_init()?)
                } else {
                    Some(self.expr()?)
                }
            } else {
                None
            };
            let at = if out.is_empty() { pos } else { npos };
            out.push(Stmt { kind: StmtKind::Var { ty, name, init }, pos: at });
            if !self.eat_p(",") {
                return Ok(());
            }
        }
    }

    /// Java's array initialiser `{1, 2, {3}}`, at `{`.
    pub(super) fn array_init(&mut self) -> R<Expr> {
        let pos = self.pos();
        self.enter()?;
        self.bump();
        let mut items = Vec::new();
        while !self.is_p("}") {
            items.push(if self.is_p("{") { self.array_init()? } else { self.expr()? });
            if !self.eat_p(",") {
                break;
            }
        }
        self.expect_p("}", "closing the array initialiser")?;
        self.leave();
        Ok(Expr { kind: ExprKind::List(items), pos })
    }

    /// `(params) [throws X] { body }` of a function named `name`.
    pub(super) fn function_rest(&mut self, name: &str) -> R<Arc<Body>> {
        self.expect_p("(", &format!("after the name of the function `{name}`"))?;
        let params = self.params(")")?;
        self.expect_p(")", &format!("after the parameters of `{name}`"))?;
        if self.eat_word("throws") {
            loop {
                self.parse_type("an exception type after `throws`")?;
                if !self.eat_p(",") {
                    break;
                }
            }
        }
        let stmts = self.block(&format!("opening the body of `{name}`"))?;
        Ok(Arc::new(Body { params, implicit_it: false, stmts }))
    }

    /// Parameters up to `close` (not consumed): `a`, `String a`, `a = 1`, `final int... a`.
    pub(super) fn params(&mut self, close: &str) -> R<Vec<Param>> {
        let mut params = Vec::new();
        while !self.is_p(close) {
            while matches!(self.peek_tok(), Tok::Ident(w) if w == "final") {
                self.bump();
            }
            if self.is_p("@") {
                self.skip_annotation();
            }
            let typed = self.typed_name_ahead();
            let ty = if self.eat_word("def") || !typed {
                None
            } else {
                let t = self.parse_type("a parameter type")?;
                Some(t)
            };
            let name = self.expect_name("a parameter name")?;
            let default = if self.eat_p("=") { Some(self.expr()?) } else { None };
            params.push(Param { name, ty, default });
            if !self.eat_p(",") {
                break;
            }
        }
        Ok(params)
    }
}

fn to_arm((labels, body): (Option<Vec<Expr>>, Vec<Stmt>)) -> SwitchArm {
    SwitchArm { labels: labels.unwrap_or_default(), body }
}
