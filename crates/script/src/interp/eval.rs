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

#[inline(never)]
fn ev_g_str(cx: &mut Ctx<'_>, f: &mut Frame<'_>, parts: &[GPart]) -> R<Value> {
    Ok({
        let mut s = String::new();
        for p in parts {
            match p {
                GPart::Lit(l) => s.push_str(l),
                GPart::Expr(e) => {
                    let v = eval(cx, f, e)?;
                    let t = text_of(cx, &v)?;
                    budget::check((s.len() + t.len()) as u64)?;
                    s.push_str(&t);
                }
            }
        }
        made(Value::Str(s.into()))?
    })
}

#[inline(never)]
fn ev_func(f: &mut Frame<'_>, i: &u32) -> R<Value> {
    Ok({
        let proto = f.unit.funcs[*i as usize].clone();
        Value::Closure(Arc::new(Closure {
            kind: ClosureKind::Code { proto, cells: Vec::new(), unit: f.unit.clone() },
            curried: Vec::new(),
        }))
    })
}

#[inline(never)]
fn ev_list(cx: &mut Ctx<'_>, f: &mut Frame<'_>, items: &[Node]) -> R<Value> {
    made(Value::list(eval_args(cx, f, items)?))
}

#[inline(never)]
fn ev_map(cx: &mut Ctx<'_>, f: &mut Frame<'_>, entries: &[(Node, Node)]) -> R<Value> {
    Ok({
        let mut m = IndexMap::with_capacity(entries.len());
        for (k, v) in entries {
            let k = eval(cx, f, k)?;
            let v = eval(cx, f, v)?;
            m.insert(Key(k), v);
        }
        made(Value::map(m))?
    })
}

#[inline(never)]
fn ev_range(cx: &mut Ctx<'_>, f: &mut Frame<'_>, a: &Node, b: &Node, exclusive: &bool) -> R<Value> {
    Ok({
        let (a, b) = (eval(cx, f, a)?, eval(cx, f, b)?);
        let (Some(x), Some(mut y)) = (a.as_i64().filter(|_| !a.is_null()), b.as_i64()) else {
            return Err(Thrown::new(
                "java.lang.IllegalArgumentException",
                format!("ranges of {} and {} are not supported in stampede's scripts", a.type_name(), b.type_name()),
            ));
        };
        if *exclusive {
            y += if y >= x { -1 } else { 1 };
        }
        Value::Range(x, y)
    })
}

#[inline(never)]
fn ev_unary(cx: &mut Ctx<'_>, f: &mut Frame<'_>, op: &UnOp, e: &Node) -> R<Value> {
    if let (UnOp::TypeOf, E::Var(VarRef::Global(i))) = (op, &e.k) {
        if cx.state.globals.get(*i as usize).is_none_or(|g| g.is_none()) {
            return Ok(Value::str("undefined"));
        }
    }
    let v = eval(cx, f, e)?;
    unary(cx, *op, v)
}

#[inline(never)]
fn ev_inc_dec(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    t: &Node,
    inc: &bool,
    prefix: &bool,
    ty: &Option<Arc<Ty>>,
) -> R<Value> {
    Ok({
        let Some(p) = place(cx, f, t)? else { return Ok(Value::Null) };
        let old = place_get(cx, f, &p)?;
        let new = match &old {
            Value::Null if cx.lang != Lang::JavaScript => {
                return Err(npe(format!(
                    "Cannot invoke method {}() on null object",
                    if *inc { "next" } else { "previous" }
                )))
            }
            Value::Char(c) => {
                Value::Char(char::from_u32((*c as u32).wrapping_add_signed(if *inc { 1 } else { -1 })).unwrap_or(*c))
            }
            Value::Str(_) => call_method_value(cx, &old, if *inc { "next" } else { "previous" }, Vec::new())?,
            _ => binop(cx, if *inc { BinOp::Add } else { BinOp::Sub }, old.clone(), Value::Int(1))?,
        };
        let new = convert(cx, ty.as_ref(), new)?;
        place_set(cx, f, &p, new.clone())?;
        if *prefix {
            new
        } else {
            old
        }
    })
}

#[inline(never)]
fn ev_bin(cx: &mut Ctx<'_>, f: &mut Frame<'_>, op: &BinOp, a: &Node, b: &Node) -> R<Value> {
    Ok(match op {
        BinOp::And | BinOp::Or => {
            let l = eval(cx, f, a)?;
            let lt = truth(cx, &l)?;
            let and = *op == BinOp::And;
            if lt != and {
                return Ok(if cx.lang == Lang::JavaScript { l } else { Value::Bool(lt) });
            }
            let r = eval(cx, f, b)?;
            if cx.lang == Lang::JavaScript {
                r
            } else {
                Value::Bool(truth(cx, &r)?)
            }
        }
        _ => {
            let l = eval(cx, f, a)?;
            let r = eval(cx, f, b)?;
            made(binop(cx, *op, l, r)?)?
        }
    })
}

#[inline(never)]
fn ev_inst_of(cx: &mut Ctx<'_>, f: &mut Frame<'_>, e: &Node, ty: &Ty, negated: &bool) -> R<Value> {
    Ok({
        let v = eval(cx, f, e)?;
        Value::Bool(instance_of(&v, ty) != *negated)
    })
}

#[inline(never)]
fn ev_assign(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    t: &Node,
    op: &Option<BinOp>,
    value: &Node,
    ty: &Option<Arc<Ty>>,
) -> R<Value> {
    Ok({
        let Some(p) = place(cx, f, t)? else { return Ok(Value::Null) };
        let new = match op {
            None => eval(cx, f, value)?,
            Some(op) => {
                let old = place_get(cx, f, &p)?;
                let r = eval(cx, f, value)?;
                made(binop(cx, *op, old, r)?)?
            }
        };
        let new = convert(cx, ty.as_ref(), new)?;
        place_set(cx, f, &p, new.clone())?;
        new
    })
}

#[inline(never)]
fn ev_cond(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &Node, a: &Node, b: &Node) -> R<Value> {
    Ok({
        if cond(cx, f, c)? {
            eval(cx, f, a)?
        } else {
            eval(cx, f, b)?
        }
    })
}

