//! Statements and expressions: the evaluator proper.

use super::object;
use super::ops;
use super::{
    AssertInfo, CatchC, Cell, Closure, ClosureKind, GPart, Node, Proto, St, Ty, Unit, VarRef, E, MAX_DEPTH, S,
    STEP_BUDGET, TICK,
};
use crate::ast::{BinOp, UnOp};
use crate::budget;
use crate::value::{self, capitalize, lock, Key, ListKind, ListObj, MapObj, Value};
use crate::INTERRUPTED_CLASS;
use crate::{classes, methods, Ctx, Lang, Thrown};
use indexmap::IndexMap;
use std::cmp::Ordering;
use std::sync::{Arc, Mutex};

#[path = "eval_call.rs"]
mod call;
#[path = "eval_expr.rs"]
mod expr;
#[path = "eval_ops.rs"]
mod operators;

use call::*;
pub(crate) use call::{call_closure, call_method_value, invoke};
use expr::*;
use operators::*;
pub(crate) use operators::{binop, text_of};

pub(crate) type R<T> = Result<T, Thrown>;

/// The work a throw counts, in bytes (64 steps).
const THROW_WORK: u64 = 64 * budget::BYTES_PER_STEP;

/// The class of the error that stops a runaway script; no `catch` takes it.
const BUDGET_CLASS: &str = "stampede.ScriptStepLimit";

enum Slot {
    V(Value),
    C(Cell),
}

struct Frame<'p> {
    proto: &'p Proto,
    unit: &'p Arc<Unit>,
    slots: Vec<Slot>,
    caps: &'p [Cell],
    /// The value of the last expression statement.
    last: Value,
}

impl<'p> Frame<'p> {
    fn new(proto: &'p Proto, unit: &'p Arc<Unit>, caps: &'p [Cell]) -> Frame<'p> {
        let mut slots = Vec::with_capacity(proto.nslots);
        slots.resize_with(proto.nslots, || Slot::V(Value::Null));
        Frame { proto, unit, slots, caps, last: Value::Null }
    }
}

/// A frame's values are dropped with it: those nobody else holds leave the memory budget.
impl Drop for Frame<'_> {
    fn drop(&mut self) {
        for slot in &self.slots {
            match slot {
                Slot::V(v) => budget::release_dropped(v),
                Slot::C(c) if Arc::strong_count(c) == 1 => budget::release_dropped(&lock(c)),
                Slot::C(_) => {}
            }
        }
        budget::release_dropped(&self.last);
    }
}

enum Flow {
    Normal,
    Break(Option<Arc<str>>),
    Continue(Option<Arc<str>>),
    Return(Value),
}

pub(crate) fn is_script_method(name: &str) -> bool {
    matches!(name, "println" | "print" | "printf" | "sprintf" | "sleep")
}

pub(crate) fn run_main(cx: &mut Ctx<'_>, unit: &Arc<Unit>) -> R<Value> {
    object::ensure_statics(cx, unit)?;
    let mut f = Frame::new(&unit.main, unit, &[]);
    match exec_block(cx, &mut f, &unit.main.body)? {
        Flow::Return(v) => Ok(v),
        _ => Ok(std::mem::take(&mut f.last)),
    }
}

fn step(cx: &mut Ctx<'_>) -> R<()> {
    cx.state.steps += 1;
    if cx.state.steps & (TICK - 1) == 0 {
        tick(cx)?;
    }
    if cx.state.steps > STEP_BUDGET || (cx.state.budget != 0 && cx.state.steps > cx.state.budget) {
        let budget = if cx.state.budget == 0 { STEP_BUDGET } else { cx.state.budget };
        return Err(Thrown::new(
            BUDGET_CLASS,
            format!("the script was stopped after {budget} steps (loop iterations and calls): a runaway loop?"),
        ));
    }
    Ok(())
}

