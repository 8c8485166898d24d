//! Lists' methods that order, slice and combine: `sort`, `unique`, `join`, `take`, `plus`, ...

use super::*;

/// Java's `List.sort(Comparator)` (a comparator object): in place, and nothing back.
pub(super) fn sort(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("sort", [c @ Value::Object(_)]) => {
            let sorted = sort_values(cx, items(), Some(c))?;
            *lock(&l.items) = sorted;
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn sort_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("sort", [])
        | ("sort", [Value::Bool(_)])
        | ("sort", [Value::Null])
        | ("sort", [Value::Bool(_), Value::Closure(_)])
        | ("sort", [Value::Closure(_)]) => {
            let mutate = !matches!(args.first(), Some(Value::Bool(false)));
            let f = args.iter().find(|a| is_fn(a));
            let sorted = sort_values(cx, items(), f)?;
            if mutate {
                *lock(&l.items) = sorted;
                if name == "sort" && kind != ListKind::Array && cx.lang.is_java_like() {
                    Value::Null
                } else {
                    recv.clone()
                }
            } else {
                same_kind(sorted)
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn unique(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("unique", [])
        | ("unique", [Value::Bool(_)])
        | ("unique", [Value::Closure(_)])
        | ("unique", [Value::Bool(_), Value::Closure(_)]) => {
            let mutate = !matches!(args.first(), Some(Value::Bool(false)));
            let f = args.iter().find(|a| is_fn(a));
            let mut out: Vec<Value> = Vec::new();
            let mut keys: Vec<Value> = Vec::new();
            for x in items() {
                let dup = match f {
                    Some(f) if arity(f) != Some(1) => {
                        let mut d = false;
                        for y in &out {
                            if closure_order(cx, f, &x, y)? == Ordering::Equal {
                                d = true;
                                break;
                            }
                        }
                        d
                    }
                    Some(f) => {
                        let k = cx.call_value(f, vec![x.clone()])?;
                        let d = keys.iter().any(|y| value::equals(y, &k));
                        keys.push(k);
                        d
                    }
                    None => out.iter().any(|y| value::equals(y, &x)),
                };
                if !dup {
                    out.push(x);
                }
            }
            if mutate && !fixed {
                *lock(&l.items) = out;
                recv.clone()
            } else {
                same_kind(out)
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn reverse(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    Ok(Some(match (name, args) {
        ("reverse", []) | ("reverse", [Value::Bool(false)]) => {
            let mut v = items();
            v.reverse();
            of_kind(kind, v)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn reverse_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("reverse", [Value::Bool(true)]) => {
            lock(&l.items).reverse();
            recv.clone()
        }
        _ => return Ok(None),
    }))
}

pub(super) fn shuffle(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    Ok(Some(match (name, args) {
        ("shuffle", []) if !fixed => {
            lock(&l.items).shuffle(&mut rand::rng());
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn shuffled(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("shuffled", []) => {
            let mut v = items();
            v.shuffle(&mut rand::rng());
            same_kind(v)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn join(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("join", []) => Value::from(crate::methods::join_texts(&shown(cx, items())?, "", "null")?),
        _ => return Ok(None),
    }))
}

pub(super) fn join_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("join", [sep]) => {
            let sep = match sep {
                Value::Null => ",".to_string(),
                other => other.to_string(),
            };
            Value::from(crate::methods::join_texts(&shown(cx, items())?, &sep, "null")?)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn first(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("first" | "head" | "getFirst" | "peek" | "element", []) => match lock(&l.items).first() {
            Some(v) => v.clone(),
            None if name == "peek" => Value::Null,
            None => return Err(empty_error("first()")),
        },
        _ => return Ok(None),
    }))
}

pub(super) fn last(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("last" | "getLast", []) => match lock(&l.items).last() {
            Some(v) => v.clone(),
            None => return Err(empty_error("last()")),
        },
        _ => return Ok(None),
    }))
}

pub(super) fn tail(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("tail", []) => {
            let v = items();
            if v.is_empty() {
                return Err(Thrown::new(
                    "java.util.NoSuchElementException",
                    "Cannot access tail() for an empty iterable",
                ));
            }
            same_kind(v[1..].to_vec())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn init(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("init", []) => {
            let v = items();
            if v.is_empty() {
                return Err(Thrown::new(
                    "java.util.NoSuchElementException",
                    "Cannot access init() for an empty Iterable",
                ));
            }
            same_kind(v[..v.len() - 1].to_vec())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn take(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let bad = || bad_args(recv, name, args);
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("take" | "drop" | "takeRight" | "dropRight", [n]) => {
            let v = items();
            let n = (int_arg(n).ok_or_else(bad)?.max(0) as usize).min(v.len());
            same_kind(match name {
                "take" => v[..n].to_vec(),
                "drop" => v[n..].to_vec(),
                "takeRight" => v[v.len() - n..].to_vec(),
                _ => v[..v.len() - n].to_vec(),
            })
        }
        _ => return Ok(None),
    }))
}

pub(super) fn take_while(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("takeWhile" | "dropWhile", [f]) => {
            let v = items();
            let mut n = 0;
            while n < v.len() && cx.call_value(f, vec![v[n].clone()])?.truthy() {
                n += 1;
            }
            same_kind(if name == "takeWhile" { v[..n].to_vec() } else { v[n..].to_vec() })
        }
        _ => return Ok(None),
    }))
}

pub(super) fn flatten(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("flatten", []) => {
            let mut out = Vec::new();
            flatten_into(&items(), &mut out)?;
            same_kind(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn plus_method(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("plus", [x]) => plus(recv, x)?,
        _ => return Ok(None),
    }))
}

pub(super) fn plus_method_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("plus", [i, c]) if int_arg(i).is_some() => {
            let mut v = items();
            let at = (int_arg(i).unwrap_or(0).max(0) as usize).min(v.len());
            v.splice(at..at, elements(c)?);
            same_kind(v)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn minus(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("minus", [x]) => {
            let remove = if is_collection(x) { elements(x)? } else { vec![x.clone()] };
            same_kind(items().into_iter().filter(|y| !remove.iter().any(|r| value::equals(r, y))).collect())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn multiply(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("multiply", [n]) => {
            let n = int_arg(n).ok_or_else(bad)?.max(0) as usize;
            let v = items();
            crate::methods::checked_items((v.len() as u64).saturating_mul(n as u64))?;
            Value::list((0..n).flat_map(|_| v.iter().cloned()).collect())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn intersect(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("intersect", [c]) => {
            let other = elements(c)?;
            let mut out: Vec<Value> = Vec::new();
            for x in items() {
                if other.iter().any(|y| value::equals(&x, y)) && !out.iter().any(|y| value::equals(&x, y)) {
                    out.push(x);
                }
            }
            same_kind(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn disjoint(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("disjoint", [c]) => {
            let other = elements(c)?;
            Value::Bool(!items().iter().any(|x| other.iter().any(|y| value::equals(x, y))))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn remove_all(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("removeAll" | "retainAll" | "removeIf", [c]) => {
            let keep_matching = name == "retainAll";
            let all = items();
            let mut kept = Vec::with_capacity(all.len());
            let other = if is_fn(c) { Vec::new() } else { elements(c)? };
            for x in all.iter() {
                let hit = if is_fn(c) {
                    cx.call_value(c, vec![x.clone()])?.truthy()
                } else {
                    other.iter().any(|y| value::equals(x, y))
                };
                if hit == keep_matching {
                    kept.push(x.clone());
                }
            }
            let changed = kept.len() != all.len();
            *lock(&l.items) = kept;
            Value::Bool(changed)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn count(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("count", [x]) => {
            let mut n = 0;
            for y in items() {
                let hit = if is_fn(x) { cx.call_value(x, vec![y])?.truthy() } else { value::equals(&y, x) };
                n += hit as i32;
            }
            Value::Int(n)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn count_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("count", []) => Value::Long(lock(&l.items).len() as i64),
        _ => return Ok(None),
    }))
}
