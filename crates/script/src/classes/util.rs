//! java.util: `Random` (Java's exact generator), `ThreadLocalRandom`, `UUID`, the collection
//! classes (which are built-in lists and maps), `Collections`, `Arrays`, `List/Set/Map.of`,
//! `Objects`, `StringJoiner`, `Locale`, atomics and `TimeUnit`.

use super::{
    arg, bytes_of, downcast, fd, illegal_arg, int_arg, int_value, items_of, native_base, no_method, no_property, obj,
    st, str_arg, Class, VAR,
};
use crate::value::{compare, equals, lock, Key, ListKind, ListObj, MapObj, Native, Value};
use crate::{Ctx, Thrown};
use indexmap::IndexMap;
use std::sync::{Arc, Mutex, Weak};

mod random;
use random::*;

const PLAIN: &[Class] = &[
    Class { name: "java.util.ArrayList", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.LinkedList", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.Vector", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.ArrayDeque", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.Stack", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.HashMap", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.LinkedHashMap", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.Hashtable", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.TreeMap", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.concurrent.ConcurrentHashMap", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.concurrent.CopyOnWriteArrayList", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.concurrent.ConcurrentLinkedQueue", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.HashSet", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.LinkedHashSet", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.TreeSet", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.Collection", new: None, statics: &[], fields: &[] },
    Class { name: "java.util.Iterator", new: None, statics: &[], fields: &[] },
    Class { name: "java.util.SortedMap", new: None, statics: &[], fields: &[] },
    Class { name: "java.util.Queue", new: None, statics: &[], fields: &[] },
    Class { name: "java.util.Deque", new: None, statics: &[], fields: &[] },
    Class { name: "java.util.Map.Entry", new: None, statics: &[], fields: &[] },
    Class { name: "java.util.Random", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.StringJoiner", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.concurrent.atomic.AtomicInteger", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.concurrent.atomic.AtomicLong", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.concurrent.atomic.AtomicBoolean", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.concurrent.atomic.AtomicReference", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "groovy.lang.Closure", new: None, statics: &[], fields: &[] },
    Class { name: "groovy.lang.GString", new: None, statics: &[], fields: &[] },
    Class { name: "groovy.lang.IntRange", new: None, statics: &[], fields: &[] },
    Class { name: "groovy.lang.Range", new: None, statics: &[], fields: &[] },
];

pub(super) const CLASSES: &[Class] = &[
    Class {
        name: "java.util.stream.Collectors",
        new: None,
        statics: &[
            st("toList", 0, 0, call_static),
            st("toUnmodifiableList", 0, 0, call_static),
            st("toSet", 0, 0, call_static),
            st("toUnmodifiableSet", 0, 0, call_static),
            st("joining", 0, 3, call_static),
            st("toMap", 2, 3, call_static),
            st("counting", 0, 0, call_static),
            st("groupingBy", 1, 1, call_static),
        ],
        fields: &[],
    },
    Class {
        name: "java.util.List",
        new: None,
        statics: &[st("of", 0, VAR, call_static), st("copyOf", 0, VAR, call_static)],
        fields: &[],
    },
    Class {
        name: "java.util.Set",
        new: None,
        statics: &[st("of", 0, VAR, call_static), st("copyOf", 0, VAR, call_static)],
        fields: &[],
    },
    Class {
        name: "java.util.Map",
        new: None,
        statics: &[
            st("of", 0, VAR, call_static),
            st("entry", 2, 2, call_static),
            st("copyOf", 0, VAR, call_static),
            st("ofEntries", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class {
        name: "java.util.concurrent.ThreadLocalRandom",
        new: None,
        statics: &[st("current", 0, VAR, call_static)],
        fields: &[],
    },
    Class {
        name: "java.util.UUID",
        new: None,
        statics: &[
            st("randomUUID", 0, 0, call_static),
            st("fromString", 1, 1, call_static),
            st("nameUUIDFromBytes", 1, 1, call_static),
        ],
        fields: &[],
    },
    Class {
        name: "java.util.Collections",
        new: None,
        statics: &[
            st("shuffle", 1, 2, call_static),
            st("sort", 1, 2, call_static),
            st("reverse", 1, 1, call_static),
            st("max", 1, 2, call_static),
            st("min", 1, 2, call_static),
            st("frequency", 2, 2, call_static),
            st("emptyList", 0, 0, call_static),
            st("emptyMap", 0, 0, call_static),
            st("emptySet", 0, 0, call_static),
            st("unmodifiableList", 1, 1, call_static),
            st("unmodifiableMap", 1, 1, call_static),
            st("unmodifiableSet", 1, 1, call_static),
            st("unmodifiableCollection", 1, 1, call_static),
            st("synchronizedList", 1, 1, call_static),
            st("synchronizedMap", 1, 1, call_static),
            st("synchronizedSet", 1, 1, call_static),
            st("singletonList", 1, 1, call_static),
            st("singleton", 1, 1, call_static),
            st("singletonMap", 2, 2, call_static),
            st("nCopies", 2, 2, call_static),
            st("addAll", 2, VAR, call_static),
            st("swap", 3, 3, call_static),
        ],
        fields: &[fd("EMPTY_LIST", get_static), fd("EMPTY_MAP", get_static)],
    },
    Class {
        name: "java.util.Arrays",
        new: None,
        statics: &[
            st("asList", 0, VAR, call_static),
            st("toString", 1, 1, call_static),
            st("sort", 1, 2, call_static),
            st("copyOf", 2, 2, call_static),
            st("copyOfRange", 3, 3, call_static),
            st("fill", 2, 2, call_static),
            st("equals", 2, 2, call_static),
            st("stream", 1, 1, call_static),
            st("deepToString", 1, 1, call_static),
        ],
        fields: &[],
    },
    Class {
        name: "java.util.Objects",
        new: None,
        statics: &[
            st("equals", 2, 2, call_static),
            st("isNull", 1, 1, call_static),
            st("nonNull", 1, 1, call_static),
            st("toString", 1, 2, call_static),
            st("requireNonNull", 1, 2, call_static),
            st("requireNonNullElse", 2, 2, call_static),
            st("hash", 0, VAR, call_static),
            st("hashCode", 1, 1, call_static),
        ],
        fields: &[],
    },
    Class {
        name: "java.util.Locale",
        new: Some(construct),
        statics: &[st("getDefault", 0, VAR, call_static)],
        fields: &[
            fd("US", get_static),
            fd("ENGLISH", get_static),
            fd("UK", get_static),
            fd("ROOT", get_static),
            fd("GERMANY", get_static),
            fd("FRANCE", get_static),
        ],
    },
    Class {
        name: "java.util.concurrent.TimeUnit",
        new: None,
        statics: &[st("valueOf", 0, VAR, call_static), st("values", 0, VAR, call_static)],
        fields: &[
            fd("NANOSECONDS", get_static),
            fd("MICROSECONDS", get_static),
            fd("MILLISECONDS", get_static),
            fd("SECONDS", get_static),
            fd("MINUTES", get_static),
            fd("HOURS", get_static),
            fd("DAYS", get_static),
        ],
    },
];

/// Both tables: `CLASSES` with statics, `PLAIN` without.
pub(super) fn all() -> impl Iterator<Item = &'static Class> {
    CLASSES.iter().chain(PLAIN.iter())
}

fn construct(cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    let first = args.first();
    let copied = || first.and_then(|v| if v.is_number() { None } else { items_of(v) }).unwrap_or_default();
    Ok(match class {
        "java.util.ArrayList"
        | "java.util.LinkedList"
        | "java.util.Vector"
        | "java.util.ArrayDeque"
        | "java.util.Stack"
        | "java.util.concurrent.CopyOnWriteArrayList"
        | "java.util.concurrent.ConcurrentLinkedQueue" => Value::list(copied()),
        "java.util.HashSet" | "java.util.LinkedHashSet" => set(copied()),
        "java.util.TreeSet" => set(sort_values(cx, copied(), None)?),
        "java.util.HashMap"
        | "java.util.LinkedHashMap"
        | "java.util.Hashtable"
        | "java.util.concurrent.ConcurrentHashMap" => Value::map(map_entries(first)),
        "java.util.TreeMap" => sorted_map(map_entries(first)),
        "java.util.Random" => {
            let seed = match first {
                Some(v) => v.as_i64().ok_or_else(|| illegal_arg("new Random(seed): the seed is a number"))?,
                None => rand::random::<i64>(),
            };
            obj(JavaRandom::new("java.util.Random", seed))
        }
        "java.util.StringJoiner" => {
            let sep = str_arg(&args, 0)?;
            let (prefix, suffix) = if args.len() >= 3 {
                (args[1].to_string(), args[2].to_string())
            } else {
                (String::new(), String::new())
            };
            Value::Object(Arc::new_cyclic(|me| StringJoiner {
                sep,
                prefix,
                suffix,
                parts: Mutex::new((Vec::new(), None)),
                me: me.clone(),
            }))
        }
        "java.util.concurrent.atomic.AtomicInteger" => {
            obj(Atomic { long: false, value: Mutex::new(first.and_then(Value::as_i64).unwrap_or(0)) })
        }
        "java.util.concurrent.atomic.AtomicLong" => {
            obj(Atomic { long: true, value: Mutex::new(first.and_then(Value::as_i64).unwrap_or(0)) })
        }
        "java.util.concurrent.atomic.AtomicBoolean" | "java.util.concurrent.atomic.AtomicReference" => {
            let init =
                first.cloned().unwrap_or(if class.ends_with("Boolean") { Value::Bool(false) } else { Value::Null });
            obj(Reference { class, value: Mutex::new(init) })
        }
        "java.util.Locale" => obj(Locale(args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join("_"))),
        "java.util.Map.Entry" => return Err(illegal_arg("Map.Entry is an interface; use Map.entry(k, v)")),
        _ => return Err(illegal_arg(format!("{class} is an interface or has no public constructor"))),
    })
}

fn set(items: Vec<Value>) -> Value {
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    for v in items {
        if !out.iter().any(|o| equals(o, &v)) {
            out.push(v);
        }
    }
    Value::List(Arc::new(ListObj { json: false, kind: ListKind::Set, items: Mutex::new(out) }))
}

fn map_entries(v: Option<&Value>) -> IndexMap<Key, Value> {
    match v {
        Some(Value::Map(m)) => lock(&m.entries).clone(),
        _ => IndexMap::new(),
    }
}

/// A `TreeMap` of these entries, in key order.
pub(crate) fn sorted_map(mut entries: IndexMap<Key, Value>) -> Value {
    crate::value::sort_entries(&mut entries);
    Value::Map(Arc::new(MapObj { sorted: true, entries: Mutex::new(entries) }))
}

fn get_static(_cx: &mut Ctx<'_>, class: &'static str, name: &str) -> Result<Value, Thrown> {
    match (class, name) {
        ("java.util.concurrent.TimeUnit", _) => TimeUnit::named(name).map(obj).ok_or_else(|| no_property(class, name)),
        ("java.util.Locale", "US") => Ok(obj(Locale("en_US".into()))),
        ("java.util.Locale", "UK") => Ok(obj(Locale("en_GB".into()))),
        ("java.util.Locale", "ENGLISH") => Ok(obj(Locale("en".into()))),
        ("java.util.Locale", "ROOT") => Ok(obj(Locale(String::new()))),
        ("java.util.Locale", "GERMANY") => Ok(obj(Locale("de_DE".into()))),
        ("java.util.Locale", "FRANCE") => Ok(obj(Locale("fr_FR".into()))),
        ("java.util.Collections", "EMPTY_LIST") => Ok(Value::list(Vec::new())),
        ("java.util.Collections", "EMPTY_MAP") => Ok(Value::map(IndexMap::new())),
        _ => Err(no_property(class, name)),
    }
}

fn call_static(cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class {
        "java.util.concurrent.ThreadLocalRandom" if method == "current" => {
            Ok(obj(JavaRandom::new("java.util.concurrent.ThreadLocalRandom", rand::random::<i64>())))
        }
        "java.util.UUID" => uuid_static(method, &args),
        "java.util.stream.Collectors" => collector(method, args),
        "java.util.Collections" => collections(cx, method, args),
        "java.util.Arrays" => arrays(cx, method, args),
        "java.util.Objects" => objects(method, args),
        "java.util.List" | "java.util.Set" | "java.util.Map" => of(class, method, args),
        "java.util.Locale" if method == "getDefault" => Ok(obj(Locale("en_US".into()))),
        "java.util.concurrent.TimeUnit" if method == "valueOf" => {
            let name = str_arg(&args, 0)?;
            TimeUnit::named(&name)
                .map(obj)
                .ok_or_else(|| illegal_arg(format!("No enum constant java.util.concurrent.TimeUnit.{name}")))
        }
        "java.util.concurrent.TimeUnit" if method == "values" => {
            Ok(Value::array(UNITS.iter().filter_map(|(n, _)| TimeUnit::named(n)).map(obj).collect()))
        }
        _ => Err(no_method(class, method)),
    }
}

fn of(class: &str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let spread = |args: Vec<Value>| match args.as_slice() {
        [Value::List(l)] if l.kind == ListKind::Array => lock(&l.items).clone(),
        _ => args,
    };
    match (class, method) {
        ("java.util.List", "of") => Ok(Value::list(spread(args))),
        ("java.util.List", "copyOf") => Ok(Value::list(items_of(arg(&args, 0)).unwrap_or_default())),
        ("java.util.Set", "of") => Ok(set(spread(args))),
        ("java.util.Set", "copyOf") => Ok(set(items_of(arg(&args, 0)).unwrap_or_default())),
        ("java.util.Map", "of") => {
            if args.len() % 2 != 0 {
                return Err(no_method(class, method));
            }
            let mut m = IndexMap::new();
            for pair in args.chunks(2) {
                if m.insert(Key(pair[0].clone()), pair[1].clone()).is_some() {
                    return Err(illegal_arg(format!("duplicate key: {}", pair[0])));
                }
            }
            Ok(Value::map(m))
        }
        ("java.util.Map", "copyOf") => Ok(Value::map(map_entries(args.first()))),
        ("java.util.Map", "entry") if args.len() == 2 => {
            Ok(obj(Entry { key: args[0].clone(), value: Mutex::new(args[1].clone()) }))
        }
        ("java.util.Map", "ofEntries") => {
            let mut m = IndexMap::new();
            for e in spread(args) {
                if let Some(e) = super::downcast::<Entry>(&e) {
                    m.insert(Key(e.key.clone()), lock(&e.value).clone());
                }
            }
            Ok(Value::map(m))
        }
        _ => Err(no_method(class, method)),
    }
}

/// `Map.entry(k, v)`.
#[derive(Debug)]
pub(crate) struct Entry {
    pub key: Value,
    pub value: Mutex<Value>,
}

impl Native for Entry {
    native_base!("java.util.Map.Entry");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("getKey", 0) => Ok(self.key.clone()),
            ("getValue", 0) => Ok(lock(&self.value).clone()),
            ("setValue", 1) => Ok(std::mem::replace(&mut *lock(&self.value), args[0].clone())),
            ("toString", 0) => Ok(Value::str(Native::to_string(self))),
            _ => Err(no_method("Map.Entry", method)),
        }
    }
    fn to_string(&self) -> String {
        format!("{}={}", self.key, lock(&self.value))
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other
            .as_any()
            .downcast_ref::<Entry>()
            .is_some_and(|o| equals(&o.key, &self.key) && equals(&lock(&o.value), &lock(&self.value)))
    }
}

// ---- sorting without panics ----

/// Sorts values (stable) by `<=>`, or by a comparator closure. A comparator that throws stops
/// the sort with its exception; values that do not compare are an error, as in Java.
pub(crate) fn sort_values(
    cx: &mut Ctx<'_>,
    items: Vec<Value>,
    comparator: Option<&Value>,
) -> Result<Vec<Value>, Thrown> {
    let mut cmp = |a: &Value, b: &Value| -> Result<std::cmp::Ordering, Thrown> {
        match comparator {
            Some(c) if !c.is_null() => {
                let r = cx.call_value(c, vec![a.clone(), b.clone()])?;
                Ok(r.as_i64().unwrap_or(0).cmp(&0))
            }
            _ => compare(a, b).ok_or_else(|| {
                Thrown::new(
                    "java.lang.ClassCastException",
                    format!("{} cannot be compared with {}", a.type_name(), b.type_name()),
                )
            }),
        }
    };
    crate::value::merge_sort(items, &mut cmp)
}

fn list_arg<'a>(args: &'a [Value], method: &str) -> Result<&'a Arc<ListObj>, Thrown> {
    match args.first() {
        Some(Value::List(l)) => Ok(l),
        _ => Err(illegal_arg(format!("{method}: a list was expected"))),
    }
}