/// Every [`TICK`] steps: the bytes made or copied meanwhile become steps, the host may stop
/// the script (the run is stopping), and a long execution leaves its async worker
/// (`crate::slice`).
#[cold]
fn tick(cx: &mut Ctx<'_>) -> R<()> {
    cx.state.steps = cx.state.steps.saturating_add(budget::take_work_steps());
    if cx.host.interrupted() {
        return Err(Thrown::new(INTERRUPTED_CLASS, "the script was interrupted: the run is stopping"));
    }
    if budget::take_tripped() {
        return Err(budget::out_of_memory(budget::MEMORY_BUDGET));
    }
    if budget::take_deep() {
        return Err(budget::too_deep());
    }
    cx.state.slice.tick();
    Ok(())
}

/// A value a call or an operator gave, charged to the memory budget when it is new.
fn made(v: Value) -> R<Value> {
    budget::charge_new(&v)?;
    Ok(v)
}

fn npe(message: String) -> Thrown {
    Thrown::new("java.lang.NullPointerException", message)
}

fn missing_property(name: &str, class: &str) -> Thrown {
    Thrown::new("groovy.lang.MissingPropertyException", format!("No such property: {name} for class: {class}"))
}

// ---------------------------------------------------------------------------------------
// Variables

fn get_var(cx: &mut Ctx<'_>, f: &Frame<'_>, v: VarRef) -> R<Value> {
    match v {
        VarRef::Local(s) => Ok(match &f.slots[s as usize] {
            Slot::V(v) => v.clone(),
            Slot::C(c) => lock(c).clone(),
        }),
        VarRef::Cap(i) => Ok(lock(&f.caps[i as usize]).clone()),
        VarRef::Global(i) => match cx.state.globals.get(i as usize).cloned().flatten() {
            Some(v) => Ok(v),
            None => {
                let name = global_name(cx, i);
                match cx.lang {
                    Lang::Groovy => Err(missing_property(&name, "Script1")),
                    Lang::JavaScript => Err(Thrown::new("ReferenceError", format!("\"{name}\" is not defined"))),
                    _ => Ok(Value::Null),
                }
            }
        },
    }
}

fn global_name(cx: &Ctx<'_>, i: u32) -> String {
    cx.state.unit.as_ref().and_then(|u| u.globals.get(i as usize)).map(|n| n.to_string()).unwrap_or_default()
}

fn set_var(cx: &mut Ctx<'_>, f: &mut Frame<'_>, v: VarRef, val: Value) {
    let old = match v {
        VarRef::Local(s) => match &mut f.slots[s as usize] {
            Slot::V(v) => std::mem::replace(v, val),
            Slot::C(c) => std::mem::replace(&mut *lock(c), val),
        },
        VarRef::Cap(i) => std::mem::replace(&mut *lock(&f.caps[i as usize]), val),
        VarRef::Global(i) => return set_global(cx, i, val),
    };
    budget::release_dropped(&old);
}

fn set_global(cx: &mut Ctx<'_>, i: u32, val: Value) {
    let i = i as usize;
    if cx.state.globals.len() <= i {
        cx.state.globals.resize(i + 1, None);
    }
    if let Some(old) = cx.state.globals[i].replace(val) {
        budget::release_dropped(&old);
    }
}

/// A new variable (a fresh cell when a closure captures it: each loop iteration gets its own).
fn declare(cx: &mut Ctx<'_>, f: &mut Frame<'_>, v: VarRef, val: Value) {
    match v {
        VarRef::Local(s) => {
            let s = s as usize;
            let new = if f.proto.cells[s] { Slot::C(Arc::new(Mutex::new(val))) } else { Slot::V(val) };
            match std::mem::replace(&mut f.slots[s], new) {
                Slot::V(old) => budget::release_dropped(&old),
                Slot::C(c) if Arc::strong_count(&c) == 1 => budget::release_dropped(&lock(&c)),
                Slot::C(_) => {}
            }
        }
        other => set_var(cx, f, other, val),
    }
}

fn capture(f: &mut Frame<'_>, v: VarRef) -> Cell {
    match v {
        VarRef::Local(s) => {
            let slot = &mut f.slots[s as usize];
            match slot {
                Slot::C(c) => c.clone(),
                Slot::V(v) => {
                    let c = Arc::new(Mutex::new(std::mem::take(v)));
                    *slot = Slot::C(c.clone());
                    c
                }
            }
        }
        VarRef::Cap(i) => f.caps[i as usize].clone(),
        VarRef::Global(_) => Arc::new(Mutex::new(Value::Null)),
    }
}

