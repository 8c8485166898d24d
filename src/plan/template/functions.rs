//! The functions a template may call (JMeter's `${__name(args)}`): how each call is compiled
//! from its arguments, and what it appends when rendered. A call whose result cannot change
//! (properties, the environment, a digest of constant text) becomes literal text when the plan
//! loads; the others are compiled once into a [`Func`] whose arguments are templates.
//!
//! Here: what a compiled call does at run time, and the functions over variables, counters,
//! randomness and time; `table` holds the row of each function (its name, its arguments and
//! how a call compiles), `text` the functions of their arguments' text, `files` those that
//! read files, `dates` the java.time ones.

use super::compile::find_close;
use super::dates::DateFn;
use super::files::FileFn;
use super::script::ScriptFn;
use super::text::Pure;
use super::{local_offset, FifoCall, Scope, Template, VarId, VarTable, MAX_RANDOM_STRING};
use crate::plan::condition::Condition;
use crate::script::JavaDateFormat;
use rand::Rng;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Num {
    Const(i64),
    Dyn(Template),
}

/// Every variable of the plan by name (filled when the plan is folded), for the functions that
/// name a variable only at run time (`${__V(user_${n})}`). A name the plan never mentions has no
/// value: nothing can set it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Names(Arc<HashMap<String, VarId>>);

impl Names {
    pub(super) fn fill(&mut self, vars: &VarTable) {
        self.0 = Arc::new(vars.index.clone());
    }

    pub(super) fn id(&self, name: &str) -> Option<VarId> {
        self.0.get(name).copied()
    }

    /// The variable's value, `None` when it has none (JMeter's `vars.get` is null): not a
    /// variable of the plan, or one still reading as its own reference `${name}`.
    pub(super) fn get<'a, S: Scope + ?Sized>(&self, u: &'a S, name: &str) -> Option<&'a str> {
        let v = u.var(self.id(name)?);
        let unset = v.len() == name.len() + 3 && v.starts_with("${") && v.ends_with('}') && &v[2..v.len() - 1] == name;
        (!unset).then_some(v)
    }
}

/// The functions that look a variable up by a name computed at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ByName {
    /// `__V(name[,default])`: the variable's value, else the default (else the name).
    V,
    /// `__isVarDefined(name)`: `true` or `false`.
    IsVarDefined,
    /// `__evalVar(name)`: the variable's value with its `${name}` references replaced.
    EvalVar,
    /// `__eval(text)`: the text with its `${name}` references replaced.
    Eval,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum FuncKind {
    Uuid,
    /// No format: milliseconds since the epoch, divided by `divisor` (JMeter's `__time(/1000)`).
    Time {
        format: Option<JavaDateFormat>,
        divisor: u64,
    },
    Counter {
        per_user: bool,
        slot: u32,
    },
    ThreadNum,
    Random {
        min: Num,
        max: Num,
    },
    RandomString {
        len: Num,
        chars: Template,
    },
    /// A value fixed when the plan loads, called for its stored copy (`__machineName(host)`).
    Const(String),
    /// A function of its arguments' text.
    Pure {
        op: Pure,
        args: Vec<Template>,
    },
    ByName {
        op: ByName,
        args: Vec<Template>,
        names: Names,
    },
    /// `__split(text,prefix[,separators])`: sets `prefix`, `prefix_n`, `prefix_1`, ...
    Split {
        text: Template,
        prefix: String,
        separators: Template,
        names: Names,
    },
    /// `__RandomFromMultipleVars(a|b)`: one value among those variables (and their `_1`.. `_N`
    /// matches when `name_matchNr` says so).
    RandomFromVars {
        list: Template,
        names: Names,
    },
    /// `__log(text,...)` returns its text, `__logn(text,...)` nothing; neither writes a log.
    Log {
        text: Template,
        silent: bool,
    },
    /// `__jexl3`/`__jexl2` of a comparison: `true` or `false`.
    Condition(Box<Condition<Template>>),
    /// `__groovy`, `__BeanShell`, `__javaScript`, `__jexl3` run by the interpreter.
    Script(Box<ScriptFn>),
    File(Box<FileFn>),
    Date(Box<DateFn>),
    /// The jp@gc FIFO functions on the run's shared queues.
    Fifo(Box<FifoFn>),
    /// `__P`/`__property` in a plan whose properties change while it runs.
    Property(Box<PropertyFn>),
    /// `__setProperty(name,value[,return old])`, with the `-J` properties when the plan loaded.
    SetProperty(Box<([Template; 3], Properties)>),
}

/// A call that runs a compiled script (the If Controller's JavaScript condition).
pub(super) fn script_func(f: ScriptFn) -> Func {
    Func { kind: FuncKind::Script(Box::new(f)), store: None }
}

/// The `-J` properties as the plan loaded them.
type Properties = Arc<HashMap<String, String>>;

/// `__P(name[,default])` or `__property(name[,var[,default]])` read when called: the value a
/// `__setProperty` gave, else the `-J` value, else the default (`__P`: `1`; `__property`: the
/// name), trimmed as JMeter's `getPropDefault`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PropertyFn {
    pub(super) name: Template,
    pub(super) default: Option<Template>,
    /// `__property` (its default is the name), not `__P` (its default is `1`).
    pub(super) named_default: bool,
    pub(super) loaded: Properties,
}

