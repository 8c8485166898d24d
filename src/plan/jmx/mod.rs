//! JMeter `.jmx` → [`Plan`]: the test elements of a JMeter plan read into the same model as a
//! YAML plan, with JMeter's scoping rules (a header manager, timer, extractor or assertion
//! applies to the samplers in its scope) and its defaults. Every element is reported with its
//! status (supported, ignored with why, unsupported), which `stampede check` prints.
//!
//! This file reads the test plan and walks the tree; each family of elements lives in its own
//! file with a table of the classes it reads (`ELEMENTS`), which the walk dispatches on:
//! `thread_group`, `sampler`, `config`, `controller`, `module`, `timer`, `extractor`,
//! `assertion`, `listener`, `script` (and `report`, the element report). Reading a new element is a function
//! and a row in its family's table. The plan itself is assembled by [`super::build::Builder`].

mod accesslog;
mod assertion;
mod config;
mod controller;
mod extractor;
mod listener;
mod modifier;
mod module;
mod openmodel;
mod report;
#[cfg(test)]
mod runtime_tests;
mod sampler;
mod script;
mod socket;
#[cfg(test)]
mod support;
mod sync;
mod synthetic;
#[cfg(test)]
mod sysreq_tests;
mod thread_group;
mod timer;
pub(crate) mod tree;
mod websocket;

pub(crate) use report::{ElementReport, Status};

use super::build::{Builder, Slot};
use super::condition;
use super::flow::{self, Counter, Once, Throughput, ThroughputShare, UserParams};
use super::sampler::after::After;
use super::sampler::http::{self, Body, Param, Part, PartContent};
use super::sampler::Sampler;
use super::template;
use super::*;
use sampler::HttpDefaults;
use thread_group::is_thread_group;
use tree::{El, Prop, Props, Value};

/// How a `.jmx` is read.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `-J name=value` and `-p file` properties.
    pub properties: HashMap<String, String>,
    /// Skip unsupported elements (reported) instead of refusing the plan.
    pub skip_unsupported: bool,
    /// Refuse what JMeter loads but that goes wrong at run time (each `Status::Warning`):
    /// `--strict`, for CI.
    pub strict: bool,
    /// A data or body file that is missing or malformed is reported, not an error (for
    /// `check`, which shows a plan whose files are elsewhere).
    pub lenient_files: bool,
    /// `--allow-commands`: an OS Process Sampler runs its command (else each sample fails).
    pub allow_commands: bool,
}

/// What reading a `.jmx` found: every element with its status, every problem, and the plan
/// when there is none.
#[derive(Debug)]
pub(crate) struct Inspection {
    /// Every element of the plan, in file order, with what became of it.
    pub elements: Vec<ElementReport>,
    /// Every reason the plan cannot run (each naming file, line and element), in file order.
    pub problems: Vec<Error>,
    /// Files the plan reads that cannot be read now (with `lenient_files`): what `run` needs.
    pub needs: Vec<Error>,
    /// The plan, when there is no problem.
    pub plan: Option<Plan>,
}

impl Inspection {
    /// The plan, or one error that lists every problem (and every file that cannot be read).
    pub(crate) fn into_result(self) -> Result<(Plan, Vec<ElementReport>), Error> {
        match self.plan {
            Some(plan) if self.problems.is_empty() => Ok((plan, self.elements)),
            _ => Err(Error::combine(self.problems)),
        }
    }
}

/// Reads a `.jmx` text. `path` is where it came from (relative files are read from its
/// directory). Returns the plan and the report of every element, or one error listing every
/// problem the plan has.
pub fn read(text: &str, path: &Path, opts: &Options) -> Result<(Plan, Vec<ElementReport>), Error> {
    inspect(text, path, opts).into_result()
}

/// Reads a `.jmx` text to the end whatever it finds: each element that cannot be read is
/// reported with its error and the walk goes on, so that every element and every problem is
/// known at once (`stampede check`).
pub(crate) fn inspect(text: &str, path: &Path, opts: &Options) -> Inspection {
    // A byte-order mark (Windows editors write one) is not part of the document.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let top = match tree::parse(text) {
        Ok(top) => top,
        Err(e) => {
            let mut loc = Location::file(path);
            loc.line = Some(e.line);
            loc.column = Some(e.column);
            let e = Error::new(ErrorKind::Syntax, loc, format!("malformed XML: {}", e.message));
            return Inspection { elements: Vec::new(), problems: vec![e], needs: Vec::new(), plan: None };
        }
    };
    let Some(test_plan) = top.iter().find(|e| e.class == "TestPlan") else {
        let e = Error::invalid(Location::file(path), "no TestPlan element: not a JMeter test plan");
        return Inspection { elements: Vec::new(), problems: vec![e], needs: Vec::new(), plan: None };
    };
    let mut cx = Cx {
        file: path.to_path_buf(),
        b: Builder::new(opts.properties.clone()),
        cookies: false,
        clear_cookies: false,
        managers: Default::default(),
        report: Vec::new(),
        skip: opts.skip_unsupported,
        strict: opts.strict,
        lenient: opts.lenient_files,
        allow_commands: opts.allow_commands,
        unsupported: Vec::new(),
        errors: Vec::new(),
        needs: Vec::new(),
        inert: 0,
        last: None,
        root: test_plan.clone(),
        expanding: 0,
        autostops: Vec::new(),
        spiders: 0,
        scripts_set_any: false,
        url_rewriters: None,
        text: text.to_string(),
        regex_lists: None,
        access_logs: Vec::new(),
        engine_stop: None,
        sample_timeout: None,
    };
    // A plan that sets properties while it runs reads them when called (JMeter's properties
    // are global to the run); one that does not reads them once, as it loads.
    // Scripts set them too (`props.put`, `props.setProperty`, `props["k"] = v`).
    cx.b.sym.properties_change =
        ["__setProperty(", "props.put", "props.setProperty", "props[", "JMeterUtils.setProperty"]
            .iter()
            .any(|s| text.contains(s));
    cx.b.sym.jmeter_text = true;
    cx.b.sym.base_dir = Some(path.parent().map(Path::to_path_buf).unwrap_or_default());
    cx.b.sym.script_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let plan = cx.plan(test_plan, path);
    let mut problems = std::mem::take(&mut cx.errors);
    let n = cx.unsupported.len();
    for (i, (line, element, message)) in cx.unsupported.iter().enumerate() {
        let mut loc = Location::file(path).element(element.clone());
        loc.line = Some(*line);
        // The way out, once, after the last.
        let hint = if i + 1 == n { "; --skip-unsupported runs without the unsupported elements" } else { "" };
        problems.push(Error::invalid(loc, format!("{message}{hint}")));
    }
    problems.sort_by_key(|e| e.location.line.unwrap_or(0));
    if problems.is_empty() && plan.is_none() {
        // The walk ended without a plan: the reason is its last error.
        problems.extend(cx.last.take());
    }
    let mut elements = cx.report;
    elements.sort_by_key(|r| r.at);
    let plan = if problems.is_empty() { plan } else { None };
    Inspection { elements, problems, needs: cx.needs, plan }
}