pub(crate) fn zero_of(ty: Option<&Arc<Ty>>) -> Value {
    match ty.filter(|t| t.dims == 0).map(|t| &*t.name) {
        Some("int" | "short" | "byte") => Value::Int(0),
        Some("long") => Value::Long(0),
        Some("double" | "float") => Value::Double(0.0),
        Some("boolean") => Value::Bool(false),
        Some("char") => Value::Char('\0'),
        _ => Value::Null,
    }
}

/// A value stored into a typed variable: converted as the dialect does.
pub(crate) fn convert(cx: &mut Ctx<'_>, ty: Option<&Arc<Ty>>, v: Value) -> R<Value> {
    match ty {
        Some(t) if t.converts && !v.is_null() => {
            let coerce = !cx.lang.is_java_like();
            methods::cast(cx, v, &t.name, t.dims, coerce)
        }
        _ => Ok(v),
    }
}

// ---------------------------------------------------------------------------------------
// Statements

fn exec_block(cx: &mut Ctx<'_>, f: &mut Frame<'_>, stmts: &[St]) -> R<Flow> {
    for s in stmts {
        match exec(cx, f, s, None)? {
            Flow::Normal => {}
            other => return Ok(other),
        }
    }
    Ok(Flow::Normal)
}

/// What a loop does after its body.
enum Ctl {
    Next,
    Stop,
    Out(Flow),
}

fn ctl(flow: Flow, label: Option<&Arc<str>>) -> Ctl {
    let mine = |l: &Option<Arc<str>>| l.is_none() || l.as_ref() == label;
    match flow {
        Flow::Normal => Ctl::Next,
        Flow::Break(l) if mine(&l) => Ctl::Stop,
        Flow::Continue(l) if mine(&l) => Ctl::Next,
        other => Ctl::Out(other),
    }
}

fn exec(cx: &mut Ctx<'_>, f: &mut Frame<'_>, s: &St, label: Option<&Arc<str>>) -> R<Flow> {
    exec_inner(cx, f, s, label).map_err(|e| e.at(s.pos))
}

fn exec_inner(cx: &mut Ctx<'_>, f: &mut Frame<'_>, s: &St, label: Option<&Arc<str>>) -> R<Flow> {
    // Each statement kind in its own function: the frames stay small in debug builds,
    // which bounds the stack a deep recursion takes.
    match &s.k {
        S::Expr(e) => {
            let v = eval(cx, f, e)?;
            budget::release_dropped(&std::mem::replace(&mut f.last, v));
        }
        S::Decl(v, ty, init) => ex_decl(cx, f, *v, ty.as_ref(), init.as_ref())?,
        S::Multi(vars, init) => ex_multi(cx, f, vars, init)?,
        S::If(c, then, els) => return ex_if(cx, f, c, then, els.as_deref()),
        S::While(c, body) => return ex_loop(cx, f, None, Some(c), &[], body, label),
        S::DoWhile(body, c) => return ex_do_while(cx, f, body, c, label),
        S::For(init, c, update, body) => return ex_loop(cx, f, Some(init), c.as_ref(), update, body, label),
        S::ForEach(var, ty, iter, keys, body) => {
            return ex_for_each(cx, f, *var, ty.as_ref(), iter, *keys, body, label)
        }
        S::Block(b) => return exec_block(cx, f, b),
        S::Return(e) => return Ok(Flow::Return(if let Some(e) = e { eval(cx, f, e)? } else { Value::Null })),
        S::Break(l) => return Ok(Flow::Break(l.clone())),
        S::Continue(l) => return Ok(Flow::Continue(l.clone())),
        S::Throw(e) => return Err(ex_throw(cx, f, e)),
        S::Try(body, catches, finally) => return ex_try(cx, f, body, catches, finally.as_deref()),
        S::Switch(subject, arms) => return ex_switch(cx, f, subject, arms),
        S::Assert(c, message, info) => ex_assert(cx, f, c, message.as_ref(), info)?,
        S::Labeled(l, body) => {
            return Ok(match exec(cx, f, body, Some(l))? {
                Flow::Break(Some(b)) if b == *l => Flow::Normal,
                other => other,
            })
        }
        S::Empty => {}
    }
    Ok(Flow::Normal)
}

