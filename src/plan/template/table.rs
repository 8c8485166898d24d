//! The table of the functions a template may call (JMeter's `${__name(args)}`): one row per
//! function, naming it, giving JMeter's number of arguments and how a call compiles. The
//! load-time check (an unknown name, a wrong count) and the compiling of a call come from the
//! same row, so a name listed is a name that runs; a call is bound to what its row compiled
//! (a [`Func`]) when the template is compiled, never looked up by name again.

use super::compile::{compile, compile_arg, expand_arg};
use super::dates::{self, DateFn};
use super::files;
use super::functions::{jorphan_split, ByName, FifoFn, FifoOp, Func, FuncKind, Names, Num, PropertyFn};
use super::script::{self, Bindings};
use super::text::{Pure, DIGESTS_NOT_SUPPORTED};
use super::{Seg, Symbols, Template, TemplateError, VarId, VarTable, MAX_RANDOM_STRING};
use crate::plan::condition::{self, Condition};
use crate::plan::script_host::{row, Row, ANY};
use crate::script::{JavaDateFormat, Lang};
use std::sync::Arc;

/// How a call of a function compiles.
type Compile = fn(&mut Call<'_>) -> Result<Seg, TemplateError>;

/// One function: its name (without `__`), the fewest and most arguments it takes (JMeter's
/// `checkParameterCount`; [`ANY`]: no most), and how a call of it compiles.
pub(super) type Function = Row<Compile>;

/// Every function stampede runs, in the order `docs/jmx.md` lists them. The rows of `0, ANY`
/// take any count, as stampede always has (each reads the arguments it knows).
pub(super) const FUNCTIONS: [Function; 49] = [
    row("P", 1, 2, |c| property(c, false)),
    row("property", 1, 3, |c| property(c, true)),
    row("isPropDefined", 1, 1, is_prop_defined),
    row("env", 0, ANY, env),
    row("UUID", 0, ANY, |_| Ok(bound(FuncKind::Uuid, None))),
    row("time", 0, ANY, time),
    row("counter", 0, ANY, counter),
    row("threadNum", 0, ANY, |_| Ok(bound(FuncKind::ThreadNum, None))),
    row("Random", 0, ANY, random),
    row("RandomString", 0, ANY, random_string),
    row("V", 1, 2, |c| by_name(c, ByName::V)),
    row("isVarDefined", 1, 1, |c| by_name(c, ByName::IsVarDefined)),
    row("eval", 1, 1, eval),
    row("evalVar", 1, 1, |c| by_name(c, ByName::EvalVar)),
    row("split", 2, 3, split),
    row("intSum", 2, ANY, |c| sum(c, Pure::IntSum)),
    row("longSum", 2, ANY, |c| sum(c, Pure::LongSum)),
    row("urlencode", 1, 1, |c| pure_of_one(c, Pure::UrlEncode)),
    row("urldecode", 1, 1, |c| pure_of_one(c, Pure::UrlDecode)),
    row("escapeHtml", 1, 1, |c| pure_of_one(c, Pure::EscapeHtml)),
    row("unescapeHtml", 1, 1, |c| pure_of_one(c, Pure::UnescapeHtml)),
    row("escapeXml", 1, 1, |c| pure_of_one(c, Pure::EscapeXml)),
    row("char", 1, ANY, |c| Ok(func(FuncKind::Pure { op: Pure::Char, args: c.tmpls(0..c.n())? }, None))),
    row("changeCase", 1, 3, |c| Ok(func(FuncKind::Pure { op: Pure::ChangeCase, args: c.tmpls(0..2)? }, c.store(2)?))),
    row("digest", 2, 5, digest),
    row("machineName", 0, 1, |c| Ok(func(FuncKind::Const(files::host_name()), c.store(0)?))),
    row("machineIP", 0, 1, |c| Ok(func(FuncKind::Const(files::host_ip()), c.store(0)?))),
    row("TestPlanName", 0, 0, test_plan_name),
    row("threadGroupName", 0, 0, thread_group_name),
    row("samplerName", 0, 1, sampler_name),
    row("log", 1, 4, |c| Ok(func(FuncKind::Log { text: c.tmpl(0)?, silent: false }, None))),
    row("logn", 1, 3, |c| Ok(func(FuncKind::Log { text: c.tmpl(0)?, silent: true }, None))),
    row("RandomFromMultipleVars", 1, 2, random_from_vars),
    row("FileToString", 1, 3, file),
    row("StringFromFile", 1, 4, file),
    row("CSVRead", 2, 2, file),
    row("jexl3", 1, 2, jexl),
    row("jexl2", 1, 2, jexl),
    row("BeanShell", 1, 2, |c| script_call(c, Lang::BeanShell)),
    row("groovy", 1, 2, |c| script_call(c, Lang::Groovy)),
    row("javaScript", 1, 2, |c| script_call(c, Lang::JavaScript)),
    row("timeShift", 4, 5, time_shift),
    row("dateTimeConvert", 3, 4, date_time_convert),
    row("RandomDate", 3, 5, random_date),
    row("fifoPut", 2, ANY, |c| fifo(c, FifoOp::Put)),
    row("fifoPop", 1, ANY, |c| fifo(c, FifoOp::Pop)),
    row("fifoGet", 1, ANY, |c| fifo(c, FifoOp::Get)),
    row("fifoSize", 1, ANY, |c| fifo(c, FifoOp::Size)),
    row("setProperty", 2, 3, set_property),
];

/// The functions stampede runs, for the "did you mean" of an unknown name and the support
/// matrix of `docs/jmx.md`.
pub(crate) const FUNCTION_NAMES: [&str; FUNCTIONS.len()] = {
    let mut names = [""; FUNCTIONS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = FUNCTIONS[i].name;
        i += 1;
    }
    names
};

/// Functions of JMeter (and its common plugins) that stampede does not run.
const NOT_SUPPORTED: [&str; 9] = [
    "XPath",
    "regexFunction",
    "StringToFile",
    "unescape",
    "escapeOroRegexpChars",
    "iterationNum",
    "tstFeedback",
    "base64Encode",
    "base64Decode",
];

/// The most `__eval` calls of load-time text compiled inside each other.
const MAX_EVAL_DEPTH: u32 = 32;

/// Compiles the call `__name(raw...)` by its row: the name is checked, then the count, then
/// the row compiles it.
pub(super) fn function(name: &str, raw: &[&str], sym: &mut Symbols, element: &str) -> Result<Seg, TemplateError> {
    let Some(f) = FUNCTIONS.iter().find(|f| f.name == name) else {
        return Err(unknown(name));
    };
    count(f.name, raw.len(), f.min, f.max)?;
    (f.f)(&mut Call { name: f.name, raw, sym, element })
}

fn unknown(name: &str) -> TemplateError {
    if NOT_SUPPORTED.contains(&name) {
        return TemplateError::UnknownFunction(format!("JMeter's function `__{name}` is not supported by stampede"));
    }
    let mut msg = format!("unknown function `__{name}`");
    match crate::plan::error::closest(name, FUNCTION_NAMES) {
        Some(s) => msg.push_str(&format!("; did you mean `__{s}`?")),
        None => msg.push_str(" (docs/jmx.md lists the functions stampede runs)"),
    }
    TemplateError::UnknownFunction(msg)
}

/// A function's argument that cannot be used.
fn arg(message: impl Into<String>) -> TemplateError {
    TemplateError::Argument(message.into())
}

/// JMeter's check of the number of arguments (`AbstractFunction.checkParameterCount`), word
/// for word.
fn count(name: &str, n: usize, min: usize, max: usize) -> Result<(), TemplateError> {
    if n >= min && n <= max {
        return Ok(());
    }
    let expected = if max == ANY {
        format!("Expected at least: {min}.")
    } else if min == max {
        format!("Expected: {min}.")
    } else {
        format!("Expected: >= {min} and <= {max}")
    };
    Err(arg(format!("__{name} called with wrong number of parameters. Actual: {n}. {expected}")))
}

/// One call being compiled: its row's name, its arguments as written, and the plan's symbols.
pub(super) struct Call<'a> {
    name: &'static str,
    raw: &'a [&'a str],
    sym: &'a mut Symbols,
    element: &'a str,
}

