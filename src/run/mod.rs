//! The run layer: runs a [`Plan`] with a set of [`Output`]s, each consuming the run's start, its
//! per-second [`Interval`]s and its end. This is where the engine, the outputs, the generator's
//! usage and the thresholds meet; the CLI only parses arguments, prints and picks exit codes,
//! and signals come in as the `shutdown` and `abort` tokens.
//!
//! ```text
//!             ┌────────────── Run::execute ──────────────┐
//!  Plan ─► engine::run ─► Interval/s ─► Tally ─► Summary + thresholds ─► RunResult
//!                 │            │                      │
//!                 │            └─► each Output::interval       └─► each Output::finish
//!                 └─► SampleRow (only if an output asked) ─► Output's own thread
//! ```
//!
//! # Layout
//! - this file: [`Run`], [`RunOptions`], [`RunResult`], [`Error`];
//! - `output`: the [`Output`] trait and what it is handed ([`Start`], [`End`]);
//! - `remote`: `Remote`, generators elsewhere that carry the run out (agents);
//! - `outputs`: the run directory ([`RunDirOutput`]) and JMeter results files ([`JtlOutput`]);
//!   the progress line is [`crate::progress::Progress`];
//! - `usage`: the generator's CPU and memory over the run;
//! - `fd`: the open-files limit, raised before a run.
//!
//! # Where the next features go
//! - **Prometheus / InfluxDB outputs**: an [`Output`] each, pushing from `interval` (through a
//!   task of their own when the push can block); nothing else changes.
//! - **Target monitoring** (the system under test's CPU, memory): `crate::watch::WatchOutput`,
//!   an [`Output`] that samples the target on its own thread from `start` to `finish` into the
//!   run directory; a new kind of source is a `watch::Source` variant, nothing here.
//! - **Sweeps** (runs at several concurrencies): a loop over [`Run`]s, one plan each, with an
//!   output per step collecting its [`Summary`]; the knee is a report of those run directories.
//! - **Distributed agents**: an agent is a [`Run`] of its segment of the plan (through
//!   `RunOptions::engine`) with one output streaming intervals to the controller; the
//!   controller is a `Remote` (`Run::on`): the same run, its outputs and goals fed the
//!   agents' merged seconds instead of the engine's (`crate::dist::controller`).
//!
//! # Example: a plan with one's own output
//!
//! ```no_run
//! use stampede::plan::Plan;
//! use stampede::record::Interval;
//! use stampede::run::{End, Output, OutputError, Run, RunOptions};
//! use tokio_util::sync::CancellationToken;
//!
//! /// Prints the requests of each second, and of the whole run.
//! struct PerSecond;
//!
//! impl Output for PerSecond {
//!     fn name(&self) -> &str {
//!         "per-second log"
//!     }
//!     fn interval(&mut self, iv: &Interval) -> Result<(), OutputError> {
//!         println!("second {}: {} requests", iv.index, iv.total.samples);
//!         Ok(())
//!     }
//!     fn finish(&mut self, end: &End<'_>) -> Result<(), OutputError> {
//!         println!("{} requests in all", end.summary.total.samples);
//!         Ok(())
//!     }
//! }
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let yaml = r#"
//! name: smoke
//! scenarios:
//!   - name: read
//!     workload: {users: 2, iterations: 10}
//!     flow:
//!       - request: {url: "http://127.0.0.1:8080/"}
//! "#;
//! let plan = Plan::from_yaml_str(yaml, "smoke.yaml".as_ref(), &Default::default())?;
//! let result = Run::new(plan, RunOptions::default())
//!     .output(PerSecond)
//!     .execute(CancellationToken::new(), CancellationToken::new())
//!     .await?;
//! assert!(result.failures.is_empty());
//! # Ok(())
//! # }
//! ```

mod fd;
pub(crate) mod judge;
pub(crate) mod merge;
mod output;
mod outputs;
pub(crate) mod preflight;
mod remote;
mod usage;