#[inline(never)]
fn ex_decl(cx: &mut Ctx<'_>, f: &mut Frame<'_>, v: VarRef, ty: Option<&Arc<Ty>>, init: Option<&Node>) -> R<()> {
    let val = match init {
        Some(e) => eval(cx, f, e)?,
        None => zero_of(ty),
    };
    let val = convert(cx, ty, val)?;
    declare(cx, f, v, val);
    Ok(())
}

#[inline(never)]
fn ex_multi(cx: &mut Ctx<'_>, f: &mut Frame<'_>, vars: &[VarRef], init: &Node) -> R<()> {
    let v = eval(cx, f, init)?;
    let items = match &v {
        Value::List(l) => lock(&l.items).clone(),
        other => vec![other.clone()],
    };
    for (i, var) in vars.iter().enumerate() {
        declare(cx, f, *var, items.get(i).cloned().unwrap_or_default());
    }
    Ok(())
}

#[inline(never)]
fn ex_if(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &Node, then: &St, els: Option<&St>) -> R<Flow> {
    if cond(cx, f, c)? {
        exec(cx, f, then, None)
    } else if let Some(e) = els {
        exec(cx, f, e, None)
    } else {
        Ok(Flow::Normal)
    }
}

/// `while (c)` and `for (init; c; update)`.
#[inline(never)]
fn ex_loop(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    init: Option<&[St]>,
    c: Option<&Node>,
    update: &[Node],
    body: &St,
    label: Option<&Arc<str>>,
) -> R<Flow> {
    for s in init.unwrap_or_default() {
        exec(cx, f, s, None)?;
    }
    loop {
        step(cx)?;
        if let Some(c) = c {
            if !cond(cx, f, c)? {
                return Ok(Flow::Normal);
            }
        }
        match ctl(exec(cx, f, body, None)?, label) {
            Ctl::Next => {}
            Ctl::Stop => return Ok(Flow::Normal),
            Ctl::Out(o) => return Ok(o),
        }
        for u in update {
            eval(cx, f, u)?;
        }
    }
}

#[inline(never)]
fn ex_do_while(cx: &mut Ctx<'_>, f: &mut Frame<'_>, body: &St, c: &Node, label: Option<&Arc<str>>) -> R<Flow> {
    loop {
        step(cx)?;
        match ctl(exec(cx, f, body, None)?, label) {
            Ctl::Next => {}
            Ctl::Stop => return Ok(Flow::Normal),
            Ctl::Out(o) => return Ok(o),
        }
        if !cond(cx, f, c)? {
            return Ok(Flow::Normal);
        }
    }
}

#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn ex_for_each(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    var: VarRef,
    ty: Option<&Arc<Ty>>,
    iter: &Node,
    keys: bool,
    body: &St,
    label: Option<&Arc<str>>,
) -> R<Flow> {
    let coll = eval(cx, f, iter)?;
    if let Value::Range(a, b) = coll {
        // Walked as it goes, not listed first: `for (i in 0..<n)` holds one number.
        let up = a <= b;
        let mut i = a;
        loop {
            step(cx)?;
            let item = i32::try_from(i).map(Value::Int).unwrap_or(Value::Long(i));
            let item = convert(cx, ty, item)?;
            declare(cx, f, var, item);
            match ctl(exec(cx, f, body, None)?, label) {
                Ctl::Next => {}
                Ctl::Stop => break,
                Ctl::Out(o) => return Ok(o),
            }
            if i == b {
                break;
            }
            i = if up { i + 1 } else { i - 1 };
        }
        return Ok(Flow::Normal);
    }
    for item in iterate(cx, &coll, keys)? {
        step(cx)?;
        let item = convert(cx, ty, item)?;
        declare(cx, f, var, item);
        match ctl(exec(cx, f, body, None)?, label) {
            Ctl::Next => {}
            Ctl::Stop => break,
            Ctl::Out(o) => return Ok(o),
        }
    }
    Ok(Flow::Normal)
}

