//! Lists, arrays and sets (one `Value::List`, its `ListKind` deciding what changes size and
//! what ignores duplicates), ranges and `byte[]`: Java's `List`/`Collection` methods and
//! Groovy's (`each`, `collect`, `findAll`, `inject`, `groupBy`, ...); a few of JavaScript's
//! array methods (`push`, `map`, `filter`, `forEach`) and eager versions of Java streams.

use super::number::{self, int_or_long, Op};
use super::string::{groovy_index, range_bounds};
use super::{arity, bad_args, index_error, int_arg, Found, Method, ANY};
use crate::value::{self, lock, Key, ListKind, ListObj, Native, Value};
use crate::{budget, Ctx, Thrown};
use indexmap::IndexMap;
use rand::seq::SliceRandom;
use std::cmp::Ordering;
use std::sync::{Arc, Mutex};

mod access;
mod aggregate;
mod iterate;
mod order;
mod query;

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

/// A list method (`l` is `recv`'s list): its rows in [`LIST`].
pub(crate) fn call(cx: &mut Ctx<'_>, recv: &Value, _l: &Arc<ListObj>, name: &str, args: &[Value]) -> Found {
    super::dispatch(list_rows(name), cx, recv, name, args)
}

/// The methods of lists, arrays and sets (`Value::List`), sorted by name.
pub(crate) static LIST: &[Method] = &[
    Method::new("add", 1, 1, access::add),
    Method::new("add", 2, 2, access::add_2),
    Method::new("add", 0, ANY, access::add_3),
    Method::new("addAll", 1, 1, access::add_all),
    Method::new("addAll", 2, 2, access::add_all_2),
    Method::new("addAll", 0, ANY, access::add_3),
    Method::new("addFirst", 1, 1, access::add_first),
    Method::new("addLast", 1, 1, access::add),
    Method::new("allMatch", 1, 1, iterate::every),
    Method::new("any", 1, 1, iterate::any),
    Method::new("any", 0, 0, iterate::any_2),
    Method::new("anyMatch", 1, 1, iterate::any),
    Method::new("asImmutable", 0, 0, query::as_immutable),
    Method::new("asList", 0, 0, query::to_list),
    Method::new("asSynchronized", 0, 0, query::as_immutable),
    Method::new("asUnique", 0, 0, query::to_set),
    Method::new("asUnmodifiable", 0, 0, query::as_immutable),
    Method::new("average", 0, 0, aggregate::average),
    Method::new("clear", 0, 0, access::clear),
    Method::new("clear", 0, ANY, access::add_3),
    Method::new("clone", 0, 0, aggregate::clone),
    Method::new("collate", 1, 1, aggregate::collate),
    Method::new("collect", 0, 0, query::to_list),
    Method::new("collect", 1, 1, iterate::collect),
    Method::new("collect", 1, 1, iterate::collect_2),
    Method::new("collect", 2, 2, iterate::collect_3),
    Method::new("collectEntries", 0, 1, iterate::collect_entries),
    Method::new("collectMany", 1, 1, iterate::collect_many),
    Method::new("collectNested", 1, 1, iterate::collect_2),
    Method::new("contains", 1, 1, query::contains),
    Method::new("containsAll", 1, 1, query::contains_all),
    Method::new("count", 1, 1, order::count),
    Method::new("count", 0, 0, order::count_2),
    Method::new("countBy", 1, 1, aggregate::count_by),
    Method::new("disjoint", 1, 1, order::disjoint),
    Method::new("distinct", 0, 0, aggregate::distinct),
    Method::new("drop", 1, 1, order::take),
    Method::new("dropRight", 1, 1, order::take),
    Method::new("dropWhile", 1, 1, order::take_while),
    Method::new("each", 1, 1, iterate::each),
    Method::new("eachWithIndex", 1, 1, iterate::each_with_index),
    Method::new("element", 0, 0, order::first),
    Method::new("equals", 1, 1, query::equals),
    Method::new("every", 1, 1, iterate::every),
    Method::new("every", 0, 0, iterate::every_2),
    Method::new("filter", 1, 1, iterate::find_all),
    Method::new("find", 1, 1, iterate::find),
    Method::new("find", 0, 0, iterate::find_2),
    Method::new("findAll", 0, 0, iterate::find_2),
    Method::new("findAll", 1, 1, iterate::find_all),
    Method::new("findFirst", 1, 1, iterate::find),
    Method::new("findFirst", 0, 0, iterate::find_first),
    Method::new("findIndexOf", 1, 1, iterate::find_index_of),
    Method::new("findIndexValues", 1, 1, iterate::find_index_of),
    Method::new("findLastIndexOf", 1, 1, iterate::find_index_of),
    Method::new("findResult", 1, 2, iterate::find_result),
    Method::new("findResults", 1, 1, iterate::find_results),
    Method::new("first", 0, 0, order::first),
    Method::new("flatMap", 1, 1, iterate::collect_many),
    Method::new("flatten", 0, 0, order::flatten),
    Method::new("forEach", 1, 1, iterate::each),
    Method::new("get", 1, 1, access::get),
    Method::new("getAt", 1, 1, access::get_at),
    Method::new("getAt", 1, 1, access::get_at_2),
    Method::new("getAt", 1, 1, access::get_at_3),
    Method::new("getAt", 1, 1, access::get_at_4),
    Method::new("getFirst", 0, 0, order::first),
    Method::new("getLast", 0, 0, order::last),
    Method::new("grep", 0, 0, iterate::find_2),
    Method::new("grep", 1, 1, iterate::find_all),
    Method::new("groupBy", 1, 1, aggregate::group_by),
    Method::new("hashCode", 0, 0, aggregate::hash_code),
    Method::new("head", 0, 0, order::first),
    Method::new("indexOf", 1, 1, query::index_of),
    Method::new("indexed", 0, 0, aggregate::with_index),
    Method::new("init", 0, 0, order::init),
    Method::new("inject", 1, 1, aggregate::inject),
    Method::new("inject", 2, 2, aggregate::inject_2),
    Method::new("intersect", 1, 1, order::intersect),
    Method::new("isCase", 1, 1, query::contains),
    Method::new("isEmpty", 0, 0, access::is_empty),
    Method::new("iterator", 0, 0, aggregate::iterator),
    Method::new("join", 0, 0, order::join),
    Method::new("join", 1, 1, order::join_2),
    Method::new("last", 0, 0, order::last),
    Method::new("lastIndexOf", 1, 1, query::last_index_of),
    Method::new("leftShift", 1, 1, access::add),
    Method::new("leftShift", 0, ANY, access::add_3),
    Method::new("length", 0, 0, access::length),
    Method::new("limit", 1, 1, aggregate::limit),
    Method::new("listIterator", 0, 0, aggregate::iterator),
    Method::new("map", 1, 1, iterate::collect_2),
    Method::new("mapToDouble", 1, 1, aggregate::map_to_int),
    Method::new("mapToInt", 1, 1, aggregate::map_to_int),
    Method::new("mapToLong", 1, 1, aggregate::map_to_int),
    Method::new("mapToObj", 1, 1, aggregate::map_to_int),
    Method::new("max", 0, 0, aggregate::max),
    Method::new("max", 1, 1, aggregate::max_2),
    Method::new("min", 0, 0, aggregate::min),
    Method::new("min", 1, 1, aggregate::min_2),
    Method::new("minus", 1, 1, order::minus),
    Method::new("multiply", 1, 1, order::multiply),
    Method::new("noneMatch", 1, 1, iterate::every),
    Method::new("offer", 1, 1, access::add),
    Method::new("offerFirst", 1, 1, access::add_first),
    Method::new("parallelStream", 0, 0, query::as_immutable),
    Method::new("peek", 0, 0, order::first),
    Method::new("plus", 1, 1, order::plus_method),
    Method::new("plus", 2, 2, order::plus_method_2),
    Method::new("poll", 0, 0, access::remove_first),
    Method::new("pop", 0, 0, access::pop),
    Method::new("push", 1, 1, access::add),
    Method::new("push", 1, 1, access::add_first),
    Method::new("putAt", 2, 2, access::put_at),
    Method::new("reduce", 1, 1, aggregate::inject),
    Method::new("reduce", 2, 2, aggregate::inject_2),
    Method::new("remove", 1, 1, access::remove),
    Method::new("remove", 1, 1, access::remove_2),
    Method::new("remove", 0, 0, access::remove_first),
    Method::new("remove", 0, ANY, access::add_3),
    Method::new("removeAll", 0, ANY, access::add_3),
    Method::new("removeAll", 1, 1, order::remove_all),
    Method::new("removeAt", 1, 1, access::remove),
    Method::new("removeAt", 0, ANY, access::add_3),
    Method::new("removeElement", 1, 1, access::remove_2),
    Method::new("removeFirst", 0, 0, access::remove_first),
    Method::new("removeIf", 0, ANY, access::add_3),
    Method::new("removeIf", 1, 1, order::remove_all),
    Method::new("removeLast", 0, 0, access::pop),
    Method::new("retainAll", 0, ANY, access::add_3),
    Method::new("retainAll", 1, 1, order::remove_all),
    Method::new("reverse", 0, 1, order::reverse),
    Method::new("reverse", 1, 1, order::reverse_2),
    Method::new("reverseEach", 1, 1, iterate::reverse_each),
    Method::new("set", 2, 2, access::set),
    Method::new("shift", 0, 0, access::remove_first),
    Method::new("shuffle", 0, 0, order::shuffle),
    Method::new("shuffled", 0, 0, order::shuffled),
    Method::new("size", 0, 0, access::size),
    Method::new("skip", 1, 1, aggregate::skip),
    Method::new("some", 1, 1, iterate::any),
    Method::new("sort", 1, 1, order::sort),
    Method::new("sort", 0, 2, order::sort_2),
    Method::new("sorted", 0, 0, aggregate::sorted),
    Method::new("sorted", 1, 1, aggregate::sorted_2),
    Method::new("split", 1, 1, aggregate::split),
    Method::new("stream", 0, 0, query::as_immutable),
    Method::new("subList", 2, 2, query::sub_list),
    Method::new("sum", 0, 1, aggregate::sum),
    Method::new("sum", 1, 2, aggregate::sum_2),
    Method::new("tail", 0, 0, order::tail),
    Method::new("take", 1, 1, order::take),
    Method::new("takeRight", 1, 1, order::take),
    Method::new("takeWhile", 1, 1, order::take_while),
    Method::new("toArray", 0, 1, query::to_array),
    Method::new("toArrayList", 0, 0, query::to_list),
    Method::new("toList", 0, 0, query::to_list),
    Method::new("toSet", 0, 0, query::to_set),
    Method::new("toSorted", 0, 0, query::to_sorted),
    Method::new("toSorted", 1, 1, query::to_sorted_2),
    Method::new("toString", 0, 0, aggregate::to_string),
    Method::new("toString", 0, 0, aggregate::to_string_2),
    Method::new("transpose", 0, 0, aggregate::transpose),
    Method::new("unique", 0, 2, order::unique),
    Method::new("unshift", 1, 1, access::add_first),
    Method::new("withIndex", 0, 0, aggregate::with_index),
];