#[inline(never)]
fn ev_elvis(cx: &mut Ctx<'_>, f: &mut Frame<'_>, a: &Node, b: &Node) -> R<Value> {
    Ok({
        let l = eval(cx, f, a)?;
        if truth(cx, &l)? {
            l
        } else {
            eval(cx, f, b)?
        }
    })
}

#[inline(never)]
fn ev_prop(cx: &mut Ctx<'_>, f: &mut Frame<'_>, t: &Node, name: &Arc<str>, safe: &bool, spread: &bool) -> R<Value> {
    let r = eval(cx, f, t)?;
    if *safe && r.is_null() {
        return Ok(Value::Null);
    }
    if *spread {
        return made(spread_over(cx, &r, |cx, item| {
            if item.is_null() {
                Ok(Value::Null)
            } else {
                made(get_prop(cx, item, name)?)
            }
        })?);
    }
    made(get_prop(cx, &r, name)?)
}

#[inline(never)]
fn ev_index(cx: &mut Ctx<'_>, f: &mut Frame<'_>, t: &Node, i: &Node, safe: &bool) -> R<Value> {
    let r = eval(cx, f, t)?;
    if *safe && r.is_null() {
        return Ok(Value::Null);
    }
    let i = eval(cx, f, i)?;
    made(index_get(cx, &r, &i)?)
}

#[inline(never)]
fn ev_method(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    recv: &Node,
    name: &Arc<str>,
    args: &[Node],
    safe: &bool,
    spread: &bool,
) -> R<Value> {
    let r = eval(cx, f, recv)?;
    if *safe && r.is_null() {
        return Ok(Value::Null);
    }
    let args = eval_args(cx, f, args)?;
    if *spread {
        return made(spread_over(cx, &r, |cx, item| {
            if item.is_null() {
                Ok(Value::Null)
            } else {
                call_metered(cx, item, name, args.clone())
            }
        })?);
    }
    let v = call_metered(cx, &r, name, args)?;
    // A receiver that was made for this call (`a.b().c()`) is dropped now.
    budget::release_dropped(&r);
    Ok(v)
}

/// A method call whose result is charged when new, and whose receiver's growth (or shrinking)
/// is counted: `list.add`, `map.put`, `addAll`, `clear`.
fn call_metered(cx: &mut Ctx<'_>, r: &Value, name: &str, args: Vec<Value>) -> R<Value> {
    let before = container_size(r);
    if before > 0 || matches!(r, Value::List(_) | Value::Map(_)) {
        // `l.addAll(l)` in a loop doubles: what the arguments hold must fit before it is added.
        budget::check(args.iter().map(container_size).sum())?;
    }
    let v = call_method_value(cx, r, name, args)?;
    // A declared class's method gives a value its own code charged when it made it.
    if object::of(r).is_some() {
        return Ok(v);
    }
    resized(r, before)?;
    made(v)
}

/// What a list or map holds by itself (its strings do not change).
fn container_size(v: &Value) -> u64 {
    match v {
        Value::List(_) | Value::Map(_) => budget::shallow_size(v),
        _ => 0,
    }
}

/// Charges (or releases) what a list or map grew (or shrank) by since it was `before`.
fn resized(v: &Value, before: u64) -> R<()> {
    let after = container_size(v);
    if after > before {
        budget::grew(after - before)
    } else {
        budget::release(before - after);
        Ok(())
    }
}

#[inline(never)]
fn ev_static(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &'static str, s: &classes::Static, args: &[Node]) -> R<Value> {
    let args = eval_args(cx, f, args)?;
    made((s.f)(cx, c, s.name, args)?)
}

#[inline(never)]
fn ev_call_var(cx: &mut Ctx<'_>, f: &mut Frame<'_>, v: &VarRef, args: &[Node]) -> R<Value> {
    let callee = get_var(cx, f, *v)?;
    let args = eval_args(cx, f, args)?;
    call_callee(cx, &callee, args)
}

#[inline(never)]
fn ev_call_func(cx: &mut Ctx<'_>, f: &mut Frame<'_>, i: &u32, args: &[Node]) -> R<Value> {
    let unit: &Arc<Unit> = f.unit;
    let args = eval_args(cx, f, args)?;
    let proto = &unit.funcs[*i as usize];
    invoke(cx, proto, unit, &[], args)
}

#[inline(never)]
fn ev_call_free(cx: &mut Ctx<'_>, f: &mut Frame<'_>, name: &Arc<str>, args: &[Node]) -> R<Value> {
    let args = eval_args(cx, f, args)?;
    made(script_method(cx, name, args)?)
}

#[inline(never)]
fn ev_call_value(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &Node, args: &[Node]) -> R<Value> {
    let callee = eval(cx, f, c)?;
    let args = eval_args(cx, f, args)?;
    call_callee(cx, &callee, args)
}

#[inline(never)]
fn ev_new(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &classes::Class, args: &[Node]) -> R<Value> {
    let args = eval_args(cx, f, args)?;
    made(c.construct(cx, args)?)
}

#[inline(never)]
fn ev_new_builtin(cx: &mut Ctx<'_>, f: &mut Frame<'_>, ty: &Ty, args: &[Node]) -> R<Value> {
    let args = eval_args(cx, f, args)?;
    made(new_builtin(cx, ty, args)?)
}

#[inline(never)]
fn ev_new_array(cx: &mut Ctx<'_>, f: &mut Frame<'_>, ty: &Ty, dims: &[Node], init: &Option<Vec<Node>>) -> R<Value> {
    Ok(match init {
        Some(items) => made(Value::array(eval_args(cx, f, items)?))?,
        None => {
            let dims = eval_args(cx, f, dims)?;
            new_array(ty, &dims)?
        }
    })
}

#[inline(never)]
fn ev_cast(cx: &mut Ctx<'_>, f: &mut Frame<'_>, ty: &Ty, e: &Node, coerce: &bool) -> R<Value> {
    Ok({
        let v = eval(cx, f, e)?;
        if ty.converts && !v.is_null() {
            methods::cast(cx, v, &ty.name, ty.dims, *coerce)?
        } else {
            v
        }
    })
}

