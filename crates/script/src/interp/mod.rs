//! Runs a parsed script: name resolution at compile time, then statements, operators and
//! closures with Groovy's semantics (Java's or JavaScript's where the dialect says so).
//!
//! # Layout
//! - `resolve`: the syntax tree to a resolved tree (`Node`, `St`): every local is a slot in
//!   its frame, every script-level name an index into the globals, every class a canonical
//!   name; unknown classes are compile errors here (`resolve_refuse.rs`: what scripts may not
//!   name; `resolve_class.rs`: the classes a script declares). A call on a receiver whose type
//!   is known here is bound to its rows in `methods`' tables.
//! - `eval`: statements, frames, exceptions, the step budget, and the dispatch of expressions;
//!   `eval_expr.rs` each kind of expression, `eval_ops.rs` the operators on values (text,
//!   equality, comparison, `in`, `instanceof`), `eval_call.rs` properties, indices and calls.
//! - `ops`: operators on numbers (promotion, division, concatenation, comparison).
//!
//! Closures capture variables by reference: a local that some closure captures lives in a
//! shared cell (`Arc<Mutex<Value>>`, so values stay `Send + Sync`); other locals are plain
//! slots.

mod eval;
mod object;
pub(crate) use eval::text_of;
pub(crate) use object::take_sole_fields;

/// Whether `v` is an object of a class the script declared (not a library object).
pub(crate) fn is_script_object(v: &Value) -> bool {
    object::of(v).is_some()
}
mod ops;
mod resolve;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_budget;
#[cfg(test)]
mod tests_class;
#[cfg(test)]
mod tests_real;

use super::ast::{BinOp, Pos, UnOp};
use super::value::Value;
use super::{CompileError, Ctx, Lang, Thrown};
use std::fmt;
use std::sync::{Arc, Mutex};

/// A variable captured by a closure: shared between the frames that see it.
pub(crate) type Cell = Arc<Mutex<Value>>;

/// A resolved script, ready to run.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) unit: Arc<Unit>,
}

/// What every closure of a script shares: its functions, its classes and the names of its
/// globals.
#[derive(Debug)]
pub(crate) struct Unit {
    pub main: Arc<Proto>,
    /// Script-level functions (`def f() {}`, `function f() {}`), hoisted.
    pub funcs: Vec<Arc<Proto>>,
    /// The script-level names (bindings, undeclared assignments), by index.
    pub globals: Vec<Arc<str>>,
    /// The classes the script declares, by index.
    pub classes: Vec<Arc<Class>>,
    /// The static fields of those classes. They belong to the compiled script, shared by every
    /// execution and user, as a class JMeter compiled once (its script cache) keeps them.
    pub statics: Vec<Mutex<Value>>,
    /// Sets the static fields to their initial values (the classes' static initialisers).
    pub static_init: Option<Arc<Proto>>,
    /// Whether `static_init` has run (it runs once, at the first execution that gets there).
    pub statics_ready: Mutex<bool>,
}

/// A class the script declares.
#[derive(Debug)]
pub(crate) struct Class {
    /// Its simple name, as Groovy names a class of a script (`Foo`), interned.
    pub name: &'static str,
    pub parent: Option<u32>,
    /// The interfaces it implements, its parents' included, by simple name.
    pub interfaces: Vec<Arc<str>>,
    /// Its instance fields, its parents' first: an object has a slot for each.
    pub fields: Vec<FieldInfo>,
    /// Its own static fields: their index in `Unit::statics`.
    pub statics: Vec<(Arc<str>, u32, Option<Arc<Ty>>)>,
    /// Its own methods.
    pub methods: Vec<MethodInfo>,
    /// Its own constructors (`this` is parameter 0); none: Groovy's default and named-argument
    /// constructors.
    pub ctors: Vec<Arc<Proto>>,
    /// Its own fields' initialisers (`this` is parameter 0).
    pub init: Arc<Proto>,
}

