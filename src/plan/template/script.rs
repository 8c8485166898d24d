//! The script functions: `__groovy(script[,var])`, `__BeanShell(script[,var])`,
//! `__javaScript(script[,var])`, `__jexl3(expr[,var])`/`__jexl2`, run by the native interpreter
//! (`crate::script`) with the bindings JMeter 5.6.3 gives each (`vars`, `props`, `log`, `ctx`,
//! `threadName`, `OUT`); and the If Controller's JavaScript condition, which has none.
//!
//! The script is a template: it is compiled once when it has no `${...}` left after folding,
//! else once per distinct rendered text (a bounded cache). A script outside the subset is a load
//! error with its line and column; one whose text is known only at run time and does not
//! compile, or that throws, renders nothing and logs why (JMeter logs and renders nothing too).

use super::functions::Names;
use super::{FifoCall, Scope, Symbols, Template, TemplateError, VarId, VarTable};
use crate::plan::script_host::{self, Level};
use crate::script::{Host, HostRef, Lang, Script, Thrown, Value};
use rand::rngs::SmallRng;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// The most distinct rendered scripts one call keeps compiled.
const CACHE_MAX: usize = 256;

/// Which names a script sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bindings {
    /// A `__groovy`-family function's (by language, as JMeter binds them).
    Function,
    /// None at all: the If Controller evaluating its condition as JavaScript; the result must
    /// read `true` or `false`.
    Nothing,
}

/// A compiled script call.
#[derive(Debug, Clone)]
pub(super) struct ScriptFn {
    /// `__groovy`, or `If Controller condition`: for messages.
    what: String,
    lang: Lang,
    source: Template,
    /// The script, when its text is known at load time.
    compiled: Option<Script>,
    cache: Arc<RwLock<HashMap<String, Result<Script, String>>>>,
    bindings: Bindings,
    names: Names,
    thread_group: Option<String>,
}

impl PartialEq for ScriptFn {
    fn eq(&self, o: &ScriptFn) -> bool {
        self.what == o.what && self.lang == o.lang && self.source == o.source && self.bindings == o.bindings
    }
}

/// The bindings JMeter gives a function's script, but `prev`/`sampler`, which a template here
/// does not have (see [`compile`]).
fn function_bindings(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Groovy => &["log", "threadName", "ctx", "vars", "props", "OUT"],
        Lang::BeanShell | Lang::Java => &["log", "ctx", "vars", "props", "threadName"],
        Lang::JavaScript => &["log", "ctx", "vars", "props", "threadName", "sampler", "sampleResult"],
        Lang::Jexl => &["log", "ctx", "vars", "props", "threadName", "sampler", "sampleResult", "OUT"],
    }
}

/// What JMeter binds to the previous sample and the current sampler in a function's script.
const SAMPLE_BINDINGS: [&str; 5] = ["prev", "sampler", "SampleResult", "sampleResult", "Sampler"];

/// Compiles a script call; `source` is the script as a template.
pub(super) fn compile(
    what: &str,
    lang: Lang,
    source: Template,
    sym: &mut Symbols,
    bindings: Bindings,
) -> Result<ScriptFn, TemplateError> {
    let text = source.source().to_string();
    if bindings == Bindings::Function {
        if let Some(name) = SAMPLE_BINDINGS.iter().find(|n| script_host::mentions(&text, n)) {
            return Err(TemplateError::Argument(format!(
                "`{what}` reads `{name}` (the previous sample or the current sampler), which stampede's template functions do not have; a JSR223 PreProcessor or PostProcessor has it"
            )));
        }
    }
    for name in script_host::assigned_variables(&text) {
        sym.vars.assign(&name);
    }
    // Text known now (or made only of plan variables nothing changes) is checked now.
    let known = source.vars().iter().all(|id| sym.vars.initial(*id).is_some() && !sym.vars.is_assigned(*id));
    let compiled = match source.as_const() {
        Some(t) => Some(check(what, lang, t)?),
        None if known && source.segs.iter().all(|s| !matches!(s, super::Seg::Func(_))) => {
            let t = super::expand(&text, sym)?;
            check(what, lang, &t)?;
            None
        }
        None => None,
    };
    Ok(ScriptFn {
        what: what.to_string(),
        lang,
        source,
        compiled,
        cache: Arc::default(),
        bindings,
        names: Names::default(),
        thread_group: sym.thread_group.clone(),
    })
}