#[inline(never)]
fn ev_closure(f: &mut Frame<'_>, proto: &Arc<Proto>) -> R<Value> {
    Ok({
        let cells = proto.captures.iter().map(|v| capture(f, *v)).collect();
        Value::Closure(Arc::new(Closure {
            kind: ClosureKind::Code { proto: proto.clone(), cells, unit: f.unit.clone() },
            curried: Vec::new(),
        }))
    })
}

#[inline(never)]
fn ev_method_ref(cx: &mut Ctx<'_>, f: &mut Frame<'_>, t: &Node, name: &Arc<str>) -> R<Value> {
    Ok({
        let recv = eval(cx, f, t)?;
        Value::Closure(Arc::new(Closure {
            kind: ClosureKind::Method { recv, name: name.clone() },
            curried: Vec::new(),
        }))
    })
}

fn builtin_class(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or(name) {
        "String" => "java.lang.String",
        "Integer" | "int" => "java.lang.Integer",
        "Long" | "long" => "java.lang.Long",
        "Double" | "double" => "java.lang.Double",
        "Boolean" | "boolean" => "java.lang.Boolean",
        "List" => "java.util.List",
        "Map" => "java.util.Map",
        _ => "java.lang.Object",
    }
}

fn spread_over(cx: &mut Ctx<'_>, r: &Value, mut each: impl FnMut(&mut Ctx<'_>, &Value) -> R<Value>) -> R<Value> {
    if r.is_null() {
        return Ok(Value::Null);
    }
    let items = iterate(cx, r, false)?;
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        out.push(each(cx, item)?);
    }
    Ok(Value::list(out))
}

/// Where an assignment stores.
enum Place {
    Var(VarRef),
    Field(Value, u32),
    Static(u32),
    Prop(Value, Arc<str>),
    Index(Value, Value),
}

fn place(cx: &mut Ctx<'_>, f: &mut Frame<'_>, t: &Node) -> R<Option<Place>> {
    Ok(Some(match &t.k {
        E::Var(v) => Place::Var(*v),
        E::Field(target, slot) => Place::Field(eval(cx, f, target)?, *slot),
        E::StaticField(g) => Place::Static(*g),
        E::Prop(target, name, safe, _) => {
            let obj = eval(cx, f, target)?;
            if *safe && obj.is_null() {
                return Ok(None);
            }
            Place::Prop(obj, name.clone())
        }
        E::Index(target, index, safe) => {
            let obj = eval(cx, f, target)?;
            if *safe && obj.is_null() {
                return Ok(None);
            }
            Place::Index(obj, eval(cx, f, index)?)
        }
        _ => return Err(Thrown::new("java.lang.IllegalArgumentException", "this expression cannot be assigned to")),
    }))
}

fn place_get(cx: &mut Ctx<'_>, f: &Frame<'_>, p: &Place) -> R<Value> {
    match p {
        Place::Var(v) => get_var(cx, f, *v),
        Place::Field(o, slot) => Ok(object::of(o).map(|o| o.field(*slot)).unwrap_or_default()),
        Place::Static(g) => Ok(lock(&f.unit.statics[*g as usize]).clone()),
        Place::Prop(obj, name) => get_prop(cx, obj, name),
        Place::Index(obj, i) => index_get(cx, obj, i),
    }
}

fn place_set(cx: &mut Ctx<'_>, f: &mut Frame<'_>, p: &Place, v: Value) -> R<()> {
    match p {
        Place::Var(var) => {
            set_var(cx, f, *var, v);
            Ok(())
        }
        Place::Field(o, slot) => {
            if let Some(o) = object::of(o) {
                o.set_field(*slot, v);
            }
            Ok(())
        }
        Place::Static(g) => {
            *lock(&f.unit.statics[*g as usize]) = v;
            Ok(())
        }
        Place::Prop(obj, name) => set_prop(cx, obj, name, v),
        Place::Index(obj, i) => index_set(cx, obj, i.clone(), v),
    }
}

// ---------------------------------------------------------------------------------------
// Operators

/// Text of a value as string concatenation and GStrings render it (Groovy's
/// `InvokerHelper.toString`): an object of a declared class by its `toString()`, at any depth
/// of the lists and maps that hold it. Containers nested past [`budget::MAX_SHOW_DEPTH`] (or
/// inside themselves, other than directly) are `StackOverflowError`, as Groovy's recursion is.
pub(crate) fn text_of(cx: &mut Ctx<'_>, v: &Value) -> R<String> {
    let s = show(cx, v);
    if budget::take_deep() {
        return Err(budget::too_deep());
    }
    Ok(s)
}

fn show(cx: &mut Ctx<'_>, v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        Value::Host(h) => cx.host.describe(*h),
        // A declared class's `toString()`; one that throws shows as `Object`'s would.
        Value::Object(o) if object::of(v).is_some() => match object::of(v).map(|o| o.text(cx)) {
            Some(Ok(s)) => s,
            _ => o.to_string(),
        },
        // Each item by index, the lock not held while it is written: an item's `toString()`
        // may reach this list again.
        Value::List(l) if cx.lang == Lang::Groovy => {
            let Some(_showing) = budget::show_nested(Arc::as_ptr(l) as usize) else {
                return "[...]".into();
            };
            let mut s = String::from("[");
            for i in 0.. {
                let Some(v) = lock(&l.items).get(i).cloned() else { break };
                if !budget::show(value::shown_size(&v)) {
                    break;
                }
                if i > 0 {
                    s.push_str(", ");
                }
                match &v {
                    Value::List(x) if Arc::ptr_eq(x, l) => s.push_str("(this Collection)"),
                    v => s.push_str(&show(cx, v)),
                }
            }
            s.push(']');
            s
        }
        Value::Map(m) if cx.lang == Lang::Groovy => {
            let Some(_showing) = budget::show_nested(Arc::as_ptr(m) as usize) else {
                return "[...]".into();
            };
            let mut s = String::from("[");
            for i in 0.. {
                let Some((k, v)) = lock(&m.entries).get_index(i).map(|(k, v)| (k.0.clone(), v.clone())) else {
                    break;
                };
                if !budget::show(value::shown_size(&k) + value::shown_size(&v)) {
                    break;
                }
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(&show(cx, &k));
                s.push(':');
                match &v {
                    Value::Map(x) if Arc::ptr_eq(x, m) => s.push_str("(this Map)"),
                    v => s.push_str(&show(cx, v)),
                }
            }
            if s.len() == 1 {
                s.push(':');
            }
            s.push(']');
            s
        }
        Value::Double(d) if cx.lang == Lang::JavaScript => ops::js_number(*d),
        // JavaScript's Array.prototype.toString: the items joined by `,`, null as empty.
        Value::List(l) if cx.lang == Lang::JavaScript => {
            let Some(_showing) = budget::show_nested(Arc::as_ptr(l) as usize) else {
                return String::new();
            };
            let items = lock(&l.items).clone();
            let texts: Vec<String> =
                items.iter().map(|v| if v.is_null() { String::new() } else { show(cx, v) }).collect();
            texts.join(",")
        }
        other => other.to_string(),
    }
}

