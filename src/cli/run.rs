//! `stampede run`: load a plan (or build one from `--url`), hand it to [`crate::run`] with the
//! run directory, the progress line and the results files as outputs, print the results table
//! at the end and pick the exit code.

use crate::engine;
use crate::error::{exit, Error};
use crate::export;
use crate::plan::{self, HttpVersion, Overrides, Plan, QuickPlan};
use crate::progress::Progress;
use crate::report;
use crate::run::{self, JtlOutput, Run, RunDirOutput, RunOptions, RunResult};
use crate::rundir::{self, Place};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const WORKLOAD: &str = "Workload (quick mode, or overriding every scenario of a plan)";

#[derive(Debug, Args, Default)]
pub struct RunArgs {
    /// A YAML or JMX plan; leave it out and give --url for quick mode.
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub plan_args: super::plan_args::PlanArgs,
    /// Run directory to write: a new or empty directory (default: runs/<timestamp>, with `-2`,
    /// `-3`... when that name is taken).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// With --out: replace the run already in that directory (its meta.json, plan.yaml, interval
    /// logs, summary.json and report.html; other files stay). Without it, such a directory is
    /// refused.
    #[arg(long, requires = "out")]
    pub replace: bool,
    /// Also write every sample to FILE in JMeter's CSV results format (JTL), appending.
    #[arg(long, value_name = "FILE")]
    pub jtl: Vec<PathBuf>,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// A pass/fail goal, `[LABEL:] METRIC OP VALUE` (e.g. `p95<300ms`, `Login: error_pct<1`),
    /// added to the plan's; the run exits 1 when one fails (repeatable).
    #[arg(long = "threshold", value_name = "GOAL", value_parser = parse_threshold)]
    pub thresholds: Vec<crate::plan::threshold::Threshold>,
    /// End the run early when a condition holds on every second's numbers for a while:
    /// `[LABEL:] METRIC OP VALUE [for DURATION]` (e.g. `error_pct>5 for 60s`, `Login: p95>2s for
    /// 5m`), added to the plan's `stop_on`; the run then exits 1, the reason in its meta.json
    /// (repeatable).
    #[arg(long = "stop-on", value_name = "CONDITION", value_parser = parse_stop_on)]
    pub stop_on: Vec<crate::plan::threshold::StopOn>,
    /// Sample the system under test every second into the run directory (`watch.jsonl`), shown
    /// in reports and `compare`: `pid:PID` or `proc:NAME` (CPU in cores, memory, threads, open
    /// files, TCP connections, from /proc), `scrape:URL` (a Prometheus metrics endpoint, e.g.
    /// `stampede mock`'s /metrics), `promql:NAME=QUERY@URL` (a Prometheus server's query)
    /// (repeatable; http:// only). With --agents, this process (the controller) samples:
    /// `pid:`/`proc:` name processes on its machine, not the agents'.
    #[arg(long = "watch", value_name = "SOURCE")]
    pub watch: Vec<String>,

    /// Run only this part of every workload: `I/N`, the I-th of N equal parts of its users and
    /// arrivals (10 users in 3 parts are 4, 3 and 3), so that N generators, each running one
    /// part, make the plan's load together. `stampede merge` joins their run directories.
    #[arg(long, value_name = "I/N", value_parser = parse_segment, help_heading = "Several generators")]
    pub segment: Option<(engine::segment::Segment, String)>,
    /// With --segment: how the parts read data files (CSV Data Sets, `data:`). `whole`: each
    /// part reads every row, as each JMeter server does; `split`: the rows are dealt to the parts
    /// as users are, so each row is used once in the whole run (unique logins).
    #[arg(long, value_enum, value_name = "MODE", default_value = "whole", help_heading = "Several generators")]
    pub data: DataMode,
    #[command(flatten)]
    pub dist: super::dist::AgentFlags,
    /// The group of generators this part runs in (a cloud, a region), recorded for
    /// `report --by group`.
    #[arg(long, value_name = "NAME", help_heading = "Several generators")]
    pub group: Option<String>,
    /// Start the load at this instant (RFC 3339, e.g. 2026-12-01T10:00:00Z; at most a day
    /// ahead), so that generators started apart begin together; how late each began is recorded.
    #[arg(long, value_name = "TIME", value_parser = parse_instant, help_heading = "Several generators")]
    pub start_at: Option<time::OffsetDateTime>,