/// The If Controller's condition evaluated as JavaScript (its "Interpret Condition as Variable
/// Expression" unchecked): `src`'s `${...}` render first, then the text runs with no bindings, as
/// JMeter's Rhino evaluation; the template reads `true` or `false` (an error or another result
/// is logged and reads `false`, as JMeter's).
pub(crate) fn js_condition(src: &str, sym: &mut Symbols, element: &str) -> Result<Template, TemplateError> {
    let source = super::compile(src, sym, element)?;
    let f = compile("If Controller condition", Lang::JavaScript, source, sym, Bindings::Nothing)?;
    let seg = super::Seg::Func(Box::new(super::functions::script_func(f)));
    Ok(Template { src: src.to_string(), segs: vec![seg] })
}

/// Whether a script condition reads the same as stampede's comparison of template text: no
/// bare word outside `${...}`, quotes and numbers (`vars.get("x") == y` names variables and
/// methods the comparison would read as text), but `true`/`false`.
pub(crate) fn is_plain_comparison(src: &str) -> bool {
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'$' && b.get(i + 1) == Some(&b'{') {
            let mut depth = 0;
            while i < b.len() {
                match b[i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i += 1;
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] == b'.') {
                i += 1;
            }
            let word = &src[start..i];
            if !c.is_ascii_digit() && word != "true" && word != "false" {
                return false;
            }
        } else {
            i += 1;
        }
    }
    true
}

/// Compiles a script, or the load error naming the function and where in the script (the
/// caller's error names the element and its line in the plan).
fn check(what: &str, lang: Lang, text: &str) -> Result<Script, TemplateError> {
    Script::compile(text, lang).map_err(|e| {
        let m = format!("`{what}` cannot run its {lang} script: {e}");
        if e.syntax {
            TemplateError::ScriptSyntax(m)
        } else {
            TemplateError::Argument(m)
        }
    })
}

impl ScriptFn {
    pub(super) fn templates(&self) -> Vec<&Template> {
        vec![&self.source]
    }

    pub(super) fn fold(&mut self, vars: &VarTable) {
        self.source.fold(vars);
        self.names.fill(vars);
        if self.compiled.is_none() {
            if let Some(t) = self.source.as_const() {
                // Checked when the plan loaded (its variables' values then).
                self.compiled = Script::compile(t, self.lang).ok();
            }
        }
    }

