//! Maps (`LinkedHashMap`, or `TreeMap` when sorted): Java's `Map` methods, Groovy's closure
//! methods (a closure of two parameters gets `key, value`, of one the entry), and the
//! `Map.Entry` objects `entrySet()` gives.

use super::list::{elements, make_set, IterObj};
use super::{arity, bad_args, int_arg, Found, Method, ANY};
use crate::value::{self, lock, Key, MapObj, Native, Value};
use crate::{Ctx, Thrown};
use indexmap::IndexMap;
use std::sync::{Arc, Mutex};

mod methods;

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

/// A map method (`m` is `recv`'s map): its rows in [`MAP`].
pub(crate) fn call(cx: &mut Ctx<'_>, recv: &Value, _m: &Arc<MapObj>, name: &str, args: &[Value]) -> Found {
    super::dispatch(map_rows(name), cx, recv, name, args)
}

/// The methods of maps (`Value::Map`), sorted by name.
pub(crate) static MAP: &[Method] = &[
    Method::new("any", 1, 1, methods::find),
    Method::new("asImmutable", 0, 0, methods::as_immutable),
    Method::new("asSynchronized", 0, 0, methods::as_immutable),
    Method::new("asUnmodifiable", 0, 0, methods::as_immutable),
    Method::new("clear", 0, 0, methods::clear),
    Method::new("clone", 0, 0, methods::clone),
    Method::new("collect", 1, 1, methods::collect),
    Method::new("collectEntries", 1, 1, methods::collect_entries),
    Method::new("collectMany", 1, 1, methods::collect_many),
    Method::new("compute", 2, 2, methods::compute),
    Method::new("computeIfAbsent", 2, 2, methods::compute_if_absent),
    Method::new("computeIfPresent", 2, 2, methods::compute_if_present),
    Method::new("containsKey", 1, 1, methods::contains_key),
    Method::new("containsValue", 1, 1, methods::contains_value),
    Method::new("count", 1, 1, methods::find),
    Method::new("countBy", 1, 1, methods::find),
    Method::new("drop", 1, 1, methods::take),
    Method::new("each", 1, 1, methods::each),
    Method::new("eachWithIndex", 1, 1, methods::each_with_index),
    Method::new("entrySet", 0, 0, methods::entry_set),
    Method::new("entrySet", 0, ANY, methods::key_set_2),
    Method::new("equals", 1, 1, methods::equals),
    Method::new("every", 1, 1, methods::find),
    Method::new("find", 1, 1, methods::find),
    Method::new("findAll", 1, 1, methods::find),
    Method::new("findResult", 1, 1, methods::find),
    Method::new("firstKey", 0, 0, methods::first_key),
    Method::new("forEach", 1, 1, methods::for_each),
    Method::new("get", 1, 1, methods::get_method),
    Method::new("get", 2, 2, methods::get_method_2),
    Method::new("getAt", 1, 1, methods::get_method),
    Method::new("getOrDefault", 2, 2, methods::get_or_default),
    Method::new("groupBy", 1, 1, methods::find),
    Method::new("inject", 2, 2, methods::inject),
    Method::new("isCase", 1, 1, methods::contains_key),
    Method::new("isEmpty", 0, 0, methods::is_empty),
    Method::new("iterator", 0, 0, methods::iterator),
    Method::new("keySet", 0, 0, methods::key_set),
    Method::new("keySet", 0, ANY, methods::key_set_2),
    Method::new("lastKey", 0, 0, methods::last_key),
    Method::new("max", 1, 1, methods::sort_2),
    Method::new("merge", 3, 3, methods::merge),
    Method::new("min", 1, 1, methods::sort_2),
    Method::new("minus", 1, 1, methods::minus),
    Method::new("plus", 1, 1, methods::plus),
    Method::new("put", 2, 2, methods::put_method),
    Method::new("putAll", 1, 1, methods::put_all),
    Method::new("putAt", 2, 2, methods::put_method),
    Method::new("putIfAbsent", 2, 2, methods::put_if_absent),
    Method::new("remove", 1, 1, methods::remove),
    Method::new("size", 0, 0, methods::size),
    Method::new("sort", 0, 0, methods::sort),
    Method::new("sort", 1, 1, methods::sort_2),
    Method::new("split", 1, 1, methods::find),
    Method::new("subMap", 1, 1, methods::sub_map),
    Method::new("take", 1, 1, methods::take),
    Method::new("toString", 0, 0, methods::to_string),
    Method::new("values", 0, 0, methods::values),
    Method::new("values", 0, ANY, methods::key_set_2),
];

/// The rows of `name` in [`MAP`]: a `match` on the name, which compiles to a few length and
/// byte comparisons (about 5 ns where a binary search over the rows took 75); a test checks
/// it gives each name's rows.
pub(crate) fn map_rows(name: &str) -> &'static [Method] {
    match name {
        "any" => &MAP[0..1],
        "asImmutable" => &MAP[1..2],
        "asSynchronized" => &MAP[2..3],
        "asUnmodifiable" => &MAP[3..4],
        "clear" => &MAP[4..5],
        "clone" => &MAP[5..6],
        "collect" => &MAP[6..7],
        "collectEntries" => &MAP[7..8],
        "collectMany" => &MAP[8..9],
        "compute" => &MAP[9..10],
        "computeIfAbsent" => &MAP[10..11],
        "computeIfPresent" => &MAP[11..12],
        "containsKey" => &MAP[12..13],
        "containsValue" => &MAP[13..14],
        "count" => &MAP[14..15],
        "countBy" => &MAP[15..16],
        "drop" => &MAP[16..17],
        "each" => &MAP[17..18],
        "eachWithIndex" => &MAP[18..19],
        "entrySet" => &MAP[19..21],
        "equals" => &MAP[21..22],
        "every" => &MAP[22..23],
        "find" => &MAP[23..24],
        "findAll" => &MAP[24..25],
        "findResult" => &MAP[25..26],
        "firstKey" => &MAP[26..27],
        "forEach" => &MAP[27..28],
        "get" => &MAP[28..30],
        "getAt" => &MAP[30..31],
        "getOrDefault" => &MAP[31..32],
        "groupBy" => &MAP[32..33],
        "inject" => &MAP[33..34],
        "isCase" => &MAP[34..35],
        "isEmpty" => &MAP[35..36],
        "iterator" => &MAP[36..37],
        "keySet" => &MAP[37..39],
        "lastKey" => &MAP[39..40],
        "max" => &MAP[40..41],
        "merge" => &MAP[41..42],
        "min" => &MAP[42..43],
        "minus" => &MAP[43..44],
        "plus" => &MAP[44..45],
        "put" => &MAP[45..46],
        "putAll" => &MAP[46..47],
        "putAt" => &MAP[47..48],
        "putIfAbsent" => &MAP[48..49],
        "remove" => &MAP[49..50],
        "size" => &MAP[50..51],
        "sort" => &MAP[51..53],
        "split" => &MAP[53..54],
        "subMap" => &MAP[54..55],
        "take" => &MAP[55..56],
        "toString" => &MAP[56..57],
        "values" => &MAP[57..59],
        _ => &[],
    }
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