impl Call<'_> {
    fn n(&self) -> usize {
        self.raw.len()
    }

    /// An argument fixed at load time (a property name, a default, a format); `None` when
    /// absent or empty.
    fn fixed(&mut self, i: usize) -> Result<Option<String>, TemplateError> {
        match self.raw.get(i) {
            None => Ok(None),
            Some(a) => Ok(Some(expand_arg(a, self.sym)?).filter(|v| !v.is_empty())),
        }
    }

    /// An argument evaluated at each call (an absent one is empty).
    fn tmpl(&mut self, i: usize) -> Result<Template, TemplateError> {
        compile_arg(self.raw.get(i).copied().unwrap_or(""), self.sym, self.element)
    }

    /// The arguments of `range` that are given.
    fn tmpls(&mut self, range: std::ops::Range<usize>) -> Result<Vec<Template>, TemplateError> {
        let n = self.n();
        range.filter(|i| *i < n).map(|i| self.tmpl(i)).collect()
    }

    /// The optional argument naming a variable to store the result in.
    fn store(&mut self, i: usize) -> Result<Option<VarId>, TemplateError> {
        let name = self.fixed(i)?.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        Ok(name.map(|v| self.sym.vars.assign(&v)))
    }

    /// A script or a condition is read by its own parser: only `\,` is undone before it.
    fn unescaped(&self, i: usize) -> String {
        self.raw[i].replace("\\,", ",")
    }
}

