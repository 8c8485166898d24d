//! Script elements at run time: the [`Host`] a script sees (`vars`, `props`, `log`, `ctx`,
//! `prev`/`SampleResult`, `sampler`, `AssertionResult`, `OUT`, JMeter's static classes and the
//! file policy), and the bindings of each place, as JMeter's `JSR223TestElement.populateBindings`
//! and the BeanShell elements give them.
//!
//! A script's `Thread.sleep` is added up while it runs and waited (on tokio's clock) after it
//! returns: the sampler's time includes it, and no worker thread is blocked while other users
//! wait. Host objects are numbers (`HostRef`) into this one execution's state: nothing is
//! allocated for them, and nothing is shared between users but the compiled script.

use super::session::UserVars;
use crate::plan::sampler::script::{Place, SamplerInfo, ScriptEl};
use crate::plan::template::Scope;
use crate::script::{lock, FileAccess, Host, HostRef, Key, Thrown, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::plan::script_host::{self, CTX, FIRST_FREE, LOG, OUT, PROPS, VARS};

mod sampler_methods;

const SAMPLE: HostRef = HostRef(FIRST_FREE);
const SAMPLER: HostRef = HostRef(FIRST_FREE + 1);
const ASSERTION: HostRef = HostRef(FIRST_FREE + 2);
const THREAD: HostRef = HostRef(FIRST_FREE + 3);
const GROUP: HostRef = HostRef(FIRST_FREE + 4);
const ARGUMENTS: HostRef = HostRef(FIRST_FREE + 5);
const HEADERS: HostRef = HostRef(FIRST_FREE + 6);
const FILE_SERVER: HostRef = HostRef(FIRST_FREE + 7);
/// The user's previous sample where it is not the one the script runs on (a pre-processor's,
/// a timer's, a script sampler's `prev`).
const PREV: HostRef = HostRef(FIRST_FREE + 8);
/// `sampler.getCookieManager()`, where the plan has an HTTP Cookie Manager.
const COOKIES: HostRef = HostRef(FIRST_FREE + 9);
/// `sampler.getArguments().getArgument(i)`: 1000 + i.
const ARGUMENT: u32 = 1000;

/// What a script may know of its user's thread and plan, the same for all its executions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Env {
    /// JMeter's thread name: `<thread group> <group number>-<thread number>`.
    pub thread_name: String,
    pub group: String,
    pub threads: u64,
    /// The plan's directory (JMeter's FileServer base directory).
    pub base_dir: PathBuf,
    /// Files the plan's other elements name (data files, write-back files), their links
    /// resolved: readable, and writable when `writable`.
    pub readable: Vec<PathBuf>,
    pub writable: Vec<PathBuf>,
    /// Where log lines go (the run's script log), if anywhere.
    pub log: Option<crate::engine::ScriptLog>,
    /// When a running script is interrupted (Ctrl-C, the end of the run or of the user).
    pub stop: Option<Stop>,
    /// The plan has an HTTP Cookie Manager: `sampler.getCookieManager()` is not null.
    pub cookie_manager: bool,
}

/// When the user's scripts must stop: its scenario is stopping, or its own end has come (the
/// deadline is read from the clock, so a script that holds its worker thread still meets it).
#[derive(Clone)]
pub(crate) struct Stop {
    pub scenario: Arc<super::session::ScenarioCtx>,
    pub until: Option<std::time::Instant>,
}

impl Stop {
    fn now(&self) -> bool {
        // The run's stop token is read too, not only the flag the scenario's watcher sets from
        // it: a script may be holding the thread that watcher would run on.
        self.scenario.stopping()
            || self.scenario.stop_was_interrupt()
            || self.until.is_some_and(|u| std::time::Instant::now() >= u)
    }
}

impl std::fmt::Debug for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stop").field("until", &self.until).finish_non_exhaustive()
    }
}

/// A sample as `prev`/`SampleResult` shows it and lets a script change it.
#[derive(Debug, Clone, Default)]
pub(crate) struct SampleState {
    /// An HTTP sample (JMeter's HTTPSampleResult), what an HTML Link Parser reads.
    pub http: bool,
    pub label: String,
    pub code: String,
    pub message: String,
    pub success: bool,
    pub data: Vec<u8>,
    pub headers: String,
    pub request_headers: String,
    pub url: String,
    pub elapsed_ms: u64,
    pub latency_ms: u64,
    pub connect_ms: u64,
    pub bytes: u64,
    pub sent_bytes: u64,
    pub content_type: String,
    pub data_type: String,
    /// The sampler data a sampler without HTTP sets, or a script's `setSamplerData`.
    pub sampler_data: String,
    /// An HTTP sample's request as sent: its sampler data is made from it only when a script
    /// reads it ([`SampleState::sampler_data`]), not for every sample of a plan with scripts.
    pub http_sent: Vec<u8>,
    pub start_ms: u64,
    pub end_ms: u64,
    pub thread_name: String,
    pub stop_thread: bool,
    pub stop_test: bool,
}

impl SampleState {
    /// JMeter's `getSamplerData`: an HTTP sample's made now from the request as sent.
    pub(crate) fn sampler_data(&self) -> std::borrow::Cow<'_, str> {
        if self.http_sent.is_empty() {
            return self.sampler_data.as_str().into();
        }
        super::response::request_data(&self.http_sent, &self.url).into()
    }
}