    /// Send live metrics out while the run goes (repeatable): `prometheus-rw=URL` (Prometheus
    /// remote write, one push a second), `prometheus=HOST:PORT` (serve `/metrics` for the run's
    /// lifetime), `influxdb=URL` (line protocol to `.../write?db=NAME`, or
    /// `.../api/v2/write?org=ORG&bucket=BUCKET` with the token in INFLUX_TOKEN), `otlp=URL`
    /// (OTLP/HTTP metrics, e.g. http://127.0.0.1:4318/v1/metrics). A slow or dead
    /// target never slows the load: what it missed is said at the end.
    #[arg(long = "export", value_name = "KIND=TARGET", help_heading = "Live metrics")]
    pub export: Vec<String>,
    /// With --export: a `tag` label on every exported series, to tell runs apart.
    #[arg(long, value_name = "TEXT", requires = "export", help_heading = "Live metrics")]
    pub export_tag: Option<String>,

    #[command(flatten)]
    pub quick: QuickArgs,
    /// Closed model: number of users (each with its own keep-alive connection). With a plan:
    /// replaces every thread group's thread count (setUp and tearDown included); caps an open
    /// scenario's users at once.
    #[arg(long, short = 'u', help_heading = WORKLOAD)]
    pub users: Option<u32>,
    /// Open model: iterations started per second (at most 1e9: one a nanosecond).
    #[arg(long, value_parser = parse_rate, help_heading = "Quick mode (no plan file)")]
    pub rate: Option<f64>,
    /// Open model: most users at once (arrivals finding none free are dropped and counted).
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub max_users: Option<u32>,
    /// How long to run (e.g. 30s, 5m). With a plan: sets every thread group's duration (as
    /// JMeter's scheduler; its loop count still applies); cuts an open scenario's arrival
    /// schedule at that time.
    #[arg(long, value_parser = super::parse_duration_arg, help_heading = WORKLOAD)]
    pub duration: Option<Duration>,
    /// Closed model: iterations per user (instead of, or with, --duration). With a plan:
    /// replaces every thread group's loop count.
    #[arg(long, short = 'n', help_heading = WORKLOAD)]
    pub iterations: Option<u64>,
    /// Closed model: start the users evenly over this time. With a plan: replaces every thread
    /// group's ramp-up.
    #[arg(long, value_parser = super::parse_duration_arg, help_heading = WORKLOAD)]
    pub ramp_up: Option<Duration>,
    /// With agents: the properties they get, when not those the plan is read with here
    /// (`stampede jmeter` gives them only `-G`, as JMeter gives its servers).
    #[arg(skip)]
    pub agent_properties: Option<Vec<(String, String)>>,
    /// JMeter's `-f`: every results file (the plan's listeners' and `--jtl`) is deleted once
    /// the plan has loaded, not before: a plan that does not load leaves earlier results be.
    #[arg(skip)]
    pub delete_results: bool,
}

/// Quick mode's request: `run --url` and `sweep --url`.
#[derive(Debug, Args, Default, Clone)]
pub struct QuickArgs {
    /// Quick mode: the URL to load.
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub url: Option<String>,
    /// HTTP method (default GET, or POST with --body).
    #[arg(long, short = 'X', help_heading = "Quick mode (no plan file)")]
    pub method: Option<String>,
    /// Request body.
    #[arg(long, short = 'd', help_heading = "Quick mode (no plan file)")]
    pub body: Option<String>,
    /// Request body read from this file (a 5 KB or 50 KB JSON payload, say).
    #[arg(long, value_name = "FILE", conflicts_with = "body", help_heading = "Quick mode (no plan file)")]
    pub body_file: Option<PathBuf>,
    /// Gzip the body and send `Content-Encoding: gzip`.
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub gzip: bool,
    /// A request header, `Name: value` (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", help_heading = "Quick mode (no plan file)")]
    pub headers: Vec<String>,
    /// Open a new connection for every request.
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub no_keep_alive: bool,
    /// Speak HTTP/1.0 instead of HTTP/1.1.
    #[arg(long = "http1.0", help_heading = "Quick mode (no plan file)")]
    pub http10: bool,
    /// Response timeout (default 60s).
    #[arg(long, value_parser = super::parse_duration_arg, help_heading = "Quick mode (no plan file)")]
    pub timeout: Option<Duration>,
    /// Connect timeout (default 10s).
    #[arg(long, value_parser = super::parse_duration_arg, help_heading = "Quick mode (no plan file)")]
    pub connect_timeout: Option<Duration>,
}

