//! The host objects every script place shares, over a user's [`Scope`]: `vars`
//! (`JMeterVariables`), `props` (JMeter's `Properties`), `log` (an slf4j `Logger`), `OUT`
//! (`System.out`) and the part of `ctx` (`JMeterContext`) a template knows. The engine's script
//! elements and the template functions (`__groovy`, ...) bind these names to the [`HostRef`]s
//! below and route calls on them here; each element adds its own objects (`prev`, `sampler`).
//!
//! JMeter 5.6.3's semantics: `vars` holds strings and objects in one map (`vars.get` of an
//! object is its `toString()`, of an unset name `null`); `vars.put(k, null)` unsets; `vars.put`
//! of a number is refused by Groovy and BeanShell (no `put(String, Integer)`), converted to
//! text by JavaScript; `props` is a `java.util.Properties` (a `Hashtable`: a null value throws,
//! `getProperty` of a non-text value is null).
//!
//! What a [`Scope`] must do for this (the engine's user state): `put_object(k, Null)` and
//! `put_property_object(k, Null)` remove the object; `set_var_named` makes the name read as
//! that text; `var_entries` lists what `vars.entrySet()` shows.

use crate::plan::template::Scope;
use crate::script::{lock, HostRef, Key, Lang, Thrown, Value};
use indexmap::IndexMap;

/// `vars`: the user's variables.
pub const VARS: HostRef = HostRef(0);
/// `props`: the run's properties.
pub const PROPS: HostRef = HostRef(1);
/// `log`: the script's logger.
pub const LOG: HostRef = HostRef(2);
/// `OUT`: standard output.
pub(crate) const OUT: HostRef = HostRef(3);
/// `ctx`: the user's context.
pub const CTX: HostRef = HostRef(4);
/// The first reference an element may give its own objects (`prev`, `sampler`, ...).
pub const FIRST_FREE: u32 = 5;

const VARS_CLASS: &str = "org.apache.jmeter.threads.JMeterVariables";
const PROPS_CLASS: &str = "java.util.Properties";
const LOG_CLASS: &str = "org.slf4j.Logger";
const OUT_CLASS: &str = "java.io.PrintStream";
const CTX_CLASS: &str = "org.apache.jmeter.threads.JMeterContext";

/// A log level, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Trace => "TRACE",
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
        }
    }
}

/// JMeter's default: script loggers write INFO and above (`log_level.jmeter=INFO`).
pub(crate) const DEFAULT_LEVEL: Level = Level::Info;

/// Calls a method of one of the shared objects; `None` when `target` is not one of them (the
/// element's own objects), so the caller dispatches it further.
pub(crate) fn call_shared<S: Scope>(
    scope: &mut S,
    target: HostRef,
    method: &str,
    args: Vec<Value>,
    lang: Lang,
    log: &mut dyn FnMut(Level, &str),
    print: &mut dyn FnMut(&str),
) -> Option<Result<Value, Thrown>> {
    Some(match target {
        VARS => vars_call(scope, method, args, lang),
        PROPS => props_call(scope, method, args),
        LOG => log_call(method, args, DEFAULT_LEVEL, &mut |l, t| log(l, &scrub(&*scope, t))),
        OUT => out_call(method, args, &mut |t| print(&scrub(&*scope, t))),
        CTX => ctx_call(scope, method, args)?,
        _ => return None,
    })
}

/// A script's log or printed text as it may be written (a log file, the terminal): the values
/// of the user's variables with secret names (`token`, `password`, `Authorization`, ...; see
/// `crate::redact`) masked wherever they appear, as `log.info(vars.get("token"))` would print
/// them bare, and `crate::redact::text`'s rules (`name=value`, JSON fields, URLs). Values
/// shorter than `Secrets::MIN_LEN` are not looked for.
pub(crate) fn scrub<S: Scope + ?Sized>(scope: &S, text: &str) -> String {
    let mut secrets = crate::redact::Secrets::default();
    for (name, value) in scope.var_entries().unwrap_or_default() {
        if crate::redact::is_secret_name(&name) {
            secrets.add(&value.to_string());
        }
    }
    crate::redact::text(&secrets.scrub(text)).into_owned()
}

/// `toString()` of a shared object, `None` for another reference.
pub(crate) fn describe_shared(target: HostRef) -> Option<String> {
    let class = match target {
        VARS => VARS_CLASS,
        PROPS => PROPS_CLASS,
        LOG => LOG_CLASS,
        OUT => OUT_CLASS,
        CTX => CTX_CLASS,
        _ => return None,
    };
    Some(format!("{class}@{:x}", target.0))
}

/// Groovy's `MissingMethodException` for arguments no overload takes, as Groovy words it.
fn no_overload(class: &str, method: &str, args: &[Value]) -> Thrown {
    let types: Vec<&str> = args.iter().map(|a| a.type_name()).collect();
    let values: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    Thrown::new(
        "groovy.lang.MissingMethodException",
        format!(
            "No signature of method: {class}.{method}() is applicable for argument types: ({}) values: [{}]",
            types.join(", "),
            values.join(", ")
        ),
    )
}

