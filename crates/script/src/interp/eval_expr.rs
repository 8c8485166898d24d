//! The evaluation of each kind of expression node (`ev_*`, one per `E` variant that is more
//! than a line), assignment places and spreading (`*.`).

use super::*;

#[inline(never)]
pub(super) fn ev_g_str(cx: &mut Ctx<'_>, f: &mut Frame<'_>, parts: &[GPart]) -> R<Value> {
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
pub(super) fn ev_func(f: &mut Frame<'_>, i: &u32) -> R<Value> {
    Ok({
        let proto = f.unit.funcs[*i as usize].clone();
        Value::Closure(Arc::new(Closure {
            kind: ClosureKind::Code { proto, cells: Vec::new(), unit: f.unit.clone() },
            curried: Vec::new(),
        }))
    })
}

#[inline(never)]
pub(super) fn ev_list(cx: &mut Ctx<'_>, f: &mut Frame<'_>, items: &[Node]) -> R<Value> {
    made(Value::list(eval_args(cx, f, items)?))
}

#[inline(never)]
pub(super) fn ev_map(cx: &mut Ctx<'_>, f: &mut Frame<'_>, entries: &[(Node, Node)]) -> R<Value> {
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
pub(super) fn ev_range(cx: &mut Ctx<'_>, f: &mut Frame<'_>, a: &Node, b: &Node, exclusive: &bool) -> R<Value> {
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
pub(super) fn ev_unary(cx: &mut Ctx<'_>, f: &mut Frame<'_>, op: &UnOp, e: &Node) -> R<Value> {
    if let (UnOp::TypeOf, E::Var(VarRef::Global(i))) = (op, &e.k) {
        if cx.state.globals.get(*i as usize).is_none_or(|g| g.is_none()) {
            return Ok(Value::str("undefined"));
        }
    }
    let v = eval(cx, f, e)?;
    unary(cx, *op, v)
}

#[inline(never)]
pub(super) fn ev_inc_dec(
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
pub(super) fn ev_bin(cx: &mut Ctx<'_>, f: &mut Frame<'_>, op: &BinOp, a: &Node, b: &Node) -> R<Value> {
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
pub(super) fn ev_inst_of(cx: &mut Ctx<'_>, f: &mut Frame<'_>, e: &Node, ty: &Ty, negated: &bool) -> R<Value> {
    Ok({
        let v = eval(cx, f, e)?;
        Value::Bool(instance_of(&v, ty) != *negated)
    })
}

#[inline(never)]
pub(super) fn ev_assign(
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
pub(super) fn ev_cond(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &Node, a: &Node, b: &Node) -> R<Value> {
    Ok({
        if cond(cx, f, c)? {
            eval(cx, f, a)?
        } else {
            eval(cx, f, b)?
        }
    })
}

#[inline(never)]
pub(super) fn ev_elvis(cx: &mut Ctx<'_>, f: &mut Frame<'_>, a: &Node, b: &Node) -> R<Value> {
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
pub(super) fn ev_prop(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    t: &Node,
    name: &Arc<str>,
    safe: &bool,
    spread: &bool,
) -> R<Value> {
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
pub(super) fn ev_index(cx: &mut Ctx<'_>, f: &mut Frame<'_>, t: &Node, i: &Node, safe: &bool) -> R<Value> {
    let r = eval(cx, f, t)?;
    if *safe && r.is_null() {
        return Ok(Value::Null);
    }
    let i = eval(cx, f, i)?;
    made(index_get(cx, &r, &i)?)
}

#[inline(never)]
pub(super) fn ev_method(
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
                call_metered(cx, item, name, args.clone(), None)
            }
        })?);
    }
    let v = call_metered(cx, &r, name, args, None)?;
    // A receiver that was made for this call (`a.b().c()`) is dropped now.
    budget::release_dropped(&r);
    Ok(v)
}

#[inline(never)]
pub(super) fn ev_bound(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    recv: &Node,
    known: methods::Known,
    rows: &[methods::Method],
    name: &str,
    args: &[Node],
) -> R<Value> {
    let r = eval(cx, f, recv)?;
    let args = eval_args(cx, f, args)?;
    let rows = known.holds(&r, name).then_some(rows);
    let v = call_metered(cx, &r, name, args, rows)?;
    budget::release_dropped(&r);
    Ok(v)
}

/// A method call whose result is charged when new, and whose receiver's growth (or shrinking)
/// is counted: `list.add`, `map.put`, `addAll`, `clear`. `rows`: the call's rows, bound at load.
pub(super) fn call_metered(
    cx: &mut Ctx<'_>,
    r: &Value,
    name: &str,
    args: Vec<Value>,
    rows: Option<&[methods::Method]>,
) -> R<Value> {
    let before = container_size(r);
    if before > 0 || matches!(r, Value::List(_) | Value::Map(_)) {
        // `l.addAll(l)` in a loop doubles: what the arguments hold must fit before it is added.
        budget::check(args.iter().map(container_size).sum())?;
    }
    let v = match rows {
        Some(rows) => methods::call_bound(cx, rows, r, name, args)?,
        None => call_method_value(cx, r, name, args)?,
    };
    // A declared class's method gives a value its own code charged when it made it.
    if object::of(r).is_some() {
        return Ok(v);
    }
    resized(r, before)?;
    made(v)
}

/// What a list or map holds by itself (its strings do not change).
pub(super) fn container_size(v: &Value) -> u64 {
    match v {
        Value::List(_) | Value::Map(_) => budget::shallow_size(v),
        _ => 0,
    }
}

/// Charges (or releases) what a list or map grew (or shrank) by since it was `before`.
pub(super) fn resized(v: &Value, before: u64) -> R<()> {
    let after = container_size(v);
    if after > before {
        budget::grew(after - before)
    } else {
        budget::release(before - after);
        Ok(())
    }
}

#[inline(never)]
pub(super) fn ev_static(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    c: &'static str,
    s: &classes::Static,
    args: &[Node],
) -> R<Value> {
    let args = eval_args(cx, f, args)?;
    made((s.f)(cx, c, s.name, args)?)
}

#[inline(never)]
pub(super) fn ev_call_var(cx: &mut Ctx<'_>, f: &mut Frame<'_>, v: &VarRef, args: &[Node]) -> R<Value> {
    let callee = get_var(cx, f, *v)?;
    let args = eval_args(cx, f, args)?;
    call_callee(cx, &callee, args)
}

#[inline(never)]
pub(super) fn ev_call_func(cx: &mut Ctx<'_>, f: &mut Frame<'_>, i: &u32, args: &[Node]) -> R<Value> {
    let unit: &Arc<Unit> = f.unit;
    let args = eval_args(cx, f, args)?;
    let proto = &unit.funcs[*i as usize];
    invoke(cx, proto, unit, &[], args)
}

#[inline(never)]
pub(super) fn ev_call_free(cx: &mut Ctx<'_>, f: &mut Frame<'_>, name: &Arc<str>, args: &[Node]) -> R<Value> {
    let args = eval_args(cx, f, args)?;
    made(script_method(cx, name, args)?)
}

#[inline(never)]
pub(super) fn ev_call_value(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &Node, args: &[Node]) -> R<Value> {
    let callee = eval(cx, f, c)?;
    let args = eval_args(cx, f, args)?;
    call_callee(cx, &callee, args)
}

#[inline(never)]
pub(super) fn ev_new(cx: &mut Ctx<'_>, f: &mut Frame<'_>, c: &classes::Class, args: &[Node]) -> R<Value> {
    let args = eval_args(cx, f, args)?;
    made(c.construct(cx, args)?)
}

#[inline(never)]
pub(super) fn ev_new_builtin(cx: &mut Ctx<'_>, f: &mut Frame<'_>, ty: &Ty, args: &[Node]) -> R<Value> {
    let args = eval_args(cx, f, args)?;
    made(new_builtin(cx, ty, args)?)
}

#[inline(never)]
pub(super) fn ev_new_array(
    cx: &mut Ctx<'_>,
    f: &mut Frame<'_>,
    ty: &Ty,
    dims: &[Node],
    init: &Option<Vec<Node>>,
) -> R<Value> {
    Ok(match init {
        Some(items) => made(Value::array(eval_args(cx, f, items)?))?,
        None => {
            let dims = eval_args(cx, f, dims)?;
            new_array(ty, &dims)?
        }
    })
}

#[inline(never)]
pub(super) fn ev_cast(cx: &mut Ctx<'_>, f: &mut Frame<'_>, ty: &Ty, e: &Node, coerce: &bool) -> R<Value> {
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
pub(super) fn ev_closure(f: &mut Frame<'_>, proto: &Arc<Proto>) -> R<Value> {
    Ok({
        let cells = proto.captures.iter().map(|v| capture(f, *v)).collect();
        Value::Closure(Arc::new(Closure {
            kind: ClosureKind::Code { proto: proto.clone(), cells, unit: f.unit.clone() },
            curried: Vec::new(),
        }))
    })
}

#[inline(never)]
pub(super) fn ev_method_ref(cx: &mut Ctx<'_>, f: &mut Frame<'_>, t: &Node, name: &Arc<str>) -> R<Value> {
    Ok({
        let recv = eval(cx, f, t)?;
        Value::Closure(Arc::new(Closure {
            kind: ClosureKind::Method { recv, name: name.clone() },
            curried: Vec::new(),
        }))
    })
}

pub(super) fn builtin_class(name: &str) -> &'static str {
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

pub(super) fn spread_over(
    cx: &mut Ctx<'_>,
    r: &Value,
    mut each: impl FnMut(&mut Ctx<'_>, &Value) -> R<Value>,
) -> R<Value> {
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
pub(super) enum Place {
    Var(VarRef),
    Field(Value, u32),
    Static(u32),
    Prop(Value, Arc<str>),
    Index(Value, Value),
}

pub(super) fn place(cx: &mut Ctx<'_>, f: &mut Frame<'_>, t: &Node) -> R<Option<Place>> {
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

pub(super) fn place_get(cx: &mut Ctx<'_>, f: &Frame<'_>, p: &Place) -> R<Value> {
    match p {
        Place::Var(v) => get_var(cx, f, *v),
        Place::Field(o, slot) => Ok(object::of(o).map(|o| o.field(*slot)).unwrap_or_default()),
        Place::Static(g) => Ok(lock(&f.unit.statics[*g as usize]).clone()),
        Place::Prop(obj, name) => get_prop(cx, obj, name),
        Place::Index(obj, i) => index_get(cx, obj, i),
    }
}

pub(super) fn place_set(cx: &mut Ctx<'_>, f: &mut Frame<'_>, p: &Place, v: Value) -> R<()> {
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