fn collections(cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let first = arg(&args, 0).clone();
    match (method, args.len()) {
        ("shuffle", 1 | 2) => {
            let l = list_arg(&args, method)?;
            let mut items = lock(&l.items);
            match args.get(1).and_then(super::downcast::<JavaRandom>) {
                Some(r) => {
                    for i in (2..=items.len()).rev() {
                        let j = r.next_int_bound(i as i32)? as usize;
                        items.swap(i - 1, j);
                    }
                }
                None => {
                    for i in (2..=items.len()).rev() {
                        let j = rand::random_range(0..i);
                        items.swap(i - 1, j);
                    }
                }
            }
            Ok(Value::Null)
        }
        ("sort", 1 | 2) => {
            let l = list_arg(&args, method)?;
            let items = lock(&l.items).clone();
            let sorted = sort_values(cx, items, args.get(1))?;
            *lock(&l.items) = sorted;
            Ok(Value::Null)
        }
        ("reverse", 1) => {
            lock(&list_arg(&args, method)?.items).reverse();
            Ok(Value::Null)
        }
        ("swap", 3) => {
            let l = list_arg(&args, method)?;
            let (i, j) = (int_arg(&args, 1)?, int_arg(&args, 2)?);
            let mut items = lock(&l.items);
            let n = items.len() as i64;
            if !(0..n).contains(&i) || !(0..n).contains(&j) {
                return Err(Thrown::new(
                    "java.lang.IndexOutOfBoundsException",
                    format!("Index {} out of bounds for length {n}", i.max(j)),
                ));
            }
            items.swap(i as usize, j as usize);
            Ok(Value::Null)
        }
        ("max" | "min", 1 | 2) => {
            let items = items_of(&first).unwrap_or_default();
            if items.is_empty() {
                return Err(Thrown::new("java.util.NoSuchElementException", ""));
            }
            let sorted = sort_values(cx, items, args.get(1))?;
            Ok(if method == "max" { sorted.last() } else { sorted.first() }.cloned().unwrap_or(Value::Null))
        }
        ("frequency", 2) => {
            Ok(Value::Int(items_of(&first).unwrap_or_default().iter().filter(|v| equals(v, &args[1])).count() as i32))
        }
        ("emptyList", 0) => Ok(Value::list(Vec::new())),
        ("emptySet", 0) => Ok(set(Vec::new())),
        ("emptyMap", 0) => Ok(Value::map(IndexMap::new())),
        (
            "unmodifiableList"
            | "unmodifiableMap"
            | "unmodifiableSet"
            | "unmodifiableCollection"
            | "synchronizedList"
            | "synchronizedMap"
            | "synchronizedSet",
            1,
        ) => Ok(first),
        ("singletonList", 1) => Ok(Value::list(vec![first])),
        ("singleton", 1) => Ok(set(vec![first])),
        ("singletonMap", 2) => Ok(Value::map(IndexMap::from([(Key(first), args[1].clone())]))),
        ("nCopies", 2) => {
            let n = int_arg(&args, 0)?;
            if n < 0 {
                return Err(Thrown::new("java.lang.IllegalArgumentException", format!("List length = {n}")));
            }
            let n = crate::methods::checked_items(n as u64)?;
            Ok(Value::list(vec![args[1].clone(); n]))
        }
        ("addAll", n) if n >= 2 => {
            let l = list_arg(&args, method)?;
            let mut items = lock(&l.items);
            let before = items.len();
            for v in &args[1..] {
                if l.kind != ListKind::Set || !items.iter().any(|o| equals(o, v)) {
                    items.push(v.clone());
                }
            }
            Ok(Value::Bool(items.len() > before))
        }
        _ => Err(no_method("java.util.Collections", method)),
    }
}

