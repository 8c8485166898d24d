//! The library classes a script may name, and nothing else: `Math`, `Integer`, `Random`,
//! `UUID`, `System`, dates, JSON, encoders, digests, regexes, `StringBuilder`, files (through
//! the host's policy). A class not here cannot load: no process execution, no network, no
//! reflection.
//!
//! One file per family (a large family's classes in files of their own below it); each
//! declares its classes once, as [`Class`] rows in a `CLASSES` table: [`resolve`] and the
//! resolver read the rows when a script loads and bind a static call or a `new` to its row,
//! which runs the row's function. `table_tests` runs every row and checks docs/scripts.md's
//! class list against the tables.
//!
//! - `lang`: `Math`, the boxed numbers, `String` statics and `String.format` (`lang/format`),
//!   `StringBuilder` (`lang/builder`), `System`, `Thread`, `Object`.
//! - `util`: `Random` and `UUID` (`util/random`), collections and their statics, atomics,
//!   `TimeUnit`.
//! - `time`: zones, `Date`, `Calendar`, `SimpleDateFormat`, `DecimalFormat` (`time/date`),
//!   `java.time` (`time/java_time`).
//! - `json`: `JsonSlurper`, `JsonOutput`, `JsonBuilder`, org.json, `JsonPath` (`json/json_path`),
//!   JavaScript's `JSON`.
//! - `codec`: URL encoding, Base64, digests, HMAC, commons-lang (`codec/commons_lang`),
//!   charsets, `java.math`.
//! - `regex`: `Pattern` and `Matcher` (Java syntax).
//! - `io`: files, through [`super::Host::file`] only.
//! - `errors`: the exception classes and their objects.
//! - `jmeter`: JMeter's classes (statics go to the host), headers, cookies, loggers.

mod codec;
mod errors;
mod io;
/// Java date patterns (`SimpleDateFormat`, `DateTimeFormatter`); the plan's `__time` uses them too.
pub(crate) mod javatime;
mod jmeter;
mod json;
mod lang;
mod regex;
#[cfg(test)]
mod table_tests;
mod time;
mod util;

use super::ast::Import;
use super::value::{self, Native, Value};
use super::{Ctx, Thrown};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

pub use codec::md5;
pub(crate) use errors::Throwable;
pub(crate) use json::json_smart_text;
pub use time::date::format_decimal;
pub(crate) use util::collect;

/// `new C(args)`: `class` is the row's name (one function makes several classes).
pub(crate) type Ctor = fn(&mut Ctx<'_>, &'static str, Vec<Value>) -> Result<Value, Thrown>;

/// `C.m(args)`: the class's and the row's names (one function serves several rows).
pub(crate) type StaticFn = fn(&mut Ctx<'_>, &'static str, &str, Vec<Value>) -> Result<Value, Thrown>;

