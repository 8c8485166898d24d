//! JMeter `.jmx` → [`Plan`]: the test elements of a JMeter plan read into the same model as a
//! YAML plan, with JMeter's scoping rules (a header manager, timer, extractor or assertion
//! applies to the samplers in its scope) and its defaults. Every element is reported with its
//! status (supported, ignored with why, unsupported), which `stampede check` prints.

pub mod tree;

use super::build::{Builder, Slot};
use super::condition;
use super::flow::{self, Counter, Once, Throughput, ThroughputShare, UserParams};
use super::request::{Body, JsonPathExpr, Param, Part, PartContent};
use super::template;
use super::*;
use tree::{El, Prop, Props, Value};

/// How a `.jmx` is read.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `-J name=value` and `-p file` properties.
    pub properties: HashMap<String, String>,
    /// Skip unsupported elements (reported) instead of refusing the plan.
    pub skip_unsupported: bool,
    /// A data or body file that is missing or malformed is reported, not an error (for
    /// `check`, which shows a plan whose files are elsewhere).
    pub lenient_files: bool,
}

/// What became of one element of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ElementReport {
    pub line: usize,
    pub depth: usize,
    pub class: String,
    pub name: String,
    pub status: Status,
    /// Why it is ignored or unsupported, or how it maps.
    pub note: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Supported,
    /// Read, but with a difference from JMeter the note names.
    Partial,
    /// Has no effect on the load (a GUI listener, a comment).
    Ignored,
    Disabled,
    /// Cannot run; the plan is refused unless unsupported elements are skipped.
    Unsupported,
    /// Unsupported and skipped on request.
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Supported => "supported",
            Status::Partial => "partial",
            Status::Ignored => "ignored",
            Status::Disabled => "disabled",
            Status::Unsupported => "UNSUPPORTED",
            Status::Skipped => "skipped",
        }
    }
}

/// Reads a `.jmx` text. `path` is where it came from (relative files are read from its
/// directory). Returns the plan and the report of every element.
pub fn read(text: &str, path: &Path, opts: &Options) -> Result<(Plan, Vec<ElementReport>), Error> {
    // A byte-order mark (Windows editors write one) is not part of the document.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let top = tree::parse(text).map_err(|e| {
        let mut loc = Location::file(path);
        loc.line = Some(e.line);
        loc.column = Some(e.column);
        Error::new(ErrorKind::Syntax, loc, format!("malformed XML: {}", e.message))
    })?;
    let Some(test_plan) = top.iter().find(|e| e.class == "TestPlan") else {
        return Err(Error::invalid(Location::file(path), "no TestPlan element: not a JMeter test plan"));
    };
    let mut cx = Cx {
        file: path.to_path_buf(),
        b: Builder::new(opts.properties.clone()),
        cookies: false,
        report: Vec::new(),
        skip: opts.skip_unsupported,
        lenient: opts.lenient_files,
        unsupported: Vec::new(),
        root: test_plan.clone(),
        expanding: 0,
    };
    cx.variables(test_plan)?;
    let plan_scope = cx.scope_of(&test_plan.children, &Scope::default(), 1)?;
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
    cx.report(test_plan, 0, plan_status, plan_note);
    for tg in &test_plan.children {
        if !is_thread_group(&tg.class) {
            continue;
        }
        if !tg.enabled {
            cx.report(tg, 1, Status::Disabled, "disabled: skipped");
            continue;
        }
        let name = unique_name(&tg.name, &cx.b);
        let mut workloads = cx.workloads(tg)?;
        // JMeter starts no thread for a group (or an Ultimate Thread Group row) of 0 threads.
        workloads.retain(|w| !matches!(w, Workload::Closed(c) if c.users == 0));
        let mut steps = plan_scope.pre.clone();
        steps.extend(cx.controller_body(&tg.children, &plan_scope, 2)?);
        let n = workloads.len();
        for (i, w) in workloads.drain(..).enumerate() {
            let name = if n > 1 { format!("{name} #{}", i + 1) } else { name.clone() };
            let on_error = match tg.text("ThreadGroup.on_sample_error").unwrap_or("continue") {
                "startnextloop" => flow::StopKind::NextIteration,
                "stopthread" => flow::StopKind::User,
                "stoptest" | "stoptestnow" => flow::StopKind::Run,
                _ => flow::StopKind::Continue,
            };
            let phase = match tg.class.as_str() {
                "SetupThreadGroup" => Phase::Setup,
                "PostThreadGroup" => Phase::Teardown,
                _ => Phase::Main,
            };
            cx.b.scenario(Scenario { name, workload: w, pacing: None, on_error, phase, flow: steps.clone() });
        }
    }
    if let Some(first) = cx.unsupported.first() {
        let more =
            if cx.unsupported.len() > 1 { format!(" (and {} more)", cx.unsupported.len() - 1) } else { String::new() };
        let mut loc = Location::file(path).element(first.1.clone());
        loc.line = Some(first.0);
        return Err(Error::invalid(
            loc,
            format!("{}{more}; `stampede check` lists every element; --skip-unsupported runs without them", first.2),
        ));
    }
    if cx.b.scenarios().is_empty() {
        return Err(Error::invalid(Location::file(path), "the plan has no enabled thread group with threads"));
    }
    if !opts.lenient_files && !cx.b.scenarios().iter().any(|s| flow::has_request(&s.flow)) {
        return Err(Error::invalid(Location::file(path), "no thread group sends a request"));
    }
    // JMeter's thread keeps the outcome of its last sample in a variable, `true` at the start.
    let last_ok = cx.b.sym.vars.get(LAST_SAMPLE_OK).map(|_| {
        cx.b.sym.vars.define(LAST_SAMPLE_OK, "true".into());
        cx.b.sym.vars.assign(LAST_SAMPLE_OK)
    });
    // JMeter sends a reference to a variable nothing defines as it is, `${name}`.
    while let Some((_, msg)) = cx.b.sym.vars.undefined() {
        let name = msg.split('`').nth(1).unwrap_or("").trim_start_matches("${").trim_end_matches('}').to_string();
        if name.is_empty() {
            break;
        }
        cx.b.sym.vars.define(&name, format!("${{{name}}}"));
    }
    let plan_name = if test_plan.name.is_empty() || test_plan.name == "Test Plan" {
        path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "plan".into())
    } else {
        test_plan.name.clone()
    };
    let mut plan = cx.b.finish(plan_name, Some(path.to_path_buf()));
    plan.cookies = cx.cookies;
    plan.last_ok = last_ok;
    plan.consecutive = test_plan.flag("TestPlan.serialize_threadgroups").unwrap_or(false);
    let mut report = cx.report;
    report.sort_by_key(|r| r.line);
    Ok((plan, report))
}

fn unique_name(name: &str, b: &Builder) -> String {
    let base = if name.trim().is_empty() { "Thread Group".to_string() } else { name.to_string() };
    let mut n = base.clone();
    let mut i = 2;
    while b.has_scenario(&n) {
        n = format!("{base} ({i})");
        i += 1;
    }
    n
}

fn is_thread_group(class: &str) -> bool {
    matches!(
        class,
        "ThreadGroup" | "kg.apc.jmeter.threads.UltimateThreadGroup" | "SetupThreadGroup" | "PostThreadGroup"
    )
}

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
    /// Steps to run after each sampler in scope (post-processors that write files).
    after: Vec<Step>,
    /// Steps to run where the scope starts (data files, counters, random variables, user
    /// parameters): once per pass through the scope's controller.
    pre: Vec<Step>,
}

#[derive(Debug, Clone, Default)]
struct HttpDefaults {
    protocol: String,
    domain: String,
    port: String,
    path: String,
    connect_timeout: String,
    response_timeout: String,
    args: Vec<Arg>,
}

#[derive(Debug, Clone)]
struct Arg {
    name: String,
    value: String,
    encode: bool,
}

struct Cx {
    file: PathBuf,
    /// The plan being built.
    b: Builder,
    cookies: bool,
    report: Vec<ElementReport>,
    skip: bool,
    lenient: bool,
    /// The whole test plan, for Module Controllers to find their target.
    root: El,
    /// Modules and includes being expanded, against a module that contains itself.
    expanding: usize,
    /// (line, element, message) of each unsupported element not skipped.
    unsupported: Vec<(usize, String, String)>,
}

impl Cx {
    fn report(&mut self, el: &El, depth: usize, status: Status, note: impl Into<String>) {
        self.report.push(ElementReport {
            line: el.line,
            depth,
            class: el.class.clone(),
            name: el.name.clone(),
            status,
            note: note.into(),
        });
    }

    fn unsupported(&mut self, el: &El, depth: usize, why: &str) {
        let status = if self.skip { Status::Skipped } else { Status::Unsupported };
        self.report(el, depth, status, why);
        if !self.skip {
            self.unsupported.push((el.line, describe(el), format!("{} is not supported: {why}", describe(el))));
        }
    }

