//! The engine turns a [`Plan`] into traffic: one executor per scenario, all at once, each
//! driving virtual users (tokio tasks) over their own connections; and a collector that
//! drains the [`Recorder`] once per interval and hands each [`Interval`] to the caller.
//! It knows HTTP only in `client` and never prints. The only files it writes are the plan's
//! write-back files (`write` steps append to them); a row per sample goes to the caller's
//! sample log ([`Options::sample_log`]), which the caller writes. [`Options::segment`] makes it
//! run only a [`Segment`] of every workload (one generator of several).
//!
//! # Layout
//! - `executor/`: the closed and open models over a user factory, and the arrival schedule;
//! - `segment`: a process's (from, to] share of every workload;
//! - `session`: the users' run-time state: what a run's and a scenario's users share, and
//!   each user's variables;
//! - `user`: a virtual user running its scenario's compiled program, one iteration at a time;
//! - `sampler`: the samplers (HTTP, scripts, synthetic, sockets, WebSocket, access log), each
//!   ending in the one `finish` of a sample;
//! - `step`: the program's other operations that keep state (groups, data files, counters);
//! - `program`: a flow compiled into a flat list of operations;
//! - `request`: a request rendered to its wire bytes (once, when nothing in it varies);
//! - `client`: the HTTP/1.x client that times and classifies each exchange;
//! - `response`: extractors and checks on a response;
//! - `tls`: the TLS client configuration;
//! - `managers`: a user's side of JMeter's HTTP Cache, Authorization and Cookie Managers;
//! - `jar`: a user's cookies;
//! - `handoff`: a generator's part in a distributed run's setup and teardown, run once.

mod autostop;
mod client;
mod embedded;
pub(crate) mod executor;
mod fifo;
mod handoff;
mod jar;
mod managers;
pub(crate) mod mirror;
#[doc(hidden)] // public for the fuzz harness (tests/fuzz) only
pub(crate) mod program;
mod request;
mod response;
mod sampler;
mod scripting;
pub(crate) mod segment;
pub(crate) mod session;
mod step;
mod sync_timer;
mod tls;
mod user;

pub(crate) use handoff::{Handoff, Heard, Said};

use crate::plan::{Phase, Plan};
use crate::record::{Interval, Recorder, Tally};
use program::Program;
use segment::Segment;
use session::{Feeder, RunShared, ScenarioCtx};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use user::VirtualUser;

/// How the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `shutdown` was cancelled before the scenarios ended by themselves.
    pub interrupted: bool,
    /// The wall time from start to the last interval, in µs.
    pub elapsed_us: u64,
    /// What stopped the test before its end, when something did (a jp@gc AutoStop Listener).
    pub stopped_by: Option<String>,
    /// What the user should hear about that did not stop the run (a write-back file that could
    /// not be opened); the engine prints nothing itself, the run layer tells its outputs.
    pub warnings: Vec<String>,
}

/// Where the script log's lines go: sent from any user's task without waiting (logging from a
/// script is rare; the channel is unbounded), received on the run's task.
pub(crate) type ScriptLog = tokio::sync::mpsc::UnboundedSender<String>;

/// Options that are not part of the plan.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// How often the collector drains the workers (1 s).
    pub interval: Duration,
    /// Where a row per sample goes, when a per-sample log (JTL) is written.
    pub sample_log: Option<std::sync::mpsc::Sender<crate::record::SampleRow>>,
    /// This process's share of every workload ([`Segment::FULL`] in a local run).
    pub segment: Segment,
    /// Where script elements' log lines go (`log.info`, `println`, their exceptions, a
    /// function's `__log`), when anywhere: one line each, secrets redacted. The run layer hands
    /// them to its outputs ([`crate::run::Output::log`]); without one, they go nowhere.
    pub script_log: Option<ScriptLog>,
    /// Cancelled to stop every scenario (with its graceful stop) without it being an interrupt:
    /// a threshold that aborts the run.
    pub stop: CancellationToken,
    /// One generator's part in a run of several, whose setup and teardown run once, on one of
    /// them; `None` in a local run, which runs every phase itself.
    pub handoff: Option<Handoff>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            interval: Duration::from_secs(1),
            sample_log: None,
            segment: Segment::FULL,
            script_log: None,
            stop: CancellationToken::new(),
            handoff: None,
        }
    }
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// The plan's TLS settings (a certificate or key that does not load).
    #[error("{0}")]
    Tls(String),
}

/// What would stop [`run`] from starting the plan (TLS settings that do not load), checked
/// without running it: `stampede check` reports it as `run` would.
pub(crate) fn start_problem(plan: &Plan) -> Option<String> {
    tls::config(&plan.tls).err()
}

