//! Script values: what a variable, an argument or a result holds at run time. Every value is
//! `Send + Sync` because `props` and `vars.putObject` keep them beyond one execution and
//! across users; containers lock a mutex that nobody else holds on the hot path.

use super::host::HostRef;
use super::interp::Closure;
use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard};

/// A value. Java's boxed types map onto the variants (`Integer` → `Int`, `BigDecimal` →
/// `Decimal`, `byte[]` → `Bytes`, arrays and `List`s → `List`).
#[derive(Clone, Default)]
pub enum Value {
    #[default]
    /// Java's `null`.
    Null,
    /// `boolean`, `Boolean`.
    Bool(bool),
    /// `int`, `Integer` (and `short`, `byte`).
    Int(i32),
    /// `long`, `Long`.
    Long(i64),
    /// `double`, `Double` (and `float`).
    Double(f64),
    /// `BigDecimal`: Groovy's `1.5` literal and the result of `/` on integers.
    Decimal(Decimal),
    /// `char`, `Character`.
    Char(char),
    /// `String` (and `GString`, `StringBuilder` results).
    Str(Arc<str>),
    /// `byte[]`.
    Bytes(Arc<Vec<u8>>),
    /// An array, `List` or `Set`.
    List(Arc<ListObj>),
    /// A `Map`.
    Map(Arc<MapObj>),
    /// `a..b`: both ends included (the parser's `..<` has been turned into `to - 1`).
    Range(i64, i64),
    /// A closure, lambda or method reference.
    Closure(Arc<Closure>),
    /// An object of a library class (`Random`, `StringBuilder`, `Date`, ...).
    Object(Arc<dyn Native>),
    /// A class as a value (`Math`, `String.class`): its canonical name.
    Class(&'static str),
    /// An object the host owns (`vars`, `prev`, `sampler`, ...): calls go to [`super::Host`].
    Host(HostRef),
}

/// A Java array, `List` or `Set` (a set keeps insertion order, `LinkedHashSet`, and adding
/// an element it holds does nothing).
#[derive(Debug, Default)]
pub struct ListObj {
    /// A json-smart `JSONArray` (what Jayway's `JsonPath.read` gives): a `List` whose
    /// `toString()` is its JSON text; Groovy's own printing (`"$list"`, `+`) is unchanged.
    pub(crate) json: bool,
    /// Array, list or set.
    pub kind: ListKind,
    /// The elements, in order.
    pub items: Mutex<Vec<Value>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
/// What a [`ListObj`] is to the script.
pub enum ListKind {
    #[default]
    /// A `List` (`ArrayList`).
    List,
    /// Fixed size, with a `length` (`String[]` from `split`, `new int[3]`).
    Array,
    /// A `Set` (`LinkedHashSet`).
    Set,
}

/// A `Map`: `LinkedHashMap` (insertion order, as Groovy's `[:]` and JsonSlurper give), or a
/// `TreeMap` when `sorted` (entries kept in key order).
#[derive(Debug, Default)]
pub struct MapObj {
    /// A `TreeMap`: entries kept in key order.
    pub(crate) sorted: bool,
    /// The entries, in the map's order.
    pub entries: Mutex<IndexMap<Key, Value>>,
}

// A script may nest containers far deeper than the stack allows within its memory budget
// (`l = [l]` 100,000 times): dropping them recursively would overflow the stack and abort the
// process. Each container takes apart the children it alone holds, one level at a time.
impl Drop for ListObj {
    fn drop(&mut self) {
        let items = std::mem::take(self.items.get_mut().unwrap_or_else(|e| e.into_inner()));
        drop_flat(items);
    }
}

impl Drop for MapObj {
    fn drop(&mut self) {
        let entries = std::mem::take(self.entries.get_mut().unwrap_or_else(|e| e.into_inner()));
        drop_flat(entries.into_iter().flat_map(|(k, v)| [k.0, v]).collect());
    }
}

/// Drops `stack`'s values, moving the items of each list or map held nowhere else onto it
/// first, so no drop recurses more than one level.
pub(crate) fn drop_flat(mut stack: Vec<Value>) {
    while let Some(v) = stack.pop() {
        match v {
            Value::List(l) => {
                if let Ok(mut l) = Arc::try_unwrap(l) {
                    stack.append(l.items.get_mut().unwrap_or_else(|e| e.into_inner()));
                }
            }
            Value::Map(m) => {
                if let Ok(mut m) = Arc::try_unwrap(m) {
                    let entries = std::mem::take(m.entries.get_mut().unwrap_or_else(|e| e.into_inner()));
                    stack.extend(entries.into_iter().flat_map(|(k, v)| [k.0, v]));
                }
            }
            Value::Object(o) => {
                if let Some(fields) = super::interp::take_sole_fields(&o) {
                    stack.extend(fields);
                }
            }
            _ => {}
        }
    }
}

/// A map key: Java's `equals`/`hashCode` (so `1` and `1L` are different keys, as in Java).
#[derive(Clone, Debug)]
pub struct Key(pub Value);

/// Locks a container, ignoring poisoning: a script that panicked mid-update cannot exist (the
/// interpreter returns errors, never panics), and a poisoned lock must not take a run down.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An object of a library class, implemented in Rust.
pub trait Native: Send + Sync + fmt::Debug + Any {
    /// The canonical Java class name, `java.util.Random`.
    fn class_name(&self) -> &'static str;
    /// Calls a method; an unknown method is [`super::Thrown::no_method`].
    fn call(&self, cx: &mut super::Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, super::Thrown>;
    /// Reads a property: by default the getter `getName()`, then `isName()`.
    fn get(&self, cx: &mut super::Ctx<'_>, name: &str) -> Result<Value, super::Thrown> {
        let cap = capitalize(name);
        match self.call(cx, &format!("get{cap}"), Vec::new()) {
            Err(e) if e.is_no_method() => self.call(cx, &format!("is{cap}"), Vec::new()),
            r => r,
        }
    }
    /// Writes a property: by default the setter `setName(value)`.
    fn set(&self, cx: &mut super::Ctx<'_>, name: &str, value: Value) -> Result<(), super::Thrown> {
        self.call(cx, &format!("set{}", capitalize(name)), vec![value]).map(|_| ())
    }
    /// Java's `toString()`.
    fn to_string(&self) -> String {
        format!("{}@{:x}", self.class_name(), self as *const Self as *const () as usize)
    }
    /// Java's `equals`: identity unless the class says otherwise.
    fn equals(&self, other: &dyn Native) -> bool {
        std::ptr::addr_eq(self as *const Self, other as *const dyn Native)
    }
    /// Bytes the memory budget counts for the object itself (a script class's fields).
    fn held(&self) -> u64 {
        0
    }
    /// The object as `Any`, to downcast it to its Rust type.
    fn as_any(&self) -> &dyn Any;
}

/// `name` → `Name` (for getters and setters).
pub(crate) fn capitalize(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

impl Value {
    /// A string.
    pub fn str(s: impl Into<Arc<str>>) -> Value {
        Value::Str(s.into())
    }

    /// A `List` (`ArrayList`) of these items.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Arc::new(ListObj { json: false, kind: ListKind::List, items: Mutex::new(items) }))
    }

    /// A json-smart `JSONArray` of these items.
    pub(crate) fn json_array(items: Vec<Value>) -> Value {
        Value::List(Arc::new(ListObj { json: true, kind: ListKind::List, items: Mutex::new(items) }))
    }

    /// A Java array (`Object[]`) of these items.
    pub fn array(items: Vec<Value>) -> Value {
        Value::List(Arc::new(ListObj { json: false, kind: ListKind::Array, items: Mutex::new(items) }))
    }

    /// A `LinkedHashMap` of these entries.
    pub fn map(entries: IndexMap<Key, Value>) -> Value {
        Value::Map(Arc::new(MapObj { sorted: false, entries: Mutex::new(entries) }))
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The simple Java class name, for messages (`No signature of method: String.foo()`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "Boolean",
            Value::Int(_) => "Integer",
            Value::Long(_) => "Long",
            Value::Double(_) => "Double",
            Value::Decimal(_) => "BigDecimal",
            Value::Char(_) => "Character",
            Value::Str(_) => "String",
            Value::Bytes(_) => "byte[]",
            Value::List(l) => match l.kind {
                ListKind::Array => "Object[]",
                ListKind::List => "ArrayList",
                ListKind::Set => "LinkedHashSet",
            },
            Value::Map(m) if m.sorted => "TreeMap",
            Value::Map(_) => "LinkedHashMap",
            Value::Range(..) => "IntRange",
            Value::Closure(_) => "Closure",
            Value::Object(o) => o.class_name().rsplit('.').next().unwrap_or("Object"),
            Value::Class(_) => "Class",
            Value::Host(_) => "Object",
        }
    }

    /// Groovy truth: null, false, 0, empty strings, lists and maps are false.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Long(i) => *i != 0,
            Value::Double(d) => *d != 0.0,
            Value::Decimal(d) => !d.is_zero(),
            Value::Char(c) => *c != '\0',
            Value::Str(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::List(l) => !lock(&l.items).is_empty(),
            Value::Map(m) => !lock(&m.entries).is_empty(),
            Value::Range(..) => true,
            _ => true,
        }
    }