fn equals(lang: Lang, a: &Value, b: &Value) -> bool {
    if lang == Lang::JavaScript {
        match (a, b) {
            (Value::Str(_), x) | (x, Value::Str(_)) if x.is_number() || matches!(x, Value::Bool(_)) => {
                return ops::js_to_number(a) == ops::js_to_number(b);
            }
            _ => {}
        }
    }
    value::equals(a, b)
}

fn strict_equals(lang: Lang, a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => Arc::ptr_eq(x, y),
        (Value::Map(x), Value::Map(y)) => Arc::ptr_eq(x, y),
        (Value::Object(x), Value::Object(y)) => std::ptr::addr_eq(Arc::as_ptr(x), Arc::as_ptr(y)),
        (Value::Str(_), x) | (x, Value::Str(_))
            if lang == Lang::JavaScript && !matches!(x, Value::Str(_) | Value::Char(_)) =>
        {
            false
        }
        _ => value::equals(a, b),
    }
}

fn compare(cx: &mut Ctx<'_>, a: &Value, b: &Value) -> R<Option<Ordering>> {
    if let Some(o) = value::compare(a, b) {
        return Ok(Some(o));
    }
    // Library objects that are `Comparable` (dates, ...).
    if let (Value::Object(_) | Value::Host(_), false) = (a, b.is_null()) {
        match call_method_value(cx, a, "compareTo", vec![b.clone()]) {
            Ok(v) => return Ok(v.as_i64().map(|i| i.cmp(&0))),
            Err(e) if !e.is_no_method() => return Err(e),
            Err(_) => {}
        }
    }
    if cx.lang == Lang::JavaScript {
        return Ok(ops::js_to_number(a).zip(ops::js_to_number(b)).and_then(|(x, y)| x.partial_cmp(&y)));
    }
    Err(Thrown::new(
        "java.lang.IllegalArgumentException",
        format!("Cannot compare {} with value '{a}' and {} with value '{b}'", a.type_name(), b.type_name()),
    ))
}

fn is_text(v: &Value) -> bool {
    matches!(v, Value::Str(_))
}

pub(crate) fn binop(cx: &mut Ctx<'_>, op: BinOp, l: Value, r: Value) -> R<Value> {
    use BinOp::*;
    let lang = cx.lang;
    if let (Eq | Ne, Some(o)) = (op, object::of(&l)) {
        return Ok(Value::Bool(o.equals_value(cx, &r)? == (op == Eq)));
    }
    Ok(match op {
        Eq => Value::Bool(equals(lang, &l, &r)),
        Ne => Value::Bool(!equals(lang, &l, &r)),
        StrictEq => Value::Bool(strict_equals(lang, &l, &r)),
        StrictNe => Value::Bool(!strict_equals(lang, &l, &r)),
        Lt | Le | Gt | Ge => match compare(cx, &l, &r)? {
            None => Value::Bool(false),
            Some(o) => Value::Bool(match op {
                Lt => o == Ordering::Less,
                Le => o != Ordering::Greater,
                Gt => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }),
        },
        Cmp => Value::Int(compare(cx, &l, &r)?.map_or(0, |o| o as i32)),
        In => Value::Bool(contains(cx, &r, &l)?),
        NotIn => Value::Bool(!contains(cx, &r, &l)?),
        Find => {
            let (p, t) = (text_of(cx, &r)?, text_of(cx, &l)?);
            classes::matcher(cx, &p, &t)?
        }
        Match => Value::Bool(whole_match(cx, &r, &l)?),
        Add if is_text(&l)
            || is_text(&r)
            || (lang != Lang::Groovy && matches!((&l, &r), (Value::Char(_), Value::Str(_)))) =>
        {
            let (a, b) = (text_of(cx, &l)?, text_of(cx, &r)?);
            budget::check((a.len() + b.len()) as u64)?;
            let mut s = a;
            s.push_str(&b);
            Value::Str(s.into())
        }
        And => Value::Bool(truth(cx, &l)? && truth(cx, &r)?),
        Or => Value::Bool(truth(cx, &l)? || truth(cx, &r)?),
        _ => {
            if let Some(v) = ops::arith(op, &l, &r, lang) {
                return v;
            }
            if lang == Lang::JavaScript {
                if let (Some(x), Some(y)) = (ops::js_to_number(&l), ops::js_to_number(&r)) {
                    return ops::arith(op, &Value::Double(x), &Value::Double(y), lang).unwrap_or(Ok(Value::Null));
                }
            }
            return operator_method(cx, op, l, r);
        }
    })
}