fn arrays(cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let first = arg(&args, 0).clone();
    match (method, args.len()) {
        ("asList", _) => Ok(Value::list(match args.as_slice() {
            [Value::List(l)] if l.kind == ListKind::Array => lock(&l.items).clone(),
            _ => args,
        })),
        ("toString" | "deepToString", 1) => Ok(Value::str(first.to_string())),
        ("stream", 1) => Ok(Value::list(items_of(&first).unwrap_or_default())),
        ("sort", 1 | 2) => {
            let l = list_arg(&args, method)?;
            let items = lock(&l.items).clone();
            let cmp = args.get(1).filter(|c| matches!(c, Value::Closure(_)));
            *lock(&l.items) = sort_values(cx, items, cmp)?;
            Ok(Value::Null)
        }
        ("copyOf", 2) => {
            let mut items = items_of(&first).unwrap_or_default();
            let n = int_arg(&args, 1)?;
            if n < 0 {
                return Err(Thrown::new("java.lang.NegativeArraySizeException", n.to_string()));
            }
            let pad = match items.first() {
                Some(Value::Int(_)) => Value::Int(0),
                Some(Value::Long(_)) => Value::Long(0),
                Some(Value::Double(_)) => Value::Double(0.0),
                _ => Value::Null,
            };
            items.resize(crate::methods::checked_items(n as u64)?, pad);
            Ok(Value::array(items))
        }
        ("copyOfRange", 3) => {
            let items = items_of(&first).unwrap_or_default();
            let (a, b) = (int_arg(&args, 1)?, int_arg(&args, 2)?);
            if a < 0 || a as usize > items.len() || a > b {
                return Err(Thrown::new("java.lang.ArrayIndexOutOfBoundsException", format!("{a} > {b}")));
            }
            let mut out: Vec<Value> = items[a as usize..(b as usize).min(items.len())].to_vec();
            out.resize(crate::methods::checked_items((b - a) as u64)?, Value::Null);
            Ok(Value::array(out))
        }
        ("fill", 2) => {
            let l = list_arg(&args, method)?;
            lock(&l.items).iter_mut().for_each(|v| *v = args[1].clone());
            Ok(Value::Null)
        }
        ("equals", 2) => Ok(Value::Bool(match (&first, &args[1]) {
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (a, b) => equals(a, b),
        })),
        _ => Err(no_method("java.util.Arrays", method)),
    }
}