/// A `String` argument: text, or null; JavaScript converts a number or boolean to its text
/// (Nashorn's `ToString`: `2`, not `2.0`), Groovy and Java refuse it.
fn string_arg(v: &Value, lang: Lang) -> Result<Option<String>, ()> {
    match v {
        Value::Null => Ok(None),
        Value::Str(s) => Ok(Some(s.to_string())),
        Value::Bool(_) | Value::Int(_) | Value::Long(_) | Value::Double(_) | Value::Decimal(_) | Value::Char(_)
            if lang == Lang::JavaScript =>
        {
            Ok(Some(js_text(v)))
        }
        _ => Err(()),
    }
}

/// JavaScript's `String(v)`: integral numbers without `.0`, others as Java prints doubles in
/// their shortest form.
pub(crate) fn js_text(v: &Value) -> String {
    match v {
        Value::Double(d) if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e21 => format!("{}", *d as i128),
        Value::Double(d) if d.is_nan() => "NaN".into(),
        Value::Double(d) if d.is_finite() => {
            let s = format!("{d}");
            if s.contains('e') {
                s.replace('e', "e+").replace("e+-", "e-")
            } else {
                s
            }
        }
        other => other.to_string(),
    }
}

/// The one-argument key of a call: its text (`vars.get(5)` is not a method Groovy finds).
fn key_arg<'a>(class: &str, method: &str, args: &'a [Value]) -> Result<&'a str, Thrown> {
    match args {
        [Value::Str(s), ..] => Ok(s),
        _ => Err(no_overload(class, method, args)),
    }
}

/// One row of a dispatch table (a host object's method, a template's function): its name, the
/// fewest and most arguments it takes ([`ANY`]: no most) and what it does. The load-time check
/// and the dispatch read the same rows, so what is listed runs.
pub(crate) struct Row<F> {
    pub(crate) name: &'static str,
    pub(crate) min: usize,
    pub(crate) max: usize,
    pub(crate) f: F,
}

/// No upper bound on a row's number of arguments.
pub(crate) const ANY: usize = usize::MAX;

/// A row; `const` so that tables are built when compiled.
pub(crate) const fn row<F>(name: &'static str, min: usize, max: usize, f: F) -> Row<F> {
    Row { name, min, max, f }
}

/// What a table holds for a name and a number of arguments.
pub(crate) enum Lookup<'t, F> {
    Found(&'t F),
    /// The name is there, not for this many arguments.
    WrongCount,
    Unknown,
}

/// The row of `name` that takes `n` arguments (a name may have rows for different counts).
pub(crate) fn lookup<'t, F>(rows: &'t [Row<F>], name: &str, n: usize) -> Lookup<'t, F> {
    let mut named = false;
    for r in rows.iter().filter(|r| r.name == name) {
        if (r.min..=r.max).contains(&n) {
            return Lookup::Found(&r.f);
        }
        named = true;
    }
    if named {
        Lookup::WrongCount
    } else {
        Lookup::Unknown
    }
}

/// A method of `vars`: the user's scope, the method's name (for an error) and arguments.
type VarsFn = fn(&mut dyn Scope, &str, Vec<Value>, Lang) -> Result<Value, Thrown>;

/// `vars`' methods; `getAt`/`putAt` are `vars["k"]`, `vars.k`.
pub(crate) const VARS_METHODS: [Row<VarsFn>; 13] = [
    row("get", 1, 1, vars_get_call),
    row("getAt", 1, 1, vars_get_call),
    row("getObject", 1, 1, |s, m, a, _| Ok(vars_get_object(s, key_arg(VARS_CLASS, m, &a)?).unwrap_or_default())),
    row("put", 2, 2, vars_put_call),
    row("putObject", 2, 2, vars_put_object_call),
    row("putAt", 2, 2, vars_put_object_call),
    row("setProperty", 2, 2, vars_put_object_call),
    row("remove", 1, 1, vars_remove_call),
    row("putAll", 1, 1, vars_put_all_call),
    row("entrySet", 0, 0, vars_entries_call),
    row("getIterator", 0, 0, vars_entries_call),
    row("getThreadName", 0, 0, |s, _, _, _| match s.thread_name() {
        Some(name) => Ok(Value::from(name)),
        None => {
            Err(Thrown::new("java.lang.UnsupportedOperationException", "vars.getThreadName() is not available here"))
        }
    }),
    row("toString", 0, 0, |_, _, _, _| Ok(Value::from(describe_shared(VARS).unwrap_or_default()))),
];

/// `vars.<method>(args)` by [`VARS_METHODS`].
pub(crate) fn vars_call<S: Scope>(scope: &mut S, method: &str, args: Vec<Value>, lang: Lang) -> Result<Value, Thrown> {
    match lookup(&VARS_METHODS, method, args.len()) {
        Lookup::Found(f) => f(scope, method, args, lang),
        Lookup::WrongCount | Lookup::Unknown => Err(Thrown::no_method(VARS_CLASS, method)),
    }
}

