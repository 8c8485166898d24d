//! The syntax tree to the resolved tree, once per script: locals become slots, script-level
//! names become global indices, class names become canonical names (or compile errors).

#[path = "resolve_class.rs"]
mod class;
#[path = "resolve_refuse.rs"]
mod refuse;

use super::{AssertInfo, CatchC, GPart, Node, PParam, Proto, St, Ty, Unit, VarRef, E, S};
use crate::ast::{Body, Expr, ExprKind, Import, Num, Part, Pos, Program, Stmt, StmtKind, TypeName};
use crate::classes;
use crate::methods::Known;
use crate::value::Value;
use crate::{CompileError, Lang};
pub(crate) use class::INTERFACES;
use class::{ClassCtx, Shape};
pub(crate) use refuse::unavailable;
use refuse::{reflective_class_property, reflective_method, reflective_property, refused_method, REFLECTION, THREADS};
use std::sync::Arc;

/// Capitalised names JMeter binds for script elements: variables, not classes.
const BINDINGS: &[&str] = &[
    "SampleResult",
    "Label",
    "FileName",
    "Parameters",
    "OUT",
    "AssertionResult",
    "Failure",
    "FailureMessage",
    "ResponseCode",
    "ResponseMessage",
    "ResponseHeaders",
    "RequestHeaders",
    "IsSuccess",
    "SampleLabel",
    "Response",
    "Request",
    // BeanShell Assertion (BeanShellAssertion.processAssertion).
    "ResponseData",
    "SampleData",
    "Successful",
];

/// Roots of dotted class names (`java.util.Random`).
const PACKAGE_ROOTS: &[&str] = &["java", "javax", "org", "com", "groovy", "groovyx", "net", "sun", "jdk", "io"];

/// Types a declaration names without a library class: they need no class and a value
/// declared with them is converted (`int n = x`).
const BUILTIN_TYPES: &[&str] = &[
    "int",
    "long",
    "double",
    "float",
    "short",
    "byte",
    "char",
    "boolean",
    "Integer",
    "Long",
    "Double",
    "Float",
    "Short",
    "Byte",
    "Character",
    "Boolean",
    "String",
    "Number",
    "BigDecimal",
    "BigInteger",
    "List",
    "ArrayList",
    "LinkedList",
    "Map",
    "HashMap",
    "LinkedHashMap",
    "TreeMap",
    "Set",
    "HashSet",
    "LinkedHashSet",
    "TreeSet",
    "Collection",
    "Iterable",
    "CharSequence",
    "Map.Entry",
    "Entry",
];

/// Types that declare without converting.
const UNTYPED: &[&str] = &["def", "var", "let", "const", "Object", "void", "Closure", "GString"];

fn simple_type(name: &str) -> &str {
    for p in ["java.lang.", "java.util.", "java.math.", "groovy.lang."] {
        if let Some(rest) = name.strip_prefix(p) {
            return rest;
        }
    }
    name
}

fn err(pos: Pos, message: impl Into<String>) -> CompileError {
    CompileError { pos, message: message.into(), syntax: false }
}

/// The resolution state of one function, closure or the script body.
struct Func {
    scopes: Vec<Vec<(String, u32)>>,
    cells: Vec<bool>,
    tys: Vec<Option<Arc<Ty>>>,
    captures: Vec<(String, VarRef)>,
    /// A closure sees the variables of the code around it; a script function does not.
    closure: bool,
    /// The script body.
    main: bool,
}

impl Func {
    fn new(closure: bool) -> Func {
        Func {
            scopes: vec![Vec::new()],
            cells: Vec::new(),
            tys: Vec::new(),
            captures: Vec::new(),
            closure,
            main: false,
        }
    }
}

struct Resolver<'a> {
    lang: Lang,
    imports: &'a [Import],
    stack: Vec<Func>,
    func_names: Vec<String>,
    globals: Vec<Arc<str>>,
    /// The classes the script declares.
    shapes: Vec<Shape>,
    /// Inside a class's member: which class, static or not.
    class_ctx: Option<ClassCtx>,
    /// Static fields of the declared classes so far.
    nstatics: u32,
}