/// The call as a segment: its text when it can never change, else the compiled call.
fn func(kind: FuncKind, store: Option<VarId>) -> Seg {
    let f = Func { kind, store };
    match f.store.is_none().then(|| f.kind.constant(&VarTable::default())).flatten() {
        Some(text) if !matches!(f.kind, FuncKind::ByName { .. }) => Seg::Lit(text),
        _ => Seg::Func(Box::new(f)),
    }
}

/// The compiled call, evaluated at each render even when its arguments are constant.
fn bound(kind: FuncKind, store: Option<VarId>) -> Seg {
    Seg::Func(Box::new(Func { kind, store }))
}

/// `__P(name[,default])`, `__property(name[,var[,default]])`.
fn property(c: &mut Call<'_>, named_default: bool) -> Result<Seg, TemplateError> {
    let default_at = if named_default { 2 } else { 1 };
    if c.sym.properties_change {
        let default = if c.n() > default_at { Some(c.tmpl(default_at)?) } else { None };
        let store = if named_default { c.store(1)? } else { None };
        let loaded = Arc::new(c.sym.properties.clone());
        let p = PropertyFn { name: c.tmpl(0)?, default, named_default, loaded };
        return Ok(bound(FuncKind::Property(Box::new(p)), store));
    }
    let key = c.fixed(0)?.ok_or_else(|| arg("a property name is needed"))?;
    // JMeter's __P falls back to "1" when neither value nor default exists, __property to the
    // property's name. An empty default (`${__P(x,)}`) is "", as JMeter reads its argument.
    let default = match (c.n() > default_at, named_default) {
        (true, _) => c.fixed(default_at)?.unwrap_or_default(),
        (false, false) => "1".into(),
        (false, true) => key.clone(),
    };
    // JMeterUtils.getPropDefault trims what it returns, a default as well.
    let value = c.sym.properties.get(key.trim()).cloned().unwrap_or(default).trim().to_string();
    if named_default {
        // The stored copy is the same text for every user: a plan variable.
        if let Some(var) = c.raw.get(1).map(|a| a.trim()).filter(|a| !a.is_empty()) {
            c.sym.vars.define(var, value.clone());
        }
    }
    Ok(Seg::Lit(value))
}

/// `__setProperty(name,value[,return old])`.
fn set_property(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let args = [c.tmpl(0)?, c.tmpl(1)?, c.tmpl(2)?];
    Ok(bound(FuncKind::SetProperty(Box::new((args, Arc::new(c.sym.properties.clone())))), None))
}

fn is_prop_defined(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let key = c.fixed(0)?.unwrap_or_default();
    Ok(Seg::Lit(c.sym.properties.contains_key(&key).to_string()))
}

/// `__env(name[,default])`: read when the plan loads; the value is a secret whatever its name.
fn env(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let key = c.fixed(0)?.ok_or_else(|| arg("an environment variable name is needed"))?;
    match c.sym.env_var(key.trim()) {
        Some(v) => {
            c.sym.secrets.add(&v);
            Ok(Seg::Lit(v))
        }
        None => c
            .fixed(1)?
            .map(Seg::Lit)
            .ok_or_else(|| arg(format!("environment variable `{}` is not set and there is no default", key.trim()))),
    }
}