#[derive(Debug)]
pub(crate) struct FieldInfo {
    pub name: Arc<str>,
    pub ty: Option<Arc<Ty>>,
}

#[derive(Debug)]
pub(crate) struct MethodInfo {
    pub name: Arc<str>,
    pub is_static: bool,
    /// An instance method's parameter 0 is `this`.
    pub proto: Arc<Proto>,
}

/// The code of a function, closure or the script body.
#[derive(Debug)]
pub(crate) struct Proto {
    pub name: Arc<str>,
    /// Parameter `i` lives in slot `i`.
    pub params: Vec<PParam>,
    pub body: Vec<St>,
    pub nslots: usize,
    /// Slots some inner closure captures (they hold a shared cell).
    pub cells: Vec<bool>,
    /// For a closure: where each captured variable comes from in the frame that makes it.
    pub captures: Vec<VarRef>,
    /// The value of the last expression statement is the result (Groovy closures and
    /// methods, script bodies); JavaScript/Java functions need `return`.
    pub implicit_return: bool,
}

#[derive(Debug)]
pub(crate) struct PParam {
    pub ty: Option<Arc<Ty>>,
    pub default: Option<Node>,
}

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VarRef {
    /// A slot of the current frame.
    Local(u32),
    /// A cell the current closure captured.
    Cap(u32),
    /// A script-level variable.
    Global(u32),
}

/// A type as written, resolved: a built-in type the evaluator casts to, or a library class.
#[derive(Debug)]
pub(crate) struct Ty {
    pub name: Arc<str>,
    pub dims: u8,
    pub class: Option<&'static str>,
    /// A value declared with this type is converted (`int n = "5" as int`): primitives,
    /// boxed numbers, String, arrays.
    pub converts: bool,
}

#[derive(Debug)]
pub(crate) struct Node {
    pub k: E,
    pub pos: Pos,
}

type B = Box<Node>;

#[derive(Debug)]
pub(crate) enum GPart {
    Lit(Arc<str>),
    Expr(Node),
}

