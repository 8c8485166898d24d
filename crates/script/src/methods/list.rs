//! Lists, arrays and sets (one `Value::List`, its `ListKind` deciding what changes size and
//! what ignores duplicates), ranges and `byte[]`: Java's `List`/`Collection` methods and
//! Groovy's (`each`, `collect`, `findAll`, `inject`, `groupBy`, ...); a few of JavaScript's
//! array methods (`push`, `map`, `filter`, `forEach`) and eager versions of Java streams.

use super::number::{self, int_or_long, Op};
use super::string::{groovy_index, range_bounds};
use super::{arity, bad_args, index_error, int_arg, Found};
use crate::value::{self, lock, Key, ListKind, ListObj, Native, Value};
use crate::{budget, Ctx, Thrown};
use indexmap::IndexMap;
use rand::seq::SliceRandom;
use std::cmp::Ordering;
use std::sync::{Arc, Mutex};

/// A new list of this kind (a set drops duplicates).
pub(crate) fn of_kind(kind: ListKind, items: Vec<Value>) -> Value {
    match kind {
        ListKind::Set => make_set(items),
        _ => Value::List(Arc::new(ListObj { json: false, kind, items: Mutex::new(items) })),
    }
}

/// A `Set` (insertion order) of these items, duplicates dropped.
pub(crate) fn make_set(items: Vec<Value>) -> Value {
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    for x in items {
        if !out.iter().any(|y| value::equals(y, &x)) {
            out.push(x);
        }
    }
    Value::List(Arc::new(ListObj { json: false, kind: ListKind::Set, items: Mutex::new(out) }))
}

/// The elements of anything Groovy iterates: lists, ranges, maps (entries), strings (chars),
/// bytes; a single value is a list of itself.
pub(crate) fn elements(v: &Value) -> Result<Vec<Value>, Thrown> {
    Ok(match v {
        Value::List(l) => {
            let items = lock(&l.items).clone();
            budget::work(items.len() as u64 * budget::VALUE_BYTES);
            items
        }
        Value::Range(a, b) => range_items(*a, *b)?,
        Value::Map(m) => super::map::entries_of(m),
        Value::Str(s) => {
            super::checked_items(s.len() as u64)?;
            s.chars().map(|c| Value::str(c.to_string())).collect()
        }
        Value::Bytes(b) => {
            super::checked_items(b.len() as u64)?;
            b.iter().map(|&x| Value::Int(x as i8 as i32)).collect()
        }
        Value::Null => Vec::new(),
        other => vec![other.clone()],
    })
}

const RANGE_MAX: u64 = 50_000_000;

pub(crate) fn range_items(a: i64, b: i64) -> Result<Vec<Value>, Thrown> {
    if a.abs_diff(b) > RANGE_MAX {
        return Err(Thrown::new(
            "java.lang.OutOfMemoryError",
            format!("Java heap space: range {a}..{b} is too large to list"),
        ));
    }
    super::checked_items(a.abs_diff(b) + 1)?;
    Ok(if a <= b { (a..=b).map(int_or_long).collect() } else { (b..=a).rev().map(int_or_long).collect() })
}

fn is_collection(v: &Value) -> bool {
    matches!(v, Value::List(_) | Value::Range(..))
}

/// Orders two values as `sort()` does (a pair that does not compare is equal: stable).
fn natural(a: &Value, b: &Value) -> Ordering {
    value::compare(a, b).unwrap_or(Ordering::Equal)
}

/// A comparator from a closure: two parameters compare, one extracts a key.
fn closure_order(cx: &mut Ctx<'_>, f: &Value, a: &Value, b: &Value) -> Result<Ordering, Thrown> {
    if arity(f) == Some(1) {
        let (x, y) = (cx.call_value(f, vec![a.clone()])?, cx.call_value(f, vec![b.clone()])?);
        return Ok(natural(&x, &y));
    }
    let r = cx.call_value(f, vec![a.clone(), b.clone()])?;
    Ok(match number::to_i64(&r) {
        Some(n) => n.cmp(&0),
        None if r.is_null() => Ordering::Equal,
        None => return Err(Thrown::new("java.lang.ClassCastException", "a comparator must return a number")),
    })
}

/// Sorts with an order that may fail (a closure that throws) or not be total: a merge sort
/// keeps it stable and never panics.
fn sort_values(cx: &mut Ctx<'_>, items: Vec<Value>, f: Option<&Value>) -> Result<Vec<Value>, Thrown> {
    match f {
        // Objects of a script's classes compare by their `compareTo`.
        // (Library objects, json-smart's among them, keep `value::compare`.)
        None if items.iter().any(crate::interp::is_script_object) => {
            value::merge_sort(items, &mut |a, b| object_order(cx, a, b))
        }
        None => Ok(value::sort_natural(items)),
        Some(f) => value::merge_sort(items, &mut |a, b| closure_order(cx, f, a, b)),
    }
}

