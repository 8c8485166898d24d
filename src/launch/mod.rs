//! A run as a command asks for it, composed once and carried out under the process's signals:
//! what `run`, `sweep`, `demo` and `jmeter` share. A [`Launch`] says where the run goes (its
//! run directory, its [`Part`] of a plan run by several generators, or agents) and which
//! outputs it feeds (the progress line, `--watch`, `--export`); [`run_plan`] claims the run
//! directory, adds the outputs, carries the run out in this process or on agents (the same
//! [`crate::run::Run`] either way) and hands back a [`Finished`] run, whose
//! [`exit_code`](Finished::exit_code) says how it went. Nothing here prints: what the user
//! should hear goes to the caller's [`Say`].
//!
//! # Layout
//! - this file: [`Launch`], [`run_plan`], [`Finished`], [`Part`], [`Exports`], goals added to
//!   a plan, the process's interrupts;
//! - `agents`: a run on agents as asked ([`agents::OnAgents`]): its job, reaching the agents;
//! - `aside`: the run a `--replace` on agents replaces, set aside until the agents accept;
//! - `conclude`: what is said when the run has ended ([`Finished::conclusion`]);
//! - `serve`: `stampede agent` as a process, listening or joining ([`serve::Serving`]);
//! - `steps`: a sweep's steps as runs ([`steps::Steps`]).

pub(crate) mod agents;
mod aside;
mod conclude;
pub(crate) mod serve;
pub(crate) mod steps;

pub(crate) use conclude::Said;

