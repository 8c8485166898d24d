//! Lists' methods that call a closure per element: `each`, `collect`, `find`, `findAll`, `any`, ...

use super::*;

pub(super) fn each(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("each" | "forEach", [f]) => {
            call_each(cx, f, &items(), false)?;
            if name == "each" {
                recv.clone()
            } else {
                Value::Null
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn each_with_index(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("eachWithIndex", [f]) => {
            call_each(cx, f, &items(), true)?;
            recv.clone()
        }
        _ => return Ok(None),
    }))
}

pub(super) fn reverse_each(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("reverseEach", [f]) => {
            let mut v = items();
            v.reverse();
            call_each(cx, f, &v, false)?;
            recv.clone()
        }
        _ => return Ok(None),
    }))
}

/// `stream().collect(Collectors.toList())` and friends: the eager stream is the list.
pub(super) fn collect(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("collect", [x]) if !is_fn(x) => match crate::classes::collect(cx, items(), x) {
            Some(r) => r?,
            None => Value::list(items()),
        },
        _ => return Ok(None),
    }))
}

pub(super) fn collect_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("collect" | "map" | "collectNested", [f]) => {
            let mut out = Vec::new();
            for x in items() {
                out.push(cx.call_value(f, vec![x])?);
            }
            Value::list(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn collect_3(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("collect", [init, f]) => {
            let target = init.clone();
            for x in items() {
                let r = cx.call_value(f, vec![x])?;
                call(
                    cx,
                    &target,
                    match &target {
                        Value::List(t) => t,
                        _ => return Err(bad()),
                    },
                    "add",
                    &[r],
                )?;
            }
            target
        }
        _ => return Ok(None),
    }))
}

pub(super) fn collect_many(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("collectMany" | "flatMap", [f]) => {
            let mut out = Vec::new();
            for x in items() {
                out.extend(elements(&cx.call_value(f, vec![x])?)?);
            }
            Value::list(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn collect_entries(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("collectEntries", []) | ("collectEntries", [_]) => {
            let mut m = IndexMap::new();
            for x in items() {
                let pair = match args.first() {
                    Some(f) => cx.call_value(f, vec![x])?,
                    None => x,
                };
                crate::methods::map::put_pair(&mut m, &pair)?;
            }
            Value::map(m)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("find" | "findFirst", [f]) => {
            let mut found = Value::Null;
            for x in items() {
                if cx.call_value(f, vec![x.clone()])?.truthy() {
                    found = x;
                    break;
                }
            }
            found
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("find" | "findAll" | "grep", []) => {
            let v: Vec<Value> = items().into_iter().filter(Value::truthy).collect();
            if name == "find" {
                v.into_iter().next().unwrap_or(Value::Null)
            } else {
                same_kind(v)
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find_first(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("findFirst", []) => lock(&l.items).first().cloned().unwrap_or(Value::Null),
        _ => return Ok(None),
    }))
}

pub(super) fn find_all(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("findAll" | "filter" | "grep", [f]) => {
            let mut out = Vec::new();
            for x in items() {
                let hit = if is_fn(f) {
                    cx.call_value(f, vec![x.clone()])?.truthy()
                } else {
                    crate::methods::is_case(cx, f, &x)?
                };
                if hit {
                    out.push(x);
                }
            }
            same_kind(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find_index_of(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("findIndexOf" | "findLastIndexOf" | "findIndexValues", [f]) => {
            let v = items();
            let mut hits = Vec::new();
            for (i, x) in v.into_iter().enumerate() {
                if cx.call_value(f, vec![x])?.truthy() {
                    hits.push(i as i32);
                    if name == "findIndexOf" {
                        break;
                    }
                }
            }
            match name {
                "findIndexOf" => Value::Int(hits.first().copied().unwrap_or(-1)),
                "findLastIndexOf" => Value::Int(hits.last().copied().unwrap_or(-1)),
                _ => Value::list(hits.into_iter().map(Value::Int).collect()),
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find_result(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("findResult", [f]) | ("findResult", [_, f]) => {
            let mut found = if args.len() == 2 { args[0].clone() } else { Value::Null };
            for x in items() {
                let r = cx.call_value(f, vec![x])?;
                if !r.is_null() {
                    found = r;
                    break;
                }
            }
            found
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find_results(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("findResults", [f]) => {
            let mut out = Vec::new();
            for x in items() {
                let r = cx.call_value(f, vec![x])?;
                if !r.is_null() {
                    out.push(r);
                }
            }
            Value::list(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn any(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("any" | "anyMatch" | "some", [f]) => {
            let mut hit = false;
            for x in items() {
                if cx.call_value(f, vec![x])?.truthy() {
                    hit = true;
                    break;
                }
            }
            Value::Bool(hit)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn every(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("every" | "allMatch", [f]) | ("noneMatch", [f]) => {
            let mut all = true;
            for x in items() {
                let t = cx.call_value(f, vec![x])?.truthy();
                if t == (name == "noneMatch") {
                    all = false;
                    break;
                }
            }
            Value::Bool(all)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn any_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("any", []) => Value::Bool(items().iter().any(Value::truthy)),
        _ => return Ok(None),
    }))
}

pub(super) fn every_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("every", []) => Value::Bool(items().iter().all(Value::truthy)),
        _ => return Ok(None),
    }))
}