/// An operator on values that are not numbers: collections inline, booleans, then the
/// operator's method (`plus`, `leftShift`, ...), as Groovy does.
fn operator_method(cx: &mut Ctx<'_>, op: BinOp, l: Value, r: Value) -> R<Value> {
    use BinOp::*;
    match (op, &l, &r) {
        (BitAnd, Value::Bool(a), Value::Bool(b)) => return Ok(Value::Bool(*a & *b)),
        (BitOr, Value::Bool(a), Value::Bool(b)) => return Ok(Value::Bool(*a | *b)),
        (BitXor, Value::Bool(a), Value::Bool(b)) => return Ok(Value::Bool(*a ^ *b)),
        (Shl, Value::List(list), _) => {
            budget::charge(budget::VALUE_BYTES)?;
            lock(&list.items).push(r.clone());
            return Ok(l.clone());
        }
        (Add, Value::List(a), _) => {
            let more = match &r {
                Value::List(b) => lock(&b.items).len(),
                _ => 1,
            };
            budget::check((lock(&a.items).len() + more) as u64 * budget::VALUE_BYTES)?;
            let mut items = lock(&a.items).clone();
            match &r {
                Value::List(b) if !Arc::ptr_eq(a, b) => items.extend(lock(&b.items).iter().cloned()),
                Value::List(_) => items.extend(items.clone()),
                other => items.push(other.clone()),
            }
            return Ok(Value::List(Arc::new(ListObj { json: false, kind: a.kind, items: Mutex::new(items) })));
        }
        (Sub, Value::List(a), _) => {
            let drop: Vec<Value> = match &r {
                Value::List(b) => lock(&b.items).clone(),
                other => vec![other.clone()],
            };
            let items = lock(&a.items).iter().filter(|x| !drop.iter().any(|d| value::equals(x, d))).cloned().collect();
            return Ok(Value::List(Arc::new(ListObj { json: false, kind: a.kind, items: Mutex::new(items) })));
        }
        (Add, Value::Map(a), Value::Map(b)) => {
            budget::check((lock(&a.entries).len() + lock(&b.entries).len()) as u64 * budget::ENTRY_BYTES)?;
            let mut m = lock(&a.entries).clone();
            let add = lock(&b.entries).clone();
            m.extend(add);
            return Ok(Value::Map(Arc::new(MapObj { sorted: a.sorted, entries: Mutex::new(m) })));
        }
        (Sub, Value::Str(s), other) => {
            let t = text_of(cx, other)?;
            return Ok(Value::Str(s.replacen(&t, "", 1).into()));
        }
        (_, Value::Null, _) | (_, _, Value::Null) if op != Shl => {
            return Err(npe(format!(
                "Cannot execute null{}",
                op_method(op).map(|m| format!(".{m}()")).unwrap_or_default()
            )));
        }
        _ => {}
    }
    if let (Shl, Value::Object(_)) = (op, &l) {
        // Groovy's `<<` on builders and writers (`leftShift` in the GDK) appends.
        return match call_method_value(cx, &l, "leftShift", vec![r.clone()]) {
            Err(e) if e.is_no_method() => call_method_value(cx, &l, "append", vec![r]).map(|_| l),
            other => other,
        };
    }
    match op_method(op) {
        Some(m) => call_method_value(cx, &l, m, vec![r]),
        None => Err(Thrown::no_method(l.type_name(), &format!("{op:?}"))),
    }
}

fn op_method(op: BinOp) -> Option<&'static str> {
    use BinOp::*;
    Some(match op {
        Add => "plus",
        Sub => "minus",
        Mul => "multiply",
        Div => "div",
        Rem => "mod",
        Pow => "power",
        Shl => "leftShift",
        Shr => "rightShift",
        UShr => "rightShiftUnsigned",
        BitAnd => "and",
        BitOr => "or",
        BitXor => "xor",
        _ => return None,
    })
}

fn unary(cx: &mut Ctx<'_>, op: UnOp, v: Value) -> R<Value> {
    Ok(match op {
        UnOp::Not => Value::Bool(!truth(cx, &v)?),
        UnOp::Plus => v,
        UnOp::Neg => match v {
            Value::Int(i) if cx.lang == Lang::JavaScript => {
                ops::arith(BinOp::Sub, &Value::Int(0), &Value::Int(i), cx.lang).unwrap_or(Ok(Value::Null))?
            }
            Value::Int(i) => Value::Int(i.wrapping_neg()),
            Value::Long(i) => Value::Long(i.wrapping_neg()),
            Value::Double(d) => Value::Double(-d),
            Value::Decimal(d) => Value::Decimal(-d),
            Value::Char(c) => Value::Int(-(c as i32)),
            other => call_method_value(cx, &other, "negative", Vec::new())?,
        },
        UnOp::BitNot => match v {
            Value::Int(i) => Value::Int(!i),
            Value::Long(i) => Value::Long(!i),
            // Groovy's `~/re/`: a compiled Pattern.
            Value::Str(_) if cx.lang == Lang::Groovy => match classes::resolve("java.util.regex.Pattern", &[]) {
                Some(pattern) => classes::call_static(cx, pattern, "compile", vec![v])?,
                None => call_method_value(cx, &v, "bitwiseNegate", Vec::new())?,
            },
            other => call_method_value(cx, &other, "bitwiseNegate", Vec::new())?,
        },
        UnOp::TypeOf => Value::str(match v {
            Value::Null => "object",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::Long(_) | Value::Double(_) | Value::Decimal(_) => "number",
            Value::Str(_) | Value::Char(_) => "string",
            Value::Closure(_) => "function",
            _ => "object",
        }),
    })
}

/// `subject ==~ pattern`, and a `~/re/` pattern as a `case` label.
fn whole_match(cx: &mut Ctx<'_>, pattern: &Value, subject: &Value) -> R<bool> {
    if subject.is_null() {
        return Ok(false);
    }
    let (p, t) = (text_of(cx, pattern)?, text_of(cx, subject)?);
    let m = classes::matcher(cx, &p, &t)?;
    Ok(call_method_value(cx, &m, "matches", Vec::new())?.truthy())
}

/// Groovy's `x in coll` (`coll.isCase(x)`).
fn contains(cx: &mut Ctx<'_>, coll: &Value, x: &Value) -> R<bool> {
    Ok(match coll {
        Value::Null => x.is_null(),
        Value::List(l) => lock(&l.items).iter().any(|i| value::equals(i, x)),
        Value::Map(m) => lock(&m.entries).contains_key(&Key(x.clone())),
        Value::Range(a, b) => x.as_i64().is_some_and(|i| (*a.min(b)..=*a.max(b)).contains(&i)) && x.is_number(),
        Value::Str(_) => value::equals(coll, x),
        Value::Class(c) => instance_of_class(x, c),
        other => call_method_value(cx, other, "contains", vec![x.clone()])?.truthy(),
    })
}