impl RunArgs {
    fn quick_flags_given(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        let mut add = |given: bool, name| {
            if given {
                v.push(name)
            }
        };
        add(self.quick.method.is_some(), "--method");
        add(self.quick.body.is_some(), "--body");
        add(self.quick.body_file.is_some(), "--body-file");
        add(self.quick.gzip, "--gzip");
        add(!self.quick.headers.is_empty(), "--header");
        add(self.rate.is_some(), "--rate");
        add(self.max_users.is_some(), "--max-users");
        add(self.quick.no_keep_alive, "--no-keep-alive");
        add(self.quick.http10, "--http1.0");
        add(self.quick.timeout.is_some(), "--timeout");
        add(self.quick.connect_timeout.is_some(), "--connect-timeout");
        v
    }

    /// The workload flags that also apply to a plan file, to every scenario.
    fn overrides(&self) -> Overrides {
        Overrides { users: self.users, duration: self.duration, iterations: self.iterations, ramp_up: self.ramp_up }
    }

    pub(super) fn load_plan(&self) -> Result<Plan, Error> {
        match (&self.plan, &self.quick.url) {
            (Some(_), Some(_)) => Err(Error::Usage("give a plan file or --url, not both".into())),
            (None, None) => Err(Error::Usage("give a plan file (stampede run plan.yaml) or --url (quick mode)".into())),
            (Some(path), None) => {
                let flags = self.quick_flags_given();
                if !flags.is_empty() {
                    return Err(Error::Usage(format!(
                        "{} apply to quick mode (--url); a plan sets these itself (use ${{__P(name,default)}} and -J name=value to vary them; --users, --duration, --iterations and --ramp-up do apply to a plan)",
                        flags.join(", ")
                    )));
                }
                let opts = self.plan_args.load_options()?;
                let mut loaded = Plan::load_with(path, &opts)?;
                let overrides = self.overrides();
                if !overrides.is_empty() {
                    for s in &mut loaded.plan.scenarios {
                        s.workload = s.workload.bounded(&overrides);
                    }
                }
                if let Some(elements) = &loaded.elements {
                    for r in elements.iter().filter(|r| r.status == plan::jmx::Status::Skipped) {
                        eprintln!("warning: line {}: {} \"{}\" skipped: {}", r.line, r.class, r.name, r.note);
                    }
                    for line in super::check::run_time_warnings(elements, &path.display().to_string()) {
                        eprintln!("{line}");
                    }
                    let partial = elements.iter().filter(|r| r.status == plan::jmx::Status::Partial).count();
                    if partial > 0 {
                        eprintln!(
                            "warning: {partial} element(s) run only in part, not quite as JMeter runs them; `stampede check {}` says how",
                            path.display()
                        );
                    }
                }
                for w in super::check::idle_warnings(&loaded.plan) {
                    eprintln!("{w}");
                }
                Ok(loaded.plan)
            }
            (None, Some(_)) => Ok(self.quick_plan()?.into_plan()?),
        }
    }

    /// Quick mode's plan, as the flags say it.
    pub(super) fn quick_plan(&self) -> Result<QuickPlan, Error> {
        Ok(QuickPlan {
            url: self.quick.url.clone().unwrap_or_default(),
            method: self.quick.method.clone(),
            body: match &self.quick.body_file {
                Some(f) => Some(read_body_file(f)?),
                None => self.quick.body.clone(),
            },
            headers: self.quick.headers.clone(),
            users: self.users,
            rate: self.rate,
            max_users: self.max_users,
            duration: self.duration,
            iterations: self.iterations,
            ramp_up: self.ramp_up,
            keep_alive: !self.quick.no_keep_alive,
            http_version: self.quick.http10.then_some(HttpVersion::Http10),
            timeout: self.quick.timeout,
            connect_timeout: self.quick.connect_timeout,
            gzip: self.quick.gzip,
        })
    }
}