pub(crate) fn resolve(program: &Program, lang: Lang) -> Result<Unit, CompileError> {
    let mut r = Resolver {
        lang,
        imports: &program.imports,
        stack: Vec::new(),
        func_names: Vec::new(),
        globals: Vec::new(),
        shapes: Vec::new(),
        class_ctx: None,
        nstatics: 0,
    };
    let decls = class::class_decls(&program.body);
    r.declare_classes(&decls)?;
    let top_funcs: Vec<(&String, &Arc<Body>)> = program
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Function { name, body } => Some((name, body)),
            _ => None,
        })
        .collect();
    r.func_names = top_funcs.iter().map(|(n, _)| n.to_string()).collect();
    let mut funcs = Vec::new();
    for (name, body) in &top_funcs {
        let implicit = lang == Lang::Groovy;
        funcs.push(Arc::new(r.proto(name, body, false, implicit)?));
    }
    let (classes, static_init) = r.resolve_classes(&decls)?;
    r.stack.push(Func { main: true, ..Func::new(false) });
    let body = r.stmts(&program.body, true)?;
    let f = r.stack.pop().expect("the script frame");
    let main = Proto {
        name: "Script1".into(),
        params: Vec::new(),
        body,
        nslots: f.cells.len(),
        cells: f.cells,
        captures: Vec::new(),
        implicit_return: true,
    };
    let mut statics: Vec<std::sync::Mutex<Value>> =
        (0..r.nstatics).map(|_| std::sync::Mutex::new(Value::Null)).collect();
    for (_, g, ty) in r.shapes.iter().flat_map(|s| s.statics.iter()) {
        statics[*g as usize] = std::sync::Mutex::new(super::eval::zero_of(ty.as_ref()));
    }
    Ok(Unit {
        main: Arc::new(main),
        funcs,
        globals: r.globals,
        classes,
        statics,
        static_init,
        statics_ready: std::sync::Mutex::new(false),
    })
}

