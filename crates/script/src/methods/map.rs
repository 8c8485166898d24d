//! Maps (`LinkedHashMap`, or `TreeMap` when sorted): Java's `Map` methods, Groovy's closure
//! methods (a closure of two parameters gets `key, value`, of one the entry), and the
//! `Map.Entry` objects `entrySet()` gives.

use super::list::{elements, make_set, IterObj};
use super::{arity, bad_args, int_arg, Found};
use crate::value::{self, lock, Key, MapObj, Native, Value};
use crate::{Ctx, Thrown};
use indexmap::IndexMap;
use std::sync::{Arc, Mutex};

/// `map.get(key)` (null when absent).
pub(crate) fn get(m: &MapObj, k: &Value) -> Value {
    lock(&m.entries).get(&Key(k.clone())).cloned().unwrap_or(Value::Null)
}

/// `map.put(key, value)`: the previous value; a sorted map keeps key order.
pub(crate) fn put(m: &MapObj, k: Value, v: Value) -> Value {
    let mut g = lock(&m.entries);
    let old = g.insert(Key(k), v);
    if old.is_none() && m.sorted {
        value::sort_entries(&mut g);
    }
    old.unwrap_or(Value::Null)
}

/// The entries of a map as `Map.Entry` objects that write through to it.
pub(crate) fn entries_of(m: &Arc<MapObj>) -> Vec<Value> {
    let pairs: Vec<(Value, Value)> = lock(&m.entries).iter().map(|(k, v)| (k.0.clone(), v.clone())).collect();
    pairs.into_iter().map(|(k, v)| Entry::value(k, v, Some(m.clone()))).collect()
}

/// Adds what a `collectEntries` closure gave: `[k, v]`, an entry, or a map.
pub(crate) fn put_pair(m: &mut IndexMap<Key, Value>, pair: &Value) -> Result<(), Thrown> {
    match pair {
        Value::List(l) => {
            let items = lock(&l.items).clone();
            let mut it = items.into_iter();
            let k = it.next().unwrap_or(Value::Null);
            m.insert(Key(k), it.next().unwrap_or(Value::Null));
        }
        Value::Map(other) => {
            for (k, v) in lock(&other.entries).iter() {
                m.insert(k.clone(), v.clone());
            }
        }
        Value::Object(o) => match o.as_any().downcast_ref::<Entry>() {
            Some(e) => {
                m.insert(Key(e.key.clone()), e.get_value());
            }
            None => {
                return Err(Thrown::new(
                    "java.lang.ClassCastException",
                    format!("{} is not a map entry", o.class_name()),
                ))
            }
        },
        other => {
            return Err(Thrown::new(
                "java.lang.IllegalArgumentException",
                format!("collectEntries needs [key, value] pairs, not {}", other.type_name()),
            ))
        }
    }
    Ok(())
}

/// Calls a closure on one entry as Groovy does: `(key, value)` to a closure of two (or more)
/// parameters, the entry to one of one; `extra` (an index, an accumulator) goes last, or
/// first for `inject`.
fn call_entry(
    cx: &mut Ctx<'_>,
    f: &Value,
    k: &Value,
    v: &Value,
    m: &Arc<MapObj>,
    pre: Option<Value>,
    post: Option<Value>,
) -> Result<Value, Thrown> {
    let extra = pre.is_some() as usize + post.is_some() as usize;
    let mut args: Vec<Value> = pre.into_iter().collect();
    match arity(f) {
        Some(n) if n >= 2 + extra => {
            args.push(k.clone());
            args.push(v.clone());
        }
        _ => args.push(Entry::value(k.clone(), v.clone(), Some(m.clone()))),
    }
    args.extend(post);
    cx.call_value(f, args)
}

fn pairs(m: &MapObj) -> Vec<(Value, Value)> {
    lock(&m.entries).iter().map(|(k, v)| (k.0.clone(), v.clone())).collect()
}

fn new_map(sorted: bool, entries: IndexMap<Key, Value>) -> Value {
    Value::Map(Arc::new(MapObj { sorted, entries: Mutex::new(entries) }))
}