pub use fd::raise_limit as raise_fd_limit;
pub(crate) use fd::shortfall as fd_shortfall;
pub use output::{End, Failure, Output, OutputError, SampleSender, Start};
pub use outputs::{JtlOutput, RunDirOutput};
pub(crate) use remote::{Remote, RemoteEnd, Report, Signals};
pub(crate) use usage::UsageClock;

#[cfg(test)]
mod tests;

use crate::engine;
pub use crate::engine::Outcome;
use crate::plan::{Plan, Workload};
use crate::record::{Interval, Tally};
use crate::rundir::{self, reader, Model, RunMeta, ScenarioMeta, Status, Summary};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What a run needs besides its plan.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Handed to [`engine::run`] as given, except that `sample_log` is set when an output asks
    /// for per-sample rows.
    pub(crate) engine: engine::Options,
    /// The command line recorded in `meta.json`, secrets already masked
    /// (`crate::redact::command_line`).
    pub command_line: Vec<String>,
    /// This run is one part of a plan run by several generators: its segment (the one in
    /// `engine.segment`, as named) and common start, for `meta.json`.
    pub(crate) part: Option<rundir::PartMeta>,
    /// The instant the load starts (`--start-at`): the run waits for it (a Ctrl-C ends the
    /// wait) and records how late it started.
    pub start_at: Option<std::time::SystemTime>,
    /// The sources watched beside the run (`--watch`), as `meta.json` lists them: the caller
    /// adds the output that samples them ([`crate::watch::WatchOutput`]).
    pub(crate) watch: Vec<String>,
}

/// A plan about to run, and the outputs it feeds.
pub struct Run {
    plan: Plan,
    options: RunOptions,
    meta: RunMeta,
    outputs: Vec<Box<dyn Output>>,
    /// Generators elsewhere that carry the run out, instead of this process's engine.
    remote: Option<Box<dyn Remote>>,
}

/// How a run went: what it measured, and which outputs failed on the way.
#[derive(Debug)]
pub struct RunResult {
    /// The final facts (status, duration, generator usage).
    pub meta: RunMeta,
    /// The sum of every interval, thresholds judged.
    pub summary: Summary,
    /// How the run ended: completed, interrupted, or stopped by a threshold.
    pub outcome: Outcome,
    /// Outputs that could not do their part, in the order they failed. The measurements are
    /// whole regardless.
    pub failures: Vec<Failure>,
    /// The threshold (`... abort`) that failed live, or the stop condition (`--stop-on`) that
    /// held, and stopped the run, and how.
    pub aborted_by: Option<String>,
}

/// What stops a run from being carried out.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An output could not start (a results file that cannot be opened): nothing was sent.
    #[error("{0}")]
    Output(OutputError),
    /// The engine could not start the run (TLS settings, a write-back file), or the remote
    /// generators could not run it.
    #[error("cannot start the run: {0}")]
    Start(String),
    /// The engine's task failed.
    #[error("the engine failed: {0}")]
    Engine(#[from] tokio::task::JoinError),
}

impl Run {
    /// A run of `plan`, with its facts (`meta.json`) as they are at the start.
    pub fn new(plan: Plan, options: RunOptions) -> Run {
        let meta = RunMeta {
            tool: rundir::TOOL.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command_line: options.command_line.clone(),
            plan_path: plan.source.as_ref().map(|p| p.display().to_string()),
            plan_name: plan.name.clone(),
            host: hostname(),
            started_at: now_rfc3339(),
            ended_at: None,
            duration_s: None,
            status: Status::Running,
            interval_s: options.engine.interval.as_secs_f64(),
            scenarios: plan
                .scenarios
                .iter()
                .map(|s| ScenarioMeta {
                    name: s.name.clone(),
                    model: match s.workload {
                        Workload::Closed(_) | Workload::Shaped(_) => Model::Closed,
                        Workload::Open(_) => Model::Open,
                    },
                    workload: s.workload.describe(),
                })
                .collect(),
            // Past the label cap, the rows end with the overflow row.
            labels: crate::record::row_names(&plan.labels),
            checks: plan.checks.clone(),
            generator: None,
            thresholds: plan.thresholds.iter().map(|t| t.to_string()).collect(),
            stopped_by: None,
            part: options.part.clone(),
            parts: Vec::new(),
            log: None,
            watch: options.watch.clone(),
        };
        Run { plan, options, meta, outputs: Vec::new(), remote: None }
    }