/// `__time([format[,var]])`.
fn time(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let fmt = c.fixed(0)?;
    let kind = match fmt.as_deref().map(str::trim) {
        None => FuncKind::Time { format: None, divisor: 1 },
        Some(f) if f.starts_with('/') => {
            let d = f[1..]
                .parse::<u64>()
                .ok()
                .filter(|d| *d > 0)
                .ok_or_else(|| arg("`/N` needs a whole number above 0"))?;
            FuncKind::Time { format: None, divisor: d }
        }
        Some(f) => {
            // JMeter's shorthand formats, which the `time.*` properties may redefine.
            let alias = match f {
                "YMD" => Some("yyyyMMdd"),
                "HMS" => Some("HHmmss"),
                "YMDHMS" => Some("yyyyMMdd-HHmmss"),
                "USER1" | "USER2" => Some(""),
                _ => None,
            };
            let pattern = match alias {
                Some(default) => c.sym.properties.get(&format!("time.{f}")).map_or(default, String::as_str),
                None => f,
            };
            // JMeter 5.6.3 formats with java.time's DateTimeFormatter (`S` is a fraction of the
            // second, `u` the year), not SimpleDateFormat.
            let format = JavaDateFormat::compile_java_time(pattern).map_err(arg)?;
            FuncKind::Time { format: Some(format), divisor: 1 }
        }
    };
    Ok(bound(kind, c.store(1)?))
}

/// `__counter([TRUE|FALSE[,var]])`: one counter per occurrence, per user or shared.
fn counter(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let mode = c.fixed(0)?.unwrap_or_default();
    let per_user = match mode.trim().to_ascii_uppercase().as_str() {
        "TRUE" | "" => true,
        "FALSE" => false,
        other => return Err(arg(format!("the first argument is TRUE (per user) or FALSE (shared), not `{other}`"))),
    };
    let slot = if per_user { &mut c.sym.user_counters } else { &mut c.sym.global_counters };
    *slot += 1;
    let kind = FuncKind::Counter { per_user, slot: *slot - 1 };
    Ok(bound(kind, c.store(1)?))
}

/// `__Random(min,max[,var])`.
fn random(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    if c.n() < 2 {
        return Err(arg("`__Random(min,max)` needs two numbers"));
    }
    let min = num(c, 0)?;
    let max = num(c, 1)?;
    Ok(bound(FuncKind::Random { min, max }, c.store(2)?))
}

/// `__RandomString(length[,characters[,var]])`.
fn random_string(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let len = num(c, 0)?;
    if let Num::Const(n) = len {
        if n > MAX_RANDOM_STRING as i64 {
            return Err(arg(format!(
                "a length of {n} is above the limit of {MAX_RANDOM_STRING} characters (1 MiB) a generated string may have"
            )));
        }
    }
    let chars = c.tmpl(1)?;
    Ok(bound(FuncKind::RandomString { len, chars }, c.store(2)?))
}

/// A whole-number argument: constant, or a template read at each call.
fn num(c: &mut Call<'_>, i: usize) -> Result<Num, TemplateError> {
    let t = compile(c.raw.get(i).copied().unwrap_or("").trim(), c.sym, c.element)?;
    match t.as_const() {
        Some(s) => s.trim().parse().map(Num::Const).map_err(|_| arg(format!("`{s}` is not a whole number"))),
        None => Ok(Num::Dyn(t)),
    }
}

/// `__V`, `__isVarDefined`, `__evalVar` and `__eval` of text known only at run time.
fn by_name(c: &mut Call<'_>, op: ByName) -> Result<Seg, TemplateError> {
    let args = c.tmpls(0..c.n())?;
    // A name known now is a variable of the plan, even if nothing else names it (so `__split`
    // or an extractor setting it at run time is seen); unset until then.
    if let Some(name) = args[0].as_const().filter(|_| op != ByName::Eval) {
        let id = c.sym.vars.intern(name.trim());
        c.sym.vars.unset_as_reference(id);
    }
    Ok(func(FuncKind::ByName { op, args, names: Names::default() }, None))
}

/// `__eval(text)`: text known now is a template like any other.
fn eval(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let t = c.tmpl(0)?;
    let Some(text) = t.as_const().map(str::to_string) else { return by_name(c, ByName::Eval) };
    if c.sym.eval_depth >= MAX_EVAL_DEPTH {
        return Err(arg(format!(
            "`__eval` evaluates text that calls `__eval` more than {MAX_EVAL_DEPTH} times over (`{text}`): it never ends"
        )));
    }
    c.sym.eval_depth += 1;
    let inner = compile(&text, c.sym, c.element);
    c.sym.eval_depth -= 1;
    let inner = inner?;
    Ok(match inner.as_const() {
        Some(s) => Seg::Lit(s.to_string()),
        None => bound(FuncKind::Log { text: inner, silent: false }, None),
    })
}