/// `C.FIELD`: the class's and the row's names.
pub(crate) type FieldFn = fn(&mut Ctx<'_>, &'static str, &'static str) -> Result<Value, Thrown>;

/// A class a script may name, declared once: what loads (its name, its statics and fields)
/// is what runs (each row's function), and a call the resolver binds to a row runs that row's
/// function with no lookup.
pub(crate) struct Class {
    /// The canonical name (`java.lang.Math`).
    pub name: &'static str,
    /// `new C(args)`, when the class has a public constructor.
    pub new: Option<Ctor>,
    pub statics: &'static [Static],
    pub fields: &'static [Field],
}

/// A static method: its name, how many arguments it takes (`min..=max`, [`VAR`] for varargs),
/// and its code. The counts are not checked when a script loads (Groovy resolves overloads
/// when the call runs, and a row's code answers a count it lacks with "no such method"): the
/// test that runs every row calls each with them.
pub(crate) struct Static {
    pub name: &'static str,
    #[cfg_attr(not(test), allow(dead_code))]
    pub min: u8,
    #[cfg_attr(not(test), allow(dead_code))]
    pub max: u8,
    pub f: StaticFn,
}

/// A static field or constant (`Math.PI`, `TimeUnit.SECONDS`, `System.out`).
pub(crate) struct Field {
    pub name: &'static str,
    pub get: FieldFn,
}

impl std::fmt::Debug for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl std::fmt::Debug for Static {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The `max` of a static that takes any number of arguments.
pub(crate) const VAR: u8 = u8::MAX;

/// A [`Static`] row.
pub(crate) const fn st(name: &'static str, min: u8, max: u8, f: StaticFn) -> Static {
    Static { name, min, max, f }
}

/// A [`Field`] row.
pub(crate) const fn fd(name: &'static str, get: FieldFn) -> Field {
    Field { name, get }
}

impl Class {
    /// The static method of this name.
    pub(crate) fn static_method(&self, name: &str) -> Option<&'static Static> {
        self.statics.iter().find(|s| s.name == name)
    }

    fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// `new C(args)` of this class.
    pub(crate) fn construct(&self, cx: &mut Ctx<'_>, args: Vec<Value>) -> Result<Value, Thrown> {
        match self.new {
            Some(new) => new(cx, self.name, args),
            None => Err(illegal_arg(format!("{} is an interface or has no public constructor", self.name))),
        }
    }
}

/// Packages whose classes a script names without importing them (Groovy's default imports;
/// BeanShell's are a superset of what stampede has).
const AUTO_IMPORTED: &[&str] = &["java.lang", "java.util", "java.io", "java.net", "groovy.lang", "groovy.util"];

/// Auto-imported classes outside those packages (Groovy imports these two).
const AUTO_CLASSES: &[&str] = &["java.math.BigDecimal", "java.math.BigInteger"];

fn table() -> &'static HashMap<&'static str, &'static Class> {
    static TABLE: OnceLock<HashMap<&'static str, &'static Class>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let families: [&'static [Class]; 7] = [
            lang::CLASSES,
            time::CLASSES,
            json::CLASSES,
            codec::CLASSES,
            regex::CLASSES,
            errors::CLASSES,
            jmeter::CLASSES,
        ];
        families.iter().flat_map(|f| f.iter()).chain(util::all()).chain(io::all()).map(|c| (c.name, c)).collect()
    })
}

fn class(name: &str) -> Option<&'static Class> {
    table().get(name).copied()
}

/// The row of a class by its canonical name ([`resolve`]'s).
pub(crate) fn row(name: &str) -> Option<&'static Class> {
    class(name)
}

/// Every class of the tables.
#[cfg(test)]
pub(crate) fn all_classes() -> impl Iterator<Item = &'static Class> {
    table().values().copied()
}

/// The canonical name of the class a script names (`Random`, `java.util.Random`, an imported
/// or aliased name), or `None` when the class is outside the subset.
pub(crate) fn resolve(name: &str, imports: &[Import]) -> Option<&'static str> {
    let name = name.trim();
    for import in imports.iter().filter(|i| !i.is_static) {
        if import.star {
            if let Some(c) = class(&format!("{}.{name}", import.path)) {
                return Some(c.name);
            }
            continue;
        }
        let simple = import.path.rsplit('.').next().unwrap_or(&import.path);
        if import.alias.as_deref().unwrap_or(simple) == name {
            return class(&import.path).map(|c| c.name);
        }
    }
    if let Some(c) = class(name) {
        return Some(c.name);
    }
    if let Some((outer, inner)) = name.split_once('.') {
        // A nested class through its outer one: `Map.Entry`.
        let outer = resolve(outer, imports)?;
        return class(&format!("{outer}.{inner}")).map(|c| c.name);
    }
    AUTO_IMPORTED
        .iter()
        .find_map(|p| class(&format!("{p}.{name}")))
        .or_else(|| AUTO_CLASSES.iter().filter(|c| c.rsplit('.').next() == Some(name)).find_map(|c| class(c)))
        .map(|c| c.name)
}

/// The static method `C.name` a call binds to at load time.
pub(crate) fn static_method(class_name: &str, name: &str) -> Option<&'static Static> {
    class(class_name)?.static_method(name)
}

/// `new C(args)`.
#[cfg(test)]
pub(crate) fn construct(cx: &mut Ctx<'_>, class_name: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class(class_name) {
        Some(c) => c.construct(cx, args),
        None => Err(Thrown::security(format!("the class {class_name} is not available to scripts"))),
    }
}

/// `C.m(args)`.
pub(crate) fn call_static(
    cx: &mut Ctx<'_>,
    class_name: &'static str,
    method: &str,
    args: Vec<Value>,
) -> Result<Value, Thrown> {
    match class(class_name) {
        Some(c) => match c.static_method(method) {
            Some(s) => (s.f)(cx, c.name, s.name, args),
            None => Err(no_method(c.name, method)),
        },
        None => Err(Thrown::no_method(class_name, method)),
    }
}