    /// The plan being run.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The run's facts at the start (status `running`).
    pub fn meta(&self) -> &RunMeta {
        &self.meta
    }

    /// Adds an output; outputs are called in the order they were added.
    pub fn output(mut self, output: impl Output + 'static) -> Run {
        self.outputs.push(Box::new(output));
        self
    }

    /// Runs on `remote` (agents) instead of this process's engine: the same outputs and goals
    /// take the merged seconds it reports. `RunOptions::engine` is then the remote's business
    /// but for its `stop`, which still ends the run when a goal fails.
    pub(crate) fn on(mut self, remote: impl Remote + 'static) -> Run {
        self.remote = Some(Box::new(remote));
        self
    }

    /// Whether generators elsewhere carry the run out ([`Run::on`]).
    pub(crate) fn is_remote(&self) -> bool {
        self.remote.is_some()
    }

    /// Adds outputs, in order.
    pub fn outputs(mut self, outputs: Vec<Box<dyn Output>>) -> Run {
        self.outputs.extend(outputs);
        self
    }

    /// Runs the plan until it ends or `shutdown` is cancelled (requests in flight then get each
    /// scenario's graceful stop, cut short by `abort`), handing each interval to every output.
    /// Returns when every output has finished.
    pub async fn execute(self, shutdown: CancellationToken, abort: CancellationToken) -> Result<RunResult, Error> {
        let Run { plan, options, mut meta, outputs, remote } = self;
        let usage = UsageClock::start();
        let mut outputs: Vec<Live> = outputs.into_iter().map(|o| Live { output: o, failed: false }).collect();
        let start = Start { plan: &plan, meta: &meta };
        for o in &mut outputs {
            o.output.start(&start).map_err(Error::Output)?;
        }
        if !plan.load_log.is_empty() {
            outputs.iter_mut().for_each(|o| o.output.log(&plan.load_log));
        }
        let mut failures = Vec::new();
        if let Some(at) = options.start_at {
            wait_until(at, &shutdown).await;
            // A wait that Ctrl-C ended is no start: no skew to record, and the run ends at once.
            if !shutdown.is_cancelled() {
                begin(&mut meta, at, &mut outputs, &mut failures);
            }
        }
        let signals = Signals { shutdown, abort, stop: options.engine.stop.clone() };
        let plan = Arc::new(plan);
        let (reports, mut rx) = mpsc::unbounded_channel();
        let (intervals, mut engine_rx) = mpsc::unbounded_channel();
        // The script log's lines, handed to the outputs as they come.
        let (log_tx, mut logs) = mpsc::unbounded_channel::<String>();
        // Each side's sender goes to its executor, the other is dropped: the loop below ends
        // when the executor's is.
        let carry_out = match remote {
            Some(remote) => {
                drop(intervals);
                Executor::Remote(remote, reports)
            }
            None => {
                drop(reports);
                Executor::Local(engine_options(options.engine, &mut outputs, log_tx), intervals)
            }
        };
        let task = carry_out.spawn(plan.clone(), meta.clone(), signals.clone());
        let mut judge = Judge::new(&plan, &meta);
        // The loop ends with the executor's channel, not the log's: a sender of the log may
        // outlive the engine (a script's mirror server), and its last lines are taken below.
        let (mut engine_open, mut remote_open) = (true, true);
        while engine_open || remote_open {
            let report = tokio::select! {
                iv = engine_rx.recv(), if engine_open => match iv {
                    Some(iv) => Report::Interval(Box::new(iv)),
                    None => {
                        engine_open = false;
                        continue;
                    }
                },
                r = rx.recv(), if remote_open => match r {
                    Some(r) => r,
                    None => {
                        remote_open = false;
                        continue;
                    }
                },
                Some(line) = logs.recv() => {
                    log(&mut outputs, line, &mut logs, &plan.secrets);
                    continue;
                }
            };
            match report {
                Report::Interval(iv) => {
                    if let Some(text) = judge.add(&iv, &mut meta, &plan) {
                        notice(&mut outputs, &text);
                    }
                    deliver(&mut outputs, &mut failures, &iv);
                    if let Some(why) = judge.judge(&iv, &meta, &plan) {
                        notice(&mut outputs, &format!("stopping the run: {why}"));
                        signals.stop.cancel();
                    }
                }
                Report::Began(at) => {
                    // The generators' common start, not when the controller heard of it.
                    meta.started_at = time::OffsetDateTime::from(at)
                        .format(&time::format_description::well_known::Rfc3339)
                        .unwrap_or_default();
                    begins(&meta, &mut outputs, &mut failures);
                }
                Report::Part { agent, name, interval } => outputs
                    .iter_mut()
                    .filter(|o| !o.failed)
                    .for_each(|o| o.output.part_interval(agent, &name, &interval)),
                Report::Notice(text) => notice(&mut outputs, &text),
                Report::Ended => judge.ended = true,
                Report::Generators { of, lost } => {
                    outputs.iter_mut().filter(|o| !o.failed).for_each(|o| o.output.generators(of, lost))
                }
            }
        }
        let (outcome, merged, incomplete) = task.await?.map_err(Error::Start)?;
        if let Ok(line) = logs.try_recv() {
            log(&mut outputs, line, &mut logs, &plan.secrets);
        }
        failures.extend(incomplete);
        for w in &outcome.warnings {
            notice(&mut outputs, w);
        }
        if let Some(why) = &outcome.stopped_by {
            notice(&mut outputs, &format!("the test was stopped: {why}"));
        }
        let aborted_by = judge.aborted_by.clone();
        meta.stopped_by = outcome.stopped_by.clone().or_else(|| aborted_by.clone());
        let summary = conclude(&mut meta, judge, &plan, &outcome, merged, usage);
        let end = End { meta: &meta, summary: &summary, outcome: &outcome };
        for o in outputs.iter_mut().filter(|o| !o.failed) {
            if let Err(error) = o.output.finish(&end) {
                failures.push(Failure { output: o.output.name().to_string(), error });
            }
        }
        Ok(RunResult { meta, summary, outcome, failures, aborted_by })
    }
}