/// Items as `join` shows them: an object of a script's class by its own `toString()`.
fn shown(cx: &mut Ctx<'_>, items: Vec<Value>) -> Result<Vec<Value>, Thrown> {
    if !items.iter().any(|v| matches!(v, Value::Object(_))) {
        return Ok(items);
    }
    items
        .into_iter()
        .map(|v| match v {
            Value::Object(_) => Ok(Value::from(crate::interp::text_of(cx, &v)?)),
            other => Ok(other),
        })
        .collect()
}

/// `a <=> b` where one may be an object that is `Comparable` (its `compareTo`).
fn object_order(cx: &mut Ctx<'_>, a: &Value, b: &Value) -> Result<Ordering, Thrown> {
    let (o, other, flip) = match (a, b) {
        (Value::Object(o), _) => (o, b, false),
        (_, Value::Object(o)) => (o, a, true),
        _ => return Ok(natural(a, b)),
    };
    let r = o.call(cx, "compareTo", vec![other.clone()])?;
    let ord = number::to_i64(&r).unwrap_or(0).cmp(&0);
    Ok(if flip { ord.reverse() } else { ord })
}

/// Groovy's `sum`/`plus` of two values: numbers add, strings concatenate, lists append.
pub(crate) fn plus(a: &Value, b: &Value) -> Result<Value, Thrown> {
    match (a, b) {
        (Value::Str(s), x) => Ok(Value::from(format!("{s}{x}"))),
        (Value::List(l), x) => {
            let mut items = lock(&l.items).clone();
            if is_collection(x) {
                items.extend(elements(x)?);
            } else {
                items.push(x.clone());
            }
            Ok(of_kind(if l.kind == ListKind::Set { ListKind::Set } else { ListKind::List }, items))
        }
        _ => number::arith(Op::Plus, a, b),
    }
}

fn max_or_min(cx: &mut Ctx<'_>, items: Vec<Value>, f: Option<&Value>, want: Ordering) -> Result<Value, Thrown> {
    let mut best: Option<Value> = None;
    for x in items {
        best = Some(match best {
            None => x,
            Some(b) => {
                let o = match f {
                    Some(f) => closure_order(cx, f, &x, &b)?,
                    None => natural(&x, &b),
                };
                if o == want {
                    x
                } else {
                    b
                }
            }
        });
    }
    Ok(best.unwrap_or(Value::Null))
}

/// Lists nested by reference may flatten to far more than they hold (`l = [l, l]` ten times
/// over): every element is charged as it is added.
fn flatten_into(v: &[Value], out: &mut Vec<Value>) -> Result<(), Thrown> {
    for x in v {
        match x {
            Value::List(l) => flatten_into(&lock(&l.items).clone(), out)?,
            other => {
                budget::charge(budget::VALUE_BYTES)?;
                out.push(other.clone());
            }
        }
    }
    Ok(())
}

fn empty_error(what: &str) -> Thrown {
    Thrown::new("java.util.NoSuchElementException", format!("Cannot access {what} element from an empty List"))
}

fn unsupported() -> Thrown {
    Thrown::new("java.lang.UnsupportedOperationException", "")
}

/// Calls `f` on each element with the element (and its index when `with_index`).
fn call_each(cx: &mut Ctx<'_>, f: &Value, items: &[Value], with_index: bool) -> Result<(), Thrown> {
    for (i, x) in items.iter().enumerate() {
        let mut args = vec![x.clone()];
        if with_index {
            args.push(Value::Int(i as i32));
        }
        cx.call_value(f, args)?;
    }
    Ok(())
}

/// Whether a value is a closure (a predicate, a transform) rather than a plain argument.
fn is_fn(v: &Value) -> bool {
    matches!(v, Value::Closure(_))
}