/// What a pre-processor changed on the sampler it runs before: sent by that sampler.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SamplerEdits {
    pub name: Option<String>,
    pub path: Option<String>,
    pub domain: Option<String>,
    pub port: Option<u16>,
    pub protocol: Option<String>,
    pub method: Option<String>,
    /// Arguments added: (name, value, already encoded).
    pub args: Vec<(String, String, bool)>,
    /// The sampler's arguments replaced by these (an HTML Link Parser's), before `args`: name,
    /// value (none: the name alone, without `=`), already encoded.
    pub args_set: Option<Vec<(String, Option<String>, bool)>>,
    pub headers: Vec<(String, String)>,
    pub removed_headers: Vec<String>,
    pub body: Option<String>,
    /// Cookies added to the Cookie Manager (`getCookieManager().add(new Cookie(...))`): they
    /// go to the user's cookie store as the script returns, not with this request only.
    pub cookies: Vec<ScriptCookie>,
    /// The files `setHTTPFiles` gave, in place of the sampler's own, read when it was called
    /// (from the plan's directory, as a script reads files).
    pub files: Option<Vec<Upload>>,
}

/// A file to upload a script chose: `new HTTPFileArg(path, paramName, mimeType)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Upload {
    pub param: String,
    pub file_name: String,
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// JMeter's `new Cookie(name, value, domain, path, secure, expires)`; `expires` is in seconds
/// since the epoch, 0 for a session cookie.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ScriptCookie {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    pub secure: bool,
    pub expires: i64,
}

impl SamplerEdits {
    pub(crate) fn is_empty(&self) -> bool {
        *self == SamplerEdits::default()
    }
}

/// An AssertionResult: `setFailure`, `setFailureMessage`.
#[derive(Debug, Clone, Default)]
pub(crate) struct AssertState {
    pub failure: bool,
    pub message: String,
}

/// One execution of a script: its element, the user and what its place binds.
pub(crate) struct Exec<'a> {
    pub el: &'a ScriptEl,
    pub vars: &'a mut UserVars,
    pub env: &'a Env,
    pub sample: Option<&'a mut SampleState>,
    pub sampler: Option<(&'a SamplerInfo, &'a mut SamplerEdits)>,
    pub assertion: Option<&'a mut AssertState>,
    /// The user's previous sample, for a pre-processor, timer or sampler (a post-processor's,
    /// assertion's and listener's `prev` is `sample`).
    pub prev: Option<&'a mut SampleState>,
    /// `Thread.sleep` asked so far: waited once the script returns.
    pub slept: Duration,
}

/// What running a script gave: its value or exception, and its script-level variables after.
pub(crate) struct Outcome {
    pub result: Result<Value, Thrown>,
    pub globals: Vec<(String, Value)>,
}

