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

mod assertion;
mod config;
mod controller;
mod extractor;
mod listener;
mod module;
mod report;
mod sampler;
mod script;
mod thread_group;
mod timer;
pub mod tree;

pub use report::{ElementReport, Status};

use super::build::{Builder, Slot};
use super::condition;
use super::flow::{self, Counter, Once, Throughput, ThroughputShare, UserParams};
use super::request::{Body, Param, Part, PartContent};
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
    /// A data or body file that is missing or malformed is reported, not an error (for
    /// `check`, which shows a plan whose files are elsewhere).
    pub lenient_files: bool,
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
    cx.thread_groups(test_plan, &plan_scope)?;
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

    /// Reads one scope element by its class, from the family tables.
    fn scope_element(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        match SCOPE_FAMILIES.iter().flat_map(|f| f.iter()).find(|(class, _)| *class == c.class) {
            Some((_, read)) => read(self, c, s, depth),
            None if script::is_script(&c.class) => self.script(c, s, depth),
            None => {
                self.unsupported(c, depth, "this element is not known to stampede");
                Ok(())
            }
        }
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
    fn sampler_or_controller(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        match STEP_FAMILIES.iter().flat_map(|f| f.iter()).find(|(class, _)| *class == c.class) {
            Some((_, read)) => read(self, c, scope, depth),
            None => {
                self.unsupported(c, depth, "this controller or sampler is not supported");
                Ok(Vec::new())
            }
        }
    }
}

/// Reads a scope element (a config, timer, post-processor, assertion or listener) into the
/// scope it belongs to.
type ScopeFn = fn(&mut Cx, &El, &mut Scope, usize) -> Result<(), Error>;

/// Reads a sampler or controller into the steps it makes.
type StepsFn = fn(&mut Cx, &El, &Scope, usize) -> Result<Vec<Step>, Error>;

/// The scope elements stampede reads, by family (scripts it cannot run are [`script::is_script`]).
const SCOPE_FAMILIES: [&[(&str, ScopeFn)]; 7] = [
    config::ELEMENTS,
    sampler::SCOPE_ELEMENTS,
    timer::ELEMENTS,
    extractor::ELEMENTS,
    assertion::ELEMENTS,
    listener::ELEMENTS,
    script::ELEMENTS,
];

/// The samplers and controllers stampede reads, by family.
const STEP_FAMILIES: [&[(&str, StepsFn)]; 3] = [sampler::STEP_ELEMENTS, controller::ELEMENTS, module::ELEMENTS];

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

    /// A class is read by one function, and the walk reaches it: scope elements are not taken
    /// for samplers or controllers (which it reads as steps), and steps are.
    #[test]
    fn every_class_has_one_reader_the_walk_reaches() {
        let scope: Vec<&str> = SCOPE_FAMILIES.iter().flat_map(|f| f.iter().map(|(c, _)| *c)).collect();
        let steps: Vec<&str> = STEP_FAMILIES.iter().flat_map(|f| f.iter().map(|(c, _)| *c)).collect();
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
}