/// `__fifoPut(queue,value)`, `__fifoPop(queue[,var])`, `__fifoGet(queue[,var])`,
/// `__fifoSize(queue[,var])`: the plugin's functions.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FifoFn {
    pub(super) op: FifoOp,
    pub(super) queue: Template,
    /// `__fifoPut`'s value.
    pub(super) value: Template,
    /// `__fifoPop`'s variable: it takes the value, or is unset when none came (the plugin
    /// stores null).
    pub(super) pop_into: Option<(VarId, String)>,
    /// The properties `kg.apc.jmeter.functions.FifoTimeout` (seconds) and `...FifoCapacity`.
    pub(super) timeout_s: Option<u64>,
    pub(super) capacity: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FifoOp {
    Put,
    Pop,
    Get,
    Size,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Func {
    pub(super) kind: FuncKind,
    /// JMeter's optional last argument: also store the result in this variable.
    pub(super) store: Option<VarId>,
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

impl Func {
    /// Appends the call's result to `out`, and stores it in `store` if any. A call that fails
    /// as JMeter's would throw (`__intSum` of text that is not a number) appends and stores
    /// nothing.
    pub(super) fn call<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) {
        let from = out.len();
        if self.kind.call(u, out) {
            if let Some(v) = self.store {
                u.set_var(v, &out[from..]);
            }
        }
    }

    /// Folds the arguments' constant variables; returns the call's text when it can no longer
    /// change (and stores nothing).
    pub(super) fn fold(&mut self, vars: &VarTable) -> Option<String> {
        self.kind.fold(vars);
        if self.store.is_some() {
            return None;
        }
        self.kind.constant(vars)
    }

    /// Every variable the call's arguments read, appended to `out`.
    pub(super) fn vars(&self, out: &mut Vec<VarId>) {
        for t in self.kind.templates() {
            out.extend(t.vars());
        }
        match &self.kind {
            FuncKind::Random { min, max } => {
                for n in [min, max] {
                    if let Num::Dyn(t) = n {
                        out.extend(t.vars());
                    }
                }
            }
            FuncKind::RandomString { len: Num::Dyn(t), .. } => out.extend(t.vars()),
            _ => {}
        }
    }
}

impl FuncKind {
    /// `false` when the call failed (see [`Func::call`]).
    fn call<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) -> bool {
        match self {
            FuncKind::Uuid => {
                let id = uuid::Builder::from_random_bytes(u.rng().random()).into_uuid();
                let mut buf = uuid::Uuid::encode_buffer();
                out.push_str(id.hyphenated().encode_lower(&mut buf));
            }
            FuncKind::Time { format: None, divisor } => {
                let ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as u64);
                let _ = write!(out, "{}", ms / divisor.max(&1));
            }
            FuncKind::Time { format: Some(f), .. } => {
                f.format(time::OffsetDateTime::now_utc().to_offset(local_offset()), out);
            }
            FuncKind::Counter { per_user, slot } => {
                let n = u.count(*per_user, *slot);
                let _ = write!(out, "{n}");
            }
            FuncKind::ThreadNum => {
                let _ = write!(out, "{}", u.thread_num());
            }
            FuncKind::Random { min, max } => {
                let (a, b) = (min.value(u), max.value(u));
                let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                let _ = write!(out, "{}", u.rng().random_range(lo..=hi));
            }
            FuncKind::RandomString { len, chars } => random_string(len, chars, u, out),
            FuncKind::Const(s) => out.push_str(s),
            FuncKind::Pure { op, args } => {
                let values = render_all(args, u);
                let refs: Vec<&str> = values.iter().map(String::as_str).collect();
                return op.apply(&refs, out);
            }
            FuncKind::ByName { op, args, names } => by_name(op, args, names, u, out),
            FuncKind::Split { text, prefix, separators, names } => split(text, prefix, separators, names, u, out),
            FuncKind::RandomFromVars { list, names } => random_from_vars(list, names, u, out),
            FuncKind::Log { text, silent } => {
                let from = out.len();
                text.render(u, out);
                if *silent {
                    out.truncate(from);
                }
            }
            FuncKind::Condition(c) => {
                let yes = c.eval(&mut |t| t.render_string(u));
                out.push_str(if yes { "true" } else { "false" });
            }
            FuncKind::File(f) => return f.call(u, out),
            FuncKind::Date(f) => return f.call(u, out),
            FuncKind::Script(f) => return f.call(u, out),
            FuncKind::Property(p) => property(p, u, out),
            FuncKind::SetProperty(a) => set_property(a, u, out),
            FuncKind::Fifo(f) => fifo(f, u, out),
        }
        true
    }

    /// The argument templates (but `__Random`'s and `__RandomString`'s numbers).
    fn templates(&self) -> Vec<&Template> {
        match self {
            FuncKind::RandomString { chars, .. } => vec![chars],
            FuncKind::Pure { args, .. } | FuncKind::ByName { args, .. } => args.iter().collect(),
            FuncKind::Split { text, separators, .. } => vec![text, separators],
            FuncKind::RandomFromVars { list, .. } => vec![list],
            FuncKind::Log { text, .. } => vec![text],
            FuncKind::Condition(c) => c.operands(),
            FuncKind::File(f) => f.templates(),
            FuncKind::Date(f) => f.templates(),
            FuncKind::Script(f) => f.templates(),
            FuncKind::Fifo(f) => vec![&f.queue, &f.value],
            FuncKind::Property(p) => std::iter::once(&p.name).chain(p.default.as_ref()).collect(),
            FuncKind::SetProperty(a) => a.0.iter().collect(),
            _ => Vec::new(),
        }
    }

    fn fold(&mut self, vars: &VarTable) {
        match self {
            FuncKind::Random { min, max } => {
                min.fold(vars);
                max.fold(vars);
            }
            FuncKind::RandomString { len, chars } => {
                len.fold(vars);
                chars.fold(vars);
            }
            FuncKind::Pure { args, .. } => args.iter_mut().for_each(|t| t.fold(vars)),
            FuncKind::ByName { args, names, .. } => {
                args.iter_mut().for_each(|t| t.fold(vars));
                names.fill(vars);
            }
            FuncKind::Split { text, separators, names, .. } => {
                text.fold(vars);
                separators.fold(vars);
                names.fill(vars);
            }
            FuncKind::RandomFromVars { list, names } => {
                list.fold(vars);
                names.fill(vars);
            }
            FuncKind::Log { text, .. } => text.fold(vars),
            FuncKind::Condition(c) => c.operands_mut().into_iter().for_each(|t| t.fold(vars)),
            FuncKind::File(f) => f.fold(vars),
            FuncKind::Date(f) => f.fold(vars),
            FuncKind::Script(f) => f.fold(vars),
            FuncKind::Fifo(f) => {
                f.queue.fold(vars);
                f.value.fold(vars);
            }
            FuncKind::Property(p) => {
                p.name.fold(vars);
                if let Some(d) = &mut p.default {
                    d.fold(vars);
                }
            }
            FuncKind::SetProperty(a) => a.0.iter_mut().for_each(|t| t.fold(vars)),
            _ => {}
        }
    }

    /// The text of a call that can no longer change, once folded.
    pub(super) fn constant(&self, vars: &VarTable) -> Option<String> {
        match self {
            FuncKind::Const(s) => Some(s.clone()),
            FuncKind::Pure { op, args } => {
                let values: Vec<&str> = args.iter().map(Template::as_const).collect::<Option<_>>()?;
                let mut out = String::new();
                op.apply(&values, &mut out).then_some(out)
            }
            FuncKind::ByName { op: ByName::V, args, .. } => {
                let values: Vec<&str> = args.iter().map(Template::as_const).collect::<Option<_>>()?;
                let name = values[0];
                let default = values.get(1).copied().unwrap_or(name);
                match vars.get(name) {
                    Some(id) if vars.is_assigned(id) => None,
                    Some(id) => Some(vars.initial(id).unwrap_or(default).to_string()),
                    None => Some(default.to_string()),
                }
            }
            FuncKind::Log { text, silent: false } => text.as_const().map(str::to_string),
            FuncKind::Log { text, silent: true } => text.as_const().map(|_| String::new()),
            FuncKind::File(f) => f.constant(),
            _ => None,
        }
    }
}