/// Java's `hashCode()` (one definition: the built-in values' `hashCode`).
pub(crate) fn java_hash(v: &Value) -> i32 {
    crate::methods::hash_code(v)
}

fn objects(method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let first = arg(&args, 0).clone();
    match (method, args.len()) {
        ("equals", 2) => Ok(Value::Bool(equals(&first, &args[1]))),
        ("isNull", 1) => Ok(Value::Bool(first.is_null())),
        ("nonNull", 1) => Ok(Value::Bool(!first.is_null())),
        ("toString", 1) => Ok(Value::str(first.to_string())),
        ("toString", 2) => Ok(if first.is_null() { args[1].clone() } else { Value::str(first.to_string()) }),
        ("requireNonNull", 1 | 2) => {
            if first.is_null() {
                let msg = args.get(1).map(|m| m.to_string()).unwrap_or_default();
                return Err(Thrown::new("java.lang.NullPointerException", msg));
            }
            Ok(first)
        }
        ("requireNonNullElse", 2) => Ok(if first.is_null() { args[1].clone() } else { first }),
        ("hashCode", 1) => Ok(Value::Int(java_hash(&first))),
        ("hash", _) => Ok(Value::Int(args.iter().fold(1i32, |h, x| h.wrapping_mul(31).wrapping_add(java_hash(x))))),
        _ => Err(no_method("java.util.Objects", method)),
    }
}

