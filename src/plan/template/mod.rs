//! `${...}` templates, compiled once when the plan is loaded into [`Template`]s: literal text,
//! per-user variables ([`VarId`]) and run-time functions (JMeter's `__UUID`, `__time`,
//! `__counter`, `__intSum`, `__CSVRead`, ...: see `functions`). Properties
//! (`${__P(name,default)}`), environment variables (`${__env(NAME,default)}`) and any call whose
//! arguments are constant are fixed at load time and become literal text. Rendering a template
//! appends to the caller's buffer.
//!
//! Here: the variables, symbols, scopes and rendering; `compile` turns `${...}` text into
//! segments; `functions` holds the JMeter functions, compiled and called.

mod compile;
mod dates;
mod entities;
mod files;
pub(crate) use files::off_the_worker;
mod functions;
mod script;
mod table;
mod text;

pub(crate) use compile::{compile, expand};
use functions::Func;
use rand::rngs::SmallRng;
pub(crate) use script::{is_plain_comparison, js_condition};
use serde::{Serialize, Serializer};
use std::collections::HashMap;
#[cfg(test)]
pub(crate) use table::FUNCTION_NAMES;

/// Why a template cannot be compiled or expanded; the message names the reference.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum TemplateError {
    #[error("unterminated `${{` in {0:?}")]
    Unterminated(String),
    /// `${__f(...` without its `)`: the reference's text.
    #[error("function call `${{{0}` is not closed by `)` then `}}` (JMeter refuses it too: \"Expected }} after ... function call\")")]
    UnclosedCall(String),
    #[error("`${{{0}}}` is not a variable name")]
    NotAVariableName(String),
    /// A variable with no value while the plan loads (the message names it, with a suggestion).
    #[error("{0}")]
    NotKnownAtLoad(String),
    /// A function call that failed: the call's text and why.
    #[error("in `${{{call}}}`: {error}")]
    InFunction { call: String, error: Box<TemplateError> },
    /// An unknown function, with the closest known name or the list of them.
    #[error("{0}")]
    UnknownFunction(String),
    /// A function's argument that cannot be used (the message says which and why).
    #[error("{0}")]
    Argument(String),
    /// A function's script that is not a script in its language: JMeter's engine fails on it
    /// too (each time the function runs), unlike the other errors, which are stampede's limits.
    #[error("{0}")]
    ScriptSyntax(String),
    #[error(transparent)]
    DateFormat(#[from] crate::script::PatternError),
}

impl TemplateError {
    /// Whether JMeter fails here as well: a function's script with a syntax error.
    pub(crate) fn is_script_syntax(&self) -> bool {
        match self {
            TemplateError::ScriptSyntax(_) => true,
            TemplateError::InFunction { error, .. } => error.is_script_syntax(),
            _ => false,
        }
    }
}

/// A per-user variable: an index into a user's values, fixed at load time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct VarId(pub u32);

impl VarId {
    /// The index into a user's values.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Every variable a plan names, with its initial value (from the plan's `variables`) and
/// whether something assigns it while running (a data file, an extractor, a `set` step).
#[derive(Debug, Clone, Default)]
pub(crate) struct VarTable {
    names: Vec<String>,
    index: HashMap<String, VarId>,
    initial: Vec<Option<String>>,
    assigned: Vec<bool>,
    /// Reads as its own reference `${name}` until set, as an unset JMeter variable renders.
    unset_as_reference: Vec<bool>,
    /// The first element that used each variable, for the error when nothing defines it.
    used_at: Vec<Option<String>>,
    /// Prefixes whose numbered variables something sets while running (`__split`): `p_1`,
    /// `p_2`, ... and `p_n` are assigned as soon as they are named.
    prefixes: Vec<String>,
    /// Variables that cost a user nothing until set (the 64 `name_N` of an extractor with
    /// match number -1): unless a template reads one, `""` stands for unset there.
    quiet: Vec<bool>,
    /// JMeter's semantics for every variable: one not set yet (or removed) is unset, distinct
    /// from `""`: `${name}` renders as its own reference and `vars.get` is null. A YAML plan
    /// leaves it off, and a variable without a value there reads `""`.
    unset_distinct: bool,
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
        self.unset_as_reference.push(false);
        self.quiet.push(false);
        self.used_at.push(None);
        if self.prefixes.iter().any(|p| numbered(p, name)) {
            self.assigned[id.index()] = true;
        }
        id
    }