use crate::engine;
use crate::error::{exit, Error};
use crate::export;
use crate::plan::threshold::{StopOn, Threshold};
use crate::plan::{self, Overrides, Plan};
use crate::progress::Progress;
use crate::run::{self, Failure, JtlOutput, Run, RunDirOutput, RunOptions, RunResult};
use crate::rundir::{self, Place};
use crate::watch::{Source, WatchOutput};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Where the lines for the user go (the command line's stderr).
pub(crate) type Say = Arc<dyn Fn(&str) + Send + Sync>;

/// A run as asked: where it goes and the outputs picked for it.
pub(crate) struct Launch {
    pub place: Place,
    /// No progress line (notices still go out).
    pub quiet: bool,
    /// As `meta.json` records it, secrets masked.
    pub command_line: Vec<String>,
    pub part: Part,
    pub exports: Exports,
    pub watch: Vec<Source>,
    pub say: Say,
    /// Where what a script may read goes (the command line's stdout): the address agents
    /// join, said even with `quiet`.
    pub out: Say,
    /// Called on a second interrupt of a run on agents: the agents stop by themselves, this
    /// process need not wait (the command line leaves with its exit code).
    pub leave: Arc<dyn Fn() + Send + Sync>,
}

/// A run that ended: what it measured, where, and what went wrong beside it.
pub(crate) struct Finished {
    /// The run's result; its `failures` without the watch log's, which are [`Self::watch_failures`].
    pub result: RunResult,
    /// The watch log beside the results is not part of them: an incomplete one is a warning.
    pub watch_failures: Vec<Failure>,
    pub dir: PathBuf,
    pub fd_limit: Option<u64>,
    pub on_agents: bool,
}

impl Finished {
    /// The run directory could not be written whole.
    pub(crate) fn run_dir_failure(&self) -> Option<&Failure> {
        self.result.failures.iter().find(|f| f.output == RunDirOutput::NAME)
    }

    /// Requests that failed because this process ran out of file descriptors.
    pub(crate) fn out_of_fds(&self) -> u64 {
        let kind = crate::record::ErrorKind::GeneratorFds.name();
        self.result.summary.total.errors_by_kind.get(&kind).copied().unwrap_or(0)
    }

    /// The process's exit code for this run.
    pub(crate) fn exit_code(&self) -> u8 {
        if self.run_dir_failure().is_some() {
            return exit::RUNTIME;
        }
        let r = &self.result;
        let goals_failed = r.aborted_by.is_some() || r.summary.thresholds.iter().any(|t| !t.passed);
        exit_code(!r.failures.is_empty(), r.outcome.interrupted, self.on_agents, goals_failed)
    }
}

/// The exit code of a run that ended: `incomplete` (a results file not whole, an agent lost),
/// `interrupted` (Ctrl-C), `goals_failed` (a threshold, or a goal that stopped the run).
fn exit_code(incomplete: bool, interrupted: bool, on_agents: bool, goals_failed: bool) -> u8 {
    // An incomplete results file (or a lost agent's) is an incomplete result: exit 3. An
    // interrupted run is partial: its exit code says so before its thresholds do. On agents,
    // Ctrl-C says so first, as it always has: the agents it stopped may be lost on the way.
    if interrupted && on_agents {
        exit::INTERRUPTED
    } else if incomplete {
        exit::RUNTIME
    } else if interrupted {
        exit::INTERRUPTED
    } else if goals_failed {
        // A goal that stopped the run failed, even if the numbers recovered in its graceful stop.
        exit::THRESHOLDS_FAILED
    } else {
        exit::OK
    }
}

/// The longest `--start-at` waits: further ahead is taken for a mistake.
const MOST_START_WAIT: Duration = Duration::from_secs(24 * 3600);
/// How far past a `--start-at` may be when the command starts: a part launched a little late
/// (an ssh round, a slow shell) still starts at once and records its skew; further past is a
/// mistake (an instant of 1970 once recorded a 56-year skew).
const MOST_START_LATE: Duration = Duration::from_secs(10);

/// How this process takes part in a run of several generators (`--segment`, `--start-at`), or
/// hands the whole plan to agents.
#[derive(Default)]
pub(crate) struct Part {
    pub segment: engine::segment::Segment,
    pub meta: Option<rundir::PartMeta>,
    pub start_at: Option<std::time::SystemTime>,
    /// The whole plan on agents instead.
    pub agents: Option<agents::OnAgents>,
}

impl Part {
    /// This process's part: `segment` (and its name as given), a common start `start_at`
    /// (checked against `now`: at most a day ahead, a few seconds past), its `group`, and
    /// whether the parts split the data files' rows.
    pub(crate) fn new(
        segment: Option<(engine::segment::Segment, String)>,
        start_at: Option<time::OffsetDateTime>,
        group: Option<String>,
        data_split: bool,
        now: time::OffsetDateTime,
    ) -> Result<Part, Error> {
        let rfc3339 = |t: time::OffsetDateTime| t.format(&time::format_description::well_known::Rfc3339);
        let secs = |d: time::Duration| humantime::format_duration(Duration::from_secs(d.whole_seconds().max(0) as u64));
        if let Some(at) = start_at {
            let ahead = at - now;
            if -ahead > MOST_START_LATE {
                return Err(Error::Usage(format!(
                    "--start-at {} is {} past; give an instant ahead (at most {} s past, for parts launched a little late): a part started that late would run out of step with the others",
                    rfc3339(at).unwrap_or_default(),
                    secs(-ahead),
                    MOST_START_LATE.as_secs()
                )));
            }
            if ahead > MOST_START_WAIT {
                return Err(Error::Usage(format!(
                    "--start-at is {} ahead; give an instant at most a day from now",
                    secs(ahead)
                )));
            }
        }
        let meta = (segment.is_some() || start_at.is_some() || group.is_some()).then(|| rundir::PartMeta {
            segment: segment.as_ref().map(|(_, name)| name.clone()),
            start_at: start_at.and_then(|t| rfc3339(t).ok()),
            start_skew_ms: None,
            data_split,
            group,
        });
        let segment = segment.map(|(s, _)| s).unwrap_or_default();
        Ok(Part { segment, meta, start_at: start_at.map(std::time::SystemTime::from), agents: None })
    }

    /// The plan as this part runs it: its data files' rows dealt to the parts (`data_split`,
    /// in this process: agents deal their own), and what each part keeps whole said to `say`.
    pub(crate) fn shape(&self, plan: &mut Plan, data_split: bool, say: &dyn Fn(&str)) {
        if data_split && self.agents.is_none() {
            run::split_rows(plan, &self.segment);
        }
        if !self.segment.is_full() {
            for what in whole_plan_rates(plan) {
                say(&format!(
                    "warning: {what} is kept by each generator, not split: the parts together run it once per part"
                ));
            }
        }
    }
}

/// Replaces every scenario's workload figures by those given (`--users`, `--duration`...).
pub(crate) fn override_workloads(plan: &mut Plan, overrides: &Overrides) {
    if !overrides.is_empty() {
        for s in &mut plan.scenarios {
            s.workload = s.workload.bounded(overrides);
        }
    }
}

/// Adds the command line's goals (`--threshold`, `--stop-on`) to the plan's; one naming a label
/// the plan has not is refused.
pub(crate) fn add_goals(plan: &mut Plan, thresholds: &[Threshold], stop_on: &[StopOn]) -> Result<(), Error> {
    let unknown = |flag: &str, goal: String, l: &String, plan: &Plan| {
        Error::Usage(format!(
            "{flag} `{goal}`: the plan has no request or group labelled `{l}` (labels: {})",
            plan.labels.join(", ")
        ))
    };
    for t in thresholds {
        if let Some(l) = t.label.as_ref().filter(|l| !plan.labels.contains(l)) {
            return Err(unknown("--threshold", t.to_string(), l, plan));
        }
        plan.thresholds.push(t.clone());
    }
    for s in stop_on {
        if let Some(l) = s.when.label.as_ref().filter(|l| !plan.labels.contains(l)) {
            return Err(unknown("--stop-on", s.to_string(), l, plan));
        }
        plan.stop_on.push(s.clone());
    }
    Ok(())
}

/// A part's numbers are a share of the whole: judged live there, a goal would stop it wrongly.
/// Its abort goals are judged at its end only, its stop conditions not at all; each is said.
pub(crate) fn part_goals(plan: &mut Plan, say: &dyn Fn(&str)) {
    for t in plan.thresholds.iter_mut().filter(|t| t.abort.is_some()) {
        t.abort = None;
        say(&format!("warning: `{t}` is not judged live in a part (--segment), only at its end; on agents the controller judges it live on every part's numbers"));
    }
    for s in std::mem::take(&mut plan.stop_on) {
        say(&format!("warning: stop condition `{s}` is not watched in a part (--segment): a part's numbers are a share of the run's; on agents the controller watches it on every part's numbers"));
    }
}

/// What one part of a plan still runs at the whole plan's rate or count: elements whose rate
/// or total is kept by the process, not per user (each generator keeps all of it, as each
/// JMeter server of a distributed test does).
pub(crate) fn whole_plan_rates(plan: &Plan) -> Vec<&'static str> {
    use plan::flow::{Step, Think, ThroughputShare};
    let mut found = Vec::new();
    if !plan.shapers.is_empty() {
        found.push("a Throughput Shaping Timer's schedule");
    }
    if !plan.arrivals.is_empty() {
        found.push("a Precise Throughput Timer's arrivals");
    }
    if !plan.syncs.is_empty() {
        found.push("a Synchronizing Timer's barrier (its batches gather this generator's users only)");
    }
    for s in &plan.scenarios {
        plan::flow::for_each_step(&s.flow, &mut |step| {
            let what = match step {
                Step::Think(Think::Throughput { shared: true, .. }) => {
                    Some("a Constant Throughput Timer shared by all users")
                }
                Step::Throughput(t) if !t.per_user && matches!(t.share, ThroughputShare::Total(_)) => {
                    Some("a Throughput Controller's total executions")
                }
                _ => None,
            };
            if let Some(w) = what.filter(|w| !found.contains(w)) {
                found.push(w);
            }
        });
    }
    found
}

