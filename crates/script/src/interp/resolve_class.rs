//! Classes the script declares: their shapes first (names, parents, fields, methods), so that
//! any code may name any of them, then their members' code.

use super::{err, unavailable, Func, Resolver};
use crate::ast::{ClassDecl, Expr, ExprKind, MethodDecl, Pos, Stmt, StmtKind, TypeName};
use crate::interp::{object, Class, FieldInfo, MethodInfo, Node, PParam, Proto, St, Ty, VarRef, E, S};
use crate::CompileError;
use std::sync::Arc;

/// Library interfaces a script class may implement: only its methods matter, and a call that
/// expects one of them (a comparator, a task) calls the method of that name.
pub(crate) const INTERFACES: &[(&str, &str)] = &[
    ("Comparator", "compare"),
    ("Comparable", "compareTo"),
    ("Runnable", "run"),
    ("Callable", "call"),
    ("Supplier", "get"),
    ("Function", "apply"),
    ("BiFunction", "apply"),
    ("UnaryOperator", "apply"),
    ("BinaryOperator", "apply"),
    ("Consumer", "accept"),
    ("BiConsumer", "accept"),
    ("Predicate", "test"),
    ("BiPredicate", "test"),
    ("Serializable", ""),
    ("Cloneable", ""),
    ("GroovyObject", ""),
];

const INTERFACE_PACKAGES: &[&str] =
    &["java.lang.", "java.util.", "java.util.function.", "java.util.concurrent.", "java.io.", "groovy.lang."];

/// A library interface by name as written (`Comparator`, `java.util.Comparator`), by simple name.
fn library_interface(name: &str) -> Option<&'static str> {
    let simple = INTERFACE_PACKAGES.iter().find_map(|p| name.strip_prefix(p)).unwrap_or(name);
    INTERFACES.iter().find(|(n, _)| *n == simple).map(|(n, _)| *n)
}

/// A resolved expression with its declared type (a field's).
pub(super) type Typed = (E, Option<Arc<Ty>>);

/// The classes, and the static initialiser of them all.
type Resolved = (Vec<Arc<Class>>, Option<Arc<Proto>>);

/// What the code of a script may know of a declared class before its members are resolved.
/// Levels of `extends` a class may have.
const MAX_EXTENDS: usize = 64;

pub(super) struct Shape {
    pub name: String,
    pub interned: &'static str,
    pub parent: Option<u32>,
    pub interface: bool,
    pub interfaces: Vec<Arc<str>>,
    /// Instance fields, parents' first: name and type.
    pub fields: Vec<(String, Option<Arc<Ty>>)>,
    /// Own static fields: name, index in the unit's statics, type.
    pub statics: Vec<(String, u32, Option<Arc<Ty>>)>,
    /// Own methods: name and whether static.
    pub methods: Vec<(String, bool)>,
}

/// Where the resolver is: inside class `class`, in static code or not.
#[derive(Clone, Copy)]
pub(super) struct ClassCtx {
    pub class: u32,
    pub is_static: bool,
}

pub(super) fn class_decls(body: &[Stmt]) -> Vec<&Arc<ClassDecl>> {
    body.iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Class(c) => Some(c),
            _ => None,
        })
        .collect()
}