/// `C.FIELD` (`Integer.MAX_VALUE`, `TimeUnit.SECONDS`).
pub(crate) fn get_static(cx: &mut Ctx<'_>, class_name: &'static str, name: &str) -> Result<Value, Thrown> {
    match class(class_name).and_then(|c| Some((c, c.field(name)?))) {
        Some((c, f)) => (f.get)(cx, c.name, f.name),
        None => Err(no_property(class_name, name)),
    }
}

/// `v instanceof C`, and which `catch` clause takes an exception (`Thrown` classes are
/// matched by name and superclass).
pub(crate) fn is_instance(value: &Value, class_name: &'static str) -> bool {
    use super::value::ListKind;
    let simple = class_name.rsplit('.').next().unwrap_or(class_name);
    match class_name {
        "java.lang.Object" => return !value.is_null(),
        "java.lang.Number" => return value.is_number(),
        "java.lang.CharSequence" | "java.lang.Comparable" if matches!(value, Value::Str(_)) => return true,
        "groovy.lang.GString" => return false,
        _ => {}
    }
    match value {
        Value::Null => false,
        Value::Bool(_) => simple == "Boolean",
        Value::Int(_) => matches!(simple, "Integer" | "Comparable"),
        Value::Long(_) => matches!(simple, "Long" | "Comparable"),
        Value::Double(_) => matches!(simple, "Double" | "Comparable"),
        Value::Decimal(_) => matches!(simple, "BigDecimal" | "Comparable"),
        Value::Char(_) => matches!(simple, "Character" | "Comparable"),
        Value::Str(_) => matches!(simple, "String" | "CharSequence" | "Comparable"),
        Value::Bytes(_) => false,
        Value::List(l) => match l.kind {
            ListKind::Array => false,
            ListKind::List => {
                matches!(simple, "List" | "ArrayList" | "Collection" | "Iterable" | "AbstractList")
                    || class_name == "net.minidev.json.JSONArray"
            }
            ListKind::Set => matches!(simple, "Set" | "HashSet" | "LinkedHashSet" | "Collection" | "Iterable"),
        },
        Value::Map(m) => {
            matches!(simple, "Map" | "HashMap" | "LinkedHashMap" | "AbstractMap")
                || (m.sorted && matches!(simple, "TreeMap" | "SortedMap" | "NavigableMap"))
                || class_name == "net.minidev.json.JSONObject"
        }
        Value::Range(..) => matches!(simple, "List" | "Collection" | "Iterable" | "IntRange" | "Range"),
        Value::Closure(_) => simple == "Closure",
        Value::Object(o) => {
            let name = o.class_name();
            name == class_name
                || errors::is_subclass(name, class_name)
                || lang::object_is(o.as_ref(), class_name)
                || (name == "com.jayway.jsonpath.DocumentContext" && class_name == "com.jayway.jsonpath.ReadContext")
        }
        Value::Class(_) => simple == "Class",
        Value::Host(_) => false,
    }
}

/// Whether an exception of class `thrown` is caught by `catch (C e)` for this `class`
/// (`Exception` catches `NumberFormatException`; `Throwable` catches all).
pub(crate) fn catches(class_name: &'static str, thrown: &str) -> bool {
    errors::is_subclass(thrown, class_name)
}

/// `text =~ pattern`: a `java.util.regex.Matcher` object (Java regex syntax).
pub(crate) fn matcher(cx: &mut Ctx<'_>, pattern: &str, text: &str) -> Result<Value, Thrown> {
    let _ = cx;
    regex::matcher(pattern, text)
}

/// The value `catch (e)` binds for an exception: a Throwable object (`getMessage()`,
/// `toString()`, `getClass().getName()`), or the thrown value itself when the script threw one.
pub fn exception_value(thrown: &Thrown) -> Value {
    match &thrown.value {
        Some(v) => v.clone(),
        None => Value::Object(Arc::new(Throwable::new(&thrown.class, Some(thrown.message.clone()), None))),
    }
}

/// What `throw v` throws, from the value thrown (an exception object, or anything in Groovy).
pub(crate) fn thrown_from(value: Value) -> Thrown {
    if let Some(t) = downcast::<Throwable>(&value) {
        return Thrown {
            class: t.class.clone(),
            message: t.message.clone().unwrap_or_default(),
            pos: None,
            value: Some(value),
        };
    }
    Thrown { class: "java.lang.Exception".into(), message: value.to_string(), pos: None, value: Some(value) }
}