    /// The value as a whole number, when it is one (numbers, chars; not strings).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i as i64),
            Value::Long(i) => Some(*i),
            Value::Double(d) => Some(*d as i64),
            Value::Decimal(d) => rust_decimal::prelude::ToPrimitive::to_i64(&d.trunc()),
            Value::Char(c) => Some(*c as i64),
            _ => None,
        }
    }

    /// The value as a double, when it is a number.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Long(i) => Some(*i as f64),
            Value::Double(d) => Some(*d),
            Value::Decimal(d) => rust_decimal::prelude::ToPrimitive::to_f64(d),
            Value::Char(c) => Some(*c as u32 as f64),
            _ => None,
        }
    }

    /// Whether this is a number (`Integer`, `Long`, `Double`, `BigDecimal`).
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Long(_) | Value::Double(_) | Value::Decimal(_))
    }
}

/// What one comparison counts as work, in bytes.
const EQUALS_WORK: u64 = 16;

/// Groovy's `==` (and what `contains`, `indexOf`, `unique` and map lookups by value use):
/// numbers compare by value across types (`1 == 1L`, `1 == 1.0`), a one-character string equals
/// its `char`, lists and maps compare element by element, other objects by `equals`.
pub(crate) fn equals(a: &Value, b: &Value) -> bool {
    use Value::*;
    // Work: sets and `unique`, `intersect`, `contains` compare every pair, which no step counts.
    super::budget::work(EQUALS_WORK);
    match (a, b) {
        (Null, Null) => true,
        (Null, _) | (_, Null) => false,
        (Bool(x), Bool(y)) => x == y,
        (Str(x), Str(y)) => x == y,
        (Char(x), Char(y)) => x == y,
        (Char(c), Str(s)) | (Str(s), Char(c)) => {
            let mut it = s.chars();
            it.next() == Some(*c) && it.next().is_none()
        }
        (Decimal(x), Decimal(y)) => x == y,
        (Int(_) | Long(_), Int(_) | Long(_)) => a.as_i64() == b.as_i64(),
        (Decimal(x), Int(_) | Long(_)) => b.as_i64().map(rust_decimal::Decimal::from) == Some(*x),
        (Int(_) | Long(_), Decimal(y)) => a.as_i64().map(rust_decimal::Decimal::from) == Some(*y),
        _ if a.is_number() && b.is_number() => a.as_f64() == b.as_f64(),
        (List(x), List(y)) => {
            if Arc::ptr_eq(x, y) {
                return true;
            }
            let (x, y) = (lock(&x.items).clone(), lock(&y.items).clone());
            x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| equals(p, q))
        }
        (Map(x), Map(y)) => {
            if Arc::ptr_eq(x, y) {
                return true;
            }
            let (x, y) = (lock(&x.entries).clone(), lock(&y.entries).clone());
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equals(v, w)))
        }
        (Bytes(x), Bytes(y)) => Arc::ptr_eq(x, y),
        (Range(a1, b1), Range(a2, b2)) => a1 == a2 && b1 == b2,
        (Class(x), Class(y)) => x == y,
        (Host(x), Host(y)) => x == y,
        (Object(x), Object(y)) => x.equals(y.as_ref()),
        (Closure(x), Closure(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

/// Groovy's `<=>` (and sorting): numbers by value, strings by UTF-16 code units as Java's
/// `compareTo`, chars, booleans (`false` first); `null` sorts first. `None` when the two do
/// not compare (a list and a number).
pub(crate) fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    use Value::*;
    match (a, b) {
        (Null, Null) => Some(Ordering::Equal),
        (Null, _) => Some(Ordering::Less),
        (_, Null) => Some(Ordering::Greater),
        (Str(x), Str(y)) => Some(x.encode_utf16().cmp(y.encode_utf16())),
        (Char(x), Char(y)) => Some(x.cmp(y)),
        (Str(s), Char(c)) => Some(s.encode_utf16().cmp(c.to_string().encode_utf16())),
        (Char(c), Str(s)) => Some(c.to_string().encode_utf16().cmp(s.encode_utf16())),
        (Bool(x), Bool(y)) => Some(x.cmp(y)),
        (Int(_) | Long(_) | Char(_), Int(_) | Long(_) | Char(_)) => Some(a.as_i64()?.cmp(&b.as_i64()?)),
        (Decimal(x), Decimal(y)) => Some(x.cmp(y)),
        (Decimal(x), Int(_) | Long(_)) => Some(x.cmp(&rust_decimal::Decimal::from(b.as_i64()?))),
        (Int(_) | Long(_), Decimal(y)) => Some(rust_decimal::Decimal::from(a.as_i64()?).cmp(y)),
        _ if a.is_number() && b.is_number() => a.as_f64()?.partial_cmp(&b.as_f64()?),
        _ => None,
    }
}

/// Sorts stably by an order that may fail (a script's comparator throws) or not be total (values
/// that do not compare read as equal): a merge sort, which never panics on such an order, unlike
/// the standard library's sorts.
pub(crate) fn merge_sort<T, E, F>(mut items: Vec<T>, cmp: &mut F) -> Result<Vec<T>, E>
where
    F: FnMut(&T, &T) -> Result<std::cmp::Ordering, E>,
{
    if items.len() <= 1 {
        return Ok(items);
    }
    let right = items.split_off(items.len() / 2);
    let (left, right) = (merge_sort(items, cmp)?, merge_sort(right, cmp)?);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
    while let (Some(a), Some(b)) = (l.peek(), r.peek()) {
        if cmp(a, b)? == std::cmp::Ordering::Greater {
            out.extend(r.next());
        } else {
            out.extend(l.next());
        }
    }
    out.extend(l);
    out.extend(r);
    Ok(out)
}

/// Values in Groovy's natural order (`<=>`; values that do not compare keep their order).
pub(crate) fn sort_natural(items: Vec<Value>) -> Vec<Value> {
    let Ok(sorted) = merge_sort(items, &mut |a, b| Ok::<_, std::convert::Infallible>(natural(a, b)));
    sorted
}

/// A map's entries in its keys' natural order (a `TreeMap`).
pub(crate) fn sort_entries(entries: &mut IndexMap<Key, Value>) {
    let pairs: Vec<(Key, Value)> = std::mem::take(entries).into_iter().collect();
    let Ok(sorted) = merge_sort(pairs, &mut |a, b| Ok::<_, std::convert::Infallible>(natural(&a.0 .0, &b.0 .0)));
    *entries = sorted.into_iter().collect();
}

/// `<=>`, with values that do not compare read as equal.
fn natural(a: &Value, b: &Value) -> std::cmp::Ordering {
    compare(a, b).unwrap_or(std::cmp::Ordering::Equal)
}

/// Java's `Double.toString`: `1.0`, `0.1`, `1.0E10`, `1.0E-5`, `NaN`, `Infinity`.
pub(crate) fn java_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let a = d.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        let s = format!("{d}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    // Scientific: shortest digits, mantissa with at least one decimal.
    let s = format!("{d:e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let m = if m.contains('.') { m.to_string() } else { format!("{m}.0") };
    format!("{m}E{e}")
}

/// Groovy's `toString()` of a value (what string concatenation and GStrings use): lists as
/// `[a, b]`, maps as `[k:v]`, `null` as `null`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Long(i) => write!(f, "{i}"),
            Value::Double(d) => f.write_str(&java_double(*d)),
            Value::Decimal(d) => write!(f, "{d}"),
            Value::Char(c) => write!(f, "{c}"),
            Value::Str(s) => f.write_str(s),
            Value::Bytes(b) => write!(f, "[B@{:x}", Arc::as_ptr(b) as usize),
            Value::List(l) => {
                let Some(_showing) = super::budget::show_nested(Arc::as_ptr(l) as usize) else {
                    return f.write_str("[...]");
                };
                f.write_str("[")?;
                for (i, v) in lock(&l.items).iter().enumerate() {
                    // Lists that hold one long string many times, or themselves nested by
                    // reference, print to far more than they hold: the text is metered, and
                    // cut (the script then gets an `OutOfMemoryError`) when over budget.
                    if !super::budget::show(shown_size(v)) {
                        break;
                    }
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    // Groovy's `InvokerHelper.formatCollection`.
                    if matches!(v, Value::List(x) if Arc::ptr_eq(x, l)) {
                        f.write_str("(this Collection)")?;
                        continue;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Map(map) => {
                let Some(_showing) = super::budget::show_nested(Arc::as_ptr(map) as usize) else {
                    return f.write_str("[...]");
                };
                let m = lock(&map.entries);
                if m.is_empty() {
                    return f.write_str("[:]");
                }
                f.write_str("[")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if !super::budget::show(shown_size(&k.0) + shown_size(v)) {
                        break;
                    }
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if matches!(v, Value::Map(x) if Arc::ptr_eq(x, map)) {
                        write!(f, "{}:(this Map)", k.0)?;
                        continue;
                    }
                    write!(f, "{}:{v}", k.0)?;
                }
                f.write_str("]")
            }
            Value::Range(a, b) => write!(f, "{a}..{b}"),
            Value::Closure(_) => f.write_str("Closure"),
            Value::Object(o) => f.write_str(&o.to_string()),
            Value::Class(c) => write!(f, "class {c}"),
            Value::Host(h) => write!(f, "host#{}", h.0),
        }
    }
}

/// About what a value adds to the text of the container that holds it (a nested container
/// counts its own elements).
pub(crate) fn shown_size(v: &Value) -> u64 {
    match v {
        Value::Str(s) => s.len() as u64 + 2,
        _ => 8,
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => write!(f, "{s:?}"),
            other => write!(f, "{}({other})", other.type_name()),
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        match (&self.0, &other.0) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Long(a), Value::Long(b)) => a == b,
            (Value::Double(a), Value::Double(b)) => a.to_bits() == b.to_bits(),
            (Value::Decimal(a), Value::Decimal(b)) => a == b,
            (Value::Char(a), Value::Char(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Class(a), Value::Class(b)) => a == b,
            (Value::Host(a), Value::Host(b)) => a == b,
            (Value::List(a), Value::List(b)) => Arc::ptr_eq(a, b),
            (Value::Map(a), Value::Map(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        std::mem::discriminant(&self.0).hash(h);
        match &self.0 {
            Value::Bool(b) => b.hash(h),
            Value::Int(i) => i.hash(h),
            Value::Long(i) => i.hash(h),
            Value::Double(d) => d.to_bits().hash(h),
            Value::Decimal(d) => d.hash(h),
            Value::Char(c) => c.hash(h),
            Value::Str(s) => s.hash(h),
            Value::Class(c) => c.hash(h),
            Value::Host(r) => r.hash(h),
            Value::List(a) => (Arc::as_ptr(a) as usize).hash(h),
            Value::Map(a) => (Arc::as_ptr(a) as usize).hash(h),
            _ => {}
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_java_does() {
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_double(0.1), "0.1");
        assert_eq!(java_double(1e10), "1.0E10");
        assert_eq!(java_double(1.5e-5), "1.5E-5");
        assert_eq!(java_double(-2.5), "-2.5");
    }

    #[test]
    fn containers_print_as_groovy_does() {
        let mut m = IndexMap::new();
        m.insert(Key("a".into()), Value::Int(1));
        assert_eq!(Value::list(vec![Value::Int(1), "x".into(), Value::Null]).to_string(), "[1, x, null]");
        assert_eq!(Value::map(m).to_string(), "[a:1]");
        assert_eq!(Value::map(IndexMap::new()).to_string(), "[:]");
    }

    #[test]
    fn groovy_equality_crosses_number_types() {
        assert!(equals(&Value::Int(1), &Value::Long(1)));
        assert!(equals(&Value::Int(1), &Value::Double(1.0)));
        assert!(equals(&Value::Decimal(Decimal::new(15, 1)), &Value::Double(1.5)));
        assert!(equals(&Value::Char('a'), &"a".into()));
        assert!(!equals(&Value::Null, &"null".into()));
        assert!(equals(&Value::list(vec![Value::Int(1)]), &Value::list(vec![Value::Long(1)])));
        assert_eq!(compare(&"B".into(), &"a".into()), Some(std::cmp::Ordering::Less));
        assert_eq!(compare(&Value::Int(2), &Value::Double(1.5)), Some(std::cmp::Ordering::Greater));
    }

    /// An order that is not total (numbers and strings do not compare) sorts without a panic.
    #[test]
    fn sorting_values_that_do_not_compare_does_not_panic() {
        let mut items = Vec::new();
        for i in 0..200 {
            items.push(if i % 3 == 0 { Value::str(format!("s{i}")) } else { Value::Int((i * 7919) % 101) });
        }
        assert_eq!(sort_natural(items).len(), 200);
        let sorted = sort_natural(vec![Value::Int(3), Value::Int(1), Value::Int(2)]);
        assert_eq!(Value::list(sorted).to_string(), "[1, 2, 3]");
    }

    #[test]
    fn java_keys_keep_integer_and_long_apart() {
        assert_ne!(Key(Value::Int(1)), Key(Value::Long(1)));
        assert_eq!(Key("a".into()), Key("a".into()));
    }
}