impl Outcome {
    pub(crate) fn global(&self, name: &str) -> Option<&Value> {
        self.globals.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl Exec<'_> {
    /// Runs the element's script with the bindings of its place.
    pub(crate) fn run(&mut self) -> Outcome {
        let el = self.el;
        let script = self.vars.script(&el.code, el.lang);
        let mut globals = self.bindings();
        let result = match script {
            Ok(s) => s.run_with_globals(self, &mut globals),
            // An error with no place in the text (a script file that cannot be read) says only what.
            Err(e) if e.pos.line == 0 => Err(Thrown::new("javax.script.ScriptException", e.message)),
            Err(e) => Err(Thrown::new("javax.script.ScriptException", e.to_string())),
        };
        if let Err(e) = &result {
            self.log_line("ERROR", &format!("Problem in {} element named: '{}': {e}", el.class, el.name));
        }
        Outcome { result, globals }
    }

    fn bindings(&mut self) -> Vec<(String, Value)> {
        let el = self.el;
        let params = el.parameters.render_string(&mut *self.vars);
        let args: Vec<Value> = params.split_whitespace().map(Value::from).collect();
        let mut g: Vec<(String, Value)> = vec![
            ("log".into(), Value::Host(LOG)),
            ("Label".into(), Value::from(el.name.as_str())),
            ("FileName".into(), Value::from(el.file_name.as_str())),
            ("Parameters".into(), Value::from(params)),
            ("args".into(), Value::array(args)),
            ("ctx".into(), Value::Host(CTX)),
            ("vars".into(), Value::Host(VARS)),
            ("props".into(), Value::Host(PROPS)),
            ("OUT".into(), Value::Host(OUT)),
            ("sampler".into(), if self.sampler.is_some() { Value::Host(SAMPLER) } else { Value::Null }),
        ];
        let sample = if self.sample.is_some() { Value::Host(SAMPLE) } else { Value::Null };
        // `prev` is JMeter's `getPreviousResult()`: the sample a post-processor, assertion or
        // listener runs on; before a sampler (and in one) the user's last sample.
        g.push(("prev".into(), self.previous()));
        match el.place {
            Place::Sampler => g.push(("SampleResult".into(), sample.clone())),
            Place::Assertion => {
                g.push(("SampleResult".into(), sample.clone()));
                g.push(("AssertionResult".into(), Value::Host(ASSERTION)));
            }
            Place::Listener => {
                g.push(("sampleResult".into(), sample.clone()));
                g.push(("sampleEvent".into(), sample.clone()));
            }
            _ => {}
        }
        if el.bean_shell {
            match (el.place, self.sample.as_deref()) {
                (Place::Sampler, _) => {
                    g.push(("ResponseCode".into(), "200".into()));
                    g.push(("ResponseMessage".into(), "OK".into()));
                    g.push(("IsSuccess".into(), Value::Bool(true)));
                }
                (Place::Assertion, Some(s)) => {
                    g.push(("Response".into(), sample));
                    g.push(("ResponseData".into(), Value::Bytes(s.data.clone().into())));
                    g.push(("ResponseCode".into(), s.code.as_str().into()));
                    g.push(("ResponseMessage".into(), s.message.as_str().into()));
                    g.push(("ResponseHeaders".into(), s.headers.as_str().into()));
                    g.push(("RequestHeaders".into(), s.request_headers.as_str().into()));
                    g.push(("SampleLabel".into(), s.label.as_str().into()));
                    g.push(("SamplerData".into(), s.sampler_data().as_ref().into()));
                    g.push(("Successful".into(), Value::Bool(s.success)));
                    g.push(("FailureMessage".into(), "".into()));
                    g.push(("Failure".into(), Value::Bool(false)));
                }
                _ => {}
            }
        }
        g
    }

    fn log_line(&self, level: &str, text: &str) {
        if let Some(tx) = &self.env.log {
            // The user's secret-named variables' values too, not only `name=value` text: a
            // script's `println(vars.get("token"))` must not write the token.
            let line = format!(
                "{level} {}.{}: {}",
                self.el.class,
                self.el.name,
                crate::plan::script_host::scrub(&*self.vars, text)
            );
            let _ = tx.send(line);
        }
    }
}

/// What every script of the run sees of it: the plan's variables by name, its directory and
/// files, its thread groups.
pub(crate) fn shared(plan: &crate::plan::Plan, log: Option<crate::engine::ScriptLog>) -> super::session::ScriptShared {
    let names = (0..plan.vars.len())
        .map(|i| {
            let id = crate::plan::VarId(i as u32);
            (plan.vars.name(id).to_string(), id)
        })
        .collect();
    // Absolute, so that the sandbox's "under the plan's directory" means that directory even
    // when the plan was named relative to the working directory (`run plan.jmx`).
    let absolute = |p: &Path| {
        std::path::absolute(if p.as_os_str().is_empty() { Path::new(".") } else { p })
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let base_dir = absolute(plan.source.as_deref().and_then(Path::parent).unwrap_or(Path::new("")));
    let groups = plan
        .scenarios
        .iter()
        .map(|s| {
            let users = match &s.workload {
                crate::plan::Workload::Closed(c) => c.users as u64,
                crate::plan::Workload::Open(o) => o.pre_allocated_users as u64,
                crate::plan::Workload::Shaped(w) => w.starts.len() as u64,
            };
            (s.name.clone(), users)
        })
        .collect();
    super::session::ScriptShared {
        names: std::sync::Arc::new(names),
        readable: plan.data.iter().map(|d| resolved(&d.path)).collect(),
        writable: plan
            .writers
            .iter()
            .map(|w| resolved(&w.path))
            .chain(plan.result_files.iter().map(|p| resolved(p)))
            .collect(),
        base_dir,
        groups,
        log,
        labels: plan.labels.iter().cloned().collect(),
        seeded: std::sync::OnceLock::new(),
    }
}

fn arg_str(args: &[Value], i: usize) -> Option<String> {
    args.get(i).filter(|v| !v.is_null()).map(|v| v.to_string())
}

fn arg_i64(args: &[Value], i: usize) -> i64 {
    args.get(i).and_then(|v| v.as_i64().or_else(|| v.to_string().trim().parse().ok())).unwrap_or(0)
}

/// Bytes or text as a script passes them (`setResponseData("x")`, `setResponseData(bytes)`).
fn bytes_of(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) => b.to_vec(),
        Value::Null => Vec::new(),
        other => other.to_string().into_bytes(),
    }
}

fn no_method(class: &str, method: &str) -> Result<Value, Thrown> {
    Err(Thrown::no_method(class, method))
}