    /// Runs the script and appends its result's text; `false` when it failed (logged).
    pub(super) fn call<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) -> bool {
        let script = match &self.compiled {
            Some(s) => s.clone(),
            None => {
                let text = self.source.render_string(u);
                match self.cached(&text) {
                    Ok(s) => s,
                    Err(e) => {
                        let msg = format!("{}: the script `{text}` cannot run: {e}", self.what);
                        let msg = script_host::scrub(&*u, &msg);
                        u.log(Level::Warn, &msg);
                        return false;
                    }
                }
            }
        };
        let thread_name = u.thread_name().unwrap_or_else(|| {
            format!("{} 1-{}", self.thread_group.as_deref().unwrap_or("Thread Group"), u.thread_num())
        });
        let mut bindings: Vec<(&str, Value)> = Vec::new();
        if self.bindings == Bindings::Function {
            for name in function_bindings(self.lang) {
                let v = match *name {
                    "vars" => Value::Host(script_host::VARS),
                    "props" => Value::Host(script_host::PROPS),
                    "log" => Value::Host(script_host::LOG),
                    "ctx" => Value::Host(script_host::CTX),
                    "OUT" => Value::Host(script_host::OUT),
                    "threadName" => Value::from(thread_name.as_str()),
                    _ => Value::Null,
                };
                bindings.push((name, v));
            }
        }
        let mut host = TemplateHost { scope: NamedScope { u, names: &self.names }, lang: self.lang };
        match script.run(&mut host, &bindings) {
            Ok(v) => {
                let text = result_text(self.lang, &v, &mut host);
                if self.bindings == Bindings::Nothing && text != "true" && text != "false" {
                    // IfController.computeResultFromString: anything else is an error, false.
                    let msg =
                        format!("{}: BAD CONDITION :: {} :: expected true or false", self.what, script_text(self));
                    host.scope.u.log(Level::Error, &msg);
                    out.push_str("false");
                } else {
                    out.push_str(&text);
                }
                true
            }
            Err(e) => {
                let msg = format!("{}: error running the {} script: {}", self.what, self.lang, thrown_text(&e));
                let msg = script_host::scrub(&host.scope, &msg);
                host.scope.u.log(Level::Warn, &msg);
                if self.bindings == Bindings::Nothing {
                    out.push_str("false");
                    return true;
                }
                false
            }
        }
    }

    fn cached(&self, text: &str) -> Result<Script, String> {
        if let Some(r) = self.cache.read().unwrap_or_else(|e| e.into_inner()).get(text) {
            return r.clone();
        }
        let r = Script::compile(text, self.lang).map_err(|e| e.to_string());
        let mut cache = self.cache.write().unwrap_or_else(|e| e.into_inner());
        if cache.len() < CACHE_MAX {
            cache.insert(text.to_string(), r.clone());
        }
        r
    }
}

fn script_text(f: &ScriptFn) -> &str {
    f.source.source()
}

fn thrown_text(e: &Thrown) -> String {
    match e.pos {
        Some(p) => format!("{e} (line {}, column {})", p.line, p.col),
        None => e.to_string(),
    }
}

/// The text JMeter makes of a script's result: Groovy's and Java's `toString()` (null is
/// empty), JavaScript's `Context.toString` (`2`, not `2.0`; null is `null`).
pub(crate) fn result_text(lang: Lang, v: &Value, host: &mut dyn Host) -> String {
    match (v, lang) {
        (Value::Null, Lang::JavaScript) => "null".into(),
        (Value::Null, _) => String::new(),
        (Value::Host(r), _) => host.describe(*r),
        (Value::Double(_), Lang::JavaScript) => script_host::js_text(v),
        (Value::Map(m), Lang::BeanShell | Lang::Java | Lang::JavaScript | Lang::Jexl) => {
            // `AbstractMap.toString()`: `{k=v, ...}`.
            let m = crate::script::lock(&m.entries);
            let items: Vec<String> = m.iter().map(|(k, v)| format!("{}={v}", k.0)).collect();
            format!("{{{}}}", items.join(", "))
        }
        _ => v.to_string(),
    }
}

/// A user's scope, with the plan's variables by name (so `vars.get` of a variable the plan's
/// templates use reads the user's value even where the scope keeps no names).
struct NamedScope<'a, S: Scope + ?Sized> {
    u: &'a mut S,
    names: &'a Names,
}