#[inline(never)]
fn ex_throw(cx: &mut Ctx<'_>, f: &mut Frame<'_>, e: &Node) -> Thrown {
    // A throw fills in a stack trace on the JVM: work, so that a throw-and-catch loop meets
    // the step budget as soon as its cost says.
    budget::work(THROW_WORK);
    match eval(cx, f, e) {
        Err(t) => t,
        Ok(Value::Null) => npe("Cannot throw null".into()),
        Ok(v) => classes::thrown_from(v),
    }
}

#[inline(never)]
fn ex_try(cx: &mut Ctx<'_>, f: &mut Frame<'_>, body: &[St], catches: &[CatchC], finally: Option<&[St]>) -> R<Flow> {
    let mut r = exec_block(cx, f, body);
    if let Err(t) = &r {
        if t.class != BUDGET_CLASS && t.class != INTERRUPTED_CLASS {
            // Groovy's `catch (e)` is `catch (Exception e)`: an `OutOfMemoryError` or
            // `StackOverflowError` goes through it, as on the JVM.
            let untyped = cx.lang != Lang::Groovy || !classes::catches("java.lang.Error", &t.class);
            let c = catches
                .iter()
                .find(|c| (c.classes.is_empty() && untyped) || c.classes.iter().any(|k| classes::catches(k, &t.class)));
            if let Some(c) = c {
                budget::work(THROW_WORK);
                let v = classes::exception_value(t);
                declare(cx, f, c.var, v);
                r = exec_block(cx, f, &c.body);
            }
        }
    }
    if let Some(fin) = finally {
        match exec_block(cx, f, fin)? {
            Flow::Normal => {}
            other => return Ok(other),
        }
    }
    r
}

#[inline(never)]
#[allow(clippy::type_complexity)]
fn ex_switch(cx: &mut Ctx<'_>, f: &mut Frame<'_>, subject: &Node, arms: &[(Vec<Node>, Vec<St>)]) -> R<Flow> {
    let v = eval(cx, f, subject)?;
    let mut start = None;
    let mut default = None;
    'arms: for (i, (labels, _)) in arms.iter().enumerate() {
        if labels.is_empty() {
            default = Some(i);
        }
        for l in labels {
            let lv = eval(cx, f, l)?;
            if case_match(cx, &lv, &v)? {
                start = Some(i);
                break 'arms;
            }
        }
    }
    if let Some(i) = start.or(default) {
        for (_, body) in &arms[i..] {
            match exec_block(cx, f, body)? {
                Flow::Normal => {}
                Flow::Break(None) => return Ok(Flow::Normal),
                other => return Ok(other),
            }
        }
    }
    Ok(Flow::Normal)
}

/// `assert`: Groovy's messages (`assert <text>`, or `<message>. Expression: <text>`), Java's
/// (the message alone).
#[inline(never)]
fn ex_assert(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &Node, message: Option<&Node>, info: &AssertInfo) -> R<()> {
    if cond(cx, f, c)? {
        return Ok(());
    }
    let text = &info.text;
    let msg = match message {
        Some(m) => {
            let m = eval(cx, f, m)?;
            let m = text_of(cx, &m)?;
            let mut msg = if cx.lang.is_java_like() {
                m
            } else if matches!(c.k, E::Bin(..)) {
                // Groovy prints the expression's `getText()`: a binary one in parentheses.
                format!("{m}. Expression: ({text})")
            } else {
                format!("{m}. Expression: {text}")
            };
            for (i, (name, node)) in info.values.iter().enumerate() {
                let v = eval(cx, f, node)?;
                let v = text_of(cx, &v)?;
                msg.push_str(if i == 0 { ". Values: " } else { ", " });
                msg.push_str(&format!("{name} = {v}"));
            }
            msg
        }
        None if cx.lang.is_java_like() => String::new(),
        None => format!("assert {text}"),
    };
    Err(Thrown::new("java.lang.AssertionError", msg))
}