impl Exec<'_> {
    /// `prev` / `ctx.getPreviousResult()`: JMeter's previous result of the thread.
    fn previous(&self) -> Value {
        match self.el.place {
            Place::Post | Place::Assertion | Place::Listener if self.sample.is_some() => Value::Host(SAMPLE),
            Place::Sampler | Place::Pre | Place::Timer if self.prev.is_some() => Value::Host(PREV),
            _ => Value::Null,
        }
    }

    fn sample_call(&mut self, target: HostRef, method: &str, args: &[Value]) -> Result<Value, Thrown> {
        let thread = self.env.thread_name.clone();
        let s = if target == PREV { self.prev.as_deref_mut() } else { self.sample.as_deref_mut() };
        let Some(s) = s else { return no_method("SampleResult", method) };
        let a0 = || arg_str(args, 0).unwrap_or_default();
        let ms = |v: u64| Value::Long(v as i64);
        Ok(match method {
            "getResponseDataAsString" | "getResponseDataAsString()" => {
                String::from_utf8_lossy(&s.data).into_owned().into()
            }
            "getResponseData" => Value::Bytes(s.data.clone().into()),
            "setResponseData" => {
                s.data = bytes_of(args.first().unwrap_or(&Value::Null));
                Value::Null
            }
            "getResponseCode" => s.code.as_str().into(),
            "setResponseCode" => {
                s.code = a0();
                Value::Null
            }
            "setResponseCodeOK" => {
                s.code = "200".into();
                Value::Null
            }
            "getResponseMessage" => s.message.as_str().into(),
            "setResponseMessage" => {
                s.message = a0();
                Value::Null
            }
            "setResponseMessageOK" => {
                s.message = "OK".into();
                Value::Null
            }
            "setResponseOK" => {
                s.code = "200".into();
                s.message = "OK".into();
                s.success = true;
                Value::Null
            }
            "isSuccessful" | "getSuccessful" => Value::Bool(s.success),
            "setSuccessful" => {
                s.success = args.first().is_some_and(Value::truthy);
                Value::Null
            }
            "isResponseCodeOK" => Value::Bool(s.code == "200"),
            "getResponseHeaders" => s.headers.as_str().into(),
            "setResponseHeaders" => {
                s.headers = a0();
                Value::Null
            }
            "getRequestHeaders" => s.request_headers.as_str().into(),
            "setRequestHeaders" => {
                s.request_headers = a0();
                Value::Null
            }
            "getSampleLabel" | "getLabel" => s.label.as_str().into(),
            "setSampleLabel" => {
                s.label = a0();
                Value::Null
            }
            "getURL" | "getUrlAsString" => s.url.as_str().into(),
            "getTime" | "getElapsedTime" => ms(s.elapsed_ms),
            "getLatency" => ms(s.latency_ms),
            "setLatency" => {
                s.latency_ms = arg_i64(args, 0).max(0) as u64;
                Value::Null
            }
            "getConnectTime" => ms(s.connect_ms),
            "getBytes" | "getBytesAsLong" | "getBodySize" | "getBodySizeAsLong" => ms(s.bytes),
            "setBytes" => {
                s.bytes = arg_i64(args, 0).max(0) as u64;
                Value::Null
            }
            "getSentBytes" => ms(s.sent_bytes),
            "setSentBytes" => {
                s.sent_bytes = arg_i64(args, 0).max(0) as u64;
                Value::Null
            }
            "getContentType" | "getMediaType" => s.content_type.as_str().into(),
            "setContentType" => {
                s.content_type = a0();
                Value::Null
            }
            "getDataType" => s.data_type.as_str().into(),
            "setDataType" => {
                s.data_type = a0();
                Value::Null
            }
            "getSamplerData" => s.sampler_data().as_ref().into(),
            "setSamplerData" => {
                s.http_sent = Vec::new();
                s.sampler_data = a0();
                Value::Null
            }
            "getStartTime" | "getTimeStamp" => ms(s.start_ms),
            "getEndTime" => ms(s.end_ms),
            "getThreadName" => thread.into(),
            "getSubResults" => Value::array(Vec::new()),
            "getAssertionResults" => Value::array(Vec::new()),
            "getDataEncodingWithDefault" | "getDataEncodingNoDefault" => "UTF-8".into(),
            "getErrorCount" => Value::Int(i32::from(!s.success)),
            "getSampleCount" => Value::Int(1),
            "setStopThread" => {
                s.stop_thread = args.first().is_some_and(Value::truthy);
                Value::Null
            }
            "setStopTest" | "setStopTestNow" => {
                s.stop_test = args.first().is_some_and(Value::truthy);
                Value::Null
            }
            "isStopThread" => Value::Bool(s.stop_thread),
            "sampleStart" | "sampleEnd" | "setIgnore" | "setIdleTime" | "setEncodingAndType" | "setDataEncoding" => {
                Value::Null
            }
            "toString" => s.label.as_str().into(),
            _ => return no_method("SampleResult", method),
        })
    }

    /// `sampler` and the objects it hands out, by the tables of [`sampler_methods`].
    fn sampler_call(&mut self, target: HostRef, method: &str, args: &[Value]) -> Result<Value, Thrown> {
        let Some((info, edits)) = self.sampler.as_mut() else { return no_method("Sampler", method) };
        let mut s = sampler_methods::Sampler { info, edits, env: self.env, writes: &self.el.writes };
        sampler_methods::call(&mut s, target, method, args)
    }
}

/// The bytes of a file to upload, under the scripts' file policy; one that cannot be read
/// throws JMeter's `FileNotFoundException` with the path.
fn read_upload(env: &Env, named: &[PathBuf], path: &str) -> Result<Vec<u8>, Thrown> {
    use std::io::Read as _;
    let p = allowed_file(env, named, path, FileAccess::Read)?;
    let mut b = Vec::new();
    crate::confine::open(&p, crate::confine::Access::Read)
        .and_then(|mut f| f.read_to_end(&mut b))
        .map_err(|e| Thrown::new("java.io.FileNotFoundException", format!("{path} ({e})")))?;
    Ok(b)
}

/// A sampler's arguments: the plan's, then those a script added.
fn all_args(info: &SamplerInfo, edits: &SamplerEdits) -> Vec<(String, String, bool)> {
    let mut all: Vec<(String, String, bool)> =
        info.http.iter().flat_map(|h| h.args.iter().map(|(n, v)| (n.clone(), v.clone(), false))).collect();
    all.extend(edits.args.iter().cloned());
    all
}