/// A list method.
pub(crate) fn call(cx: &mut Ctx<'_>, recv: &Value, l: &Arc<ListObj>, name: &str, args: &[Value]) -> Found {
    let items = || lock(&l.items).clone();
    let kind = l.kind;
    let fixed = kind == ListKind::Array;
    let bad = || bad_args(recv, name, args);
    let same_kind = |v: Vec<Value>| of_kind(if kind == ListKind::Array { ListKind::List } else { kind }, v);
    let v = match (name, args) {
        ("size", []) => Value::Int(lock(&l.items).len() as i32),
        ("length", []) if cx.lang == crate::Lang::JavaScript => Value::Int(lock(&l.items).len() as i32),
        ("isEmpty", []) => Value::Bool(lock(&l.items).is_empty()),
        ("get", [i]) => {
            let i = int_arg(i).ok_or_else(bad)?;
            let g = lock(&l.items);
            match usize::try_from(i).ok().and_then(|u| g.get(u)) {
                Some(v) => v.clone(),
                None => return Err(index_error("java.lang.IndexOutOfBoundsException", i, g.len())),
            }
        }
        ("getAt", [Value::Range(a, b)]) => {
            let all = items();
            let (lo, hi, rev) = range_bounds(*a, *b, all.len(), false)?;
            let mut part = all[lo..hi].to_vec();
            if rev {
                part.reverse();
            }
            same_kind(part)
        }
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
        ("getAt", [i]) if int_arg(i).is_some() => {
            let g = lock(&l.items);
            let i = groovy_index(int_arg(i).unwrap_or(0), g.len());
            usize::try_from(i).ok().and_then(|u| g.get(u)).cloned().unwrap_or(Value::Null)
        }
        ("getAt", [Value::Str(p)]) => super::get_property(cx, recv, p)?,
        ("set", [i, x]) => {
            let i = int_arg(i).ok_or_else(bad)?;
            let mut g = lock(&l.items);
            let len = g.len();
            match usize::try_from(i).ok().and_then(|u| g.get_mut(u)) {
                Some(slot) => std::mem::replace(slot, x.clone()),
                None => return Err(index_error("java.lang.IndexOutOfBoundsException", i, len)),
            }
        }
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
        ("add", [i, x]) if !fixed => {
            let i = int_arg(i).ok_or_else(bad)?;
            let mut g = lock(&l.items);
            if i < 0 || i as usize > g.len() {
                return Err(index_error("java.lang.IndexOutOfBoundsException", i, g.len()));
            }
            g.insert(i as usize, x.clone());
            Value::Null
        }
        ("addFirst" | "unshift" | "push" | "offerFirst", [x]) if !fixed && kind == ListKind::List => {
            lock(&l.items).insert(0, x.clone());
            Value::Null
        }
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
        // `remove(int)` takes an index from a list; any other argument is an element.
        ("remove" | "removeAt", [Value::Int(i)]) if !fixed && kind == ListKind::List => {
            let mut g = lock(&l.items);
            if *i < 0 || *i as usize >= g.len() {
                return Err(index_error("java.lang.IndexOutOfBoundsException", *i as i64, g.len()));
            }
            g.remove(*i as usize)
        }
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
        ("pop" | "removeLast", []) if !fixed => {
            let mut g = lock(&l.items);
            match g.pop() {
                Some(v) => v,
                None if name == "pop" && cx.lang == crate::Lang::JavaScript => Value::Null,
                None => return Err(empty_error("last()")),
            }
        }
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
        ("clear", []) if !fixed => {
            lock(&l.items).clear();
            Value::Null
        }
        (
            "add" | "addAll" | "remove" | "clear" | "leftShift" | "removeAt" | "removeIf" | "removeAll" | "retainAll",
            _,
        ) if fixed => return Err(unsupported()),
        ("contains" | "isCase", [x]) => Value::Bool(lock(&l.items).iter().any(|y| value::equals(y, x))),
        ("containsAll", [c]) => {
            let want = elements(c)?;
            let have = items();
            Value::Bool(want.iter().all(|x| have.iter().any(|y| value::equals(x, y))))
        }
        ("indexOf", [x]) => {
            Value::Int(lock(&l.items).iter().position(|y| value::equals(y, x)).map_or(-1, |p| p as i32))
        }
        ("lastIndexOf", [x]) => {
            Value::Int(lock(&l.items).iter().rposition(|y| value::equals(y, x)).map_or(-1, |p| p as i32))
        }
        ("subList", [a, b]) => {
            let all = items();
            let (a, b) = (int_arg(a).ok_or_else(bad)?, int_arg(b).ok_or_else(bad)?);
            if a < 0 || b as usize > all.len() || a > b {
                return Err(Thrown::new(
                    "java.lang.IndexOutOfBoundsException",
                    format!("fromIndex: {a}, toIndex: {b}, size: {}", all.len()),
                ));
            }
            Value::list(all[a as usize..b as usize].to_vec())
        }
        ("toArray", [] | [_]) => Value::array(items()),
        ("toList" | "asList" | "collect" | "toArrayList", []) => Value::list(items()),
        ("toSet" | "asUnique", []) => make_set(items()),
        ("toSorted", []) => Value::list(sort_values(cx, items(), None)?),
        ("toSorted", [f]) if is_fn(f) => Value::list(sort_values(cx, items(), Some(f))?),
        ("asImmutable" | "asUnmodifiable" | "asSynchronized" | "stream" | "parallelStream", []) => recv.clone(),
        ("equals", [x]) => Value::Bool(match x {
            Value::List(o) if (o.kind == ListKind::Set) == (kind == ListKind::Set) => value::equals(recv, x),
            _ => false,
        }),
        // Java's `List.sort(Comparator)` (a comparator object): in place, and nothing back.
        ("sort", [c @ Value::Object(_)]) => {
            let sorted = sort_values(cx, items(), Some(c))?;
            *lock(&l.items) = sorted;
            Value::Null
        }
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
        ("reverse", []) | ("reverse", [Value::Bool(false)]) => {
            let mut v = items();
            v.reverse();
            of_kind(kind, v)
        }
        ("reverse", [Value::Bool(true)]) => {
            lock(&l.items).reverse();
            recv.clone()
        }
        ("shuffle", []) if !fixed => {
            lock(&l.items).shuffle(&mut rand::rng());
            Value::Null
        }
        ("shuffled", []) => {
            let mut v = items();
            v.shuffle(&mut rand::rng());
            same_kind(v)
        }
        ("join", []) => Value::from(super::join_texts(&shown(cx, items())?, "", "null")?),
        ("join", [sep]) => {
            let sep = match sep {
                Value::Null => ",".to_string(),
                other => other.to_string(),
            };
            Value::from(super::join_texts(&shown(cx, items())?, &sep, "null")?)
        }
        ("first" | "head" | "getFirst" | "peek" | "element", []) => match lock(&l.items).first() {
            Some(v) => v.clone(),
            None if name == "peek" => Value::Null,
            None => return Err(empty_error("first()")),
        },
        ("last" | "getLast", []) => match lock(&l.items).last() {
            Some(v) => v.clone(),
            None => return Err(empty_error("last()")),
        },
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
        ("takeWhile" | "dropWhile", [f]) => {
            let v = items();
            let mut n = 0;
            while n < v.len() && cx.call_value(f, vec![v[n].clone()])?.truthy() {
                n += 1;
            }
            same_kind(if name == "takeWhile" { v[..n].to_vec() } else { v[n..].to_vec() })
        }
        ("flatten", []) => {
            let mut out = Vec::new();
            flatten_into(&items(), &mut out)?;
            same_kind(out)
        }
        ("plus", [x]) => plus(recv, x)?,
        ("plus", [i, c]) if int_arg(i).is_some() => {
            let mut v = items();
            let at = (int_arg(i).unwrap_or(0).max(0) as usize).min(v.len());
            v.splice(at..at, elements(c)?);
            same_kind(v)
        }
        ("minus", [x]) => {
            let remove = if is_collection(x) { elements(x)? } else { vec![x.clone()] };
            same_kind(items().into_iter().filter(|y| !remove.iter().any(|r| value::equals(r, y))).collect())
        }
        ("multiply", [n]) => {
            let n = int_arg(n).ok_or_else(bad)?.max(0) as usize;
            let v = items();
            super::checked_items((v.len() as u64).saturating_mul(n as u64))?;
            Value::list((0..n).flat_map(|_| v.iter().cloned()).collect())
        }
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
        ("disjoint", [c]) => {
            let other = elements(c)?;
            Value::Bool(!items().iter().any(|x| other.iter().any(|y| value::equals(x, y))))
        }
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
        ("count", [x]) => {
            let mut n = 0;
            for y in items() {
                let hit = if is_fn(x) { cx.call_value(x, vec![y])?.truthy() } else { value::equals(&y, x) };
                n += hit as i32;
            }
            Value::Int(n)
        }
        ("count", []) => Value::Long(lock(&l.items).len() as i64),
        ("each" | "forEach", [f]) => {
            call_each(cx, f, &items(), false)?;
            if name == "each" {
                recv.clone()
            } else {
                Value::Null
            }
        }
        ("eachWithIndex", [f]) => {
            call_each(cx, f, &items(), true)?;
            recv.clone()
        }
        ("reverseEach", [f]) => {
            let mut v = items();
            v.reverse();
            call_each(cx, f, &v, false)?;
            recv.clone()
        }
        // `stream().collect(Collectors.toList())` and friends: the eager stream is the list.
        ("collect", [x]) if !is_fn(x) => match crate::classes::collect(cx, items(), x) {
            Some(r) => r?,
            None => Value::list(items()),
        },
        ("collect" | "map" | "collectNested", [f]) => {
            let mut out = Vec::new();
            for x in items() {
                out.push(cx.call_value(f, vec![x])?);
            }
            Value::list(out)
        }
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
        ("collectMany" | "flatMap", [f]) => {
            let mut out = Vec::new();
            for x in items() {
                out.extend(elements(&cx.call_value(f, vec![x])?)?);
            }
            Value::list(out)
        }
        ("collectEntries", []) | ("collectEntries", [_]) => {
            let mut m = IndexMap::new();
            for x in items() {
                let pair = match args.first() {
                    Some(f) => cx.call_value(f, vec![x])?,
                    None => x,
                };
                super::map::put_pair(&mut m, &pair)?;
            }
            Value::map(m)
        }
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
        ("find" | "findAll" | "grep", []) => {
            let v: Vec<Value> = items().into_iter().filter(Value::truthy).collect();
            if name == "find" {
                v.into_iter().next().unwrap_or(Value::Null)
            } else {
                same_kind(v)
            }
        }
        ("findFirst", []) => lock(&l.items).first().cloned().unwrap_or(Value::Null),
        ("findAll" | "filter" | "grep", [f]) => {
            let mut out = Vec::new();
            for x in items() {
                let hit =
                    if is_fn(f) { cx.call_value(f, vec![x.clone()])?.truthy() } else { super::is_case(cx, f, &x)? };
                if hit {
                    out.push(x);
                }
            }
            same_kind(out)
        }
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
        ("any", []) => Value::Bool(items().iter().any(Value::truthy)),
        ("every", []) => Value::Bool(items().iter().all(Value::truthy)),
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
        ("inject", [init, f]) | ("reduce", [f, init]) | ("reduce", [init, f]) if is_fn(f) => {
            let mut acc = init.clone();
            for x in items() {
                acc = cx.call_value(f, vec![acc, x])?;
            }
            acc
        }
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
        ("max", []) => max_or_min(cx, items(), None, Ordering::Greater)?,
        ("min", []) => max_or_min(cx, items(), None, Ordering::Less)?,
        ("max", [f]) => max_or_min(cx, items(), Some(f), Ordering::Greater)?,
        ("min", [f]) => max_or_min(cx, items(), Some(f), Ordering::Less)?,
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
        ("countBy", [f]) => {
            let mut m: IndexMap<Key, Value> = IndexMap::new();
            for x in items() {
                let k = cx.call_value(f, vec![x])?;
                let slot = m.entry(Key(k)).or_insert(Value::Int(0));
                *slot = Value::Int(slot.as_i64().unwrap_or(0) as i32 + 1);
            }
            Value::map(m)
        }
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
        ("transpose", []) => {
            let rows = items().iter().map(elements).collect::<Result<Vec<_>, _>>()?;
            let n = rows.iter().map(Vec::len).min().unwrap_or(0);
            Value::list((0..n).map(|i| Value::list(rows.iter().map(|r| r[i].clone()).collect())).collect())
        }
        ("collate", [n]) => {
            let n = int_arg(n).ok_or_else(bad)?.max(1) as usize;
            Value::list(items().chunks(n).map(|c| Value::list(c.to_vec())).collect())
        }
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
        ("distinct", []) => make_list(make_set(items())),
        ("sorted", []) => Value::list(sort_values(cx, items(), None)?),
        ("sorted", [f]) => Value::list(sort_values(cx, items(), Some(f))?),
        ("limit", [n]) => Value::list(items().into_iter().take(int_arg(n).ok_or_else(bad)?.max(0) as usize).collect()),
        ("skip", [n]) => Value::list(items().into_iter().skip(int_arg(n).ok_or_else(bad)?.max(0) as usize).collect()),
        ("mapToInt" | "mapToLong" | "mapToDouble" | "mapToObj", [f]) => {
            call(cx, recv, l, "collect", std::slice::from_ref(f))?.ok_or_else(bad)?
        }
        ("iterator" | "listIterator", []) => Value::Object(Arc::new(IterObj::new(items()))),
        // json-smart's JSONArray prints itself as JSON; Groovy's `"$list"` does not call it.
        ("toString", []) if l.json => Value::from(crate::classes::json_smart_text(recv)),
        ("toString", []) => Value::from(crate::interp::text_of(cx, recv)?),
        ("hashCode", []) => Value::Int(super::hash_code(recv)),
        ("clone", []) => of_kind(kind, items()),
        _ => return Ok(None),
    };
    Ok(Some(v))
}