/// A resolved expression.
#[derive(Debug)]
pub(crate) enum E {
    Const(Value),
    GStr(Vec<GPart>),
    Var(VarRef),
    /// A script function as a value (`this.&f`, JavaScript's `f`).
    Func(u32),
    Class(&'static str),
    This,
    List(Vec<Node>),
    Map(Vec<(Node, Node)>),
    Range(B, B, bool),
    Unary(UnOp, B),
    /// target, increment, prefix, the declared type of a local target
    IncDec(B, bool, bool, Option<Arc<Ty>>),
    Bin(BinOp, B, B),
    InstOf(B, Arc<Ty>, bool),
    Assign(B, Option<BinOp>, B, Option<Arc<Ty>>),
    Cond(B, B, B),
    Elvis(B, B),
    /// target, name, safe, spread
    Prop(B, Arc<str>, bool, bool),
    Index(B, B, bool),
    /// receiver, name, args, safe, spread
    Method(B, Arc<str>, Vec<Node>, bool, bool),
    /// `recv.name(args)` where the receiver's type is known at load: bound to the rows of
    /// `name` in that type's table (`methods::Known`).
    Bound(B, crate::methods::Known, &'static [crate::methods::Method], Arc<str>, Vec<Node>),
    /// `C.m(args)`, bound at load time to its row of the class tables.
    Static(&'static str, &'static crate::classes::Static, Vec<Node>),
    CallVar(VarRef, Vec<Node>),
    CallFunc(u32, Vec<Node>),
    /// `println(x)`, `sleep(n)`, or a closure bound as a global.
    CallFree(Arc<str>, Vec<Node>),
    CallValue(B, Vec<Node>),
    New(&'static crate::classes::Class, Vec<Node>),
    /// A collection type no library class provides (`new ArrayList()` when `classes` has
    /// none): made here.
    NewBuiltin(Arc<Ty>, Vec<Node>),
    NewArray(Arc<Ty>, Vec<Node>, Option<Vec<Node>>),
    Cast(Arc<Ty>, B, bool),
    Closure(Arc<Proto>),
    ClassLit(Arc<Ty>),
    MethodRef(B, Arc<str>),
    /// A class the script declares, as a value.
    SClass(u32),
    /// A field of an object of a declared class, by slot (inside the class: no getter).
    Field(B, u32),
    /// A static field of a declared class (`Unit::statics`).
    StaticField(u32),
    /// `new Foo(args)` of a declared class.
    NewObj(u32, Vec<Node>),
    /// `Foo.m(args)`: a static method of a declared class.
    CallStatic(u32, Arc<str>, Vec<Node>),
    /// `super.m(args)`: this, the parent class (none: `Object`), the method, the arguments.
    SuperCall(B, Option<u32>, Arc<str>, Vec<Node>),
    /// A constructor's `super(args)` (explicit or implied) in class `.0`: the parent's
    /// constructor, then this class's field initialisers.
    SuperCtor(u32, Vec<Node>),
    /// A constructor's `this(args)`: another constructor of class `.0`.
    ThisCtor(u32, Vec<Node>),
}

#[derive(Debug)]
pub(crate) struct St {
    pub k: S,
    pub pos: Pos,
}

#[derive(Debug)]
pub(crate) struct CatchC {
    /// Empty: catches everything.
    pub classes: Vec<&'static str>,
    pub var: VarRef,
    pub body: Vec<St>,
}

/// A resolved statement.
#[derive(Debug)]
pub(crate) enum S {
    Expr(Node),
    Decl(VarRef, Option<Arc<Ty>>, Option<Node>),
    Multi(Vec<VarRef>, Node),
    If(Node, Box<St>, Option<Box<St>>),
    While(Node, Box<St>),
    DoWhile(Box<St>, Node),
    For(Vec<St>, Option<Node>, Vec<Node>, Box<St>),
    /// variable, its type, the iterable, JavaScript's `for (k in obj)`, body
    ForEach(VarRef, Option<Arc<Ty>>, Node, bool, Box<St>),
    Block(Vec<St>),
    Return(Option<Node>),
    Break(Option<Arc<str>>),
    Continue(Option<Arc<str>>),
    Throw(Node),
    Try(Vec<St>, Vec<CatchC>, Option<Vec<St>>),
    Switch(Node, Vec<(Vec<Node>, Vec<St>)>),
    Assert(Node, Option<Node>, Box<AssertInfo>),
    Labeled(Arc<str>, Box<St>),
    Empty,
}

/// What a failed Groovy `assert` reports: its text, and the variables it names (Groovy's
/// `Values: a = 1` after a message), each read when it fails.
#[derive(Debug)]
pub(crate) struct AssertInfo {
    pub(crate) text: Arc<str>,
    pub(crate) values: Vec<(Arc<str>, Node)>,
}

/// Per-execution interpreter state (the step budget, the call depth, the globals).
#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) steps: u64,
    /// Steps allowed (`STEP_BUDGET` when 0).
    pub(crate) budget: u64,
    /// Bytes the execution's values may hold (`budget::MEMORY_BUDGET` when 0).
    pub(crate) memory: u64,
    /// Its time on an async worker: a long execution moves off it.
    pub(crate) slice: crate::slice::Slice,
    pub(crate) depth: u32,
    pub(crate) globals: Vec<Option<Value>>,
    pub(crate) unit: Option<Arc<Unit>>,
    /// The address of the stack where the execution started: nested calls stop before the
    /// thread's stack runs out, whatever its size, in debug builds too.
    pub(crate) stack_base: usize,
}

/// A closure value: its code and the variables it captured.
pub struct Closure {
    pub(crate) kind: ClosureKind,
    /// Arguments fixed by `curry`, put before the call's.
    pub(crate) curried: Vec<Value>,
}

pub(crate) enum ClosureKind {
    Code {
        proto: Arc<Proto>,
        cells: Vec<Cell>,
        unit: Arc<Unit>,
    },
    /// `obj.&name`, `Type::name`: calls the method on the receiver.
    Method {
        recv: Value,
        name: Arc<str>,
    },
}

impl Closure {
    /// How many parameters the closure declares, less those `curry` fixed (a closure written
    /// without `->` has one, `it`); `None` for a method pointer. `Map.each { k, v -> }` and
    /// friends pass the key and value apart when this is 2.
    pub fn arity(&self) -> Option<usize> {
        match &self.kind {
            ClosureKind::Code { proto, .. } => Some(proto.params.len().saturating_sub(self.curried.len())),
            ClosureKind::Method { .. } => None,
        }
    }
}

impl fmt::Debug for Closure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ClosureKind::Code { proto, .. } => write!(f, "Closure({})", proto.name),
            ClosureKind::Method { name, .. } => write!(f, "MethodClosure({name})"),
        }
    }
}