/// Adds the results files `files` (`--jtl`) to the plan's own (its listeners'); with `delete`,
/// JMeter's `-f`, every one is deleted once the plan has loaded, not before: a plan that does
/// not load leaves earlier results be.
pub(crate) fn add_results(plan: &mut Plan, files: &[PathBuf], delete: bool) -> Result<(), Error> {
    let new: Vec<PathBuf> = files.iter().filter(|f| !plan.result_files.contains(f)).cloned().collect();
    plan.result_files.extend(new);
    if !delete {
        return Ok(());
    }
    for f in &plan.result_files {
        match std::fs::remove_file(f) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::Usage(format!("could not delete results file {}: {e}", f.display())))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Where `--out DIR` (or its absence) and `--replace` put the run directory: the directory,
/// or a new one under `runs/` named after the time.
pub(crate) fn place(out: Option<PathBuf>, replace: bool) -> Place {
    match out {
        Some(dir) => Place::Exact { dir, replace },
        None => {
            let now = time::OffsetDateTime::now_utc();
            let fmt = time::macros::format_description!("[year]-[month]-[day]T[hour]-[minute]-[second]");
            Place::Unique(PathBuf::from("runs").join(now.format(&fmt).unwrap_or_else(|_| "run".into())))
        }
    }
}

/// `--export` and `--export-tag`, checked, `prometheus=ADDR` already bound.
#[derive(Default)]
pub(crate) struct Exports {
    specs: Vec<export::Spec>,
    tag: Option<String>,
    /// The series' `run_id` when not the run directory's name (a sweep's step: `SWEEP/STEP`).
    pub run_id: Option<String>,
}

impl Exports {
    /// The sinks of `values` (`KIND=TARGET`), an InfluxDB token taken from `INFLUX_TOKEN`.
    pub(crate) fn parse(values: &[String], tag: Option<String>) -> Result<Exports, Error> {
        let token = std::env::var("INFLUX_TOKEN").ok();
        let specs = values
            .iter()
            .map(|v| {
                let spec = export::Spec::parse(v, token.as_deref())?;
                spec.bind()?;
                Ok(spec)
            })
            .collect::<Result<Vec<_>, export::SpecError>>()
            .map_err(|e| Error::Usage(e.to_string()))?;
        Ok(Exports { specs, tag, run_id: None })
    }

    /// [`Exports::parse`] again for the next run of a sweep: an address the run before freed
    /// is tried for a moment (its last client may still hold it).
    pub(crate) async fn parse_again(values: &[String], tag: Option<String>) -> Result<Exports, Error> {
        for _ in 0..20 {
            if let Ok(exports) = Exports::parse(values, tag.clone()) {
                return Ok(exports);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Exports::parse(values, tag)
    }

    /// How the exported series name the run in `dir`: its directory's name (and part).
    fn ident(&self, run: &Run, dir: &Path) -> export::Ident {
        let dir_name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // Parts of one plan (`--segment I/N` on several machines) often share their run
        // directory's name (a timestamp to the second, or the same --out): the segment makes
        // each part's series its own, where they would otherwise overwrite each other.
        let segment = run.meta().part.as_ref().and_then(|p| p.segment.clone());
        export::Ident {
            run_id: match segment {
                Some(seg) => format!("{dir_name} part {seg}"),
                None => self.run_id.clone().unwrap_or(dir_name),
            },
            plan: run.plan().name.clone(),
            tag: self.tag.clone(),
        }
    }
}

/// Says what each export did; an export that missed something is a warning, never a failure
/// of the run, and its report is kept in the run directory (`export.json`).
fn report_exports(reports: &export::Reports, dir: &Path, quiet: bool, say: &dyn Fn(&str)) {
    let reports = reports.list();
    if reports.is_empty() {
        return;
    }
    for r in &reports {
        if !r.complete() {
            say(&format!("warning: {r}"));
        } else if !quiet {
            say(&r.to_string());
        }
    }
    let file = dir.join(rundir::EXPORT);
    let written =
        serde_json::to_vec_pretty(&reports).map_err(std::io::Error::other).and_then(|json| std::fs::write(&file, json));
    if let Err(e) = written {
        say(&format!("warning: {} was not written: {e}", file.display()));
    }
}

/// Runs a loaded plan end to end, in this process or on agents (`launch.part.agents`), with the
/// run directory, the progress line, the plan's results files, the `--watch` sources and the
/// `--export` sinks as outputs. `None` when Ctrl-C came while the agents were awaited.
pub(crate) async fn run_plan(plan: Plan, launch: Launch) -> Result<Option<Finished>, Error> {
    let Launch { place, quiet, command_line, part, exports, watch, say, out, leave } = launch;
    // What would stop the load at its start is said now, not at a common start hours away.
    if part.start_at.is_some() {
        if let Some(why) = engine::start_problem(&plan) {
            return Err(Error::Usage(format!("the run cannot start: {why}")));
        }
    }
    let Part { segment, meta, start_at, agents } = part;
    let reached = match &agents {
        Some(on) => {
            // A run directory that is taken, or a results file that cannot be written, is said
            // now, before any agent is reached.
            refuse_taken(&place)?;
            let samples = on.results(&plan.result_files)?;
            match on.reach(&say, &out).await? {
                Some(links) => Some((links, samples)),
                None => return Ok(None),
            }
        }
        None => None,
    };
    let fd_limit = raise_fd_limit(&plan, &segment, agents.is_some(), &*say);
    let options = RunOptions {
        engine: engine::Options { segment, ..Default::default() },
        command_line,
        part: meta,
        start_at,
        watch: watch.iter().map(Source::display).collect(),
    };
    let run = Run::new(plan, options);
    // The run a `--replace` on agents replaces (its agents' copies included, which would be
    // read as this run's) goes once every agent has accepted the job, not before.
    let aside = match (&reached, &place) {
        (Some(_), Place::Exact { dir, replace: true }) => Some(aside::Aside::take(dir)?),
        _ => None,
    };
    let run_dir = claim(&place, &run).inspect_err(|_| aside::restore(&aside, None))?;
    let dir = run_dir.dir().to_path_buf();
    if !quiet {
        say(&banner(&run, &dir, reached.as_ref().map(|(links, _)| links.as_slice())));
    }
    let files = run.plan().result_files.clone();
    let mut run = run.output(run_dir).output(Progress::new(quiet));
    run = match agents.zip(reached) {
        Some((on, (links, samples))) => run.on(on.remote(links, &dir, samples, aside::when_ready(&aside))),
        None => run.output(JtlOutput::new(files)),
    };
    if !watch.is_empty() {
        run = run.output(WatchOutput::new(watch.to_vec(), &dir));
    }
    let reports = export::Reports::default();
    let ident = exports.ident(&run, &dir);
    // A run that does not start takes its directory back and puts the run it replaced back; a
    // run whose agents failed before the start always does (they sent nothing).
    let undo = |e: Error, agents_failed: bool| {
        if agents_failed || aside::held(&aside) {
            take_back(&dir, &aside, &say);
        }
        e
    };
    // The sinks last: they only close their queues at the end; the wait for a slow target is
    // `settle` in `execute`, after the run directory's summary is written.
    let sinks =
        export::outputs(&exports.specs, &ident, &reports).map_err(|e| undo(Error::Usage(e.to_string()), false))?;
    let run = run.outputs(sinks);
    let on_agents = run.is_remote();
    let result = match execute(run, &exports, &reports, on_agents, &say, leave).await {
        Err(run::Error::Start(why)) if on_agents => return Err(undo(Error::Usage(why), true)),
        Err(e) if on_agents => return Err(undo(Error::from(e), false)),
        other => other?,
    };
    report_exports(&reports, &dir, quiet, &*say);
    let RunResult { summary, outcome, failures, meta, aborted_by } = result;
    let (watch_failures, failures): (Vec<_>, Vec<_>) =
        failures.into_iter().partition(|f| f.output == WatchOutput::NAME);
    let result = RunResult { summary, outcome, failures, meta, aborted_by };
    Ok(Some(Finished { result, watch_failures, dir, fd_limit, on_agents }))
}

/// Raises this process's limit on open files, and says when the plan's users may need more
/// (not on agents: they raise their own). Returns the limit.
fn raise_fd_limit(plan: &Plan, segment: &engine::segment::Segment, on_agents: bool, say: &dyn Fn(&str)) -> Option<u64> {
    let fd_limit = run::raise_fd_limit();
    if let Some((users_at_most, needed)) = run::fd_shortfall(plan, segment, fd_limit).filter(|_| !on_agents) {
        say(&format!(
            "warning: up to {users_at_most} users may each hold a connection, but this process may open only {} files; \
             raise the limit (`ulimit -n {needed}`) or connections will fail as `generator_fds`",
            fd_limit.unwrap_or_default()
        ));
    }
    fd_limit
}

/// Takes back the directory of a run on agents that did not start (what no agent sent), and
/// puts back the run it was to replace.
fn take_back(dir: &Path, aside: &Option<aside::Held>, say: &Say) {
    if !crate::dist::controller::abandon(dir) {
        say(&format!("note: what the agents sent is in {}", dir.join("agents").display()));
    }
    aside::restore(aside, Some(say));
}

/// `--out DIR` without `--replace` that holds something: refused before anything is sent.
fn refuse_taken(out: &Place) -> Result<(), Error> {
    if let Place::Exact { dir, replace: false } = out {
        if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
            return Err(Error::Usage(format!(
                "{} already exists and is not empty: give another --out, or add --replace to replace the run there",
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Claims the run directory: a taken one is a usage error while nothing has been sent.
fn claim(out: &Place, run: &Run) -> Result<RunDirOutput, Error> {
    RunDirOutput::create(out, run.meta(), run.plan()).map_err(|e| match e {
        rundir::Error::Occupied { .. } => {
            Error::Usage(format!("{e}: give another --out, or add --replace to replace what is there"))
        }
        e => Error::from(e),
    })
}

/// What runs where.
fn banner(run: &Run, dir: &Path, links: Option<&[crate::dist::link::AgentLink]>) -> String {
    let mut lines = vec![match links {
        Some(links) => agents::banner(&run.plan().name, links),
        None => format!("stampede {} — plan {} → {}", env!("CARGO_PKG_VERSION"), run.plan().name, dir.display()),
    }];
    for s in &run.meta().scenarios {
        lines.push(format!("  scenario {}: {}", s.name, s.workload));
    }
    if let Some(p) = &run.meta().part {
        if let Some(seg) = &p.segment {
            lines.push(format!("  this generator runs part {seg} of every workload"));
        }
        if let Some(at) = &p.start_at {
            lines.push(format!("  the load starts at {at}"));
        }
    }
    lines.join("\n")
}

/// Carries the run out under Ctrl-C (the first stops the load gracefully, the second cuts it
/// short; on agents, leaves at once: they stop by themselves), then lets the export sinks send
/// what they hold.
async fn execute(
    run: Run,
    exports: &Exports,
    reports: &export::Reports,
    on_agents: bool,
    say: &Say,
    leave: Arc<dyn Fn() + Send + Sync>,
) -> Result<RunResult, run::Error> {
    let shutdown = CancellationToken::new();
    let abort = CancellationToken::new();
    let grace = run.plan().scenarios.iter().map(|s| s.workload.graceful_stop()).max().unwrap_or_default();
    let signals = tokio::spawn({
        let (shutdown, abort, say) = (shutdown.clone(), abort.clone(), say.clone());
        async move {
            interrupted().await;
            say(&if on_agents {
                "\ninterrupted: stopping every agent (Ctrl-C again to leave now: they stop within 5 s)".to_string()
            } else {
                format!(
                    "\ninterrupted: no new requests; waiting up to {} for requests in flight (Ctrl-C again to stop now)",
                    humantime::format_duration(grace)
                )
            });
            shutdown.cancel();
            interrupted().await;
            if on_agents {
                // The agents hear no more from this controller and stop their load by themselves.
                leave();
            }
            abort.cancel();
        }
    });
    let result = run.execute(shutdown.clone(), abort.clone()).await;
    // The sinks' last sends, all at once under one deadline, on a blocking thread (the wait is
    // seconds long). Ctrl-C cuts it short: the first one if the run ended by itself, the
    // second if the first already stopped the run (the signal task is still listening).
    if !exports.specs.is_empty() {
        // Whether the first Ctrl-C stopped the load, not whether one came since: one pressed
        // after the load ended by itself cuts this wait at once.
        let interrupted = result.as_ref().is_ok_and(|r| r.outcome.interrupted);
        let cut = if interrupted { abort.clone() } else { shutdown.clone() };
        let settling = reports.clone();
        let _ = tokio::task::spawn_blocking(move || settling.settle(&|| cut.is_cancelled())).await;
    }
    signals.abort();
    result
}

/// Resolves after the first Ctrl-C or SIGTERM.
pub(crate) async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupted_on_agents_exits_130_even_with_an_agent_lost() {
        assert_eq!(exit_code(true, true, true, true), exit::INTERRUPTED);
        assert_eq!(exit_code(true, false, true, false), exit::RUNTIME);
        // One generator: an incomplete results file before the interrupt, as before.
        assert_eq!(exit_code(true, true, false, false), exit::RUNTIME);
        assert_eq!(exit_code(false, true, false, true), exit::INTERRUPTED);
        assert_eq!(exit_code(false, false, false, true), exit::THRESHOLDS_FAILED);
        assert_eq!(exit_code(false, false, true, false), exit::OK);
    }

    #[test]
    fn a_start_far_past_or_more_than_a_day_ahead_is_refused() {
        let now = time::OffsetDateTime::now_utc();
        let at = |s: i64| Part::new(None, Some(now + time::Duration::seconds(s)), None, false, now);
        assert!(at(-5).is_ok() && at(3600).is_ok());
        let refused = |s: i64| at(s).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(refused(-60).contains("past"), "{}", refused(-60));
        assert!(refused(2 * 86400).contains("at most a day"), "{}", refused(2 * 86400));
        let p = at(60).unwrap();
        assert!(p.meta.is_some_and(|m| m.start_at.is_some() && m.segment.is_none()));
        assert!(Part::new(None, None, None, false, now).unwrap().meta.is_none());
    }

    #[test]
    fn a_goal_on_a_label_the_plan_lacks_is_refused() {
        let yaml = "name: t\nscenarios:\n  - name: s\n    workload: {users: 1, iterations: 1}\n    flow:\n      - request: {url: \"http://127.0.0.1:1/\", label: home}\n";
        let mut plan = Plan::from_yaml_str(yaml, "t.yaml".as_ref(), &Default::default()).unwrap();
        let t = crate::plan::threshold::parse("nope: p95<300ms").unwrap();
        assert!(add_goals(&mut plan, &[t], &[]).unwrap_err().to_string().contains("labels: home"));
        let t = crate::plan::threshold::parse("home: p95<300ms abort").unwrap();
        let s = crate::plan::threshold::parse_stop_on("error_pct>5 for 10s").unwrap();
        add_goals(&mut plan, &[t], &[s]).unwrap();
        assert_eq!((plan.thresholds.len(), plan.stop_on.len()), (1, 1));
        let said = std::sync::Mutex::new(Vec::new());
        part_goals(&mut plan, &|l| said.lock().unwrap().push(l.to_string()));
        assert!(plan.thresholds[0].abort.is_none() && plan.stop_on.is_empty());
        assert_eq!(said.lock().unwrap().len(), 2);
    }
}
