//! Maps' methods, one function per signature (the rows of `MAP`).

use super::*;

pub(super) fn get_method(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("get" | "getAt", [k]) => get(m, k),
        _ => return Ok(None),
    }))
}

pub(super) fn get_method_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("get", [k, dflt]) => {
            // Groovy's `get(key, default)`: stores the default when absent.
            if lock(&m.entries).contains_key(&Key(k.clone())) {
                get(m, k)
            } else {
                put(m, k.clone(), dflt.clone());
                dflt.clone()
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn get_or_default(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("getOrDefault", [k, dflt]) => lock(&m.entries).get(&Key(k.clone())).cloned().unwrap_or_else(|| dflt.clone()),
        _ => return Ok(None),
    }))
}

pub(super) fn put_method(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("put" | "putAt", [k, v]) => {
            let old = put(m, k.clone(), v.clone());
            if name == "putAt" {
                v.clone()
            } else {
                old
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn put_all(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("putAll", [Value::Map(o)]) => {
            for (k, v) in pairs(o) {
                put(m, k, v);
            }
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn put_if_absent(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("putIfAbsent", [k, v]) => {
            let cur = get(m, k);
            if cur.is_null() {
                put(m, k.clone(), v.clone());
            }
            cur
        }
        _ => return Ok(None),
    }))
}

pub(super) fn contains_key(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("containsKey" | "isCase", [k]) => Value::Bool(lock(&m.entries).contains_key(&Key(k.clone()))),
        _ => return Ok(None),
    }))
}

pub(super) fn contains_value(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("containsValue", [v]) => Value::Bool(lock(&m.entries).values().any(|x| value::equals(x, v))),
        _ => return Ok(None),
    }))
}

pub(super) fn remove(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("remove", [k]) => {
            let mut g = lock(&m.entries);
            g.shift_remove(&Key(k.clone())).unwrap_or(Value::Null)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn size(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("size", []) => Value::Int(lock(&m.entries).len() as i32),
        _ => return Ok(None),
    }))
}

pub(super) fn is_empty(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("isEmpty", []) => Value::Bool(lock(&m.entries).is_empty()),
        _ => return Ok(None),
    }))
}

pub(super) fn clear(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("clear", []) => {
            lock(&m.entries).clear();
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn key_set(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("keySet", []) => make_set(lock(&m.entries).keys().map(|k| k.0.clone()).collect()),
        _ => return Ok(None),
    }))
}

pub(super) fn values(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("values", []) => Value::list(lock(&m.entries).values().cloned().collect()),
        _ => return Ok(None),
    }))
}

pub(super) fn entry_set(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("entrySet", []) => Value::List(Arc::new(crate::value::ListObj {
            json: false,
            kind: crate::value::ListKind::Set,
            items: Mutex::new(entries_of(m)),
        })),
        _ => return Ok(None),
    }))
}

pub(super) fn iterator(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("iterator", []) => Value::Object(Arc::new(IterObj::new(entries_of(m)))),
        _ => return Ok(None),
    }))
}

pub(super) fn compute_if_absent(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("computeIfAbsent", [k, f]) => {
            let cur = get(m, k);
            if cur.is_null() {
                let v = cx.call_value(f, vec![k.clone()])?;
                if !v.is_null() {
                    put(m, k.clone(), v.clone());
                }
                v
            } else {
                cur
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn compute_if_present(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("computeIfPresent", [k, f]) => {
            let cur = get(m, k);
            if cur.is_null() {
                Value::Null
            } else {
                let v = cx.call_value(f, vec![k.clone(), cur])?;
                store_or_remove(m, k, &v);
                v
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn compute(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("compute", [k, f]) => {
            let cur = get(m, k);
            let v = cx.call_value(f, vec![k.clone(), cur])?;
            store_or_remove(m, k, &v);
            v
        }
        _ => return Ok(None),
    }))
}

pub(super) fn merge(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("merge", [k, v, f]) => {
            let cur = get(m, k);
            let new = if cur.is_null() { v.clone() } else { cx.call_value(f, vec![cur, v.clone()])? };
            store_or_remove(m, k, &new);
            new
        }
        _ => return Ok(None),
    }))
}

pub(super) fn for_each(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("forEach", [f]) => {
            for (k, v) in pairs(m) {
                cx.call_value(f, vec![k, v])?;
            }
            Value::Null
        }
        _ => return Ok(None),
    }))
}