/// `__RandomString`: `len` characters drawn from `chars` (letters and digits when empty).
fn random_string<S: Scope + ?Sized>(len: &Num, chars: &Template, u: &mut S, out: &mut String) {
    // A length known only now (from a variable) is capped, never allocated whole.
    let n = len.value(u).clamp(0, MAX_RANDOM_STRING as i64) as usize;
    let set: Vec<char> = match chars.as_const() {
        Some("") => ALNUM.chars().collect(),
        Some(s) => s.chars().collect(),
        None => {
            let s = chars.render_string(u);
            if s.is_empty() {
                ALNUM.chars().collect()
            } else {
                s.chars().collect()
            }
        }
    };
    for _ in 0..n {
        out.push(set[u.rng().random_range(0..set.len())]);
    }
}

/// `__V`, `__isVarDefined`, `__evalVar`, `__eval` of a name or text rendered now.
fn by_name<S: Scope + ?Sized>(op: &ByName, args: &[Template], names: &Names, u: &mut S, out: &mut String) {
    let values = render_all(args, u);
    let name = values[0].as_str();
    match op {
        ByName::V => {
            let default = values.get(1).map_or(name, String::as_str);
            out.push_str(names.get(u, name).unwrap_or(default));
        }
        ByName::IsVarDefined => out.push_str(if names.get(u, name).is_some() { "true" } else { "false" }),
        ByName::EvalVar => {
            let value = names.get(u, name).unwrap_or("").to_string();
            expand_names(&value, names, u, out);
        }
        ByName::Eval => expand_names(name, names, u, out),
    }
}

/// `__split`: sets `prefix`, `prefix_n`, `prefix_1`, ... and returns the text.
fn split<S: Scope + ?Sized>(
    text: &Template,
    prefix: &str,
    separators: &Template,
    names: &Names,
    u: &mut S,
    out: &mut String,
) {
    let text = text.render_string(u);
    let mut seps = separators.render_string(u);
    if seps.is_empty() {
        seps.push(',');
    }
    let parts = jorphan_split(&text, &seps, "?");
    let mut set = |name: &str, value: &str| {
        if let Some(id) = names.id(name) {
            u.set_var(id, value);
        }
    };
    set(prefix, &text);
    set(&format!("{prefix}_n"), &parts.len().to_string());
    for (i, p) in parts.iter().enumerate() {
        set(&format!("{prefix}_{}", i + 1), p);
    }
    // The next one is removed: it reads as an unset variable again.
    let next = format!("{prefix}_{}", parts.len() + 1);
    set(&next, &format!("${{{next}}}"));
    out.push_str(&text);
}

/// `__RandomFromMultipleVars`: one value among the variables named.
fn random_from_vars<S: Scope + ?Sized>(list: &Template, names: &Names, u: &mut S, out: &mut String) {
    let list = list.render_string(u);
    let mut values: Vec<String> = Vec::new();
    for name in list.trim().split('|').filter(|n| !n.is_empty()) {
        let matches = names.get(u, &format!("{name}_matchNr")).and_then(|n| n.parse::<u32>().ok());
        match matches {
            Some(n) if n > 0 => {
                for i in 1..=n {
                    // A match JMeter does not have is null, appended as "null".
                    values.push(names.get(u, &format!("{name}_{i}")).unwrap_or("null").to_string());
                }
            }
            _ => {
                if let Some(v) = names.get(u, name).filter(|v| !v.is_empty()) {
                    values.push(v.to_string());
                }
            }
        }
    }
    if !values.is_empty() {
        let i = u.rng().random_range(0..values.len());
        out.push_str(&values[i]);
    }
}