fn instance_of_class(v: &Value, class: &'static str) -> bool {
    classes::is_instance(v, class) || builtin_instance(v, class.rsplit('.').next().unwrap_or(class), 0) == Some(true)
}

/// `instanceof` for the built-in value types; `None` when the type is a library class.
fn builtin_instance(v: &Value, simple: &str, dims: u8) -> Option<bool> {
    if v.is_null() {
        return Some(false);
    }
    if dims > 0 {
        return Some(matches!(v, Value::Bytes(_)) || matches!(v, Value::List(l) if l.kind == ListKind::Array));
    }
    Some(match simple {
        "String" | "CharSequence" | "GString" => matches!(v, Value::Str(_)),
        "Integer" | "int" => matches!(v, Value::Int(_)),
        "Long" | "long" => matches!(v, Value::Long(_)),
        "Double" | "double" => matches!(v, Value::Double(_)),
        "BigDecimal" => matches!(v, Value::Decimal(_)),
        "Number" => v.is_number(),
        "Boolean" | "boolean" => matches!(v, Value::Bool(_)),
        "Character" | "char" => matches!(v, Value::Char(_)),
        "List" | "ArrayList" | "LinkedList" => {
            matches!(v, Value::List(l) if l.kind == ListKind::List) || matches!(v, Value::Range(..))
        }
        "Set" | "HashSet" | "LinkedHashSet" => matches!(v, Value::List(l) if l.kind == ListKind::Set),
        "Collection" | "Iterable" => {
            matches!(v, Value::List(l) if l.kind != ListKind::Array) || matches!(v, Value::Range(..))
        }
        "Map" | "HashMap" | "LinkedHashMap" => matches!(v, Value::Map(_)),
        "TreeMap" | "SortedMap" => matches!(v, Value::Map(m) if m.sorted),
        "Closure" => matches!(v, Value::Closure(_)),
        "Object" => true,
        _ => return None,
    })
}

fn instance_of(v: &Value, ty: &Ty) -> bool {
    if let (Some(o), 0) = (object::of(v), ty.dims) {
        return o.is_a(&ty.name);
    }
    let simple = ty.name.rsplit('.').next().unwrap_or(&ty.name);
    if let Some(b) = builtin_instance(v, simple, ty.dims) {
        return b;
    }
    ty.class.is_some_and(|c| classes::is_instance(v, c))
}

// ---------------------------------------------------------------------------------------
// Properties, indices, calls

fn get_prop(cx: &mut Ctx<'_>, r: &Value, name: &str) -> R<Value> {
    match r {
        Value::Null => Err(npe(format!("Cannot get property '{name}' on null object"))),
        Value::Host(h) => cx.host.get(*h, name),
        Value::Object(o) => o.clone().get(cx, name),
        Value::Class(c) => match classes::get_static(cx, c, name) {
            Err(e) => class_property(c, name).ok_or(e),
            r => r,
        },
        Value::Map(m) => Ok(lock(&m.entries).get(&Key(Value::str(name))).cloned().unwrap_or_default()),
        Value::Closure(_) => Err(missing_property(name, "Closure")),
        // JavaScript's arrays and strings.
        Value::List(l) if name == "length" && cx.lang == Lang::JavaScript => {
            Ok(Value::Int(lock(&l.items).len() as i32))
        }
        Value::Str(s) if name == "length" && cx.lang == Lang::JavaScript => {
            Ok(Value::Int(s.encode_utf16().count() as i32))
        }
        other => methods::get_property(cx, other, name),
    }
}

/// The properties of a `Class` itself (`x.class.name`, `e.getClass().getSimpleName()`).
fn class_property(class: &str, name: &str) -> Option<Value> {
    match name {
        "name" | "canonicalName" | "typeName" => Some(Value::str(class)),
        "simpleName" => Some(Value::str(class.rsplit(['.', '$']).next().unwrap_or(class))),
        _ => None,
    }
}

fn uncapitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_ascii_lowercase().to_string() + c.as_str()).unwrap_or_default()
}

fn set_prop(cx: &mut Ctx<'_>, r: &Value, name: &str, v: Value) -> R<()> {
    match r {
        Value::Null => Err(npe(format!("Cannot set property '{name}' on null object"))),
        Value::Map(m) => {
            lock(&m.entries).insert(Key(Value::str(name)), v);
            Ok(())
        }
        Value::Host(h) => cx.host.set(*h, name, v),
        Value::Object(o) => o.clone().set(cx, name, v),
        Value::Class(c) => Err(Thrown::new(
            "groovy.lang.ReadOnlyPropertyException",
            format!("Cannot set property: {name} for class: {c}"),
        )),
        other => call_method_value(cx, other, &format!("set{}", capitalize(name)), vec![v]).map(|_| ()),
    }
}

fn list_index(cx: &Ctx<'_>, i: i64, len: usize) -> Option<usize> {
    let k = if i < 0 && !cx.lang.is_java_like() { i + len as i64 } else { i };
    (0..len as i64).contains(&k).then_some(k as usize)
}

fn out_of_bounds(i: i64, len: usize) -> Thrown {
    Thrown::new("java.lang.ArrayIndexOutOfBoundsException", format!("Index {i} out of bounds for length {len}"))
}

fn int_index(i: &Value) -> Option<i64> {
    match i {
        Value::Int(_) | Value::Long(_) | Value::Char(_) => i.as_i64(),
        _ => None,
    }
}