/// Groovy's `switch` (`isCase`): a list or range contains the subject, a class is its type,
/// a closure accepts it; otherwise equality.
fn case_match(cx: &mut Ctx<'_>, label: &Value, subject: &Value) -> R<bool> {
    if cx.lang == Lang::Groovy {
        match label {
            Value::List(_) | Value::Range(..) | Value::Class(_) => return contains(cx, label, subject),
            Value::Object(o) if o.class_name() == "java.util.regex.Pattern" => return whole_match(cx, label, subject),
            Value::Closure(c) => return Ok(call_closure(cx, c, vec![subject.clone()])?.truthy()),
            _ => {}
        }
    }
    Ok(equals(cx.lang, label, subject))
}

fn iterate(cx: &mut Ctx<'_>, v: &Value, keys: bool) -> R<Vec<Value>> {
    Ok(match v {
        Value::Null => Vec::new(),
        Value::List(l) if keys => (0..lock(&l.items).len() as i32).map(Value::Int).collect(),
        Value::List(l) => {
            let items = lock(&l.items).clone();
            budget::work(items.len() as u64 * budget::VALUE_BYTES);
            items
        }
        Value::Map(m) if keys => lock(&m.entries).keys().map(|k| k.0.clone()).collect(),
        Value::Map(_) => {
            let entries = methods::call_method(cx, v, "entrySet", Vec::new())?;
            if matches!(entries, Value::Map(_)) {
                return Err(Thrown::new("java.lang.IllegalStateException", "entrySet() gave a map"));
            }
            return iterate(cx, &entries, false);
        }
        Value::Range(a, b) => {
            let n = a.abs_diff(*b).saturating_add(1);
            if n > STEP_BUDGET {
                return Err(Thrown::new(BUDGET_CLASS, format!("a range of {n} values is more than a script may walk")));
            }
            budget::check(n.saturating_mul(budget::VALUE_BYTES))?;
            budget::work(n.saturating_mul(budget::VALUE_BYTES));
            let int = |i: i64| i32::try_from(i).map(Value::Int).unwrap_or(Value::Long(i));
            if a <= b {
                (*a..=*b).map(int).collect()
            } else {
                (*b..=*a).rev().map(int).collect()
            }
        }
        Value::Str(s) => {
            methods::checked_items(s.len() as u64)?;
            s.chars().map(|c| Value::Str(c.to_string().into())).collect()
        }
        Value::Bytes(b) => {
            methods::checked_items(b.len() as u64)?;
            b.iter().map(|b| Value::Int(*b as i8 as i32)).collect()
        }
        Value::Host(_) | Value::Object(_) => {
            let it = call_method_value(cx, v, "iterator", Vec::new())?;
            if let Value::List(_) = it {
                return iterate(cx, &it, false);
            }
            let mut out = Vec::new();
            while call_method_value(cx, &it, "hasNext", Vec::new())?.truthy() {
                step(cx)?;
                out.push(call_method_value(cx, &it, "next", Vec::new())?);
            }
            out
        }
        other => {
            return Err(Thrown::new(
                "groovy.lang.MissingMethodException",
                format!("No signature of method: {}.iterator() is applicable", other.type_name()),
            ))
        }
    })
}

// ---------------------------------------------------------------------------------------
// Expressions

fn truth(cx: &mut Ctx<'_>, v: &Value) -> R<bool> {
    match v {
        Value::Object(o) if o.class_name() == "java.util.regex.Matcher" => {
            let o = o.clone();
            Ok(o.call(cx, "find", Vec::new())?.truthy())
        }
        Value::Double(d) if d.is_nan() => Ok(false),
        other => Ok(other.truthy()),
    }
}

fn cond(cx: &mut Ctx<'_>, f: &mut Frame<'_>, e: &Node) -> R<bool> {
    let v = eval(cx, f, e)?;
    truth(cx, &v)
}

fn eval(cx: &mut Ctx<'_>, f: &mut Frame<'_>, n: &Node) -> R<Value> {
    eval_inner(cx, f, n).map_err(|e| e.at(n.pos))
}

fn eval_args(cx: &mut Ctx<'_>, f: &mut Frame<'_>, args: &[Node]) -> R<Vec<Value>> {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        out.push(eval(cx, f, a)?);
    }
    Ok(out)
}

