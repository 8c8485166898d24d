//! The methods of `sampler` (JMeter's `HTTPSamplerProxy`) and of the objects it hands out
//! (`getArguments()`, `getArguments().getArgument(i)`, `getHeaderManager()`,
//! `getCookieManager()`) as tables: one row per method, dispatched from the same rows the
//! every-row test reads. The methods take any number of arguments (a missing one reads as
//! empty), as stampede always has.

use super::{all_args, arg_i64, arg_str, header_of, no_method, read_upload, Env, SamplerEdits, ScriptCookie, Upload};
use super::{ARGUMENT, ARGUMENTS, COOKIES, HEADERS};
use crate::plan::sampler::script::SamplerInfo;
use crate::plan::script_host::{lookup, row, Lookup, Row, ANY};
use crate::script::{HostRef, Key, Thrown, Value};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};

/// What the methods of a sampler work on: the sampler as the plan has it and the edits its
/// script made so far.
pub(super) struct Sampler<'a> {
    pub(super) info: &'a SamplerInfo,
    pub(super) edits: &'a mut SamplerEdits,
    pub(super) env: &'a Env,
    /// The files the script element names (it may read them).
    pub(super) writes: &'a [PathBuf],
}

type Method = fn(&mut Sampler<'_>, &[Value]) -> Result<Value, Thrown>;

/// Calls `method` on the object `target` (the sampler or one of its objects).
pub(super) fn call(s: &mut Sampler<'_>, target: HostRef, method: &str, args: &[Value]) -> Result<Value, Thrown> {
    if target.0 >= ARGUMENT {
        let all = all_args(s.info, s.edits);
        let Some((n, v, _)) = all.get((target.0 - ARGUMENT) as usize) else {
            return no_method("HTTPArgument", method);
        };
        return match lookup(&ARGUMENT_METHODS, method, args.len()) {
            Lookup::Found(f) => Ok(f(n, v)),
            Lookup::WrongCount | Lookup::Unknown => no_method("HTTPArgument", method),
        };
    }
    let (rows, class): (&[Row<Method>], _) = match target {
        ARGUMENTS => (&ARGUMENTS_METHODS, "Arguments"),
        COOKIES => (&COOKIE_MANAGER_METHODS, "CookieManager"),
        HEADERS => (&HEADER_MANAGER_METHODS, "HeaderManager"),
        _ => (&SAMPLER_METHODS, "HTTPSamplerProxy"),
    };
    match lookup(rows, method, args.len()) {
        Lookup::Found(f) => f(s, args),
        Lookup::WrongCount | Lookup::Unknown => no_method(class, method),
    }
}

/// A method of `HTTPArgument`, on its name and value.
type ArgumentMethod = fn(&str, &str) -> Value;

/// `HTTPArgument`'s methods.
pub(super) const ARGUMENT_METHODS: [Row<ArgumentMethod>; 3] = [
    row("getName", 0, ANY, |n, _| n.into()),
    row("getValue", 0, ANY, |_, v| v.into()),
    row("toString", 0, ANY, |n, v| format!("{n}={v}").into()),
];

/// `Arguments`' methods: the plan's arguments, then those the script added.
pub(super) const ARGUMENTS_METHODS: [Row<Method>; 5] = [
    row("getArgumentCount", 0, ANY, |s, _| Ok(Value::Int(all_args(s.info, s.edits).len() as i32))),
    row("size", 0, ANY, |s, _| Ok(Value::Int(all_args(s.info, s.edits).len() as i32))),
    row("getArgument", 0, ANY, |s, a| {
        let (i, n) = (arg_i64(a, 0), all_args(s.info, s.edits).len());
        if i < 0 || i as usize >= n {
            return Err(Thrown::new("java.lang.IndexOutOfBoundsException", format!("Index: {i}")));
        }
        Ok(Value::Host(HostRef(ARGUMENT + i as u32)))
    }),
    row("getArgumentsAsMap", 0, ANY, |s, _| {
        let mut m = IndexMap::new();
        for (n, v, _) in all_args(s.info, s.edits) {
            m.insert(Key(n.into()), Value::from(v));
        }
        Ok(Value::map(m))
    }),
    row("addArgument", 0, ANY, |s, a| add_argument(s, a, false)),
];

/// `CookieManager`'s methods: cookies added go to the user's store as the script returns.
pub(super) const COOKIE_MANAGER_METHODS: [Row<Method>; 3] = [
    row("add", 0, ANY, add_cookie),
    row("getCookieCount", 0, ANY, |s, _| Ok(Value::Int(s.edits.cookies.len() as i32))),
    row("size", 0, ANY, |s, _| Ok(Value::Int(s.edits.cookies.len() as i32))),
];

/// `HeaderManager`'s methods.
pub(super) const HEADER_MANAGER_METHODS: [Row<Method>; 4] = [
    row("add", 0, ANY, |s, a| {
        // `new Header(name, value)` arrives as a map or a two-item list from the classes; a
        // pair of strings too.
        let (n, v) = header_of(a);
        s.edits.removed_headers.retain(|r| !r.eq_ignore_ascii_case(&n));
        s.edits.headers.push((n, v));
        Ok(Value::Null)
    }),
    row("removeHeaderNamed", 0, ANY, |s, a| {
        let n = a0(a);
        s.edits.headers.retain(|(h, _)| !h.eq_ignore_ascii_case(&n));
        s.edits.removed_headers.push(n);
        Ok(Value::Null)
    }),
    row("size", 0, ANY, |s, _| Ok(Value::Int(s.edits.headers.len() as i32))),
    row("getHeaders", 0, ANY, |s, _| Ok(Value::Int(s.edits.headers.len() as i32))),
];

/// `HTTPSamplerProxy`'s methods: the fields a script reads are the plan's unless it changed
/// them.
pub(super) const SAMPLER_METHODS: [Row<Method>; 26] = [
    row("getName", 0, ANY, |s, _| Ok(field(&s.edits.name, Some(&s.info.name)))),
    row("getLabel", 0, ANY, |s, _| Ok(field(&s.edits.name, Some(&s.info.name)))),
    row("setName", 0, ANY, |s, a| set(&mut s.edits.name, a0(a))),
    row("getPath", 0, ANY, |s, _| Ok(field(&s.edits.path, s.info.http.as_ref().map(|h| h.path.as_str())))),
    row("setPath", 0, ANY, |s, a| set(&mut s.edits.path, a0(a))),
    row("getDomain", 0, ANY, |s, _| Ok(field(&s.edits.domain, s.info.http.as_ref().map(|h| h.domain.as_str())))),
    row("setDomain", 0, ANY, |s, a| set(&mut s.edits.domain, a0(a))),
    row("getPort", 0, ANY, |s, _| Ok(Value::Int(port(s) as i32))),
    row("setPort", 0, ANY, |s, a| {
        s.edits.port = u16::try_from(arg_i64(a, 0)).ok();
        Ok(Value::Null)
    }),
    row("getProtocol", 0, ANY, |s, _| Ok(field(&s.edits.protocol, s.info.http.as_ref().map(|h| h.protocol.as_str())))),
    row("setProtocol", 0, ANY, |s, a| set(&mut s.edits.protocol, a0(a))),
    row("getMethod", 0, ANY, |s, _| Ok(field(&s.edits.method, s.info.http.as_ref().map(|h| h.method.as_str())))),
    row("setMethod", 0, ANY, |s, a| set(&mut s.edits.method, a0(a).to_ascii_uppercase())),
    row("getUrl", 0, ANY, url),
    row("getArguments", 0, ANY, |_, _| Ok(Value::Host(ARGUMENTS))),
    row("addArgument", 0, ANY, |s, a| add_argument(s, a, false)),
    row("addEncodedArgument", 0, ANY, |s, a| add_argument(s, a, true)),
    row("addNonEncodedArgument", 0, ANY, |s, a| add_argument(s, a, true)),
    row("getHeaderManager", 0, ANY, |_, _| Ok(Value::Host(HEADERS))),
    row("setHTTPFiles", 0, ANY, set_http_files),
    row("getHTTPFiles", 0, ANY, |_, _| Ok(Value::array(Vec::new()))),
    row("getCookieManager", 0, ANY, |s, _| Ok(if s.env.cookie_manager { Value::Host(COOKIES) } else { Value::Null })),
    row("getPostBodyRaw", 0, ANY, |s, _| Ok(Value::Bool(s.edits.body.is_some()))),
    row("setPostBodyRaw", 0, ANY, |_, _| Ok(Value::Null)),
    row("getPropertyAsString", 0, ANY, property_as_string),
    row("toString", 0, ANY, |s, _| Ok(field(&s.edits.name, Some(&s.info.name)))),
];

fn a0(args: &[Value]) -> String {
    arg_str(args, 0).unwrap_or_default()
}

/// A field as the script sees it: its edit, else the plan's value, else empty.
fn field(edit: &Option<String>, plan: Option<&str>) -> Value {
    Value::from(edit.clone().unwrap_or_else(|| plan.unwrap_or("").to_string()))
}

fn set(edit: &mut Option<String>, value: String) -> Result<Value, Thrown> {
    *edit = Some(value);
    Ok(Value::Null)
}

fn port(s: &Sampler<'_>) -> u16 {
    s.edits.port.or(s.info.http.as_ref().map(|h| h.port)).unwrap_or(0)
}

fn add_argument(s: &mut Sampler<'_>, args: &[Value], encoded: bool) -> Result<Value, Thrown> {
    s.edits.args.push((a0(args), arg_str(args, 1).unwrap_or_default(), encoded));
    Ok(Value::Null)
}

/// `getUrl()`: the URL the sampler would send to, without a default port.
fn url(s: &mut Sampler<'_>, _: &[Value]) -> Result<Value, Thrown> {
    let Some(h) = s.info.http.as_ref() else { return no_method("Sampler", "getUrl") };
    let e = &s.edits;
    let proto = e.protocol.clone().unwrap_or_else(|| h.protocol.clone());
    let domain = e.domain.clone().unwrap_or_else(|| h.domain.clone());
    let port = e.port.unwrap_or(h.port);
    let path = e.path.clone().unwrap_or_else(|| h.path.clone());
    let default = (proto == "http" && port == 80) || (proto == "https" && port == 443);
    let port = if default { String::new() } else { format!(":{port}") };
    Ok(Value::str(format!("{proto}://{domain}{port}{path}")))
}

/// `getPropertyAsString(name)` of the properties a script reads of an HTTP sampler.
fn property_as_string(s: &mut Sampler<'_>, args: &[Value]) -> Result<Value, Thrown> {
    let (e, http) = (&s.edits, s.info.http.as_ref());
    Ok(match a0(args).as_str() {
        "HTTPSampler.path" => field(&e.path, http.map(|h| h.path.as_str())),
        "HTTPSampler.domain" => field(&e.domain, http.map(|h| h.domain.as_str())),
        "HTTPSampler.method" => field(&e.method, http.map(|h| h.method.as_str())),
        "HTTPSampler.protocol" => field(&e.protocol, http.map(|h| h.protocol.as_str())),
        "HTTPSampler.port" => Value::str(port(s).to_string()),
        "TestElement.name" => field(&e.name, Some(&s.info.name)),
        _ => "".into(),
    })
}

/// `setHTTPFiles(HTTPFileArg[])`: the files are read now, under the scripts' file policy.
fn set_http_files(s: &mut Sampler<'_>, args: &[Value]) -> Result<Value, Thrown> {
    let mut files = Vec::new();
    for f in args.first().and_then(crate::script::items_of).unwrap_or_default() {
        let Some(("org.apache.jmeter.protocol.http.util.HTTPFileArg", fields)) = crate::script::jmeter_record(&f)
        else {
            return no_method("HTTPSamplerProxy", "setHTTPFiles");
        };
        let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_default();
        let path = get("path");
        if path.is_empty() {
            continue;
        }
        let bytes = read_upload(s.env, s.writes, &path)?;
        let file_name = Path::new(&path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        files.push(Upload { param: get("paramName"), file_name, mime: get("mimeType"), bytes });
    }
    s.edits.files = Some(files);
    Ok(Value::Null)
}

/// `getCookieManager().add(new Cookie(...))`.
fn add_cookie(s: &mut Sampler<'_>, args: &[Value]) -> Result<Value, Thrown> {
    let Some(("org.apache.jmeter.protocol.http.control.Cookie", fields)) =
        args.first().and_then(crate::script::jmeter_record)
    else {
        return Err(Thrown::new(
            "groovy.lang.MissingMethodException",
            "CookieManager.add() takes an org.apache.jmeter.protocol.http.control.Cookie",
        ));
    };
    let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_default();
    s.edits.cookies.push(ScriptCookie {
        name: get("name"),
        value: get("value"),
        domain: get("domain"),
        path: get("path"),
        secure: get("secure") == "true",
        expires: get("expires").parse().unwrap_or(0),
    });
    Ok(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of each table is reached by [`call`] on its object and runs (a row the
    /// dispatch misses answers Groovy's "No signature of method").
    #[test]
    fn every_row_of_the_sampler_tables_is_dispatched() {
        let info = crate::engine::scripting::tests::http_sampler();
        let env = Env::default();
        let tables: [(HostRef, &str, Vec<&str>); 4] = [
            (HostRef(0), "HTTPSamplerProxy", SAMPLER_METHODS.iter().map(|r| r.name).collect()),
            (ARGUMENTS, "Arguments", ARGUMENTS_METHODS.iter().map(|r| r.name).collect()),
            (COOKIES, "CookieManager", COOKIE_MANAGER_METHODS.iter().map(|r| r.name).collect()),
            (HEADERS, "HeaderManager", HEADER_MANAGER_METHODS.iter().map(|r| r.name).collect()),
        ];
        let argument = (HostRef(ARGUMENT), "HTTPArgument", ARGUMENT_METHODS.iter().map(|r| r.name).collect());
        for (target, class, names) in tables.into_iter().chain([argument]) {
            for name in names {
                let mut edits = SamplerEdits::default();
                let mut s = Sampler { info: &info, edits: &mut edits, env: &env, writes: &[] };
                let r = call(&mut s, target, name, &[Value::Int(0), Value::from("v")]);
                let missing = format!("No signature of method: {class}.{name}()");
                assert!(!r.as_ref().is_err_and(|e| e.message.starts_with(&missing)), "{class}.{name}: {r:?}");
            }
        }
        let mut edits = SamplerEdits::default();
        let mut s = Sampler { info: &info, edits: &mut edits, env: &env, writes: &[] };
        assert!(call(&mut s, HostRef(0), "getNothing", &[])
            .unwrap_err()
            .message
            .contains("HTTPSamplerProxy.getNothing"));
    }
}