/// `new Header(name, value)` as the library hands it over, or a name and a value.
fn header_of(args: &[Value]) -> (String, String) {
    // JMeter's `new Header(name, value)`.
    if let Some(nv) = args.first().and_then(crate::script::header_fields) {
        return nv;
    }
    match args {
        [Value::List(l)] => {
            let items = lock(&l.items);
            (
                items.first().map(|v| v.to_string()).unwrap_or_default(),
                items.get(1).map(|v| v.to_string()).unwrap_or_default(),
            )
        }
        [Value::Map(m)] => {
            let m = lock(&m.entries);
            let get = |k: &str| m.get(&Key(k.into())).map(|v| v.to_string()).unwrap_or_default();
            (get("name"), get("value"))
        }
        [Value::Object(o)] => {
            let text = o.to_string();
            let (n, v) = text.split_once(": ").unwrap_or((&text, ""));
            (n.to_string(), v.to_string())
        }
        _ => (arg_str(args, 0).unwrap_or_default(), arg_str(args, 1).unwrap_or_default()),
    }
}

impl Host for Exec<'_> {
    fn interrupted(&mut self) -> bool {
        self.env.stop.as_ref().is_some_and(Stop::now)
    }

    fn call(&mut self, target: HostRef, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let env = self.env;
        if target != CTX
            || !matches!(method, "getPreviousResult" | "getCurrentSampler" | "getThread" | "getThreadGroup")
        {
            let mut lines: Vec<(String, String)> = Vec::new();
            let mut printed = String::new();
            let done = script_host::call_shared(
                &mut *self.vars,
                target,
                method,
                args.clone(),
                self.el.lang,
                &mut |level, text| lines.push((level.name().to_string(), text.to_string())),
                &mut |text| printed.push_str(text),
            );
            for (level, text) in lines {
                self.log_line(&level, &text);
            }
            self.print(&printed);
            if let Some(r) = done {
                return r;
            }
        }
        match target {
            CTX => Ok(match method {
                "getPreviousResult" => self.previous(),
                "getCurrentSampler" => {
                    if self.sampler.is_some() {
                        Value::Host(SAMPLER)
                    } else {
                        Value::Null
                    }
                }
                "getThread" => Value::Host(THREAD),
                "getThreadGroup" => Value::Host(GROUP),
                _ => return no_method("JMeterContext", method),
            }),
            THREAD => match method {
                "getThreadName" => Ok(env.thread_name.as_str().into()),
                _ => no_method("JMeterThread", method),
            },
            GROUP => match method {
                "getName" => Ok(env.group.as_str().into()),
                "getNumThreads" | "getNumberOfThreads" => Ok(Value::Int(env.threads as i32)),
                _ => no_method("AbstractThreadGroup", method),
            },
            FILE_SERVER => match method {
                "getBaseDir" => Ok(env.base_dir.to_string_lossy().into_owned().into()),
                "getScriptName" => Ok(Value::Null),
                _ => no_method("FileServer", method),
            },
            SAMPLE | PREV => self.sample_call(target, method, &args),
            ASSERTION => {
                let Some(a) = self.assertion.as_deref_mut() else { return no_method("AssertionResult", method) };
                match method {
                    "setFailure" | "setError" => {
                        a.failure = args.first().is_some_and(Value::truthy);
                        Ok(Value::Null)
                    }
                    "setFailureMessage" => {
                        a.message = arg_str(&args, 0).unwrap_or_default();
                        Ok(Value::Null)
                    }
                    "isFailure" | "isError" => Ok(Value::Bool(a.failure)),
                    "getFailureMessage" => Ok(a.message.as_str().into()),
                    "setResultForFailure" => {
                        a.failure = true;
                        a.message = arg_str(&args, 0).unwrap_or_default();
                        Ok(Value::Null)
                    }
                    _ => no_method("AssertionResult", method),
                }
            }
            t if t == SAMPLER || t == ARGUMENTS || t == HEADERS || t == COOKIES || t.0 >= ARGUMENT => {
                self.sampler_call(t, method, &args)
            }
            _ => no_method("Object", method),
        }
    }

    fn call_static(&mut self, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let short = class.rsplit('.').next().unwrap_or(class);
        match (short, method) {
            ("JMeterUtils", "getProperty" | "getPropDefault") => {
                let name = arg_str(&args, 0).unwrap_or_default();
                let v = self.vars.property_object(&name).filter(|v| !v.is_null());
                Ok(v.or_else(|| args.get(1).cloned()).unwrap_or_default())
            }
            ("JMeterUtils", "setProperty") => {
                let name = arg_str(&args, 0).unwrap_or_default();
                let before = self.vars.property_object(&name).unwrap_or_default();
                self.vars.put_property_object(&name, args.get(1).cloned().unwrap_or_default());
                Ok(before)
            }
            ("JMeterUtils", "getJMeterProperties") => Ok(Value::Host(PROPS)),
            ("JMeterUtils", "getJMeterHome" | "getJMeterBinDir") => {
                Ok(self.env.base_dir.to_string_lossy().into_owned().into())
            }
            ("FileServer", "getFileServer") => Ok(Value::Host(FILE_SERVER)),
            ("JMeterContextService", "getContext") => Ok(Value::Host(CTX)),
            ("JMeterContextService", "getNumberOfThreads") => Ok(Value::Int(self.env.threads as i32)),
            ("Logger", level) => {
                let text = arg_str(&args, 0).unwrap_or_default();
                self.log_line(&level.to_ascii_uppercase(), &text);
                Ok(Value::Null)
            }
            ("Thread", "currentThreadName") => Ok(self.env.thread_name.as_str().into()),
            ("HttpMirrorServer", _) => super::mirror::call_static(self, method, args),
            _ => Err(Thrown::no_method(class, method)),
        }
    }

    fn describe(&mut self, target: HostRef) -> String {
        if let Some(d) = script_host::describe_shared(target) {
            return d;
        }
        match target {
            SAMPLE => self.sample.as_deref().map(|s| s.label.clone()).unwrap_or_default(),
            PREV => self.prev.as_deref().map(|s| s.label.clone()).unwrap_or_default(),
            SAMPLER => {
                self.sampler.as_ref().map(|(i, e)| e.name.clone().unwrap_or_else(|| i.name.clone())).unwrap_or_default()
            }
            THREAD => self.env.thread_name.clone(),
            GROUP => self.env.group.clone(),
            other => format!("host#{}", other.0),
        }
    }

    fn print(&mut self, text: &str) {
        // JMeter prints to its standard output; here, the run's script log (never the
        // progress line on the terminal).
        let text = text.trim_end_matches('\n');
        if !text.is_empty() {
            self.log_line("OUT", text);
        }
    }

    fn sleep(&mut self, ms: u64) {
        self.slept = self.slept.saturating_add(Duration::from_millis(ms)).min(crate::plan::MAX_DURATION);
    }

    fn file(&mut self, path: &str, access: FileAccess) -> Result<PathBuf, Thrown> {
        allowed_file(self.env, &self.el.writes, path, access)
    }

    fn open(&mut self, path: &Path, access: FileAccess) -> std::io::Result<std::fs::File> {
        let access = match access {
            FileAccess::Read => crate::confine::Access::Read,
            FileAccess::Append => crate::confine::Access::Append,
            FileAccess::Write => crate::confine::Access::Write,
        };
        crate::confine::open(path, access)
    }

    fn system_property(&mut self, name: &str) -> Option<String> {
        match name {
            "user.dir" => Some(self.env.base_dir.to_string_lossy().into_owned()),
            "line.separator" => Some("\n".into()),
            "file.separator" => Some("/".into()),
            "os.name" => Some(std::env::consts::OS.into()),
            _ => None,
        }
    }
}

