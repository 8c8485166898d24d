//! Groovy class and interface declarations: `class A extends B implements C { ... }`.

use std::sync::Arc;

use super::super::ast::{Body, ClassDecl, FieldDecl, MethodDecl, Pos, Stmt, StmtKind};
use super::super::lex::Tok;
use super::{Parser, MODIFIERS, R};

impl Parser<'_> {
    /// A declaration at `class`/`interface`/`enum`/`trait` (after its modifiers).
    pub(super) fn class_decl(&mut self, out: &mut Vec<Stmt>, pos: Pos) -> R<()> {
        let word = self.word_at(self.i).unwrap_or_default().to_string();
        if !self.groovy() {
            return self.unsupported(pos, format!("`{word}` declarations are supported in Groovy scripts only"));
        }
        if word == "enum" || word == "trait" {
            return self.unsupported(pos, format!("`{word}` declarations are not supported"));
        }
        let interface = word == "interface";
        self.bump();
        let name = self.expect_name(&format!("the name of the {word}"))?;
        if self.is_p("<") {
            return self.unsupported(self.pos(), format!("generic classes are not supported (`{name}<...>`)"));
        }
        let mut extends = None;
        let mut implements = Vec::new();
        if self.eat_word("extends") {
            if interface {
                self.type_list(&mut implements)?;
            } else {
                extends = Some(self.parse_type("the class after `extends`")?);
            }
        }
        if self.eat_word("implements") {
            self.type_list(&mut implements)?;
        }
        self.expect_p("{", &format!("opening the body of `{name}`"))?;
        self.enter()?;
        let mut decl = ClassDecl {
            name,
            interface,
            extends,
            implements,
            fields: Vec::new(),
            ctors: Vec::new(),
            methods: Vec::new(),
            pos,
        };
        let r = self.class_members(&mut decl);
        self.leave();
        r?;
        out.push(Stmt { kind: StmtKind::Class(Arc::new(decl)), pos });
        Ok(())
    }

    fn type_list(&mut self, out: &mut Vec<super::super::ast::TypeName>) -> R<()> {
        loop {
            out.push(self.parse_type("an interface's name")?);
            if !self.eat_p(",") {
                return Ok(());
            }
        }
    }

    /// The members up to and with the closing `}`.
    fn class_members(&mut self, decl: &mut ClassDecl) -> R<()> {
        loop {
            if self.eat_p("}") {
                return Ok(());
            }
            if self.at_eof() {
                let t = self.peek().clone();
                return self.fail(&t, &format!("`}}` closing the body of `{}`", decl.name));
            }
            if self.eat_p(";") {
                continue;
            }
            if self.is_p("@") {
                self.skip_annotation();
                continue;
            }
            let pos = self.pos();
            let mut is_static = false;
            let mut modified = false;
            while matches!(self.peek_tok(), Tok::Ident(w) if MODIFIERS.contains(&w.as_str())) {
                is_static |= self.is_word("static");
                modified = true;
                self.bump();
            }
            if self.is_p("{") {
                return self
                    .unsupported(pos, format!("initialiser blocks in a class are not supported (`{}`)", decl.name));
            }
            if ["class", "interface", "enum", "trait"].iter().any(|w| self.is_word(w)) {
                return self
                    .unsupported(pos, format!("a class declared inside a class is not supported (`{}`)", decl.name));
            }
            if self.is_p("<") {
                return self.unsupported(pos, format!("generic methods are not supported (in `{}`)", decl.name));
            }
            // A constructor: the class's name, then `(`.
            if self.is_word(&decl.name) && self.is_p_at(self.i + 1, "(") {
                let name = decl.name.clone();
                self.bump();
                if let Some(body) = self.member_rest(&name)? {
                    decl.ctors.push(MethodDecl { name, body, is_static: false, pos });
                }
                continue;
            }
            let def = self.eat_word("def");
            let named_call =
                |p: &Parser, k: usize| matches!(p.at(k).tok, Tok::Ident(_) | Tok::Str(_)) && p.is_p_at(k + 1, "(");
            let method_at = if named_call(self, self.i) && (def || modified) {
                Some(None)
            } else if !def {
                match self.scan_type(self.i) {
                    Some((end, _)) if named_call(self, end) => Some(Some(())),
                    _ => None,
                }
            } else {
                None
            };
            if let Some(typed) = method_at {
                if typed.is_some() {
                    self.parse_type("the method's return type")?;
                }
                let name = match self.bump().tok {
                    Tok::Ident(w) | Tok::Str(w) => w,
                    _ => String::new(),
                };
                if let Some(body) = self.member_rest(&name)? {
                    decl.methods.push(MethodDecl { name, body, is_static, pos });
                }
                continue;
            }
            let ty = if def {
                None
            } else if self.decl_type_ahead(true).is_some() {
                Some(self.parse_type("the field's type")?)
            } else if modified && matches!(self.peek_tok(), Tok::Ident(_)) {
                None
            } else {
                let t = self.peek().clone();
                return self.fail(&t, &format!("a field, a method or a constructor in the body of `{}`", decl.name));
            };
            let mut vars = Vec::new();
            self.declarator_list(&mut vars, ty, pos)?;
            self.end_stmt("the field")?;
            for v in vars {
                if let StmtKind::Var { ty, name, init } = v.kind {
                    decl.fields.push(FieldDecl { name, ty, init, is_static, pos: v.pos });
                }
            }
        }
    }

    /// `(params) [throws X] { body }` of a method or constructor; `None` for an abstract method
    /// (no body), which an interface or abstract class declares.
    fn member_rest(&mut self, name: &str) -> R<Option<Arc<Body>>> {
        self.expect_p("(", &format!("after the name of the method `{name}`"))?;
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
        if !self.is_p("{") {
            self.end_stmt(&format!("the method `{name}` without a body"))?;
            return Ok(None);
        }
        let stmts = self.block(&format!("opening the body of `{name}`"))?;
        Ok(Some(Arc::new(Body { params, implicit_it: false, stmts })))
    }
}