/// `__split(text,prefix[,separators])`.
fn split(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let prefix = c.fixed(1)?.map(|p| p.trim().to_string()).filter(|p| !p.is_empty());
    let prefix = prefix.ok_or_else(|| arg("the second argument names the variables to set"))?;
    c.sym.vars.assign_prefix(&prefix);
    let text = c.tmpl(0)?;
    if let Some(t) = text.as_const() {
        // Constant text: its parts are variables of the plan, read by name or not.
        let parts = jorphan_split(t, &c.fixed(2)?.unwrap_or_else(|| ",".into()), "?").len();
        for i in 1..=parts {
            c.sym.vars.assign(&format!("{prefix}_{i}"));
        }
    }
    let kind = FuncKind::Split { text, separators: c.tmpl(2)?, prefix, names: Names::default() };
    Ok(func(kind, None))
}

/// `__intSum`, `__longSum`: the last argument is an addend when it is a number, else the
/// variable to store in.
fn sum(c: &mut Call<'_>, op: Pure) -> Result<Seg, TemplateError> {
    let mut args = c.tmpls(0..c.n())?;
    let last = args.last().and_then(|t| t.as_const()).map(|s| s.trim().to_string());
    let store = match last {
        Some(l) if l.parse::<i64>().is_err() => {
            args.pop();
            (!l.is_empty()).then(|| c.sym.vars.assign(&l))
        }
        Some(l) => {
            *args.last_mut().expect("two arguments") = Template::literal(l);
            None
        }
        None => None,
    };
    Ok(func(FuncKind::Pure { op, args }, store))
}

fn pure_of_one(c: &mut Call<'_>, op: Pure) -> Result<Seg, TemplateError> {
    Ok(func(FuncKind::Pure { op, args: c.tmpls(0..1)? }, None))
}

/// `__digest(algorithm,text[,salt[,upper[,var]]])`.
fn digest(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let args = c.tmpls(0..4)?;
    if let Some(alg) = args[0].as_const() {
        if DIGESTS_NOT_SUPPORTED.contains(&alg.to_ascii_uppercase().as_str()) {
            return Err(arg(format!(
                "the digest algorithm `{alg}` is not supported by stampede (MD5, SHA-1, SHA-256, SHA-384, SHA-512 and SHA-512/256 are)"
            )));
        }
    }
    Ok(func(FuncKind::Pure { op: Pure::Digest, args }, c.store(4)?))
}

fn test_plan_name(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let value = c.sym.script_name.clone();
    Ok(Seg::Lit(value.unwrap_or_else(|| "Save Test plan before calling __TestPlanName function".into())))
}

fn thread_group_name(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    c.sym.thread_group.clone().map(Seg::Lit).ok_or_else(|| {
        arg("`__threadGroupName` outside a thread group (its name depends on the thread running it) is not supported")
    })
}

fn sampler_name(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let sampler = c.sym.sampler.clone().ok_or_else(|| {
        arg("`__samplerName` outside a sampler's own fields (its name depends on the sampler running it) is not supported")
    })?;
    // A name with `${...}` is the name rendered now, as JMeter renders a sampler's name (and
    // its sample's label) each time (a name naming `__samplerName` stays as written).
    if sampler.contains("${") && !sampler.contains("samplerName") {
        let kept = c.sym.sampler.take();
        let name = compile(&sampler, c.sym, c.element);
        c.sym.sampler = kept;
        if let Some(name) = name.ok().filter(|t| !t.is_const()) {
            return Ok(func(FuncKind::Log { text: name, silent: false }, c.store(0)?));
        }
    }
    Ok(func(FuncKind::Const(sampler), c.store(0)?))
}

fn random_from_vars(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let kind = FuncKind::RandomFromVars { list: c.tmpl(0)?, names: Names::default() };
    Ok(func(kind, c.store(1)?))
}