// ---- StringJoiner, Locale, atomics, TimeUnit ----

#[derive(Debug)]
struct StringJoiner {
    sep: String,
    prefix: String,
    suffix: String,
    /// The parts, and the `setEmptyValue` text.
    parts: Mutex<(Vec<String>, Option<String>)>,
    me: Weak<StringJoiner>,
}

impl Native for StringJoiner {
    native_base!("java.util.StringJoiner");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let this = || self.me.upgrade().map(|a| Value::Object(a as Arc<dyn Native>)).unwrap_or(Value::Null);
        match (method, args.len()) {
            ("add", 1) => {
                lock(&self.parts).0.push(args[0].to_string());
                Ok(this())
            }
            ("setEmptyValue", 1) => {
                lock(&self.parts).1 = Some(args[0].to_string());
                Ok(this())
            }
            ("toString", 0) => Ok(Value::str(Native::to_string(self))),
            ("length", 0) => Ok(Value::Int(Native::to_string(self).chars().count() as i32)),
            _ => Err(no_method("java.util.StringJoiner", method)),
        }
    }
    fn to_string(&self) -> String {
        let p = lock(&self.parts);
        match (&p.1, p.0.is_empty()) {
            (Some(empty), true) => empty.clone(),
            _ => format!("{}{}{}", self.prefix, p.0.join(&self.sep), self.suffix),
        }
    }
}

/// `java.util.Locale`: only its name; formatting is always English.
#[derive(Debug)]
pub(crate) struct Locale(pub String);

impl Native for Locale {
    native_base!("java.util.Locale");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        let (lang, country) = self.0.split_once('_').unwrap_or((&self.0, ""));
        match method {
            "toString" | "toLanguageTag" => Ok(Value::str(Native::to_string(self))),
            "getLanguage" => Ok(Value::str(lang)),
            "getCountry" => Ok(Value::str(country)),
            _ => Err(no_method("java.util.Locale", method)),
        }
    }
    fn to_string(&self) -> String {
        self.0.clone()
    }
}

/// `AtomicInteger` / `AtomicLong`.
#[derive(Debug)]
struct Atomic {
    long: bool,
    value: Mutex<i64>,
}