fn vars_get_call(scope: &mut dyn Scope, method: &str, args: Vec<Value>, _: Lang) -> Result<Value, Thrown> {
    let k = key_arg(VARS_CLASS, method, &args)?;
    Ok(vars_get(scope, k).map(Value::from).unwrap_or_default())
}

fn vars_put_call(scope: &mut dyn Scope, method: &str, args: Vec<Value>, lang: Lang) -> Result<Value, Thrown> {
    let k = key_arg(VARS_CLASS, method, &args)?;
    match string_arg(&args[1], lang) {
        Ok(v) => {
            vars_put(scope, k, v.as_deref());
            Ok(Value::Null)
        }
        Err(()) => Err(no_overload(VARS_CLASS, method, &args)),
    }
}

fn vars_put_object_call(scope: &mut dyn Scope, method: &str, mut args: Vec<Value>, _: Lang) -> Result<Value, Thrown> {
    let k = key_arg(VARS_CLASS, method, &args)?.to_string();
    vars_put_object(scope, &k, args.pop().unwrap_or_default());
    Ok(Value::Null)
}

fn vars_remove_call(scope: &mut dyn Scope, method: &str, args: Vec<Value>, _: Lang) -> Result<Value, Thrown> {
    let k = key_arg(VARS_CLASS, method, &args)?;
    let before = vars_get_object(scope, k);
    scope.remove_var_named(k);
    if scope.object(k).is_some() {
        scope.put_object(k, Value::Null);
    }
    Ok(before.unwrap_or_default())
}

fn vars_put_all_call(scope: &mut dyn Scope, method: &str, args: Vec<Value>, _: Lang) -> Result<Value, Thrown> {
    let entries = match &args[0] {
        Value::Map(m) => lock(&m.entries).clone(),
        Value::Host(VARS) => return Ok(Value::Null),
        _ => return Err(no_overload(VARS_CLASS, method, &args)),
    };
    for (k, v) in entries {
        vars_put_object(scope, &k.0.to_string(), v);
    }
    Ok(Value::Null)
}

fn vars_entries_call(scope: &mut dyn Scope, _: &str, _: Vec<Value>, _: Lang) -> Result<Value, Thrown> {
    let Some(entries) = scope.var_entries() else {
        return Err(Thrown::new("java.lang.UnsupportedOperationException", "vars.entrySet() is not available here"));
    };
    let map: IndexMap<Key, Value> = entries.into_iter().map(|(k, v)| (Key(Value::from(k)), v)).collect();
    // A map's entries: the interpreter's `entrySet()` of the map.
    Ok(Value::list(entry_list(&Value::map(map))))
}

/// The entries of a map as `[key, value]` pairs (`Map.Entry` stand-ins: `entry[0]`, `.key`
/// and `.value` read through the interpreter's map methods).
fn entry_list(map: &Value) -> Vec<Value> {
    let Value::Map(m) = map else { return Vec::new() };
    // `Map.Entry` objects, as JMeter's unmodifiable view gives them: `getKey()`/`getValue()`
    // as well as `key`/`value` (a map of two keys answered only the properties).
    lock(&m.entries).iter().map(|(k, v)| Value::entry(k.0.clone(), v.clone())).collect()
}

/// `vars.get(k)`: the text, an object's `toString()`, or `None`.
pub(crate) fn vars_get<S: Scope + ?Sized>(scope: &S, k: &str) -> Option<String> {
    match scope.object(k) {
        Some(Value::Null) | None => scope.var_named(k).map(str::to_string),
        Some(Value::Str(s)) => Some(s.to_string()),
        Some(o) => Some(o.to_string()),
    }
}

/// `vars.getObject(k)`: the object, else the text.
pub(crate) fn vars_get_object<S: Scope + ?Sized>(scope: &S, k: &str) -> Option<Value> {
    match scope.object(k) {
        Some(Value::Null) | None => scope.var_named(k).map(Value::from),
        Some(o) => Some(o),
    }
}

/// `vars.put(k, v)`; `None` unsets the variable, as JMeter's null value does.
pub(crate) fn vars_put<S: Scope + ?Sized>(scope: &mut S, k: &str, v: Option<&str>) {
    if scope.object(k).is_some_and(|o| !o.is_null()) {
        scope.put_object(k, Value::Null);
    }
    match v {
        Some(v) => scope.set_var_named(k, v),
        None => {
            scope.remove_var_named(k);
        }
    }
}

/// `vars.putObject(k, v)`: text is a variable; another object is kept as it is, and `${k}`
/// reads its `toString()` now.
pub(crate) fn vars_put_object<S: Scope + ?Sized>(scope: &mut S, k: &str, v: Value) {
    match v {
        Value::Null => vars_put(scope, k, None),
        Value::Str(s) => vars_put(scope, k, Some(&s)),
        o => {
            scope.set_var_named(k, &o.to_string());
            scope.put_object(k, o);
        }
    }
}

