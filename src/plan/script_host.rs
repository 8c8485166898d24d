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
pub(crate) fn call_shared<S: Scope + ?Sized>(
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

/// `vars.<method>(args)`: `get`, `put`, `putObject`, `getObject`, `remove`, `putAll`,
/// `entrySet`, `getThreadName`, `getAt`/`putAt` (`vars["k"]`, `vars.k`).
pub(crate) fn vars_call<S: Scope + ?Sized>(
    scope: &mut S,
    method: &str,
    args: Vec<Value>,
    lang: Lang,
) -> Result<Value, Thrown> {
    let n = args.len();
    match (method, n) {
        ("get" | "getAt", 1) => {
            let k = key_arg(VARS_CLASS, method, &args)?;
            Ok(vars_get(scope, k).map(Value::from).unwrap_or_default())
        }
        ("getObject", 1) => {
            let k = key_arg(VARS_CLASS, method, &args)?;
            Ok(vars_get_object(scope, k).unwrap_or_default())
        }
        ("put", 2) => {
            let k = key_arg(VARS_CLASS, method, &args)?.to_string();
            match string_arg(&args[1], lang) {
                Ok(v) => {
                    vars_put(scope, &k, v.as_deref());
                    Ok(Value::Null)
                }
                Err(()) => Err(no_overload(VARS_CLASS, method, &args)),
            }
        }
        ("putObject" | "putAt" | "setProperty", 2) => {
            let k = key_arg(VARS_CLASS, method, &args)?.to_string();
            let mut args = args;
            vars_put_object(scope, &k, args.pop().unwrap_or_default());
            Ok(Value::Null)
        }
        ("remove", 1) => {
            let k = key_arg(VARS_CLASS, method, &args)?;
            let before = vars_get_object(scope, k);
            scope.remove_var_named(k);
            if scope.object(k).is_some() {
                scope.put_object(k, Value::Null);
            }
            Ok(before.unwrap_or_default())
        }
        ("putAll", 1) => {
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
        ("entrySet" | "getIterator", 0) => {
            let Some(entries) = scope.var_entries() else {
                return Err(Thrown::new(
                    "java.lang.UnsupportedOperationException",
                    "vars.entrySet() is not available here",
                ));
            };
            let map: IndexMap<Key, Value> = entries.into_iter().map(|(k, v)| (Key(Value::from(k)), v)).collect();
            let map = Value::map(map);
            // A map's entries: the interpreter's `entrySet()` of the map.
            Ok(Value::list(entry_list(&map)))
        }
        ("getThreadName", 0) => match scope.thread_name() {
            Some(name) => Ok(Value::from(name)),
            None => Err(Thrown::new(
                "java.lang.UnsupportedOperationException",
                "vars.getThreadName() is not available here",
            )),
        },
        ("toString", 0) => Ok(Value::from(describe_shared(VARS).unwrap_or_default())),
        _ => Err(Thrown::no_method(VARS_CLASS, method)),
    }
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

/// `props.<method>(args)`: `get`, `put`, `getProperty` (with a default), `setProperty`,
/// `containsKey`, `remove`, `getAt`/`putAt`.
pub(crate) fn props_call<S: Scope + ?Sized>(scope: &mut S, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match (method, args.len()) {
        ("get" | "getAt", 1) => {
            let k = key_arg(PROPS_CLASS, method, &args)?;
            Ok(scope.property_object(k).unwrap_or_default())
        }
        ("getProperty", 1 | 2) => {
            let k = key_arg(PROPS_CLASS, method, &args)?;
            // A value that is not text reads as absent, as `Properties.getProperty` does.
            match scope.property_object(k) {
                Some(Value::Str(s)) => Ok(Value::Str(s)),
                _ => Ok(args.get(1).cloned().unwrap_or_default()),
            }
        }
        ("containsKey", 1) => {
            let k = key_arg(PROPS_CLASS, method, &args)?;
            Ok(Value::Bool(scope.property_object(k).is_some_and(|v| !v.is_null())))
        }
        ("put" | "putAt" | "setProperty", 2) => {
            let k = key_arg(PROPS_CLASS, method, &args)?.to_string();
            let mut args = args;
            let v = args.pop().unwrap_or_default();
            if v.is_null() {
                // `Hashtable.put(k, null)`.
                return Err(Thrown::new("java.lang.NullPointerException", ""));
            }
            if method == "setProperty" && !matches!(v, Value::Str(_)) {
                return Err(no_overload(PROPS_CLASS, method, &[Value::from(k), v]));
            }
            let before = scope.property_object(&k);
            scope.put_property_object(&k, v);
            Ok(if method == "putAt" { Value::Null } else { before.unwrap_or_default() })
        }
        ("remove", 1) => {
            let k = key_arg(PROPS_CLASS, method, &args)?.to_string();
            let before = scope.property_object(&k);
            if before.is_some() {
                scope.put_property_object(&k, Value::Null);
            }
            Ok(before.unwrap_or_default())
        }
        ("toString", 0) => Ok(Value::from(describe_shared(PROPS).unwrap_or_default())),
        _ => Err(Thrown::no_method(PROPS_CLASS, method)),
    }
}

/// `log.<level>(format, args...)` with slf4j's `{}` placeholders (`\{}` is a literal `{}`),
/// and `log.isInfoEnabled()` ...: writes through `sink` the levels at `min` and above. A last
/// argument left over by the placeholders that is an exception prints on its own line, as
/// slf4j prints a throwable.
pub(crate) fn log_call(
    method: &str,
    args: Vec<Value>,
    min: Level,
    sink: &mut dyn FnMut(Level, &str),
) -> Result<Value, Thrown> {
    let level = |name: &str| match name {
        "trace" | "Trace" => Some(Level::Trace),
        "debug" | "Debug" => Some(Level::Debug),
        "info" | "Info" => Some(Level::Info),
        "warn" | "Warn" => Some(Level::Warn),
        "error" | "Error" => Some(Level::Error),
        _ => None,
    };
    if let Some(l) = method.strip_prefix("is").and_then(|m| m.strip_suffix("Enabled")).and_then(level) {
        return if args.is_empty() { Ok(Value::Bool(l >= min)) } else { Err(no_overload(LOG_CLASS, method, &args)) };
    }
    let Some(l) = level(method) else {
        return Err(Thrown::no_method(LOG_CLASS, method));
    };
    let Some((format, rest)) = args.split_first() else {
        return Err(no_overload(LOG_CLASS, method, &args));
    };
    if l < min {
        return Ok(Value::Null);
    }
    // `log.info(a, b, c)` in Groovy passes varargs; a list argument is `Object[]` too.
    let rest: Vec<Value> = match rest {
        [Value::List(l)] if l.kind == crate::script::ListKind::Array => lock(&l.items).clone(),
        r => r.to_vec(),
    };
    sink(l, &slf4j_format(&format.to_string(), &rest));
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

/// `OUT.println(x)`, `OUT.print(x)`, `OUT.printf(format, args...)` (with `%s`/`%d` as
/// `String.format` would need: only the text is supported here, so a format is printed with its
/// arguments' text substituted for `%s`, `%d` in order).
pub(crate) fn out_call(method: &str, args: Vec<Value>, print: &mut dyn FnMut(&str)) -> Result<Value, Thrown> {
    match (method, args.as_slice()) {
        ("println", []) => print("\n"),
        ("println", [v]) => print(&format!("{v}\n")),
        ("print", [v]) => print(&v.to_string()),
        ("flush", []) => {}
        _ => return Err(no_overload(OUT_CLASS, method, &args)),
    }
    Ok(Value::Null)
}

/// The methods of `ctx` a template knows: `getThreadNum()` (0-based, as JMeter's),
/// `getVariables()`, `getProperties()`; `getPreviousResult()`, `getCurrentSampler()` and
/// `getPreviousSampler()` are null where nothing has sampled (a template's context). `None`
/// for another method: the element's host answers it, or refuses it.
pub(crate) fn ctx_call<S: Scope + ?Sized>(
    scope: &mut S,
    method: &str,
    args: Vec<Value>,
) -> Option<Result<Value, Thrown>> {
    if !args.is_empty() {
        return Some(Err(no_overload(CTX_CLASS, method, &args)));
    }
    Some(Ok(match method {
        "getThreadNum" => Value::Int(scope.thread_num().saturating_sub(1).min(i32::MAX as u64) as i32),
        "getVariables" => Value::Host(VARS),
        "getProperties" => Value::Host(PROPS),
        "getPreviousResult" | "getCurrentSampler" | "getPreviousSampler" => Value::Null,
        "isSamplingStarted" => Value::Bool(true),
        _ => return None,
    }))
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