fn index_get(cx: &mut Ctx<'_>, r: &Value, i: &Value) -> R<Value> {
    match (r, int_index(i)) {
        (Value::Null, _) => Err(npe("Cannot invoke method getAt() on null object".into())),
        (Value::List(l), Some(k)) => {
            let items = lock(&l.items);
            match list_index(cx, k, items.len()) {
                Some(k) => Ok(items[k].clone()),
                None if l.kind == ListKind::Array && cx.lang != Lang::JavaScript => Err(out_of_bounds(k, items.len())),
                None => Ok(Value::Null),
            }
        }
        (Value::Map(m), _) => Ok(lock(&m.entries).get(&Key(i.clone())).cloned().unwrap_or_default()),
        (Value::Str(s), Some(k)) => {
            let n = s.chars().count();
            match list_index(cx, k, n) {
                Some(k) => Ok(Value::Str(s.chars().nth(k).map(String::from).unwrap_or_default().into())),
                None => Err(Thrown::new("java.lang.StringIndexOutOfBoundsException", format!("index {k}, length {n}"))),
            }
        }
        (Value::Host(h), _) => cx.host.call(*h, "getAt", vec![i.clone()]),
        (Value::Object(o), _) => o.clone().call(cx, "getAt", vec![i.clone()]),
        _ => call_method_value(cx, r, "getAt", vec![i.clone()]),
    }
}

fn index_set(cx: &mut Ctx<'_>, r: &Value, i: Value, v: Value) -> R<()> {
    match (r, int_index(&i)) {
        (Value::Null, _) => Err(npe("Cannot invoke method putAt() on null object".into())),
        (Value::List(l), Some(k)) => {
            let mut items = lock(&l.items);
            let len = items.len();
            match list_index(cx, k, len) {
                Some(k) => items[k] = v,
                None if k >= 0 && l.kind == ListKind::List && !cx.lang.is_java_like() => {
                    budget::charge_items(k as u64 + 1 - len as u64, budget::VALUE_BYTES)?;
                    items.resize(k as usize, Value::Null);
                    items.push(v);
                }
                None => return Err(out_of_bounds(k, len)),
            }
            Ok(())
        }
        (Value::Map(m), _) => {
            if lock(&m.entries).insert(Key(i), v).is_none() {
                budget::charge(budget::ENTRY_BYTES)?;
            }
            Ok(())
        }
        (Value::Host(h), _) => cx.host.call(*h, "putAt", vec![i, v]).map(|_| ()),
        (Value::Object(o), _) => o.clone().call(cx, "putAt", vec![i, v]).map(|_| ()),
        _ => call_method_value(cx, r, "putAt", vec![i, v]).map(|_| ()),
    }
}

/// `recv.name(args)` on any value.
pub(crate) fn call_method_value(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: Vec<Value>) -> R<Value> {
    match recv {
        // Groovy's null is `NullObject`, which has a few methods; Java and JavaScript throw.
        Value::Null if cx.lang == Lang::Groovy => methods::call_method(cx, recv, name, args),
        Value::Null => Err(npe(format!("Cannot invoke method {name}() on null object"))),
        Value::Host(h) => match cx.host.call(*h, name, args) {
            Err(e) if e.is_no_method() && name == "toString" => Ok(Value::Str(cx.host.describe(*h).into())),
            r => r,
        },
        Value::Object(o) => {
            let o = o.clone();
            match o.call(cx, name, args) {
                Err(e) if e.is_no_method() && name == "toString" => Ok(Value::Str(Native::to_string(&*o).into())),
                r => r,
            }
        }
        Value::Class(c) => match classes::call_static(cx, c, name, args) {
            Err(e) if e.is_no_method() => match name.strip_prefix("get").map(uncapitalize) {
                Some(prop) => class_property(c, &prop).ok_or(e),
                None => Err(e),
            },
            r => r,
        },
        Value::Closure(c) => match name {
            "call" | "doCall" => call_closure(cx, c, args),
            "curry" => {
                let mut curried = c.curried.clone();
                curried.extend(args);
                let kind = match &c.kind {
                    ClosureKind::Code { proto, cells, unit } => {
                        ClosureKind::Code { proto: proto.clone(), cells: cells.clone(), unit: unit.clone() }
                    }
                    ClosureKind::Method { recv, name } => {
                        ClosureKind::Method { recv: recv.clone(), name: name.clone() }
                    }
                };
                Ok(Value::Closure(Arc::new(Closure { kind, curried })))
            }
            _ => methods::call_method(cx, recv, name, args),
        },
        Value::Map(m) => {
            let held = lock(&m.entries).get(&Key(Value::str(name))).cloned();
            match held {
                Some(Value::Closure(c)) => call_closure(cx, &c, args),
                _ => methods::call_method(cx, recv, name, args),
            }
        }
        other => methods::call_method(cx, other, name, args),
    }
}

use crate::value::Native;

fn call_callee(cx: &mut Ctx<'_>, callee: &Value, args: Vec<Value>) -> R<Value> {
    match callee {
        Value::Closure(c) => call_closure(cx, c, args),
        Value::Null => Err(npe("Cannot call a null value".into())),
        other => call_method_value(cx, other, "call", args),
    }
}

/// `println`, `sleep`, ... and closures bound as script-level variables.
fn script_method(cx: &mut Ctx<'_>, name: &str, args: Vec<Value>) -> R<Value> {
    match name {
        "println" | "print" => {
            let mut s = match args.first() {
                Some(a) => text_of(cx, a)?,
                None => String::new(),
            };
            if name == "println" || cx.lang != Lang::Groovy {
                s.push('\n');
            }
            cx.host.print(&s);
            Ok(Value::Null)
        }
        "printf" | "sprintf" => {
            let string = classes::resolve("String", &[]).unwrap_or("java.lang.String");
            let mut args = args;
            if args.len() == 2 {
                if let Value::List(l) = &args[1] {
                    let items = lock(&l.items).clone();
                    args.truncate(1);
                    args.extend(items);
                }
            }
            let s = classes::call_static(cx, string, "format", args)?;
            if name == "sprintf" {
                return Ok(s);
            }
            let s = text_of(cx, &s)?;
            cx.host.print(&s);
            Ok(Value::Null)
        }
        "sleep" => {
            let ms = args.first().and_then(|a| a.as_i64()).unwrap_or(0).max(0) as u64;
            cx.host.sleep(ms);
            Ok(Value::Null)
        }
        "parseInt" | "parseFloat" | "isNaN" | "isFinite" | "Number" | "String" | "Boolean"
            if cx.lang == Lang::JavaScript =>
        {
            let texts = args.iter().map(|a| text_of(cx, a)).collect::<R<Vec<String>>>()?;
            Ok(ops::js_global(name, &args, &texts))
        }
        _ => {
            let i = cx.state.unit.as_ref().and_then(|u| u.globals.iter().position(|g| &**g == name));
            match i.and_then(|i| cx.state.globals.get(i).cloned().flatten()) {
                Some(v @ Value::Closure(_)) => call_callee(cx, &v, args),
                _ => Err(Thrown::no_method("Script1", name)),
            }
        }
    }
}