impl<S: Scope + ?Sized> Scope for NamedScope<'_, S> {
    fn var(&self, id: VarId) -> &str {
        self.u.var(id)
    }
    fn set_var(&mut self, id: VarId, value: &str) {
        self.u.set_var(id, value)
    }
    fn count(&mut self, per_user: bool, slot: u32) -> u64 {
        self.u.count(per_user, slot)
    }
    fn thread_num(&self) -> u64 {
        self.u.thread_num()
    }
    fn rng(&mut self) -> &mut SmallRng {
        self.u.rng()
    }
    fn property(&self, name: &str) -> Option<String> {
        self.u.property(name)
    }
    fn set_property(&mut self, name: &str, value: &str) -> Option<String> {
        self.u.set_property(name, value)
    }
    fn var_named(&self, name: &str) -> Option<&str> {
        match self.names.id(name) {
            Some(_) => self.names.get(&*self.u, name),
            None => self.u.var_named(name),
        }
    }
    fn set_var_named(&mut self, name: &str, value: &str) {
        match self.names.id(name) {
            Some(id) => self.u.set_var(id, value),
            None => self.u.set_var_named(name, value),
        }
    }
    fn remove_var_named(&mut self, name: &str) -> Option<String> {
        match self.names.id(name) {
            Some(id) => {
                let before = self.names.get(&*self.u, name).map(str::to_string);
                // An unset variable reads as its own reference in a template, as in JMeter.
                self.u.set_var(id, &format!("${{{name}}}"));
                before
            }
            None => self.u.remove_var_named(name),
        }
    }
    fn object(&self, name: &str) -> Option<Value> {
        self.u.object(name)
    }
    fn put_object(&mut self, name: &str, value: Value) {
        self.u.put_object(name, value)
    }
    fn property_object(&self, name: &str) -> Option<Value> {
        self.u.property_object(name)
    }
    fn put_property_object(&mut self, name: &str, value: Value) {
        self.u.put_property_object(name, value)
    }
    fn var_entries(&self) -> Option<Vec<(String, Value)>> {
        self.u.var_entries()
    }
    fn thread_name(&self) -> Option<String> {
        self.u.thread_name()
    }
    fn log(&mut self, level: Level, text: &str) {
        self.u.log(level, text)
    }
    fn fifo(&mut self, call: FifoCall<'_>) -> Option<String> {
        self.u.fifo(call)
    }
}

/// The host of a template's script: the shared objects over the user's scope.
struct TemplateHost<'a, S: Scope + ?Sized> {
    scope: NamedScope<'a, S>,
    lang: Lang,
}