/// `__FileToString`, `__StringFromFile`, `__CSVRead`.
fn file(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let mut args = c.tmpls(0..c.n().min(2))?;
    // A file name from plan variables is known now.
    if args[0].vars().iter().all(|id| c.sym.vars.initial(*id).is_some() && !c.sym.vars.is_assigned(*id)) {
        args[0] = Template::literal(expand_arg(c.raw[0], c.sym)?);
    }
    let (f, store_at) = files::compile(c.name, args, c.sym)?;
    let store = match (c.name, c.raw.get(1)) {
        // __StringFromFile stores in `StringFromFile_` unless told otherwise.
        ("StringFromFile", None) => Some(c.sym.vars.assign("StringFromFile_")),
        _ => match store_at {
            Some(i) => c.store(i)?,
            None => None,
        },
    };
    Ok(func(FuncKind::File(Box::new(f)), store))
}

/// `__groovy`, `__BeanShell`, `__javaScript`: the script run by the interpreter.
fn script_call(c: &mut Call<'_>, lang: Lang) -> Result<Seg, TemplateError> {
    let source = c.unescaped(0);
    // The plan's directory, known now: no need to run anything.
    if lang != Lang::JavaScript {
        if let Some(path) = files::base_dir_script(&source, c.sym) {
            return Ok(func(FuncKind::Const(path), c.store(1)?));
        }
    }
    let f = script::compile(&format!("__{}", c.name), lang, c.tmpl(0)?, c.sym, Bindings::Function)?;
    Ok(func(FuncKind::Script(Box::new(f)), c.store(1)?))
}

/// `__jexl3`, `__jexl2`: comparisons of template text (`${n} > 2`) are evaluated without the
/// interpreter; a script's own words (`vars.get("x")`) are not template text to compare.
fn jexl(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let src = c.unescaped(0);
    let mut failed = None;
    let (sym, element) = (&mut *c.sym, c.element);
    let parsed = condition::parse(src.trim(), |operand| {
        compile(operand, sym, element).inspect_err(|m| failed = Some(m.clone()))
    });
    let plain = script::is_plain_comparison(&src);
    if let (
        true,
        Ok(
            cond @ Condition::Compare { .. }
            | cond @ Condition::Matches { .. }
            | cond @ Condition::Not(_)
            | cond @ Condition::And(_)
            | cond @ Condition::Or(_),
        ),
        None,
    ) = (plain, parsed, failed)
    {
        return Ok(func(FuncKind::Condition(Box::new(cond)), c.store(1)?));
    }
    let f = script::compile(&format!("__{}", c.name), Lang::Jexl, c.tmpl(0)?, c.sym, Bindings::Function)?;
    Ok(func(FuncKind::Script(Box::new(f)), c.store(1)?))
}

/// `__timeShift(format,date,shift[,locale[,var]])`.
fn time_shift(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let n = c.n();
    let args = c.tmpls(0..n)?;
    if n == 5 {
        dates::locale(args.get(3))?;
    }
    let format = dates::pattern(&args[0], "format")?;
    let f = DateFn::Shift { format, date: args[1].clone(), amount: args[2].clone() };
    Ok(func(FuncKind::Date(Box::new(f)), c.store(n - 1)?))
}

/// `__dateTimeConvert(date,source format,target format[,var])`.
fn date_time_convert(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let args = c.tmpls(0..3)?;
    let source = dates::pattern(&args[1], "source format")?;
    let target = dates::pattern(&args[2], "target format")?
        .unwrap_or_else(|| JavaDateFormat::compile_java_time("").expect("the empty pattern"));
    let f = DateFn::Convert { date: args[0].clone(), source, target };
    Ok(func(FuncKind::Date(Box::new(f)), c.store(3)?))
}

/// `__RandomDate(format,start,end[,locale[,var]])`.
fn random_date(c: &mut Call<'_>) -> Result<Seg, TemplateError> {
    let args = c.tmpls(0..c.n().min(4))?;
    dates::locale(args.get(3))?;
    let format = match dates::pattern(&args[0], "format")? {
        Some(f) => f,
        None => JavaDateFormat::compile_java_time("yyyy-MM-dd").expect("a valid pattern"),
    };
    let f = DateFn::Random { format, start: args[1].clone(), end: args[2].clone() };
    Ok(func(FuncKind::Date(Box::new(f)), c.store(4)?))
}