fn make_list(v: Value) -> Value {
    match v {
        Value::List(l) => Value::list(lock(&l.items).clone()),
        other => other,
    }
}

/// A range method: the common ones without listing the range, the rest on its list.
pub(crate) fn call_range(cx: &mut Ctx<'_>, a: i64, b: i64, name: &str, args: &[Value]) -> Found {
    let recv = Value::Range(a, b);
    let (lo, hi) = (a.min(b), a.max(b));
    let v = match (name, args) {
        ("size", []) => Value::Int((hi - lo + 1) as i32),
        ("getFrom", []) => int_or_long(lo),
        ("getTo", []) => int_or_long(hi),
        ("isReverse", []) => Value::Bool(a > b),
        ("isEmpty", []) => Value::Bool(false),
        ("contains" | "isCase" | "containsWithinBounds", [x]) => Value::Bool(super::is_case(cx, &recv, x)?),
        ("reverse", []) => Value::Range(b, a),
        ("each", [f]) => {
            let step = if a <= b { 1 } else { -1 };
            let mut i = a;
            loop {
                cx.call_value(f, vec![int_or_long(i)])?;
                if i == b {
                    break;
                }
                i += step;
            }
            recv
        }
        ("step", [n]) | ("step", [n, _]) => {
            let n = int_arg(n).ok_or_else(|| bad_args(&recv, name, args))?;
            if n == 0 {
                return Err(Thrown::new("java.lang.IllegalArgumentException", "step must not be zero"));
            }
            let all = range_items(a, b)?;
            let picked: Vec<Value> = if n > 0 {
                all.into_iter().step_by(n as usize).collect()
            } else {
                all.into_iter().rev().step_by(n.unsigned_abs() as usize).collect()
            };
            match args.get(1) {
                Some(f) => {
                    call_each(cx, f, &picked, false)?;
                    recv
                }
                None => Value::list(picked),
            }
        }
        ("toString" | "inspect", []) => Value::from(crate::interp::text_of(cx, &recv)?),
        ("equals", [x]) => Value::Bool(value::equals(&recv, x)),
        ("hashCode" | "getClass", []) => return Ok(None),
        _ => return on_elements(cx, &recv, Value::list(range_items(a, b)?), name, args),
    };
    Ok(Some(v))
}