impl<S: Scope + ?Sized> Host for TemplateHost<'_, S> {
    fn call(&mut self, target: HostRef, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut lines: Vec<(Level, String)> = Vec::new();
        let mut printed = String::new();
        let r = script_host::call_shared(
            &mut self.scope,
            target,
            method,
            args,
            self.lang,
            &mut |l, t| lines.push((l, t.to_string())),
            &mut |t| printed.push_str(t),
        );
        for (l, t) in lines {
            self.scope.log(l, &t);
        }
        if !printed.is_empty() {
            self.print(&printed);
        }
        r.unwrap_or_else(|| Err(Thrown::no_method("Object", method)))
    }

    fn describe(&mut self, target: HostRef) -> String {
        script_host::describe_shared(target).unwrap_or_else(|| format!("host#{}", target.0))
    }

    fn print(&mut self, text: &str) {
        use std::io::Write;
        // `println(vars.get("token"))`: the terminal never shows a secret.
        let text = script_host::scrub(&self.scope, text);
        let _ = std::io::stdout().write_all(text.as_bytes());
    }

    fn sleep(&mut self, ms: u64) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{symbols, user};
    use super::super::{compile as template, Scope};

    /// Renders `src` once with these variables set (assigned at run time).
    fn render(src: &str, set: &[(&str, &str)]) -> (String, Vec<(String, String)>) {
        let mut s = symbols();
        for (name, _) in set {
            s.vars.assign(name);
        }
        let mut t = template(src, &mut s, "f").unwrap_or_else(|e| panic!("{src}: {e}"));
        t.fold(&s.vars);
        let mut u = user(&s);
        for (name, value) in set {
            u.set_var(s.vars.get(name).unwrap(), value);
        }
        let out = t.render_string(&mut u);
        let names: Vec<(String, String)> = ["r", "tok", "id"]
            .iter()
            .filter_map(|n| s.vars.get(n).map(|id| (n.to_string(), u.var(id).to_string())))
            .collect();
        (out, names)
    }

    fn text(src: &str, set: &[(&str, &str)]) -> String {
        render(src, set).0
    }

    #[test]
    fn functions_render_their_script_result_as_jmeter() {
        assert_eq!(text("${__groovy(1 + 2)}", &[]), "3");
        assert_eq!(text("${__groovy(null)}", &[]), "");
        assert_eq!(text("${__groovy(vars.get(\"id\") + \"-x\")}", &[("id", "7")]), "7-x");
        // An unset variable is null (not its `${id}` reference).
        assert_eq!(text("${__groovy(vars.get(\"nothing\") == null)}", &[]), "true");
        // JavaScript prints integral numbers without `.0`, and null as `null`.
        assert_eq!(text("${__javaScript(1 + 1)}", &[]), "2");
        assert_eq!(text("${__javaScript(7 / 2)}", &[]), "3.5");
        assert_eq!(text("${__jexl3(1 + 1)}", &[]), "2");
        assert_eq!(text("${__BeanShell(\"a\" + 1)}", &[]), "a1");
        assert_eq!(text("${__groovy(ctx.getThreadNum())}", &[]), "0");
    }

    #[test]
    fn functions_store_their_result_and_set_variables() {
        let (out, vars) = render("${__groovy(vars.put(\"tok\"\\, \"abc\"))}|${tok}|${__groovy(6 * 7,r)}|${r}", &[]);
        assert_eq!(out, "|abc|42|42");
        assert!(vars.contains(&("r".into(), "42".into())), "{vars:?}");
        // A script whose text changes is compiled per text.
        let mut s = symbols();
        let n = s.vars.assign("n");
        let mut t = template("${__groovy(${n} * 2)}", &mut s, "f").unwrap();
        t.fold(&s.vars);
        let mut u = user(&s);
        for (v, want) in [("3", "6"), ("4", "8"), ("3", "6")] {
            u.set_var(n, v);
            assert_eq!(t.render_string(&mut u), want);
        }
    }

    #[test]
    fn a_script_that_throws_renders_nothing_and_stores_nothing() {
        let (out, vars) = render("[${__groovy(def m = null; m.size(),r)}]", &[]);
        assert_eq!(out, "[]");
        assert!(vars.iter().all(|(n, v)| n != "r" || v.is_empty()), "{vars:?}");
    }

    #[test]
    fn a_script_outside_the_subset_is_a_load_error_with_its_position() {
        let e =
            template("${__groovy(def x = \n  1 +)}", &mut symbols(), "HTTP Request \"login\"").unwrap_err().to_string();
        assert!(e.contains("`__groovy` cannot run its groovy script: line 2, column 6: expected an expression"), "{e}");
        // A class outside the subset is refused when the plan loads, not when it runs.
        let e = template("${__groovy(new java.net.Socket(\"h\"\\, 1))}", &mut symbols(), "h").unwrap_err().to_string();
        assert!(e.contains("line 1, column 5: class `java.net.Socket` is not available"), "{e}");
        let e = template("${__groovy(prev.getResponseCode())}", &mut symbols(), "h").unwrap_err().to_string();
        assert!(e.contains("reads `prev`"), "{e}");
    }

    #[test]
    fn comparisons_of_template_text_only_take_the_fast_path() {
        assert!(super::is_plain_comparison("\"${a}\" == \"x y\" && ${n} > 2.5 || !(${ok})"));
        assert!(super::is_plain_comparison("${__jm__L__idx} == 3 && true"));
        assert!(!super::is_plain_comparison("vars.get(\"x\") != null"));
        assert!(!super::is_plain_comparison("${n} == abc"));
        assert!(!super::is_plain_comparison("\"${s}\".length > 2"));
    }

    #[test]
    fn the_if_controller_javascript_condition() {
        let mut s = symbols();
        let n = s.vars.assign("n");
        let mut t = super::js_condition("${n} % 2 == 0 || ${n} > 100", &mut s, "If").unwrap();
        t.fold(&s.vars);
        let mut u = user(&s);
        for (v, want) in [("4", "true"), ("5", "false"), ("101", "true")] {
            u.set_var(n, v);
            assert_eq!(t.render_string(&mut u), want, "n = {v}");
        }
        // Not a boolean, or an error: false, as JMeter's (logged).
        let mut t = super::js_condition("\"${n}\" + 1", &mut s, "If").unwrap();
        t.fold(&s.vars);
        assert_eq!(t.render_string(&mut u), "false");
    }
}