/// `__P`/`__property` read when called.
fn property<S: Scope + ?Sized>(p: &PropertyFn, u: &mut S, out: &mut String) {
    let name = p.name.render_string(u);
    let value = match u.property(&name).or_else(|| p.loaded.get(&name).cloned()) {
        Some(v) => v,
        None => match &p.default {
            Some(d) => d.render_string(u),
            None if p.named_default => name.clone(),
            None => "1".into(),
        },
    };
    out.push_str(value.trim());
}

/// `__setProperty`: returns the value before only when the third argument is `true`.
fn set_property<S: Scope + ?Sized>(a: &([Template; 3], Properties), u: &mut S, out: &mut String) {
    let ([name, value, old], loaded) = a;
    let (name, value) = (name.render_string(u), value.render_string(u));
    let previous = u.set_property(&name, &value).or_else(|| loaded.get(&name).cloned());
    if old.render_string(u).eq_ignore_ascii_case("true") {
        // No value before: Java's null, appended as "null".
        out.push_str(previous.as_deref().unwrap_or("null"));
    }
}

/// The jp@gc FIFO functions on the run's shared queues.
fn fifo<S: Scope + ?Sized>(f: &FifoFn, u: &mut S, out: &mut String) {
    let queue = f.queue.render_string(u);
    let value = f.value.render_string(u);
    let call = match f.op {
        FifoOp::Put => FifoCall::Put { queue: &queue, value: &value, capacity: f.capacity },
        FifoOp::Pop => FifoCall::Pop { queue: &queue, timeout_s: f.timeout_s, capacity: f.capacity },
        FifoOp::Get => FifoCall::Get(&queue),
        FifoOp::Size => FifoCall::Size(&queue),
    };
    let got = u.fifo(call);
    if let Some((var, name)) = &f.pop_into {
        u.set_var(*var, got.as_deref().unwrap_or(&format!("${{{name}}}")));
    }
    // A pop that got nothing returns null, which JMeter appends as "null".
    out.push_str(got.as_deref().unwrap_or("null"));
}

fn render_all<S: Scope + ?Sized>(args: &[Template], u: &mut S) -> Vec<String> {
    args.iter().map(|a| a.render_string(u)).collect()
}

/// Replaces the `${name}` references in `text` by the variables' values (JMeter's `__eval` of
/// text only known at run time); a reference to no variable, or a function call, stays as it is.
fn expand_names<S: Scope + ?Sized>(text: &str, names: &Names, u: &S, out: &mut String) {
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let body = &rest[at + 2..];
        let Some(end) = find_close(body) else { break };
        match names.get(u, body[..end].trim()) {
            Some(v) => out.push_str(v),
            None => out.push_str(&rest[at..at + 2 + end + 1]),
        }
        rest = &body[end + 1..];
    }
    out.push_str(rest);
}

/// JOrphanUtils.split(text, delimiters, default): each character of `delims` separates; an
/// empty field between two separators (or after a trailing one) is `default`; a leading
/// separator makes none.
pub(super) fn jorphan_split(text: &str, delims: &str, default: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut last_was_delim = false;
    let mut field = String::new();
    let mut in_field = false;
    for c in text.chars() {
        if delims.contains(c) {
            if in_field {
                parts.push(std::mem::take(&mut field));
                in_field = false;
            } else if last_was_delim {
                parts.push(default.to_string());
            }
            last_was_delim = true;
        } else {
            field.push(c);
            in_field = true;
            last_was_delim = false;
        }
    }
    if in_field {
        parts.push(field);
    } else if last_was_delim {
        parts.push(default.to_string());
    }
    parts
}

impl Num {
    fn value<S: Scope + ?Sized>(&self, u: &mut S) -> i64 {
        match self {
            Num::Const(n) => *n,
            // A value that is not a number at run time counts as 0, as JMeter's functions do.
            Num::Dyn(t) => t.render_string(u).trim().parse().unwrap_or(0),
        }
    }