/// A list method called on the elements of `recv` (a range, bytes) as a list; a method
/// that answers its receiver (`each`) answers `recv`.
fn on_elements(cx: &mut Ctx<'_>, recv: &Value, list: Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = &list else { return Ok(None) };
    let r = call(cx, &list, l, name, args)?;
    Ok(r.map(|v| match &v {
        Value::List(x) if Arc::ptr_eq(x, l) => recv.clone(),
        _ => v,
    }))
}

/// A `byte[]` method.
pub(crate) fn call_bytes(cx: &mut Ctx<'_>, b: &Arc<Vec<u8>>, name: &str, args: &[Value]) -> Found {
    let recv = Value::Bytes(b.clone());
    let v = match (name, args) {
        ("size", []) => Value::Int(b.len() as i32),
        ("getAt", [i]) if int_arg(i).is_some() => {
            let i = groovy_index(int_arg(i).unwrap_or(0), b.len());
            match usize::try_from(i).ok().and_then(|u| b.get(u)) {
                Some(x) => Value::Int(*x as i8 as i32),
                None => return Err(index_error("java.lang.ArrayIndexOutOfBoundsException", i, b.len())),
            }
        }
        ("encodeBase64", []) => Value::from(number::base64_encode(b, false)),
        ("encodeBase64Url", []) => Value::from(number::base64_encode(b, true)),
        ("encodeHex", []) => Value::from(b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
        ("clone", []) => Value::Bytes(Arc::new(b.to_vec())),
        ("equals", [x]) => Value::Bool(value::equals(&recv, x)),
        ("toString" | "hashCode" | "getClass" | "is" | "inspect", _) => return Ok(None),
        _ => return on_elements(cx, &recv, Value::array(elements(&recv)?), name, args),
    };
    Ok(Some(v))
}

/// `list.iterator()`: Java's `Iterator` over a snapshot of the elements.
#[derive(Debug)]
pub(crate) struct IterObj {
    state: Mutex<(Vec<Value>, usize)>,
}

impl IterObj {
    pub(crate) fn new(items: Vec<Value>) -> IterObj {
        IterObj { state: Mutex::new((items, 0)) }
    }
}

impl Native for IterObj {
    fn class_name(&self) -> &'static str {
        "java.util.Iterator"
    }

    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut s = lock(&self.state);
        match (method, args.as_slice()) {
            ("hasNext", []) => Ok(Value::Bool(s.1 < s.0.len())),
            ("next", []) => {
                let i = s.1;
                match s.0.get(i).cloned() {
                    Some(v) => {
                        s.1 += 1;
                        Ok(v)
                    }
                    None => Err(Thrown::new("java.util.NoSuchElementException", "")),
                }
            }
            ("remove", []) => Err(unsupported()),
            _ => Err(Thrown::no_method("Iterator", method)),
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn list_of(v: &Value) -> Vec<String> {
        match v {
            Value::List(l) => lock(&l.items).iter().map(|x| x.to_string()).collect(),
            _ => panic!("not a list: {v:?}"),
        }
    }

    #[test]
    fn java_list_methods() {
        let l = ints(&[1, 2, 3]);
        assert_eq!(s(&l, "size", vec![]), "3");
        assert_eq!(s(&l, "get", vec![Value::Int(1)]), "2");
        assert_eq!(invoke(&l, "get", vec![Value::Int(5)]).unwrap_err().message, "Index 5 out of bounds for length 3");
        assert_eq!(s(&l, "add", vec![Value::Int(4)]), "true");
        assert_eq!(l.to_string(), "[1, 2, 3, 4]");
        s(&l, "add", vec![Value::Int(0), Value::Int(0)]);
        assert_eq!(l.to_string(), "[0, 1, 2, 3, 4]");
        assert_eq!(s(&l, "remove", vec![Value::Int(0)]), "0");
        assert_eq!(s(&l, "remove", vec![Value::Long(4)]), "true");
        assert_eq!(l.to_string(), "[1, 2, 3]");
        assert_eq!(s(&l, "set", vec![Value::Int(0), Value::Int(9)]), "1");
        assert_eq!(s(&l, "indexOf", vec![Value::Int(3)]), "2");
        assert_eq!(s(&l, "contains", vec![Value::Long(3)]), "true");
        assert_eq!(s(&l, "subList", vec![Value::Int(1), Value::Int(3)]), "[2, 3]");
        assert_eq!(s(&l, "addAll", vec![ints(&[7, 8])]), "true");
        assert_eq!(s(&l, "containsAll", vec![ints(&[7, 9])]), "true");
        s(&l, "clear", vec![]);
        assert_eq!(s(&l, "isEmpty", vec![]), "true");
    }

    #[test]
    fn sets_ignore_duplicates_and_arrays_do_not_grow() {
        let set = make_set(vec![Value::Int(1), Value::Int(1), Value::Int(2)]);
        assert_eq!(set.to_string(), "[1, 2]");
        assert_eq!(s(&set, "add", vec![Value::Int(2)]), "false");
        assert_eq!(s(&set, "add", vec![Value::Int(3)]), "true");
        let arr = Value::array(vec![Value::Int(1)]);
        assert_eq!(
            invoke(&arr, "add", vec![Value::Int(2)]).unwrap_err().class,
            "java.lang.UnsupportedOperationException"
        );
        assert_eq!(s(&arr, "size", vec![]), "1");
    }

    #[test]
    fn groovy_index_and_range_access() {
        let l = strs(&["a", "b", "c", "d"]);
        assert_eq!(s(&l, "getAt", vec![Value::Int(-1)]), "d");
        assert_eq!(s(&l, "getAt", vec![Value::Int(9)]), "null");
        assert_eq!(s(&l, "getAt", vec![Value::Range(1, 2)]), "[b, c]");
        assert_eq!(s(&l, "getAt", vec![Value::Range(-2, -1)]), "[c, d]");
        assert_eq!(s(&l, "getAt", vec![Value::Range(2, 0)]), "[c, b, a]");
        s(&l, "putAt", vec![Value::Int(5), "f".into()]);
        assert_eq!(l.to_string(), "[a, b, c, d, null, f]");
    }

    #[test]
    fn groovy_list_additions() {
        let l = ints(&[3, 1, 2, 3]);
        assert_eq!(s(&l, "join", vec![",".into()]), "3,1,2,3");
        assert_eq!(s(&l, "sum", vec![]), "9");
        assert_eq!(s(&strs(&["a", "b"]), "sum", vec![]), "ab");
        assert_eq!(s(&ints(&[]), "sum", vec![]), "null");
        assert_eq!(s(&l, "max", vec![]), "3");
        assert_eq!(s(&l, "min", vec![]), "1");
        assert_eq!(s(&l, "first", vec![]), "3");
        assert_eq!(s(&l, "last", vec![]), "3");
        assert_eq!(invoke(&ints(&[]), "first", vec![]).unwrap_err().class, "java.util.NoSuchElementException");
        assert_eq!(s(&l, "tail", vec![]), "[1, 2, 3]");
        assert_eq!(s(&l, "take", vec![Value::Int(2)]), "[3, 1]");
        assert_eq!(s(&l, "drop", vec![Value::Int(3)]), "[3]");
        assert_eq!(s(&l, "reverse", vec![]), "[3, 2, 1, 3]");
        assert_eq!(l.to_string(), "[3, 1, 2, 3]");
        assert_eq!(s(&l, "plus", vec![ints(&[4])]), "[3, 1, 2, 3, 4]");
        assert_eq!(s(&l, "plus", vec![Value::Int(4)]), "[3, 1, 2, 3, 4]");
        assert_eq!(s(&l, "minus", vec![Value::Int(3)]), "[1, 2]");
        assert_eq!(s(&l, "intersect", vec![ints(&[3, 2, 9])]), "[3, 2]");
        assert_eq!(s(&l, "disjoint", vec![ints(&[9])]), "true");
        assert_eq!(s(&l, "count", vec![Value::Int(3)]), "2");
        assert_eq!(s(&l, "toSet", vec![]), "[3, 1, 2]");
        assert_eq!(s(&Value::list(vec![ints(&[1, 2]), ints(&[3])]), "flatten", vec![]), "[1, 2, 3]");
        assert_eq!(s(&l, "withIndex", vec![]), "[[3, 0], [1, 1], [2, 2], [3, 3]]");
        assert_eq!(s(&l, "sort", vec![Value::Bool(false)]), "[1, 2, 3, 3]");
        assert_eq!(l.to_string(), "[3, 1, 2, 3]");
        assert_eq!(s(&l, "sort", vec![]), "[1, 2, 3, 3]");
        assert_eq!(l.to_string(), "[1, 2, 3, 3]");
        assert_eq!(s(&l, "unique", vec![]), "[1, 2, 3]");
        assert_eq!(l.to_string(), "[1, 2, 3]");
        assert_eq!(s(&l, "leftShift", vec![Value::Int(4)]), "[1, 2, 3, 4]");
        assert_eq!(s(&strs(&["b", "a", "C"]), "sort", vec![]), "[C, a, b]");
        assert_eq!(s(&Value::list(vec![Value::Int(2), Value::Double(1.5), Value::Long(3)]), "max", vec![]), "3");
    }

    #[test]
    fn iterators_walk_a_snapshot() {
        let it = invoke(&ints(&[1, 2]), "iterator", vec![]).unwrap();
        let Value::Object(o) = &it else { panic!() };
        let mut host = crate::NoHost::default();
        let mut cx = Ctx { host: &mut host, lang: crate::Lang::Java, state: Default::default() };
        let mut seen = Vec::new();
        while o.call(&mut cx, "hasNext", vec![]).unwrap().truthy() {
            seen.push(o.call(&mut cx, "next", vec![]).unwrap().to_string());
        }
        assert_eq!(seen, ["1", "2"]);
        assert!(o.call(&mut cx, "next", vec![]).is_err());
    }

    #[test]
    fn ranges_and_bytes() {
        assert_eq!(s(&Value::Range(1, 5), "size", vec![]), "5");
        assert_eq!(s(&Value::Range(1, 5), "contains", vec![Value::Int(3)]), "true");
        assert_eq!(s(&Value::Range(1, 5), "sum", vec![]), "15");
        assert_eq!(s(&Value::Range(1, 5), "toList", vec![]), "[1, 2, 3, 4, 5]");
        assert_eq!(s(&Value::Range(5, 1), "toList", vec![]), "[5, 4, 3, 2, 1]");
        assert_eq!(s(&Value::Range(1, 10), "step", vec![Value::Int(3)]), "[1, 4, 7, 10]");
        assert_eq!(s(&Value::Range(1, 3), "reverse", vec![]), "3..1");
        let b = Value::Bytes(Arc::new(b"hi\xff".to_vec()));
        assert_eq!(s(&b, "size", vec![]), "3");
        assert_eq!(s(&b, "getAt", vec![Value::Int(2)]), "-1");
        assert_eq!(s(&b, "encodeBase64", vec![]), "aGn/");
        assert_eq!(s(&b, "encodeHex", vec![]), "6869ff");
        assert_eq!(s(&b, "toList", vec![]), "[104, 105, -1]");
        assert_eq!(list_of(&invoke(&b, "toList", vec![]).unwrap()).len(), 3);
    }
}