/// `I/N`, and its name as `meta.json` keeps it (`01 / 3` is `1/3`).
fn parse_segment(s: &str) -> Result<(engine::segment::Segment, String), super::ArgError> {
    let seg = engine::segment::Segment::parse(s).map_err(|_| super::ArgError::NotASegment(s.to_string()))?;
    let name = crate::rundir::merge::segment_numbers(s).map(|(i, n)| format!("{i}/{n}"));
    Ok((seg, name.ok_or_else(|| super::ArgError::NotASegment(s.to_string()))?))
}

fn parse_instant(s: &str) -> Result<time::OffsetDateTime, super::ArgError> {
    time::OffsetDateTime::parse(s.trim(), &time::format_description::well_known::Rfc3339)
        .map_err(|_| super::ArgError::NotAnInstant(s.to_string()))
}

/// Writes the run's HTML report (`report DIR --format html`) as `report.html` in its directory
/// and says where; a report that cannot be written is said, the run stays whole.
pub(super) fn write_html(dir: &std::path::Path) {
    let html = dir.join(rundir::REPORT_HTML);
    let written = super::report::load(dir)
        .and_then(|run| super::report::write(Some(&html), &crate::report::html::document(&run)));
    match written {
        Ok(()) => super::say(&format!("HTML report: {}\n", html.display())),
        Err(e) => eprintln!("warning: the HTML report was not written: {e}"),
    }
}

/// `--body-file`: the body, as text.
pub(super) fn read_body_file(path: &std::path::Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Usage(format!("--body-file {}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        Error::Usage(format!("--body-file {}: not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to()))
    })
}

/// What a run on agents does when one is lost (`--on-agent-loss`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OnAgentLoss {
    #[default]
    Continue,
    Abort,
}

/// How the parts of a plan read its data files (`--data`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DataMode {
    #[default]
    Whole,
    Split,
}

/// The longest `--start-at` waits: further ahead is taken for a mistake.
const MOST_START_WAIT: Duration = Duration::from_secs(24 * 3600);
/// How far past a `--start-at` may be when the command starts: a part launched a little late
/// (an ssh round, a slow shell) still starts at once and records its skew; further past is a
/// mistake (an instant of 1970 once recorded a 56-year skew).
const MOST_START_LATE: Duration = Duration::from_secs(10);

/// How this process takes part in a run of several generators (`--segment`, `--start-at`).
#[derive(Default)]
pub(super) struct Part {
    segment: engine::segment::Segment,
    meta: Option<rundir::PartMeta>,
    start_at: Option<std::time::SystemTime>,
    /// The whole plan on agents instead ([`RunArgs::on_agents`]).
    pub(super) agents: Option<super::dist::OnAgents>,
}

impl RunArgs {
    fn part(&self) -> Result<Part, Error> {
        let start_at = match self.start_at {
            Some(at) => {
                let ahead = at - time::OffsetDateTime::now_utc();
                if -ahead > MOST_START_LATE {
                    return Err(Error::Usage(format!(
                        "--start-at {} is {} past; give an instant ahead (at most {} s past, for parts launched a little late): a part started that late would run out of step with the others",
                        at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default(),
                        humantime::format_duration(Duration::from_secs((-ahead).whole_seconds().max(0) as u64)),
                        MOST_START_LATE.as_secs()
                    )));
                }
                if ahead > MOST_START_WAIT {
                    return Err(Error::Usage(format!(
                        "--start-at is {} ahead; give an instant at most a day from now",
                        humantime::format_duration(Duration::from_secs(ahead.whole_seconds().max(0) as u64))
                    )));
                }
                Some(std::time::SystemTime::from(at))
            }
            None => None,
        };
        let (segment, name) = match self.segment.clone() {
            Some((segment, name)) => (segment, Some(name)),
            None => (Default::default(), None),
        };
        let meta = (self.segment.is_some() || start_at.is_some() || self.group.is_some()).then(|| rundir::PartMeta {
            segment: name,
            start_at: self.start_at.and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok()),
            start_skew_ms: None,
            data_split: self.data == DataMode::Split,
            group: self.group.clone(),
        });
        Ok(Part { segment, meta, start_at, agents: None })
    }
}