impl Cx {
    /// Walks the test plan; `None` when a problem leaves no plan to make.
    fn plan(&mut self, test_plan: &El, path: &Path) -> Option<Plan> {
        if let Err(e) = self.variables(test_plan) {
            self.failed(test_plan, 0, e);
        }
        // A sampler uses the user's cookie jar only inside a Cookie Manager's scope.
        let mut root = Scope::default();
        root.managers.jarless = true;
        let plan_scope = self.scope_of(&test_plan.children, &root, 1).unwrap_or_default();
        let mut plan_note = "user-defined variables become plan variables".to_string();
        if test_plan.flag("TestPlan.serialize_threadgroups") == Some(true) {
            plan_note.push_str("; thread groups run one after another");
        }
        let has_teardown = test_plan.children.iter().any(|c| c.enabled && c.class == "PostThreadGroup");
        let plan_status = if has_teardown && test_plan.flag("TestPlan.tearDown_on_shutdown") == Some(true) {
            plan_note.push_str("; tearDown thread groups do not run after a stop (JMeter's `tearDown_on_shutdown`)");
            Status::Partial
        } else {
            Status::Supported
        };
        if !self.report.iter().any(|r| r.at == test_plan.at) {
            self.report(test_plan, 0, plan_status, plan_note);
        }
        if let Err(e) = self.thread_groups(test_plan, &plan_scope) {
            self.failed(test_plan, 0, e);
        }
        self.unresolved_modules();
        if !self.errors.is_empty() || !self.unsupported.is_empty() {
            return None;
        }
        let no_thread = self.b.scenarios().is_empty();
        if no_thread {
            // JMeter runs such a plan (an unfilled `${__P(THREADS_COUNT,)}` is the usual cause):
            // it starts no thread, sends nothing, and ends with exit code 0.
            self.no_thread_warning(test_plan);
            if !self.errors.is_empty() {
                return None;
            }
        }
        // Reading leniently (`check`), a file that cannot be read now may hold the requests;
        // with every file read, a plan that sends none is refused as `run` refuses it.
        if !no_thread
            && (!self.lenient || self.needs.is_empty())
            && !self.b.scenarios().iter().any(|s| flow::has_request(&s.flow))
        {
            self.last = Some(Error::invalid(Location::file(path), "no thread group sends a request"));
            return None;
        }
        // JMeter's thread keeps the outcome of its last sample in a variable, `true` at the start.
        let last_ok = self.b.sym.vars.get(LAST_SAMPLE_OK).map(|_| {
            self.b.sym.vars.define(LAST_SAMPLE_OK, "true".into());
            self.b.sym.vars.assign(LAST_SAMPLE_OK)
        });
        // A variable an extractor has not set yet, or that one left unset, is sent as its
        // reference and is null to scripts, never `""` (see `docs/jmx.md`).
        self.b.sym.vars.set_unset_distinct();
        // JMeter sends a reference to a variable nothing defines as it is, `${name}`.
        // By its name, not read back from the error's text: a name holding a backquote was
        // cut there, defined wrong, and looped forever (found by the fuzzer).
        while let Some(name) = self.b.sym.vars.undefined_name().map(str::to_string) {
            self.b.sym.vars.define(&name, format!("${{{name}}}"));
            // A script may set it by a name it computes: read it as it is then.
            if self.scripts_set_any {
                self.b.sym.vars.assign(&name);
            }
        }
        let plan_name = if test_plan.name.is_empty() || test_plan.name == "Test Plan" {
            path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "plan".into())
        } else {
            test_plan.name.clone()
        };
        // A .jmx has no element for it: which headers tell the upstream's time is a property.
        let timing = match self.b.sym.properties.get(TIMING_HEADERS_PROPERTY) {
            Some(v) => match v.split(',').filter(|s| !s.trim().is_empty()).map(timing::parse_source).collect() {
                Ok(sources) => Some(timing::TimingHeaders::with_plan(sources)),
                Err(msg) => {
                    let loc = Location::file(path).element(format!("property {TIMING_HEADERS_PROPERTY}"));
                    self.last = Some(Error::invalid(loc, msg));
                    return None;
                }
            },
            None => None,
        };
        let bandwidth = crate::plan::Bandwidth {
            loaded: crate::plan::Bandwidth::PROPERTIES
                .map(|p| crate::plan::Bandwidth::cps(self.b.sym.properties.get(p).map(String::as_str))),
            scripted: self.b.sym.properties_change,
        };
        let b = std::mem::take(&mut self.b);
        let mut plan = b.finish(plan_name, Some(path.to_path_buf()));
        plan.bandwidth = bandwidth;
        if let Some(t) = timing {
            plan.timing_headers = t;
        }
        plan.cookies = self.cookies;
        plan.managers = std::mem::take(&mut self.managers);
        plan.autostops = std::mem::take(&mut self.autostops).into_iter().map(|(_, a)| a).collect();
        plan.last_ok = last_ok;
        plan.consecutive = test_plan.flag("TestPlan.serialize_threadgroups").unwrap_or(false);
        // JMeter's SSL manager trusts every server certificate (JsseSSLManager's trust-all
        // manager): a plan against a self-signed test server runs there, so it runs here too.
        plan.tls.insecure = true;
        Some(plan)
    }
}

/// The property naming the headers that tell the upstream's time (`-J`, as `defaults.timing_headers`
/// of a YAML plan: `X-Upstream-Time,X-Upstream-Response-Time:s,Server-Timing:db`).
pub(crate) const TIMING_HEADERS_PROPERTY: &str = "stampede.timing_headers";

/// What applies to the samplers below a point of the tree.
#[derive(Debug, Clone, Default)]
struct Scope {
    /// Header managers, outer first; an inner header of the same name wins. Compiled once per
    /// manager: a function in a header (`${__counter(FALSE)}`) is one instance for all the
    /// samplers in scope, as in JMeter.
    headers: Vec<(String, Template)>,
    http: HttpDefaults,
    /// Timers, run before each sampler in scope.
    timers: Vec<Think>,
    /// Post-processors and assertions, applied to each sampler in scope.
    extract: Vec<Extractor>,
    checks: Vec<Check>,
    ignore_status: bool,
    /// What a failed sampler in scope does beside its thread group's policy (Result Status
    /// Action Handler).
    on_error: flow::StopKind,
    /// Steps to run after each sampler in scope (post-processors that write files).
    after: Vec<Step>,
    /// Steps to run before each sampler in scope, before its timers (pre-processors).
    before: Vec<Step>,
    /// The AutoStop Listeners in scope (indexes into `Cx::autostops`): they see its samples.
    autostops: Vec<usize>,
    /// Steps to run where the scope starts (data files, counters, random variables, user
    /// parameters): once per pass through the scope's controller.
    pre: Vec<Step>,
    /// The HTTP Cache, Authorization and DNS Cache Managers in scope (the innermost of each).
    managers: crate::plan::managers::Managers,
    /// The WebSocket frame filters in scope, outer first.
    ws_filters: Vec<crate::plan::sampler::websocket::FrameFilter>,
    /// The TCP Sampler Configs' fields, the innermost first.
    tcp: Vec<Prop>,
    /// The FTP Request Defaults' and Login Config Elements' fields, the innermost first.
    ftp: Vec<Prop>,
    /// The Java Request Defaults in scope (synthetic.rs).
    java: Vec<synthetic::JavaDefaults>,
    /// RegEx User Parameters in scope, outer first (modifier.rs).
    param_overrides: Vec<crate::plan::sampler::http::ParamOverride>,
    /// HTTP URL Re-writing Modifiers in scope, outer first (modifier.rs).
    url_rewrites: Vec<crate::plan::sampler::http::UrlRewrite>,
    /// Script post-processors, assertions and listeners in scope, in tree order (script.rs).
    scripts: Vec<crate::plan::sampler::script::ScriptRef>,
}