fn eval_inner(cx: &mut Ctx<'_>, f: &mut Frame<'_>, n: &Node) -> R<Value> {
    match &n.k {
        E::Const(v) => Ok(v.clone()),
        E::GStr(parts) => ev_g_str(cx, f, parts),
        E::Var(v) => get_var(cx, f, *v),
        E::Func(i) => ev_func(f, i),
        E::Class(c) => Ok(Value::Class(c)),
        E::This => Ok(Value::Null),
        E::List(items) => ev_list(cx, f, items),
        E::Map(entries) => ev_map(cx, f, entries),
        E::Range(a, b, exclusive) => ev_range(cx, f, a, b, exclusive),
        E::Unary(op, e) => ev_unary(cx, f, op, e),
        E::IncDec(t, inc, prefix, ty) => ev_inc_dec(cx, f, t, inc, prefix, ty),
        E::Bin(op, a, b) => ev_bin(cx, f, op, a, b),
        E::InstOf(e, ty, negated) => ev_inst_of(cx, f, e, ty, negated),
        E::Assign(t, op, value, ty) => ev_assign(cx, f, t, op, value, ty),
        E::Cond(c, a, b) => ev_cond(cx, f, c, a, b),
        E::Elvis(a, b) => ev_elvis(cx, f, a, b),
        E::Prop(t, name, safe, spread) => ev_prop(cx, f, t, name, safe, spread),
        E::Index(t, i, safe) => ev_index(cx, f, t, i, safe),
        E::Method(recv, name, args, safe, spread) => ev_method(cx, f, recv, name, args, safe, spread),
        E::Bound(recv, known, rows, name, args) => ev_bound(cx, f, recv, *known, rows, name, args),
        E::Static(c, s, args) => ev_static(cx, f, c, s, args),
        E::CallVar(v, args) => ev_call_var(cx, f, v, args),
        E::CallFunc(i, args) => ev_call_func(cx, f, i, args),
        E::CallFree(name, args) => ev_call_free(cx, f, name, args),
        E::CallValue(c, args) => ev_call_value(cx, f, c, args),
        E::New(c, args) => ev_new(cx, f, c, args),
        E::NewBuiltin(ty, args) => ev_new_builtin(cx, f, ty, args),
        E::NewArray(ty, dims, init) => ev_new_array(cx, f, ty, dims, init),
        E::Cast(ty, e, coerce) => ev_cast(cx, f, ty, e, coerce),
        E::Closure(proto) => ev_closure(f, proto),
        E::ClassLit(ty) => Ok(Value::Class(ty.class.unwrap_or_else(|| builtin_class(&ty.name)))),
        E::MethodRef(t, name) => ev_method_ref(cx, f, t, name),
        E::SClass(c) => Ok(Value::Class(f.unit.classes[*c as usize].name)),
        E::Field(t, slot) => {
            let o = eval(cx, f, t)?;
            Ok(object::of(&o).map(|o| o.field(*slot)).unwrap_or_default())
        }
        E::StaticField(g) => Ok(lock(&f.unit.statics[*g as usize]).clone()),
        E::NewObj(c, args) => {
            let args = eval_args(cx, f, args)?;
            object::new_object(cx, f.unit, *c, args)
        }
        E::CallStatic(c, name, args) => {
            let args = eval_args(cx, f, args)?;
            object::call_static(cx, f.unit, *c, name, args)
        }
        E::SuperCall(t, parent, name, args) => {
            let this = eval(cx, f, t)?;
            let args = eval_args(cx, f, args)?;
            object::call_super(cx, &this, *parent, name, args)
        }
        E::SuperCtor(c, args) => {
            let this = get_var(cx, f, VarRef::Local(0))?;
            let args = eval_args(cx, f, args)?;
            object::super_ctor(cx, f.unit, *c, &this, args).map(|_| Value::Null)
        }
        E::ThisCtor(c, args) => {
            let this = get_var(cx, f, VarRef::Local(0))?;
            let args = eval_args(cx, f, args)?;
            object::construct(cx, f.unit, *c, &this, args).map(|_| Value::Null)
        }
    }
}