pub(crate) fn call_closure(cx: &mut Ctx<'_>, c: &Arc<Closure>, mut args: Vec<Value>) -> R<Value> {
    if !c.curried.is_empty() {
        let mut all = c.curried.clone();
        all.append(&mut args);
        args = all;
    }
    match &c.kind {
        ClosureKind::Method { recv, name } => call_method_value(cx, recv, name, args),
        ClosureKind::Code { proto, cells, unit } => {
            if cx.state.unit.as_ref().is_some_and(|u| Arc::ptr_eq(u, unit)) {
                return invoke(cx, proto, unit, cells, args);
            }
            // A closure of another script (kept in `props`): its own globals, empty.
            let saved_globals = std::mem::replace(&mut cx.state.globals, vec![None; unit.globals.len()]);
            let saved_unit = cx.state.unit.replace(unit.clone());
            let r = invoke(cx, proto, unit, cells, args);
            cx.state.globals = saved_globals;
            cx.state.unit = saved_unit;
            r
        }
    }
}

pub(crate) fn invoke(cx: &mut Ctx<'_>, proto: &Proto, unit: &Arc<Unit>, cells: &[Cell], args: Vec<Value>) -> R<Value> {
    step(cx)?;
    cx.state.depth += 1;
    let here = super::stack_here();
    if cx.state.stack_base == 0 {
        cx.state.stack_base = here;
    }
    let used = cx.state.stack_base.saturating_sub(here);
    let r = if cx.state.depth > MAX_DEPTH || used > super::STACK_BUDGET {
        Err(Thrown::new("java.lang.StackOverflowError", format!("more than {MAX_DEPTH} nested calls")))
    } else {
        invoke_frame(cx, proto, unit, cells, args)
    };
    cx.state.depth -= 1;
    r
}

fn invoke_frame(cx: &mut Ctx<'_>, proto: &Proto, unit: &Arc<Unit>, cells: &[Cell], mut args: Vec<Value>) -> R<Value> {
    let mut f = Frame::new(proto, unit, cells);
    if proto.params.len() > 1 && args.len() == 1 {
        let spread = match &args[0] {
            Value::List(l) if l.kind != ListKind::Set => Some(lock(&l.items).clone()),
            _ => None,
        };
        if let Some(items) = spread {
            args = items;
        }
    }
    let mut args = args.into_iter();
    for (i, p) in proto.params.iter().enumerate() {
        let v = match (args.next(), &p.default) {
            (Some(v), _) => v,
            (None, Some(d)) => eval(cx, &mut f, d)?,
            (None, None) => Value::Null,
        };
        let v = convert(cx, p.ty.as_ref(), v)?;
        declare(cx, &mut f, VarRef::Local(i as u32), v);
    }
    match exec_block(cx, &mut f, &proto.body)? {
        Flow::Return(v) => Ok(v),
        _ if proto.implicit_return => Ok(std::mem::take(&mut f.last)),
        _ => Ok(Value::Null),
    }
}

fn new_builtin(cx: &mut Ctx<'_>, ty: &Ty, args: Vec<Value>) -> R<Value> {
    let simple = ty.name.rsplit('.').next().unwrap_or(&ty.name);
    let from = args.into_iter().next();
    let items = |cx: &mut Ctx<'_>, v: &Option<Value>| -> R<Vec<Value>> {
        match v {
            Some(v @ (Value::List(_) | Value::Range(..))) => iterate(cx, v, false),
            _ => Ok(Vec::new()),
        }
    };
    Ok(match simple {
        "List" | "ArrayList" | "LinkedList" | "Collection" => Value::list(items(cx, &from)?),
        "Set" | "HashSet" | "LinkedHashSet" | "TreeSet" => {
            let mut out: Vec<Value> = Vec::new();
            for v in items(cx, &from)? {
                if !out.iter().any(|o| value::equals(o, &v)) {
                    out.push(v);
                }
            }
            Value::List(Arc::new(ListObj { json: false, kind: ListKind::Set, items: Mutex::new(out) }))
        }
        "Map" | "HashMap" | "LinkedHashMap" | "TreeMap" => {
            let entries = match &from {
                Some(Value::Map(m)) => lock(&m.entries).clone(),
                _ => IndexMap::new(),
            };
            Value::Map(Arc::new(MapObj { sorted: simple == "TreeMap", entries: Mutex::new(entries) }))
        }
        "String" => Value::Str(match from {
            Some(v) => text_of(cx, &v)?.into(),
            None => "".into(),
        }),
        _ => match from {
            Some(v) => methods::cast(cx, v, &ty.name, 0, true)?,
            None => {
                return Err(Thrown::new(
                    "java.lang.UnsupportedOperationException",
                    format!("new {}() is not available in stampede's scripts", ty.name),
                ))
            }
        },
    })
}

fn new_array(ty: &Ty, dims: &[Value]) -> R<Value> {
    let Some((first, rest)) = dims.split_first() else { return Ok(Value::array(Vec::new())) };
    let n = first.as_i64().unwrap_or(0);
    if n < 0 {
        return Err(Thrown::new("java.lang.NegativeArraySizeException", n.to_string()));
    }
    budget::charge_items(n as u64, budget::VALUE_BYTES)?;
    let mut items = Vec::with_capacity(n as usize);
    let zero = zero_of(Some(&Arc::new(Ty { dims: 0, name: ty.name.clone(), class: None, converts: true })));
    for _ in 0..n {
        items.push(if rest.is_empty() { zero.clone() } else { new_array(ty, rest)? });
    }
    Ok(Value::array(items))
}