    fn loc(&self, el: &El) -> Location {
        let mut l = Location::file(&self.file).element(describe(el));
        l.line = Some(el.line);
        l
    }

    fn err(&self, el: &El, msg: impl Into<String>) -> Error {
        Error::invalid(self.loc(el), msg)
    }

    /// A value needed now (a count, a duration, a file name).
    fn expand(&mut self, el: &El, raw: &str) -> Result<String, Error> {
        template::expand(raw, &mut self.b.sym).map_err(|m| Error::new(ErrorKind::Template, self.loc(el), m))
    }

    fn tmpl(&mut self, el: &El, raw: &str) -> Result<Template, Error> {
        template::compile(raw, &mut self.b.sym, &describe(el))
            .map_err(|m| Error::new(ErrorKind::Template, self.loc(el), m))
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

    /// User-defined variables: the test plan's, then every enabled Arguments element, in file
    /// order (JMeter merges them all when the test starts).
    fn variables(&mut self, plan: &El) -> Result<(), Error> {
        if let Some(udv) = plan.nested("TestPlan.user_defined_variables") {
            self.arguments(plan, udv)?;
        }
        fn walk(cx: &mut Cx, els: &[El]) -> Result<(), Error> {
            for e in els.iter().filter(|e| e.enabled) {
                if e.class == "Arguments" {
                    cx.arguments(e, &e.props)?;
                }
                walk(cx, &e.children)?;
            }
            Ok(())
        }
        walk(self, &plan.children)
    }

    fn arguments(&mut self, el: &El, props: &[Prop]) -> Result<(), Error> {
        for a in props.collection("Arguments.arguments").unwrap_or_default() {
            let Value::Element { props, .. } = &a.value else { continue };
            let name = props.text_or_empty("Argument.name").to_string();
            if name.is_empty() {
                continue;
            }
            let value = self.expand(el, props.text_or_empty("Argument.value"))?;
            self.b.sym.vars.define(&name, value);
        }
        Ok(())
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
        Ok(s)
    }

    fn scope_element(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        match c.class.as_str() {
            "Arguments" => self.report(c, depth, Status::Supported, "variables defined when the plan loads"),
            "HeaderManager" => {
                // This manager's headers replace the outer ones of the same names; within one
                // manager a name may repeat, and every value is sent (as JMeter does).
                let mut own: Vec<(String, Template)> = Vec::new();
                for h in c.collection("HeaderManager.headers").unwrap_or_default() {
                    let Value::Element { props, .. } = &h.value else { continue };
                    let name = props.text_or_empty("Header.name").trim().to_string();
                    if name.is_empty() {
                        continue;
                    }
                    let value = self.tmpl(c, props.text_or_empty("Header.value"))?;
                    own.push((name, value));
                }
                s.headers.retain(|(k, _)| !own.iter().any(|(o, _)| o.eq_ignore_ascii_case(k)));
                s.headers.extend(own);
                self.report(c, depth, Status::Supported, "headers for the samplers in its scope");
            }
            "ConfigTestElement" if c.gui == "HttpDefaultsGui" || c.prop("HTTPSampler.domain").is_some() => {
                let d = &mut s.http;
                let set = |field: &mut String, v: &str| {
                    if !v.is_empty() {
                        *field = v.to_string();
                    }
                };
                set(&mut d.protocol, c.text_or_empty("HTTPSampler.protocol"));
                set(&mut d.domain, c.text_or_empty("HTTPSampler.domain"));
                set(&mut d.port, c.text_or_empty("HTTPSampler.port"));
                set(&mut d.path, c.text_or_empty("HTTPSampler.path"));
                set(&mut d.connect_timeout, c.text_or_empty("HTTPSampler.connect_timeout"));
                set(&mut d.response_timeout, c.text_or_empty("HTTPSampler.response_timeout"));
                d.args.extend(http_args(c));
                self.report(c, depth, Status::Supported, "HTTP request defaults");
            }
            "ConfigTestElement" => self.report(c, depth, Status::Ignored, "a configuration without HTTP fields"),
            "CookieManager" => {
                self.cookies = true;
                let note = if c.flag("CookieManager.clearEachIteration") == Some(true) {
                    "a cookie jar per user (cleared each iteration in JMeter; kept here)"
                } else {
                    "a cookie jar per user"
                };
                let status = if c.flag("CookieManager.clearEachIteration") == Some(true) {
                    Status::Partial
                } else {
                    Status::Supported
                };
                self.report(c, depth, status, note);
            }
            "CSVDataSet" => match self.csv(c) {
                Ok(n) => {
                    s.pre.push(Step::Feed(n));
                    self.report(
                        c,
                        depth,
                        Status::Supported,
                        format!("data file {}", self.b.data_file(n).path.display()),
                    );
                }
                Err(e) if self.lenient => {
                    // Its columns are still variables the plan sets while running.
                    for name in c.text_or_empty("variableNames").split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        self.b.sym.vars.assign(name);
                    }
                    self.report(c, depth, Status::Partial, format!("cannot be read now: {e}"))
                }
                Err(e) => return Err(e),
            },
            "RandomVariableConfig" => {
                let name = c.text_or_empty("variableName").to_string();
                if name.is_empty() {
                    return Err(self.err(c, "a Random Variable needs a variable name"));
                }
                let (min, max) = (c.text("minimumValue").unwrap_or("0"), c.text("maximumValue").unwrap_or("0"));
                let value = self.tmpl(c, &format!("${{__Random({min},{max})}}"))?;
                let var = self.b.sym.vars.assign(&name);
                s.pre.push(Step::Set(vec![flow::Assign { var, name: name.clone(), value: (name, value) }]));
                let note = match c.text("outputFormat") {
                    Some(f) => format!("a random number per pass; output format `{f}` is not applied"),
                    None => "a random number per pass".into(),
                };
                let status = if c.text("outputFormat").is_some() { Status::Partial } else { Status::Supported };
                self.report(c, depth, status, note);
            }
            "CounterConfig" => {
                let name = c.text_or_empty("CounterConfig.name").to_string();
                if name.is_empty() {
                    return Err(self.err(c, "a Counter needs a reference name"));
                }
                let start = self.number(c, c.text("CounterConfig.start").unwrap_or("0"), "start")?;
                let increment = self.number(c, c.text("CounterConfig.incr").unwrap_or("1"), "increment")?;
                let end = match c.text("CounterConfig.end") {
                    Some(e) => Some(self.number(c, e, "maximum")?),
                    None => None,
                };
                let per_user = c.flag("CounterConfig.per_user").unwrap_or(false);
                let var = self.b.sym.vars.assign(&name);
                let slot = self.b.slot(Slot::Counter);
                s.pre.push(Step::Counter(Box::new(Counter { name, var, start, increment, end, per_user, slot })));
                self.report(c, depth, Status::Supported, "a counter per pass");
            }
            "UserParameters" => {
                let names: Vec<String> = texts(c.collection("UserParameters.names").unwrap_or_default());
                let mut rows = Vec::new();
                for row in c.collection("UserParameters.thread_values").unwrap_or_default() {
                    let Value::Collection(values) = &row.value else { continue };
                    let mut out = Vec::new();
                    for v in texts(values) {
                        out.push(self.tmpl(c, &v)?);
                    }
                    rows.push(out);
                }
                let vars = names.iter().map(|n| self.b.sym.vars.assign(n)).collect();
                let step = Step::UserParams(Box::new(UserParams { names, vars, rows }));
                let per_iteration = c.flag("UserParameters.per_iteration").unwrap_or(false);
                if per_iteration {
                    s.pre.push(step);
                } else {
                    let slot = self.b.slot(Slot::Once);
                    s.pre.push(Step::Once(Box::new(Once { steps: vec![step], per_loop: false, slot })));
                }
                self.report(c, depth, Status::Supported, "values per user");
            }
            "ConstantTimer" => {
                let ms: f64 = self.number(c, c.text("ConstantTimer.delay").unwrap_or("0"), "delay")?;
                s.timers.push(Think::Constant(self.millis(c, ms, "delay")?));
                self.report(c, depth, Status::Supported, "a think time before each sampler in scope");
            }
            "UniformRandomTimer" => {
                let offset: f64 = self.number(c, c.text("ConstantTimer.delay").unwrap_or("0"), "delay")?;
                let range: f64 = self.number(c, c.text("RandomTimer.range").unwrap_or("0"), "range")?;
                let min = self.millis(c, offset, "delay")?;
                let max = self.millis(c, offset + range.max(0.0), "delay + range")?;
                s.timers.push(Think::Uniform { min, max });
                self.report(c, depth, Status::Supported, "a uniform think time before each sampler in scope");
            }
            "ConstantThroughputTimer" => {
                let per_minute: f64 = self.number(c, c.text("throughput").unwrap_or("0"), "target throughput")?;
                let mode = c.text("calcMode").unwrap_or("0").trim().to_string();
                if per_minute > 0.0 {
                    let slot = self.b.slot(Slot::Pace);
                    let interval = self.secs(c, 60.0 / per_minute, "interval (60 s / target throughput)")?;
                    s.timers.push(Think::Throughput { interval, shared: mode != "0", slot });
                }
                let (status, note) = match mode.as_str() {
                    "0" => (Status::Supported, format!("each user: at most {per_minute} samples a minute")),
                    "1" | "2" => (Status::Supported, format!("all active users together: {per_minute} samples a minute")),
                    _ => (Status::Partial, format!("{per_minute} samples a minute shared by the active users of the thread group (JMeter's shared modes spread it differently)")),
                };
                self.report(c, depth, status, note);
            }
            "GaussianRandomTimer" | "PoissonRandomTimer" => {
                let offset: f64 = self.number(c, c.text("ConstantTimer.delay").unwrap_or("0"), "delay")?;
                let range: f64 = self.number(c, c.text("RandomTimer.range").unwrap_or("0"), "range")?;
                let (offset, deviation) = (self.millis(c, offset, "delay")?, self.millis(c, range, "range")?);
                s.timers.push(if c.class == "GaussianRandomTimer" {
                    Think::Gaussian { offset, deviation }
                } else {
                    Think::Poisson { offset, lambda_ms: deviation.as_secs_f64() * 1000.0 }
                });
                self.report(c, depth, Status::Supported, "a random think time before each sampler in scope");
            }
            "RegexExtractor" => {
                let e = self.regex_extractor(c)?;
                s.extract.push(e.0);
                self.report(c, depth, e.1, e.2);
            }
            "JSONPostProcessor" => {
                let (list, status, note) = self.json_extractor(c)?;
                s.extract.extend(list);
                self.report(c, depth, status, note);
            }
            "ResponseAssertion" => match self.response_assertion(c)? {
                Ok((checks, ignore, status, note)) => {
                    s.checks.extend(checks);
                    s.ignore_status |= ignore;
                    self.report(c, depth, status, note);
                }
                Err(why) => self.unsupported(c, depth, &why),
            },
            "JSONPathAssertion" => {
                let src = self.expand(c, c.text_or_empty("JSON_PATH"))?;
                let path = serde_json_path::JsonPath::parse(&src)
                    .map_err(|e| self.err(c, format!("invalid JSONPath `{src}`: {e}")))?;
                let negate = c.flag("INVERT").unwrap_or(false);
                let compare = c.flag("JSONVALIDATION").unwrap_or(false) && !c.flag("EXPECT_NULL").unwrap_or(false);
                let expected = c.text_or_empty("EXPECTED_VALUE").to_string();
                let regex_like = c.flag("ISREGEX").unwrap_or(true)
                    && expected.contains(['*', '+', '?', '[', '(', '|', '^', '$', '\\']);
                let equals = if compare { Some(self.tmpl(c, &expected)?) } else { None };
                let what = match &equals {
                    Some(_) => format!("{src} equals {expected:?}"),
                    None => format!("{src} exists"),
                };
                let id = self.b.check(format!("{}: {}{what}", c.name, if negate { "not " } else { "" }));
                s.checks.push(Check { id, test: CheckTest::Json { path: JsonPathExpr { src, path }, equals, negate } });
                if compare && regex_like {
                    self.report(
                        c,
                        depth,
                        Status::Partial,
                        "the expected value is compared as text, not as a regular expression",
                    );
                } else {
                    self.report(c, depth, Status::Supported, "a JSONPath check");
                }
            }
            "BoundaryExtractor" => {
                let name = c.text_or_empty("BoundaryExtractor.refname").trim().to_string();
                if name.is_empty() {
                    return Err(self.err(c, "the Boundary Extractor has no reference name"));
                }
                let left = self.expand(c, c.text_or_empty("BoundaryExtractor.lboundary"))?;
                let right = self.expand(c, c.text_or_empty("BoundaryExtractor.rboundary"))?;
                let regex = regex::Regex::new(&format!("(?s){}(.*?){}", regex::escape(&left), regex::escape(&right)))
                    .map_err(|e| self.err(c, format!("cannot match the boundaries: {e}")))?;
                let from = match c.text("BoundaryExtractor.useHeaders").unwrap_or("false") {
                    "true" => Field::Headers,
                    "URL" => Field::Url,
                    "code" => Field::Status,
                    _ => Field::Body,
                };
                let match_no = match c.text("BoundaryExtractor.match_number").map(str::trim) {
                    None | Some("") => 0,
                    Some(n) => n.parse::<i64>().map(|n| n.max(1) as u32).unwrap_or(1),
                };
                let default =
                    match (c.text("BoundaryExtractor.default"), c.flag("BoundaryExtractor.default_empty_value")) {
                        (Some(d), _) => Some(self.tmpl(c, d)?),
                        (None, Some(true)) => Some(Template::literal("")),
                        _ => None,
                    };
                let var = self.b.sym.vars.assign(&name);
                s.extract.push(Extractor {
                    var,
                    into: name.clone(),
                    source: ExtractSource::Regex { regex, template: "$1$".into(), from },
                    match_no,
                    default,
                    required: None,
                    all: None,
                });
                self.report(c, depth, Status::Supported, format!("into ${{{name}}}"));
            }
            "SizeAssertion" => {
                use request::{Compare, SizePart};
                let bytes: u64 = self.number(c, c.text("SizeAssertion.size").unwrap_or("0"), "size")?;
                let op = match c.text("SizeAssertion.operator").unwrap_or("1").trim() {
                    "2" => Compare::Ne,
                    "3" => Compare::Gt,
                    "4" => Compare::Lt,
                    "5" => Compare::Ge,
                    "6" => Compare::Le,
                    _ => Compare::Eq,
                };
                let (part, what) = match c.text("Assertion.test_field").unwrap_or("SizeAssertion.response_network_size")
                {
                    "SizeAssertion.response_headers" => (SizePart::Headers, "headers"),
                    "SizeAssertion.response_data" => (SizePart::Body, "body"),
                    "SizeAssertion.response_network_size" => (SizePart::Whole, "response"),
                    other => {
                        self.unsupported(c, depth, &format!("the size of `{other}` is not measured"));
                        return Ok(());
                    }
                };
                let id = self.b.check(format!("{}: {what} size {op:?} {bytes} bytes", c.name));
                s.checks.push(Check { id, test: CheckTest::Size { part, op, bytes } });
                self.report(c, depth, Status::Supported, "a size check");
            }
            "DurationAssertion" => {
                let ms: f64 = self.number(c, c.text("DurationAssertion.duration").unwrap_or("0"), "duration")?;
                let d = self.millis(c, ms, "duration")?;
                let id = self.b.check(format!("{}: duration at most {}", c.name, humantime::format_duration(d)));
                s.checks.push(Check { id, test: CheckTest::MaxDuration(d) });
                self.report(c, depth, Status::Supported, "a duration check");
            }
            "ResultCollector" if c.text("filename").is_some() => {
                let name = self.expand(c, c.text_or_empty("filename"))?;
                let path = self.file.parent().unwrap_or(Path::new(".")).join(name.trim());
                let note = format!("writes every sample to {} (JMeter's CSV results format)", path.display());
                self.b.result_file(&path);
                self.report(c, depth, Status::Supported, note);
            }
            "ResultCollector" | "Summariser" | "BackendListener" => self.report(
                c,
                depth,
                Status::Ignored,
                "a GUI listener: the run directory and `stampede report` hold the results",
            ),
            "ResultSaver" => self.report(c, depth, Status::Ignored, "saves response bodies to files: not done"),
            "BeanShellPostProcessor" if write_back(c.text_or_empty("script")).is_some() => {
                let (path, vars) = write_back(c.text_or_empty("script")).expect("checked by the guard");
                let path = self.file.parent().unwrap_or(Path::new(".")).join(path);
                let values: Vec<Template> = vars.iter().map(|v| Template::literal(format!("${{{v}}}"))).collect();
                let mut compiled = Vec::new();
                for v in values {
                    compiled.push(self.tmpl(c, v.source())?);
                }
                let writer = self.b.writer(path.clone(), None);
                s.after.push(Step::Write(Box::new(flow::Write { writer, values: compiled })));
                self.report(
                    c,
                    depth,
                    Status::Supported,
                    format!("a script that appends {} to {}: run as a write step", vars.join(", "), path.display()),
                );
            }
            class if class.contains("BeanShell") || class.contains("JSR223") || class.starts_with("BSF") => {
                self.unsupported(c, depth, "scripts cannot run; a script that appends variables to a file is a `write` step in a YAML plan (docs/jmx.md)");
            }
            _ => self.unsupported(c, depth, "this element is not known to stampede"),
        }
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

    fn sampler_or_controller(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        match c.class.as_str() {
            "HTTPSamplerProxy" | "HTTPSampler" => {
                let own = self.scope_of(&c.children, scope, depth + 1)?;
                let mut steps = own.pre.clone();
                steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
                let req = match self.http_sampler(c, &own) {
                    Ok(r) => r,
                    Err(e) if self.lenient && e.message.starts_with("cannot read") => {
                        self.report(c, depth, Status::Partial, format!("cannot be read now: {}", e.message));
                        return Ok(steps);
                    }
                    Err(e) => return Err(e),
                };
                if c.flag("HTTPSampler.image_parser") == Some(true) {
                    self.report(
                        c,
                        depth,
                        Status::Partial,
                        format!(
                            "{} {}; embedded resources (images, scripts, styles) are not downloaded",
                            req.method,
                            req.url()
                        ),
                    );
                } else {
                    self.report(c, depth, Status::Supported, format!("{} {}", req.method, req.url()));
                }
                steps.push(Step::Request(Box::new(req)));
                steps.extend(own.after.iter().cloned());
                Ok(steps)
            }
            "GenericController" => {
                self.report(c, depth, Status::Supported, "a sequence");
                self.controller_body(&c.children, scope, depth + 1)
            }
            "LoopController" => {
                let loops = c.text_or_empty("LoopController.loops").to_string();
                // JMeter loops forever on any negative count (`continue_forever` only matters to
                // the GUI); a `${__P(n,-1)}` count is decided at run time the same way.
                let forever = loops.trim().parse::<i64>().is_ok_and(|n| n < 0);
                let count = if forever { None } else { Some(self.tmpl(c, loops.trim())?) };
                self.report(
                    c,
                    depth,
                    Status::Supported,
                    format!("a loop ({})", if count.is_some() { loops.trim() } else { "forever" }),
                );
                let steps = self.controller_body(&c.children, scope, depth + 1)?;
                let slot = self.b.slot(Slot::Loop);
                // Without a count the loop runs until the scenario ends.
                Ok(vec![Step::Loop(Box::new(flow::Loop { count, condition: None, steps, slot }))])
            }
            "OnceOnlyController" => {
                self.report(c, depth, Status::Supported, "once per user");
                let steps = self.controller_body(&c.children, scope, depth + 1)?;
                let slot = self.b.slot(Slot::Once);
                Ok(vec![Step::Once(Box::new(Once { steps, per_loop: true, slot }))])
            }
            "TransactionController" => {
                let parent = c.flag("TransactionController.parent").unwrap_or(false);
                // JMeter's default (when the property is absent) includes timers.
                let wall_clock = c.flag("TransactionController.includeTimers").unwrap_or(true);
                let (status, note) = (
                    Status::Supported,
                    format!(
                        "{}, {}",
                        if parent {
                            "one sample for its requests, which are not recorded apart"
                        } else {
                            "one more sample for its requests"
                        },
                        if wall_clock {
                            "timed from start to end, think times included"
                        } else {
                            "the sum of their times"
                        }
                    ),
                );
                self.report(c, depth, status, note);
                let steps = self.controller_body(&c.children, scope, depth + 1)?;
                let label = self.b.label(&c.name);
                let slot = self.b.slot(Slot::Group);
                Ok(vec![Step::Group(Box::new(flow::Group { label, parent, wall_clock, steps, slot }))])
            }
            "IfController" | "WhileController" => {
                let is_if = c.class == "IfController";
                let raw = if is_if {
                    c.text_or_empty("IfController.condition")
                } else {
                    c.text_or_empty("WhileController.condition")
                };
                let src = unwrap_expression(raw.trim());
                if !is_if && (src.is_empty() || src == "LAST") {
                    self.unsupported(
                        c,
                        depth,
                        "a While Controller without a condition (until a sample fails) is not supported",
                    );
                    return Ok(Vec::new());
                }
                let mut failed = None;
                let parsed = condition::parse(&src, |operand| {
                    template::compile(operand, &mut self.b.sym, &describe(c)).inspect_err(|m| failed = Some(m.clone()))
                });
                let expr = match parsed {
                    Ok(e) => e,
                    Err(m) => {
                        self.unsupported(
                            c,
                            depth,
                            &format!("the condition `{raw}` is not one stampede can evaluate ({m})"),
                        );
                        return Ok(Vec::new());
                    }
                };
                let cond = flow::Cond { src: src.clone(), expr };
                self.report(c, depth, Status::Supported, format!("{} `{src}`", if is_if { "if" } else { "while" }));
                let steps = self.controller_body(&c.children, scope, depth + 1)?;
                if is_if {
                    return Ok(vec![Step::If(Box::new(flow::If {
                        condition: cond,
                        then: steps,
                        otherwise: Vec::new(),
                    }))]);
                }
                let slot = self.b.slot(Slot::Loop);
                Ok(vec![Step::Loop(Box::new(flow::Loop { count: None, condition: Some(cond), steps, slot }))])
            }
            "ForeachController" => {
                let prefix = c.text_or_empty("ForeachController.inputVal").trim().to_string();
                let into = c.text_or_empty("ForeachController.returnVal").trim().to_string();
                if prefix.is_empty() || into.is_empty() {
                    return Err(
                        self.err(c, "a ForEach Controller needs an input variable prefix and an output variable")
                    );
                }
                let sep = if c.flag("ForeachController.useSeparator").unwrap_or(true) { "_" } else { "" };
                let start: u64 = match c.text("ForeachController.startIndex") {
                    Some(v) => self.number(c, v, "start index")?,
                    None => 0,
                };
                // JMeter goes on while `prefix_N` is defined, up to the end index when one is
                // given; it never reads `prefix_matchNr`. Here an empty value ends the loop.
                let count = match c.text("ForeachController.endIndex") {
                    Some(end) => {
                        let end: u64 = self.number(c, end, "end index")?;
                        Some(Template::literal(end.saturating_sub(start).to_string()))
                    }
                    None => None,
                };
                let from = (1..=request::MAX_ALL_MATCHES as u64)
                    .map(|i| self.b.sym.vars.assign(&format!("{prefix}{sep}{}", start.saturating_add(i))))
                    .collect();
                let into_var = self.b.sym.vars.assign(&into);
                let slot = self.b.slot(Slot::Loop);
                self.report(
                    c,
                    depth,
                    Status::Supported,
                    format!("${{{into}}} takes ${{{prefix}{sep}1}}, ${{{prefix}{sep}2}}, ..."),
                );
                let mut steps = vec![Step::Pick(Box::new(flow::Pick {
                    slot,
                    offset: start,
                    from,
                    into: into_var,
                    name: into.clone(),
                }))];
                steps.extend(self.controller_body(&c.children, scope, depth + 1)?);
                Ok(vec![Step::Loop(Box::new(flow::Loop { count, condition: None, steps, slot }))])
            }
            "ModuleController" | "IncludeController" => {
                if self.expanding >= 8 {
                    return Err(
                        self.err(c, "modules or includes nested more than 8 deep: does the module contain itself?")
                    );
                }
                let target: Vec<El> = if c.class == "ModuleController" {
                    let path = texts(c.collection("ModuleController.node_path").unwrap_or_default());
                    match find_node(&self.root, &path) {
                        Some(t) => vec![t.clone()],
                        None => {
                            self.unsupported(
                                c,
                                depth,
                                &format!("its target `{}` is not in the plan", path.join(" > ")),
                            );
                            return Ok(Vec::new());
                        }
                    }
                } else {
                    let name = self.expand(c, c.text_or_empty("IncludeController.includepath"))?;
                    let file = self.file.parent().unwrap_or(Path::new(".")).join(name.trim());
                    let text = std::fs::read_to_string(&file)
                        .map_err(|e| self.err(c, format!("cannot read {}: {e}", file.display())))?;
                    let top = tree::parse(&text).map_err(|e| {
                        let mut loc = Location::file(&file);
                        loc.line = Some(e.line);
                        loc.column = Some(e.column);
                        Error::new(ErrorKind::Syntax, loc, format!("malformed XML: {}", e.message))
                    })?;
                    // The included plan's elements (inside its test plan or fragment).
                    top.into_iter()
                        .flat_map(|t| if t.class == "TestPlan" { t.children } else { vec![t] })
                        .flat_map(|t| if t.class == "TestFragmentController" { t.children } else { vec![t] })
                        .collect()
                };
                self.report(c, depth, Status::Supported, "runs the elements it points to, here");
                self.expanding += 1;
                let steps = if c.class == "ModuleController" {
                    let t = &target[0];
                    if is_sampler_or_controller(&t.class) {
                        self.sampler_or_controller(t, scope, depth + 1)
                    } else {
                        self.controller_body(&t.children, scope, depth + 1)
                    }
                } else {
                    self.controller_body(&target, scope, depth + 1)
                };
                self.expanding -= 1;
                steps
            }
            "TestFragmentController" => {
                // A fragment runs only through a Module or Include Controller.
                self.report(c, depth, Status::Ignored, "a test fragment: runs where a module or include points to it");
                Ok(Vec::new())
            }
            "SwitchController" => {
                let value = self.tmpl(c, c.text_or_empty("SwitchController.value"))?;
                self.report(c, depth, Status::Supported, format!("one child by the value `{}`", value.source()));
                let own = self.scope_of(&c.children, scope, depth + 1)?;
                let mut branches = Vec::new();
                for child in c.children.iter().filter(|e| e.enabled && is_sampler_or_controller(&e.class)) {
                    let steps = self.sampler_or_controller(child, &own, depth + 1)?;
                    branches.push((child.name.clone(), steps));
                }
                let mut steps = own.pre;
                steps.push(Step::Switch(Box::new(flow::Switch { value, branches })));
                Ok(steps)
            }
            "RandomController" => {
                self.report(c, depth, Status::Supported, "one child at random per pass");
                let own = self.scope_of(&c.children, scope, depth + 1)?;
                let mut branches = Vec::new();
                for child in c.children.iter().filter(|e| e.enabled && is_sampler_or_controller(&e.class)) {
                    let steps = self.sampler_or_controller(child, &own, depth + 1)?;
                    branches.push(Branch { weight: 1.0, steps });
                }
                let mut steps = own.pre;
                if !branches.is_empty() {
                    steps.push(Step::Mix(branches));
                }
                Ok(steps)
            }
            "ThroughputController" => {
                let per_user = c.flag("ThroughputController.perThread").unwrap_or(false);
                let style = c.text("ThroughputController.style").unwrap_or("0");
                let share = if style.trim() == "1" {
                    let raw = percent_value(c);
                    let p: f64 = self.number(c, &raw, "percent")?;
                    ThroughputShare::Percent(p)
                } else {
                    let raw = c.text("ThroughputController.maxThroughput").unwrap_or("1").to_string();
                    ThroughputShare::Total(self.number(c, &raw, "total executions")?)
                };
                self.report(c, depth, Status::Supported, format!("{share:?} of passes"));
                let steps = self.controller_body(&c.children, scope, depth + 1)?;
                let slot = self.b.slot(Slot::Throughput);
                Ok(vec![Step::Throughput(Box::new(Throughput { share, per_user, steps, slot }))])
            }
            "TestAction" => {
                let action = c.text("ActionProcessor.action").unwrap_or("1").trim().to_string();
                let target_all = c.text("ActionProcessor.target").unwrap_or("0").trim() == "2";
                let stop = match action.as_str() {
                    "0" | "2" if target_all => Some(flow::StopKind::Run),
                    "0" | "2" => Some(flow::StopKind::User),
                    "3" => Some(flow::StopKind::NextIteration),
                    _ => None,
                };
                if let Some(kind) = stop {
                    self.report(c, depth, Status::Supported, format!("stop: {kind:?}"));
                    return Ok(vec![Step::Stop(kind)]);
                }
                if action == "1" {
                    let ms: f64 = self.number(c, c.text("ActionProcessor.duration").unwrap_or("0"), "duration")?;
                    self.report(c, depth, Status::Supported, "a pause");
                    let own = self.scope_of(&c.children, scope, depth + 1)?;
                    let mut steps: Vec<Step> = own.timers.iter().map(|t| Step::Think(*t)).collect();
                    steps.push(Step::Think(Think::Constant(self.millis(c, ms, "duration")?)));
                    Ok(steps)
                } else {
                    self.unsupported(
                        c,
                        depth,
                        "this action (go to the next iteration of the current loop, break the loop) is not supported",
                    );
                    Ok(Vec::new())
                }
            }
            _ => {
                self.unsupported(c, depth, "this controller or sampler is not supported");
                Ok(Vec::new())
            }
        }
    }

    fn workloads(&mut self, tg: &El) -> Result<Vec<Workload>, Error> {
        if tg.class == "kg.apc.jmeter.threads.UltimateThreadGroup" {
            let mut out = Vec::new();
            let rows = tg.collection("ultimatethreadgroupdata").unwrap_or_default();
            for row in rows {
                let Value::Collection(cells) = &row.value else { continue };
                let cells = texts(cells);
                if cells.len() < 4 {
                    return Err(self.err(tg, "an Ultimate Thread Group row needs threads, delay, startup and hold"));
                }
                let users: u32 = self.number(tg, &cells[0], "threads")?;
                let delay: f64 = self.number(tg, &cells[1], "initial delay")?;
                let startup: f64 = self.number(tg, &cells[2], "startup time")?;
                let hold: f64 = self.number(tg, &cells[3], "hold time")?;
                let shutdown: f64 = match cells.get(4) {
                    Some(s) if !s.trim().is_empty() => self.number(tg, s, "shutdown time")?,
                    _ => 0.0,
                };
                out.push(Workload::Closed(ClosedWorkload {
                    users,
                    ramp_up: self.secs(tg, startup, "startup time")?,
                    iterations: None,
                    duration: Some(self.secs(tg, startup + hold, "startup + hold time")?),
                    start_delay: self.secs(tg, delay, "initial delay")?,
                    graceful_stop: self.secs(tg, shutdown, "shutdown time")?.max(workload::DEFAULT_GRACEFUL_STOP),
                }));
            }
            if out.is_empty() {
                return Err(self.err(tg, "the Ultimate Thread Group has no rows"));
            }
            self.report(
                tg,
                1,
                Status::Partial,
                format!(
                    "{} user group(s) as scenarios; users stop at the end of hold, not over the shutdown time",
                    out.len()
                ),
            );
            return Ok(out);
        }

        let users: u32 = self.number(tg, tg.text("ThreadGroup.num_threads").unwrap_or("1"), "number of threads")?;
        let mut notes = Vec::new();
        let ramp = self.number_or_zero(tg, tg.text("ThreadGroup.ramp_time").unwrap_or("0"), "ramp-up", &mut notes);
        let main = tg.nested("ThreadGroup.main_controller").unwrap_or_default();
        let loops_raw = main.text("LoopController.loops").unwrap_or("1").to_string();
        let loops: i64 = self.number(tg, &loops_raw, "loop count")?;
        let forever = loops < 0;
        let scheduler = tg.flag("ThreadGroup.scheduler").unwrap_or(false);
        let (duration, delay) = if scheduler {
            // JMeter stops the test at once ("Invalid duration"/"Invalid delay ... set in Thread
            // Group") for a duration that is not above 0 (absent counts as 0) or a negative delay.
            let d = match tg.text("ThreadGroup.duration").filter(|d| !d.trim().is_empty()) {
                Some(d) => self.number(tg, d, "duration")?,
                None => 0.0,
            };
            if d <= 0.0 {
                return Err(self.err(
                    tg,
                    format!("the scheduler is on and the duration is {d} s: it must be above 0 (JMeter stops the test: \"Invalid duration\")"),
                ));
            }
            let delay = match tg.text("ThreadGroup.delay") {
                Some(d) => self.number_or_zero(tg, d, "startup delay", &mut notes),
                None => 0.0,
            };
            if delay < 0.0 {
                return Err(self.err(
                    tg,
                    format!("the startup delay is {delay} s: it must not be negative (JMeter stops the test: \"Invalid delay\")"),
                ));
            }
            (Some(self.secs(tg, d, "duration")?), self.secs(tg, delay, "startup delay")?)
        } else {
            (None, Duration::ZERO)
        };
        let iterations = if forever { None } else { Some(loops.max(0) as u64) };
        let on_error = tg.text("ThreadGroup.on_sample_error").unwrap_or("continue");
        let until = if users == 0 {
            ": starts no thread, as in JMeter"
        } else if forever && duration.is_none() {
            "; loops forever: runs until stopped (Ctrl-C)"
        } else {
            ""
        };
        let (mut status, mut note) =
            (Status::Supported, format!("{users} users{until}; after a sample error: {on_error}"));
        if !notes.is_empty() {
            status = Status::Partial;
            note = format!("{note}; {}", notes.join("; "));
        }
        if tg.class != "ThreadGroup" {
            note.push_str(if tg.class == "SetupThreadGroup" {
                "; runs before the other thread groups"
            } else {
                "; runs after the other thread groups"
            });
        }
        self.report(tg, 1, status, note);
        Ok(vec![Workload::Closed(ClosedWorkload {
            users,
            ramp_up: self.secs(tg, ramp, "ramp-up")?,
            iterations,
            duration,
            start_delay: delay,
            graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
        })])
    }

    fn csv(&mut self, c: &El) -> Result<usize, Error> {
        let name = self.expand(c, c.text_or_empty("filename"))?;
        if name.trim().is_empty() {
            return Err(self.err(c, "the CSV Data Set has no file name"));
        }
        let path = self.file.parent().unwrap_or(Path::new(".")).join(name.trim());
        // JMeter writes a tab as `\t`.
        let delimiter = c.text("delimiter").map_or_else(|| ",".to_string(), |d| d.replace("\\t", "\t"));
        let names_raw = self.expand(c, c.text_or_empty("variableNames"))?;
        let names: Option<Vec<String>> = if names_raw.trim().is_empty() {
            None
        } else {
            // JMeter splits the names on the delimiter (a comma when it is a tab... as given).
            let sep = if names_raw.contains(&delimiter) { delimiter.clone() } else { ",".into() };
            Some(names_raw.split(sep.as_str()).map(|s| s.trim().to_string()).collect())
        };
        let opts = csv_data::CsvOptions {
            ragged: true,
            delimiter,
            quoted: c.flag("quotedData").unwrap_or(false),
            skip_first_line: names.is_some() && c.flag("ignoreFirstLine").unwrap_or(false),
            names,
        };
        let data = csv_data::read_csv(&path, &opts).map_err(|e| {
            let mut loc = Location::file(&path).element(format!("{} of {}", describe(c), self.file.display()));
            loc.line = e.line;
            Error::new(ErrorKind::Data, loc, e.message)
        })?;
        let recycle = c.flag("recycle").unwrap_or(true);
        let stop_thread = c.flag("stopThread").unwrap_or(false);
        let on_eof = match (recycle, stop_thread) {
            (true, _) => OnEof::Recycle,
            (false, true) => OnEof::StopUser,
            (false, false) => OnEof::MarkEof,
        };
        let share = match c.text("shareMode").unwrap_or("shareMode.all") {
            "shareMode.thread" => Share::User,
            "shareMode.group" => Share::Scenario,
            _ => Share::All,
        };
        Ok(self.b.data(path, data, share, on_eof))
    }

    fn http_sampler(&mut self, c: &El, scope: &Scope) -> Result<RequestSpec, Error> {
        let d = &scope.http;
        let pick = |own: &str, def: &str| if own.trim().is_empty() { def.to_string() } else { own.to_string() };
        let protocol = pick(c.text_or_empty("HTTPSampler.protocol"), &d.protocol);
        let protocol =
            if protocol.trim().is_empty() { "http".to_string() } else { protocol.trim().to_ascii_lowercase() };
        let domain = pick(c.text_or_empty("HTTPSampler.domain"), &d.domain);
        let port = pick(c.text_or_empty("HTTPSampler.port"), &d.port);
        let path = pick(c.text_or_empty("HTTPSampler.path"), &d.path);
        let method = validate_method(c.text("HTTPSampler.method").unwrap_or("GET")).map_err(|m| self.err(c, m))?;
        // Without a server name, a path made of variables must turn out to be a whole URL when
        // it is sent (JMeter's rule); one that does not makes a failed sample.
        let url_at_run_time = domain.trim().is_empty() && path.trim_start().starts_with("${");
        let absolute = path.starts_with("http://") || path.starts_with("https://") || url_at_run_time;
        let (target, path_t, origin) = if url_at_run_time {
            (Target { tls: false, host: String::new(), port: 0 }, self.tmpl(c, path.trim())?, None)
        } else if absolute {
            compile_url(&path, None, &mut self.b.sym, &describe(c))
                .map_err(|(kind, m)| Error::new(kind, self.loc(c), m))?
        } else {
            if domain.trim().is_empty() {
                return Err(self.err(c, "the HTTP request has no server name (and no HTTP Request Defaults give one)"));
            }
            // Origin and path stay apart: a path that is only a variable (`${api}`) is a path.
            let port = port.trim();
            let origin = if port.is_empty() {
                format!("{protocol}://{}", domain.trim())
            } else {
                format!("{protocol}://{}:{port}", domain.trim())
            };
            let path_t = self.tmpl(c, if path.is_empty() { "/" } else { &path })?;
            let probe = self.tmpl(c, &origin)?;
            if probe.is_dynamic(&self.b.sym.vars) {
                let placeholder = Target { tls: protocol == "https", host: String::new(), port: 0 };
                (placeholder, path_t, Some(probe))
            } else {
                // An address names a server: environment values in it are not masked as secrets.
                let kept = self.b.sym.secrets.clone();
                let text = self.expand(c, &origin)?;
                self.b.sym.secrets = kept;
                let (target, _) = resolve_url(&format!("{text}/"), None).map_err(|m| self.err(c, m))?;
                (target, path_t, None)
            }
        };
        // Arguments, the sampler's own before those of HTTP Request Defaults (JMeter's order):
        // the raw body, a form, or the query string.
        let mut args: Vec<Arg> = http_args(c);
        args.extend(d.args.iter().cloned());
        let raw_body = c.flag("HTTPSampler.postBodyRaw") == Some(true);
        let multipart = c.flag("HTTPSampler.DO_MULTIPART_POST") == Some(true);
        let files = http_files(c);
        let mut headers: Vec<(String, Template)> = scope.headers.clone();
        let has_ct = headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
        let mut query = Vec::new();
        let mut body = Body::None;
        let dir = self.file.parent().unwrap_or(Path::new(".")).to_path_buf();
        const FORM: &str = "application/x-www-form-urlencoded; charset=UTF-8";
        // JMeter leaves out arguments without a name from a query or a form.
        let params = |cx: &mut Self| -> Result<Vec<Param>, Error> {
            args.iter()
                .filter(|a| !a.name.is_empty())
                .map(|a| Ok(Param { name: a.name.clone(), value: cx.tmpl(c, &a.value)?, encoded: !a.encode }))
                .collect()
        };
        if raw_body {
            let text: String = args.iter().map(|a| a.value.as_str()).collect();
            body = Body::Text(self.tmpl(c, &text)?);
            if !has_ct {
                headers.push(("Content-Type".into(), Template::literal("text/plain; charset=UTF-8")));
            }
        } else if method == "POST" && (multipart || files.iter().any(|f| !f.1.is_empty())) {
            // Only a POST is sent as multipart: a GET with the box ticked still sends a query.
            let mut parts = Vec::new();
            for a in args.iter().filter(|a| !a.name.is_empty()) {
                parts.push(Part {
                    name: a.name.clone(),
                    filename: None,
                    content_type: None,
                    content: PartContent::Text(self.tmpl(c, &a.value)?),
                });
            }
            for (file, param, mime) in &files {
                let p = dir.join(self.expand(c, file)?);
                let bytes = std::fs::read(&p).map_err(|e| self.err(c, format!("cannot read {}: {e}", p.display())))?;
                parts.push(Part {
                    name: param.clone(),
                    filename: p.file_name().map(|n| n.to_string_lossy().into_owned()),
                    content_type: Some(if mime.is_empty() { "application/octet-stream".into() } else { mime.clone() }),
                    content: PartContent::Bytes(bytes),
                });
            }
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
            headers.push((
                "Content-Type".into(),
                Template::literal(format!("multipart/form-data; boundary={}", request::MULTIPART_BOUNDARY)),
            ));
            body = Body::Multipart(parts);
        } else if let Some((file, _, mime)) = files.first() {
            // One file without a parameter name is the body itself.
            let p = dir.join(self.expand(c, file)?);
            let bytes = std::fs::read(&p).map_err(|e| self.err(c, format!("cannot read {}: {e}", p.display())))?;
            if !has_ct && !mime.is_empty() {
                headers.push(("Content-Type".into(), Template::literal(mime.clone())));
            }
            body = Body::Bytes(bytes);
        } else {
            // As JMeter's HttpClient sampler: POST, PUT and PATCH send the arguments as a form;
            // DELETE sends them both on the query string and as a form. A POST always says it
            // sends a form.
            let form = matches!(method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE") && !args.is_empty();
            // JMeter puts arguments on the query string of GET, DELETE and OPTIONS only, and
            // never on a full URL given as the path (it takes that URL as it is).
            if matches!(method.as_str(), "GET" | "DELETE" | "OPTIONS") && !absolute {
                query = params(self)?;
            }
            if form {
                body = Body::Form(params(self)?);
            }
            if (form || method == "POST") && !has_ct {
                headers.push(("Content-Type".into(), Template::literal(FORM)));
            }
        }
        let timeout = |cx: &mut Self, own: &str, def: &str, fallback: Duration| -> Result<Duration, Error> {
            let raw = if own.trim().is_empty() { def } else { own };
            if raw.trim().is_empty() {
                return Ok(fallback);
            }
            let ms: f64 = cx.number(c, raw, "timeout")?;
            Ok(if ms <= 0.0 { fallback } else { cx.millis(c, ms, "timeout")? })
        };
        let defaults = Defaults::default();
        let connect_timeout = timeout(
            self,
            c.text_or_empty("HTTPSampler.connect_timeout"),
            &scope.http.connect_timeout,
            defaults.connect_timeout,
        )?;
        let response_timeout = timeout(
            self,
            c.text_or_empty("HTTPSampler.response_timeout"),
            &scope.http.response_timeout,
            defaults.response_timeout,
        )?;
        let follow_redirects = c.flag("HTTPSampler.follow_redirects").unwrap_or(true)
            || c.flag("HTTPSampler.auto_redirects").unwrap_or(false);
        let label_name = if c.name.is_empty() { path_t.source().to_string() } else { c.name.clone() };
        let mut req = self.b.request(&label_name, method, target, path_t, &defaults);
        if follow_redirects {
            self.b.follow_redirects(&mut req, defaults.max_redirects);
        }
        req.origin = origin;
        req.query = query;
        req.headers = headers;
        req.body = body;
        req.keep_alive = c.flag("HTTPSampler.use_keepalive").unwrap_or(true);
        req.http_version = HttpVersion::Http11;
        req.connect_timeout = connect_timeout;
        req.response_timeout = response_timeout;
        // The sampler's own post-processors and assertions come after those of outer scopes,
        // as JMeter runs them.
        req.extract = scope.extract.clone();
        req.checks = scope.checks.clone();
        req.ignore_status = scope.ignore_status;
        Ok(req)
    }

    fn regex_extractor(&mut self, c: &El) -> Result<(Extractor, Status, String), Error> {
        let name = c.text_or_empty("RegexExtractor.refname").trim().to_string();
        if name.is_empty() {
            return Err(self.err(c, "the Regular Expression Extractor has no reference name"));
        }
        let re_src = self.expand(c, c.text_or_empty("RegexExtractor.regex"))?;
        let regex = regex::Regex::new(&re_src).map_err(|e| self.err(c, format!("invalid regular expression: {e}")))?;
        let template = c.text("RegexExtractor.template").unwrap_or("$1$").to_string();
        let (from, status, mut note) = match c.text("RegexExtractor.useHeaders").unwrap_or("false") {
            "true" => (Field::Headers, Status::Supported, String::new()),
            "URL" => (Field::Url, Status::Supported, String::new()),
            "code" => (Field::Status, Status::Supported, String::new()),
            "false" => (Field::Body, Status::Supported, String::new()),
            other => (Field::Body, Status::Partial, format!("field `{other}` is read as the body; ")),
        };
        let mut all = None;
        let match_no = match c.text("RegexExtractor.match_number").map(str::trim) {
            None | Some("") => 0,
            Some(n) => match n.parse::<i64>() {
                Ok(n) if n >= 0 => n as u32,
                Ok(_) => {
                    all = Some(self.b.all_matches(&name));
                    note.push_str(&format!("all matches into ${{{name}_1}}.. and ${{{name}_matchNr}}; "));
                    1
                }
                Err(_) => return Err(self.err(c, format!("match number `{n}` is not a number"))),
            },
        };
        let default = match (c.text("RegexExtractor.default"), c.flag("RegexExtractor.default_empty_value")) {
            (Some(d), _) => Some(self.tmpl(c, d)?),
            (None, Some(true)) => Some(Template::literal("")),
            _ => None,
        };
        let var = self.b.sym.vars.assign(&name);
        note.push_str(&format!("into ${{{name}}}"));
        Ok((
            Extractor {
                var,
                into: name,
                source: ExtractSource::Regex { regex, template, from },
                match_no,
                default,
                required: None,
                all,
            },
            status,
            note,
        ))
    }

    fn json_extractor(&mut self, c: &El) -> Result<(Vec<Extractor>, Status, String), Error> {
        let split = |s: &str| -> Vec<String> { s.split(';').map(|x| x.trim().to_string()).collect() };
        let names = split(c.text_or_empty("JSONPostProcessor.referenceNames"));
        let paths = split(c.text_or_empty("JSONPostProcessor.jsonPathExprs"));
        let matches = split(c.text_or_empty("JSONPostProcessor.match_numbers"));
        let defaults = split(c.text_or_empty("JSONPostProcessor.defaultValues"));
        if names.iter().all(|n| n.is_empty()) {
            return Err(self.err(c, "the JSON Extractor has no variable names"));
        }
        if names.len() != paths.len() {
            return Err(self.err(c, format!("{} variable names for {} JSON paths", names.len(), paths.len())));
        }
        let mut out = Vec::new();
        let status = Status::Supported;
        let mut note = String::new();
        for (i, name) in names.iter().enumerate() {
            let src = self.expand(c, &paths[i])?;
            let path = serde_json_path::JsonPath::parse(&src)
                .map_err(|e| self.err(c, format!("invalid JSONPath `{src}`: {e}")))?;
            // JMeter: 0 (the default) is a random match, -1 all of them.
            let mut all = None;
            let match_no = match matches.get(i).map(String::as_str).unwrap_or("") {
                "" => 0,
                n => match n.parse::<i64>() {
                    Ok(n) if n >= 0 => n as u32,
                    Ok(_) => {
                        all = Some(self.b.all_matches(name));
                        note.push_str(&format!("all matches into ${{{name}_1}}.. and ${{{name}_matchNr}}; "));
                        1
                    }
                    Err(_) => return Err(self.err(c, format!("match number `{n}` is not a number"))),
                },
            };
            // JMeter sets the default (even empty) when nothing matches.
            let default = Some(self.tmpl(c, defaults.get(i).map(String::as_str).unwrap_or(""))?);
            let var = self.b.sym.vars.assign(name);
            out.push(Extractor {
                var,
                into: name.clone(),
                source: ExtractSource::Json(JsonPathExpr { src, path }),
                match_no,
                default,
                required: None,
                all,
            });
        }
        note.push_str(&format!("into {}", names.iter().map(|n| format!("${{{n}}}")).collect::<Vec<_>>().join(", ")));
        Ok((out, status, note))
    }

    /// The checks of a Response Assertion, whether it ignores the status, and its report; or
    /// why it cannot be checked.
    #[allow(clippy::type_complexity)]
    fn response_assertion(&mut self, c: &El) -> Result<Result<(Vec<Check>, bool, Status, String), String>, Error> {
        let field = c.text("Assertion.test_field").unwrap_or("Assertion.response_data");
        let (field, field_name) = match field {
            "Assertion.response_data" | "Assertion.response_data_as_document" => (Field::Body, "body"),
            "Assertion.response_code" => (Field::Status, "status"),
            "Assertion.response_headers" => (Field::Headers, "headers"),
            "Assertion.sample_label" => (Field::Url, "URL"),
            other => return Ok(Err(format!("field `{other}` cannot be checked"))),
        };
        let ty: u32 = c.text("Assertion.test_type").unwrap_or("2").trim().parse().unwrap_or(2);
        let negate = ty & 4 != 0;
        let any = ty & 32 != 0;
        let strings =
            texts(c.collection("Asserion.test_strings").or(c.collection("Assertion.test_strings")).unwrap_or_default());
        let mut checks = Vec::new();
        let custom = c.text("Assertion.custom_message").map(str::to_string);
        for s in &strings {
            let (test, what) = if ty & 16 != 0 {
                (CheckTest::Contains { field, text: self.tmpl(c, s)?, negate }, "contains")
            } else if ty & 8 != 0 {
                (CheckTest::Equals { field, text: self.tmpl(c, s)?, negate }, "equals")
            } else {
                // MATCH is a whole-text match; CONTAINS finds the pattern anywhere (Perl5 regex).
                let whole = ty & 1 != 0;
                let what = if whole { "matches" } else { "contains" };
                let probe = self.tmpl(c, s)?;
                if probe.is_dynamic(&self.b.sym.vars) {
                    (CheckTest::MatchesTemplate { field, pattern: probe, whole, negate }, what)
                } else {
                    let pattern = self.expand(c, s)?;
                    let src = if whole { format!("^(?:{pattern})$") } else { pattern };
                    let regex = regex::Regex::new(&src).map_err(|e| self.err(c, format!("invalid pattern: {e}")))?;
                    (CheckTest::Matches { field, regex, negate }, what)
                }
            };
            let msg = custom.clone().unwrap_or_else(|| {
                format!("{}: {field_name} {}{what} {s:?}", c.name, if negate { "not " } else { "" })
            });
            checks.push(Check { id: self.b.check(msg), test });
        }
        let ignore = c.flag("Assertion.assume_success") == Some(true);
        let (status, note) = if any && strings.len() > 1 {
            (Status::Partial, "`Or` of several patterns is checked as `And`".to_string())
        } else {
            (Status::Supported, format!("{} check(s) on the {field_name}", checks.len()))
        };
        Ok(Ok((checks, ignore, status, note)))
    }
}

/// Samplers and controllers: the elements that make steps (the rest set up their scope).
fn is_sampler_or_controller(class: &str) -> bool {
    class.ends_with("Sampler")
        || class.ends_with("SamplerProxy")
        || class.ends_with("Controller")
        || class == "TestAction"
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

/// JMeter keeps the percentage as a FloatProperty inside an elementProp, or as a string.
fn percent_value(c: &El) -> String {
    if let Some(t) = c.text("ThroughputController.percentThroughput") {
        return t.to_string();
    }
    if let Some(props) = c.nested("ThroughputController.percentThroughput") {
        if let Some(v) = props.text("value") {
            return v.to_string();
        }
    }
    "100".into()
}

fn http_args(c: &El) -> Vec<Arg> {
    let Some(args) = c.nested("HTTPsampler.Arguments") else { return Vec::new() };
    let mut out = Vec::new();
    for a in args.collection("Arguments.arguments").unwrap_or_default() {
        let Value::Element { props, .. } = &a.value else { continue };
        out.push(Arg {
            name: props.text_or_empty("Argument.name").to_string(),
            value: props.text_or_empty("Argument.value").to_string(),
            encode: props.flag("HTTPArgument.always_encode").unwrap_or(false),
        });
    }
    out
}

/// (path, parameter name, MIME type) of each file of the sampler.
fn http_files(c: &El) -> Vec<(String, String, String)> {
    let Some(files) = c.nested("HTTPsampler.Files") else { return Vec::new() };
    let mut out = Vec::new();
    for f in files.collection("HTTPFileArgs.files").unwrap_or_default() {
        let Value::Element { props, .. } = &f.value else { continue };
        let path = props.text_or_empty("File.path").to_string();
        if path.is_empty() {
            continue;
        }
        out.push((
            path,
            props.text_or_empty("File.paramname").to_string(),
            props.text_or_empty("File.mimetype").to_string(),
        ));
    }
    out
}

/// Recognises the one kind of script the corpus uses: read some variables and append them,
/// comma-separated, to a file. Returns the file and the variables, in order.
fn write_back(script: &str) -> Option<(String, Vec<String>)> {
    let assign = regex::Regex::new(r#"^(\w+)\s*=\s*vars\.get\("([^"]+)"\)\s*;$"#).ok()?;
    let open = regex::Regex::new(r#"^FileWriter\s+(\w+)\s*=\s*new\s+FileWriter\("([^"]+)"\s*,\s*true\)\s*;$"#).ok()?;
    let write = regex::Regex::new(r#"^(\w+)\.write\((.*)\)\s*;$"#).ok()?;
    let close = regex::Regex::new(r#"^(\w+)\.close\(\)\s*;$"#).ok()?;
    let mut vars: HashMap<String, String> = HashMap::new();
    let (mut file, mut stream, mut values) = (None, None, None);
    for line in script.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("//") || line.starts_with("import ") {
            continue;
        }
        if let Some(c) = assign.captures(line) {
            vars.insert(c[1].to_string(), c[2].to_string());
        } else if let Some(c) = open.captures(line) {
            stream = Some(c[1].to_string());
            file = Some(c[2].to_string());
        } else if let Some(c) = write.captures(line) {
            if stream.as_deref() != Some(&c[1]) {
                return None;
            }
            // a + "," + b + "\n": variables separated by commas, ending with a newline.
            let parts: Vec<&str> = c[2].split('+').map(str::trim).collect();
            let (last, fields) = parts.split_last()?;
            if *last != r#""\n""# {
                return None;
            }
            let mut out = Vec::new();
            for (i, p) in fields.iter().enumerate() {
                if i % 2 == 1 {
                    if *p != r#"",""# {
                        return None;
                    }
                } else {
                    out.push(vars.get(*p)?.clone());
                }
            }
            if fields.len() % 2 == 0 {
                return None;
            }
            values = Some(out);
        } else if close.is_match(line) {
            continue;
        } else {
            return None;
        }
    }
    Some((file?, values?))
}

/// The condition inside JMeter's usual wrappers: `${__jexl3(...)}`, `${__groovy(...)}` and
/// `${__javaScript(...)}` hold an expression whose comparisons read as stampede's conditions
/// (`"${role}" == "admin" && ${n} > 2`); any other text is taken as it is.
fn unwrap_expression(raw: &str) -> String {
    for f in ["${__jexl3(", "${__jexl2(", "${__groovy(", "${__javaScript("] {
        if let Some(inner) = raw.strip_prefix(f).and_then(|r| r.strip_suffix(")}")) {
            // A second argument (a variable to store the result in) is dropped.
            let inner = match inner.rsplit_once(',') {
                Some((expr, var)) if !var.contains(['"', '\'', ' ', '=']) && !var.is_empty() => expr,
                _ => inner,
            };
            return inner.trim().to_string();
        }
    }
    raw.to_string()
}

/// The element a Module Controller's path names: test plan name first, then each child's name.
/// (Plans saved by old JMeter versions start the path with the WorkBench.)
fn find_node<'a>(root: &'a El, path: &[String]) -> Option<&'a El> {
    let start = path.iter().position(|p| *p == root.name)?;
    let mut node = root;
    for name in &path[start + 1..] {
        node = node.children.iter().find(|c| c.name == *name)?;
    }
    (!std::ptr::eq(node, root)).then_some(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan of one thread group (`tg_props` inside it) holding `body`.
    fn plan(tg_props: &str, body: &str) -> String {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2">
  <hashTree>
    <TestPlan testclass="TestPlan" testname="Plan" enabled="true"/>
    <hashTree>
      <ThreadGroup testclass="ThreadGroup" testname="Users" enabled="true">
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <stringProp name="LoopController.loops">1</stringProp>
        </elementProp>
        {tg_props}
        <stringProp name="ThreadGroup.num_threads">1</stringProp>
      </ThreadGroup>
      <hashTree>
        <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.path">/</stringProp>
        </HTTPSamplerProxy>
        <hashTree>{body}</hashTree>
      </hashTree>
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#
        )
    }

    fn load(text: &str) -> Result<Plan, Error> {
        read(text, Path::new("t.jmx"), &Options::default()).map(|(p, _)| p)
    }

    /// #11: a byte-order mark before `<?xml` is not part of the document.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        assert_eq!(load(&format!("\u{feff}{}", plan("", ""))).unwrap().scenarios.len(), 1);
    }

    /// #11: JMeter stops the test on a scheduler duration not above 0 or a negative delay; a
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
            (sched("0", "0"), String::new(), "Invalid duration"),
            (sched("-5", "0"), String::new(), "Invalid duration"),
            (sched("", "0"), String::new(), "Invalid duration"),
            (sched("10", "-1"), String::new(), "Invalid delay"),
            (sched("1e20", "0"), String::new(), "out of range"),
            (String::new(), timer("ConstantTimer", "ConstantTimer.delay", "99999999999999999999"), "out of range"),
            (String::new(), timer("UniformRandomTimer", "RandomTimer.range", "1e300"), "out of range"),
            (String::new(), timer("GaussianRandomTimer", "ConstantTimer.delay", "NaN"), "out of range"),
            (String::new(), timer("ConstantThroughputTimer", "throughput", "1e-30"), "out of range"),
            (String::new(), timer("DurationAssertion", "DurationAssertion.duration", "1e40"), "out of range"),
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
    fn conditions_lose_their_wrappers() {
        assert_eq!(unwrap_expression(r#"${__jexl3("${role}" == "admin")}"#), r#""${role}" == "admin""#);
        assert_eq!(unwrap_expression(r#"${__groovy(${n} > 2,res)}"#), "${n} > 2");
        assert_eq!(unwrap_expression("${ok}"), "${ok}");
    }

    #[test]
    fn recognises_scripts_that_append_variables_to_a_file() {
        let script = "import org.apache.jmeter.services.FileServer;\n\nemailid = vars.get(\"em\");\nuserid = vars.get(\"uid\");\nFileWriter fstream = new FileWriter(\"~/out.csv\",true);\nfstream.write(emailid+\",\"+userid+\"\\n\");\n// Close File(s)\nfstream.close();";
        assert_eq!(write_back(script), Some(("~/out.csv".to_string(), vec!["em".to_string(), "uid".to_string()])));
        assert_eq!(write_back("log.info(vars.get(\"x\"));"), None);
        assert_eq!(write_back(&script.replace("+\",\"+", "+")), None);
    }
}