/// Steps (loop iterations and calls) one execution may take before it is stopped; bytes made
/// or copied count too, `budget::BYTES_PER_STEP` to a step.
pub(crate) const STEP_BUDGET: u64 = 50_000_000;
/// How often (in steps) the evaluator takes the work the meter counted, asks the host whether
/// to stop, and looks at the clock of a running execution: a power of two.
pub(crate) const TICK: u64 = 1024;
/// Nested calls one execution may make before `java.lang.StackOverflowError`.
pub(crate) const MAX_DEPTH: u32 = 200;
/// Bytes of stack one execution may use (threads get 2 MiB by default).
pub(crate) const STACK_BUDGET: usize = 1024 * 1024;

/// Where the stack is now (it grows down on every platform stampede runs on).
#[inline(never)]
pub(crate) fn stack_here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

pub(crate) fn compile(program: super::ast::Program, lang: Lang) -> Result<Compiled, CompileError> {
    Ok(Compiled { unit: Arc::new(resolve::resolve(&program, lang)?) })
}

/// Runs a compiled script; `globals` are its script-level variables, in and out.
pub(crate) fn run(cx: &mut Ctx<'_>, code: &Compiled, globals: &mut Vec<(String, Value)>) -> Result<Value, Thrown> {
    let unit = &code.unit;
    let mut mine: Vec<Option<Value>> = vec![None; unit.globals.len()];
    let mut from: Vec<Option<usize>> = vec![None; unit.globals.len()];
    for (i, name) in unit.globals.iter().enumerate() {
        if let Some(j) = globals.iter().position(|(n, _)| n.as_str() == &**name) {
            mine[i] = Some(globals[j].1.clone());
            from[i] = Some(j);
        }
    }
    cx.state.globals = mine;
    cx.state.unit = Some(unit.clone());
    cx.state.steps = 0;
    cx.state.depth = 0;
    cx.state.stack_base = stack_here();
    let memory = if cx.state.memory == 0 { super::budget::MEMORY_BUDGET } else { cx.state.memory };
    let meter = super::budget::enter(memory);
    let result = eval::run_main(cx, unit);
    drop(meter);
    let mine = std::mem::take(&mut cx.state.globals);
    for (i, v) in mine.into_iter().enumerate() {
        let Some(v) = v else { continue };
        match from[i] {
            Some(j) => globals[j].1 = v,
            None => globals.push((unit.globals[i].to_string(), v)),
        }
    }
    result
}

pub(crate) fn call_value(cx: &mut Ctx<'_>, callee: &Value, args: Vec<Value>) -> Result<Value, Thrown> {
    match callee {
        Value::Closure(c) => eval::call_closure(cx, c, args),
        other => match object::of(other) {
            Some(o) => o.call_as_function(cx, args),
            None => Err(Thrown::no_method(other.type_name(), "call")),
        },
    }
}
