//! Properties, indices and calls: `a.b`, `a[i]`, `recv.m(args)` on every kind of value,
//! free calls (`println`, closures bound as globals), closures, script functions, `new`.

use super::*;

pub(super) fn get_prop(cx: &mut Ctx<'_>, r: &Value, name: &str) -> R<Value> {
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
pub(super) fn class_property(class: &str, name: &str) -> Option<Value> {
    match name {
        "name" | "canonicalName" | "typeName" => Some(Value::str(class)),
        "simpleName" => Some(Value::str(class.rsplit(['.', '$']).next().unwrap_or(class))),
        _ => None,
    }
}

pub(super) fn uncapitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_ascii_lowercase().to_string() + c.as_str()).unwrap_or_default()
}

pub(super) fn set_prop(cx: &mut Ctx<'_>, r: &Value, name: &str, v: Value) -> R<()> {
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

pub(super) fn list_index(cx: &Ctx<'_>, i: i64, len: usize) -> Option<usize> {
    let k = if i < 0 && !cx.lang.is_java_like() { i + len as i64 } else { i };
    (0..len as i64).contains(&k).then_some(k as usize)
}

pub(super) fn out_of_bounds(i: i64, len: usize) -> Thrown {
    Thrown::new("java.lang.ArrayIndexOutOfBoundsException", format!("Index {i} out of bounds for length {len}"))
}

pub(super) fn int_index(i: &Value) -> Option<i64> {
    match i {
        Value::Int(_) | Value::Long(_) | Value::Char(_) => i.as_i64(),
        _ => None,
    }
}

pub(super) fn index_get(cx: &mut Ctx<'_>, r: &Value, i: &Value) -> R<Value> {
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

pub(super) fn index_set(cx: &mut Ctx<'_>, r: &Value, i: Value, v: Value) -> R<()> {
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

pub(super) fn call_callee(cx: &mut Ctx<'_>, callee: &Value, args: Vec<Value>) -> R<Value> {
    match callee {
        Value::Closure(c) => call_closure(cx, c, args),
        Value::Null => Err(npe("Cannot call a null value".into())),
        other => call_method_value(cx, other, "call", args),
    }
}

/// `println`, `sleep`, ... and closures bound as script-level variables.
pub(super) fn script_method(cx: &mut Ctx<'_>, name: &str, args: Vec<Value>) -> R<Value> {
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
    let here = super::super::stack_here();
    if cx.state.stack_base == 0 {
        cx.state.stack_base = here;
    }
    let used = cx.state.stack_base.saturating_sub(here);
    let r = if cx.state.depth > MAX_DEPTH || used > super::super::STACK_BUDGET {
        Err(Thrown::new("java.lang.StackOverflowError", format!("more than {MAX_DEPTH} nested calls")))
    } else {
        invoke_frame(cx, proto, unit, cells, args)
    };
    cx.state.depth -= 1;
    r
}

pub(super) fn invoke_frame(
    cx: &mut Ctx<'_>,
    proto: &Proto,
    unit: &Arc<Unit>,
    cells: &[Cell],
    mut args: Vec<Value>,
) -> R<Value> {
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

pub(super) fn new_builtin(cx: &mut Ctx<'_>, ty: &Ty, args: Vec<Value>) -> R<Value> {
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

pub(super) fn new_array(ty: &Ty, dims: &[Value]) -> R<Value> {
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