impl Native for Atomic {
    fn class_name(&self) -> &'static str {
        if self.long {
            "java.util.concurrent.atomic.AtomicLong"
        } else {
            "java.util.concurrent.atomic.AtomicInteger"
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let wrap = |n: i64| if self.long { n } else { n as i32 as i64 };
        let boxed = |n: i64| if self.long { Value::Long(n) } else { Value::Int(n as i32) };
        let mut v = lock(&self.value);
        let old = *v;
        let (new, ret_old) = match (method, args.len()) {
            ("get" | "intValue" | "longValue" | "getPlain" | "getAcquire", 0) => {
                return Ok(match method {
                    "intValue" => Value::Int(old as i32),
                    "longValue" => Value::Long(old),
                    _ => boxed(old),
                });
            }
            ("doubleValue", 0) => return Ok(Value::Double(old as f64)),
            ("toString", 0) => return Ok(Value::str(old.to_string())),
            ("set" | "lazySet" | "setPlain", 1) => {
                *v = wrap(int_arg(&args, 0)?);
                return Ok(Value::Null);
            }
            ("getAndSet", 1) => (int_arg(&args, 0)?, true),
            ("incrementAndGet", 0) => (old.wrapping_add(1), false),
            ("decrementAndGet", 0) => (old.wrapping_sub(1), false),
            ("getAndIncrement", 0) => (old.wrapping_add(1), true),
            ("getAndDecrement", 0) => (old.wrapping_sub(1), true),
            ("addAndGet", 1) => (old.wrapping_add(int_arg(&args, 0)?), false),
            ("getAndAdd", 1) => (old.wrapping_add(int_arg(&args, 0)?), true),
            ("compareAndSet" | "weakCompareAndSet", 2) => {
                let ok = old == int_arg(&args, 0)?;
                if ok {
                    *v = wrap(int_arg(&args, 1)?);
                }
                return Ok(Value::Bool(ok));
            }
            ("updateAndGet" | "getAndUpdate", 1) => {
                drop(v);
                let r = cx.call_value(&args[0], vec![boxed(old)])?;
                let new = wrap(r.as_i64().ok_or_else(|| illegal_arg("the update function must return a number"))?);
                *lock(&self.value) = new;
                return Ok(boxed(if method == "updateAndGet" { new } else { old }));
            }
            _ => return Err(no_method(self.class_name(), method)),
        };
        *v = wrap(new);
        Ok(boxed(if ret_old { old } else { wrap(new) }))
    }
    fn to_string(&self) -> String {
        lock(&self.value).to_string()
    }
}

/// `AtomicBoolean` / `AtomicReference`.
#[derive(Debug)]
struct Reference {
    class: &'static str,
    value: Mutex<Value>,
}

impl Native for Reference {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut v = lock(&self.value);
        match (method, args.len()) {
            ("get" | "getPlain", 0) => Ok(v.clone()),
            ("set" | "lazySet", 1) => {
                *v = args[0].clone();
                Ok(Value::Null)
            }
            ("getAndSet", 1) => Ok(std::mem::replace(&mut *v, args[0].clone())),
            ("compareAndSet", 2) => {
                let ok = equals(&v, &args[0]);
                if ok {
                    *v = args[1].clone();
                }
                Ok(Value::Bool(ok))
            }
            ("toString", 0) => Ok(Value::str(v.to_string())),
            _ => Err(no_method(self.class, method)),
        }
    }
    fn to_string(&self) -> String {
        lock(&self.value).to_string()
    }
}

/// The units and their length in nanoseconds.
const UNITS: &[(&str, i64)] = &[
    ("NANOSECONDS", 1),
    ("MICROSECONDS", 1_000),
    ("MILLISECONDS", 1_000_000),
    ("SECONDS", 1_000_000_000),
    ("MINUTES", 60_000_000_000),
    ("HOURS", 3_600_000_000_000),
    ("DAYS", 86_400_000_000_000),
];

/// `java.util.concurrent.TimeUnit.X`.
#[derive(Debug)]
pub(crate) struct TimeUnit {
    pub name: &'static str,
    pub nanos: i64,
}

impl TimeUnit {
    fn named(name: &str) -> Option<TimeUnit> {
        UNITS.iter().find(|(n, _)| *n == name).map(|(name, nanos)| TimeUnit { name, nanos: *nanos })
    }

    fn convert(&self, d: i64, to_nanos: i64) -> i64 {
        if self.nanos >= to_nanos {
            d.saturating_mul(self.nanos / to_nanos)
        } else {
            d / (to_nanos / self.nanos)
        }
    }
}