/// What one part of a plan still runs at the whole plan's rate or count: elements whose rate
/// or total is kept by the process, not per user (each generator keeps all of it, as each
/// JMeter server of a distributed test does).
pub(super) fn whole_plan_rates(plan: &Plan) -> Vec<&'static str> {
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
                plan::flow::Step::Think(plan::flow::Think::Throughput { shared: true, .. }) => {
                    Some("a Constant Throughput Timer shared by all users")
                }
                plan::flow::Step::Throughput(t)
                    if !t.per_user && matches!(t.share, plan::flow::ThroughputShare::Total(_)) =>
                {
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

/// `--rate`: a positive rate no generator is beyond (see [`crate::plan::workload::MAX_RATE`]).
pub(super) fn parse_rate(s: &str) -> Result<f64, String> {
    let rate: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of iterations per second"))?;
    if rate == 0.0 {
        return Err("the rate must be above zero".into());
    }
    match crate::plan::workload::rate_problem("the rate", rate) {
        Some(problem) => Err(problem),
        None => Ok(rate),
    }
}

fn parse_threshold(s: &str) -> Result<crate::plan::threshold::Threshold, super::ArgError> {
    crate::plan::threshold::parse(s).map_err(|e| super::ArgError::Threshold(e.to_string()))
}

fn parse_stop_on(s: &str) -> Result<crate::plan::threshold::StopOn, super::ArgError> {
    crate::plan::threshold::parse_stop_on(s).map_err(|e| super::ArgError::Threshold(e.to_string()))
}

pub(super) async fn execute(a: RunArgs) -> Result<u8, Error> {
    let watch = super::parse_watch(&a.watch)?;
    let on_agents = !a.dist.agents.is_empty() || a.dist.listen_agents.is_some();
    if a.data == DataMode::Split && a.segment.is_none() && !on_agents {
        return Err(Error::Usage("--data split deals rows to parts: give --segment or --agents".into()));
    }
    if !on_agents
        && (a.dist.token_file.is_some() || a.dist.on_agent_loss != OnAgentLoss::Continue || !a.dist.ship.is_empty())
    {
        return Err(Error::Usage(
            "--token-file, --on-agent-loss and --ship go with --agents or --listen-agents".into(),
        ));
    }
    if on_agents && (a.segment.is_some() || a.start_at.is_some() || a.group.is_some()) {
        return Err(Error::Usage(
            "--agents deals the parts and the start itself; --segment, --start-at and --group are for one process (agents take `agent --group`)".into(),
        ));
    }
    let exports = Exports::parse(&a.export, a.export_tag.clone())?;
    let mut plan = a.load_plan()?;
    for t in &a.thresholds {
        if let Some(l) = t.label.as_ref().filter(|l| !plan.labels.contains(l)) {
            return Err(Error::Usage(format!(
                "--threshold `{t}`: the plan has no request or group labelled `{l}` (labels: {})",
                plan.labels.join(", ")
            )));
        }
        plan.thresholds.push(t.clone());
    }
    for s in &a.stop_on {
        if let Some(l) = s.when.label.as_ref().filter(|l| !plan.labels.contains(l)) {
            return Err(Error::Usage(format!(
                "--stop-on `{s}`: the plan has no request or group labelled `{l}` (labels: {})",
                plan.labels.join(", ")
            )));
        }
        plan.stop_on.push(s.clone());
    }
    for f in &a.jtl {
        if !plan.result_files.contains(f) {
            plan.result_files.push(f.clone());
        }
    }
    if a.delete_results {
        for f in &plan.result_files {
            match std::fs::remove_file(f) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::Usage(format!("could not delete results file {}: {e}", f.display())))
                }
                _ => {}
            }
        }
    }
    if a.segment.is_some() {
        // A part's numbers are a share of the whole: judged live, a goal would stop it wrongly.
        for t in plan.thresholds.iter_mut().filter(|t| t.abort.is_some()) {
            t.abort = None;
            eprintln!("warning: `{t}` is not judged live in a part (--segment), only at its end; on agents the controller judges it live on every part's numbers");
        }
        for s in std::mem::take(&mut plan.stop_on) {
            eprintln!("warning: stop condition `{s}` is not watched in a part (--segment): a part's numbers are a share of the run's; on agents the controller watches it on every part's numbers");
        }
    }
    let mut part = a.part()?;
    part.agents = a.on_agents(&plan)?;
    if a.data == DataMode::Split && !on_agents {
        run::split_rows(&mut plan, &part.segment);
    }
    if !part.segment.is_full() {
        for what in whole_plan_rates(&plan) {
            eprintln!("warning: {what} is kept by each generator, not split: the parts together run it once per part");
        }
    }
    let out = run_place(a.out.clone(), a.replace);
    let argv: Vec<String> = std::env::args().collect();
    Ok(run_plan(plan, &out, a.quiet, crate::redact::command_line(&argv), part, exports, &watch).await?.0)
}