/// A map method.
pub(crate) fn call(cx: &mut Ctx<'_>, recv: &Value, m: &Arc<MapObj>, name: &str, args: &[Value]) -> Found {
    let bad = || bad_args(recv, name, args);
    let to_map = |v: Vec<(Value, Value)>| new_map(m.sorted, v.into_iter().map(|(k, v)| (Key(k), v)).collect());
    let v = match (name, args) {
        ("get" | "getAt", [k]) => get(m, k),
        ("get", [k, dflt]) => {
            // Groovy's `get(key, default)`: stores the default when absent.
            if lock(&m.entries).contains_key(&Key(k.clone())) {
                get(m, k)
            } else {
                put(m, k.clone(), dflt.clone());
                dflt.clone()
            }
        }
        ("getOrDefault", [k, dflt]) => lock(&m.entries).get(&Key(k.clone())).cloned().unwrap_or_else(|| dflt.clone()),
        ("put" | "putAt", [k, v]) => {
            let old = put(m, k.clone(), v.clone());
            if name == "putAt" {
                v.clone()
            } else {
                old
            }
        }
        ("putAll", [Value::Map(o)]) => {
            for (k, v) in pairs(o) {
                put(m, k, v);
            }
            Value::Null
        }
        ("putIfAbsent", [k, v]) => {
            let cur = get(m, k);
            if cur.is_null() {
                put(m, k.clone(), v.clone());
            }
            cur
        }
        ("containsKey" | "isCase", [k]) => Value::Bool(lock(&m.entries).contains_key(&Key(k.clone()))),
        ("containsValue", [v]) => Value::Bool(lock(&m.entries).values().any(|x| value::equals(x, v))),
        ("remove", [k]) => {
            let mut g = lock(&m.entries);
            g.shift_remove(&Key(k.clone())).unwrap_or(Value::Null)
        }
        ("size", []) => Value::Int(lock(&m.entries).len() as i32),
        ("isEmpty", []) => Value::Bool(lock(&m.entries).is_empty()),
        ("clear", []) => {
            lock(&m.entries).clear();
            Value::Null
        }
        ("keySet", []) => make_set(lock(&m.entries).keys().map(|k| k.0.clone()).collect()),
        ("values", []) => Value::list(lock(&m.entries).values().cloned().collect()),
        ("entrySet", []) => Value::List(Arc::new(crate::value::ListObj {
            json: false,
            kind: crate::value::ListKind::Set,
            items: Mutex::new(entries_of(m)),
        })),
        ("iterator", []) => Value::Object(Arc::new(IterObj::new(entries_of(m)))),
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
        ("compute", [k, f]) => {
            let cur = get(m, k);
            let v = cx.call_value(f, vec![k.clone(), cur])?;
            store_or_remove(m, k, &v);
            v
        }
        ("merge", [k, v, f]) => {
            let cur = get(m, k);
            let new = if cur.is_null() { v.clone() } else { cx.call_value(f, vec![cur, v.clone()])? };
            store_or_remove(m, k, &new);
            new
        }
        ("forEach", [f]) => {
            for (k, v) in pairs(m) {
                cx.call_value(f, vec![k, v])?;
            }
            Value::Null
        }
        ("each", [f]) => {
            for (k, v) in pairs(m) {
                call_entry(cx, f, &k, &v, m, None, None)?;
            }
            recv.clone()
        }
        ("eachWithIndex", [f]) => {
            for (i, (k, v)) in pairs(m).into_iter().enumerate() {
                call_entry(cx, f, &k, &v, m, None, Some(Value::Int(i as i32)))?;
            }
            recv.clone()
        }
        ("collect", [f]) => {
            let mut out = Vec::new();
            for (k, v) in pairs(m) {
                out.push(call_entry(cx, f, &k, &v, m, None, None)?);
            }
            Value::list(out)
        }
        ("collectMany", [f]) => {
            let mut out = Vec::new();
            for (k, v) in pairs(m) {
                out.extend(elements(&call_entry(cx, f, &k, &v, m, None, None)?)?);
            }
            Value::list(out)
        }
        ("collectEntries", [f]) => {
            let mut out = IndexMap::new();
            for (k, v) in pairs(m) {
                put_pair(&mut out, &call_entry(cx, f, &k, &v, m, None, None)?)?;
            }
            Value::map(out)
        }
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
        ("inject", [init, f]) => {
            let mut acc = init.clone();
            for (k, v) in pairs(m) {
                acc = call_entry(cx, f, &k, &v, m, Some(acc), None)?;
            }
            acc
        }
        ("sort", []) => {
            let p = pairs(m);
            let Ok(p) = value::merge_sort(p, &mut |a, b| {
                Ok::<_, std::convert::Infallible>(value::compare(&a.0, &b.0).unwrap_or(std::cmp::Ordering::Equal))
            });
            to_map(p)
        }
        ("sort" | "max" | "min", [_]) => {
            // By a closure: one parameter (an entry) gives a key, two compare entries.
            let p = pairs(m);
            let entries: Vec<Value> =
                p.iter().map(|(k, v)| Entry::value(k.clone(), v.clone(), Some(m.clone()))).collect();
            let list = Value::list(entries);
            let Value::List(l) = &list else { unreachable!() };
            let r = super::list::call(cx, &list, l, if name == "sort" { "toSorted" } else { name }, args)?
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
        ("subMap", [keys]) => {
            let keys = elements(keys)?;
            let g = lock(&m.entries);
            new_map(
                m.sorted,
                keys.into_iter().filter_map(|k| g.get(&Key(k.clone())).map(|v| (Key(k), v.clone()))).collect(),
            )
        }
        ("plus", [Value::Map(o)]) => {
            let mut p = pairs(m);
            p.extend(pairs(o));
            let mut out = IndexMap::new();
            for (k, v) in p {
                out.insert(Key(k), v);
            }
            new_map(m.sorted, out)
        }
        ("minus", [Value::Map(o)]) => {
            let other = lock(&o.entries).clone();
            to_map(
                pairs(m)
                    .into_iter()
                    .filter(|(k, v)| !other.get(&Key(k.clone())).is_some_and(|w| value::equals(v, w)))
                    .collect(),
            )
        }
        ("take" | "drop", [n]) => {
            let n = int_arg(n).ok_or_else(bad)?.max(0) as usize;
            let p = pairs(m);
            let n = n.min(p.len());
            to_map(if name == "take" { p[..n].to_vec() } else { p[n..].to_vec() })
        }
        ("keySet" | "values" | "entrySet", _) => return Err(bad()),
        ("asImmutable" | "asUnmodifiable" | "asSynchronized", []) => recv.clone(),
        ("equals", [x]) => Value::Bool(matches!(x, Value::Map(_)) && value::equals(recv, x)),
        ("clone", []) => new_map(m.sorted, lock(&m.entries).clone()),
        ("toString", []) => Value::from(crate::interp::text_of(cx, recv)?),
        ("firstKey", []) => lock(&m.entries)
            .first()
            .map(|(k, _)| k.0.clone())
            .ok_or_else(|| Thrown::new("java.util.NoSuchElementException", ""))?,
        ("lastKey", []) => lock(&m.entries)
            .last()
            .map(|(k, _)| k.0.clone())
            .ok_or_else(|| Thrown::new("java.util.NoSuchElementException", ""))?,
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// `compute`'s rule: a null result removes the key.
fn store_or_remove(m: &MapObj, k: &Value, v: &Value) {
    if v.is_null() {
        lock(&m.entries).shift_remove(&Key(k.clone()));
    } else {
        put(m, k.clone(), v.clone());
    }
}

/// A `Map.Entry`: `getKey()`, `getValue()`, `setValue(v)` (which writes to its map), and
/// the properties `key` and `value`.
#[derive(Debug)]
pub(crate) struct Entry {
    pub key: Value,
    value: Mutex<Value>,
    map: Option<Arc<MapObj>>,
}

impl Value {
    /// A `Map.Entry` of a map the script does not hold (`setValue` writes to the entry only).
    pub fn entry(key: Value, value: Value) -> Value {
        Entry::value(key, value, None)
    }
}

impl Entry {
    /// An entry as a value; with `map`, `setValue` writes through to it.
    pub(crate) fn value(key: Value, value: Value, map: Option<Arc<MapObj>>) -> Value {
        Value::Object(Arc::new(Entry { key, value: Mutex::new(value), map }))
    }

    pub(crate) fn get_value(&self) -> Value {
        lock(&self.value).clone()
    }
}

impl Native for Entry {
    fn class_name(&self) -> &'static str {
        "java.util.Map$Entry"
    }

    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.as_slice()) {
            ("getKey", []) => Ok(self.key.clone()),
            ("getValue", []) => Ok(self.get_value()),
            ("setValue", [v]) => {
                if let Some(m) = &self.map {
                    lock(&m.entries).insert(Key(self.key.clone()), v.clone());
                }
                Ok(std::mem::replace(&mut *lock(&self.value), v.clone()))
            }
            ("toString", []) => Ok(Value::from(self.to_string())),
            ("hashCode", []) => Ok(Value::Int(super::hash_code(&self.key) ^ super::hash_code(&self.get_value()))),
            ("equals", [Value::Object(o)]) => Ok(Value::Bool(self.equals(o.as_ref()))),
            ("equals", [_]) => Ok(Value::Bool(false)),
            _ => Err(Thrown::no_method("Map$Entry", method)),
        }
    }

    fn to_string(&self) -> String {
        format!("{}={}", self.key, self.get_value())
    }

    fn equals(&self, other: &dyn Native) -> bool {
        other
            .as_any()
            .downcast_ref::<Entry>()
            .is_some_and(|e| value::equals(&e.key, &self.key) && value::equals(&e.get_value(), &self.get_value()))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn map_of(pairs: &[(&str, i32)]) -> Value {
        Value::map(pairs.iter().map(|(k, v)| (Key(Value::str(*k)), Value::Int(*v))).collect())
    }

    #[test]
    fn java_map_methods() {
        let m = map_of(&[("a", 1), ("b", 2)]);
        assert_eq!(s(&m, "get", vec!["a".into()]), "1");
        assert_eq!(s(&m, "get", vec!["z".into()]), "null");
        assert_eq!(s(&m, "put", vec!["a".into(), Value::Int(5)]), "1");
        assert_eq!(s(&m, "put", vec!["c".into(), Value::Int(3)]), "null");
        assert_eq!(m.to_string(), "[a:5, b:2, c:3]");
        assert_eq!(s(&m, "containsKey", vec!["b".into()]), "true");
        assert_eq!(s(&m, "containsValue", vec![Value::Long(2)]), "true");
        assert_eq!(s(&m, "remove", vec!["b".into()]), "2");
        assert_eq!(s(&m, "size", vec![]), "2");
        assert_eq!(s(&m, "keySet", vec![]), "[a, c]");
        assert_eq!(s(&m, "values", vec![]), "[5, 3]");
        assert_eq!(s(&m, "entrySet", vec![]), "[a=5, c=3]");
        assert_eq!(s(&m, "getOrDefault", vec!["z".into(), Value::Int(0)]), "0");
        assert_eq!(s(&m, "putIfAbsent", vec!["a".into(), Value::Int(9)]), "5");
        assert_eq!(s(&m, "putIfAbsent", vec!["d".into(), Value::Int(9)]), "null");
        assert_eq!(s(&m, "isEmpty", vec![]), "false");
        s(&m, "putAll", vec![map_of(&[("e", 1)])]);
        assert_eq!(m.to_string(), "[a:5, c:3, d:9, e:1]");
        s(&m, "clear", vec![]);
        assert_eq!(m.to_string(), "[:]");
    }

    #[test]
    fn entries_write_through_and_have_properties() {
        let m = map_of(&[("a", 1)]);
        let set = invoke(&m, "entrySet", vec![]).unwrap();
        let e = invoke(&set, "first", vec![]).unwrap();
        let Value::Object(o) = &e else { panic!() };
        let mut host = crate::NoHost::default();
        let mut cx = Ctx { host: &mut host, lang: crate::Lang::Groovy, state: Default::default() };
        assert_eq!(o.get(&mut cx, "key").unwrap().to_string(), "a");
        assert_eq!(o.get(&mut cx, "value").unwrap().to_string(), "1");
        o.call(&mut cx, "setValue", vec![Value::Int(7)]).unwrap();
        assert_eq!(m.to_string(), "[a:7]");
    }

    #[test]
    fn properties_of_a_map_are_its_keys() {
        let m = map_of(&[("a-b", 1), ("class", 2)]);
        assert_eq!(prop(&m, "a-b").unwrap().to_string(), "1");
        assert_eq!(prop(&m, "class").unwrap().to_string(), "2");
        assert_eq!(prop(&m, "empty").unwrap().to_string(), "null");
    }

    #[test]
    fn sorted_maps_keep_key_order() {
        let m = Value::Map(Arc::new(MapObj { sorted: true, entries: Mutex::new(IndexMap::new()) }));
        for k in ["b", "c", "a"] {
            s(&m, "put", vec![k.into(), Value::Int(1)]);
        }
        assert_eq!(s(&m, "keySet", vec![]), "[a, b, c]");
    }

    #[test]
    fn groovy_map_additions_without_closures() {
        let m = map_of(&[("b", 2), ("a", 1)]);
        assert_eq!(s(&m, "sort", vec![]), "[a:1, b:2]");
        assert_eq!(s(&m, "subMap", vec![strs(&["a"])]), "[a:1]");
        assert_eq!(s(&m, "plus", vec![map_of(&[("c", 3)])]), "[b:2, a:1, c:3]");
        assert_eq!(s(&m, "minus", vec![map_of(&[("a", 1)])]), "[b:2]");
        assert_eq!(s(&m, "take", vec![Value::Int(1)]), "[b:2]");
        assert_eq!(s(&m, "equals", vec![map_of(&[("a", 1), ("b", 2)])]), "true");
        assert_eq!(s(&m, "getAt", vec!["a".into()]), "1");
        s(&m, "putAt", vec!["c".into(), Value::Int(3)]);
        assert_eq!(s(&m, "size", vec![]), "3");
    }
}