    fn fold(&mut self, vars: &VarTable) {
        if let Num::Dyn(t) = self {
            t.fold(vars);
            if let Some(n) = t.as_const().and_then(|s| s.trim().parse().ok()) {
                *self = Num::Const(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::template::compile;
    use crate::plan::template::expand;
    use crate::plan::template::tests::{symbols, user};
    use crate::plan::template::Scope;

    #[test]
    fn environment_values_are_remembered_as_secrets() {
        let mut s = symbols();
        s.env.as_mut().unwrap().insert("ANY_NAME".into(), "s3cr3t-from-env".into());
        assert_eq!(expand("/x?q=${__env(ANY_NAME)}", &mut s).unwrap(), "/x?q=s3cr3t-from-env");
        assert_eq!(s.secrets.scrub("/x?q=s3cr3t-from-env"), "/x?q=***");
        // A default is the plan's own text, not a value from the environment.
        expand("${__env(NOPE,plain-default)}", &mut s).unwrap();
        assert_eq!(s.secrets.scrub("plain-default"), "plain-default");
    }

    #[test]
    fn random_with_variable_bounds() {
        let mut s = symbols();
        let max = s.vars.assign("max");
        let t = compile("${__Random(1,${max},r)}", &mut s, "f").unwrap();
        let mut u = user(&s);
        u.set_var(max, "3");
        for _ in 0..50 {
            let v: i64 = t.render_string(&mut u).parse().unwrap();
            assert!((1..=3).contains(&v));
            assert_eq!(u.var(s.vars.get("r").unwrap()), v.to_string());
        }
    }

    #[test]
    fn the_sampler_name_with_a_variable_is_rendered_each_time() {
        let mut s = symbols();
        let n = s.vars.assign("n");
        s.sampler = Some("Get ${n}".into());
        let t = compile("/p?from=${__samplerName()}", &mut s, "f").unwrap();
        let mut u = user(&s);
        u.set_var(n, "1");
        assert_eq!(t.render_string(&mut u), "/p?from=Get 1");
        u.set_var(n, "2");
        assert_eq!(t.render_string(&mut u), "/p?from=Get 2");
    }

    /// #11: a length known only at run time is capped at [`MAX_RANDOM_STRING`], never allocated.
    #[test]
    fn a_random_string_length_from_a_variable_is_capped() {
        let mut s = symbols();
        let n = s.vars.assign("n");
        let t = compile("${__RandomString(${n},x)}", &mut s, "f").unwrap();
        let mut u = user(&s);
        for (given, len) in [("3000000000", MAX_RANDOM_STRING), ("99999999999999999999", 0), ("-4", 0), ("5", 5)] {
            u.set_var(n, given);
            assert_eq!(t.render_string(&mut u).len(), len, "{given}");
        }
    }

    #[test]
    fn bad_function_arguments() {
        let mut s = symbols();
        assert!(compile("${__Random(1)}", &mut s, "f").unwrap_err().to_string().contains("two numbers"));
        // #11: a length of 3e9 passed `check`, then aborted the run allocating it.
        let e = compile("${__RandomString(3000000000)}", &mut s, "f").unwrap_err().to_string();
        assert!(e.contains("`${__RandomString(3000000000)}`") && e.contains("1048576"), "{e}");
        assert!(compile("${__RandomString(1048576)}", &mut s, "f").is_ok());
        assert!(compile("${__Random(a,2)}", &mut s, "f")
            .unwrap_err()
            .to_string()
            .contains("`a` is not a whole number"));
        assert!(compile("${__counter(MAYBE)}", &mut s, "f").unwrap_err().to_string().contains("TRUE"));
        assert!(compile("${__time(nn)}", &mut s, "f").is_err());
        assert!(compile("${a b}", &mut s, "f").unwrap_err().to_string().contains("not a variable name"));
    }

    /// Compiles `src` in a plan whose variables are `host`, `port` (constant) and `id`, `list`
    /// (set while running), folds it as the plan does, and renders it for one user.
    fn render(src: &str, set: &[(&str, &str)]) -> String {
        let mut s = symbols();
        for (name, _) in set {
            s.vars.assign(name);
        }
        let mut t = compile(src, &mut s, "f").unwrap_or_else(|e| panic!("{src}: {e}"));
        t.fold(&s.vars);
        let mut u = user(&s);
        for (name, value) in set {
            u.set_var(s.vars.get(name).unwrap(), value);
        }
        t.render_string(&mut u)
    }

    fn error(src: &str) -> String {
        compile(src, &mut symbols(), "f").unwrap_err().to_string()
    }

    #[test]
    fn sums_store_in_their_last_argument_unless_it_is_a_number() {
        let mut s = symbols();
        let id = s.vars.assign("callID");
        let t = compile("${__intSum(${callID},1,callID)}-${callID}", &mut s, "f").unwrap();
        let mut u = user(&s);
        u.set_var(id, "41");
        assert_eq!(t.render_string(&mut u), "42-42");
        assert_eq!(t.render_string(&mut u), "43-43");
        // Text that is not a number: JMeter's function throws; nothing is sent nor stored.
        u.set_var(id, "x");
        assert_eq!(t.render_string(&mut u), "-x");
        assert_eq!(render("${__intSum(1,2,3)}", &[]), "6");
        assert_eq!(render("${__longSum(1,2, 3 )}", &[]), "6", "the last argument is trimmed");
        assert_eq!(render("${__longSum(4000000000,1,s)}${s}", &[]), "40000000014000000001");
        // Constant arguments fold into text when the plan loads.
        assert!(compile("${__intSum(1,2)}", &mut symbols(), "f").unwrap().is_const());
    }

    #[test]
    fn argument_counts_are_jmeters() {
        assert_eq!(
            error("${__intSum(1)}"),
            "in `${__intSum(1)}`: __intSum called with wrong number of parameters. Actual: 1. Expected at least: 2."
        );
        assert!(error("${__urlencode(a,b)}")
            .ends_with("__urlencode called with wrong number of parameters. Actual: 2. Expected: 1."));
        assert!(error("${__digest(MD5)}").ends_with("Actual: 1. Expected: >= 2 and <= 5"));
        assert!(error("${__TestPlanName(x)}").contains("Expected: 0."));
        assert!(error("${__CSVRead(f)}").contains("Expected: 2."));
    }

    #[test]
    fn text_functions_over_variables() {
        let set = [("id", "a b&é")];
        assert_eq!(render("${__urlencode(${id})}", &set), "a+b%26%C3%A9");
        assert_eq!(render("${__urldecode(a+b%26)}", &[]), "a b&");
        assert_eq!(render("${__escapeHtml(${id})}", &set), "a b&amp;&eacute;");
        assert_eq!(render("${__unescapeHtml(&lt;&#65;)}", &[]), "<A");
        assert_eq!(render("${__escapeXml(<'>)}", &[]), "&lt;&apos;&gt;");
        assert_eq!(render("${__char(72,105)}", &[]), "Hi");
        assert_eq!(render("${__changeCase(${id},UPPER,c)}/${c}", &set), "A B&É/A B&É");
        assert_eq!(render("${__digest(MD5,abc)}", &[]), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(render("${__digest(SHA-256,a,bc,true,h)}", &[]).len(), 64);
        assert!(error("${__digest(SHA-224,abc)}").contains("not supported"));
        assert_eq!(render("${__digest(MD5,${id},,false,h)}=${h}", &set).len(), 65);
        assert_eq!(render("${__log(hello ${host})}|${__logn(x)}", &[]), "hello 127.0.0.1|");
    }

    #[test]
    fn variables_by_name() {
        let set = [("id", "7"), ("list", "x")];
        assert_eq!(render("${__V(host)}", &[]), "127.0.0.1");
        assert_eq!(render("${__V(nope)}", &[]), "nope", "an unknown name is its own default");
        assert_eq!(render("${__V(nope,dflt)}", &[]), "dflt");
        // A name computed at run time.
        let mut s = symbols();
        let n = s.vars.assign("n");
        s.vars.define("user_1", "alice".into());
        s.vars.define("user_2", "bob".into());
        let mut t = compile("${__V(user_${n})}", &mut s, "f").unwrap();
        t.fold(&s.vars);
        let mut u = user(&s);
        u.set_var(n, "2");
        assert_eq!(t.render_string(&mut u), "bob");
        u.set_var(n, "3");
        assert_eq!(t.render_string(&mut u), "user_3");
        assert_eq!(render("${__isVarDefined(host)},${__isVarDefined(nope)}", &set), "true,false");
        assert_eq!(
            render("${__eval(${list})}", &[("list", "at ${host}:${port} ${nope}")]),
            "at 127.0.0.1:8080 ${nope}"
        );
        assert_eq!(render("${__evalVar(list)}", &[("list", "h=${host}")]), "h=127.0.0.1");
        assert_eq!(render("${__eval(${host})}", &[]), "127.0.0.1");
    }

    #[test]
    fn eval_of_text_that_evaluates_itself_is_an_error() {
        let mut s = symbols();
        s.properties.insert("x".into(), "${__eval(${__P(x)})}".into());
        let e = compile("${__eval(${__P(x)})}", &mut s, "f").unwrap_err();
        assert!(e.to_string().contains("never ends"), "{e}");
        // Text that evaluates in a few steps still does.
        s.properties.insert("y".into(), "${__eval(${__P(z)})}".into());
        s.properties.insert("z".into(), "done".into());
        assert_eq!(expand("${__eval(${__P(y)})}", &mut s).unwrap(), "done");
    }

    #[test]
    fn split_sets_numbered_variables() {
        let mut s = symbols();
        let line = s.vars.assign("line");
        // `p_1`.. are named by the plan after the split: still set at run time.
        let mut t = compile("${__split(${line},p,|)}:${p_n}:${p_1}:${p_2}:${p_3}:${p_4}", &mut s, "f").unwrap();
        t.fold(&s.vars);
        let mut u = user(&s);
        u.set_var(line, "a||b");
        assert_eq!(t.render_string(&mut u), "a||b:3:a:?:b:${p_4}");
        u.set_var(line, "c");
        assert_eq!(t.render_string(&mut u), "c:1:c:${p_2}:b:${p_4}", "only the next one is removed");
        assert_eq!(jorphan_split(",a,,b,", ",", "?"), ["a", "?", "b", "?"]);
        assert!(jorphan_split("", ",", "?").is_empty());
    }

    #[test]
    fn random_from_multiple_vars() {
        let mut s = symbols();
        for (name, _) in [("a_matchNr", ""), ("a_1", ""), ("a_2", ""), ("b", "")] {
            s.vars.assign(name);
        }
        let mut t = compile("${__RandomFromMultipleVars(a|b|none,out)}", &mut s, "f").unwrap();
        t.fold(&s.vars);
        let mut u = user(&s);
        for (name, v) in [("a_matchNr", "2"), ("a_1", "x"), ("a_2", "y"), ("b", "z")] {
            u.set_var(s.vars.get(name).unwrap(), v);
        }
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let v = t.render_string(&mut u);
            assert_eq!(u.var(s.vars.get("out").unwrap()), v);
            seen.insert(v);
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), ["x", "y", "z"]);
    }

    #[test]
    fn jexl_comparisons() {
        assert_eq!(render("${__jexl3(${id} == 3,)}", &[("id", "3")]), "true");
        assert_eq!(render("${__jexl3(\"${id}\" != \"x\" && ${id} > 2,r)}${r}", &[("id", "3")]), "truetrue");
        assert_eq!(render("${__jexl2(${id} < 3)}", &[("id", "3")]), "false");
        // Beyond comparisons, the interpreter: a script it cannot read is a load error at
        // line:column (the stand-in refused every non-comparison).
        assert!(error("${__jexl3(1 +)}").contains("`__jexl3` cannot run its jexl script: line 1, column"));
    }

    #[test]
    fn names_known_when_the_plan_loads() {
        let mut s = symbols();
        s.base_dir = Some("/plans/p".into());
        s.script_name = Some("p.jmx".into());
        s.thread_group = Some("Users".into());
        s.sampler = Some("login".into());
        let e = "import org.apache.jmeter.services.FileServer; FileServer.getFileServer().getBaseDir();";
        assert_eq!(expand(&format!("${{__BeanShell({e})}}/users.csv"), &mut s).unwrap(), "/plans/p/users.csv");
        assert_eq!(
            expand("${__TestPlanName}|${__threadGroupName}|${__samplerName()}", &mut s).unwrap(),
            "p.jmx|Users|login"
        );
        assert!(!expand("${__machineName()}", &mut s).unwrap().is_empty());
        assert!(expand("${__machineIP}", &mut s).unwrap().parse::<std::net::IpAddr>().is_ok());
        assert_eq!(expand("${__isPropDefined(threads)}${__isPropDefined(x)}", &mut s).unwrap(), "truefalse");
        // A function's script has no previous sample here (the stand-in refused every script).
        assert!(error("${__BeanShell(SampleResult.getResponseCode())}").contains("reads `SampleResult`"));
        assert!(error("${__threadGroupName}").contains("outside a thread group"));
        assert!(error("${__samplerName}").contains("outside a sampler"));
    }

    #[test]
    fn unknown_and_unsupported_functions_are_named() {
        assert!(
            error("${__javaScript(1 +)}").contains("`__javaScript` cannot run its javascript script: line 1, column")
        );
        assert!(error("${__intsum(1,2)}").contains("did you mean `__intSum`?"));
        assert_eq!(error("${__nothing_like_it(1)}"), "in `${__nothing_like_it(1)}`: unknown function `__nothing_like_it` (docs/jmx.md lists the functions stampede runs)");
    }

    /// JMeter 5's loop index `${__jm__<controller name>__idx}` is a variable (its name may hold
    /// spaces), not an unknown function.
    #[test]
    fn loop_index_references_are_variables() {
        let mut s = symbols();
        let t = compile("i=${__jm__Loop Controller__idx}", &mut s, "f").unwrap();
        let id = s.vars.get("__jm__Loop Controller__idx").expect("a variable");
        assert_eq!(t.vars(), vec![id]);
        assert!(error("${__jm__Loop__idx(1)}").contains("unknown function `__jm__Loop__idx`"));
    }

    #[test]
    fn file_functions_read_from_the_plan_directory() {
        let dir = std::env::temp_dir().join(format!("stampede-fn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("body.txt"), "{\"a\":1}\n").unwrap();
        std::fs::write(dir.join("lines.txt"), "one\ntwo\r\nthree").unwrap();
        std::fs::write(dir.join("rows.csv"), "a,1\nb,2,x\n\nignored,9\n").unwrap();
        let mut s = symbols();
        s.base_dir = Some(dir.clone());
        assert_eq!(expand("${__FileToString(body.txt)}", &mut s).unwrap(), "{\"a\":1}\n");
        assert_eq!(expand("${__FileToString(missing.txt)}", &mut s).unwrap(), "**ERR**");
        let f = s.vars.assign("f");
        let mut each = compile("${__FileToString(${f},,text)}", &mut s, "x").unwrap();
        let mut lines = compile("${__StringFromFile(lines.txt)}", &mut s, "x").unwrap();
        let mut csv = compile(
            "${__CSVRead(rows.csv,0)}${__CSVRead(rows.csv,1)}${__CSVRead(rows.csv,2)}${__CSVRead(rows.csv,next)}",
            &mut s,
            "x",
        )
        .unwrap();
        for t in [&mut each, &mut lines, &mut csv] {
            t.fold(&s.vars);
        }
        let mut u = user(&s);
        u.set_var(f, "body.txt");
        assert_eq!(each.render_string(&mut u), "{\"a\":1}\n");
        assert_eq!(u.var(s.vars.get("text").unwrap()), "{\"a\":1}\n");
        let got: Vec<String> = (0..4).map(|_| lines.render_string(&mut u)).collect();
        assert_eq!(got, ["one", "two", "three", "one"]);
        assert_eq!(u.var(s.vars.get("StringFromFile_").unwrap()), "one", "the default variable");
        let got: Vec<String> = (0..3).map(|_| csv.render_string(&mut u)).collect();
        assert_eq!(got, ["a1", "b2x", "a1"], "rows up to the first blank line, from the first again");
        s.vars.define("dir", dir.to_string_lossy().into_owned());
        assert_eq!(expand("${__FileToString(${dir}/body.txt)}", &mut s).unwrap(), "{\"a\":1}\n");
        assert!(error("${__FileToString(a,UTF-16)}").contains("encoding"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A user that also keeps variables by name (a run's user does; the load-time scope does not).
    struct NamedScope(super::super::LoadScope, std::collections::HashMap<String, String>);

    impl Scope for NamedScope {
        fn var(&self, id: VarId) -> &str {
            self.0.var(id)
        }
        fn set_var(&mut self, id: VarId, value: &str) {
            self.0.set_var(id, value)
        }
        fn count(&mut self, per_user: bool, slot: u32) -> u64 {
            self.0.count(per_user, slot)
        }
        fn thread_num(&self) -> u64 {
            self.0.thread_num()
        }
        fn rng(&mut self) -> &mut rand::rngs::SmallRng {
            self.0.rng()
        }
        fn var_named(&self, name: &str) -> Option<&str> {
            self.1.get(name).map(String::as_str)
        }
        fn set_var_named(&mut self, name: &str, value: &str) {
            self.1.insert(name.to_string(), value.to_string());
        }
    }

    /// `__StringFromFile` and `__CSVRead` whose file is named at run time, as JMeter 5.6.3 runs
    /// them (bench/jmeter/plans/runtime-files.jmx): the name is read when the function runs.
    #[test]
    fn file_functions_named_at_run_time_read_the_file_when_called() {
        let dir = std::env::temp_dir().join(format!("stampede-fn-rt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.txt"), "a1\na2\n").unwrap();
        std::fs::write(dir.join("b.txt"), "b1\n").unwrap();
        std::fs::write(dir.join("rows.csv"), "r1,x\nr2,y\nr3,z\n").unwrap();
        let mut s = symbols();
        s.base_dir = Some(dir.clone());
        let f = s.vars.assign("f");
        let mut early = compile("${__StringFromFile(${f})}", &mut s, "x").unwrap();
        let mut late = compile("${__StringFromFile(${f})}", &mut s, "x").unwrap();
        let mut csv = compile("${__CSVRead(${f},0)}${__CSVRead(${f},1)}${__CSVRead(${f},next)}", &mut s, "x").unwrap();
        let mut constant = compile("${__CSVRead(rows.csv,0)}${__CSVRead(rows.csv,next)}", &mut s, "x").unwrap();
        for t in [&mut early, &mut late, &mut csv, &mut constant] {
            t.fold(&s.vars);
        }
        let mut u = NamedScope(user(&s), Default::default());
        let mut other = NamedScope(user(&s), Default::default());
        // Called first while `f` names no file: `**ERR**` from then on, the file never
        // opened again (StringFromFile opens at its first call only).
        assert_eq!(early.render_string(&mut u), "**ERR**");
        u.set_var(f, "a.txt");
        assert_eq!(early.render_string(&mut u), "**ERR**");
        // Named at its first call; at the end of the file named again: `b.txt` now.
        assert_eq!(late.render_string(&mut u), "a1");
        u.set_var(f, "b.txt");
        assert_eq!(late.render_string(&mut u), "a2");
        assert_eq!(late.render_string(&mut u), "b1");
        // One reader for every user of the call (JMeter shares the function's instance).
        other.set_var(f, "b.txt");
        assert_eq!(late.render_string(&mut other), "b1");
        // `__CSVRead`: rows shared by every call of the name, the constant one's too; each user
        // keeps its row.
        u.set_var(f, "rows.csv");
        other.set_var(f, "rows.csv");
        assert_eq!(csv.render_string(&mut u), "r1x");
        assert_eq!(constant.render_string(&mut other), "r2");
        assert_eq!(csv.render_string(&mut other), "r3z");
        assert_eq!(csv.render_string(&mut u), "r1x", "from the first row again");
        // A file that cannot be read is empty, and tried again at the next call.
        u.set_var(f, "later.csv");
        assert_eq!(csv.render_string(&mut u), "");
        std::fs::write(dir.join("later.csv"), "l1,m\n").unwrap();
        assert_eq!(csv.render_string(&mut u), "l1m");
        // Never read outside the plan's directory.
        std::fs::write(dir.with_extension("outside"), "secret,s\n").unwrap();
        let outside = format!("../{}", dir.with_extension("outside").file_name().unwrap().to_string_lossy());
        u.set_var(f, &outside);
        assert_eq!(csv.render_string(&mut u), "");
        let mut fresh = compile("${__StringFromFile(${f})}", &mut s, "x").unwrap();
        fresh.fold(&s.vars);
        assert_eq!(fresh.render_string(&mut u), "**ERR**");
        std::fs::remove_file(dir.with_extension("outside")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn time_formats_are_java_time() {
        let mut s = symbols();
        s.properties.insert("time.USER1".into(), "yyyy".into());
        let year = time::OffsetDateTime::now_utc().to_offset(local_offset()).year().to_string();
        // `u` is the year and `S` a fraction in java.time (SimpleDateFormat: day of week, millis).
        let t = compile("${__time(uuuu)}|${__time(USER1)}|${__time(S)}|${__time('u')}", &mut s, "f").unwrap();
        let got = t.render_string(&mut user(&s));
        let parts: Vec<&str> = got.split('|').collect();
        assert_eq!(parts[0], year);
        assert_eq!(parts[1], year);
        assert_eq!(parts[2].len(), 1, "{got}");
        assert_eq!(parts[3], "u");
        assert!(compile("${__time(aa)}", &mut s, "f").unwrap_err().to_string().contains("at most 1"));
    }

    #[test]
    fn dates_shift_convert_and_draw() {
        assert_eq!(render("${__timeShift(yyyy-MM-dd,2024-02-28,P1D,,)}", &[]), "2024-02-29");
        assert_eq!(
            render("${__timeShift(dd/MM/yyyy HH:mm,${id},PT-90M,en_GB,s)}|${s}", &[("id", "01/03/2024 10:00")]),
            "01/03/2024 08:30|01/03/2024 08:30"
        );
        assert_eq!(render("${__timeShift(,1700000000000,PT1S,)}", &[]), "1700000001000");
        assert_eq!(render("${__timeShift(yyyy,2024,P1X,)}", &[]), "2024", "a bad duration shifts nothing");
        assert_eq!(render("${__timeShift(yyyy-MM,2020-07,,)}", &[]), "2020-07");
        assert_eq!(render("${__dateTimeConvert(1700049600000,,dd/MM/yyyy,)}", &[]), "15/11/2023");
        assert_eq!(
            render("${__dateTimeConvert(2024-02-29 13:04,yyyy-MM-dd HH:mm,dd.MM.yyyy h:mm a,v)}|${v}", &[]),
            "29.02.2024 1:04 PM|29.02.2024 1:04 PM"
        );
        assert_eq!(render("${__dateTimeConvert(2024-02-29,yyyy-MM-dd,HH:mm,)}", &[]), "", "no time to write");
        assert_eq!(render("${__dateTimeConvert(29/02/2024,dd/MM/yyyy,yyyyMMdd)}", &[]), "20240229");
        for _ in 0..30 {
            let d = render("${__RandomDate(yyyy-MM-dd,2024-01-30,2024-02-02,,d)}", &[]);
            assert!(["2024-01-30", "2024-01-31", "2024-02-01"].contains(&d.as_str()), "{d}");
        }
        assert_eq!(render("${__RandomDate(,2024-01-30,2024-01-30,)}", &[]), "", "an empty range");
        assert!(error("${__timeShift(yyyy[MM],,,)}").contains("optional sections"));
        assert!(error("${__RandomDate(yyyy,2020,2021,fr_FR)}").contains("English"));
        assert!(error("${__dateTimeConvert(1,${id},yyyy)}").contains("known when the plan loads"));
    }
}