/// Who carries a run out, and where it reports.
enum Executor {
    Local(engine::Options, mpsc::UnboundedSender<Interval>),
    Remote(Box<dyn Remote>, mpsc::UnboundedSender<Report>),
}

impl Executor {
    /// Starts the run on a task of its own; its senders are dropped when it ends.
    fn spawn(self, plan: Arc<Plan>, meta: RunMeta, signals: Signals) -> tokio::task::JoinHandle<Result<Ended, String>> {
        match self {
            Executor::Remote(remote, reports) => {
                let running = remote.execute(plan, meta, signals, reports);
                tokio::spawn(async move { running.await.map(|end| (end.outcome, Some(end.merged), end.failures)) })
            }
            Executor::Local(options, intervals) => tokio::spawn(async move {
                engine::run(&plan, options, signals.shutdown, signals.abort, intervals)
                    .await
                    .map(|o| (o, None, Vec::new()))
                    .map_err(|e| e.to_string())
            }),
        }
    }
}

/// How the engine or the remote ended: the outcome, the merged run (remote), and what of the
/// results is incomplete (remote).
type Ended = (Outcome, Option<reader::Run>, Vec<Failure>);

/// The engine's options for a local run: the per-sample rows the outputs ask for, and the
/// script log the run hands to them (`log`).
fn engine_options(mut options: engine::Options, outputs: &mut [Live], log: engine::ScriptLog) -> engine::Options {
    let rows: Vec<SampleSender> = options
        .sample_log
        .take()
        .into_iter()
        .chain(outputs.iter_mut().filter_map(|o| o.output.sample_rows()))
        .collect();
    options.sample_log = output::fan_out(rows);
    options.script_log.get_or_insert(log);
    options
}