// ---- for the other parts of the interpreter and the host ----

/// A digest of `data` in lowercase hex, by `DigestUtils`'s name (`"md5"`, `"sha256"`).
pub(crate) fn digest_hex(name: &str, data: &[u8]) -> String {
    codec::digest_hex(name, data)
}

/// The name and value of a `new Header(name, value)` (`sampler.getHeaderManager().add(h)`).
pub fn header_fields(v: &Value) -> Option<(String, String)> {
    let r = downcast::<jmeter::Record>(v)?;
    (r.class_name() == "org.apache.jmeter.protocol.http.control.Header").then(|| (r.field("name"), r.field("value")))
}

/// The fields of a JMeter value object made by a script (`Header`, `Cookie`, `Argument`,
/// `HTTPArgument`, `AssertionResult`): its class and `(field, value)` pairs.
pub fn jmeter_record(v: &Value) -> Option<(&'static str, Vec<(String, String)>)> {
    let r = downcast::<jmeter::Record>(v)?;
    Some((r.class_name(), value::lock(&r.fields).iter().map(|(k, v)| (k.clone(), v.clone())).collect()))
}

// ---- helpers the families share ----

/// The object behind a value, when it is a `T`.
pub(crate) fn downcast<T: 'static>(v: &Value) -> Option<&T> {
    match v {
        Value::Object(o) => o.as_any().downcast_ref::<T>(),
        _ => None,
    }
}

/// Wraps a native object into a value.
pub(crate) fn obj(n: impl Native) -> Value {
    Value::Object(Arc::new(n))
}

/// `class_name` and `as_any` of a [`Native`].
macro_rules! native_base {
    ($name:expr) => {
        fn class_name(&self) -> &'static str {
            $name
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    };
}
pub(crate) use native_base;

pub(crate) fn no_property(class_name: &str, name: &str) -> Thrown {
    Thrown::new("groovy.lang.MissingPropertyException", format!("No such property: {name} for class: {class_name}"))
}

pub(crate) fn illegal_arg(message: impl Into<String>) -> Thrown {
    Thrown::new("java.lang.IllegalArgumentException", message)
}

/// The argument at `i`, or null.
pub(crate) fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

/// The argument at `i` as a string (`toString()`; a missing argument is an error).
pub(crate) fn str_arg(args: &[Value], i: usize) -> Result<String, Thrown> {
    match args.get(i) {
        Some(v) => Ok(v.to_string()),
        None => Err(illegal_arg(format!("argument {} is missing", i + 1))),
    }
}

/// The argument at `i` as a whole number (numbers and chars; a numeric string too, as Groovy
/// coerces a `String` passed where an `int` is expected only in BeanShell's loose calls).
pub(crate) fn int_arg(args: &[Value], i: usize) -> Result<i64, Thrown> {
    let v = arg(args, i);
    v.as_i64().ok_or_else(|| illegal_arg(format!("argument {}: a number was expected, not {}", i + 1, v.type_name())))
}

pub(crate) fn f64_arg(args: &[Value], i: usize) -> Result<f64, Thrown> {
    let v = arg(args, i);
    v.as_f64().ok_or_else(|| illegal_arg(format!("argument {}: a number was expected, not {}", i + 1, v.type_name())))
}

/// A byte array from a value: `byte[]`, a string (UTF-8), or a list of numbers.
pub(crate) fn bytes_of(v: &Value) -> Result<Vec<u8>, Thrown> {
    match v {
        Value::Bytes(b) => Ok(b.as_ref().clone()),
        Value::Str(s) => Ok(s.as_bytes().to_vec()),
        Value::List(l) => super::value::lock(&l.items)
            .iter()
            .map(|x| x.as_i64().map(|n| n as u8).ok_or_else(|| illegal_arg("a byte array was expected")))
            .collect(),
        Value::Null => Err(Thrown::new("java.lang.NullPointerException", "a byte array was expected, not null")),
        other => Ok(other.to_string().into_bytes()),
    }
}

pub(crate) fn bytes(b: Vec<u8>) -> Value {
    Value::Bytes(Arc::new(b))
}

/// A list's items (a copy), for arguments that are collections.
pub fn items_of(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::List(l) => Some(super::value::lock(&l.items).clone()),
        Value::Range(a, b) => Some((*a..=*b).map(int_value).collect()),
        Value::Map(m) => Some(super::value::lock(&m.entries).keys().map(|k| k.0.clone()).collect()),
        _ => None,
    }
}