/// Runs every scenario of `plan` until all end, or until `shutdown` is cancelled (then requests
/// in flight get each scenario's graceful stop time, cut short by `abort`). Each interval is
/// sent to `intervals`; the last one has `last == true`. Returns when everything is recorded,
/// or at once with an error when the run cannot start (TLS settings).
pub(crate) async fn run(
    plan: &Plan,
    options: Options,
    shutdown: CancellationToken,
    abort: CancellationToken,
    intervals: mpsc::UnboundedSender<Interval>,
) -> Result<Outcome, Error> {
    let tls = tls::config(&plan.tls).map_err(Error::Tls)?;
    // A write-back file that cannot be opened is a warning, once; its writes are skipped.
    let (writers, warnings) = RunShared::open_writers(&plan.writers);
    // A data file that runs out with `stop_run` stops every scenario, but is not an interrupt.
    let stop_run = shutdown.child_token();
    // Ends with this function, so that the task below does too.
    let done = CancellationToken::new();
    let _done = done.clone().drop_guard();
    tokio::spawn({
        let (asked, stop_run) = (options.stop.clone(), stop_run.clone());
        async move {
            tokio::select! {
                _ = asked.cancelled() => stop_run.cancel(),
                _ = stop_run.cancelled() => {}
                _ = done.cancelled() => {}
            }
        }
    });
    // Setup and teardown run once for a run of several generators, on the one that runs them:
    // whole, and their barriers wait for all their users.
    let segment_of = |phase: Phase| {
        if options.handoff.is_some() && phase != Phase::Main {
            Segment::FULL
        } else {
            options.segment.clone()
        }
    };
    let (barriers, sync_users, sync_scopes) = sync_timer::barriers(plan, |s| segment_of(s.phase));
    let globals = session::Globals::for_plan(plan);
    let shared = Arc::new(RunShared {
        feeders: plan.data.iter().map(|d| Feeder::new(d, plan.scenarios.len())).collect(),
        writers,
        bandwidth: client::Bandwidth::new(&plan.bandwidth, globals.clone()),
        globals,
        initial_vars: plan.vars.initial_values(),
        var_names: (0..plan.vars.len()).map(|i| plan.vars.name(crate::plan::VarId(i as u32)).to_string()).collect(),
        user_counters: plan.user_counters,
        slots: plan.slots,
        cookies: plan.cookies,
        managers: plan.managers.clone(),
        managers_clear: plan.managers.clears(),
        timing_headers: Arc::new(plan.timing_headers.clone()),
        last_ok: plan.last_ok,
        stop_run: stop_run.clone(),
        counters: (0..plan.slots.counters).map(|_| AtomicU64::new(0)).collect(),
        locks: Default::default(),
        sample_log: options.sample_log.clone(),
        epoch_unix_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        active_all: AtomicU64::new(0),
        timers: plan.timers.clone(),
        pacers: plan.shapers.iter().map(|s| std::sync::Mutex::new(executor::shaping::Pacer::new(s.clone()))).collect(),
        arrivals: plan
            .arrivals
            .iter()
            .map(|a| std::sync::Mutex::new(executor::precise::Generator::new(a.clone(), rand::random())))
            .collect(),
        barriers,
        sync_users,
        sync_scopes,
        throughput: (0..plan.slots.throughput).map(|_| std::sync::Mutex::new((0, 0))).collect(),
        label_templates: label_templates(plan),
        run_labels: Arc::new(crate::record::RunLabels::new(&plan.labels, crate::record::row_names(&plan.labels).len())),
        scripts: scripting::shared(plan, options.script_log.clone()),
    });
    let recorder = Recorder::new(plan.labels.len(), plan.scenarios.len());
    let epoch = Instant::now();
    let mut ctxs = Vec::new();
    for (index, sc) in plan.scenarios.iter().enumerate() {
        let ctx = Arc::new(ScenarioCtx {
            index,
            program: Program::compile(&sc.flow),
            recorder: recorder.clone(),
            epoch,
            stop: stop_run.child_token(),
            stopping: AtomicBool::new(false),
            hard: CancellationToken::new(),
            abandon: Default::default(),
            active: AtomicU64::new(0),
            started: AtomicU64::new(0),
            pacing: sc.pacing,
            on_error: sc.on_error,
            tls: tls.clone(),
            shared: shared.clone(),
        });
        ctxs.push(ctx);
    }

    let mut collector = Collector {
        recorder: &recorder,
        work: recorder.new_tally(),
        index: 0,
        last_end_us: 0,
        epoch,
        run_labels: &shared.run_labels,
        named: 0,
    };
    let mut watch = autostop::Watch::new(plan);
    let mut stopped_by = None;
    let mut ticker = tokio::time::interval_at((epoch + options.interval).into(), options.interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Setup scenarios run first, then the main ones together (or one after another), then
    // teardown; an interrupt skips the steps that have not started. A generator of several
    // joins the others between the phases (`Options::handoff`): its waits are steps of their own.
    let handoff = options.handoff.as_ref();
    let mut steps: Vec<(Phase, Vec<usize>)> = Vec::new();
    for phase in [Phase::Setup, Phase::Main, Phase::Teardown] {
        if handoff.is_some_and(|h| !h.runs(phase)) {
            continue;
        }
        // An empty step of its own: the handoff before the phase, when there is one.
        steps.push((phase, Vec::new()));
        let members = plan.scenarios.iter().enumerate().filter(|(_, s)| s.phase == phase).map(|(i, _)| i);
        if plan.consecutive {
            steps.extend(members.map(|i| (phase, vec![i])));
        } else {
            steps.push((phase, members.collect()));
        }
    }
    for (phase, step) in steps {
        if shutdown.is_cancelled() || stop_run.is_cancelled() {
            break;
        }
        let mut scenarios = JoinSet::new();
        if step.is_empty() {
            match handoff.and_then(|h| h.before(phase, plan, &shared.globals, stop_run.clone())) {
                Some(wait) => {
                    scenarios.spawn(wait);
                }
                None => continue,
            }
        } else if phase == Phase::Teardown && handoff.is_some_and(|h| !h.heard.borrow().teardown) {
            // Not told to run it: the others' main scenarios have not all ended.
            break;
        }
        for i in step {
            let ctx = ctxs[i].clone();
            let users = {
                let ctx = ctx.clone();
                move |_| VirtualUser::new(ctx.clone())
            };
            let segment = segment_of(phase);
            let (workload, abort) = (plan.scenarios[i].workload.clone(), abort.clone());
            scenarios.spawn(async move { executor::run_scenario(ctx, workload, &segment, users, abort).await });
        }
        loop {
            tokio::select! {
                _ = ticker.tick() => {
                    let iv = collector.interval(&ctxs, false);
                    if let Some(why) = watch.observe(&iv, &shared.run_labels).filter(|_| stopped_by.is_none()) {
                        // The plugin's "stop test now": every scenario stops, what was recorded stays.
                        stopped_by = Some(why);
                        stop_run.cancel();
                    }
                    let _ = intervals.send(iv);
                }
                joined = scenarios.join_next() => {
                    if joined.is_none() {
                        break;
                    }
                }
            }
        }
    }
    let last = collector.interval(&ctxs, true);
    let elapsed_us = last.end_us;
    let _ = intervals.send(last);
    Ok(Outcome {
        interrupted: shutdown.is_cancelled(),
        stopped_by,
        elapsed_us,
        warnings: warnings
            .iter()
            .map(|w| format!("warning: {w}"))
            .chain(shared.run_labels.full().then(|| {
                format!(
                    "warning: samplers named with `${{...}}` rendered more than {} distinct names; the samples of the others are counted under their sampler's name as written",
                    crate::record::RUN_LABEL_CAP
                )
            }))
            .collect(),
    })
}

/// The plan's run-time labels by `LabelId`, or nothing when it has none (then a sample's label
/// is taken as it is, at the cost of one length check).
fn label_templates(plan: &Plan) -> Vec<Option<crate::plan::Template>> {
    if plan.label_templates.is_empty() {
        return Vec::new();
    }
    let mut by_id = vec![None; plan.labels.len()];
    for (id, t) in &plan.label_templates {
        by_id[id.index()] = Some(t.clone());
    }
    by_id
}

#[cfg(test)]
mod tests;

struct Collector<'a> {
    recorder: &'a Recorder,
    /// Reused drain target, so a tick allocates only for labels that had samples.
    work: Tally,
    index: u64,
    last_end_us: u64,
    epoch: Instant,
    run_labels: &'a crate::record::RunLabels,
    /// Rendered names already handed out in an interval.
    named: usize,
}

impl Collector<'_> {
    fn interval(&mut self, ctxs: &[Arc<ScenarioCtx>], last: bool) -> Interval {
        self.recorder.drain_into(&mut self.work);
        // After the drain: every label drained was named before its sample was recorded.
        let new_labels = self.run_labels.names_from(self.named);
        self.named += new_labels.len();
        let end_us = self.epoch.elapsed().as_micros() as u64;
        let labels = self
            .work
            .labels()
            .filter(|(_, l)| !l.is_empty())
            .map(|(i, l)| (crate::plan::LabelId(i as u32), l.clone()))
            .collect();
        let interval = Interval {
            index: self.index,
            start_us: self.last_end_us,
            end_us,
            labels,
            new_labels,
            total: self.work.total.clone(),
            scenarios: self.work.scenarios.clone(),
            lateness: self.work.lateness.clone(),
            active_users: ctxs.iter().map(|c| c.active.load(Ordering::Relaxed)).collect(),
            last,
        };
        self.work.clear();
        self.index += 1;
        self.last_end_us = end_us;
        interval
    }
}
