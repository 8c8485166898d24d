//! JMeter's classes a script names: their statics go to the host
//! ([`crate::Host::call_static`]), which owns JMeter's state; the small value classes
//! (`Header`, `Cookie`, `Argument`, their managers, `AssertionResult`) are objects here, which
//! the host reads back ([`super::header_fields`], ...) when a script hands them to a sampler.
//! Loggers (`LoggerFactory.getLogger`) print through the host as `org.slf4j.Logger`.

use super::{arg, int_arg, native_base, no_method, obj, st, str_arg, Class, VAR};
use crate::value::{lock, Key, Native, Value};
use crate::{Ctx, Thrown};
use indexmap::IndexMap;
use std::sync::Mutex;

pub(super) const CLASSES: &[Class] = &[
    Class {
        name: "org.apache.jmeter.util.JMeterUtils",
        new: None,
        statics: &[
            st("getProperty", 0, VAR, call_static),
            st("getPropDefault", 0, VAR, call_static),
            st("setProperty", 0, VAR, call_static),
            st("getJMeterProperties", 0, VAR, call_static),
            st("getJMeterHome", 0, VAR, call_static),
            st("getJMeterBinDir", 0, VAR, call_static),
            st("getResString", 0, VAR, call_static),
            st("getLocalHostName", 0, VAR, call_static),
            st("getLocalHostIP", 0, VAR, call_static),
            st("getLocalHostFullName", 0, VAR, call_static),
            st("getJMeterVersion", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class {
        name: "org.apache.jmeter.services.FileServer",
        new: None,
        statics: &[
            st("getFileServer", 0, VAR, call_static),
            st("getDefaultBase", 0, VAR, call_static),
            st("resolveBaseRelativeName", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class {
        name: "org.apache.jmeter.threads.JMeterContextService",
        new: None,
        statics: &[
            st("getContext", 0, VAR, call_static),
            st("getTotalThreads", 0, VAR, call_static),
            st("getNumberOfThreads", 0, VAR, call_static),
            st("getThreadCounts", 0, VAR, call_static),
            st("getTestStartTime", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class { name: "org.apache.jmeter.threads.JMeterVariables", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "org.apache.jmeter.threads.JMeterContext", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "org.apache.jmeter.samplers.SampleResult", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "org.apache.jmeter.protocol.http.control.Header", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "org.apache.jmeter.protocol.http.control.HeaderManager",
        new: Some(construct),
        statics: &[],
        fields: &[],
    },
    Class { name: "org.apache.jmeter.protocol.http.control.Cookie", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "org.apache.jmeter.protocol.http.util.HTTPFileArg", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "org.apache.jmeter.protocol.http.control.CookieManager",
        new: Some(construct),
        statics: &[],
        fields: &[],
    },
    Class { name: "org.apache.jmeter.config.Arguments", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "org.apache.jmeter.config.Argument", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "org.apache.jmeter.protocol.http.util.HTTPArgument",
        new: Some(construct),
        statics: &[],
        fields: &[],
    },
    Class { name: "org.apache.jmeter.assertions.AssertionResult", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "org.apache.jmeter.protocol.http.control.HttpMirrorServer",
        new: Some(construct),
        statics: &[],
        fields: &[],
    },
    Class { name: "org.slf4j.LoggerFactory", new: None, statics: &[st("getLogger", 0, VAR, call_static)], fields: &[] },
    Class { name: "org.slf4j.Logger", new: None, statics: &[], fields: &[] },
    Class {
        name: "org.apache.jorphan.logging.LoggingManager",
        new: None,
        statics: &[st("getLoggerForClass", 0, VAR, call_static), st("getLoggerFor", 0, VAR, call_static)],
        fields: &[],
    },
];

/// Classes whose objects the host makes (`new SampleResult()`, `new JMeterVariables()`).
const HOST_OBJECTS: &[&str] = &[
    "org.apache.jmeter.threads.JMeterVariables",
    "org.apache.jmeter.samplers.SampleResult",
    "org.apache.jmeter.threads.JMeterContext",
    "org.apache.jmeter.protocol.http.control.HttpMirrorServer",
];

fn construct(cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    let s = |i: usize| arg(&args, i).to_string();
    match class {
        c if HOST_OBJECTS.contains(&c) => cx.host.call_static(class, "new", args),
        "org.apache.jmeter.protocol.http.control.Header" => {
            Ok(obj(Record::new(class, &[("name", s(0)), ("value", s(1))])))
        }
        "org.apache.jmeter.config.Argument" | "org.apache.jmeter.protocol.http.util.HTTPArgument" => {
            Ok(obj(Record::new(
                class,
                &[("name", s(0)), ("value", s(1)), ("metaData", if args.len() > 2 { s(2) } else { "=".into() })],
            )))
        }
        "org.apache.jmeter.protocol.http.control.Cookie" => Ok(obj(Record::new(
            class,
            &[("name", s(0)), ("value", s(1)), ("domain", s(2)), ("path", s(3)), ("secure", s(4)), ("expires", s(5))],
        ))),
        // `new HTTPFileArg(path[, paramName, mimeType])`: a file for `sampler.setHTTPFiles`.
        "org.apache.jmeter.protocol.http.util.HTTPFileArg" => {
            let t = |i: usize| if args.len() > i { s(i) } else { String::new() };
            Ok(obj(Record::new(class, &[("path", t(0)), ("paramName", t(1)), ("mimeType", t(2))])))
        }
        "org.apache.jmeter.assertions.AssertionResult" => Ok(obj(Record::new(
            class,
            &[
                ("name", s(0)),
                ("failure", "false".into()),
                ("error", "false".into()),
                ("failureMessage", String::new()),
            ],
        ))),
        "org.apache.jmeter.protocol.http.control.HeaderManager"
        | "org.apache.jmeter.protocol.http.control.CookieManager"
        | "org.apache.jmeter.config.Arguments" => Ok(obj(Collection { class, items: Mutex::new(Vec::new()) })),
        _ => Err(super::illegal_arg(format!("{class} cannot be created by a script"))),
    }
}

fn call_static(cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class {
        "org.slf4j.LoggerFactory" | "org.apache.jorphan.logging.LoggingManager" => {
            let name = match arg(&args, 0) {
                Value::Class(c) => c.to_string(),
                Value::Null => "script".to_string(),
                v => v.to_string(),
            };
            Ok(obj(Logger(name)))
        }
        _ => cx.host.call_static(class, method, args),
    }
}

/// A logger: each level prints through the host (`org.slf4j.Logger`, `info`, `[message,
/// args...]`), which formats `{}` placeholders and writes JMeter's log.
#[derive(Debug)]
struct Logger(String);

impl Native for Logger {
    native_base!("org.slf4j.Logger");
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match method {
            "info" | "warn" | "error" | "debug" | "trace" => cx.host.call_static("org.slf4j.Logger", method, args),
            "fatalError" => cx.host.call_static("org.slf4j.Logger", "error", args),
            "isDebugEnabled" | "isTraceEnabled" => Ok(Value::Bool(false)),
            "isInfoEnabled" | "isWarnEnabled" | "isErrorEnabled" => Ok(Value::Bool(true)),
            "getName" => Ok(Value::str(self.0.as_str())),
            _ => Err(no_method("org.slf4j.Logger", method)),
        }
    }
}

/// A JMeter value object (`Header`, `Cookie`, `Argument`, `AssertionResult`): named fields,
/// read with `getX()`/`isX()`, written with `setX(v)`.
#[derive(Debug)]
pub(crate) struct Record {
    class: &'static str,
    pub fields: Mutex<IndexMap<String, String>>,
}

impl Record {
    fn new(class: &'static str, fields: &[(&str, String)]) -> Record {
        Record { class, fields: Mutex::new(fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()) }
    }

    pub(crate) fn field(&self, name: &str) -> String {
        lock(&self.fields).get(name).cloned().unwrap_or_default()
    }
}

fn uncapitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_lowercase().chain(c).collect()).unwrap_or_default()
}

impl Native for Record {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut fields = lock(&self.fields);
        if let Some(name) = method.strip_prefix("get").or_else(|| method.strip_prefix("is")).filter(|_| args.is_empty())
        {
            let name = uncapitalize(name);
            let v = fields.get(&name).ok_or_else(|| no_method(self.class, method))?;
            return Ok(match v.as_str() {
                "true" | "false" if method.starts_with("is") || matches!(name.as_str(), "secure") => {
                    Value::Bool(v == "true")
                }
                _ => Value::str(v.as_str()),
            });
        }
        if let Some(name) = method.strip_prefix("set").filter(|_| args.len() == 1) {
            let name = uncapitalize(name);
            if !fields.contains_key(&name) {
                return Err(no_method(self.class, method));
            }
            fields.insert(name, args[0].to_string());
            return Ok(Value::Null);
        }
        match method {
            "toString" => Ok(Value::str(fields.values().cloned().collect::<Vec<_>>().join("\t"))),
            "setAlwaysEncoded" | "setUseEquals" => Ok(Value::Null),
            _ => Err(no_method(self.class, method)),
        }
    }
}

/// `HeaderManager`, `CookieManager`, `Arguments`: a list of records.
#[derive(Debug)]
pub(crate) struct Collection {
    class: &'static str,
    pub items: Mutex<Vec<Value>>,
}

impl Native for Collection {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut items = lock(&self.items);
        let named = |v: &Value, name: &str| {
            super::downcast::<Record>(v).is_some_and(|r| r.field("name").eq_ignore_ascii_case(name))
        };
        match (method, args.len()) {
            ("add", 1) => {
                items.push(args[0].clone());
                Ok(Value::Null)
            }
            ("addArgument", 2 | 3) => {
                let meta = if args.len() == 3 { args[2].to_string() } else { "=".into() };
                items.push(obj(Record::new(
                    "org.apache.jmeter.config.Argument",
                    &[("name", args[0].to_string()), ("value", args[1].to_string()), ("metaData", meta)],
                )));
                Ok(Value::Null)
            }
            ("addArgument", 1) => {
                items.push(args[0].clone());
                Ok(Value::Null)
            }
            ("size" | "getCookieCount" | "getArgumentCount", 0) => Ok(Value::Int(items.len() as i32)),
            ("get" | "getArgument", 1) => {
                let i = int_arg(&args, 0)?;
                items.get(usize::try_from(i).unwrap_or(usize::MAX)).cloned().ok_or_else(|| {
                    Thrown::new(
                        "java.lang.IndexOutOfBoundsException",
                        format!("Index {i} out of bounds for length {}", items.len()),
                    )
                })
            }
            ("getHeaders" | "getCookies" | "getArguments", 0) => Ok(Value::list(items.clone())),
            ("getFirstHeaderNamed", 1) => {
                let name = str_arg(&args, 0)?;
                Ok(items
                    .iter()
                    .find(|h| named(h, &name))
                    .and_then(super::downcast::<Record>)
                    .map(|r| Value::str(r.field("value")))
                    .unwrap_or(Value::Null))
            }
            ("removeHeaderNamed" | "removeArgument", 1) => {
                let name = str_arg(&args, 0)?;
                items.retain(|h| !named(h, &name));
                Ok(Value::Null)
            }
            ("getArgumentsAsMap", 0) => {
                let mut m = IndexMap::new();
                for a in items.iter().filter_map(super::downcast::<Record>) {
                    m.insert(Key(Value::str(a.field("name"))), Value::str(a.field("value")));
                }
                Ok(Value::map(m))
            }
            ("clear" | "removeAllArguments" | "clearCookies", 0) => {
                items.clear();
                Ok(Value::Null)
            }
            _ => Err(no_method(self.class, method)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::s;
    use super::super::{call_static, construct, header_fields};
    use super::*;
    use crate::{Host, HostRef, Lang};

    #[derive(Default)]
    struct Recorder(Vec<String>);

    impl Host for Recorder {
        fn call(&mut self, _t: HostRef, method: &str, _a: Vec<Value>) -> Result<Value, Thrown> {
            Err(Thrown::no_method("Object", method))
        }
        fn call_static(&mut self, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
            self.0.push(format!("{class}.{method}{args:?}"));
            Ok(Value::str("from host"))
        }
    }

    #[test]
    fn statics_go_to_the_host_and_headers_are_readable() {
        let mut host = Recorder::default();
        let cx = &mut Ctx { host: &mut host, lang: Lang::Groovy, state: Default::default() };
        let v = call_static(cx, "org.apache.jmeter.util.JMeterUtils", "getProperty", vec![s("x")]).unwrap();
        assert_eq!(v.to_string(), "from host");
        let log = call_static(cx, "org.slf4j.LoggerFactory", "getLogger", vec![s("t")]).unwrap();
        let Value::Object(l) = &log else { panic!() };
        l.call(cx, "info", vec![s("hello {}"), Value::Int(1)]).unwrap();
        let h = construct(cx, "org.apache.jmeter.protocol.http.control.Header", vec![s("X-Token"), s("abc")]).unwrap();
        let Value::Object(o) = &h else { panic!() };
        assert_eq!(o.call(cx, "getValue", vec![]).unwrap().to_string(), "abc");
        o.call(cx, "setValue", vec![s("def")]).unwrap();
        assert_eq!(header_fields(&h), Some(("X-Token".to_string(), "def".to_string())));
        let hm = construct(cx, "org.apache.jmeter.protocol.http.control.HeaderManager", vec![]).unwrap();
        let Value::Object(m) = &hm else { panic!() };
        m.call(cx, "add", vec![h]).unwrap();
        assert_eq!(m.call(cx, "getFirstHeaderNamed", vec![s("x-token")]).unwrap().to_string(), "def");
        assert_eq!(
            host.0,
            [
                "org.apache.jmeter.util.JMeterUtils.getProperty[\"x\"]",
                "org.slf4j.Logger.info[\"hello {}\", Integer(1)]"
            ]
        );
    }
}