/// `--export` and `--export-tag`, checked, `prometheus=ADDR` already bound.
#[derive(Default)]
pub(super) struct Exports {
    specs: Vec<export::Spec>,
    tag: Option<String>,
    /// The series' `run_id` when not the run directory's name (a sweep's step: `SWEEP/STEP`).
    pub(super) run_id: Option<String>,
}

impl Exports {
    pub(super) fn parse(values: &[String], tag: Option<String>) -> Result<Exports, Error> {
        let token = std::env::var("INFLUX_TOKEN").ok();
        let specs = values
            .iter()
            .map(|v| {
                let spec = export::Spec::parse(v, token.as_deref())?;
                spec.bind()?;
                Ok(spec)
            })
            .collect::<Result<Vec<_>, String>>()
            .map_err(Error::Usage)?;
        Ok(Exports { specs, tag, run_id: None })
    }
}

/// Says what each export did; an export that missed something is a warning, never a failure
/// of the run, and its report is kept in the run directory (`export.json`).
fn report_exports(reports: &export::Reports, dir: &std::path::Path, quiet: bool) {
    let reports = reports.list();
    if reports.is_empty() {
        return;
    }
    for r in &reports {
        if !r.complete() {
            eprintln!("warning: {r}");
        } else if !quiet {
            eprintln!("{r}");
        }
    }
    let written = serde_json::to_vec_pretty(&reports)
        .map_err(std::io::Error::other)
        .and_then(|json| std::fs::write(dir.join(EXPORT_JSON), json));
    if let Err(e) = written {
        eprintln!("warning: {} was not written: {e}", dir.join(EXPORT_JSON).display());
    }
}

/// What each `--export` sink did, in the run directory.
const EXPORT_JSON: &str = rundir::EXPORT;

/// Where `--out DIR` (or its absence) and `--replace` put the run directory.
pub(super) fn run_place(out: Option<PathBuf>, replace: bool) -> Place {
    match out {
        Some(dir) => Place::Exact { dir, replace },
        None => {
            let now = time::OffsetDateTime::now_utc();
            let fmt = time::macros::format_description!("[year]-[month]-[day]T[hour]-[minute]-[second]");
            Place::Unique(PathBuf::from("runs").join(now.format(&fmt).unwrap_or_else(|_| "run".into())))
        }
    }
}