    /// Declares that something sets `prefix`, `prefix_n` and `prefix_1`, `prefix_2`, ... while
    /// the test runs, however many there are (JMeter's `__split`).
    pub(crate) fn assign_prefix(&mut self, prefix: &str) {
        self.assign(prefix);
        self.assign(&format!("{prefix}_n"));
        for i in 0..self.names.len() {
            if numbered(prefix, &self.names[i]) {
                self.assigned[i] = true;
            }
        }
        self.prefixes.push(prefix.to_string());
    }

    /// Gives a variable its initial value (a plan variable).
    pub(crate) fn define(&mut self, name: &str, value: String) -> VarId {
        let id = self.intern(name);
        self.initial[id.index()] = Some(value);
        id
    }

    /// Declares that something sets this variable while the test runs.
    pub(crate) fn assign(&mut self, name: &str) -> VarId {
        let id = self.intern(name);
        self.assigned[id.index()] = true;
        id
    }

    /// A variable without an initial value reads `${name}` until it is set (JMeter leaves the
    /// reference to an unset variable as text), instead of the empty string.
    pub(crate) fn unset_as_reference(&mut self, id: VarId) {
        self.unset_as_reference[id.index()] = true;
    }

    /// Makes unset a state of every variable, distinct from `""`, as in JMeter (see
    /// [`VarTable::unset_distinct`]): until something sets it, a variable reads `${name}`, and
    /// removing one (an extractor's left-over match, `vars.remove`) makes it read so again.
    pub(crate) fn set_unset_distinct(&mut self) {
        self.unset_distinct = true;
    }

    /// Whether unset is a state of its own, distinct from `""` (a JMX plan).
    pub(crate) fn unset_distinct(&self) -> bool {
        self.unset_distinct
    }

    /// Marks a variable that most plans never read (an extractor's `name_N`): where no
    /// template reads it, it starts `""`, which then stands for unset, so that a user does not
    /// hold its reference text (64 of them per extractor with match number -1).
    pub(crate) fn quiet(&mut self, id: VarId) {
        self.quiet[id.index()] = true;
    }

    /// Whether the variable reads as its own reference `${name}` while unset (else `""` is
    /// unset).
    pub(crate) fn unset_reads_as_reference(&self, id: VarId) -> bool {
        let i = id.index();
        self.unset_as_reference[i] || (self.unset_distinct && !(self.quiet[i] && self.used_at[i].is_none()))
    }

    fn use_var(&mut self, name: &str, element: &str) -> VarId {
        let id = self.intern(name);
        let at = &mut self.used_at[id.index()];
        if at.is_none() {
            *at = Some(element.to_string());
        }
        id
    }

    pub(crate) fn get(&self, name: &str) -> Option<VarId> {
        self.index.get(name).copied()
    }

    pub(crate) fn name(&self, id: VarId) -> &str {
        &self.names[id.index()]
    }

    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    pub(crate) fn is_assigned(&self, id: VarId) -> bool {
        self.assigned[id.index()]
    }

    pub(crate) fn initial(&self, id: VarId) -> Option<&str> {
        self.initial[id.index()].as_deref()
    }

    /// Each user's variables when it starts.
    pub(crate) fn initial_values(&self) -> Vec<String> {
        let value = |i: usize| match &self.initial[i] {
            Some(v) => v.clone(),
            None if self.unset_reads_as_reference(VarId(i as u32)) => format!("${{{}}}", self.names[i]),
            None => String::new(),
        };
        (0..self.names.len()).map(value).collect()
    }