/// The file policy: reading any file under the plan's directory or one the plan's elements
/// name; appending or writing only to a file the script names as a literal (under the plan's
/// directory) or the plan's elements name; relative paths resolve against the plan's directory.
/// Every link in the path is followed before it is judged ([`crate::confine`]): a link in the
/// plan's directory that leads out of it is outside. Returns the resolved path, to open with
/// [`crate::confine::open`].
pub(crate) fn allowed_file(env: &Env, named: &[PathBuf], path: &str, access: FileAccess) -> Result<PathBuf, Thrown> {
    let dir = crate::confine::PlanDir::new(&env.base_dir);
    let requested = dir.join(Path::new(path));
    let resolved = crate::confine::resolve(&requested);
    let (real, cause) = match resolved {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e)),
    };
    let inside = real.as_deref().is_some_and(|r| dir.holds(r));
    // `readable` and `writable` hold the resolved paths of the files the plan's elements name.
    let plans = |list: &[PathBuf]| real.as_ref().is_some_and(|r| list.contains(r));
    // A literal the script names is compared as written, and must resolve inside too.
    let literal = || {
        let requested = crate::confine::normalize(&requested);
        named
            .iter()
            .any(|q| crate::confine::normalize(&std::path::absolute(q).unwrap_or_else(|_| q.clone())) == requested)
    };
    let ok = match access {
        FileAccess::Read => inside || plans(&env.readable) || plans(&env.writable),
        FileAccess::Append | FileAccess::Write => (inside && literal()) || plans(&env.writable),
    };
    match real {
        Some(real) if ok => Ok(real),
        _ => {
            let what = match access {
                FileAccess::Read => "reading",
                FileAccess::Append => "appending to",
                FileAccess::Write => "writing",
            };
            let through = match &real {
                Some(r) if !inside && crate::confine::normalize(&requested).starts_with(dir.path()) => {
                    format!(" (it leads to {}, outside the plan's directory)", r.display())
                }
                None => format!(" (it cannot be resolved: {})", cause.map_or_else(String::new, |e| e.to_string())),
                _ => String::new(),
            };
            Err(Thrown::security(format!(
                "{what} `{path}` is not allowed{through}: a script may read files under the plan's directory or named by the plan, and write only files it names as a literal or the plan's elements name"
            )))
        }
    }
}