/// A whole number as Java would box it: `Integer` when it fits, else `Long`.
pub(crate) fn int_value(i: i64) -> Value {
    i32::try_from(i).map(Value::Int).unwrap_or(Value::Long(i))
}

/// No such method (with this many arguments).
pub(crate) fn no_method(class_name: &str, method: &str) -> Thrown {
    Thrown::no_method(class_name.rsplit('.').next().unwrap_or(class_name), method)
}

#[cfg(test)]
pub(crate) mod testing {
    use super::super::{Ctx, Lang, NoHost, Value};

    /// Runs `f` with a context on a host with no objects.
    pub(crate) fn with_cx<R>(f: impl FnOnce(&mut Ctx<'_>) -> R) -> R {
        let mut host = NoHost::default();
        let mut cx = Ctx { host: &mut host, lang: Lang::Groovy, state: Default::default() };
        f(&mut cx)
    }

    pub(crate) fn s(v: &str) -> Value {
        Value::str(v)
    }

    /// Calls a method of an object value.
    pub(crate) fn try_call(
        cx: &mut Ctx<'_>,
        v: &Value,
        m: &str,
        args: Vec<Value>,
    ) -> Result<Value, super::super::Thrown> {
        let Value::Object(o) = v else { panic!("not an object: {v:?}") };
        o.call(cx, m, args)
    }

    /// Calls a method of an object value that must succeed.
    pub(crate) fn call(cx: &mut Ctx<'_>, v: &Value, m: &str, args: Vec<Value>) -> Value {
        try_call(cx, v, m, args).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::super::ast::{Import, Pos};
    use super::*;

    fn import(path: &str, star: bool, alias: Option<&str>) -> Import {
        Import { path: path.into(), star, is_static: false, alias: alias.map(Into::into), pos: Pos::default() }
    }

    #[test]
    fn names_resolve_as_groovy_imports_them() {
        assert_eq!(resolve("Math", &[]), Some("java.lang.Math"));
        assert_eq!(resolve("Random", &[]), Some("java.util.Random"));
        assert_eq!(resolve("java.util.UUID", &[]), Some("java.util.UUID"));
        assert_eq!(resolve("BigDecimal", &[]), Some("java.math.BigDecimal"));
        assert_eq!(resolve("URLEncoder", &[]), Some("java.net.URLEncoder"));
        assert_eq!(resolve("JsonSlurper", &[]), None);
        let tlr = "java.util.concurrent.ThreadLocalRandom";
        assert_eq!(resolve("ThreadLocalRandom", &[]), None);
        assert_eq!(resolve("ThreadLocalRandom", &[import(tlr, false, None)]), Some(tlr));
        assert_eq!(resolve("ThreadLocalRandom", &[import("java.util.concurrent", true, None)]), Some(tlr));
        assert_eq!(resolve("TLR", &[import(tlr, false, Some("TLR"))]), Some(tlr));
        assert_eq!(resolve("Map.Entry", &[]), Some("java.util.Map.Entry"));
        assert_eq!(resolve("Runtime", &[]), None);
        assert_eq!(resolve("ProcessBuilder", &[]), None);
        assert_eq!(resolve("java.lang.Runtime", &[]), None);
        assert_eq!(resolve("Socket", &[import("java.net", true, None)]), None);
        assert_eq!(resolve("ClassLoader", &[]), None);
        assert_eq!(resolve("GroovyShell", &[]), None);
        assert!(static_method("java.lang.Math", "max").is_some());
        assert!(class("java.lang.Integer").and_then(|c| c.field("MAX_VALUE")).is_some());
        assert!(static_method("java.lang.Math", "exec").is_none());
        assert!(static_method("java.lang.System", "exec").is_none());
    }

    #[test]
    fn instances_of_built_in_values() {
        assert!(is_instance(&Value::str("x"), "java.lang.String"));
        assert!(is_instance(&Value::Int(1), "java.lang.Number"));
        assert!(is_instance(&Value::Int(1), "java.lang.Integer"));
        assert!(!is_instance(&Value::Int(1), "java.lang.Long"));
        assert!(is_instance(&Value::list(vec![]), "java.util.List"));
        assert!(is_instance(&Value::map(Default::default()), "java.util.Map"));
        assert!(!is_instance(&Value::Null, "java.lang.Object"));
    }
}

#[cfg(test)]
mod through_the_interpreter {
    use super::super::{Lang, NoHost, Script};

    fn run(src: &str) -> String {
        let script = Script::compile(src, Lang::Groovy).unwrap_or_else(|e| panic!("{src}: {e}"));
        let mut host = NoHost::default();
        match script.run(&mut host, &[]) {
            Ok(v) => v.to_string(),
            Err(e) => format!("threw {e}"),
        }
    }

    #[test]
    fn library_classes_in_scripts() {
        assert_eq!(run("import groovy.json.JsonSlurper\ndef o = new JsonSlurper().parseText('{\"a\":{\"b\":[1,2]}}')\no.a.b[1]"), "2");
        assert_eq!(run("new Random(42).nextInt(100)"), "30");
        assert_eq!(run("String.format('%05.1f|%s', 3.14159d, 'x')"), "003.1|x");
        assert_eq!(run("def m = 'id=42;' =~ /id=(\\d+)/\nm.find() ? m.group(1) : 'none'"), "42");
        assert_eq!(run("def sb = new StringBuilder()\nsb.append('a').append(1)\nsb.toString()"), "a1");
        assert_eq!(
            run("UUID.nameUUIDFromBytes('hello'.getBytes()).toString()"),
            "5d41402a-bc4b-3a76-b971-9d911017c592"
        );
        assert_eq!(
            run("try { Integer.parseInt('x') } catch (NumberFormatException e) { e.getMessage() }"),
            "For input string: \"x\""
        );
        assert_eq!(run("groovy.json.JsonOutput.toJson([a: 1, b: [true, null]])"), "{\"a\":1,\"b\":[true,null]}");
        assert_eq!(run("java.net.URLEncoder.encode('a b&c', 'UTF-8')"), "a+b%26c");
        assert_eq!(run("Math.max(3, 7L)"), "7");
        assert_eq!(
            run("import org.apache.commons.lang3.SystemUtils\nSystemUtils.IS_OS_LINUX || SystemUtils.IS_OS_MAC || SystemUtils.IS_OS_WINDOWS"),
            "true"
        );
    }

    #[test]
    fn a_radix_outside_2_to_36_is_java_s_answer_not_a_panic() {
        assert_eq!(run("Character.digit('7' as char, 1)"), "-1");
        assert_eq!(run("Character.digit('7' as char, 40)"), "-1");
        assert_eq!(run("(int) Character.forDigit(7, 99)"), "0");
        assert!(
            run("Integer.parseInt('1', 1)").contains("NumberFormatException: radix 1 less than Character.MIN_RADIX")
        );
        assert!(run("Long.parseLong('1', 37)").contains("radix 37 greater than Character.MAX_RADIX"));
        assert!(run("new BigInteger('1', 1)").contains("NumberFormatException"));
    }

    #[test]
    fn a_static_call_binds_to_a_row_when_the_script_loads() {
        assert_eq!(run("Math.max(3, 7)"), "7");
        assert_eq!(run("Integer.MAX_VALUE"), "2147483647");
        assert_eq!(run("Short.SIZE + Byte.BYTES"), "17");
        assert_eq!(run("org.apache.commons.lang3.StringUtils.leftPad('7', 3, '0')"), "007");
        // Not a row: a field called as a method, and statics listed before without code.
        for src in ["Integer.MAX_VALUE()", "System.arraycopy([1], 0, [0], 0, 1)", "java.time.LocalDate.EPOCH()"] {
            assert!(Script::compile(src, Lang::Groovy).is_err(), "{src} loaded");
        }
        // Called through a class value, an unknown static is "no such method" when it runs.
        assert!(run("def m = Math\nm.nothing(1)").contains("MissingMethodException"));
    }

    #[test]
    fn what_a_script_may_not_reach_does_not_load_or_is_refused() {
        for src in [
            "Runtime.getRuntime().exec('ls')",
            "new ProcessBuilder('ls').start()",
            "Class.forName('java.lang.Runtime')",
            "new java.net.Socket('localhost', 80)",
            "new Thread({ -> }).start()",
        ] {
            assert!(Script::compile(src, Lang::Groovy).is_err(), "{src} loaded");
        }
        assert!(run("System.exit(1)").contains("SecurityException"));
        assert!(run("new File('/etc/passwd').text").contains("SecurityException"));
        assert!(run("Thread.currentThread().start()").contains("SecurityException"));
    }
}