impl Scope {
    /// The after-sample part of a sampler in this scope.
    fn after(&self) -> After {
        After {
            extract: self.extract.clone(),
            checks: self.checks.clone(),
            scripts: self.scripts.clone(),
            on_error: self.on_error,
        }
    }
}

struct Cx {
    file: PathBuf,
    /// The plan being built.
    b: Builder,
    cookies: bool,
    /// A Cookie Manager read so far in the scope being read (the test plan's, then each thread
    /// group's with the test plan's) clears the jar as each iteration starts.
    clear_cookies: bool,
    /// What the HTTP managers ask of every user (config.rs).
    managers: crate::plan::managers::PlanManagers,
    report: Vec<ElementReport>,
    skip: bool,
    /// `--strict`: each warning is a problem too.
    strict: bool,
    lenient: bool,
    /// `--allow-commands`: OS Process Samplers run their commands.
    allow_commands: bool,
    /// The whole test plan, for Module Controllers to find their target.
    root: El,
    /// Modules and includes being expanded, against a module that contains itself.
    expanding: usize,
    /// The AutoStop Listeners read so far, with the address of their element in the tree.
    autostops: Vec<(usize, flow::AutoStop)>,
    /// The Spider PreProcessors read so far: each one's index in a user's spiders.
    spiders: u32,
    /// (line, element, message) of each unsupported element not skipped.
    unsupported: Vec<(usize, String, String)>,
    /// The error of each element that cannot be read as it is, in walk order.
    errors: Vec<Error>,
    /// Files that cannot be read now (`lenient`): what a run needs.
    needs: Vec<Error>,
    /// Inside how many elements that do not run (unsupported or skipped) the walk is: their
    /// children are read to be listed, and what they make is dropped.
    inert: usize,
    /// Why the walk made no plan, when no element is to blame.
    last: Option<Error>,
    /// A script sets variables by names computed while it runs (`vars.put(name, ...)`).
    scripts_set_any: bool,
    /// The plan's URL Re-writing Modifiers, found in the tree once (each HTTP sampler takes
    /// their extractors: a walk of the whole tree per sampler made loading quadratic).
    url_rewriters: Option<std::sync::Arc<[El]>>,
    /// The plan's text as read, for what is named anywhere in it (a Regular Expression
    /// Extractor's `name_g...`): one search of it per question, not a walk of the tree.
    text: String,
    /// The names Regular Expression Extractors with match number -1 set, once asked.
    regex_lists: Option<std::collections::HashSet<String>>,
    /// The log files of the Access Log Samplers with a shared parser, and the slot of each
    /// one's position (JMeter's FileServer keeps one reader per file name).
    access_logs: Vec<(String, u32)>,
    /// Where JMeter's engine throws out of its run loop as the test starts (thread_group.rs).
    engine_stop: Option<thread_group::EngineStop>,
    /// The shortest Sample Timeout of the thread group being read (modifier.rs).
    sample_timeout: Option<Duration>,
}

impl Cx {
    fn loc(&self, el: &El) -> Location {
        let mut l = Location::file(&self.file).element(describe(el));
        l.line = Some(el.line);
        l
    }

    fn err(&self, el: &El, msg: impl std::fmt::Display) -> Error {
        Error::invalid(self.loc(el), msg)
    }

    /// A value needed now (a count, a duration, a file name).
    fn expand(&mut self, el: &El, raw: &str) -> Result<String, Error> {
        template::expand(raw, &mut self.b.sym).map_err(|m| Error::new(ErrorKind::Template, self.loc(el), m))
    }

    fn tmpl(&mut self, el: &El, raw: &str) -> Result<Template, Error> {
        let sampler = el.class.ends_with("Sampler") || el.class.ends_with("SamplerProxy");
        self.b.sym.sampler = sampler.then(|| el.name.clone());
        template::compile(raw, &mut self.b.sym, &describe(el))
            .map_err(|m| Error::new(ErrorKind::Template, self.loc(el), m))
    }

    /// The value of a secret (its name says so: `Authorization`, `password`): an error compiling
    /// it keeps the element and the place in the text, but shows no quoted string of the text,
    /// which may be the secret itself (`${__groovy("Bearer sk-..." + x)}`).
    fn secret_tmpl(&mut self, el: &El, name: &str, raw: &str) -> Result<Template, Error> {
        self.tmpl(el, raw).map_err(|mut e| {
            if crate::redact::is_secret_name(name.trim()) {
                e.message = mask_literals(&e.message, raw);
            }
            e
        })
    }

    /// A sampler or transaction named with `${...}`: JMeter renders its name for each sample,
    /// and so does the run (label `id` is its name as written). A name that does not compile
    /// stays as written.
    fn run_time_label(&mut self, el: &El, name: &str, id: LabelId) {
        if name.contains("${") {
            if let Ok(t) = self.tmpl(el, name) {
                if t.as_const() != Some(name) {
                    self.b.run_time_label(id, t);
                }
            }
        }
    }

    fn number<T: std::str::FromStr>(&mut self, el: &El, raw: &str, what: &str) -> Result<T, Error> {
        let v = self.expand(el, raw)?;
        v.trim().parse().map_err(|_| {
            // A number too large (or negative, or fractional) for what it counts says so.
            let why =
                if v.trim().parse::<f64>().is_ok_and(f64::is_finite) { "is out of range" } else { "is not a number" };
            self.err(el, format!("{what} `{v}` {why}"))
        })
    }

    /// A number JMeter reads while running, with a fallback when it is not one: `Ok(Err(text))`
    /// for text no number parse takes, an undefined `${var}` included (JMeter leaves it as
    /// `${var}`) and a variable only set while running. A number out of range is an error.
    fn number_or_text<T: std::str::FromStr>(
        &mut self,
        el: &El,
        raw: &str,
        what: &str,
    ) -> Result<Result<T, String>, Error> {
        let v = match self.expand(el, raw) {
            Ok(v) => v,
            Err(_) => return Ok(Err(raw.trim().to_string())),
        };
        if v.trim().parse::<f64>().is_err() {
            return Ok(Err(v.trim().to_string()));
        }
        self.number(el, v.trim(), what).map(Ok)
    }

    /// A number JMeter reads with a fallback of 0 when it is not one (ramp-up, delays): the
    /// same here, with the reason kept for the element's report.
    fn number_or_zero(&mut self, el: &El, raw: &str, what: &str, notes: &mut Vec<String>) -> f64 {
        match self.number::<f64>(el, raw, what) {
            Ok(n) => n,
            Err(e) => {
                notes.push(format!("{what} `{raw}` is taken as 0, as JMeter does ({})", e.message));
                0.0
            }
        }
    }