/// The resolved path of a file the plan names (relative to the working directory, as the plan's
/// own name), for comparing with the resolved path a script asks for.
fn resolved(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    crate::confine::resolve(&abs).unwrap_or(abs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::sampler::script::{Code, HttpInfo};
    use crate::plan::template::{Symbols, Template};
    use crate::script::{Lang, Script};

    fn element(place: Place) -> ScriptEl {
        ScriptEl {
            place,
            class: "JSR223PostProcessor".into(),
            name: "pp".into(),
            lang: Lang::Groovy,
            code: Code::Rendered { text: Template::literal(""), cache: Default::default(), first: None },
            file_name: String::new(),
            parameters: Template::literal("a b"),
            bean_shell: false,
            messages: Vec::new(),
            failure: crate::plan::CheckId(0),
            writes: vec![PathBuf::from("/plan/out.csv")],
            properties: Default::default(),
            follows: 0,
        }
    }

    fn user() -> UserVars {
        let mut s = Symbols::default();
        s.vars.define("known", "k".into());
        let mut u = UserVars::new(s.vars.initial_values(), 0, 2, super::super::session::Globals::new(0));
        u.names = std::sync::Arc::new([("known".to_string(), crate::plan::VarId(0))].into_iter().collect());
        u
    }

    #[test]
    fn vars_and_props_reach_the_users_variables() {
        let el = element(Place::Post);
        let env = Env { thread_name: "TG 1-3".into(), group: "TG".into(), threads: 5, ..Default::default() };
        let mut vars = user();
        let mut x = Exec {
            el: &el,
            vars: &mut vars,
            env: &env,
            sample: None,
            sampler: None,
            assertion: None,
            prev: None,
            slept: Duration::ZERO,
        };
        x.call(VARS, "put", vec!["known".into(), "v1".into()]).unwrap();
        x.call(VARS, "put", vec!["other".into(), "v2".into()]).unwrap();
        assert_eq!(x.call(VARS, "get", vec!["known".into()]).unwrap().to_string(), "v1");
        assert_eq!(x.call(VARS, "get", vec!["other".into()]).unwrap().to_string(), "v2");
        assert!(x.call(VARS, "get", vec!["none".into()]).unwrap().is_null());
        x.call(PROPS, "put", vec!["p".into(), Value::Int(3)]).unwrap();
        assert_eq!(x.call(PROPS, "get", vec!["p".into()]).unwrap().as_i64(), Some(3));
        // User number 2, 0-based as JMeter's.
        assert_eq!(x.call(CTX, "getThreadNum", vec![]).unwrap().as_i64(), Some(1));
        let t = x.call(CTX, "getThread", vec![]).unwrap();
        let Value::Host(t) = t else { panic!("{t:?}") };
        assert_eq!(x.call(t, "getThreadName", vec![]).unwrap().to_string(), "TG 1-3");
        assert_eq!(vars.get(crate::plan::VarId(0)), "v1");
    }

    #[test]
    fn a_sample_can_be_read_and_changed() {
        let el = element(Place::Post);
        let env = Env::default();
        let mut vars = user();
        let mut s =
            SampleState { code: "200".into(), success: true, data: b"{\"a\":1}".to_vec(), ..Default::default() };
        let mut x = Exec {
            el: &el,
            vars: &mut vars,
            env: &env,
            sample: Some(&mut s),
            sampler: None,
            assertion: None,
            prev: None,
            slept: Duration::ZERO,
        };
        assert_eq!(x.call(SAMPLE, "getResponseDataAsString", vec![]).unwrap().to_string(), "{\"a\":1}");
        x.call(SAMPLE, "setSuccessful", vec![Value::Bool(false)]).unwrap();
        x.call(SAMPLE, "setResponseMessage", vec!["bad".into()]).unwrap();
        assert!(x.call(SAMPLE, "nope", vec![]).unwrap_err().is_no_method());
        assert!(!s.success);
        assert_eq!(s.message, "bad");
    }

    /// An HTTP sampler `req` of `GET http://h:8080/a?q=1`.
    pub(super) fn http_sampler() -> SamplerInfo {
        SamplerInfo {
            name: "req".into(),
            http: Some(HttpInfo {
                protocol: "http".into(),
                domain: "h".into(),
                port: 8080,
                path: "/a".into(),
                method: "GET".into(),
                args: vec![("q".into(), "1".into())],
            }),
        }
    }

    #[test]
    fn a_pre_processor_edits_its_sampler() {
        let el = element(Place::Pre);
        let env = Env::default();
        let mut vars = user();
        let info = http_sampler();
        let mut edits = SamplerEdits::default();
        let mut x = Exec {
            el: &el,
            vars: &mut vars,
            env: &env,
            sample: None,
            sampler: Some((&info, &mut edits)),
            assertion: None,
            prev: None,
            slept: Duration::ZERO,
        };
        assert_eq!(x.call(SAMPLER, "getPath", vec![]).unwrap().to_string(), "/a");
        x.call(SAMPLER, "setPath", vec!["/b".into()]).unwrap();
        assert_eq!(x.call(SAMPLER, "getUrl", vec![]).unwrap().to_string(), "http://h:8080/b");
        let Value::Host(args) = x.call(SAMPLER, "getArguments", vec![]).unwrap() else { panic!() };
        x.call(SAMPLER, "addArgument", vec!["r".into(), "2".into()]).unwrap();
        assert_eq!(x.call(args, "getArgumentCount", vec![]).unwrap().as_i64(), Some(2));
        let Value::Host(a1) = x.call(args, "getArgument", vec![Value::Int(1)]).unwrap() else { panic!() };
        assert_eq!(x.call(a1, "getValue", vec![]).unwrap().to_string(), "2");
        let Value::Host(h) = x.call(SAMPLER, "getHeaderManager", vec![]).unwrap() else { panic!() };
        x.call(h, "add", vec!["X-T".into(), "1".into()]).unwrap();
        assert_eq!(edits.path.as_deref(), Some("/b"));
        assert_eq!(edits.headers, [("X-T".to_string(), "1".to_string())]);
    }

    #[test]
    fn a_link_out_of_the_plan_directory_is_not_read() {
        let dir = std::env::temp_dir().join(format!("stampede-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("in.txt"), "x").unwrap();
        std::os::unix::fs::symlink("/etc", dir.join("link")).unwrap();
        let env = Env { base_dir: dir.clone(), ..Default::default() };
        assert!(allowed_file(&env, &[], "in.txt", FileAccess::Read).is_ok());
        assert!(allowed_file(&env, &[], "link/hostname", FileAccess::Read).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn issue31_links_that_lead_out_of_the_plan_directory_are_neither_read_nor_written() {
        use std::os::unix::fs::symlink;
        let tmp = std::fs::canonicalize(std::env::temp_dir()).unwrap();
        let root = tmp.join(format!("stampede-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (dir, outside) = (root.join("plan"), root.join("outside"));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("victim.csv"), "v").unwrap();
        std::fs::write(dir.join("sub/in.csv"), "i").unwrap();
        symlink(outside.join("victim.csv"), dir.join("out.csv")).unwrap();
        symlink(&outside, dir.join("linkdir")).unwrap();
        symlink(outside.join("not-yet.csv"), dir.join("dangling.csv")).unwrap();
        symlink(dir.join("sub/in.csv"), dir.join("inner.csv")).unwrap();
        let env = Env { base_dir: dir.clone(), ..Default::default() };
        // Each is a literal the script names, so only the link stands between it and the write.
        let named: Vec<PathBuf> =
            ["out.csv", "linkdir/new.csv", "dangling.csv", "inner.csv", "sub/new.csv", "x/../linkdir/victim.csv"]
                .iter()
                .map(|n| dir.join(n))
                .collect();
        for (path, access) in [
            ("out.csv", FileAccess::Append),
            ("out.csv", FileAccess::Write),
            ("out.csv", FileAccess::Read),
            ("linkdir/new.csv", FileAccess::Append),
            ("linkdir/victim.csv", FileAccess::Read),
            ("dangling.csv", FileAccess::Write),
            ("sub/../linkdir/victim.csv", FileAccess::Read),
            ("../outside/victim.csv", FileAccess::Read),
            // Past a missing or non-directory component the kernel fails, so must the judge.
            ("x/../linkdir/victim.csv", FileAccess::Read),
            ("x/../linkdir/victim.csv", FileAccess::Append),
            ("sub/in.csv/x/../../../linkdir/victim.csv", FileAccess::Read),
        ] {
            let e = allowed_file(&env, &named, path, access).unwrap_err();
            assert_eq!(e.class, "java.lang.SecurityException", "{path}");
            assert!(e.message.contains(path), "{e}");
        }
        assert!(allowed_file(&env, &named, "out.csv", FileAccess::Append).unwrap_err().message.contains("victim.csv"));
        // A link that stays inside is followed; a new file in a real directory may be named.
        assert_eq!(allowed_file(&env, &named, "inner.csv", FileAccess::Append).unwrap(), dir.join("sub/in.csv"));
        assert_eq!(allowed_file(&env, &named, "inner.csv", FileAccess::Read).unwrap(), dir.join("sub/in.csv"));
        assert_eq!(allowed_file(&env, &named, "sub/new.csv", FileAccess::Write).unwrap(), dir.join("sub/new.csv"));
        // A data file the plan names outside its directory (its author's choice) stays readable.
        let env = Env { readable: vec![outside.join("victim.csv")], ..env };
        assert!(allowed_file(&env, &[], &outside.join("victim.csv").display().to_string(), FileAccess::Read).is_ok());
        assert!(allowed_file(&env, &[], "out.csv", FileAccess::Read).is_ok(), "the same file the plan reads");
        assert!(allowed_file(&env, &[], "out.csv", FileAccess::Append).is_err());
        assert_eq!(std::fs::read_to_string(outside.join("victim.csv")).unwrap(), "v");
        assert!(!outside.join("not-yet.csv").exists() && !outside.join("new.csv").exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn files_outside_the_plan_are_refused() {
        let env = Env { base_dir: "/plan".into(), writable: vec!["/plan/data/w.csv".into()], ..Default::default() };
        let named = [PathBuf::from("/plan/out.csv")];
        assert!(allowed_file(&env, &named, "in.csv", FileAccess::Read).is_ok());
        assert!(allowed_file(&env, &named, "/etc/passwd", FileAccess::Read).is_err());
        assert!(allowed_file(&env, &named, "../x", FileAccess::Read).is_err());
        assert_eq!(allowed_file(&env, &named, "out.csv", FileAccess::Append).unwrap(), PathBuf::from("/plan/out.csv"));
        assert!(allowed_file(&env, &named, "data/./w.csv", FileAccess::Write).is_ok());
        let e = allowed_file(&env, &named, "other.csv", FileAccess::Append).unwrap_err();
        assert_eq!(e.class, "java.lang.SecurityException");
        assert!(e.message.contains("other.csv"), "{e}");
        let _ = Script::compile;
    }

    #[test]
    fn sleeping_adds_up() {
        let el = element(Place::Sampler);
        let env = Env::default();
        let mut vars = user();
        let mut x = Exec {
            el: &el,
            vars: &mut vars,
            env: &env,
            sample: None,
            sampler: None,
            assertion: None,
            prev: None,
            slept: Duration::ZERO,
        };
        x.sleep(40);
        x.sleep(60);
        assert_eq!(x.slept, Duration::from_millis(100));
    }
}
