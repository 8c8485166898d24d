//! What `run` says of a plan before it sends anything: what it refuses once the plan is loaded
//! (TLS settings that do not load, a results file that cannot be written), and what it warns of
//! (elements that go wrong at run time as in JMeter, scenarios with nothing to send). `check`
//! says the same without running.

use crate::engine::program::Program;
use crate::plan::jmx::{ElementReport, Status};
use crate::plan::{self, Inspected, LoadOptions, Plan};
use std::path::Path;

/// Reads a plan to the end as `check` does (its data files may live on another machine: what
/// a run needs is said instead), with what `run` refuses once it is loaded among its problems.
pub(crate) fn inspect(path: &Path, mut opts: LoadOptions) -> Inspected {
    opts.lenient_files = true;
    let mut found = Plan::inspect_with(path, &opts);
    if let Ok(p) = &found.plan {
        let starts = start_problems(p);
        if !starts.is_empty() {
            found.problems.extend(starts.iter().cloned());
            found.plan = Err(plan::Error::combine(starts));
        }
    }
    found
}

/// What `run` refuses after loading the plan, before it sends anything: TLS settings that do
/// not load, a results file that cannot be written.
fn start_problems(p: &Plan) -> Vec<plan::Error> {
    let at = || p.source.as_ref().map(plan::Location::file).unwrap_or_default();
    let mut out = Vec::new();
    if let Some(m) = crate::engine::start_problem(p) {
        out.push(plan::Error::invalid(at(), format!("cannot start the run: {m}")));
    }
    for f in &p.result_files {
        let writable = if f.is_dir() {
            Err("it is a directory".to_string())
        } else if f.exists() {
            std::fs::OpenOptions::new().append(true).open(f).map(|_| ()).map_err(|e| e.to_string())
        } else {
            Ok(())
        };
        if let Err(why) = writable {
            out.push(plan::Error::invalid(at(), format!("cannot write the results file {}: {why}", f.display())));
        }
    }
    out
}

/// The warnings `run` prints for the elements that load as in JMeter and go wrong at run time
/// as in JMeter (each sample fails, a default is read): the first few, then how many more and
/// where all are listed, so that a plan of 300 such samplers does not bury the progress line.
pub(crate) fn run_time_warnings(elements: &[ElementReport], plan: &str) -> Vec<String> {
    const SHOWN: usize = 5;
    let warned: Vec<&ElementReport> = elements.iter().filter(|r| r.status == Status::Warning).collect();
    let mut out: Vec<String> = warned
        .iter()
        .take(SHOWN)
        .map(|r| format!("warning: line {}: {} \"{}\": {}", r.line, r.class, r.name, r.note))
        .collect();
    if warned.len() > SHOWN {
        out.push(format!("warning: and {} more; `stampede check {plan}` lists them all", warned.len() - SHOWN));
    }
    if !warned.is_empty() {
        out.push("warning: these run as JMeter runs them; --strict refuses such a plan instead".into());
    }
    out
}

/// What `run` says of a JMX plan's elements as it loads it: each one skipped, those that go
/// wrong at run time as [`run_time_warnings`] says them, and how many run only in part.
pub(crate) fn element_warnings(elements: &[ElementReport], path: &Path) -> Vec<String> {
    let mut out: Vec<String> = elements
        .iter()
        .filter(|r| r.status == Status::Skipped)
        .map(|r| format!("warning: line {}: {} \"{}\" skipped: {}", r.line, r.class, r.name, r.note))
        .collect();
    out.extend(run_time_warnings(elements, &path.display().to_string()));
    let partial = elements.iter().filter(|r| r.status == Status::Partial).count();
    if partial > 0 {
        out.push(format!(
            "warning: {partial} element(s) run only in part, not quite as JMeter runs them; `stampede check {}` says how",
            path.display()
        ));
    }
    out
}

/// A warning for each scenario left with nothing to send (every sampler disabled or
/// skipped): its users run one iteration (taking their CSV rows) and end, as JMeter's
/// threads without a sampler.
pub(crate) fn idle_warnings(p: &Plan) -> Vec<String> {
    p.scenarios
        .iter()
        .filter(|s| Program::compile(&s.flow).idle)
        .map(|s| {
            format!("warning: scenario \"{}\" has no request to send: each user runs one iteration (taking its data rows) and ends, as JMeter's threads without a sampler", s.name)
        })
        .collect()
}