    /// A time JMeter gives in milliseconds; see [`Cx::secs`].
    fn millis(&self, el: &El, ms: f64, what: &str) -> Result<Duration, Error> {
        self.secs(el, ms / 1000.0, what).map_err(|_| {
            self.err(
                el,
                format!("{what} `{ms}` ms is out of range: at most {} ms (365 days)", MAX_DURATION.as_millis()),
            )
        })
    }

    /// A time JMeter gives in seconds: a negative one is none (JMeter waits for none), one
    /// beyond [`MAX_DURATION`] is a plan error (such a run would never end: certainly a typo).
    fn secs(&self, el: &El, s: f64, what: &str) -> Result<Duration, Error> {
        if s.is_nan() || s > MAX_DURATION.as_secs_f64() {
            return Err(self
                .err(el, format!("{what} `{s}` s is out of range: at most {} s (365 days)", MAX_DURATION.as_secs())));
        }
        Ok(Duration::from_secs_f64(s.max(0.0)))
    }

    /// Reads the scope elements among `children` (configs, timers, post-processors,
    /// assertions) on top of `outer`.
    fn scope_of(&mut self, children: &[El], outer: &Scope, depth: usize) -> Result<Scope, Error> {
        let mut s = outer.clone();
        s.pre.clear();
        for c in children {
            if is_thread_group(&c.class) || is_sampler_or_controller(&c.class) {
                continue;
            }
            if !c.enabled {
                self.report(c, depth, Status::Disabled, "disabled: skipped");
                continue;
            }
            self.scope_element(c, &mut s, depth)?;
        }
        self.csv_header_conflicts(children, &mut s);
        Ok(s)
    }

    /// JMeter's FileServer shares one reader among the CSV Data Sets of one scope that read the
    /// same file in the same share mode, opened by the first to start an iteration: the last
    /// in the tree (a controller calls its iteration listeners in reverse order). When that one
    /// reads no header line and another wants one (no variable names, or "Ignore first line"),
    /// the other fails each thread at its first iteration, before any sample (FileServer:
    /// "Could not read file header line for file NAME"): the users stop there too.
    fn csv_header_conflicts(&mut self, children: &[El], s: &mut Scope) {
        let mut sets = Vec::new();
        for c in children.iter().filter(|c| c.enabled && c.class == "CSVDataSet") {
            let file = self.expand(c, c.text_or_empty("filename")).unwrap_or_default().trim().to_string();
            let share = c.text("shareMode").unwrap_or("shareMode.all").to_string();
            let header = c.text_or_empty("variableNames").trim().is_empty() || c.flag("ignoreFirstLine") == Some(true);
            sets.push((file, share, header, c.at));
        }
        for (i, (file, share, header, _)) in sets.iter().enumerate() {
            let same = |(f, sh, ..): &&(String, String, bool, usize)| f == file && sh == share;
            if *header || sets[i + 1..].iter().any(|o| same(&o)) {
                continue;
            }
            let Some(&(.., at)) = sets[..i].iter().filter(same).find(|o| o.2) else { continue };
            s.pre.push(Step::Stop(flow::StopKind::User));
            if let Some(r) = self.report.iter_mut().rev().find(|r| r.at == at) {
                r.status = Status::Partial;
                r.note = format!(
                    "JMeter stops each thread at its first iteration, before any sample: \"Could not read file \
                     header line for file {file}\" (a CSV Data Set of this file later in the tree opens it first, \
                     without its header line); so does stampede"
                );
            }
        }
    }

    /// Reads one scope element by its class, from the family tables.
    /// An element that cannot be read is reported with its error, and the walk goes on.
    fn scope_element(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let before = self.report.len();
        let read = match SCOPE_FAMILIES.iter().flat_map(|(_, f)| f.iter()).find(|(class, _)| *class == c.class) {
            Some((_, read)) => read(self, c, s, depth),
            None if script::is_script(&c.class) => {
                self.unsupported(c, depth, "this script element is not known to stampede");
                Ok(())
            }
            None => {
                self.unsupported(c, depth, "this element is not known to stampede");
                Ok(())
            }
        };
        if let Err(e) = read {
            self.failed(c, depth, e);
        }
        let outer = s.clone();
        self.list_if_inert(c, &outer, depth, before);
        Ok(())
    }

    /// The steps of a controller's children, with its scope.
    fn controller_body(&mut self, children: &[El], outer: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let scope = self.scope_of(children, outer, depth)?;
        let mut steps = scope.pre.clone();
        for c in children {
            if !is_sampler_or_controller(&c.class) {
                continue;
            }
            if !c.enabled {
                self.report(c, depth, Status::Disabled, "disabled: skipped");
                continue;
            }
            steps.extend(self.sampler_or_controller(c, &scope, depth)?);
        }
        Ok(steps)
    }

    /// Reads one sampler or controller by its class, from the family tables.
    /// One that cannot be read is reported with its error and makes no step; the walk goes on.
    fn sampler_or_controller(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let before = self.report.len();
        let read = match STEP_FAMILIES.iter().flat_map(|(_, f)| f.iter()).find(|(class, _)| *class == c.class) {
            Some((_, read)) => read(self, c, scope, depth),
            None => {
                self.unsupported(c, depth, "this controller or sampler is not supported");
                Ok(Vec::new())
            }
        };
        let steps = read.unwrap_or_else(|e| {
            self.failed(c, depth, e);
            Vec::new()
        });
        self.autostop_sees(c, scope, &steps);
        self.list_if_inert(c, scope, depth, before);
        Ok(steps)
    }

    /// Lists the children of an element that does not run (unsupported, skipped or in error)
    /// when reading it did not: each is read for its status, and what they make is dropped.
    fn list_if_inert(&mut self, c: &El, scope: &Scope, depth: usize, before: usize) {
        let new = &self.report[before.min(self.report.len())..];
        let inert = new
            .iter()
            .any(|r| r.at == c.at && matches!(r.status, Status::Unsupported | Status::Skipped | Status::Error));
        if !inert || c.children.is_empty() || new.iter().any(|r| r.depth > depth) {
            return;
        }
        let kept = self.b.clone();
        let kept_cookies = (self.cookies, self.clear_cookies);
        let kept_managers = self.managers.clone();
        self.inert += 1;
        let _ = self.controller_body(&c.children, scope, depth + 1);
        self.inert -= 1;
        self.b = kept;
        (self.cookies, self.clear_cookies) = kept_cookies;
        self.managers = kept_managers;
    }
}

/// Reads a scope element (a config, timer, post-processor, assertion or listener) into the
/// scope it belongs to.
type ScopeFn = fn(&mut Cx, &El, &mut Scope, usize) -> Result<(), Error>;

/// Reads a sampler or controller into the steps it makes.
type StepsFn = fn(&mut Cx, &El, &Scope, usize) -> Result<Vec<Step>, Error>;