pub(super) fn each(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("each", [f]) => {
            for (k, v) in pairs(m) {
                call_entry(cx, f, &k, &v, m, None, None)?;
            }
            recv.clone()
        }
        _ => return Ok(None),
    }))
}

pub(super) fn each_with_index(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("eachWithIndex", [f]) => {
            for (i, (k, v)) in pairs(m).into_iter().enumerate() {
                call_entry(cx, f, &k, &v, m, None, Some(Value::Int(i as i32)))?;
            }
            recv.clone()
        }
        _ => return Ok(None),
    }))
}

pub(super) fn collect(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("collect", [f]) => {
            let mut out = Vec::new();
            for (k, v) in pairs(m) {
                out.push(call_entry(cx, f, &k, &v, m, None, None)?);
            }
            Value::list(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn collect_many(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("collectMany", [f]) => {
            let mut out = Vec::new();
            for (k, v) in pairs(m) {
                out.extend(elements(&call_entry(cx, f, &k, &v, m, None, None)?)?);
            }
            Value::list(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn collect_entries(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("collectEntries", [f]) => {
            let mut out = IndexMap::new();
            for (k, v) in pairs(m) {
                put_pair(&mut out, &call_entry(cx, f, &k, &v, m, None, None)?)?;
            }
            Value::map(out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn find(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    let to_map = |v: Vec<(Value, Value)>| new_map(m.sorted, v.into_iter().map(|(k, v)| (Key(k), v)).collect());
    Ok(Some(match (name, args) {
        ("find" | "findAll" | "any" | "every" | "count" | "findResult" | "groupBy" | "countBy" | "split", [f]) => {
            let mut hits = Vec::new();
            let mut results = Vec::new();
            for (k, v) in pairs(m) {
                let r = call_entry(cx, f, &k, &v, m, None, None)?;
                let t = r.truthy();
                let stop = match name {
                    "find" => t,
                    "any" => t,
                    "every" => !t,
                    "findResult" => !r.is_null(),
                    _ => false,
                };
                results.push(((k, v), r));
                if t || name == "findResult" {
                    hits.push(results.len() - 1);
                }
                if stop {
                    break;
                }
            }
            match name {
                "find" => match hits.last() {
                    Some(&i) => {
                        let ((k, v), _) = &results[i];
                        Entry::value(k.clone(), v.clone(), Some(m.clone()))
                    }
                    None => Value::Null,
                },
                "findAll" => to_map(hits.iter().map(|&i| results[i].0.clone()).collect()),
                "any" => Value::Bool(!hits.is_empty()),
                "every" => Value::Bool(hits.len() == results.len()),
                "count" => Value::Int(hits.len() as i32),
                "findResult" => results.last().map(|(_, r)| r.clone()).filter(|r| !r.is_null()).unwrap_or(Value::Null),
                "split" => {
                    let yes: Vec<_> = hits.iter().map(|&i| results[i].0.clone()).collect();
                    let no: Vec<_> =
                        (0..results.len()).filter(|i| !hits.contains(i)).map(|i| results[i].0.clone()).collect();
                    Value::list(vec![to_map(yes), to_map(no)])
                }
                "groupBy" => {
                    let mut groups: IndexMap<Key, Value> = IndexMap::new();
                    for ((k, v), r) in results {
                        let g = groups.entry(Key(r)).or_insert_with(|| new_map(m.sorted, IndexMap::new()));
                        if let Value::Map(g) = g {
                            lock(&g.entries).insert(Key(k), v);
                        }
                    }
                    Value::map(groups)
                }
                _ => {
                    let mut counts: IndexMap<Key, Value> = IndexMap::new();
                    for (_, r) in results {
                        let c = counts.entry(Key(r)).or_insert(Value::Int(0));
                        *c = Value::Int(c.as_i64().unwrap_or(0) as i32 + 1);
                    }
                    Value::map(counts)
                }
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn inject(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("inject", [init, f]) => {
            let mut acc = init.clone();
            for (k, v) in pairs(m) {
                acc = call_entry(cx, f, &k, &v, m, Some(acc), None)?;
            }
            acc
        }
        _ => return Ok(None),
    }))
}

pub(super) fn sort(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    let to_map = |v: Vec<(Value, Value)>| new_map(m.sorted, v.into_iter().map(|(k, v)| (Key(k), v)).collect());
    Ok(Some(match (name, args) {
        ("sort", []) => {
            let p = pairs(m);
            let Ok(p) = value::merge_sort(p, &mut |a, b| {
                Ok::<_, std::convert::Infallible>(value::compare(&a.0, &b.0).unwrap_or(std::cmp::Ordering::Equal))
            });
            to_map(p)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn sort_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("sort" | "max" | "min", [_]) => {
            // By a closure: one parameter (an entry) gives a key, two compare entries.
            let p = pairs(m);
            let entries: Vec<Value> =
                p.iter().map(|(k, v)| Entry::value(k.clone(), v.clone(), Some(m.clone()))).collect();
            let list = Value::list(entries);
            let Value::List(l) = &list else { unreachable!() };
            let r = crate::methods::list::call(cx, &list, l, if name == "sort" { "toSorted" } else { name }, args)?
                .ok_or_else(bad)?;
            if name != "sort" {
                r
            } else {
                let mut out = IndexMap::new();
                for e in elements(&r)? {
                    put_pair(&mut out, &e)?;
                }
                new_map(false, out)
            }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn sub_map(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("subMap", [keys]) => {
            let keys = elements(keys)?;
            let g = lock(&m.entries);
            new_map(
                m.sorted,
                keys.into_iter().filter_map(|k| g.get(&Key(k.clone())).map(|v| (Key(k), v.clone()))).collect(),
            )
        }
        _ => return Ok(None),
    }))
}

pub(super) fn plus(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("plus", [Value::Map(o)]) => {
            let mut p = pairs(m);
            p.extend(pairs(o));
            let mut out = IndexMap::new();
            for (k, v) in p {
                out.insert(Key(k), v);
            }
            new_map(m.sorted, out)
        }
        _ => return Ok(None),
    }))
}

pub(super) fn minus(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    let to_map = |v: Vec<(Value, Value)>| new_map(m.sorted, v.into_iter().map(|(k, v)| (Key(k), v)).collect());
    Ok(Some(match (name, args) {
        ("minus", [Value::Map(o)]) => {
            let other = lock(&o.entries).clone();
            to_map(
                pairs(m)
                    .into_iter()
                    .filter(|(k, v)| !other.get(&Key(k.clone())).is_some_and(|w| value::equals(v, w)))
                    .collect(),
            )
        }
        _ => return Ok(None),
    }))
}

pub(super) fn take(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    let bad = || bad_args(recv, name, args);
    let to_map = |v: Vec<(Value, Value)>| new_map(m.sorted, v.into_iter().map(|(k, v)| (Key(k), v)).collect());
    Ok(Some(match (name, args) {
        ("take" | "drop", [n]) => {
            let n = int_arg(n).ok_or_else(bad)?.max(0) as usize;
            let p = pairs(m);
            let n = n.min(p.len());
            to_map(if name == "take" { p[..n].to_vec() } else { p[n..].to_vec() })
        }
        _ => return Ok(None),
    }))
}

pub(super) fn key_set_2(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    match (name, args) {
        ("keySet" | "values" | "entrySet", _) => Err(bad()),
        _ => Ok(None),
    }
}

pub(super) fn as_immutable(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("asImmutable" | "asUnmodifiable" | "asSynchronized", []) => recv.clone(),
        _ => return Ok(None),
    }))
}

pub(super) fn equals(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("equals", [x]) => Value::Bool(matches!(x, Value::Map(_)) && value::equals(recv, x)),
        _ => return Ok(None),
    }))
}

pub(super) fn clone(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("clone", []) => new_map(m.sorted, lock(&m.entries).clone()),
        _ => return Ok(None),
    }))
}

pub(super) fn to_string(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("toString", []) => Value::from(crate::interp::text_of(cx, recv)?),
        _ => return Ok(None),
    }))
}

pub(super) fn first_key(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("firstKey", []) => lock(&m.entries)
            .first()
            .map(|(k, _)| k.0.clone())
            .ok_or_else(|| Thrown::new("java.util.NoSuchElementException", ""))?,
        _ => return Ok(None),
    }))
}

pub(super) fn last_key(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::Map(m) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("lastKey", []) => lock(&m.entries)
            .last()
            .map(|(k, _)| k.0.clone())
            .ok_or_else(|| Thrown::new("java.util.NoSuchElementException", ""))?,
        _ => return Ok(None),
    }))
}