/// The jp@gc FIFO functions, with the plugin's properties read now.
fn fifo(c: &mut Call<'_>, op: FifoOp) -> Result<Seg, TemplateError> {
    let prop = |key: &str, sym: &Symbols| {
        sym.properties.get(&format!("kg.apc.jmeter.functions.{key}")).and_then(|v| v.trim().parse::<i64>().ok())
    };
    // The plugin's defaults are Long.MAX_VALUE seconds and Integer.MAX_VALUE values.
    let timeout_s = prop("FifoTimeout", c.sym).filter(|&s| s < i64::MAX).map(|s| s.max(0) as u64);
    let capacity = prop("FifoCapacity", c.sym).filter(|&n| n < i32::MAX as i64).map(|n| n.max(0) as u32);
    let queue = c.tmpl(0)?;
    let (value, store) = match op {
        FifoOp::Put => (c.tmpl(1)?, None),
        _ => (Template::default(), c.store(1)?),
    };
    let (store, pop_into) = match (op, store) {
        (FifoOp::Pop, Some(v)) => (None, Some((v, c.sym.vars.name(v).to_string()))),
        (_, s) => (s, None),
    };
    let f = FifoFn { op, queue, value, pop_into, timeout_s, capacity };
    Ok(bound(FuncKind::Fifo(Box::new(f)), store))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::template::tests::{symbols, user};

    /// A function's name, a call of it, and whether a result is the one it must give.
    type Example = (&'static str, &'static str, fn(&str) -> bool);

    /// A call of each function and what it must give: a row bound to another function's
    /// compiling (or none) gives another result, or fails to compile.
    const CALLS: [Example; FUNCTIONS.len()] = [
        ("P", "${__P(threads)}", |r| r == "50"),
        ("property", "${__property(nope)}", |r| r == "nope"),
        ("isPropDefined", "${__isPropDefined(threads)}", |r| r == "true"),
        ("env", "${__env(TOKEN_FILE)}", |r| r == "/tmp/t"),
        ("UUID", "${__UUID()}", |r| r.len() == 36 && r.matches('-').count() == 4),
        ("time", "${__time(/1000)}", |r| r.len() == 10 && r.bytes().all(|b| b.is_ascii_digit())),
        ("counter", "${__counter(TRUE)}", |r| r == "1"),
        ("threadNum", "${__threadNum}", |r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit())),
        ("Random", "${__Random(5,5)}", |r| r == "5"),
        ("RandomString", "${__RandomString(4,x)}", |r| r == "xxxx"),
        ("V", "${__V(host)}", |r| r == "127.0.0.1"),
        ("isVarDefined", "${__isVarDefined(host)}", |r| r == "true"),
        ("eval", "${__eval(${port})}", |r| r == "8080"),
        ("evalVar", "${__evalVar(port)}", |r| r == "8080"),
        ("split", "${__split(a|b,p,|)}", |r| r == "a|b"),
        ("intSum", "${__intSum(1,2)}", |r| r == "3"),
        ("longSum", "${__longSum(4000000000,1)}", |r| r == "4000000001"),
        ("urlencode", "${__urlencode(a b)}", |r| r == "a+b"),
        ("urldecode", "${__urldecode(a+b)}", |r| r == "a b"),
        ("escapeHtml", "${__escapeHtml(<')}", |r| r == "&lt;'"),
        ("unescapeHtml", "${__unescapeHtml(&lt;)}", |r| r == "<"),
        ("escapeXml", "${__escapeXml(<')}", |r| r == "&lt;&apos;"),
        ("char", "${__char(65)}", |r| r == "A"),
        ("changeCase", "${__changeCase(ab,UPPER)}", |r| r == "AB"),
        ("digest", "${__digest(MD5,abc)}", |r| r == "900150983cd24fb0d6963f7d28e17f72"),
        ("machineName", "${__machineName()}", |r| !r.is_empty()),
        ("machineIP", "${__machineIP()}", |r| r.parse::<std::net::IpAddr>().is_ok()),
        ("TestPlanName", "${__TestPlanName}", |r| r == "plan.jmx"),
        ("threadGroupName", "${__threadGroupName}", |r| r == "Group"),
        ("samplerName", "${__samplerName}", |r| r == "Sampler"),
        ("log", "${__log(hi)}", |r| r == "hi"),
        ("logn", "${__logn(hi)}", |r| r.is_empty()),
        ("RandomFromMultipleVars", "${__RandomFromMultipleVars(host)}", |r| r == "127.0.0.1"),
        ("FileToString", "${__FileToString(body.txt)}", |r| r == "body\n"),
        ("StringFromFile", "${__StringFromFile(lines.txt)}", |r| r == "one"),
        ("CSVRead", "${__CSVRead(rows.csv,1)}", |r| r == "1"),
        ("jexl3", "${__jexl3(1 < 2)}", |r| r == "true"),
        ("jexl2", "${__jexl2(2 < 1)}", |r| r == "false"),
        ("BeanShell", "${__BeanShell(\"a\" + 1)}", |r| r == "a1"),
        ("groovy", "${__groovy([1\\, 2].size())}", |r| r == "2"),
        ("javaScript", "${__javaScript(7 / 2)}", |r| r == "3.5"),
        ("timeShift", "${__timeShift(yyyy-MM-dd,2024-02-28,P1D,,)}", |r| r == "2024-02-29"),
        ("dateTimeConvert", "${__dateTimeConvert(29/02/2024,dd/MM/yyyy,yyyyMMdd)}", |r| r == "20240229"),
        ("RandomDate", "${__RandomDate(yyyy-MM-dd,2024-01-30,2024-01-31,,)}", |r| r == "2024-01-30"),
        ("fifoPut", "${__fifoPut(q,v)}", |r| r == "v"),
        ("fifoPop", "${__fifoPop(q)}", |r| r == "null"),
        ("fifoGet", "${__fifoGet(q)}", |r| r.is_empty()),
        ("fifoSize", "${__fifoSize(q)}", |r| r == "0"),
        ("setProperty", "${__setProperty(k,v,true)}", |r| r == "null"),
    ];

    /// Each row of [`FUNCTIONS`] compiles its own function and gives that function's result.
    #[test]
    fn every_function_row_compiles_and_renders_its_own_function() {
        let dir = std::env::temp_dir().join(format!("stampede-fn-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("body.txt"), "body\n").unwrap();
        std::fs::write(dir.join("lines.txt"), "one\ntwo\n").unwrap();
        std::fs::write(dir.join("rows.csv"), "a,1\nb,2\n").unwrap();
        for f in &FUNCTIONS {
            let Some((_, src, ok)) = CALLS.iter().find(|(name, _, _)| *name == f.name) else {
                panic!("`__{}` has no call in CALLS", f.name)
            };
            let mut s = symbols();
            s.base_dir = Some(dir.clone());
            s.script_name = Some("plan.jmx".into());
            s.thread_group = Some("Group".into());
            s.sampler = Some("Sampler".into());
            let mut t = compile(src, &mut s, "f").unwrap_or_else(|e| panic!("{src}: {e}"));
            t.fold(&s.vars);
            let got = t.render_string(&mut user(&s));
            assert!(ok(&got), "{src} gave `{got}`");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The argument counts checked at load time are the rows'.
    #[test]
    fn each_row_s_argument_count_is_checked_before_it_compiles() {
        for f in FUNCTIONS.iter().filter(|f| f.max != ANY) {
            let args = vec!["1"; f.max + 1].join(",");
            let e = compile(&format!("${{__{}({args})}}", f.name), &mut symbols(), "f").unwrap_err().to_string();
            assert!(e.contains("wrong number of parameters"), "__{}: {e}", f.name);
        }
        for f in FUNCTIONS.iter().filter(|f| f.min > 0) {
            let args = vec!["1"; f.min - 1].join(",");
            let e = compile(&format!("${{__{}({args})}}", f.name), &mut symbols(), "f").unwrap_err().to_string();
            assert!(e.contains("wrong number of parameters") || f.min == 1, "__{}: {e}", f.name);
        }
    }

    /// `docs/jmx.md`'s paragraph of the functions stampede runs names exactly the table's.
    #[test]
    fn the_functions_docs_jmx_md_lists_are_the_table_s() {
        let doc = include_str!("../../../docs/jmx.md");
        let from = doc.find("Functions, with JMeter 5.6.3's arguments").expect("the paragraph of functions");
        let to = from + doc[from..].find("A call whose arguments are constant").expect("its end");
        let re = regex::Regex::new(r"`__([A-Za-z0-9]+)").unwrap();
        let mut listed: Vec<&str> = re.captures_iter(&doc[from..to]).map(|c| c.get(1).unwrap().as_str()).collect();
        listed.sort_unstable();
        listed.dedup();
        let mut table: Vec<&str> = FUNCTION_NAMES.to_vec();
        table.sort_unstable();
        assert_eq!(listed, table, "docs/jmx.md's list of functions");
    }
}