/// A method of `props`: the user's scope, the method's name (for an error) and arguments.
type PropsFn = fn(&mut dyn Scope, &str, Vec<Value>) -> Result<Value, Thrown>;

/// `props`' methods: a `java.util.Properties`; `getAt`/`putAt` are `props["k"]`, `props.k`.
pub(crate) const PROPS_METHODS: [Row<PropsFn>; 9] = [
    row("get", 1, 1, props_get_call),
    row("getAt", 1, 1, props_get_call),
    row("getProperty", 1, 2, props_get_property_call),
    row("containsKey", 1, 1, |s, m, a| {
        Ok(Value::Bool(s.property_object(key_arg(PROPS_CLASS, m, &a)?).is_some_and(|v| !v.is_null())))
    }),
    row("put", 2, 2, |s, m, a| props_put(s, m, a, true)),
    row("putAt", 2, 2, |s, m, a| props_put(s, m, a, false)),
    row("setProperty", 2, 2, |s, m, a| {
        // `setProperty(String, String)`: no other overload.
        if !matches!(a[1], Value::Str(_) | Value::Null) {
            let k = key_arg(PROPS_CLASS, m, &a)?;
            return Err(no_overload(PROPS_CLASS, m, &[Value::from(k), a[1].clone()]));
        }
        props_put(s, m, a, true)
    }),
    row("remove", 1, 1, props_remove_call),
    row("toString", 0, 0, |_, _, _| Ok(Value::from(describe_shared(PROPS).unwrap_or_default()))),
];

/// `props.<method>(args)` by [`PROPS_METHODS`].
pub(crate) fn props_call<S: Scope>(scope: &mut S, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match lookup(&PROPS_METHODS, method, args.len()) {
        Lookup::Found(f) => f(scope, method, args),
        Lookup::WrongCount | Lookup::Unknown => Err(Thrown::no_method(PROPS_CLASS, method)),
    }
}

fn props_get_call(scope: &mut dyn Scope, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    Ok(scope.property_object(key_arg(PROPS_CLASS, method, &args)?).unwrap_or_default())
}

fn props_get_property_call(scope: &mut dyn Scope, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let k = key_arg(PROPS_CLASS, method, &args)?;
    // A value that is not text reads as absent, as `Properties.getProperty` does.
    match scope.property_object(k) {
        Some(Value::Str(s)) => Ok(Value::Str(s)),
        _ => Ok(args.get(1).cloned().unwrap_or_default()),
    }
}

/// `put`, `setProperty` (returning the value before) and `putAt` (returning nothing).
fn props_put(scope: &mut dyn Scope, method: &str, mut args: Vec<Value>, returns_old: bool) -> Result<Value, Thrown> {
    let k = key_arg(PROPS_CLASS, method, &args)?.to_string();
    let v = args.pop().unwrap_or_default();
    if v.is_null() {
        // `Hashtable.put(k, null)`.
        return Err(Thrown::new("java.lang.NullPointerException", ""));
    }
    let before = scope.property_object(&k);
    scope.put_property_object(&k, v);
    Ok(if returns_old { before.unwrap_or_default() } else { Value::Null })
}

fn props_remove_call(scope: &mut dyn Scope, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let k = key_arg(PROPS_CLASS, method, &args)?;
    let before = scope.property_object(k);
    if before.is_some() {
        scope.put_property_object(k, Value::Null);
    }
    Ok(before.unwrap_or_default())
}

/// A method of `log`: the arguments, the lowest level written and
/// where lines go.
type LogFn = fn(Vec<Value>, Level, &mut dyn FnMut(Level, &str)) -> Result<Value, Thrown>;