impl Resolver<'_> {
    fn cur(&mut self) -> &mut Func {
        self.stack.last_mut().expect("a frame")
    }

    fn intern(&mut self, name: &str) -> u32 {
        match self.globals.iter().position(|g| &**g == name) {
            Some(i) => i as u32,
            None => {
                self.globals.push(name.into());
                (self.globals.len() - 1) as u32
            }
        }
    }

    fn lookup(&mut self, name: &str) -> Option<VarRef> {
        if self.stack.is_empty() {
            return None;
        }
        self.lookup_at(self.stack.len() - 1, name)
    }

    fn lookup_at(&mut self, d: usize, name: &str) -> Option<VarRef> {
        let f = &self.stack[d];
        for scope in f.scopes.iter().rev() {
            if let Some((_, s)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Some(VarRef::Local(*s));
            }
        }
        if let Some(i) = f.captures.iter().position(|(n, _)| n == name) {
            return Some(VarRef::Cap(i as u32));
        }
        if !f.closure || d == 0 {
            return None;
        }
        let outer = self.lookup_at(d - 1, name)?;
        if let VarRef::Local(s) = outer {
            self.stack[d - 1].cells[s as usize] = true;
        }
        let f = &mut self.stack[d];
        f.captures.push((name.to_string(), outer));
        Some(VarRef::Cap((f.captures.len() - 1) as u32))
    }

    /// Whether a name is a local somewhere visible, without recording a capture.
    fn is_local(&self, name: &str) -> bool {
        for f in self.stack.iter().rev() {
            if f.scopes.iter().any(|s| s.iter().any(|(n, _)| n == name)) || f.captures.iter().any(|(n, _)| n == name) {
                return true;
            }
            if !f.closure {
                break;
            }
        }
        false
    }

    fn declare_local(&mut self, name: &str, ty: Option<Arc<Ty>>) -> VarRef {
        let f = self.cur();
        let slot = f.cells.len() as u32;
        f.cells.push(false);
        f.tys.push(ty);
        f.scopes.last_mut().expect("a scope").push((name.to_string(), slot));
        VarRef::Local(slot)
    }

    /// Declares a variable: a slot, or at script level in BeanShell/Java (outside blocks)
    /// and JavaScript a global, as those languages keep them.
    fn declare(&mut self, name: &str, ty: Option<Arc<Ty>>) -> VarRef {
        let top = self.stack.len() == 1 && self.stack[0].main;
        let global = top
            && match self.lang {
                Lang::JavaScript => true,
                Lang::BeanShell | Lang::Java => self.stack[0].scopes.len() == 1,
                _ => false,
            };
        if global {
            VarRef::Global(self.intern(name))
        } else {
            self.declare_local(name, ty)
        }
    }

    fn push_scope(&mut self) {
        self.cur().scopes.push(Vec::new());
    }

    fn pop_scope(&mut self) {
        self.cur().scopes.pop();
    }

    fn proto(&mut self, name: &str, body: &Body, closure: bool, implicit_return: bool) -> Result<Proto, CompileError> {
        let saved = if closure { Vec::new() } else { std::mem::take(&mut self.stack) };
        self.stack.push(Func::new(closure));
        let result = self.proto_body(name, body, implicit_return);
        let f = self.stack.pop().expect("the function frame");
        if !closure {
            self.stack = saved;
        }
        let (params, body) = result?;
        Ok(Proto {
            name: name.into(),
            params,
            body,
            nslots: f.cells.len(),
            cells: f.cells,
            captures: f.captures.into_iter().map(|(_, v)| v).collect(),
            implicit_return,
        })
    }

    fn proto_body(
        &mut self,
        _name: &str,
        body: &Body,
        _implicit: bool,
    ) -> Result<(Vec<PParam>, Vec<St>), CompileError> {
        let mut params = Vec::new();
        if body.params.is_empty() && body.implicit_it {
            self.declare_local("it", None);
            params.push(PParam { ty: None, default: None });
        }
        for p in &body.params {
            let ty = match &p.ty {
                Some(t) => self.ty(t)?,
                None => None,
            };
            let default = p.default.as_ref().map(|d| self.expr(d)).transpose()?;
            self.declare_local(&p.name, ty.clone());
            params.push(PParam { ty, default });
        }
        let stmts = self.stmts(&body.stmts, false)?;
        Ok((params, stmts))
    }

    /// A list of statements in the current scope; `top`: the script body, whose functions
    /// are hoisted already. Nested functions become local closures, declared first.
    fn stmts(&mut self, stmts: &[Stmt], top: bool) -> Result<Vec<St>, CompileError> {
        let mut out = Vec::with_capacity(stmts.len());
        if !top {
            for s in stmts {
                if let StmtKind::Function { name, body } = &s.kind {
                    let var = self.declare_local(name, None);
                    let proto = self.proto(name, body, true, self.lang == Lang::Groovy)?;
                    out.push(St {
                        k: S::Decl(var, None, Some(Node { k: E::Closure(Arc::new(proto)), pos: s.pos })),
                        pos: s.pos,
                    });
                }
            }
        }
        for s in stmts {
            if matches!(s.kind, StmtKind::Function { .. }) {
                continue;
            }
            out.push(self.stmt(s)?);
        }
        Ok(out)
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<Vec<St>, CompileError> {
        self.push_scope();
        let r = self.stmts(stmts, false);
        self.pop_scope();
        r
    }

    fn scoped(&mut self, s: &Stmt) -> Result<Box<St>, CompileError> {
        self.push_scope();
        let r = self.stmt(s);
        self.pop_scope();
        Ok(Box::new(r?))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<St, CompileError> {
        let k = match &s.kind {
            StmtKind::Expr(e) => S::Expr(self.expr(e)?),
            StmtKind::Var { ty, name, init } => {
                let init = init.as_ref().map(|e| self.expr(e)).transpose()?;
                let ty = match ty {
                    Some(t) => self.ty(t)?,
                    None => None,
                };
                let var = self.declare(name, ty.clone());
                S::Decl(var, ty, init)
            }
            StmtKind::MultiVar { names, init } => {
                let init = self.expr(init)?;
                let vars = names.iter().map(|n| self.declare(n, None)).collect();
                S::Multi(vars, init)
            }
            StmtKind::If { cond, then, els } => {
                let cond = self.expr(cond)?;
                let then = self.scoped(then)?;
                let els = els.as_ref().map(|e| self.scoped(e)).transpose()?;
                S::If(cond, then, els)
            }
            StmtKind::While { cond, body } => S::While(self.expr(cond)?, self.scoped(body)?),
            StmtKind::DoWhile { body, cond } => {
                let body = self.scoped(body)?;
                S::DoWhile(body, self.expr(cond)?)
            }
            StmtKind::For { init, cond, update, body } => {
                self.push_scope();
                let r = self.for_parts(init, cond.as_ref(), update, body);
                self.pop_scope();
                r?
            }
            StmtKind::ForEach { ty, var, iter, keys, body } => {
                let iter = self.expr(iter)?;
                let ty = match ty {
                    Some(t) => self.ty(t)?,
                    None => None,
                };
                self.push_scope();
                let v = self.declare_local(var, ty.clone());
                let body = self.scoped(body);
                self.pop_scope();
                S::ForEach(v, ty, iter, *keys, body?)
            }
            StmtKind::Block(b) => S::Block(self.block(b)?),
            StmtKind::Return(e) => S::Return(e.as_ref().map(|e| self.expr(e)).transpose()?),
            StmtKind::Break(l) => S::Break(l.as_deref().map(Arc::from)),
            StmtKind::Continue(l) => S::Continue(l.as_deref().map(Arc::from)),
            StmtKind::Throw(e) => S::Throw(self.expr(e)?),
            StmtKind::Try { body, catches, finally } => {
                let body = self.block(body)?;
                let mut cs = Vec::new();
                for c in catches {
                    let mut classes = Vec::new();
                    for t in &c.types {
                        classes.push(self.class(t)?);
                    }
                    self.push_scope();
                    let var = self.declare_local(&c.var, None);
                    let body = self.stmts(&c.body, false);
                    self.pop_scope();
                    cs.push(CatchC { classes, var, body: body? });
                }
                let finally = finally.as_ref().map(|f| self.block(f)).transpose()?;
                S::Try(body, cs, finally)
            }
            StmtKind::Switch { subject, arms } => {
                let subject = self.expr(subject)?;
                self.push_scope();
                let r = self.arms(arms);
                self.pop_scope();
                S::Switch(subject, r?)
            }
            StmtKind::Assert { cond, message, text } => {
                let mut names = Vec::new();
                if message.is_some() && !self.lang.is_java_like() {
                    assert_names(cond, &mut names);
                }
                let mut values = Vec::with_capacity(names.len());
                for name in names {
                    values.push((name.into(), Node { k: self.ident(name, s.pos)?, pos: s.pos }));
                }
                let info = AssertInfo { text: text.as_str().into(), values };
                S::Assert(self.expr(cond)?, message.as_ref().map(|m| self.expr(m)).transpose()?, Box::new(info))
            }
            StmtKind::Function { .. } => S::Empty,
            StmtKind::Class(c) => {
                let top = self.stack.len() == 1 && self.stack[0].main && self.stack[0].scopes.len() == 1;
                if !top {
                    return Err(err(
                        s.pos,
                        format!("the class `{}` is declared inside a block: only at the script's top level", c.name),
                    ));
                }
                S::Empty
            }
            StmtKind::Labeled { label, body } => S::Labeled(label.as_str().into(), Box::new(self.stmt(body)?)),
            StmtKind::Empty => S::Empty,
        };
        Ok(St { k, pos: s.pos })
    }

    fn for_parts(
        &mut self,
        init: &[Stmt],
        cond: Option<&Expr>,
        update: &[Expr],
        body: &Stmt,
    ) -> Result<S, CompileError> {
        let init = init.iter().map(|s| self.stmt(s)).collect::<Result<Vec<_>, _>>()?;
        let cond = cond.map(|c| self.expr(c)).transpose()?;
        let update = update.iter().map(|e| self.expr(e)).collect::<Result<Vec<_>, _>>()?;
        let body = self.scoped(body)?;
        Ok(S::For(init, cond, update, body))
    }

    #[allow(clippy::type_complexity)]
    fn arms(&mut self, arms: &[crate::ast::SwitchArm]) -> Result<Vec<(Vec<Node>, Vec<St>)>, CompileError> {
        let mut out = Vec::new();
        for a in arms {
            let labels = a.labels.iter().map(|l| self.expr(l)).collect::<Result<Vec<_>, _>>()?;
            out.push((labels, self.stmts(&a.body, false)?));
        }
        Ok(out)
    }

    /// A type in a declaration, cast or `instanceof`: `None` for `def` and friends.
    fn ty(&mut self, t: &TypeName) -> Result<Option<Arc<Ty>>, CompileError> {
        let simple = simple_type(&t.name);
        if UNTYPED.contains(&simple) && t.dims == 0 {
            return Ok(None);
        }
        Ok(Some(self.any_ty(t)?))
    }

    fn any_ty(&mut self, t: &TypeName) -> Result<Arc<Ty>, CompileError> {
        if let Some(ty) = self.class_ty(t) {
            return Ok(ty);
        }
        let simple = simple_type(&t.name);
        let builtin = BUILTIN_TYPES.contains(&simple) || UNTYPED.contains(&simple);
        let class = classes::resolve(&t.name, self.imports);
        if class.is_none() && !builtin {
            return self.interface_ty(t).ok_or_else(|| unavailable(&t.name, t.pos));
        }
        let converts = (builtin && !UNTYPED.contains(&simple)) || t.dims > 0;
        Ok(Arc::new(Ty { name: t.name.as_str().into(), dims: t.dims, class, converts }))
    }

    fn class(&mut self, t: &TypeName) -> Result<&'static str, CompileError> {
        classes::resolve(&t.name, self.imports).ok_or_else(|| unavailable(&t.name, t.pos))
    }

    fn exprs(&mut self, es: &[Expr]) -> Result<Vec<Node>, CompileError> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn bx(&mut self, e: &Expr) -> Result<Box<Node>, CompileError> {
        Ok(Box::new(self.expr(e)?))
    }

    /// `java.util.Random` written as property accesses: the dotted path, when it names a class
    /// under a package.
    fn package_path(&self, e: &Expr) -> Option<String> {
        let mut segs = Vec::new();
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Property { target, name, safe: false, spread: false } => {
                    segs.push(name.as_str());
                    cur = target;
                }
                ExprKind::Ident(root) => {
                    segs.push(root.as_str());
                    break;
                }
                _ => return None,
            }
        }
        segs.reverse();
        let (last, pkg) = segs.split_last()?;
        let is_pkg = |s: &str| s.starts_with(|c: char| c.is_ascii_lowercase());
        if pkg.is_empty()
            || !PACKAGE_ROOTS.contains(&pkg[0])
            || self.is_local(pkg[0])
            || !pkg.iter().all(|s| is_pkg(s))
            || !last.starts_with(|c: char| c.is_ascii_uppercase())
        {
            return None;
        }
        Some(segs.join("."))
    }

    /// Whether `a.b.class` is the class of the value `a.b` rather than a class literal: its
    /// first name is a variable, or its last is not a type's (`e.class`, `json.class`).
    fn class_of_value(&mut self, ty: &TypeName) -> bool {
        let first = ty.name.split('.').next().unwrap_or_default();
        let last = simple_type(&ty.name);
        ty.dims == 0
            && (self.lookup(first).is_some()
                || (last.starts_with(|c: char| c.is_ascii_lowercase()) && !BUILTIN_TYPES.contains(&last)))
    }

    fn ident(&mut self, name: &str, pos: Pos) -> Result<E, CompileError> {
        if let Some(v) = self.lookup(name) {
            return Ok(E::Var(v));
        }
        if let Some(ctx) = self.class_ctx {
            if let Some((e, _)) = self.class_ident(ctx, name, pos)? {
                return Ok(e);
            }
        }
        if let Some(c) = self.script_class(name) {
            return Ok(E::SClass(c));
        }
        if self.lang == Lang::JavaScript {
            if let Some(i) = self.func_names.iter().position(|f| f == name) {
                return Ok(E::Func(i as u32));
            }
        }
        let capital = name.starts_with(|c: char| c.is_ascii_uppercase());
        if capital && !BINDINGS.contains(&name) && !self.globals.iter().any(|g| &**g == name) {
            return match classes::resolve(name, self.imports) {
                Some(c) => Ok(E::Class(c)),
                None => Err(unavailable(name, pos)),
            };
        }
        if reflective_property(name) {
            return Err(refused_method(name, pos));
        }
        Ok(E::Var(VarRef::Global(self.intern(name))))
    }

    /// The target of an assignment or `++`: an undeclared name is a script-level variable.
    fn place(&mut self, e: &Expr) -> Result<(Node, Option<Arc<Ty>>), CompileError> {
        if let Some((k, ty)) = self.class_place(e)? {
            return Ok((Node { k, pos: e.pos }, ty));
        }
        if let ExprKind::Ident(name) = &e.kind {
            let (v, ty) = match self.lookup(name) {
                Some(VarRef::Local(s)) => (VarRef::Local(s), self.cur().tys[s as usize].clone()),
                Some(v) => (v, None),
                None => (VarRef::Global(self.intern(name)), None),
            };
            return Ok((Node { k: E::Var(v), pos: e.pos }, ty));
        }
        let n = self.expr(e)?;
        match n.k {
            E::Prop(..) | E::Index(..) | E::Var(_) | E::Field(..) | E::StaticField(_) => Ok((n, None)),
            _ => Err(err(e.pos, "this expression cannot be assigned to")),
        }
    }

    fn closure(&mut self, body: &Arc<Body>) -> Result<E, CompileError> {
        Ok(E::Closure(Arc::new(self.proto("closure", body, true, true)?)))
    }

    fn expr(&mut self, e: &Expr) -> Result<Node, CompileError> {
        let pos = e.pos;
        let k = match &e.kind {
            ExprKind::Null => E::Const(Value::Null),
            ExprKind::Bool(b) => E::Const(Value::Bool(*b)),
            ExprKind::Num(n) => E::Const(num(n, pos)?),
            ExprKind::Str(s) => E::Const(Value::Str(s.as_str().into())),
            ExprKind::Char(c) => E::Const(Value::Char(*c)),
            ExprKind::GString(parts) => {
                let mut out = Vec::with_capacity(parts.len());
                for p in parts {
                    out.push(match p {
                        Part::Lit(s) => GPart::Lit(s.as_str().into()),
                        Part::Expr(e) => GPart::Expr(self.expr(e)?),
                    });
                }
                E::GStr(out)
            }
            ExprKind::Ident(name) => self.ident(name, pos)?,
            ExprKind::This => match self.class_ctx {
                Some(ClassCtx { is_static: false, .. }) => self.this_node(pos).k,
                Some(ctx) => E::SClass(ctx.class),
                None => E::This,
            },
            ExprKind::List(items) => E::List(self.exprs(items)?),
            ExprKind::Map(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    out.push((self.expr(k)?, self.expr(v)?));
                }
                E::Map(out)
            }
            ExprKind::Range { from, to, exclusive } => E::Range(self.bx(from)?, self.bx(to)?, *exclusive),
            ExprKind::Unary { op, expr } => E::Unary(*op, self.bx(expr)?),
            ExprKind::IncDec { target, inc, prefix } => {
                let (t, ty) = self.place(target)?;
                E::IncDec(Box::new(t), *inc, *prefix, ty)
            }
            ExprKind::Binary { op, left, right } => E::Bin(*op, self.bx(left)?, self.bx(right)?),
            ExprKind::InstanceOf { expr, ty, negated } => E::InstOf(self.bx(expr)?, self.any_ty(ty)?, *negated),
            ExprKind::Assign { target, op, value } => {
                let value = self.bx(value)?;
                let (t, ty) = self.place(target)?;
                E::Assign(Box::new(t), *op, value, ty)
            }
            ExprKind::Ternary { cond, then, els } => E::Cond(self.bx(cond)?, self.bx(then)?, self.bx(els)?),
            ExprKind::Elvis { left, right } => E::Elvis(self.bx(left)?, self.bx(right)?),
            ExprKind::Property { name, .. } if reflective_property(name) => return Err(refused_method(name, pos)),
            ExprKind::Property { target, name, .. } if reflective_class_property(target, name) => {
                return Err(refused_method(name, pos))
            }
            ExprKind::Property { .. } if self.class_place(e)?.is_some() => {
                self.class_place(e)?.map(|(k, _)| k).unwrap_or(E::Const(Value::Null))
            }
            ExprKind::Property { target, name, .. } if matches!(target.kind, ExprKind::This) => {
                E::Var(VarRef::Global(self.intern(name)))
            }
            ExprKind::Property { target, name, safe, spread } => {
                if let Some(path) = self.package_path(e) {
                    let class = classes::resolve(&path, self.imports).ok_or_else(|| unavailable(&path, pos))?;
                    E::Class(class)
                } else {
                    E::Prop(self.bx(target)?, name.as_str().into(), *safe, *spread)
                }
            }
            ExprKind::Index { target, index, safe } => E::Index(self.bx(target)?, self.bx(index)?, *safe),
            ExprKind::Call { target, name, args, safe, spread } => {
                self.call(target.as_deref(), name, args, *safe, *spread, pos)?
            }
            ExprKind::CallValue { callee, args } => E::CallValue(self.bx(callee)?, self.exprs(args)?),
            ExprKind::New { ty, args } if self.script_class(&ty.name).is_some() => {
                let c = self.script_class(&ty.name).unwrap_or_default();
                if self.shapes[c as usize].interface {
                    return Err(err(ty.pos, format!("`new {}(...)`: an interface cannot be instantiated", ty.name)));
                }
                E::NewObj(c, self.exprs(args)?)
            }
            ExprKind::New { ty, args } => {
                let args = self.exprs(args)?;
                match classes::resolve(&ty.name, self.imports) {
                    Some("java.lang.Thread") => {
                        return Err(err(
                            ty.pos,
                            format!("`new {}(...)` is not available in stampede's scripts{THREADS}", ty.name),
                        ))
                    }
                    Some(c) => E::New(classes::row(c).ok_or_else(|| unavailable(&ty.name, ty.pos))?, args),
                    None if BUILTIN_TYPES.contains(&simple_type(&ty.name)) || simple_type(&ty.name) == "Object" => {
                        E::NewBuiltin(self.any_ty(ty)?, args)
                    }
                    None => return Err(unavailable(&ty.name, ty.pos)),
                }
            }
            ExprKind::NewArray { ty, dims, init } => {
                let t = self.any_ty(ty)?;
                let dims = self.exprs(dims)?;
                let init = init.as_ref().map(|i| self.exprs(i)).transpose()?;
                E::NewArray(t, dims, init)
            }
            ExprKind::Cast { ty, expr, coerce } => E::Cast(self.any_ty(ty)?, self.bx(expr)?, *coerce),
            ExprKind::Closure(body) => self.closure(body)?,
            ExprKind::ClassLit(ty) if self.class_of_value(ty) => {
                // `e.class`, `json.data.class`: the property `class` of a value.
                let mut names = ty.name.split('.');
                let first = names.next().unwrap_or_default();
                let mut t = Expr { kind: ExprKind::Ident(first.into()), pos };
                for name in names.chain(["class"]) {
                    let kind =
                        ExprKind::Property { target: Box::new(t), name: name.into(), safe: false, spread: false };
                    t = Expr { kind, pos };
                }
                return self.expr(&t);
            }
            ExprKind::ClassLit(ty) => E::ClassLit(self.any_ty(ty)?),
            ExprKind::MethodRef { target, name }
                if self.class_ctx.is_some() && matches!(target.kind, ExprKind::This) =>
            {
                E::MethodRef(self.bx(target)?, name.as_str().into())
            }
            ExprKind::MethodRef { target, name } => {
                if matches!(target.kind, ExprKind::This) {
                    match self.func_names.iter().position(|f| f == name) {
                        Some(i) => E::Func(i as u32),
                        None => return Err(err(pos, format!("no script function `{name}` to refer to"))),
                    }
                } else {
                    E::MethodRef(self.bx(target)?, name.as_str().into())
                }
            }
        };
        Ok(Node { k, pos })
    }

    fn call(
        &mut self,
        target: Option<&Expr>,
        name: &str,
        args: &[Expr],
        safe: bool,
        spread: bool,
        pos: Pos,
    ) -> Result<E, CompileError> {
        if let Some(e) = self.super_call(target, name, args, pos)? {
            return Ok(e);
        }
        let args = self.exprs(args)?;
        if let Some(Expr { kind: ExprKind::Ident(c), .. }) = target {
            if let (Some(k), None) = (self.script_class(c), self.lookup(c)) {
                return Ok(E::CallStatic(k, name.into(), args));
            }
        }
        if let Some(ctx) = self.class_ctx {
            if target.is_none() {
                if let Some(v) = self.lookup(name) {
                    return Ok(E::CallVar(v, args));
                }
            }
            if target.is_none() || matches!(target.map(|t| &t.kind), Some(ExprKind::This)) {
                if reflective_method(name, args.len()) {
                    return Err(refused_method(name, pos));
                }
                return Ok(self.class_call(ctx, name, args, pos));
            }
        }
        let free = match target {
            None => true,
            Some(t) => matches!(t.kind, ExprKind::This),
        };
        if free {
            if target.is_none() {
                if let Some(v) = self.lookup(name) {
                    return Ok(E::CallVar(v, args));
                }
            }
            if let Some(i) = self.func_names.iter().position(|f| f == name) {
                return Ok(E::CallFunc(i as u32, args));
            }
            if name == "evaluate" {
                return Err(err(
                    pos,
                    "`evaluate` (running script text made at run time) is not available in stampede's scripts",
                ));
            }
            if reflective_method(name, args.len()) {
                return Err(refused_method(name, pos));
            }
            if !super::eval::is_script_method(name) {
                self.intern(name);
            }
            return Ok(E::CallFree(name.into(), args));
        }
        let t = self.expr(target.expect("a target"))?;
        if let (E::Class(c), false, false) = (&t.k, safe, spread) {
            let Some(row) = classes::static_method(c, name) else {
                let why = if *c == "java.lang.Class" || reflective_method(name, args.len()) {
                    REFLECTION
                } else if *c == "java.lang.Thread" {
                    THREADS
                } else {
                    " (docs/scripts.md)"
                };
                return Err(err(pos, format!("`{c}.{name}` is not available in stampede's scripts{why}")));
            };
            return Ok(E::Static(c, row, args));
        }
        if reflective_method(name, args.len()) {
            return Err(refused_method(name, pos));
        }
        if let (Some(known), false, false) = (self.known_type(&t), safe, spread) {
            if let Some(rows) = known.bind(name) {
                return Ok(E::Bound(Box::new(t), known, rows, name.into(), args));
            }
        }
        Ok(E::Method(Box::new(t), name.into(), args, safe, spread))
    }

    /// The type of a receiver known at load: a string, list or map literal, or a local declared
    /// with such a type (which holds it or null: `Known::holds` checks when the call runs).
    fn known_type(&mut self, t: &Node) -> Option<Known> {
        match &t.k {
            E::Const(Value::Str(_)) | E::GStr(_) => Some(Known::Str),
            E::List(_) => Some(Known::List),
            E::Map(_) => Some(Known::Map),
            E::Var(VarRef::Local(s)) => {
                let ty = self.cur().tys.get(*s as usize)?.clone()?;
                if ty.dims > 0 {
                    return Some(Known::List);
                }
                match simple_type(&ty.name) {
                    "String" => Some(Known::Str),
                    "List" | "ArrayList" | "LinkedList" | "Collection" | "Set" | "HashSet" | "LinkedHashSet" => {
                        Some(Known::List)
                    }
                    "Map" | "HashMap" | "LinkedHashMap" | "TreeMap" => Some(Known::Map),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The variables an assertion names, in order, as Groovy lists them after a failed
/// assertion's message: plain names, not the receivers of a property or a call (`a.size()`).
fn assert_names<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    match &e.kind {
        ExprKind::Ident(n) if !n.starts_with(|c: char| c.is_ascii_uppercase()) => out.push(n),
        ExprKind::Unary { expr, .. } => assert_names(expr, out),
        ExprKind::Binary { left, right, .. } | ExprKind::Elvis { left, right } => {
            assert_names(left, out);
            assert_names(right, out);
        }
        ExprKind::Ternary { cond, then, els } => {
            for x in [cond, then, els] {
                assert_names(x, out);
            }
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| assert_names(a, out)),
        _ => {}
    }
}

fn num(n: &Num, pos: Pos) -> Result<Value, CompileError> {
    Ok(match n {
        Num::Int(i) => Value::Int(*i),
        Num::Long(i) => Value::Long(*i),
        Num::Double(d) | Num::Float(d) => Value::Double(*d),
        Num::Decimal(s) | Num::BigInt(s) => match s.parse::<rust_decimal::Decimal>() {
            Ok(d) => Value::Decimal(d),
            Err(_) => match rust_decimal::Decimal::from_scientific(s) {
                Ok(d) => Value::Decimal(d),
                Err(_) => {
                    return Err(err(pos, format!("the number {s} is too large for stampede's scripts (28 digits)")))
                }
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::{Lang, NoHost, Script};

    /// How many calls of a script resolution bound to their rows (and how many it left dynamic).
    fn bound(src: &str) -> (usize, usize) {
        let program = crate::parse::parse(src, Lang::Groovy).expect("parses");
        let tree = format!("{:?}", super::resolve(&program, Lang::Groovy).expect("resolves").main.body);
        (tree.matches("Bound(").count(), tree.matches("Method(").count())
    }

    fn run(src: &str) -> String {
        let script = Script::compile(src, Lang::Groovy).unwrap_or_else(|e| panic!("{src}: {e}"));
        match script.run(&mut NoHost::default(), &[]) {
            Ok(v) => v.to_string(),
            Err(e) => format!("threw {e}"),
        }
    }

    #[test]
    fn calls_on_receivers_of_a_known_type_bind_to_their_rows() {
        for (src, calls, want) in [
            ("'abc'.length()", (1, 0), "3"),
            ("\"x${1}\".toUpperCase()", (1, 0), "X1"),
            ("[3, 1, 2].sort().join('-')", (1, 1), "1-2-3"),
            ("String s = 'ab'; s.reverse()", (1, 0), "ba"),
            ("List l = [1]; l.add(2); l", (1, 0), "[1, 2]"),
            ("int[] a = [1, 2]; a.size()", (1, 0), "2"),
            ("Map m = [a: 1]; m.put('b', 2); m", (1, 0), "[a:1, b:2]"),
            // A name the type has no row for stays dynamic: what every value has, or an error.
            ("'a'.with { it + 1 }", (0, 1), "a1"),
            ("def s = 'ab'; s.reverse()", (0, 1), "ba"),
            // The declared type does not say what the local holds when the call runs.
            (
                "String s = null; s.length()",
                (1, 0),
                "threw java.lang.NullPointerException: Cannot invoke method length() on null object",
            ),
            ("Map m = [size: { -> 42 }]; m.size()", (1, 0), "42"),
            (
                "List l = null; l.size()",
                (1, 0),
                "threw java.lang.NullPointerException: Cannot invoke method size() on null object",
            ),
        ] {
            assert_eq!(bound(src), calls, "{src}");
            assert_eq!(run(src), want, "{src}");
        }
    }

    fn refusal(src: &str) -> String {
        match Script::compile(src, Lang::Groovy) {
            Ok(_) => panic!("`{src}` loaded"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn reflection_and_threads_are_refused_at_load_with_their_position() {
        for (src, want) in [
            ("x = 1\ny = x.getClass().getMethod('toString')", "line 2, column 5: `getMethod` is not available in stampede's scripts: reflection is not allowed"),
            ("'a'.getClass().getDeclaredField('value')", "`getDeclaredField` is not available in stampede's scripts: reflection is not allowed"),
            ("'a'.class.declaredMethods", "`declaredMethods` is not available in stampede's scripts: reflection is not allowed"),
            ("'a'.class.methods", "`methods` is not available in stampede's scripts: reflection is not allowed"),
            ("def x = 1\nx.class.fields", "line 2, column 1: `fields` is not available"),
            ("String.class.constructors", "`constructors` is not available"),
            ("'a'.getClass().methods", "`methods` is not available"),
            ("'a'.getClass().getFields()", "`getFields` is not available"),
            ("'a'.class.getConstructors()", "`getConstructors` is not available"),
            ("String.metaClass.shout = { -> 1 }", "`metaClass` is not available in stampede's scripts: reflection is not allowed"),
            ("metaClass.x = 1", "`metaClass` is not available"),
            ("def s = 'a'\ns.getMetaClass()", "line 2, column 1: `getMetaClass` is not available"),
            ("'a'.invokeMethod('size', null)", "`invokeMethod` is not available in stampede's scripts: reflection is not allowed"),
            ("invokeMethod('f', null)", "`invokeMethod` is not available"),
            ("'a'.getClass().newInstance()", "`newInstance` is not available"),
            ("Class.forName('java.lang.Runtime')", "`java.lang.Class.forName` is not available in stampede's scripts: reflection is not allowed"),
            ("new GroovyShell().evaluate('1')", "class `GroovyShell` is not available in stampede's scripts: reflection is not allowed"),
            ("Eval.me('1')", "class `Eval` is not available in stampede's scripts: reflection is not allowed"),
            ("java.lang.reflect.Array.newInstance(String, 1)", "class `java.lang.reflect.Array` is not available in stampede's scripts: reflection is not allowed"),
            ("evaluate('1 + 1')", "`evaluate` (running script text made at run time) is not available"),
            ("def t = new Thread({ -> 1 })\nt.start()", "line 1, column 13: `new Thread(...)` is not available in stampede's scripts: threads are not allowed"),
            ("new java.lang.Thread({ -> 1 }).start()", "`new java.lang.Thread(...)` is not available in stampede's scripts: threads are not allowed"),
            ("Thread.start { 1 }", "`java.lang.Thread.start` is not available in stampede's scripts: threads are not allowed"),
            ("Executors.newFixedThreadPool(2)", "class `Executors` is not available in stampede's scripts: threads are not allowed"),
            ("java.util.concurrent.CompletableFuture.runAsync({ -> 1 })", "class `java.util.concurrent.CompletableFuture` is not available in stampede's scripts: threads are not allowed"),
            ("new Timer().schedule({ -> 1 } as TimerTask, 10)", "is not available in stampede's scripts: threads are not allowed"),
            ("synchronized (this) { 1 }", "`synchronized` blocks are not supported"),
        ] {
            let got = refusal(src);
            assert!(got.contains(want), "{src}: {got}");
        }
    }

    #[test]
    fn a_values_class_name_and_the_samplers_method_still_load() {
        for src in [
            "log.info(prev.getClass().getName())",
            "def n = 'a'.getClass().getSimpleName(); n + 'a'.class.name",
            "sampler.getMethod()",
            "def m = [metaClassic: 1]; m.metaClassic",
            "def map = [methods: 'GET', fields: 2, constructors: 3]; map.methods + map.fields + map.constructors",
            "def m = [class: [methods: 1]]; m['class'].methods",
            "Thread.sleep(1); Thread.currentThread().getName()",
            "java.nio.charset.Charset.forName('UTF-8')",
        ] {
            assert!(
                Script::compile(src, Lang::Groovy).is_ok(),
                "{src}: {:?}",
                Script::compile(src, Lang::Groovy).err()
            );
        }
    }
}