/// Runs a loaded plan end to end, in this process or on agents (`part.agents`), with the run
/// directory, the progress line, the plan's results files, the `--watch` sources and the
/// `--export` sinks as outputs, and prints the results; shared by `run`, `sweep` and `demo`.
/// Returns the exit code and the run directory it wrote.
pub(super) async fn run_plan(
    plan: Plan,
    out: &Place,
    quiet: bool,
    command_line: Vec<String>,
    part: Part,
    exports: Exports,
    watch: &[crate::watch::Source],
) -> Result<(u8, PathBuf), Error> {
    // What would stop the load at its start is said now, not at a common start hours away.
    if part.start_at.is_some() {
        if let Some(why) = engine::start_problem(&plan) {
            return Err(Error::Usage(format!("the run cannot start: {why}")));
        }
    }
    let Part { segment, meta, start_at, agents } = part;
    let links = match &agents {
        Some(on) => {
            // A run directory that is taken, or a results file that cannot be written, is said
            // now, before any agent is reached.
            refuse_taken(out)?;
            let samples = on.results(&plan.result_files)?;
            match on.reach().await? {
                Some(links) => Some((links, samples)),
                None => return Ok((exit::INTERRUPTED, PathBuf::new())),
            }
        }
        None => None,
    };
    let fd_limit = run::raise_fd_limit();
    let shortfall = run::fd_shortfall(&plan, &segment, fd_limit).filter(|_| links.is_none());
    let options = RunOptions {
        engine: engine::Options { segment, ..Default::default() },
        command_line,
        part: meta,
        start_at,
        watch: watch.iter().map(crate::watch::Source::display).collect(),
    };
    let run = Run::new(plan, options);
    if let Some((users_at_most, needed)) = shortfall {
        eprintln!(
            "warning: up to {users_at_most} users may each hold a connection, but this process may open only {} files; \
             raise the limit (`ulimit -n {needed}`) or connections will fail as `generator_fds`",
            fd_limit.unwrap_or_default()
        );
    }
    let run_dir = claim(out, &run)?;
    let dir = run_dir.dir().to_path_buf();
    if links.is_some() {
        // The run replaced keeps its agents' copies in `agents/`, which are run files too: left,
        // each agent's copy would be refused (it is made new) and the old parts read as this run's.
        match std::fs::remove_dir_all(dir.join("agents")) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::Io { what: format!("cannot remove {}", dir.join("agents").display()), source: e })
            }
            _ => {}
        }
    }
    if !quiet {
        banner(&run, &dir, links.as_ref().map(|(links, _)| links.as_slice()));
    }
    let files = run.plan().result_files.clone();
    let mut run = run.output(run_dir).output(Progress::new(quiet));
    run = match agents.zip(links) {
        Some((on, (links, samples))) => run.on(on.remote(links, &dir, samples)),
        None => run.output(JtlOutput::new(files)),
    };
    if !watch.is_empty() {
        run = run.output(crate::watch::WatchOutput::new(watch.to_vec(), &dir));
    }
    let reports = export::Reports::default();
    let ident = export_ident(&run, &dir, &exports);
    // The sinks last: they only close their queues at the end; the wait for a slow target is
    // `settle` below, after the run directory's summary is written.
    let run = run.outputs(export::outputs(&exports.specs, &ident, &reports).map_err(Error::Usage)?);
    let on_agents = run.is_remote();
    let result = execute_run(run, &exports, &reports, on_agents).await;
    let result = match result {
        Err(run::Error::Start(why)) if on_agents => {
            if !crate::dist::controller::abandon(&dir) {
                eprintln!("note: what the agents sent is in {}", dir.join("agents").display());
            }
            return Err(Error::Usage(why));
        }
        other => other?,
    };
    report_exports(&reports, &dir, quiet);
    Ok((conclude(result, &dir, watch, fd_limit, on_agents), dir))
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

/// Says what runs where.
fn banner(run: &Run, dir: &std::path::Path, links: Option<&[crate::dist::link::AgentLink]>) {
    match links {
        Some(links) => super::dist::banner(&run.plan().name, links),
        None => eprintln!("stampede {} — plan {} → {}", env!("CARGO_PKG_VERSION"), run.plan().name, dir.display()),
    }
    for s in &run.meta().scenarios {
        eprintln!("  scenario {}: {}", s.name, s.workload);
    }
    if let Some(p) = &run.meta().part {
        if let Some(seg) = &p.segment {
            eprintln!("  this generator runs part {seg} of every workload");
        }
        if let Some(at) = &p.start_at {
            eprintln!("  the load starts at {at}");
        }
    }
}

/// How the exported series name this run: its directory's name (and part, `--segment`).
fn export_ident(run: &Run, dir: &std::path::Path, exports: &Exports) -> export::Ident {
    let dir_name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // Parts of one plan (`--segment I/N` on several machines) often share their run directory's
    // name (a timestamp to the second, or the same --out): the segment makes each part's series
    // its own, where they would otherwise overwrite each other.
    let segment = run.meta().part.as_ref().and_then(|p| p.segment.clone());
    export::Ident {
        run_id: match segment {
            Some(seg) => format!("{dir_name} part {seg}"),
            None => exports.run_id.clone().unwrap_or(dir_name),
        },
        plan: run.plan().name.clone(),
        tag: exports.tag.clone(),
    }
}