/// Hands `first` and the lines already waiting behind it to every output still working, at
/// once (a file output flushes once for them). The engine masked what looks secret by name;
/// the plan's `secrets` (a `-J` password a function quoted) are masked here, off the users' tasks.
fn log(
    outputs: &mut [Live],
    first: String,
    logs: &mut mpsc::UnboundedReceiver<String>,
    secrets: &crate::redact::Secrets,
) {
    let lines: Vec<String> = std::iter::once(first)
        .chain(std::iter::from_fn(|| logs.try_recv().ok()))
        .map(|l| match secrets.scrub(&l) {
            std::borrow::Cow::Borrowed(_) => l,
            scrubbed => scrubbed.into_owned(),
        })
        .collect();
    for o in outputs.iter_mut().filter(|o| !o.failed) {
        o.output.log(&lines);
    }
}

/// The load begins now, for a common start at `at`: stamps it and tells the outputs.
fn begin(meta: &mut RunMeta, at: std::time::SystemTime, outputs: &mut [Live], failures: &mut Vec<Failure>) {
    stamp_start(meta, at);
    begins(meta, outputs, failures);
    // An output's `begins` may take a while (the watch reads its sources' baseline): the load
    // starts after them, and the skew recorded is the one it really had.
    stamp_start(meta, at);
}

/// Tells every output still working that the load begins ([`Output::begins`]).
fn begins(meta: &RunMeta, outputs: &mut [Live], failures: &mut Vec<Failure>) {
    for o in outputs.iter_mut().filter(|o| !o.failed) {
        if let Err(error) = o.output.begins(meta) {
            o.failed = true;
            failures.push(Failure { output: o.output.name().to_string(), error });
        }
    }
}

/// The run's final facts and summary: the sum of its intervals (a local run), or the merged run
/// of its generators' parts (a remote one), its thresholds judged.
fn conclude(
    meta: &mut RunMeta,
    judge: Judge,
    plan: &Plan,
    outcome: &Outcome,
    merged: Option<reader::Run>,
    usage: UsageClock,
) -> Summary {
    let mut summary = match merged {
        Some(reader::Run { meta: parts, summary }) => {
            // The parts' own facts: when each started and ended, what each used.
            meta.plan_name = parts.plan_name;
            meta.started_at = parts.started_at;
            meta.ended_at = parts.ended_at.or_else(|| Some(now_rfc3339()));
            meta.duration_s = parts.duration_s.or(Some(outcome.elapsed_us as f64 / 1e6));
            meta.parts = parts.parts;
            meta.labels = parts.labels;
            meta.status = match parts.status {
                Status::Interrupted => Status::Interrupted,
                _ if outcome.interrupted => Status::Interrupted,
                _ => Status::Completed,
            };
            summary
        }
        None => {
            let mut summary = Summary::from_tally(&judge.totals, &meta.labels, &plan.checks, &meta.scenarios, true);
            summary.generator = Some(usage.usage());
            meta.generator = summary.generator;
            meta.ended_at = Some(now_rfc3339());
            meta.duration_s = Some(outcome.elapsed_us as f64 / 1e6);
            meta.status = if outcome.interrupted { Status::Interrupted } else { Status::Completed };
            summary
        }
    };
    summary.thresholds = crate::run::judge::evaluate(&plan.thresholds, &summary);
    summary
}

/// The run's totals so far, and the goals judged live on them: thresholds marked `abort` and
/// stop conditions.
struct Judge {
    totals: Tally,
    live: judge::Live,
    stop_on: judge::StopWatch,
    planned_end: Option<u64>,
    aborted_by: Option<String>,
    folding: bool,
    has_overflow_row: bool,
    /// Every generator has ended ([`Report::Ended`]): no goal stops the run any more.
    ended: bool,
}

impl Judge {
    fn new(plan: &Plan, meta: &RunMeta) -> Judge {
        Judge {
            totals: Tally::new(meta.labels.len(), plan.scenarios.len()),
            live: judge::Live::new(&plan.thresholds),
            stop_on: judge::StopWatch::new(&plan.stop_on),
            planned_end: judge::planned_end_us(plan),
            aborted_by: None,
            folding: false,
            has_overflow_row: meta.labels.len() > plan.labels.len(),
            ended: false,
        }
    }

