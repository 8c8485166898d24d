//! Lists' methods that fold and group: `inject`, `sum`, `max`, `groupBy`, `collate`, streams' ...

use super::*;

pub(super) fn inject(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("inject" | "reduce", [f]) if is_fn(f) => {
            let mut it = items().into_iter();
            let Some(mut acc) = it.next() else {
                return Err(Thrown::new(
                    "java.util.NoSuchElementException",
                    "Cannot call inject() on an empty collection without passing an initial value.",
                ));
            };
            for x in it {
                acc = cx.call_value(f, vec![acc, x])?;
            }
            acc
        }
        _ => return Ok(None),
    }))
}

pub(super) fn inject_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("inject", [init, f]) | ("reduce", [f, init]) | ("reduce", [init, f]) if is_fn(f) => {
            let mut acc = init.clone();
            for x in items() {
                acc = cx.call_value(f, vec![acc, x])?;
            }
            acc
        }
        _ => return Ok(None),
    }))
}

pub(super) fn sum(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("sum", []) | ("sum", [_]) if args.first().is_none_or(|a| !is_fn(a)) => {
            let mut acc: Option<Value> = args.first().cloned();
            for x in items() {
                acc = Some(match acc {
                    None => x,
                    Some(a) => plus(&a, &x)?,
                });
            }
            acc.unwrap_or(Value::Null)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn sum_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("sum", [f]) | ("sum", [_, f]) => {
            let mut acc: Option<Value> = if args.len() == 2 { Some(args[0].clone()) } else { None };
            for x in items() {
                let y = cx.call_value(f, vec![x])?;
                acc = Some(match acc {
                    None => y,
                    Some(a) => plus(&a, &y)?,
                });
            }
            acc.unwrap_or(Value::Null)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn average(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("average", []) => {
            let v = items();
            if v.is_empty() {
                Value::Null
            } else {
                let n = Value::Int(v.len() as i32);
                let mut acc = v[0].clone();
                for x in &v[1..] {
                    acc = plus(&acc, x)?;
                }
                number::arith(Op::Div, &acc, &n)?
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn max(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("max", []) => max_or_min(cx, items(), None, Ordering::Greater)?,
        _ => return Ok(None),
    }))
}

pub(super) fn min(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("min", []) => max_or_min(cx, items(), None, Ordering::Less)?,
        _ => return Ok(None),
    }))
}

pub(super) fn max_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("max", [f]) => max_or_min(cx, items(), Some(f), Ordering::Greater)?,
        _ => return Ok(None),
    }))
}

pub(super) fn min_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("min", [f]) => max_or_min(cx, items(), Some(f), Ordering::Less)?,
        _ => return Ok(None),
    }))
}

pub(super) fn group_by(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("groupBy", [f]) => {
            let mut m: IndexMap<Key, Value> = IndexMap::new();
            for x in items() {
                let k = cx.call_value(f, vec![x.clone()])?;
                let slot = m.entry(Key(k)).or_insert_with(|| Value::list(Vec::new()));
                if let Value::List(g) = slot {
                    lock(&g.items).push(x);
                }
            }
            Value::map(m)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn count_by(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("countBy", [f]) => {
            let mut m: IndexMap<Key, Value> = IndexMap::new();
            for x in items() {
                let k = cx.call_value(f, vec![x])?;
                let slot = m.entry(Key(k)).or_insert(Value::Int(0));
                *slot = Value::Int(slot.as_i64().unwrap_or(0) as i32 + 1);
            }
            Value::map(m)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn with_index(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("withIndex" | "indexed", []) => {
            let v = items();
            if name == "withIndex" {
                Value::list(
                    v.into_iter().enumerate().map(|(i, x)| Value::list(vec![x, Value::Int(i as i32)])).collect(),
                )
            } else {
                Value::map(v.into_iter().enumerate().map(|(i, x)| (Key(Value::Int(i as i32)), x)).collect())
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn transpose(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("transpose", []) => {
            let rows = items().iter().map(elements).collect::<Result<Vec<_>, _>>()?;
            let n = rows.iter().map(Vec::len).min().unwrap_or(0);
            Value::list((0..n).map(|i| Value::list(rows.iter().map(|r| r[i].clone()).collect())).collect())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn collate(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("collate", [n]) => {
            let n = int_arg(n).ok_or_else(bad)?.max(1) as usize;
            Value::list(items().chunks(n).map(|c| Value::list(c.to_vec())).collect())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn split(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    Ok(Some(match (name, args) {
        ("split", [f]) => {
            let (mut yes, mut no) = (Vec::new(), Vec::new());
            for x in items() {
                if cx.call_value(f, vec![x.clone()])?.truthy() {
                    yes.push(x);
                } else {
                    no.push(x);
                }
            }
            Value::list(vec![same_kind(yes), same_kind(no)])
        }
        _ => return Ok(None),
    }))
}

pub(super) fn distinct(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("distinct", []) => make_list(make_set(items())),
        _ => return Ok(None),
    }))
}

pub(super) fn sorted(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("sorted", []) => Value::list(sort_values(cx, items(), None)?),
        _ => return Ok(None),
    }))
}

pub(super) fn sorted_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("sorted", [f]) => Value::list(sort_values(cx, items(), Some(f))?),
        _ => return Ok(None),
    }))
}

pub(super) fn limit(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("limit", [n]) => Value::list(items().into_iter().take(int_arg(n).ok_or_else(bad)?.max(0) as usize).collect()),
        _ => return Ok(None),
    }))
}

pub(super) fn skip(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("skip", [n]) => Value::list(items().into_iter().skip(int_arg(n).ok_or_else(bad)?.max(0) as usize).collect()),
        _ => return Ok(None),
    }))
}

pub(super) fn map_to_int(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("mapToInt" | "mapToLong" | "mapToDouble" | "mapToObj", [f]) => {
            call(cx, recv, l, "collect", std::slice::from_ref(f))?.ok_or_else(bad)?
        }
        _ => return Ok(None),
    }))
}

pub(super) fn iterator(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("iterator" | "listIterator", []) => Value::Object(Arc::new(IterObj::new(items()))),
        _ => return Ok(None),
    }))
}

/// json-smart's JSONArray prints itself as JSON; Groovy's `"$list"` does not call it.
pub(super) fn to_string(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("toString", []) if l.json => Value::from(crate::classes::json_smart_text(recv)),
        _ => return Ok(None),
    }))
}

pub(super) fn to_string_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("toString", []) => Value::from(crate::interp::text_of(cx, recv)?),
        _ => return Ok(None),
    }))
}

pub(super) fn hash_code(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("hashCode", []) => Value::Int(crate::methods::hash_code(recv)),
        _ => return Ok(None),
    }))
}

pub(super) fn clone(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    Ok(Some(match (name, args) {
        ("clone", []) => of_kind(kind, items()),
        _ => return Ok(None),
    }))
}