/// `log.<level>(format, args...)` and `log.is<Level>Enabled()`, for each level as slf4j names
/// it and capitalised.
pub(crate) const LOG_METHODS: [Row<LogFn>; 20] = [
    row("trace", 1, ANY, |a, min, sink| log_at(Level::Trace, a, min, sink)),
    row("debug", 1, ANY, |a, min, sink| log_at(Level::Debug, a, min, sink)),
    row("info", 1, ANY, |a, min, sink| log_at(Level::Info, a, min, sink)),
    row("warn", 1, ANY, |a, min, sink| log_at(Level::Warn, a, min, sink)),
    row("error", 1, ANY, |a, min, sink| log_at(Level::Error, a, min, sink)),
    row("Trace", 1, ANY, |a, min, sink| log_at(Level::Trace, a, min, sink)),
    row("Debug", 1, ANY, |a, min, sink| log_at(Level::Debug, a, min, sink)),
    row("Info", 1, ANY, |a, min, sink| log_at(Level::Info, a, min, sink)),
    row("Warn", 1, ANY, |a, min, sink| log_at(Level::Warn, a, min, sink)),
    row("Error", 1, ANY, |a, min, sink| log_at(Level::Error, a, min, sink)),
    row("isTraceEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Trace >= min))),
    row("isDebugEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Debug >= min))),
    row("isInfoEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Info >= min))),
    row("isWarnEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Warn >= min))),
    row("isErrorEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Error >= min))),
    row("istraceEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Trace >= min))),
    row("isdebugEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Debug >= min))),
    row("isinfoEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Info >= min))),
    row("iswarnEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Warn >= min))),
    row("iserrorEnabled", 0, 0, |_, min, _| Ok(Value::Bool(Level::Error >= min))),
];

/// `log.<method>(args)` by [`LOG_METHODS`]: writes through `sink` the levels at `min` and
/// above.
pub(crate) fn log_call(
    method: &str,
    args: Vec<Value>,
    min: Level,
    sink: &mut dyn FnMut(Level, &str),
) -> Result<Value, Thrown> {
    match lookup(&LOG_METHODS, method, args.len()) {
        Lookup::Found(f) => f(args, min, sink),
        Lookup::WrongCount => Err(no_overload(LOG_CLASS, method, &args)),
        Lookup::Unknown => Err(Thrown::no_method(LOG_CLASS, method)),
    }
}

/// `log.<level>(format, args...)` with slf4j's `{}` placeholders (`\{}` is a literal `{}`). A
/// last argument left over by the placeholders that is an exception prints on its own line, as
/// slf4j prints a throwable.
fn log_at(level: Level, args: Vec<Value>, min: Level, sink: &mut dyn FnMut(Level, &str)) -> Result<Value, Thrown> {
    if level < min {
        return Ok(Value::Null);
    }
    let Some((format, rest)) = args.split_first() else { return Ok(Value::Null) };
    // `log.info(a, b, c)` in Groovy passes varargs; a list argument is `Object[]` too.
    let rest: Vec<Value> = match rest {
        [Value::List(l)] if l.kind == crate::script::ListKind::Array => lock(&l.items).clone(),
        r => r.to_vec(),
    };
    sink(level, &slf4j_format(&format.to_string(), &rest));
    Ok(Value::Null)
}

/// slf4j's `MessageFormatter`: each `{}` takes the next argument; `\{}` is a literal `{}`; a
/// placeholder without an argument stays `{}`.
pub(crate) fn slf4j_format(format: &str, args: &[Value]) -> String {
    let mut out = String::with_capacity(format.len());
    let mut next = args.iter();
    let mut rest = format;
    while let Some(i) = rest.find("{}") {
        let escaped = rest[..i].ends_with('\\') && !rest[..i].ends_with("\\\\");
        if escaped {
            out.push_str(&rest[..i - 1]);
            out.push_str("{}");
        } else {
            let lit = if rest[..i].ends_with("\\\\") { &rest[..i - 1] } else { &rest[..i] };
            out.push_str(lit);
            match next.next() {
                Some(a) => out.push_str(&a.to_string()),
                None => out.push_str("{}"),
            }
        }
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    out
}

/// A method of `OUT`: the arguments and where the text goes.
type OutFn = fn(&[Value], &mut dyn FnMut(&str));

/// `OUT.println(x)`, `OUT.print(x)`, `OUT.flush()`.
pub(crate) const OUT_METHODS: [Row<OutFn>; 3] = [
    row("println", 0, 1, |a, print| match a {
        [v] => print(&format!("{v}\n")),
        _ => print("\n"),
    }),
    row("print", 1, 1, |a, print| print(&a[0].to_string())),
    row("flush", 0, 0, |_, _| {}),
];

/// `OUT.<method>(args)` by [`OUT_METHODS`].
pub(crate) fn out_call(method: &str, args: Vec<Value>, print: &mut dyn FnMut(&str)) -> Result<Value, Thrown> {
    match lookup(&OUT_METHODS, method, args.len()) {
        Lookup::Found(f) => f(&args, print),
        Lookup::WrongCount | Lookup::Unknown => return Err(no_overload(OUT_CLASS, method, &args)),
    }
    Ok(Value::Null)
}

/// A method of `ctx`, on the user's scope.
type CtxFn = fn(&mut dyn Scope) -> Value;

/// The methods of `ctx` a template knows (none takes an argument): `getThreadNum()` (0-based,
/// as JMeter's), `getVariables()`, `getProperties()`; `getPreviousResult()`,
/// `getCurrentSampler()` and `getPreviousSampler()` are null where nothing has sampled (a
/// template's context).
pub(crate) const CTX_METHODS: [Row<CtxFn>; 7] = [
    row("getThreadNum", 0, 0, |s| Value::Int(s.thread_num().saturating_sub(1).min(i32::MAX as u64) as i32)),
    row("getVariables", 0, 0, |_| Value::Host(VARS)),
    row("getProperties", 0, 0, |_| Value::Host(PROPS)),
    row("getPreviousResult", 0, 0, |_| Value::Null),
    row("getCurrentSampler", 0, 0, |_| Value::Null),
    row("getPreviousSampler", 0, 0, |_| Value::Null),
    row("isSamplingStarted", 0, 0, |_| Value::Bool(true)),
];

/// `ctx.<method>()` by [`CTX_METHODS`]; `None` for another method: the element's host answers
/// it, or refuses it.
pub(crate) fn ctx_call<S: Scope>(scope: &mut S, method: &str, args: Vec<Value>) -> Option<Result<Value, Thrown>> {
    if !args.is_empty() {
        return Some(Err(no_overload(CTX_CLASS, method, &args)));
    }
    match lookup(&CTX_METHODS, method, 0) {
        Lookup::Found(f) => Some(Ok(f(scope))),
        Lookup::WrongCount | Lookup::Unknown => None,
    }
}

/// The variables a script sets by a literal name (`vars.put("token", ...)`,
/// `vars.putObject('list', ...)`, `vars["x"] = ...`): the plan's templates may read them.
pub(crate) fn assigned_variables(source: &str) -> Vec<String> {
    use std::sync::OnceLock;
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r#"\bvars\s*\.\s*(?:put|putObject)\s*\(\s*["']([^"'\\$]+)["']\s*,|\bvars\s*\[\s*["']([^"'\\$]+)["']\s*\]\s*=[^=]"#,
        )
        .expect("a valid regex")
    });
    let mut out: Vec<String> = Vec::new();
    for c in re.captures_iter(source) {
        let name = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// Whether the script names `ident` as a variable (outside strings and comments, not as a
/// member after `.`): how a binding's use is found before the script runs.
pub(crate) fn mentions(source: &str, ident: &str) -> bool {
    let b = source.as_bytes();
    let mut i = 0;
    let mut prev_dot = false;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            i = source[i..].find('\n').map_or(b.len(), |n| i + n);
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = source[i + 2..].find("*/").map_or(b.len(), |n| i + n + 4);
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            prev_dot = false;
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            if !prev_dot && &source[start..i] == ident {
                return true;
            }
            prev_dot = false;
        } else {
            if !c.is_ascii_whitespace() {
                prev_dot = c == b'.';
            }
            i += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::template::{LoadScope, Symbols};
    use std::collections::HashMap;

    /// A scope with named variables, objects and properties, as the engine's user state keeps.
    struct Mem {
        load: LoadScope,
        vars: HashMap<String, String>,
        objects: HashMap<String, Value>,
        props: HashMap<String, Value>,
        /// Whether `var_entries` lists the variables (the engine's users do).
        listable: bool,
    }

    fn mem() -> Mem {
        Mem {
            load: LoadScope::new(&Symbols::default()),
            vars: HashMap::new(),
            objects: HashMap::new(),
            props: HashMap::new(),
            listable: false,
        }
    }

    impl Scope for Mem {
        fn var(&self, id: crate::plan::template::VarId) -> &str {
            self.load.var(id)
        }
        fn set_var(&mut self, id: crate::plan::template::VarId, value: &str) {
            self.load.set_var(id, value)
        }
        fn count(&mut self, per_user: bool, slot: u32) -> u64 {
            self.load.count(per_user, slot)
        }
        fn thread_num(&self) -> u64 {
            3
        }
        fn rng(&mut self) -> &mut rand::rngs::SmallRng {
            self.load.rng()
        }
        fn var_named(&self, name: &str) -> Option<&str> {
            self.vars.get(name).map(String::as_str)
        }
        fn set_var_named(&mut self, name: &str, value: &str) {
            self.vars.insert(name.into(), value.into());
        }
        fn remove_var_named(&mut self, name: &str) -> Option<String> {
            self.vars.remove(name)
        }
        fn object(&self, name: &str) -> Option<Value> {
            self.objects.get(name).cloned()
        }
        fn put_object(&mut self, name: &str, value: Value) {
            if value.is_null() {
                self.objects.remove(name);
            } else {
                self.objects.insert(name.into(), value);
            }
        }
        fn property_object(&self, name: &str) -> Option<Value> {
            self.props.get(name).cloned()
        }
        fn put_property_object(&mut self, name: &str, value: Value) {
            if value.is_null() {
                self.props.remove(name);
            } else {
                self.props.insert(name.into(), value);
            }
        }
        fn var_entries(&self) -> Option<Vec<(String, Value)>> {
            self.listable.then(|| self.vars.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect())
        }
    }

    /// `log.info(vars.get("token"))`, `OUT.println(...)`: a secret variable's value never
    /// reaches the log or the terminal, wherever it sits in the text.
    #[test]
    fn secrets_are_masked_in_log_and_printed_text() {
        let mut m = Mem { listable: true, ..mem() };
        m.vars.insert("token".into(), "tok-SECRETVALUE".into());
        m.vars.insert("Authorization".into(), "Bearer abcdefgh".into());
        m.vars.insert("user".into(), "alice-the-user".into());
        let (mut lines, mut printed) = (Vec::new(), String::new());
        for (target, method, arg) in [
            (LOG, "info", "got tok-SECRETVALUE"),
            (LOG, "warn", "{\"password\": \"pw123456\"} and Bearer abcdefgh"),
            (OUT, "println", "x tok-SECRETVALUE y alice-the-user"),
        ] {
            call_shared(
                &mut m,
                target,
                method,
                vec![s(arg)],
                Lang::Groovy,
                &mut |_, t| lines.push(t.to_string()),
                &mut |t| printed.push_str(t),
            )
            .unwrap()
            .unwrap();
        }
        assert_eq!(lines, ["got ***", "{\"password\": \"***\"} and ***"]);
        assert_eq!(printed, "x *** y alice-the-user\n");
    }

    fn s(v: &str) -> Value {
        Value::from(v)
    }

    #[test]
    fn vars_get_put_remove_as_jmeter_variables() {
        let mut m = mem();
        assert!(vars_call(&mut m, "get", vec![s("a")], Lang::Groovy).unwrap().is_null());
        vars_call(&mut m, "put", vec![s("a"), s("1")], Lang::Groovy).unwrap();
        assert_eq!(vars_call(&mut m, "get", vec![s("a")], Lang::Groovy).unwrap().to_string(), "1");
        assert_eq!(vars_call(&mut m, "getAt", vec![s("a")], Lang::Groovy).unwrap().to_string(), "1");
        // `vars.put(k, null)` unsets.
        vars_call(&mut m, "put", vec![s("a"), Value::Null], Lang::Groovy).unwrap();
        assert!(vars_call(&mut m, "get", vec![s("a")], Lang::Groovy).unwrap().is_null());
        // Groovy has no `put(String, Integer)`; JavaScript converts the number.
        let e = vars_call(&mut m, "put", vec![s("n"), Value::Int(5)], Lang::Groovy).unwrap_err();
        assert!(e.is_no_method() && e.message.contains("(String, Integer)"), "{e}");
        vars_call(&mut m, "put", vec![s("n"), Value::Double(2.0)], Lang::JavaScript).unwrap();
        assert_eq!(m.vars["n"], "2");
        assert_eq!(vars_call(&mut m, "remove", vec![s("n")], Lang::Groovy).unwrap().to_string(), "2");
        assert!(!m.vars.contains_key("n"));
    }

    #[test]
    fn vars_objects_read_as_their_text() {
        let mut m = mem();
        let list = Value::list(vec![Value::Int(1), Value::Int(2)]);
        vars_call(&mut m, "putObject", vec![s("l"), list], Lang::Groovy).unwrap();
        assert_eq!(vars_call(&mut m, "get", vec![s("l")], Lang::Groovy).unwrap().to_string(), "[1, 2]");
        assert!(matches!(vars_call(&mut m, "getObject", vec![s("l")], Lang::Groovy).unwrap(), Value::List(_)));
        assert_eq!(m.vars["l"], "[1, 2]");
        // A later `put` replaces the object.
        vars_call(&mut m, "put", vec![s("l"), s("x")], Lang::Groovy).unwrap();
        assert_eq!(vars_call(&mut m, "getObject", vec![s("l")], Lang::Groovy).unwrap().to_string(), "x");
        vars_call(&mut m, "putObject", vec![s("n"), Value::Int(7)], Lang::Groovy).unwrap();
        assert!(matches!(vars_call(&mut m, "remove", vec![s("n")], Lang::Groovy).unwrap(), Value::Int(7)));
        assert!(vars_call(&mut m, "getObject", vec![s("n")], Lang::Groovy).unwrap().is_null());
        let e = vars_call(&mut m, "entrySet", vec![], Lang::Groovy).unwrap_err();
        assert!(e.message.contains("entrySet"), "{e}");
        assert!(vars_call(&mut m, "frobnicate", vec![], Lang::Groovy).unwrap_err().is_no_method());
    }

    /// `vars.entrySet()` gives `Map.Entry` objects: `getKey()`/`getValue()` as well as the
    /// `key`/`value` properties (the entries were maps, which had no `getKey()`).
    #[test]
    fn vars_entries_are_map_entries() {
        let mut m = mem();
        m.listable = true;
        m.vars.insert("a".into(), "1".into());
        let Value::List(l) = vars_call(&mut m, "entrySet", vec![], Lang::Groovy).unwrap() else { panic!() };
        let items = lock(&l.items).clone();
        assert_eq!(items.len(), 1);
        let Value::Object(e) = &items[0] else { panic!("{:?}", items[0]) };
        assert_eq!(e.class_name(), "java.util.Map$Entry");
        assert_eq!(items[0].to_string(), "a=1");
    }

    #[test]
    fn props_are_a_java_properties() {
        let mut m = mem();
        assert!(props_call(&mut m, "get", vec![s("p")]).unwrap().is_null());
        props_call(&mut m, "put", vec![s("p"), Value::Int(3)]).unwrap();
        assert!(matches!(props_call(&mut m, "get", vec![s("p")]).unwrap(), Value::Int(3)));
        // `getProperty` of a value that is not text is null, or the default.
        assert!(props_call(&mut m, "getProperty", vec![s("p")]).unwrap().is_null());
        assert_eq!(props_call(&mut m, "getProperty", vec![s("q"), s("d")]).unwrap().to_string(), "d");
        props_call(&mut m, "setProperty", vec![s("q"), s("v")]).unwrap();
        assert_eq!(props_call(&mut m, "getProperty", vec![s("q")]).unwrap().to_string(), "v");
        assert!(matches!(props_call(&mut m, "containsKey", vec![s("q")]).unwrap(), Value::Bool(true)));
        assert_eq!(props_call(&mut m, "remove", vec![s("q")]).unwrap().to_string(), "v");
        assert!(matches!(props_call(&mut m, "containsKey", vec![s("q")]).unwrap(), Value::Bool(false)));
        assert_eq!(
            props_call(&mut m, "put", vec![s("p"), Value::Null]).unwrap_err().class,
            "java.lang.NullPointerException"
        );
    }

    #[test]
    fn log_formats_placeholders_at_enabled_levels() {
        let mut lines = Vec::new();
        let mut sink = |l: Level, t: &str| lines.push(format!("{} {t}", l.name()));
        log_call("info", vec![s("a={} b={} c={}"), s("x"), Value::Int(2)], Level::Info, &mut sink).unwrap();
        log_call("debug", vec![s("hidden")], Level::Info, &mut sink).unwrap();
        log_call("warn", vec![s("lit \\{} {}"), s("y")], Level::Info, &mut sink).unwrap();
        assert!(matches!(log_call("isDebugEnabled", vec![], Level::Info, &mut sink).unwrap(), Value::Bool(false)));
        assert!(matches!(log_call("isErrorEnabled", vec![], Level::Info, &mut sink).unwrap(), Value::Bool(true)));
        assert_eq!(lines, ["INFO a=x b=2 c={}", "WARN lit {} y"]);
    }

    #[test]
    fn scripts_are_scanned_for_variables_and_bindings() {
        let src = "vars.put(\"token\", x); vars.putObject('list', l); vars['k'] = 1; vars.put(\"a_\" + i, y); vars[\"z\"] == 2";
        assert_eq!(assigned_variables(src), ["token", "list", "k"]);
        assert!(mentions("def c = prev.getResponseCode()", "prev"));
        assert!(!mentions("ctx.prev; \"prev\" // prev\n/* prev */ previous", "prev"));
        assert!(mentions("x = 'a\\'b'; prev", "prev"));
    }

    /// Every row of the shared objects' tables is reached through its object's dispatch and
    /// runs: a row the dispatch misses answers Groovy's "No signature of method".
    #[test]
    fn every_row_of_the_shared_objects_is_dispatched() {
        let answered = |class: &str, name: &str, r: &Result<Value, Thrown>| {
            let missing = format!("No signature of method: {class}.{name}() is applicable");
            assert!(!r.as_ref().is_err_and(|e| e.message == missing), "{class}.{name}: {r:?}");
        };
        for r in &VARS_METHODS {
            let mut m = mem();
            m.listable = true;
            let args = match r.name {
                "putAll" => vec![Value::map(IndexMap::new())],
                _ => [s("k"), s("v")][..r.min].to_vec(),
            };
            answered(VARS_CLASS, r.name, &vars_call(&mut m, r.name, args, Lang::Groovy));
        }
        for r in &PROPS_METHODS {
            answered(PROPS_CLASS, r.name, &props_call(&mut mem(), r.name, [s("k"), s("v")][..r.min].to_vec()));
        }
        for r in &LOG_METHODS {
            let mut lines = Vec::new();
            let got =
                log_call(r.name, [s("x")][..r.min].to_vec(), Level::Trace, &mut |l, t| lines.push((l, t.to_string())));
            answered(LOG_CLASS, r.name, &got);
            assert_eq!(lines.len(), r.min, "log.{} writes one line", r.name);
        }
        for r in &OUT_METHODS {
            answered(OUT_CLASS, r.name, &out_call(r.name, [s("x")][..r.min].to_vec(), &mut |_| {}));
        }
        for r in &CTX_METHODS {
            assert!(matches!(ctx_call(&mut mem(), r.name, vec![]), Some(Ok(_))), "ctx.{}", r.name);
        }
        assert!(vars_call(&mut mem(), "nothing", vec![], Lang::Groovy).unwrap_err().message.contains("nothing"));
    }

    #[test]
    fn out_and_ctx() {
        let mut printed = String::new();
        out_call("println", vec![Value::Int(4)], &mut |t| printed.push_str(t)).unwrap();
        out_call("print", vec![s("x")], &mut |t| printed.push_str(t)).unwrap();
        assert_eq!(printed, "4\nx");
        let mut m = mem();
        assert!(matches!(ctx_call(&mut m, "getThreadNum", vec![]), Some(Ok(Value::Int(2)))));
        assert!(matches!(ctx_call(&mut m, "getVariables", vec![]), Some(Ok(Value::Host(VARS)))));
        assert!(ctx_call(&mut m, "getThreadGroup", vec![]).is_none());
        assert_eq!(js_text(&Value::Double(2.5)), "2.5");
        assert_eq!(js_text(&Value::Double(-3.0)), "-3");
    }
}
