//! The functions a template may call (JMeter's `__P`, `__property`, `__env`, `__V`, `__UUID`,
//! `__time`, `__counter`, `__threadNum`, `__Random`, `__RandomString`): how each call is
//! compiled from its arguments, and what it appends when rendered.

use super::compile::{compile, expand};
use super::{local_offset, Scope, Seg, Symbols, Template, TemplateError, VarId, VarTable, MAX_RANDOM_STRING};
use crate::plan::javatime::JavaDateFormat;
use rand::Rng;
use std::fmt::Write as _;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Num {
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
pub(super) struct Func {
    kind: FuncKind,
    /// JMeter's optional last argument: also store the result in this variable.
    pub(super) store: Option<VarId>,
}
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
impl Func {
    /// Appends the call's result to `out`.
    pub(super) fn call<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) {
        self.kind.call(u, out)
    }

    pub(super) fn fold(&mut self, vars: &VarTable) {
        self.kind.fold(vars)
    }

    /// Every variable the call's arguments read, appended to `out`.
    pub(super) fn vars(&self, out: &mut Vec<VarId>) {
        match &self.kind {
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
        }
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
const FUNCTIONS: [&str; 10] =
    ["P", "property", "env", "UUID", "time", "counter", "threadNum", "Random", "RandomString", "V"];

/// A function's argument that cannot be used.
fn arg(message: impl Into<String>) -> TemplateError {
    TemplateError::Argument(message.into())
}

pub(super) fn function(name: &str, raw: &[&str], sym: &mut Symbols, element: &str) -> Result<Seg, TemplateError> {
    let unescape = |a: &str| a.replace("\\,", ",");
    // Arguments fixed at load time (property names, defaults, formats).
    let fixed = |i: usize, sym: &mut Symbols| -> Result<Option<String>, TemplateError> {
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
            let key = fixed(0, sym)?.ok_or_else(|| arg("a property name is needed"))?;
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
            let key = fixed(0, sym)?.ok_or_else(|| arg("an environment variable name is needed"))?;
            return match sym.env_var(key.trim()) {
                Some(v) => {
                    sym.secrets.add(&v);
                    Ok(Seg::Lit(v))
                }
                None => fixed(1, sym)?.map(Seg::Lit).ok_or_else(|| {
                    arg(format!("environment variable `{}` is not set and there is no default", key.trim()))
                }),
            };
        }
        "V" => {
            // `${__V(name)}`: a variable whose name is computed; only fixed names are supported.
            let var = fixed(0, sym)?.ok_or_else(|| arg("a variable name is needed"))?;
            return Ok(Seg::Var(sym.vars.use_var(var.trim(), element)));
        }
        "UUID" => FuncKind::Uuid,
        "threadNum" => FuncKind::ThreadNum,
        "time" => {
            let fmt = fixed(0, sym)?;
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
                other => {
                    return Err(arg(format!("the first argument is TRUE (per user) or FALSE (shared), not `{other}`")))
                }
            };
            let slot = if per_user { &mut sym.user_counters } else { &mut sym.global_counters };
            *slot += 1;
            let kind = FuncKind::Counter { per_user, slot: *slot - 1 };
            return Ok(Seg::Func(Box::new(Func { kind, store: store(1, sym) })));
        }
        "Random" => {
            if raw.len() < 2 {
                return Err(arg("`__Random(min,max)` needs two numbers"));
            }
            let min = num(raw[0], sym, element)?;
            let max = num(raw[1], sym, element)?;
            FuncKind::Random { min, max }
        }
        "RandomString" => {
            let len = num(raw.first().copied().unwrap_or(""), sym, element)?;
            if let Num::Const(n) = len {
                if n > MAX_RANDOM_STRING as i64 {
                    return Err(arg(format!(
                        "a length of {n} is above the limit of {MAX_RANDOM_STRING} characters (1 MiB) a generated string may have"
                    )));
                }
            }
            let chars = compile(&unescape(raw.get(1).copied().unwrap_or("")), sym, element)?;
            FuncKind::RandomString { len, chars }
        }
        other => {
            let mut msg = format!("unknown function `__{other}`");
            if let Some(s) = crate::plan::error::closest(other, FUNCTIONS) {
                msg.push_str(&format!("; did you mean `__{s}`?"));
            } else {
                msg.push_str(&format!("; known: {}", FUNCTIONS.map(|f| format!("__{f}")).join(", ")));
            }
            return Err(TemplateError::UnknownFunction(msg));
        }
    };
    let store_at = match kind {
        FuncKind::Random { .. } | FuncKind::RandomString { .. } => 2,
        _ => 0,
    };
    let store = if store_at > 0 { store(store_at, sym) } else { None };
    Ok(Seg::Func(Box::new(Func { kind, store })))
}

fn num(raw: &str, sym: &mut Symbols, element: &str) -> Result<Num, TemplateError> {
    let t = compile(raw.trim(), sym, element)?;
    match t.as_const() {
        Some(s) => s.trim().parse().map(Num::Const).map_err(|_| arg(format!("`{s}` is not a whole number"))),
        None => Ok(Num::Dyn(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(compile("${__time(qq)}", &mut s, "f").is_err());
        assert!(compile("${a b}", &mut s, "f").unwrap_err().to_string().contains("not a variable name"));
    }
}