    /// The first variable used but never defined nor assigned: `(element, message)`.
    /// The name of the first variable used that nothing defines (see [`Self::undefined`]).
    pub(crate) fn undefined_name(&self) -> Option<&str> {
        self.first_undefined().map(|i| self.names[i].as_str())
    }

    fn first_undefined(&self) -> Option<usize> {
        (0..self.names.len()).find(|&i| self.initial[i].is_none() && !self.assigned[i] && self.used_at[i].is_some())
    }

    pub(crate) fn undefined(&self) -> Option<(String, String)> {
        self.first_undefined().map(|i| {
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

/// Whether `name` is `prefix_N` (a number) or `prefix_n`.
fn numbered(prefix: &str, name: &str) -> bool {
    name.strip_prefix(prefix)
        .and_then(|r| r.strip_prefix('_'))
        .is_some_and(|r| r == "n" || (!r.is_empty() && r.bytes().all(|b| b.is_ascii_digit())))
}

/// What templates may refer to while a plan loads, and what they allocate (variables, counters).
#[derive(Debug, Default, Clone)]
pub(crate) struct Symbols {
    pub vars: VarTable,
    /// What functions evaluated while loading logged (see [`LoadScope`]), for the plan's
    /// `load_log`.
    pub load_log: Vec<String>,
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
    /// The plan's directory: relative files of functions are read from it, and it is JMeter's
    /// `FileServer.getFileServer().getBaseDir()`.
    pub base_dir: Option<std::path::PathBuf>,
    /// The plan's file name (`__TestPlanName`).
    pub script_name: Option<String>,
    /// The thread group being read (`__threadGroupName`), if any.
    pub thread_group: Option<String>,
    /// The sampler whose own fields are being read (`__samplerName`), if any.
    pub sampler: Option<String>,
    /// Each file `__CSVRead` reads: its shared reader (`None`: it cannot be read) and the
    /// per-user variable holding the user's current row.
    pub(crate) csv_read: HashMap<String, (Option<std::sync::Arc<files::SharedLines>>, VarId)>,
    /// Each file `__CSVRead` has opened, by name, also for calls naming theirs at run time.
    pub(crate) csv_files: files::CsvFiles,
    /// How many `__eval` calls of text known at load time are being compiled inside each
    /// other: text that evaluates to itself would otherwise recurse without end.
    pub(crate) eval_depth: u32,
    /// The plan calls `__setProperty`: properties change while the test runs, so `__P` and
    /// `__property` read them when called instead of once when the plan loads.
    pub properties_change: bool,
    /// A JMX plan's values, read as JMeter's `FunctionParser` reads them: `\$`, `\,` and
    /// `\\` lose their backslash, and a value with no reference is kept as written. A YAML
    /// plan's only escape outside function arguments is `\${`.
    pub jmeter_text: bool,
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

/// A compiled template. Serialises as its source text: a value that came from a property or
/// the environment (often a secret) never reaches the run directory that way; where the value
/// does end up (a folded URL in a results file), [`Symbols::secrets`] masks it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Template {
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
    /// The user's random numbers (`__Random`, `__RandomString`).
    fn rng(&mut self) -> &mut SmallRng;
    /// A JMeter property's value now: one `__setProperty` set while the test runs, else `None`
    /// (the caller falls back to the `-J` value it knew when the plan loaded).
    fn property(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }
    /// Sets a JMeter property for every user of the run (`__setProperty`); returns its value
    /// before.
    fn set_property(&mut self, name: &str, value: &str) -> Option<String> {
        let _ = (name, value);
        None
    }
    /// A variable by name, also one no template names (a script's `vars.get`): `None` when
    /// it is not set.
    fn var_named(&self, name: &str) -> Option<&str> {
        let _ = name;
        None
    }
    /// Sets a variable by name (a script's `vars.put`); a name no template uses is kept too.
    fn set_var_named(&mut self, name: &str, value: &str) {
        let _ = (name, value);
    }
    /// Removes a variable by name (a script's `vars.remove`); returns its value.
    fn remove_var_named(&mut self, name: &str) -> Option<String> {
        let _ = name;
        None
    }
    /// An object a script stored in this user's variables (`vars.putObject`).
    fn object(&self, name: &str) -> Option<crate::script::Value> {
        let _ = name;
        None
    }
    /// Stores an object in this user's variables (`vars.putObject`).
    fn put_object(&mut self, name: &str, value: crate::script::Value) {
        let _ = (name, value);
    }
    /// A JMeter property as a script sees it (`props.get`): an object a script stored with
    /// `props.put`, else the text `property` gives.
    fn property_object(&self, name: &str) -> Option<crate::script::Value> {
        self.property(name).map(crate::script::Value::from)
    }
    /// Stores a property for every user of the run (`props.put`); text values are also what
    /// `__P` reads.
    fn put_property_object(&mut self, name: &str, value: crate::script::Value) {
        if let crate::script::Value::Str(s) = &value {
            self.set_property(name, s);
        }
    }
    /// Every variable and object of this user, for a script's `vars.entrySet()`; `None` where
    /// the scope cannot list them.
    fn var_entries(&self) -> Option<Vec<(String, crate::script::Value)>> {
        None
    }
    /// JMeter's thread name (`Thread Group 1-3`) for `threadName` and `vars.getThreadName()`;
    /// `None` where the scope does not know it.
    fn thread_name(&self) -> Option<String> {
        None
    }
    /// A script's log line (`log.info(...)`, an error a script function met): JMeter writes
    /// them to `jmeter.log`; the scope keeps them where it can (the run's script log, the
    /// plan's `load_log`), and by default they go nowhere: nothing below the CLI prints.
    fn log(&mut self, level: crate::plan::script_host::Level, text: &str) {
        let _ = (level, text);
    }
    /// A call on the jp@gc FIFO queues every user of the run shares; what it returns, `None`
    /// for a pop that got nothing. Where there are none (a value computed while the plan loads),
    /// queues are empty and nothing waits.
    fn fifo(&mut self, call: FifoCall<'_>) -> Option<String> {
        match call {
            FifoCall::Put { value, .. } => Some(value.to_string()),
            FifoCall::Get(_) => Some(String::new()),
            FifoCall::Size(_) => Some("0".into()),
            FifoCall::Pop { .. } => None,
        }
    }
}

/// What a template asks of the run's FIFO queues (the jp@gc `__fifo*` functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FifoCall<'a> {
    /// Appends `value` (waiting while the queue holds `capacity` values); returns the value.
    Put { queue: &'a str, value: &'a str, capacity: Option<u32> },
    /// Takes the oldest value, waiting up to `timeout_s` seconds (none: for ever).
    Pop { queue: &'a str, timeout_s: Option<u64>, capacity: Option<u32> },
    /// The oldest value without taking it, `""` when empty.
    Get(&'a str),
    /// How many values the queue holds.
    Size(&'a str),
}

/// The scope of a template rendered while the plan loads: the variables' initial values, as
/// user 1 with counters of its own.
#[derive(Debug)]
pub(crate) struct LoadScope {
    values: Vec<String>,
    /// Log lines of the functions evaluated, as a run's script log writes them.
    pub log: Vec<String>,
    counters: Vec<u64>,
    shared: Vec<u64>,
    rng: SmallRng,
}

impl LoadScope {
    pub(crate) fn new(sym: &Symbols) -> LoadScope {
        use rand::SeedableRng;
        LoadScope {
            values: sym.vars.initial_values(),
            log: Vec::new(),
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

    fn log(&mut self, level: crate::plan::script_host::Level, text: &str) {
        self.log.push(format!("{} function: {}", level.name(), crate::redact::text(text)));
    }
}

impl Template {
    /// A template that is only this text.
    pub(crate) fn literal(text: impl Into<String>) -> Template {
        let text = text.into();
        let segs = if text.is_empty() { vec![] } else { vec![Seg::Lit(text.clone())] };
        Template { src: text, segs }
    }

    pub(crate) fn source(&self) -> &str {
        &self.src
    }

    /// The text, when nothing in it changes while the test runs.
    pub(crate) fn as_const(&self) -> Option<&str> {
        match self.segs.as_slice() {
            [] => Some(""),
            [Seg::Lit(s)] => Some(s),
            _ => None,
        }
    }

    pub(crate) fn is_const(&self) -> bool {
        self.as_const().is_some()
    }

    /// Whether the text can change while the test runs, as far as `vars` knows now: it calls a
    /// run-time function, or reads a variable that something assigns or that has no value yet.
    pub(crate) fn is_dynamic(&self, vars: &VarTable) -> bool {
        self.segs.iter().any(|s| match s {
            Seg::Lit(_) => false,
            Seg::Var(id) => vars.is_assigned(*id) || vars.initial(*id).is_none(),
            Seg::Func(_) => true,
        })
    }

    /// Appends the current text to `out`.
    pub(crate) fn render<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) {
        for seg in &self.segs {
            match seg {
                Seg::Lit(s) => out.push_str(s),
                Seg::Var(id) => out.push_str(u.var(*id)),
                Seg::Func(f) => f.call(u, out),
            }
        }
    }

    /// The current text in a new string.
    pub(crate) fn render_string<S: Scope + ?Sized>(&self, u: &mut S) -> String {
        if let Some(s) = self.as_const() {
            return s.to_string();
        }
        let mut out = String::new();
        self.render(u, &mut out);
        out
    }

    /// Replaces variables that nothing assigns while running by their initial value, so a
    /// template that only uses plan variables becomes constant text.
    pub(crate) fn fold(&mut self, vars: &VarTable) {
        let mut out: Vec<Seg> = Vec::with_capacity(self.segs.len());
        for seg in self.segs.drain(..) {
            let seg = match seg {
                Seg::Var(id) if !vars.is_assigned(id) => Seg::Lit(vars.initial(id).unwrap_or_default().to_string()),
                Seg::Func(mut f) => match f.fold(vars) {
                    Some(text) => Seg::Lit(text),
                    None => Seg::Func(f),
                },
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
    pub(crate) fn vars(&self) -> Vec<VarId> {
        let mut out = Vec::new();
        for s in &self.segs {
            match s {
                Seg::Var(id) => out.push(*id),
                Seg::Func(f) => f.vars(&mut out),
                Seg::Lit(_) => {}
            }
        }
        out
    }
}

/// The most characters `__RandomString` makes (1 MiB of ASCII): a longer length given in the
/// plan is an error when it loads; one that comes from a variable at run time is capped to it.
pub(crate) const MAX_RANDOM_STRING: usize = 1 << 20;

/// The machine's UTC offset, read once (later reads can fail once threads run).
pub(crate) fn local_offset() -> time::UtcOffset {
    static OFFSET: std::sync::OnceLock<time::UtcOffset> = std::sync::OnceLock::new();
    *OFFSET.get_or_init(|| time::UtcOffset::current_local_offset().unwrap_or(time::UtcOffset::UTC))
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

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn symbols() -> Symbols {
        let mut s = Symbols { env: Some(HashMap::new()), jmeter_text: true, ..Default::default() };
        s.vars.define("host", "127.0.0.1".into());
        s.vars.define("port", "8080".into());
        s.properties.insert("threads".into(), "50".into());
        s.env.as_mut().unwrap().insert("TOKEN_FILE".into(), "/tmp/t".into());
        s
    }

    pub(super) fn user(sym: &Symbols) -> LoadScope {
        LoadScope::new(sym)
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
}