    /// Adds `iv` to the totals; a warning when it is the first with samples past the label cap.
    fn add(&mut self, iv: &Interval, meta: &mut RunMeta, plan: &Plan) -> Option<String> {
        self.totals.add_interval(iv);
        // Names rendered at run time get the rows after the plan's.
        meta.labels.extend(iv.new_labels.iter().cloned());
        if self.folding || !self.has_overflow_row || !iv.labels.iter().any(|(id, _)| id.index() == plan.labels.len()) {
            return None;
        }
        self.folding = true;
        Some(format!(
            "warning: more than {} labels have samples; the samples of the others are counted in the row `{}`",
            crate::record::LABEL_CAP,
            crate::record::OVERFLOW_LABEL
        ))
    }

    /// Why the run must stop after `iv`, the first time a goal says so.
    fn judge(&mut self, iv: &Interval, meta: &RunMeta, plan: &Plan) -> Option<String> {
        // The last interval ends the run anyway: a goal failing there stopped nothing; nor
        // after every generator has ended.
        if self.aborted_by.is_some() || iv.last || self.ended {
            return None;
        }
        let watched = self.planned_end.is_none_or(|end| iv.start_us < end);
        let totals = &self.totals;
        self.aborted_by =
            watched.then(|| self.stop_on.observe(iv, &meta.labels, &plan.checks)).flatten().or_else(|| {
                self.live.judge(iv.end_us, || {
                    Summary::from_tally(totals, &meta.labels, &plan.checks, &meta.scenarios, false)
                })
            });
        self.aborted_by.clone()
    }
}

/// An output, and whether it has failed (then it is called no more).
struct Live {
    output: Box<dyn Output>,
    failed: bool,
}

fn notice(outputs: &mut [Live], text: &str) {
    for o in outputs.iter_mut().filter(|o| !o.failed) {
        o.output.notice(text);
    }
}

/// Hands `iv` to every output still working. One that fails is told no more; the others hear
/// of it, and the run keeps measuring.
fn deliver(outputs: &mut [Live], failures: &mut Vec<Failure>, iv: &Interval) {
    for i in 0..outputs.len() {
        if outputs[i].failed {
            continue;
        }
        if let Err(error) = outputs[i].output.interval(iv) {
            outputs[i].failed = true;
            let name = outputs[i].output.name().to_string();
            notice(outputs, &format!("cannot write the {name}: {error}"));
            failures.push(Failure { output: name, error });
        }
    }
}

/// Deals each data file's rows to the parts (`--data split`): row k is this part's when user k
/// would be, so the parts together read each row once. Each part still reads the file through,
/// skipping the rows of the others (see `DataSpec::split`).
pub(crate) fn split_rows(plan: &mut Plan, segment: &engine::segment::Segment) {
    let owns = {
        let segment = segment.clone();
        crate::plan::RowSplit(std::sync::Arc::new(move |k| segment.owns(k)))
    };
    for d in &mut plan.data {
        d.split = Some(owns.clone());
    }
}

/// Waits until the wall clock reads `at`, or `shutdown`. Reads the clock again at least every
/// second, so a clock stepped meanwhile (NTP) still starts the load at `at`.
async fn wait_until(at: std::time::SystemTime, shutdown: &CancellationToken) {
    while let Ok(left) = at.duration_since(std::time::SystemTime::now()) {
        if left.is_zero() {
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(left.min(std::time::Duration::from_secs(1))) => {}
            _ = shutdown.cancelled() => return,
        }
    }
}

/// Records that the load starts now, for a common start at `at`: the start time and, for a
/// part, how late it is (negative: early).
fn stamp_start(meta: &mut RunMeta, at: std::time::SystemTime) {
    let late_ms = match std::time::SystemTime::now().duration_since(at) {
        Ok(late) => late.as_secs_f64() * 1e3,
        Err(early) => -early.duration().as_secs_f64() * 1e3,
    };
    meta.started_at = now_rfc3339();
    if let Some(p) = meta.part.as_mut() {
        p.start_skew_ms = Some(late_ms);
    }
}

fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

/// This machine's name, for `meta.json` (`unknown` when the system does not say).
pub(crate) fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}