impl Native for TimeUnit {
    native_base!("java.util.concurrent.TimeUnit");
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let unit = |m: &str| match m {
            "toNanos" => Some(1),
            "toMicros" => Some(1_000),
            "toMillis" => Some(1_000_000),
            "toSeconds" => Some(1_000_000_000),
            "toMinutes" => Some(60_000_000_000),
            "toHours" => Some(3_600_000_000_000),
            "toDays" => Some(86_400_000_000_000),
            _ => None,
        };
        match (method, args.len()) {
            ("sleep", 1) => {
                let d = int_arg(&args, 0)?;
                if d > 0 {
                    cx.host.sleep(self.convert(d, 1_000_000) as u64);
                }
                Ok(Value::Null)
            }
            (m, 1) if unit(m).is_some() => Ok(Value::Long(self.convert(int_arg(&args, 0)?, unit(m).unwrap_or(1)))),
            ("convert", 2) => {
                let from = super::downcast::<TimeUnit>(&args[1])
                    .ok_or_else(|| illegal_arg("convert: a TimeUnit was expected"))?;
                Ok(Value::Long(from.convert(int_arg(&args, 0)?, self.nanos)))
            }
            ("name" | "toString", 0) => Ok(Value::str(self.name)),
            ("ordinal", 0) => Ok(int_value(UNITS.iter().position(|(n, _)| *n == self.name).unwrap_or(0) as i64)),
            _ => Err(no_method("java.util.concurrent.TimeUnit", method)),
        }
    }
    fn to_string(&self) -> String {
        self.name.to_string()
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other.as_any().downcast_ref::<TimeUnit>().is_some_and(|o| o.name == self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, s, with_cx};
    use super::super::{call_static, construct, get_static};
    use super::*;

    #[test]
    fn seeded_random_gives_javas_numbers() {
        // Java 17: new Random(42): nextInt(), nextInt(100), nextInt(10, 20), nextLong(),
        // nextDouble(), nextBoolean(), nextGaussian(), nextInt(1000), nextLong(5, 500).
        with_cx(|cx| {
            let r = construct(cx, "java.util.Random", vec![Value::Int(42)]).unwrap();
            assert_eq!(call(cx, &r, "nextInt", vec![]).to_string(), "-1170105035");
            assert_eq!(call(cx, &r, "nextInt", vec![Value::Int(100)]).to_string(), "63");
            assert_eq!(call(cx, &r, "nextInt", vec![Value::Int(10), Value::Int(20)]).to_string(), "18");
            assert_eq!(call(cx, &r, "nextLong", vec![]).to_string(), "884324181205335268");
            assert_eq!(call(cx, &r, "nextDouble", vec![]).to_string(), "0.9420735430282128");
            assert_eq!(call(cx, &r, "nextBoolean", vec![]).to_string(), "true");
            assert_eq!(call(cx, &r, "nextGaussian", vec![]).to_string(), "0.2809776380727795");
            assert_eq!(call(cx, &r, "nextInt", vec![Value::Int(1000)]).to_string(), "276");
            assert_eq!(call(cx, &r, "nextLong", vec![Value::Int(5), Value::Int(500)]).to_string(), "238");
            // Collections.shuffle([1..6], new Random(7)) is [4, 1, 2, 3, 6, 5] in Java.
            let l = Value::list((1..=6).map(Value::Int).collect());
            let r7 = construct(cx, "java.util.Random", vec![Value::Int(7)]).unwrap();
            call_static(cx, "java.util.Collections", "shuffle", vec![l.clone(), r7]).unwrap();
            assert_eq!(l.to_string(), "[4, 1, 2, 3, 6, 5]");
            assert!(call_static(cx, "java.util.concurrent.ThreadLocalRandom", "current", vec![]).is_ok());
        })
    }

    #[test]
    fn uuids() {
        with_cx(|cx| {
            let u =
                call_static(cx, "java.util.UUID", "nameUUIDFromBytes", vec![super::super::bytes(b"hello".to_vec())])
                    .unwrap();
            assert_eq!(u.to_string(), "5d41402a-bc4b-3a76-b971-9d911017c592");
            let r = call_static(cx, "java.util.UUID", "randomUUID", vec![]).unwrap().to_string();
            assert_eq!((r.len(), &r[14..15]), (36, "4"));
            assert!(matches!(r.as_bytes()[19], b'8' | b'9' | b'a' | b'b'));
            let p = call_static(cx, "java.util.UUID", "fromString", vec![s("5D41402A-BC4B-3A76-B971-9D911017C592")])
                .unwrap();
            assert!(crate::value::equals(&p, &u));
            assert!(call_static(cx, "java.util.UUID", "fromString", vec![s("nope")]).is_err());
        })
    }

    #[test]
    fn collections_and_helpers() {
        with_cx(|cx| {
            let l = Value::list(vec![Value::Int(3), Value::Int(1), Value::Int(2)]);
            call_static(cx, "java.util.Collections", "sort", vec![l.clone()]).unwrap();
            assert_eq!(l.to_string(), "[1, 2, 3]");
            call_static(cx, "java.util.Collections", "reverse", vec![l.clone()]).unwrap();
            assert_eq!(l.to_string(), "[3, 2, 1]");
            assert_eq!(call_static(cx, "java.util.Collections", "max", vec![l.clone()]).unwrap().to_string(), "3");
            assert_eq!(
                call_static(cx, "java.util.Arrays", "asList", vec![s("a"), s("b")]).unwrap().to_string(),
                "[a, b]"
            );
            assert_eq!(
                call_static(cx, "java.util.Map", "of", vec![s("k"), Value::Int(1)]).unwrap().to_string(),
                "[k:1]"
            );
            assert_eq!(
                call_static(
                    cx,
                    "java.util.Objects",
                    "hash",
                    vec![s("a"), Value::Int(1), Value::Long(2), Value::Null, Value::Bool(true)]
                )
                .unwrap()
                .to_string(),
                "118243632"
            );
            let tm = construct(cx, "java.util.TreeMap", vec![]).unwrap();
            assert!(matches!(&tm, Value::Map(m) if m.sorted));
            let set =
                construct(cx, "java.util.HashSet", vec![Value::list(vec![Value::Int(1), Value::Int(1)])]).unwrap();
            assert_eq!(set.to_string(), "[1]");
            let j = construct(cx, "java.util.StringJoiner", vec![s(","), s("["), s("]")]).unwrap();
            call(cx, &j, "add", vec![s("a")]);
            call(cx, &j, "add", vec![s("b")]);
            assert_eq!(j.to_string(), "[a,b]");
            let a = construct(cx, "java.util.concurrent.atomic.AtomicInteger", vec![Value::Int(5)]).unwrap();
            assert_eq!(call(cx, &a, "incrementAndGet", vec![]).to_string(), "6");
            assert_eq!(call(cx, &a, "getAndAdd", vec![Value::Int(4)]).to_string(), "6");
            assert_eq!(a.to_string(), "10");
            let secs = get_static(cx, "java.util.concurrent.TimeUnit", "SECONDS").unwrap();
            assert_eq!(call(cx, &secs, "toMillis", vec![Value::Int(3)]).to_string(), "3000");
            call(cx, &secs, "sleep", vec![Value::Int(1)]);
        })
    }
}

