//! `${...}` templates, compiled once when the plan is loaded into [`Template`]s: literal text,
//! per-user variables ([`VarId`]) and run-time functions (`__UUID`, `__time`, `__counter`,
//! `__threadNum`, `__Random`, `__RandomString`). Properties (`${__P(name,default)}`) and
//! environment variables (`${__env(NAME,default)}`) are fixed at load time and become literal
//! text. Rendering a template appends to the caller's buffer: it allocates at most its output.

use super::javatime::JavaDateFormat;
use rand::rngs::SmallRng;
use rand::Rng;
use serde::{Serialize, Serializer};
use std::collections::HashMap;
use std::fmt::Write as _;

/// A per-user variable: an index into a user's values, fixed at load time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct VarId(pub u32);

impl VarId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Every variable a plan names, with its initial value (from the plan's `variables`) and
/// whether something assigns it while running (a data file, an extractor, a `set` step).
#[derive(Debug, Clone, Default)]
pub struct VarTable {
    names: Vec<String>,
    index: HashMap<String, VarId>,
    initial: Vec<Option<String>>,
    assigned: Vec<bool>,
    /// The first element that used each variable, for the error when nothing defines it.
    used_at: Vec<Option<String>>,
}

impl VarTable {
    fn intern(&mut self, name: &str) -> VarId {
        if let Some(id) = self.index.get(name) {
            return *id;
        }
        let id = VarId(self.names.len() as u32);
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        self.initial.push(None);
        self.assigned.push(false);
        self.used_at.push(None);
        id
    }

    /// Gives a variable its initial value (a plan variable).
    pub fn define(&mut self, name: &str, value: String) -> VarId {
        let id = self.intern(name);
        self.initial[id.index()] = Some(value);
        id
    }

    /// Declares that something sets this variable while the test runs.
    pub fn assign(&mut self, name: &str) -> VarId {
        let id = self.intern(name);
        self.assigned[id.index()] = true;
        id
    }

    fn use_var(&mut self, name: &str, element: &str) -> VarId {
        let id = self.intern(name);
        let at = &mut self.used_at[id.index()];
        if at.is_none() {
            *at = Some(element.to_string());
        }
        id
    }

    pub fn get(&self, name: &str) -> Option<VarId> {
        self.index.get(name).copied()
    }

    pub fn name(&self, id: VarId) -> &str {
        &self.names[id.index()]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Whether the template reads a variable that something assigns while running.
    pub fn any_assigned(&self, t: &Template) -> bool {
        t.vars().iter().any(|id| self.is_assigned(*id))
    }

    pub fn is_assigned(&self, id: VarId) -> bool {
        self.assigned[id.index()]
    }

    pub fn initial(&self, id: VarId) -> Option<&str> {
        self.initial[id.index()].as_deref()
    }

    /// Each user's variables when it starts.
    pub fn initial_values(&self) -> Vec<String> {
        self.initial.iter().map(|v| v.clone().unwrap_or_default()).collect()
    }

    /// The first variable used but never defined nor assigned: `(element, message)`.
    pub fn undefined(&self) -> Option<(String, String)> {
        (0..self.names.len()).find(|&i| self.initial[i].is_none() && !self.assigned[i] && self.used_at[i].is_some()).map(|i| {
            let name = &self.names[i];
            let mut msg = format!("unknown variable `${{{name}}}`: no plan variable, data file column, extractor or `set` step defines it");
            let known = (0..self.names.len()).filter(|&j| self.initial[j].is_some() || self.assigned[j]);
            if let Some(s) = super::error::closest(name, known.map(|j| self.names[j].as_str())) {
                msg.push_str(&format!("; did you mean `${{{s}}}`?"));
            }
            (self.used_at[i].clone().unwrap_or_default(), msg)
        })
    }
}

/// What templates may refer to while a plan loads, and what they allocate (variables, counters).
#[derive(Debug, Default)]
pub struct Symbols {
    pub vars: VarTable,
    /// `-J name=value` properties.
    pub properties: HashMap<String, String>,
    /// Environment variables; `None` means "read the process environment".
    pub env: Option<HashMap<String, String>>,
    /// Counters shared by all users (`__counter(FALSE)`), one per occurrence, as JMeter.
    pub global_counters: u32,
    /// Counters each user keeps (`__counter(TRUE)`), one per occurrence.
    pub user_counters: u32,
    /// Every value `${__env(...)}` read: secrets whatever their name (see [`crate::redact`]).
    pub secrets: crate::redact::Secrets,
}

impl Symbols {
    fn env_var(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(map) => map.get(name).cloned(),
            None => std::env::var(name).ok(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Lit(String),
    Var(VarId),
    Func(Box<Func>),
}

#[derive(Debug, Clone, PartialEq)]
enum Num {
    Const(i64),
    Dyn(Template),
}

#[derive(Debug, Clone, PartialEq)]
enum FuncKind {
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
}

#[derive(Debug, Clone, PartialEq)]
struct Func {
    kind: FuncKind,
    /// JMeter's optional last argument: also store the result in this variable.
    store: Option<VarId>,
}

/// A compiled template. Serialises as its source text: a value that came from a property or
/// the environment (often a secret) never reaches the run directory that way; where the value
/// does end up (a folded URL in a results file), [`Symbols::secrets`] masks it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Template {
    src: String,
    segs: Vec<Seg>,
}

impl Serialize for Template {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.src)
    }
}

/// What rendering a template needs of whoever renders it: variables, counters, a number and
/// random numbers. The engine's per-user state implements it (plan owns no run-time state);
/// rendering is generic over it, so the engine's path has no indirection.
pub trait Scope {
    /// A variable's current value.
    fn var(&self, id: VarId) -> &str;
    /// Sets a variable (a function's result stored in it).
    fn set_var(&mut self, id: VarId, value: &str);
    /// Counts one more on a `__counter` (per user, or shared by all users) and returns the count.
    fn count(&mut self, per_user: bool, slot: u32) -> u64;
    /// The 1-based number of the user (`__threadNum`).
    fn thread_num(&self) -> u64;
    fn rng(&mut self) -> &mut SmallRng;
}

/// The scope of a template rendered while the plan loads: the variables' initial values, as
/// user 1 with counters of its own.
#[derive(Debug)]
pub struct LoadScope {
    values: Vec<String>,
    counters: Vec<u64>,
    shared: Vec<u64>,
    rng: SmallRng,
}

impl LoadScope {
    pub fn new(sym: &Symbols) -> LoadScope {
        use rand::SeedableRng;
        LoadScope {
            values: sym.vars.initial_values(),
            counters: vec![0; sym.user_counters as usize],
            shared: vec![0; sym.global_counters as usize],
            rng: SmallRng::from_os_rng(),
        }
    }
}

impl Scope for LoadScope {
    fn var(&self, id: VarId) -> &str {
        &self.values[id.index()]
    }

    fn set_var(&mut self, id: VarId, value: &str) {
        let v = &mut self.values[id.index()];
        v.clear();
        v.push_str(value);
    }

    fn count(&mut self, per_user: bool, slot: u32) -> u64 {
        let c = if per_user { &mut self.counters[slot as usize] } else { &mut self.shared[slot as usize] };
        *c += 1;
        *c
    }

    fn thread_num(&self) -> u64 {
        1
    }

    fn rng(&mut self) -> &mut SmallRng {
        &mut self.rng
    }
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

impl Template {
    /// A template that is only this text.
    pub fn literal(text: impl Into<String>) -> Template {
        let text = text.into();
        let segs = if text.is_empty() { vec![] } else { vec![Seg::Lit(text.clone())] };
        Template { src: text, segs }
    }

    pub fn source(&self) -> &str {
        &self.src
    }

    /// The text, when nothing in it changes while the test runs.
    pub fn as_const(&self) -> Option<&str> {
        match self.segs.as_slice() {
            [] => Some(""),
            [Seg::Lit(s)] => Some(s),
            _ => None,
        }
    }

    pub fn is_const(&self) -> bool {
        self.as_const().is_some()
    }

    /// Whether the text can change while the test runs, as far as `vars` knows now: it calls a
    /// run-time function, or reads a variable that something assigns or that has no value yet.
    pub fn is_dynamic(&self, vars: &VarTable) -> bool {
        self.segs.iter().any(|s| match s {
            Seg::Lit(_) => false,
            Seg::Var(id) => vars.is_assigned(*id) || vars.initial(*id).is_none(),
            Seg::Func(_) => true,
        })
    }

    /// Appends the current text to `out`.
    pub fn render<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) {
        for seg in &self.segs {
            match seg {
                Seg::Lit(s) => out.push_str(s),
                Seg::Var(id) => out.push_str(u.var(*id)),
                Seg::Func(f) => {
                    let from = out.len();
                    f.kind.call(u, out);
                    if let Some(v) = f.store {
                        u.set_var(v, &out[from..]);
                    }
                }
            }
        }
    }

    /// The current text in a new string.
    pub fn render_string<S: Scope + ?Sized>(&self, u: &mut S) -> String {
        if let Some(s) = self.as_const() {
            return s.to_string();
        }
        let mut out = String::new();
        self.render(u, &mut out);
        out
    }

    /// Replaces variables that nothing assigns while running by their initial value, so a
    /// template that only uses plan variables becomes constant text.
    pub fn fold(&mut self, vars: &VarTable) {
        let mut out: Vec<Seg> = Vec::with_capacity(self.segs.len());
        for seg in self.segs.drain(..) {
            let seg = match seg {
                Seg::Var(id) if !vars.is_assigned(id) => Seg::Lit(vars.initial(id).unwrap_or_default().to_string()),
                Seg::Func(mut f) => {
                    f.kind.fold(vars);
                    Seg::Func(f)
                }
                s => s,
            };
            match (out.last_mut(), seg) {
                (_, Seg::Lit(s)) if s.is_empty() => {}
                (Some(Seg::Lit(prev)), Seg::Lit(s)) => prev.push_str(&s),
                (_, s) => out.push(s),
            }
        }
        self.segs = out;
    }

    /// Every variable this template reads.
    pub fn vars(&self) -> Vec<VarId> {
        let mut out = Vec::new();
        for s in &self.segs {
            match s {
                Seg::Var(id) => out.push(*id),
                Seg::Func(f) => match &f.kind {
                    FuncKind::Random { min, max } => {
                        for n in [min, max] {
                            if let Num::Dyn(t) = n {
                                out.extend(t.vars());
                            }
                        }
                    }
                    FuncKind::RandomString { len, chars } => {
                        if let Num::Dyn(t) = len {
                            out.extend(t.vars());
                        }
                        out.extend(chars.vars());
                    }
                    _ => {}
                },
                Seg::Lit(_) => {}
            }
        }
        out
    }
}

impl FuncKind {
    fn call<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) {
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
            FuncKind::RandomString { len, chars } => {
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
            _ => {}
        }
    }
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

/// The most characters `__RandomString` makes (1 MiB of ASCII): a longer length given in the
/// plan is an error when it loads; one that comes from a variable at run time is capped to it.
pub const MAX_RANDOM_STRING: usize = 1 << 20;

/// The machine's UTC offset, read once (later reads can fail once threads run).
pub fn local_offset() -> time::UtcOffset {
    static OFFSET: std::sync::OnceLock<time::UtcOffset> = std::sync::OnceLock::new();
    *OFFSET.get_or_init(|| time::UtcOffset::current_local_offset().unwrap_or(time::UtcOffset::UTC))
}

/// Compiles `src`. `element` names where it is, for the error when a variable it uses is never
/// defined (checked once the whole plan is read, since an extractor may come later in the file).
pub fn compile(src: &str, sym: &mut Symbols, element: &str) -> Result<Template, String> {
    let mut segs = Vec::new();
    if !src.contains("${") {
        return Ok(Template::literal(src));
    }
    let mut lit = String::new();
    let mut rest = src;
    while let Some(pos) = rest.find("${") {
        if pos > 0 && rest.as_bytes()[pos - 1] == b'\\' {
            lit.push_str(&rest[..pos - 1]);
            lit.push_str("${");
            rest = &rest[pos + 2..];
            continue;
        }
        lit.push_str(&rest[..pos]);
        let body_start = pos + 2;
        let end = find_close(&rest[body_start..]).ok_or_else(|| format!("unterminated `${{` in {src:?}"))?;
        let inner = &rest[body_start..body_start + end];
        match reference(inner, sym, element)? {
            Seg::Lit(s) => lit.push_str(&s),
            seg => {
                if !lit.is_empty() {
                    segs.push(Seg::Lit(std::mem::take(&mut lit)));
                }
                segs.push(seg);
            }
        }
        rest = &rest[body_start + end + 1..];
    }
    lit.push_str(rest);
    if !lit.is_empty() {
        segs.push(Seg::Lit(lit));
    }
    Ok(Template { src: src.to_string(), segs })
}

/// Expands a value needed while loading (a duration, a count, a file name, a host): every
/// reference must be known now. Run-time functions are evaluated once.
pub fn expand(src: &str, sym: &mut Symbols) -> Result<String, String> {
    let mut t = compile(src, sym, "")?;
    for id in t.vars() {
        if sym.vars.initial(id).is_none() {
            let name = sym.vars.name(id).to_string();
            let mut msg = if sym.vars.is_assigned(id) {
                format!("`${{{name}}}` is set while the test runs, but this value is needed when the plan loads")
            } else {
                format!("unknown variable `${{{name}}}`")
            };
            if !sym.vars.is_assigned(id) {
                if let Some(s) = super::error::closest(&name, sym.vars.defined_names()) {
                    msg.push_str(&format!("; did you mean `${{{s}}}`?"));
                } else if sym.properties.contains_key(&name) {
                    msg.push_str(&format!("; `{name}` is a property: write `${{__P({name})}}`"));
                }
                sym.vars.forget_unused(id);
            }
            return Err(msg);
        }
    }
    // Load-time values use the variables' initial values, whatever the run assigns later.
    let mut frozen = sym.vars.clone();
    frozen.assigned.iter_mut().for_each(|a| *a = false);
    t.fold(&frozen);
    if let Some(s) = t.as_const() {
        return Ok(s.to_string());
    }
    let mut u = LoadScope::new(sym);
    Ok(t.render_string(&mut u))
}

impl VarTable {
    fn defined_names(&self) -> impl Iterator<Item = &str> {
        (0..self.names.len()).filter(|&i| self.initial[i].is_some()).map(|i| self.names[i].as_str())
    }

    /// Drops the "used at" mark of a name only a failed load-time expansion used, so it does not
    /// also surface as an undefined run-time variable.
    fn forget_unused(&mut self, id: VarId) {
        if self.used_at[id.index()].as_deref() == Some("") {
            self.used_at[id.index()] = None;
        }
    }
}

/// The index of the `}` that closes a reference, allowing nested `${...}` inside function
/// arguments (`${__P(port,${default_port})}`).
fn find_close(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                depth += 1;
                i += 1;
            }
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

fn reference(inner: &str, sym: &mut Symbols, element: &str) -> Result<Seg, String> {
    let inner = inner.trim();
    if let Some(call) = inner.strip_prefix("__") {
        // JMeter allows `${__UUID}` and `${__threadNum}` without parentheses.
        let (name, args_src) = match call.find('(') {
            Some(open) => {
                if !call.ends_with(')') {
                    return Err(format!("function `${{{inner}}}` is missing its closing `)`"));
                }
                (&call[..open], Some(&call[open + 1..call.len() - 1]))
            }
            None => (call, None),
        };
        let args: Vec<&str> = args_src.map(split_args).unwrap_or_default();
        return function(name, &args, sym, element).map_err(|m| format!("in `${{{inner}}}`: {m}"));
    }
    if inner.is_empty() || inner.contains(['(', ')', '{', '$', ' ']) {
        return Err(format!("`${{{inner}}}` is not a variable name"));
    }
    Ok(Seg::Var(sym.vars.use_var(inner, element)))
}

/// Splits function arguments on commas that are not inside a nested `${...}`; `\,` is a
/// literal comma (JMeter's rule).
fn split_args(s: &str) -> Vec<&str> {
    let mut args = Vec::new();
    let bytes = s.as_bytes();
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'$' if bytes.get(i + 1) == Some(&b'{') => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            b',' if depth == 0 => {
                args.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !s.is_empty() {
        args.push(&s[start..]);
    }
    args
}

const FUNCTIONS: [&str; 10] =
    ["P", "property", "env", "UUID", "time", "counter", "threadNum", "Random", "RandomString", "V"];

fn function(name: &str, raw: &[&str], sym: &mut Symbols, element: &str) -> Result<Seg, String> {
    let unescape = |a: &str| a.replace("\\,", ",");
    // Arguments fixed at load time (property names, defaults, formats).
    let fixed = |i: usize, sym: &mut Symbols| -> Result<Option<String>, String> {
        match raw.get(i) {
            None => Ok(None),
            Some(a) => {
                let v = expand(&unescape(a), sym)?;
                Ok(Some(v).filter(|v| !v.is_empty()))
            }
        }
    };
    let store = |i: usize, sym: &mut Symbols| -> Option<VarId> {
        raw.get(i).map(|a| a.trim()).filter(|a| !a.is_empty()).map(|a| sym.vars.assign(a))
    };
    let kind = match name {
        "P" | "property" => {
            let key = fixed(0, sym)?.ok_or("a property name is needed")?;
            let default = if name == "P" { fixed(1, sym)? } else { fixed(2, sym)? };
            let value = match sym.properties.get(key.trim()) {
                Some(v) => v.clone(),
                // JMeter's __P falls back to "1" when neither value nor default exists.
                None => default.unwrap_or_else(|| if name == "P" { "1".into() } else { String::new() }),
            };
            if name == "property" {
                // The stored copy is the same text for every user: a plan variable.
                if let Some(var) = raw.get(1).map(|a| a.trim()).filter(|a| !a.is_empty()) {
                    sym.vars.define(var, value.clone());
                }
            }
            return Ok(Seg::Lit(value));
        }
        "env" => {
            let key = fixed(0, sym)?.ok_or("an environment variable name is needed")?;
            return match sym.env_var(key.trim()) {
                Some(v) => {
                    sym.secrets.add(&v);
                    Ok(Seg::Lit(v))
                }
                None => fixed(1, sym)?
                    .map(Seg::Lit)
                    .ok_or_else(|| format!("environment variable `{}` is not set and there is no default", key.trim())),
            };
        }
        "V" => {
            // `${__V(name)}`: a variable whose name is computed; only fixed names are supported.
            let var = fixed(0, sym)?.ok_or("a variable name is needed")?;
            return Ok(Seg::Var(sym.vars.use_var(var.trim(), element)));
        }
        "UUID" => FuncKind::Uuid,
        "threadNum" => FuncKind::ThreadNum,
        "time" => {
            let fmt = fixed(0, sym)?;
            let kind = match fmt.as_deref().map(str::trim) {
                None => FuncKind::Time { format: None, divisor: 1 },
                Some(f) if f.starts_with('/') => {
                    let d = f[1..].parse::<u64>().ok().filter(|d| *d > 0).ok_or("`/N` needs a whole number above 0")?;
                    FuncKind::Time { format: None, divisor: d }
                }
                Some(f) => {
                    // JMeter's shorthand formats.
                    let pattern = match f {
                        "YMD" => "yyyyMMdd",
                        "HMS" => "HHmmss",
                        "YMDHMS" => "yyyyMMdd-HHmmss",
                        other => other,
                    };
                    FuncKind::Time { format: Some(JavaDateFormat::compile(pattern)?), divisor: 1 }
                }
            };
            let f = Func { kind, store: store(1, sym) };
            return Ok(Seg::Func(Box::new(f)));
        }
        "counter" => {
            let mode = fixed(0, sym)?.unwrap_or_default();
            let per_user = match mode.trim().to_ascii_uppercase().as_str() {
                "TRUE" | "" => true,
                "FALSE" => false,
                other => return Err(format!("the first argument is TRUE (per user) or FALSE (shared), not `{other}`")),
            };
            let slot = if per_user { &mut sym.user_counters } else { &mut sym.global_counters };
            *slot += 1;
            let kind = FuncKind::Counter { per_user, slot: *slot - 1 };
            return Ok(Seg::Func(Box::new(Func { kind, store: store(1, sym) })));
        }
        "Random" => {
            if raw.len() < 2 {
                return Err("`__Random(min,max)` needs two numbers".into());
            }
            let min = num(raw[0], sym, element)?;
            let max = num(raw[1], sym, element)?;
            FuncKind::Random { min, max }
        }
        "RandomString" => {
            let len = num(raw.first().copied().unwrap_or(""), sym, element)?;
            if let Num::Const(n) = len {
                if n > MAX_RANDOM_STRING as i64 {
                    return Err(format!(
                        "a length of {n} is above the limit of {MAX_RANDOM_STRING} characters (1 MiB) a generated string may have"
                    ));
                }
            }
            let chars = compile(&unescape(raw.get(1).copied().unwrap_or("")), sym, element)?;
            FuncKind::RandomString { len, chars }
        }
        other => {
            let mut msg = format!("unknown function `__{other}`");
            if let Some(s) = super::error::closest(other, FUNCTIONS) {
                msg.push_str(&format!("; did you mean `__{s}`?"));
            } else {
                msg.push_str(&format!("; known: {}", FUNCTIONS.map(|f| format!("__{f}")).join(", ")));
            }
            return Err(msg);
        }
    };
    let store_at = match kind {
        FuncKind::Random { .. } | FuncKind::RandomString { .. } => 2,
        _ => 0,
    };
    let store = if store_at > 0 { store(store_at, sym) } else { None };
    Ok(Seg::Func(Box::new(Func { kind, store })))
}

fn num(raw: &str, sym: &mut Symbols, element: &str) -> Result<Num, String> {
    let t = compile(raw.trim(), sym, element)?;
    match t.as_const() {
        Some(s) => s.trim().parse().map(Num::Const).map_err(|_| format!("`{s}` is not a whole number")),
        None => Ok(Num::Dyn(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols() -> Symbols {
        let mut s = Symbols { env: Some(HashMap::new()), ..Default::default() };
        s.vars.define("host", "127.0.0.1".into());
        s.vars.define("port", "8080".into());
        s.properties.insert("threads".into(), "50".into());
        s.env.as_mut().unwrap().insert("TOKEN_FILE".into(), "/tmp/t".into());
        s
    }

    fn user(sym: &Symbols) -> LoadScope {
        LoadScope::new(sym)
    }

    #[test]
    fn load_time_expansion_table() {
        let mut s = symbols();
        let cases = [
            ("plain", "plain"),
            ("http://${host}:${port}/", "http://127.0.0.1:8080/"),
            ("${__P(threads,10)}", "50"),
            ("${__P(missing,10)}", "10"),
            ("${__P(missing)}", "1"),
            ("${__P(missing,${port})}", "8080"),
            ("${__property(threads)}", "50"),
            ("${__env(TOKEN_FILE)}", "/tmp/t"),
            ("${__env(NOPE,x\\,y)}", "x,y"),
            ("\\${host}", "${host}"),
            ("${ host }", "127.0.0.1"),
        ];
        for (src, want) in cases {
            assert_eq!(expand(src, &mut s).unwrap(), want, "{src}");
        }
    }

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
    fn load_time_errors_name_the_reference() {
        let mut s = symbols();
        assert!(expand("${hots}", &mut s).unwrap_err().contains("did you mean `${host}`"));
        assert!(expand("${threads}", &mut s).unwrap_err().contains("__P(threads)"));
        assert!(expand("${__Q(x)}", &mut s).unwrap_err().contains("unknown function `__Q`"));
        assert!(expand("${__UUId()}", &mut s).unwrap_err().contains("did you mean `__UUID`"));
        assert!(expand("${host", &mut s).unwrap_err().contains("unterminated"));
        assert!(expand("${__env(NOPE)}", &mut s).unwrap_err().contains("NOPE"));
        s.vars.assign("token");
        assert!(expand("${token}", &mut s).unwrap_err().contains("needed when the plan loads"));
        // A failed load-time lookup is not reported a second time as a run-time one.
        assert!(s.vars.undefined().is_none(), "{:?}", s.vars.undefined());
    }

    #[test]
    fn run_time_variables_and_folding() {
        let mut s = symbols();
        let mut t = compile("/api/${host}/${id}?t=${token}", &mut s, "req").unwrap();
        assert_eq!(s.vars.undefined().map(|(el, _)| el), Some("req".to_string()));
        let id = s.vars.assign("id");
        let tok = s.vars.assign("token");
        assert!(s.vars.undefined().is_none());
        t.fold(&s.vars);
        assert!(!t.is_const());
        let mut u = user(&s);
        u.set_var(id, "do_1");
        u.set_var(tok, "abc");
        let mut out = String::from(">");
        t.render(&mut u, &mut out);
        assert_eq!(out, ">/api/127.0.0.1/do_1?t=abc");
        let mut c = compile("http://${host}:${port}", &mut s, "x").unwrap();
        c.fold(&s.vars);
        assert_eq!(c.as_const(), Some("http://127.0.0.1:8080"));
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
        assert!(compile("${__Random(1)}", &mut s, "f").unwrap_err().contains("two numbers"));
        // #11: a length of 3e9 passed `check`, then aborted the run allocating it.
        let e = compile("${__RandomString(3000000000)}", &mut s, "f").unwrap_err();
        assert!(e.contains("`${__RandomString(3000000000)}`") && e.contains("1048576"), "{e}");
        assert!(compile("${__RandomString(1048576)}", &mut s, "f").is_ok());
        assert!(compile("${__Random(a,2)}", &mut s, "f").unwrap_err().contains("`a` is not a whole number"));
        assert!(compile("${__counter(MAYBE)}", &mut s, "f").unwrap_err().contains("TRUE"));
        assert!(compile("${__time(qq)}", &mut s, "f").is_err());
        assert!(compile("${a b}", &mut s, "f").unwrap_err().contains("not a variable name"));
    }
}