/// The scope elements stampede reads, by family (scripts it cannot run are [`script::is_script`]).
const SCOPE_FAMILIES: [(&str, &[(&str, ScopeFn)]); 12] = [
    ("config element", config::ELEMENTS),
    ("pre-processor", modifier::ELEMENTS),
    ("config element", sampler::SCOPE_ELEMENTS),
    ("timer", timer::ELEMENTS),
    ("post-processor", extractor::ELEMENTS),
    ("assertion", assertion::ELEMENTS),
    ("listener", listener::ELEMENTS),
    ("script element", script::ELEMENTS),
    ("config element", websocket::FILTERS),
    ("pre-processor", socket::SCOPE_ELEMENTS),
    ("pre- or post-processor", sync::PROCESSORS),
    ("listener", sync::LISTENERS),
];

/// The samplers and controllers stampede reads, by family.
const STEP_FAMILIES: [(&str, &[(&str, StepsFn)]); 7] = [
    ("sampler", script::STEP_ELEMENTS),
    ("sampler", sampler::STEP_ELEMENTS),
    ("sampler", synthetic::ELEMENTS),
    ("sampler", socket::STEP_ELEMENTS),
    ("controller", controller::ELEMENTS),
    ("controller", module::ELEMENTS),
    ("sampler", websocket::ELEMENTS),
];

/// Samplers and controllers: the elements that make steps (the rest set up their scope).
fn is_sampler_or_controller(class: &str) -> bool {
    class.ends_with("Sampler")
        || class.ends_with("SamplerProxy")
        || class.ends_with("Controller")
        || class == "TestAction"
        || matches!(class, "InterleaveControl" | "RunTime" | "kg.apc.jmeter.control.sampler.SetVariablesAction")
        || class == "TestFragmentController"
}

fn describe(el: &El) -> String {
    if el.name.is_empty() {
        format!("<{}>", el.tag)
    } else {
        format!("<{}> \"{}\"", el.tag, el.name)
    }
}