/// The rows of `name` in [`LIST`]: a `match` on the name, which compiles to a few length and
/// byte comparisons (about 5 ns where a binary search over the rows took 75); a test checks
/// it gives each name's rows.
pub(crate) fn list_rows(name: &str) -> &'static [Method] {
    match name {
        "add" => &LIST[0..3],
        "addAll" => &LIST[3..6],
        "addFirst" => &LIST[6..7],
        "addLast" => &LIST[7..8],
        "allMatch" => &LIST[8..9],
        "any" => &LIST[9..11],
        "anyMatch" => &LIST[11..12],
        "asImmutable" => &LIST[12..13],
        "asList" => &LIST[13..14],
        "asSynchronized" => &LIST[14..15],
        "asUnique" => &LIST[15..16],
        "asUnmodifiable" => &LIST[16..17],
        "average" => &LIST[17..18],
        "clear" => &LIST[18..20],
        "clone" => &LIST[20..21],
        "collate" => &LIST[21..22],
        "collect" => &LIST[22..26],
        "collectEntries" => &LIST[26..27],
        "collectMany" => &LIST[27..28],
        "collectNested" => &LIST[28..29],
        "contains" => &LIST[29..30],
        "containsAll" => &LIST[30..31],
        "count" => &LIST[31..33],
        "countBy" => &LIST[33..34],
        "disjoint" => &LIST[34..35],
        "distinct" => &LIST[35..36],
        "drop" => &LIST[36..37],
        "dropRight" => &LIST[37..38],
        "dropWhile" => &LIST[38..39],
        "each" => &LIST[39..40],
        "eachWithIndex" => &LIST[40..41],
        "element" => &LIST[41..42],
        "equals" => &LIST[42..43],
        "every" => &LIST[43..45],
        "filter" => &LIST[45..46],
        "find" => &LIST[46..48],
        "findAll" => &LIST[48..50],
        "findFirst" => &LIST[50..52],
        "findIndexOf" => &LIST[52..53],
        "findIndexValues" => &LIST[53..54],
        "findLastIndexOf" => &LIST[54..55],
        "findResult" => &LIST[55..56],
        "findResults" => &LIST[56..57],
        "first" => &LIST[57..58],
        "flatMap" => &LIST[58..59],
        "flatten" => &LIST[59..60],
        "forEach" => &LIST[60..61],
        "get" => &LIST[61..62],
        "getAt" => &LIST[62..66],
        "getFirst" => &LIST[66..67],
        "getLast" => &LIST[67..68],
        "grep" => &LIST[68..70],
        "groupBy" => &LIST[70..71],
        "hashCode" => &LIST[71..72],
        "head" => &LIST[72..73],
        "indexOf" => &LIST[73..74],
        "indexed" => &LIST[74..75],
        "init" => &LIST[75..76],
        "inject" => &LIST[76..78],
        "intersect" => &LIST[78..79],
        "isCase" => &LIST[79..80],
        "isEmpty" => &LIST[80..81],
        "iterator" => &LIST[81..82],
        "join" => &LIST[82..84],
        "last" => &LIST[84..85],
        "lastIndexOf" => &LIST[85..86],
        "leftShift" => &LIST[86..88],
        "length" => &LIST[88..89],
        "limit" => &LIST[89..90],
        "listIterator" => &LIST[90..91],
        "map" => &LIST[91..92],
        "mapToDouble" => &LIST[92..93],
        "mapToInt" => &LIST[93..94],
        "mapToLong" => &LIST[94..95],
        "mapToObj" => &LIST[95..96],
        "max" => &LIST[96..98],
        "min" => &LIST[98..100],
        "minus" => &LIST[100..101],
        "multiply" => &LIST[101..102],
        "noneMatch" => &LIST[102..103],
        "offer" => &LIST[103..104],
        "offerFirst" => &LIST[104..105],
        "parallelStream" => &LIST[105..106],
        "peek" => &LIST[106..107],
        "plus" => &LIST[107..109],
        "poll" => &LIST[109..110],
        "pop" => &LIST[110..111],
        "push" => &LIST[111..113],
        "putAt" => &LIST[113..114],
        "reduce" => &LIST[114..116],
        "remove" => &LIST[116..120],
        "removeAll" => &LIST[120..122],
        "removeAt" => &LIST[122..124],
        "removeElement" => &LIST[124..125],
        "removeFirst" => &LIST[125..126],
        "removeIf" => &LIST[126..128],
        "removeLast" => &LIST[128..129],
        "retainAll" => &LIST[129..131],
        "reverse" => &LIST[131..133],
        "reverseEach" => &LIST[133..134],
        "set" => &LIST[134..135],
        "shift" => &LIST[135..136],
        "shuffle" => &LIST[136..137],
        "shuffled" => &LIST[137..138],
        "size" => &LIST[138..139],
        "skip" => &LIST[139..140],
        "some" => &LIST[140..141],
        "sort" => &LIST[141..143],
        "sorted" => &LIST[143..145],
        "split" => &LIST[145..146],
        "stream" => &LIST[146..147],
        "subList" => &LIST[147..148],
        "sum" => &LIST[148..150],
        "tail" => &LIST[150..151],
        "take" => &LIST[151..152],
        "takeRight" => &LIST[152..153],
        "takeWhile" => &LIST[153..154],
        "toArray" => &LIST[154..155],
        "toArrayList" => &LIST[155..156],
        "toList" => &LIST[156..157],
        "toSet" => &LIST[157..158],
        "toSorted" => &LIST[158..160],
        "toString" => &LIST[160..162],
        "transpose" => &LIST[162..163],
        "unique" => &LIST[163..164],
        "unshift" => &LIST[164..165],
        "withIndex" => &LIST[165..166],
        _ => &[],
    }
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