/// Carries the run out under Ctrl-C (the first stops the load gracefully, the second cuts it
/// short; on agents, leaves at once: they stop by themselves), then lets the export sinks send
/// what they hold.
async fn execute_run(
    run: Run,
    exports: &Exports,
    reports: &export::Reports,
    on_agents: bool,
) -> Result<RunResult, run::Error> {
    let shutdown = CancellationToken::new();
    let abort = CancellationToken::new();
    let grace = run.plan().scenarios.iter().map(|s| s.workload.graceful_stop()).max().unwrap_or_default();
    let signals = tokio::spawn({
        let (shutdown, abort) = (shutdown.clone(), abort.clone());
        async move {
            super::interrupted().await;
            if on_agents {
                eprintln!("\ninterrupted: stopping every agent (Ctrl-C again to leave now: they stop within 5 s)");
            } else {
                eprintln!(
                    "\ninterrupted: no new requests; waiting up to {} for requests in flight (Ctrl-C again to stop now)",
                    humantime::format_duration(grace)
                );
            }
            shutdown.cancel();
            super::interrupted().await;
            if on_agents {
                // The agents hear no more from this controller and stop their load by themselves.
                std::process::exit(i32::from(exit::INTERRUPTED));
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

/// Prints the run's results and says its exit code.
fn conclude(
    result: RunResult,
    out: &std::path::Path,
    watch: &[crate::watch::Source],
    fd_limit: Option<u64>,
    on_agents: bool,
) -> u8 {
    let RunResult { summary, outcome, failures, meta, aborted_by } = result;
    // The watch log is beside the results, not part of them: an incomplete one is a warning,
    // and the run's exit code stays what its measurements say.
    let (watch_failures, failures): (Vec<_>, Vec<_>) =
        failures.into_iter().partition(|f| f.output == crate::watch::WatchOutput::NAME);
    for f in &watch_failures {
        eprintln!("warning: {f}");
    }
    // The results file's failure first, as before the table.
    for f in failures.iter().filter(|f| f.output != RunDirOutput::NAME) {
        eprintln!("error: {f}");
    }
    super::say(&format!("{}\n{}", report::table(&summary), report::facts(&meta, &summary)));
    super::say(&report::thresholds::lines(&summary.thresholds));
    // A run on agents that lost one says what its figures miss (`lost.json`, by the controller).
    match rundir::lost::read(out) {
        Ok(Some(lost)) => super::say(&report::lost::terminal(&lost)),
        Ok(None) => {}
        Err(e) => eprintln!("warning: {e}"),
    }
    let out_of_fds =
        summary.total.errors_by_kind.get(&crate::record::ErrorKind::GeneratorFds.name()).copied().unwrap_or(0);
    if out_of_fds > 0 {
        eprintln!(
            "warning: {out_of_fds} requests failed because the generator ran out of file descriptors (limit {}): \
             those are not failures of the server; raise the limit with `ulimit -n`",
            fd_limit.map_or("unknown".into(), |l| l.to_string())
        );
    }
    if let Some(f) = failures.iter().find(|f| f.output == RunDirOutput::NAME) {
        eprintln!("error: {f}");
        return exit::RUNTIME;
    }
    if !watch.is_empty() {
        match rundir::watch::read_summary(out) {
            Ok(Some(w)) => {
                if let Some(why) = &w.warning {
                    eprintln!("warning: {why}");
                }
                super::say(&format!("\n{}", report::watch::markdown(&w)))
            }
            Ok(None) => {}
            Err(e) => eprintln!("warning: {e}"),
        }
    }
    super::say(&format!("Run directory: {}\n", out.display()));
    write_html(out);
    let goals_failed = aborted_by.is_some() || summary.thresholds.iter().any(|t| !t.passed);
    exit_code(!failures.is_empty(), outcome.interrupted, on_agents, goals_failed)
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

#[cfg(test)]
mod exit_tests {
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
}