fn texts(props: &[Prop]) -> Vec<String> {
    props
        .iter()
        .filter_map(|p| match &p.value {
            Value::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

const LAST_SAMPLE_OK: &str = "JMeterThread.last_sample_ok";

/// `message` with every quoted string of `raw` (`"..."`, `'...'`) shown as `"***"`.
fn mask_literals(message: &str, raw: &str) -> String {
    let quoted = regex::Regex::new(r#""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"#).expect("a valid regex");
    let mut out = message.to_string();
    for m in quoted.find_iter(raw) {
        if m.as_str().len() > 2 {
            out = out.replace(m.as_str(), "\"***\"");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan of one thread group (`tg_props` inside it) holding `body`.
    fn plan(tg_props: &str, body: &str) -> String {
        let get = r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.path">/</stringProp>
        </HTTPSamplerProxy>"#;
        groups(&group("ThreadGroup", "1", tg_props, &format!("{get}<hashTree>{body}</hashTree>")))
    }

    fn load(text: &str) -> Result<Plan, Error> {
        read(text, Path::new("t.jmx"), &Options::default()).map(|(p, _)| p)
    }

    /// A plan of `groups` (thread groups with their hash trees) under a test plan.
    fn groups(groups: &str) -> String {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2">
  <hashTree>
    <TestPlan testclass="TestPlan" testname="Plan" enabled="true"/>
    <hashTree>
{groups}
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#
        )
    }

    /// A thread group of `threads` (JMeter's text) with the properties `props`, holding `body`.
    fn group(class: &str, threads: &str, props: &str, body: &str) -> String {
        format!(
            r#"<{class} testclass="{class}" testname="{class}" enabled="true">
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <stringProp name="LoopController.loops">1</stringProp>
        </elementProp>
        {props}
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp>
      </{class}>
      <hashTree>{body}</hashTree>"#
        )
    }

    fn sampler(name: &str, domain: &str, port: &str, path: &str, method: &str) -> String {
        format!(
            r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <stringProp name="HTTPSampler.domain">{domain}</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">{method}</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
        )
    }

    /// A Constant Timer of `ms`: beyond a year, a plan error.
    fn timer(name: &str, ms: &str) -> String {
        format!(
            r#"<ConstantTimer testclass="ConstantTimer" testname="{name}" enabled="true">
          <stringProp name="ConstantTimer.delay">{ms}</stringProp>
        </ConstantTimer><hashTree/>"#
        )
    }

    fn inspect_text(text: &str, skip: bool) -> Inspection {
        inspect(text, Path::new("t.jmx"), &Options { skip_unsupported: skip, ..Default::default() })
    }

    /// `check` reads files leniently; a plan that sends nothing, with no file missing, is
    /// still refused, as `run` refuses it.
    /// #32: placeholders left in a sampler's protocol and port (`PROTOCOL`, a `${port}` whose
    /// variable reads `PORT`): JMeter reads the port as none and fails each sample unsent,
    /// `java.net.MalformedURLException: unknown protocol: protocol`; stampede refused the plan.
    #[test]
    fn an_unknown_protocol_and_a_port_that_is_no_number_load_and_fail_each_sample() {
        let udv = r#"<Arguments testclass="Arguments" testname="vars" enabled="true"><collectionProp name="Arguments.arguments">
            <elementProp name="port" elementType="Argument"><stringProp name="Argument.name">port</stringProp><stringProp name="Argument.value">PORT</stringProp></elementProp>
            </collectionProp></Arguments><hashTree/>"#;
        let protocol = |p: &str| {
            sampler(&format!("via {p}"), "127.0.0.1", "${port}", "/x", "GET").replace(
                "</HTTPSamplerProxy>",
                &format!(r#"<stringProp name="HTTPSampler.protocol">{p}</stringProp></HTTPSamplerProxy>"#),
            )
        };
        let body = [udv.to_string(), protocol("PROTOCOL"), protocol("http")].concat();
        let i = inspect_text(&groups(&group("ThreadGroup", "1", "", &body)), false);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        assert_eq!(status_of(&i, "via PROTOCOL"), Status::Warning);
        assert_eq!(status_of(&i, "via http"), Status::Supported);
        let mut requests = Vec::new();
        flow::for_each_request(&i.plan.as_ref().unwrap().scenarios[0].flow, &mut |r| requests.push(r.clone()));
        let note = &i.elements.iter().find(|r| r.name == "via PROTOCOL").unwrap().note;
        assert!(note.contains("unknown protocol: protocol"), "{note}");
        assert!(requests[0].fault.is_some());
        // The port that is no number is the protocol's default.
        assert_eq!((requests[1].fault.is_none(), requests[1].target.port), (true, 80));
    }

    #[test]
    fn a_plan_sending_nothing_is_refused_when_read_leniently_too() {
        let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2"><hashTree>
  <TestPlan testclass="TestPlan" testname="Plan" enabled="true"/>
  <hashTree>
    <ThreadGroup testclass="ThreadGroup" testname="G" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup>
    <hashTree>
      <TestAction testclass="TestAction" testname="pause" enabled="true">
        <intProp name="ActionProcessor.action">1</intProp><stringProp name="ActionProcessor.duration">10</stringProp>
      </TestAction>
      <hashTree/>
    </hashTree>
  </hashTree>
</hashTree></jmeterTestPlan>"#;
        for lenient_files in [false, true] {
            let i = inspect(text, Path::new("t.jmx"), &Options { lenient_files, ..Default::default() });
            assert!(i.plan.is_none(), "lenient: {lenient_files}");
            assert!(i.problems.iter().any(|e| e.message == "no thread group sends a request"), "{:?}", i.problems);
        }
    }

    /// A constant timer's delay beyond a year is refused whether written as a whole number or
    /// not (`99999999999999` was taken, `1e14` refused).
    #[test]
    fn a_timer_beyond_a_year_is_refused_written_either_way() {
        for ms in ["99999999999999", "1e14"] {
            let body = [timer("long", ms), sampler("get", "127.0.0.1", "", "/", "GET")].concat();
            let tg = group("ThreadGroup", "1", "", &body);
            let i = inspect_text(&groups(&tg), false);
            assert_eq!(status_of(&i, "long"), Status::Error, "{ms}");
            assert!(i.problems.iter().any(|e| e.message.contains("out of range")), "{ms}: {:?}", i.problems);
        }
        let body = [timer("fine", "250"), sampler("get", "127.0.0.1", "", "/", "GET")].concat();
        assert!(inspect_text(&groups(&group("ThreadGroup", "1", "", &body)), false).plan.is_some());
    }

    fn status_of(i: &Inspection, name: &str) -> Status {
        i.elements
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("{name} not listed: {:?}", i.elements))
            .status
    }

    /// #13: the walk does not stop at the first error: every element is listed, each one that
    /// cannot be read has the status `error`, and every problem (with line and element) is
    /// returned at once; `read` refuses the plan with one error naming them all.
    #[test]
    fn every_problem_is_reported_at_once() {
        let body = [
            timer("bad method", "1e40"),
            sampler("fine", "127.0.0.1", "", "/b", "GET"),
            r#"<com.example.LockController testclass="com.example.LockController" testname="lock" enabled="true"/>
            <hashTree>"#
                .to_string(),
            timer("locked", "NaN"),
            "</hashTree>".to_string(),
        ]
        .concat();
        let tg = group("ThreadGroup", "1", r#"<boolProp name="ThreadGroup.scheduler">true</boolProp>"#, &body);
        let i = inspect_text(&groups(&tg), false);
        assert!(i.plan.is_none());
        // A scheduler without a duration: JMeter does not start the group (#32).
        assert_eq!(status_of(&i, "ThreadGroup"), Status::Warning);
        assert_eq!(status_of(&i, "bad method"), Status::Error);
        assert_eq!(status_of(&i, "fine"), Status::Supported);
        assert_eq!(status_of(&i, "lock"), Status::Unsupported);
        // The child of the unsupported controller is read and listed, with its own error.
        assert_eq!(status_of(&i, "locked"), Status::Error);
        assert_eq!(i.problems.len(), 3, "{:?}", i.problems);
        for p in &i.problems {
            assert!(p.location.line.is_some() && p.location.element.is_some(), "{p}");
        }
        let e = read(&groups(&tg), Path::new("t.jmx"), &Options::default()).unwrap_err().to_string();
        assert!(e.starts_with("t.jmx: 3 problems:"), "{e}");
        for want in ["\"bad method\"", "\"lock\"", "\"locked\"", "out of range"] {
            assert!(e.contains(want), "{want}: {e}");
        }
    }

    /// #13: an unsupported thread group's children are read and listed (they do not run); with
    /// --skip-unsupported, an error inside what is skipped does not refuse the plan.
    #[test]
    fn children_of_an_unsupported_thread_group_are_listed() {
        let plugin = "com.example.FancyThreadGroup";
        let text = groups(&format!(
            "{}{}",
            group(plugin, "3", "", &(timer("inside", "1e40") + &sampler("inside ok", "127.0.0.1", "", "/z", "GET"))),
            group("ThreadGroup", "1", "", &sampler("outside", "127.0.0.1", "", "/y", "GET"))
        ));
        let i = inspect_text(&text, false);
        assert_eq!(status_of(&i, plugin), Status::Unsupported);
        assert_eq!(status_of(&i, "inside"), Status::Error);
        assert_eq!(i.elements.iter().find(|r| r.name == "inside").unwrap().depth, 2);
        assert_eq!(i.problems.len(), 2, "{:?}", i.problems);
        let skipped = inspect_text(&text, true);
        assert_eq!(status_of(&skipped, plugin), Status::Skipped);
        assert_eq!(status_of(&skipped, "inside"), Status::Error);
        let plan = skipped.plan.clone().expect("runs without the skipped group");
        assert_eq!(plan.scenarios.len(), 1);
        assert!(!plan.labels.iter().any(|l| l.starts_with("inside")), "what the skipped group made is dropped");
        assert_eq!(status_of(&skipped, "inside ok"), Status::Supported);
    }

    /// #13: what JMeter loads, stampede loads: a ForEach Controller without input prefix or
    /// output variable, an Include Controller without a file (includes nothing), a Counter or Random
    /// Variable without a variable name (sets nothing anyone reads), an Ultimate Thread Group with no rows and a thread count that is not a
    /// number (both start no thread), an HTTP request without a server name (its samples fail,
    /// sent nowhere), a port that is not a number (the protocol's default port).
    #[test]
    fn what_jmeter_loads_loads() {
        let foreach = format!(
            r#"<ForeachController testclass="ForeachController" testname="each" enabled="true"/>
            <hashTree>{}</hashTree>"#,
            sampler("in loop", "127.0.0.1", "", "/l", "GET")
        );
        let utg = r#"<kg.apc.jmeter.threads.UltimateThreadGroup testclass="kg.apc.jmeter.threads.UltimateThreadGroup" testname="ultimate" enabled="true">
          <collectionProp name="ultimatethreadgroupdata"/>
        </kg.apc.jmeter.threads.UltimateThreadGroup>
        <hashTree/>"#;
        let body = [
            foreach,
            sampler("no server", "", "", "/a", "GET"),
            sampler("bad port", "127.0.0.1", "{{port:}}", "/b", "GET"),
            sampler("bad method", "127.0.0.1", "", "/c", "${verb}"),
            r#"<CounterConfig testclass="CounterConfig" testname="nameless counter" enabled="true"/><hashTree/>
            <RandomVariableConfig testclass="RandomVariableConfig" testname="nameless random" enabled="true"/><hashTree/>
            <IncludeController testclass="IncludeController" testname="include nothing" enabled="true">
              <stringProp name="IncludeController.includepath"></stringProp></IncludeController><hashTree/>"#
                .to_string(),
        ]
        .concat();
        let text = groups(&format!(
            "{}{utg}{}",
            group("ThreadGroup", "1", "", &body),
            group("SetupThreadGroup", "many", "", &sampler("s", "127.0.0.1", "", "/", "GET"))
        ));
        let i = inspect_text(&text, false);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let plan = i.plan.clone().unwrap();
        // The setUp group of "many" threads and the Ultimate Thread Group start none.
        assert_eq!(plan.scenarios.len(), 1);
        assert_eq!(status_of(&i, "SetupThreadGroup"), Status::Partial);
        assert_eq!(status_of(&i, "no server"), Status::Warning);
        assert_eq!(status_of(&i, "include nothing"), Status::Ignored);
        assert_eq!(status_of(&i, "nameless counter"), Status::Ignored);
        assert_eq!(status_of(&i, "nameless random"), Status::Ignored);
        let mut requests = Vec::new();
        fn walk<'a>(steps: &'a [Step], out: &mut Vec<&'a RequestSpec>) {
            for s in steps {
                match s {
                    Step::Sample(Sampler::Http(r)) => out.push(r),
                    Step::Loop(l) => walk(&l.steps, out),
                    _ => {}
                }
            }
        }
        walk(&plan.scenarios[0].flow, &mut requests);
        let by = |label: &str| requests.iter().find(|r| plan.label(r.label) == label).unwrap();
        let fault = |label: &str| by(label).fault.map(|f| plan.checks[f.0 as usize].as_str());
        assert_eq!(
            fault("no server"),
            Some("Non HTTP response code: org.apache.http.client.ClientProtocolException, Non HTTP response message: URI does not specify a valid host name: http:/a")
        );
        assert_eq!(
            fault("bad method"),
            Some("Non HTTP response code: java.lang.IllegalArgumentException, Non HTTP response message: Unexpected method: '${verb}'")
        );
        assert_eq!(fault("bad port"), None);
        assert_eq!(by("bad port").url(), "http://127.0.0.1/b");
    }

    /// #32 (small), each as JMeter 5.6.3 sends it (bench/jmeter/plans/small-*.jmx): the Java
    /// implementation's raw POST is a form and keeps `//`; a raw body takes a file's MIME
    /// type; JSON Extractor defaults keep their spaces; a While condition whose function does
    /// not compile is a warning (blank at run time); Keystore Configuration loads, partial.
    #[test]
    fn small_differences_load_as_jmeter_runs_them() {
        let raw = r#"<boolProp name="HTTPSampler.postBodyRaw">true</boolProp><elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments"><elementProp name="" elementType="HTTPArgument"><stringProp name="Argument.value">a=1</stringProp></elementProp></collectionProp></elementProp>"#;
        let post = |name: &str, extra: &str, children: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
              <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.path">//a//b</stringProp>
              <stringProp name="HTTPSampler.method">POST</stringProp>{raw}{extra}</HTTPSamplerProxy><hashTree>{children}</hashTree>"#
            )
        };
        let java = r#"<stringProp name="HTTPSampler.implementation">Java</stringProp>"#;
        let file = r#"<elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files"><elementProp name="f" elementType="HTTPFileArg"><stringProp name="File.path">f.txt</stringProp><stringProp name="File.paramname"></stringProp><stringProp name="File.mimetype">text/x-mine</stringProp></elementProp></collectionProp></elementProp>"#;
        let json = r#"<JSONPostProcessor testclass="JSONPostProcessor" testname="json" enabled="true">
            <stringProp name="JSONPostProcessor.referenceNames">a; b</stringProp><stringProp name="JSONPostProcessor.jsonPathExprs">$.a; $.b</stringProp>
            <stringProp name="JSONPostProcessor.defaultValues">d1; d2</stringProp></JSONPostProcessor><hashTree/>"#;
        let body = [
            r#"<KeystoreConfig testclass="KeystoreConfig" testname="keystore" enabled="true"><stringProp name="startIndex">0</stringProp></KeystoreConfig><hashTree/>"#.to_string(),
            post("java", java, ""),
            post("hc4", "", json),
            post("typed", file, ""),
            format!(
                r#"<WhileController testclass="WhileController" testname="while" enabled="true"><stringProp name="WhileController.condition">${{__jexl3(1 +)}}</stringProp></WhileController><hashTree>{}</hashTree>"#,
                sampler("in", "127.0.0.1", "", "/w", "GET")
            ),
        ]
        .concat();
        let i = inspect_text(&groups(&group("ThreadGroup", "1", "", &body)), false);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        assert_eq!(status_of(&i, "keystore"), Status::Partial);
        assert_eq!(status_of(&i, "while"), Status::Warning);
        let plan = i.plan.clone().unwrap();
        let requests: Vec<&RequestSpec> = plan.scenarios[0]
            .flow
            .iter()
            .filter_map(|s| if let Step::Sample(Sampler::Http(r)) = s { Some(&**r) } else { None })
            .collect();
        let ct = |r: &RequestSpec| {
            r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-type")).map(|(_, v)| v.source().to_string())
        };
        assert_eq!(ct(requests[0]).as_deref(), Some("application/x-www-form-urlencoded"));
        assert!(!requests[0].collapse_slashes);
        assert_eq!(ct(requests[1]).as_deref(), Some("text/plain; charset=UTF-8"));
        assert!(requests[1].collapse_slashes);
        let defaults: Vec<_> = requests[1].after.extract.iter().map(|e| e.default.as_ref().unwrap().source()).collect();
        assert_eq!(defaults, ["d1", " d2"]);
        assert_eq!(ct(requests[2]).as_deref(), Some("text/x-mine"));
    }

    /// A While condition whose script does not parse is blank in JMeter too (a warning, the loop
    /// runs while the last sample succeeds); one stampede cannot run but JMeter can (a Groovy
    /// function reading `prev`, a function or class stampede lacks) stays unsupported.
    #[test]
    fn a_while_condition_is_read_as_blank_only_for_a_script_syntax_error() {
        let cases = [
            ("jexl-syntax", "${__jexl3(1 +)}", Status::Warning),
            ("groovy-syntax", "${__groovy(1 +)}", Status::Warning),
            ("prev", "${__groovy(!prev.getResponseDataAsString().contains('responseCode'))}", Status::Unsupported),
            ("xpath", "${__XPath(/a/b.xml,//b)}", Status::Unsupported),
            ("class", "${__groovy(new java.net.Socket('h'\\, 1) != null)}", Status::Unsupported),
            ("construct", "${__groovy(enum A { X })}", Status::Unsupported),
        ];
        for (name, condition, want) in cases {
            let body = format!(
                r#"<WhileController testclass="WhileController" testname="while" enabled="true"><stringProp name="WhileController.condition">{condition}</stringProp></WhileController><hashTree>{}</hashTree>"#,
                sampler("in", "127.0.0.1", "", "/w", "GET")
            );
            let i = inspect_text(&groups(&group("ThreadGroup", "1", "", &body)), false);
            assert_eq!(status_of(&i, "while"), want, "{name}: {:?}", i.elements);
        }
    }

    /// #13: JMeter makes the class of the tag, not of `testclass` (TestElementConverter), and
    /// its HTTP sampler takes configuration only from the GUI classes it lists
    /// (`HTTPSamplerBase.applies`): a `ConfigTestElement` of testclass `ConfigTestElementCustom`
    /// and GUI `HttpDefaultsGuiCustom` loads and gives no server name. A Boundary Extractor with
    /// no reference name loads too (JMeter fails it only when it runs).
    #[test]
    fn a_config_element_of_a_gui_jmeter_does_not_apply_sets_nothing() {
        let body = [
            r#"<ConfigTestElement guiclass="HttpDefaultsGuiCustom" testclass="ConfigTestElementCustom" testname="custom" enabled="true">
              <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></ConfigTestElement><hashTree/>
            <ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="defaults" enabled="true">
              <stringProp name="HTTPSampler.port">8080</stringProp></ConfigTestElement><hashTree/>
            <BoundaryExtractor guiclass="BoundaryExtractorGui" testclass="BoundaryExtractor" testname="nameless" enabled="true">
              <stringProp name="BoundaryExtractor.lboundary">a</stringProp></BoundaryExtractor><hashTree/>"#
                .to_string(),
            sampler("get", "", "", "/x", "GET"),
        ]
        .concat();
        let i = inspect_text(&groups(&group("ThreadGroup", "1", "", &body)), false);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        assert_eq!(status_of(&i, "custom"), Status::Ignored);
        assert_eq!(status_of(&i, "defaults"), Status::Supported);
        assert_eq!(status_of(&i, "nameless"), Status::Partial);
        assert_eq!(status_of(&i, "get"), Status::Warning, "no server name: each sample fails unsent");
        let strict = inspect(
            &groups(&group("ThreadGroup", "1", "", &body)),
            Path::new("t.jmx"),
            &Options { strict: true, ..Default::default() },
        );
        assert!(strict.plan.is_none());
        assert_eq!(strict.problems.len(), 1, "{:?}", strict.problems);
        assert!(strict.problems[0].to_string().contains("refused by --strict"), "{}", strict.problems[0]);
        let plan = i.plan.unwrap();
        let mut faults = Vec::new();
        flow::for_each_request(&plan.scenarios[0].flow, &mut |r| faults.push(r.fault.is_some()));
        assert_eq!(faults, [true]);
    }

    /// A class is read by one function, and the walk reaches it: scope elements are not taken
    /// for samplers or controllers (which it reads as steps), and steps are.
    #[test]
    fn every_class_has_one_reader_the_walk_reaches() {
        let scope: Vec<&str> = SCOPE_FAMILIES.iter().flat_map(|(_, f)| f.iter().map(|(c, _)| *c)).collect();
        let steps: Vec<&str> = STEP_FAMILIES.iter().flat_map(|(_, f)| f.iter().map(|(c, _)| *c)).collect();
        let mut all: Vec<&str> = scope.iter().chain(&steps).copied().collect();
        all.sort_unstable();
        let n = all.len();
        all.dedup();
        assert_eq!(all.len(), n, "a class in two tables");
        for c in &scope {
            assert!(!is_sampler_or_controller(c) && !is_thread_group(c), "{c} is read as a scope element");
        }
        for c in &steps {
            assert!(is_sampler_or_controller(c), "{c} is read as a step");
        }
    }

    /// #13: JMeter's Duration Assertion checks only a duration above 0 (read as a long: not a
    /// number is 0); 0 failed every sample here.
    #[test]
    fn a_duration_assertion_of_zero_sets_no_limit() {
        let checks = |v: &str| {
            let body = format!(
                r#"<DurationAssertion testclass="DurationAssertion" testname="d" enabled="true"><stringProp name="DurationAssertion.duration">{v}</stringProp></DurationAssertion><hashTree/>"#
            );
            let p = load(&plan("", &body)).unwrap();
            let mut n = 0;
            flow::for_each_request(&p.scenarios[0].flow, &mut |r| n += r.after.checks.len());
            n
        };
        assert_eq!((checks("0"), checks("-3"), checks("1.5"), checks("250")), (0, 0, 0, 1));
        // A variable may be set while the test runs: the limit is read per sample then (and one
        // that is still no number there is no limit).
        assert_eq!(checks("${nothing}"), 1);
    }

    /// #13: JMeter accepts any server certificate; a JMX plan's HTTPS requests do too (the
    /// corpus-wide differential saw every sample fail against a self-signed recorder).
    #[test]
    fn a_jmx_plan_trusts_any_server_certificate_as_jmeter() {
        assert!(load(&plan("", "")).unwrap().tls.insecure);
    }

    /// #11: a byte-order mark before `<?xml` is not part of the document.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        assert_eq!(load(&format!("\u{feff}{}", plan("", ""))).unwrap().scenarios.len(), 1);
    }

    /// #11: JMeter stops the test on a negative scheduler delay (a duration not above 0 only
    /// keeps its group from starting: #32); a
    /// time beyond a year was clamped to a year, and the run never ended. Both are plan errors
    /// naming the element and its line.
    #[test]
    fn out_of_range_times_are_plan_errors() {
        let sched = |d: &str, delay: &str| {
            format!(
                r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">{d}</stringProp><stringProp name="ThreadGroup.delay">{delay}</stringProp>"#
            )
        };
        let timer = |class: &str, prop: &str, v: &str| {
            format!(
                r#"<{class} testclass="{class}" testname="wait" enabled="true"><stringProp name="{prop}">{v}</stringProp></{class}><hashTree/>"#
            )
        };
        for (tg, body, want) in [
            (sched("10", "-1"), String::new(), "Invalid delay"),
            (sched("1e20", "0"), String::new(), "out of range"),
            (String::new(), timer("ConstantTimer", "ConstantTimer.delay", "99999999999999999999"), "out of range"),
            (String::new(), timer("UniformRandomTimer", "RandomTimer.range", "1e300"), "out of range"),
            (String::new(), timer("GaussianRandomTimer", "ConstantTimer.delay", "NaN"), "out of range"),
            (String::new(), timer("ConstantThroughputTimer", "throughput", "1e-30"), "out of range"),
            (
                String::new(),
                timer("DurationAssertion", "DurationAssertion.duration", "99999999999999999"),
                "out of range",
            ),
            (
                r#"<stringProp name="ThreadGroup.num_threads">99999999999</stringProp>"#.into(),
                String::new(),
                "number of threads `99999999999` is out of range",
            ),
        ] {
            let e = load(&plan(&tg, &body)).unwrap_err();
            let m = e.to_string();
            assert!(m.contains(want), "{tg} {body}: {m}");
            assert!(e.location.line.is_some() && e.location.element.is_some(), "{m}");
        }
        let ok = load(&plan(&sched("30", "2"), &timer("ConstantTimer", "ConstantTimer.delay", "-5"))).unwrap();
        let Workload::Closed(w) = &ok.scenarios[0].workload else { panic!() };
        assert_eq!((w.duration, w.start_delay), (Some(Duration::from_secs(30)), Duration::from_secs(2)));
    }

    #[test]
    fn a_secret_that_does_not_compile_is_named_without_its_text() {
        let plan = r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>
            <HeaderManager testclass="HeaderManager" testname="h" enabled="true"><collectionProp name="HeaderManager.headers"><elementProp name="" elementType="Header"><stringProp name="Header.name">Authorization</stringProp><stringProp name="Header.value">${__groovy("Bearer sk-LITERAL99" +)}</stringProp></elementProp></collectionProp></HeaderManager><hashTree/>
            <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="a" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>
            </hashTree></hashTree></hashTree></jmeterTestPlan>"#;
        let e = read(plan, Path::new("t.jmx"), &Options::default()).unwrap_err().to_string();
        assert!(!e.contains("sk-LITERAL99"), "{e}");
        assert!(e.contains("***") && e.contains("HeaderManager"), "{e}");
    }
}