impl Resolver<'_> {
    pub(super) fn script_class(&self, name: &str) -> Option<u32> {
        self.shapes.iter().position(|s| s.name == name).map(|i| i as u32)
    }

    /// Names every class, its parent, interfaces and fields; the order they are written in
    /// does not matter.
    pub(super) fn declare_classes(&mut self, decls: &[&Arc<ClassDecl>]) -> Result<(), CompileError> {
        for d in decls {
            if self.shapes.iter().any(|s| s.name == d.name) {
                return Err(err(d.pos, format!("the class `{}` is declared twice", d.name)));
            }
            self.shapes.push(Shape {
                name: d.name.clone(),
                interned: object::intern(&d.name),
                parent: None,
                interface: d.interface,
                interfaces: Vec::new(),
                fields: Vec::new(),
                statics: Vec::new(),
                methods: Vec::new(),
            });
        }
        for (i, d) in decls.iter().enumerate() {
            if let Some(t) = &d.extends {
                match self.script_class(&t.name) {
                    Some(p) if !self.shapes[p as usize].interface => self.shapes[i].parent = Some(p),
                    Some(_) => {
                        return Err(err(
                            t.pos,
                            format!("`{}` extends the interface `{}`: use `implements`", d.name, t.name),
                        ))
                    }
                    None if matches!(t.name.as_str(), "Object" | "java.lang.Object") => {}
                    None => return Err(unavailable(&t.name, t.pos)),
                }
            }
            let mut interfaces = Vec::new();
            for t in &d.implements {
                match self.script_class(&t.name) {
                    Some(c) if self.shapes[c as usize].interface => interfaces.push(Arc::from(t.name.as_str())),
                    Some(_) => {
                        return Err(err(
                            t.pos,
                            format!("`{}` implements the class `{}`: use `extends`", d.name, t.name),
                        ))
                    }
                    None => match library_interface(&t.name) {
                        Some(n) => interfaces.push(Arc::from(n)),
                        None => return Err(unavailable(&t.name, t.pos)),
                    },
                }
            }
            self.shapes[i].interfaces = interfaces;
        }
        // Construction, `super` calls and `visit` recurse once per level on the Rust stack: a
        // class that extends itself, then a chain too deep, are refused first, each walk bounded.
        for (i, d) in decls.iter().enumerate() {
            let mut cur = self.shapes[i].parent;
            for _ in 0..=MAX_EXTENDS {
                match cur {
                    Some(p) if p as usize == i => {
                        return Err(err(d.pos, format!("the class `{}` extends itself", d.name)));
                    }
                    Some(p) => cur = self.shapes[p as usize].parent,
                    None => break,
                }
            }
        }
        for (i, d) in decls.iter().enumerate() {
            let mut levels = 0;
            let mut cur = self.shapes[i].parent;
            while let Some(p) = cur {
                if p as usize == i {
                    break;
                }
                levels += 1;
                if levels > MAX_EXTENDS {
                    let msg = format!("the class `{}` extends a chain of more than {MAX_EXTENDS} classes", d.name);
                    return Err(err(d.pos, msg));
                }
                cur = self.shapes[p as usize].parent;
            }
        }
        // Parents before children; a cycle is an error.
        let mut order = Vec::new();
        let mut state = vec![0u8; decls.len()];
        for i in 0..decls.len() {
            self.visit(i, &mut state, &mut order, decls)?;
        }
        for i in order {
            let d = decls[i];
            let (mut fields, mut interfaces) = match self.shapes[i].parent {
                Some(p) => (self.shapes[p as usize].fields.clone(), self.shapes[p as usize].interfaces.clone()),
                None => (Vec::new(), Vec::new()),
            };
            // An interface's own interfaces are those it extends: theirs come along.
            for n in self.shapes[i].interfaces.clone() {
                if let Some(c) = self.script_class(&n) {
                    interfaces.extend(self.shapes[c as usize].interfaces.iter().cloned());
                }
                interfaces.push(n);
            }
            let mut statics = Vec::new();
            for f in &d.fields {
                let ty = match &f.ty {
                    Some(t) => self.ty(t)?,
                    None => None,
                };
                // An interface's fields are constants.
                if f.is_static || d.interface {
                    statics.push((f.name.clone(), self.nstatics, ty));
                    self.nstatics += 1;
                } else if let Some(j) = fields.iter().position(|(n, _)| n == &f.name) {
                    fields[j].1 = ty;
                } else {
                    fields.push((f.name.clone(), ty));
                }
            }
            let s = &mut self.shapes[i];
            s.fields = fields;
            s.interfaces = interfaces;
            s.statics = statics;
            s.methods = d.methods.iter().map(|m| (m.name.clone(), m.is_static)).collect();
        }
        Ok(())
    }

    fn visit(
        &self,
        i: usize,
        state: &mut [u8],
        order: &mut Vec<usize>,
        decls: &[&Arc<ClassDecl>],
    ) -> Result<(), CompileError> {
        match state[i] {
            2 => return Ok(()),
            1 => return Err(err(decls[i].pos, format!("the class `{}` extends itself", decls[i].name))),
            _ => {}
        }
        state[i] = 1;
        if let Some(p) = self.shapes[i].parent {
            self.visit(p as usize, state, order, decls)?;
        }
        state[i] = 2;
        order.push(i);
        Ok(())
    }

    /// The type of a declaration that names a declared class: no conversion.
    pub(super) fn class_ty(&self, t: &TypeName) -> Option<Arc<Ty>> {
        let c = self.script_class(&t.name)?;
        Some(Arc::new(Ty {
            name: t.name.as_str().into(),
            dims: t.dims,
            class: Some(self.shapes[c as usize].interned),
            converts: t.dims > 0,
        }))
    }

    /// A library interface in a declaration (`Comparator c = new ByName()`): no conversion.
    pub(super) fn interface_ty(&self, t: &TypeName) -> Option<Arc<Ty>> {
        let n = library_interface(&t.name)?;
        Some(Arc::new(Ty { name: n.into(), dims: t.dims, class: None, converts: t.dims > 0 }))
    }

    /// The slot of an instance field of class `c` (its parents' included).
    pub(super) fn field_slot(&self, c: u32, name: &str) -> Option<(u32, Option<Arc<Ty>>)> {
        let s = &self.shapes[c as usize];
        s.fields.iter().position(|(n, _)| n == name).map(|i| (i as u32, s.fields[i].1.clone()))
    }

    /// A static field of class `c` or of its parents or interfaces.
    pub(super) fn static_field(&self, c: u32, name: &str) -> Option<(u32, Option<Arc<Ty>>)> {
        let mut cur = Some(c);
        while let Some(k) = cur {
            let s = &self.shapes[k as usize];
            if let Some((_, g, t)) = s.statics.iter().find(|(n, _, _)| n == name) {
                return Some((*g, t.clone()));
            }
            for i in &s.interfaces {
                if let Some(ic) = self.script_class(i) {
                    if let Some((_, g, t)) = self.shapes[ic as usize].statics.iter().find(|(n, _, _)| n == name) {
                        return Some((*g, t.clone()));
                    }
                }
            }
            cur = s.parent;
        }
        None
    }

    /// Whether class `c` (or a parent) has a method of this name.
    fn has_method(&self, c: u32, name: &str) -> bool {
        let mut cur = Some(c);
        while let Some(k) = cur {
            let s = &self.shapes[k as usize];
            if s.methods.iter().any(|(n, _)| n == name) {
                return true;
            }
            cur = s.parent;
        }
        false
    }

    /// `this` inside an instance member (a local of the member, captured by its closures).
    pub(super) fn this_node(&mut self, pos: Pos) -> Node {
        let v = self.lookup("this").unwrap_or(VarRef::Local(0));
        Node { k: E::Var(v), pos }
    }

    /// A name inside a class that is no local: a field, a static field, a class, or (in an
    /// instance member) a property of `this`, found when it runs.
    pub(super) fn class_ident(&mut self, ctx: ClassCtx, name: &str, pos: Pos) -> Result<Option<Typed>, CompileError> {
        if !ctx.is_static {
            if let Some((slot, ty)) = self.field_slot(ctx.class, name) {
                return Ok(Some((E::Field(Box::new(self.this_node(pos)), slot), ty)));
            }
        }
        if let Some((g, ty)) = self.static_field(ctx.class, name) {
            return Ok(Some((E::StaticField(g), ty)));
        }
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Ok(None);
        }
        if ctx.is_static {
            return Err(err(
                pos,
                format!(
                    "`{name}` in a static member of `{}` is no local variable, static field or class",
                    self.shapes[ctx.class as usize].name
                ),
            ));
        }
        Ok(Some((E::Prop(Box::new(self.this_node(pos)), name.into(), false, false), None)))
    }

    /// `this.name` inside an instance member: the field, else the property.
    pub(super) fn this_prop(&mut self, ctx: ClassCtx, name: &str, pos: Pos) -> (E, Option<Arc<Ty>>) {
        if let (false, Some((slot, ty))) = (ctx.is_static, self.field_slot(ctx.class, name)) {
            return (E::Field(Box::new(self.this_node(pos)), slot), ty);
        }
        if let Some((g, ty)) = self.static_field(ctx.class, name) {
            return (E::StaticField(g), ty);
        }
        (E::Prop(Box::new(self.this_node(pos)), name.into(), false, false), None)
    }

    /// A place inside or naming a class, with its declared type: a field or static field
    /// written `x` or `this.x` inside the class, `Foo.X` anywhere.
    pub(super) fn class_place(&mut self, e: &Expr) -> Result<Option<Typed>, CompileError> {
        match &e.kind {
            ExprKind::Ident(name) => {
                let Some(ctx) = self.class_ctx else { return Ok(None) };
                if self.lookup(name).is_some() {
                    return Ok(None);
                }
                self.class_ident(ctx, name, e.pos)
            }
            ExprKind::Property { target, name, safe: false, spread: false } => match &target.kind {
                ExprKind::This => match self.class_ctx {
                    Some(ctx) => Ok(Some(self.this_prop(ctx, name, e.pos))),
                    None => Ok(None),
                },
                ExprKind::Ident(t) if t == "super" && self.lookup(t).is_none() => match self.class_ctx {
                    Some(ctx) if !ctx.is_static => Ok(Some(self.this_prop(ctx, name, e.pos))),
                    _ => Ok(None),
                },
                ExprKind::Ident(c) if self.lookup(c).is_none() => {
                    let found = self.script_class(c).and_then(|k| self.static_field(k, name));
                    Ok(found.map(|(g, ty)| (E::StaticField(g), ty)))
                }
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// A call inside a class: `m(args)` and `this.m(args)` go to the class's methods (a
    /// script's own functions are not visible there, as in Groovy).
    pub(super) fn class_call(&mut self, ctx: ClassCtx, name: &str, args: Vec<Node>, pos: Pos) -> E {
        let has = self.has_method(ctx.class, name);
        if !has && crate::interp::eval::is_script_method(name) {
            return E::CallFree(name.into(), args);
        }
        if ctx.is_static {
            return E::CallStatic(ctx.class, name.into(), args);
        }
        E::Method(Box::new(self.this_node(pos)), name.into(), args, false, false)
    }

    /// `super.m(args)`, `super(args)`, `this(args)`: `None` when the call is none of those.
    pub(super) fn super_call(
        &mut self,
        target: Option<&Expr>,
        name: &str,
        args: &[Expr],
        pos: Pos,
    ) -> Result<Option<E>, CompileError> {
        let Some(ctx) = self.class_ctx else { return Ok(None) };
        let is_super = matches!(target.map(|t| &t.kind), Some(ExprKind::Ident(n)) if n == "super")
            && self.lookup("super").is_none();
        if !is_super {
            if target.is_none() && name == "super" && self.lookup("super").is_none() {
                return Err(err(pos, "`super(...)` is only the first statement of a constructor"));
            }
            return Ok(None);
        }
        if ctx.is_static {
            return Err(err(pos, "`super` in a static member"));
        }
        let args = self.exprs(args)?;
        let this = Box::new(self.this_node(pos));
        Ok(Some(E::SuperCall(this, self.shapes[ctx.class as usize].parent, name.into(), args)))
    }

    /// The classes' code: constructors, methods, field initialisers, and the static
    /// initialiser of them all.
    pub(super) fn resolve_classes(&mut self, decls: &[&Arc<ClassDecl>]) -> Result<Resolved, CompileError> {
        let mut out = Vec::with_capacity(decls.len());
        for (i, d) in decls.iter().enumerate() {
            let c = i as u32;
            let init = self.member(c, false, "<init>", &[], |r| {
                let mut body = Vec::new();
                for f in d.fields.iter().filter(|f| !f.is_static && !d.interface) {
                    let Some(e) = &f.init else { continue };
                    let value = r.expr(e)?;
                    let (slot, ty) = r.field_slot(c, &f.name).expect("a declared field");
                    let target = Node { k: E::Field(Box::new(r.this_node(f.pos)), slot), pos: f.pos };
                    let k = E::Assign(Box::new(target), None, Box::new(value), ty);
                    body.push(St { k: S::Expr(Node { k, pos: f.pos }), pos: f.pos });
                }
                Ok(body)
            })?;
            let mut ctors = Vec::new();
            for m in &d.ctors {
                ctors.push(Arc::new(self.ctor(c, m)?));
            }
            let mut methods = Vec::new();
            for m in &d.methods {
                let proto = self.member(c, m.is_static, &m.name, &m.body.params, |r| r.stmts(&m.body.stmts, false))?;
                methods.push(MethodInfo {
                    name: m.name.as_str().into(),
                    is_static: m.is_static,
                    proto: Arc::new(proto),
                });
            }
            let s = &self.shapes[i];
            out.push(Arc::new(Class {
                name: s.interned,
                parent: s.parent,
                interfaces: s.interfaces.clone(),
                fields: s.fields.iter().map(|(n, t)| FieldInfo { name: n.as_str().into(), ty: t.clone() }).collect(),
                statics: s.statics.iter().map(|(n, g, t)| (Arc::from(n.as_str()), *g, t.clone())).collect(),
                methods,
                ctors,
                init: Arc::new(init),
            }));
        }
        // One static initialiser for all the classes, in the order they are written.
        if self.nstatics == 0 {
            return Ok((out, None));
        }
        let saved = std::mem::take(&mut self.stack);
        let saved_ctx = self.class_ctx;
        self.stack.push(Func::new(false));
        let mut body = Vec::new();
        let mut result = Ok(());
        'all: for (i, d) in decls.iter().enumerate() {
            self.class_ctx = Some(ClassCtx { class: i as u32, is_static: true });
            for f in d.fields.iter().filter(|f| f.is_static || d.interface) {
                let Some(e) = &f.init else { continue };
                let value = match self.expr(e) {
                    Ok(v) => v,
                    Err(e) => {
                        result = Err(e);
                        break 'all;
                    }
                };
                let (g, ty) = self.static_field(i as u32, &f.name).expect("a declared static field");
                let target = Node { k: E::StaticField(g), pos: f.pos };
                let k = E::Assign(Box::new(target), None, Box::new(value), ty);
                body.push(St { k: S::Expr(Node { k, pos: f.pos }), pos: f.pos });
            }
        }
        let f = self.stack.pop().expect("the initialiser's frame");
        self.stack = saved;
        self.class_ctx = saved_ctx;
        result?;
        let proto = Proto {
            name: "<clinit>".into(),
            params: Vec::new(),
            body,
            nslots: f.cells.len(),
            cells: f.cells,
            captures: Vec::new(),
            implicit_return: false,
        };
        Ok((out, Some(Arc::new(proto))))
    }

    /// A constructor: `super(...)` or `this(...)` first (an implied `super()` when neither).
    fn ctor(&mut self, c: u32, m: &MethodDecl) -> Result<Proto, CompileError> {
        self.member(c, false, &m.name, &m.body.params, |r| {
            let stmts = &m.body.stmts;
            let first = stmts.first().and_then(|s| match &s.kind {
                StmtKind::Expr(Expr { kind: ExprKind::Call { target: None, name, args, .. }, pos })
                    if name == "super" =>
                {
                    Some((true, args, *pos))
                }
                StmtKind::Expr(Expr { kind: ExprKind::CallValue { callee, args }, pos })
                    if matches!(callee.kind, ExprKind::This) =>
                {
                    Some((false, args, *pos))
                }
                _ => None,
            });
            let (lead, rest) = match first {
                Some((is_super, args, pos)) => {
                    let args = r.exprs(args)?;
                    let k = if is_super { E::SuperCtor(c, args) } else { E::ThisCtor(c, args) };
                    (Node { k, pos }, &stmts[1..])
                }
                None => (Node { k: E::SuperCtor(c, Vec::new()), pos: m.pos }, &stmts[..]),
            };
            let mut body = vec![St { k: S::Expr(lead), pos: m.pos }];
            body.extend(r.stmts(rest, false)?);
            Ok(body)
        })
    }

    /// The code of a member of class `c`: an instance member's parameter 0 is `this`.
    fn member(
        &mut self,
        c: u32,
        is_static: bool,
        name: &str,
        params: &[crate::ast::Param],
        body: impl FnOnce(&mut Self) -> Result<Vec<St>, CompileError>,
    ) -> Result<Proto, CompileError> {
        let saved = std::mem::take(&mut self.stack);
        let saved_ctx = self.class_ctx.replace(ClassCtx { class: c, is_static });
        self.stack.push(Func::new(false));
        let result = (|| {
            let mut ps = Vec::new();
            if !is_static {
                self.declare_local("this", None);
                ps.push(PParam { ty: None, default: None });
            }
            for p in params {
                let ty = match &p.ty {
                    Some(t) => self.ty(t)?,
                    None => None,
                };
                let default = p.default.as_ref().map(|d| self.expr(d)).transpose()?;
                self.declare_local(&p.name, ty.clone());
                ps.push(PParam { ty, default });
            }
            Ok((ps, body(self)?))
        })();
        let f = self.stack.pop().expect("the member's frame");
        self.stack = saved;
        self.class_ctx = saved_ctx;
        let (params, body) = result?;
        Ok(Proto {
            name: format!("{}.{name}", self.shapes[c as usize].name).into(),
            params,
            body,
            nslots: f.cells.len(),
            cells: f.cells,
            captures: Vec::new(),
            implicit_return: true,
        })
    }
}