/// A `java.util.stream.Collectors` collector; a stream here is its eager list, so
/// `stream().collect(c)` is [`collect`] over the list's items.
#[derive(Debug)]
enum Collector {
    List,
    Set,
    Joining {
        sep: String,
        prefix: String,
        suffix: String,
    },
    /// `toMap(key, value[, merge])`.
    Map {
        key: Value,
        value: Value,
        merge: Option<Value>,
    },
    Counting,
    /// `groupingBy(key[, downstream])`.
    Grouping {
        key: Value,
        downstream: Option<Value>,
    },
}

impl Native for Collector {
    native_base!("java.util.stream.Collector");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        Err(no_method(self.class_name(), method))
    }
}

fn collector(method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let text = |i: usize| args.get(i).map(Value::to_string).unwrap_or_default();
    let c = match (method, args.len()) {
        ("toList" | "toUnmodifiableList", 0) => Collector::List,
        ("toSet" | "toUnmodifiableSet", 0) => Collector::Set,
        ("joining", 0 | 1 | 3) => Collector::Joining { sep: text(0), prefix: text(1), suffix: text(2) },
        ("toMap", 2 | 3) => {
            Collector::Map { key: args[0].clone(), value: args[1].clone(), merge: args.get(2).cloned() }
        }
        ("counting", 0) => Collector::Counting,
        ("groupingBy", 1) => Collector::Grouping { key: args[0].clone(), downstream: None },
        ("groupingBy", 2) if downcast::<Collector>(&args[1]).is_some() => {
            Collector::Grouping { key: args[0].clone(), downstream: Some(args[1].clone()) }
        }
        _ => return Err(no_method("java.util.stream.Collectors", method)),
    };
    Ok(obj(c))
}

/// `stream.collect(collector)`, or `None` when `c` is not a collector.
pub(crate) fn collect(cx: &mut Ctx<'_>, items: Vec<Value>, c: &Value) -> Option<Result<Value, Thrown>> {
    let Value::Object(o) = c else { return None };
    let c = o.as_any().downcast_ref::<Collector>()?;
    Some(collect_with(cx, items, c))
}

fn collect_with(cx: &mut Ctx<'_>, items: Vec<Value>, c: &Collector) -> Result<Value, Thrown> {
    Ok(match c {
        Collector::List => Value::list(items),
        Collector::Set => {
            let mut out: Vec<Value> = Vec::with_capacity(items.len());
            for x in items {
                if !out.iter().any(|o| equals(o, &x)) {
                    out.push(x);
                }
            }
            Value::List(Arc::new(ListObj { json: false, kind: ListKind::Set, items: Mutex::new(out) }))
        }
        Collector::Joining { sep, prefix, suffix } => {
            let parts: Vec<String> = items.iter().map(Value::to_string).collect();
            Value::str(format!("{prefix}{}{suffix}", parts.join(sep)))
        }
        Collector::Counting => Value::Long(items.len() as i64),
        Collector::Map { key, value, merge } => {
            let mut m: IndexMap<Key, Value> = IndexMap::new();
            for x in items {
                let k = Key(cx.call_value(key, vec![x.clone()])?);
                let v = cx.call_value(value, vec![x])?;
                let v = match (m.get(&k), merge) {
                    (Some(old), Some(f)) => cx.call_value(f, vec![old.clone(), v])?,
                    (Some(_), None) => {
                        return Err(Thrown::new(
                            "java.lang.IllegalStateException",
                            format!("Duplicate key {} (attempted merging values)", k.0),
                        ))
                    }
                    (None, _) => v,
                };
                m.insert(k, v);
            }
            Value::map(m)
        }
        Collector::Grouping { key, downstream } => {
            let mut groups: IndexMap<Key, Vec<Value>> = IndexMap::new();
            for x in items {
                let k = Key(cx.call_value(key, vec![x.clone()])?);
                groups.entry(k).or_default().push(x);
            }
            let mut m = IndexMap::with_capacity(groups.len());
            for (k, g) in groups {
                let v = match downstream.as_ref().and_then(|d| downcast::<Collector>(d)) {
                    Some(d) => collect_with(cx, g, d)?,
                    None => Value::list(g),
                };
                m.insert(k, v);
            }
            Value::map(m)
        }
    })
}
