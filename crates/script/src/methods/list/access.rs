//! Lists' methods that read and change elements: `size`, `get`, `getAt`, `add`, `remove`, ...

use super::*;

pub(super) fn size(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("size", []) => Value::Int(lock(&l.items).len() as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn length(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("length", []) if cx.lang == crate::Lang::JavaScript => Value::Int(lock(&l.items).len() as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn is_empty(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isEmpty", []) => Value::Bool(lock(&l.items).is_empty()),
        _ => return Ok(None),
    }))
}

pub(super) fn get(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("get", [i]) => {
            let i = int_arg(i).ok_or_else(bad)?;
            let g = lock(&l.items);
            match usize::try_from(i).ok().and_then(|u| g.get(u)) {
                Some(v) => v.clone(),
                None => return Err(index_error("java.lang.IndexOutOfBoundsException", i, g.len())),
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn get_at(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("getAt", [Value::Range(a, b)]) => {
            let all = items();
            let (lo, hi, rev) = range_bounds(*a, *b, all.len(), false)?;
            let mut part = all[lo..hi].to_vec();
            if rev {
                part.reverse();
            }
            same_kind(part)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn get_at_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("getAt", [Value::List(ix)]) => {
            let all = items();
            let mut out = Vec::new();
            for i in lock(&ix.items).clone() {
                match call(cx, recv, l, "getAt", &[i])? {
                    Some(Value::List(part)) if matches!(part.kind, ListKind::List) => {
                        out.extend(lock(&part.items).clone())
                    }
                    Some(v) => out.push(v),
                    None => {}
                }
            }
            let _ = all;
            Value::list(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn get_at_3(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("getAt", [i]) if int_arg(i).is_some() => {
            let g = lock(&l.items);
            let i = groovy_index(int_arg(i).unwrap_or(0), g.len());
            usize::try_from(i).ok().and_then(|u| g.get(u)).cloned().unwrap_or(Value::Null)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn get_at_4(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("getAt", [Value::Str(p)]) => crate::methods::get_property(cx, recv, p)?,
        _ => return Ok(None),
    }))
}

pub(super) fn set(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("set", [i, x]) => {
            let i = int_arg(i).ok_or_else(bad)?;
            let mut g = lock(&l.items);
            let len = g.len();
            match usize::try_from(i).ok().and_then(|u| g.get_mut(u)) {
                Some(slot) => std::mem::replace(slot, x.clone()),
                None => return Err(index_error("java.lang.IndexOutOfBoundsException", i, len)),
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn put_at(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("putAt", [i, x]) => {
            let i = int_arg(i).ok_or_else(bad)?;
            let mut g = lock(&l.items);
            let len = g.len();
            let at = groovy_index(i, len);
            if at < 0 || (fixed && at as usize >= len) {
                return Err(index_error(
                    if fixed {
                        "java.lang.ArrayIndexOutOfBoundsException"
                    } else {
                        "java.lang.IndexOutOfBoundsException"
                    },
                    i,
                    len,
                ));
            }
            let at = at as usize;
            if at >= g.len() {
                g.resize(at + 1, Value::Null);
            }
            g[at] = x.clone();
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn add(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("add" | "push" | "leftShift" | "addLast" | "offer", [x]) if !fixed => {
            let mut g = lock(&l.items);
            let added = if kind == ListKind::Set && g.iter().any(|y| value::equals(y, x)) {
                false
            } else {
                g.push(x.clone());
                true
            };
            match name {
                "leftShift" => recv.clone(),
                "push" => Value::Int(g.len() as i32),
                _ => Value::Bool(added),
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn add_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("add", [i, x]) if !fixed => {
            let i = int_arg(i).ok_or_else(bad)?;
            let mut g = lock(&l.items);
            if i < 0 || i as usize > g.len() {
                return Err(index_error("java.lang.IndexOutOfBoundsException", i, g.len()));
            }
            g.insert(i as usize, x.clone());
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn add_first(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("addFirst" | "unshift" | "push" | "offerFirst", [x]) if !fixed && kind == ListKind::List => {
            lock(&l.items).insert(0, x.clone());
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn add_all(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("addAll", [c]) if !fixed => {
            let new = elements(c)?;
            let mut g = lock(&l.items);
            let before = g.len();
            for x in new {
                if kind != ListKind::Set || !g.iter().any(|y| value::equals(y, &x)) {
                    g.push(x);
                }
            }
            Value::Bool(g.len() != before)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn add_all_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("addAll", [i, c]) if !fixed && kind == ListKind::List => {
            let i = int_arg(i).ok_or_else(bad)?;
            let new = elements(c)?;
            let mut g = lock(&l.items);
            if i < 0 || i as usize > g.len() {
                return Err(index_error("java.lang.IndexOutOfBoundsException", i, g.len()));
            }
            let n = new.len();
            let at = i as usize;
            g.splice(at..at, new);
            Value::Bool(n > 0)
        }
        _ => return Ok(None),
    }))
}

/// `remove(int)` takes an index from a list; any other argument is an element.
pub(super) fn remove(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("remove" | "removeAt", [Value::Int(i)]) if !fixed && kind == ListKind::List => {
            let mut g = lock(&l.items);
            if *i < 0 || *i as usize >= g.len() {
                return Err(index_error("java.lang.IndexOutOfBoundsException", *i as i64, g.len()));
            }
            g.remove(*i as usize)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn remove_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("remove" | "removeElement", [x]) if !fixed => {
            let mut g = lock(&l.items);
            match g.iter().position(|y| value::equals(y, x)) {
                Some(p) => {
                    g.remove(p);
                    Value::Bool(true)
                }
                None => Value::Bool(false),
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn pop(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("pop" | "removeLast", []) if !fixed => {
            let mut g = lock(&l.items);
            match g.pop() {
                Some(v) => v,
                None if name == "pop" && cx.lang == crate::Lang::JavaScript => Value::Null,
                None => return Err(empty_error("last()")),
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn remove_first(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("removeFirst" | "shift" | "poll" | "remove", []) if !fixed => {
            let mut g = lock(&l.items);
            if g.is_empty() {
                if name == "poll" || name == "shift" {
                    Value::Null
                } else {
                    return Err(empty_error("first()"));
                }
            } else {
                g.remove(0)
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn clear(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("clear", []) if !fixed => {
            lock(&l.items).clear();
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn add_3(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    match (name, args) {
        (
            "add" | "addAll" | "remove" | "clear" | "leftShift" | "removeAt" | "removeIf" | "removeAll" | "retainAll",
            _,
        ) if fixed => Err(unsupported()),
        _ => Ok(None),
    }
}
