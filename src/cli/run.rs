//! `stampede run`: load a plan (or build one from `--url`), say how it runs from the flags (a
//! [`Launch`]: its run directory, part, agents and outputs), hand it to [`crate::launch`], print
//! the results table at the end and map the run's outcome to the exit code.

use crate::engine;
use crate::error::{exit, Error};
use crate::launch::{self, Exports, Finished, Launch, Part, Said};
use crate::plan::{HttpVersion, Overrides, Plan, QuickPlan};
use crate::rundir;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

const WORKLOAD: &str = "Workload (quick mode, or overriding every scenario of a plan)";

#[derive(Debug, Args, Default)]
pub(crate) struct RunArgs {
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
    #[arg(long = "threshold", value_name = "GOAL", value_parser = crate::plan::threshold::parse)]
    pub thresholds: Vec<crate::plan::threshold::Threshold>,
    /// End the run early when a condition holds on every second's numbers for a while:
    /// `[LABEL:] METRIC OP VALUE [for DURATION]` (e.g. `error_pct>5 for 60s`, `Login: p95>2s for
    /// 5m`), added to the plan's `stop_on`; the run then exits 1, the reason in its meta.json
    /// (repeatable).
    #[arg(long = "stop-on", value_name = "CONDITION", value_parser = crate::plan::threshold::parse_stop_on)]
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
pub(crate) struct QuickArgs {
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
        let q = &self.quick;
        [
            (q.method.is_some(), "--method"),
            (q.body.is_some(), "--body"),
            (q.body_file.is_some(), "--body-file"),
            (q.gzip, "--gzip"),
            (!q.headers.is_empty(), "--header"),
            (self.rate.is_some(), "--rate"),
            (self.max_users.is_some(), "--max-users"),
            (q.no_keep_alive, "--no-keep-alive"),
            (q.http10, "--http1.0"),
            (q.timeout.is_some(), "--timeout"),
            (q.connect_timeout.is_some(), "--connect-timeout"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect()
    }

    /// The workload flags that also apply to a plan file, to every scenario.
    pub(super) fn overrides(&self) -> Overrides {
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
                let mut loaded = Plan::load_with(path, &self.plan_args.load_options()?)?;
                launch::override_workloads(&mut loaded.plan, &self.overrides());
                if let Some(elements) = &loaded.elements {
                    crate::run::preflight::element_warnings(elements, path).iter().for_each(|w| eprintln!("{w}"));
                }
                crate::run::preflight::idle_warnings(&loaded.plan).iter().for_each(|w| eprintln!("{w}"));
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
                Some(f) => Some(QuickPlan::read_body(f).map_err(Error::Usage)?),
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

    /// The flags that do not go together, said before the plan is read.
    fn check_flags(&self) -> Result<(), Error> {
        let on_agents = self.dist.on();
        if self.data == DataMode::Split && self.segment.is_none() && !on_agents {
            return Err(Error::Usage("--data split deals rows to parts: give --segment or --agents".into()));
        }
        let d = &self.dist;
        if !on_agents && (d.token_file.is_some() || d.on_agent_loss != OnAgentLoss::Continue || !d.ship.is_empty()) {
            return Err(Error::Usage(
                "--token-file, --on-agent-loss and --ship go with --agents or --listen-agents".into(),
            ));
        }
        if on_agents && (self.segment.is_some() || self.start_at.is_some() || self.group.is_some()) {
            return Err(Error::Usage(
                "--agents deals the parts and the start itself; --segment, --start-at and --group are for one process (agents take `agent --group`)".into(),
            ));
        }
        Ok(())
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

/// Writes a run's (or a sweep's) HTML report, `document`, as `report.html` in its directory
/// and says where; a report that cannot be made or written is said, the run stays whole.
pub(super) fn write_html(dir: &std::path::Path, document: Result<String, Error>) {
    let html = dir.join(rundir::REPORT_HTML);
    match document.and_then(|text| super::report::write(Some(&html), &text)) {
        Ok(()) => super::say(&format!("HTML report: {}\n", html.display())),
        Err(e) => eprintln!("warning: the HTML report was not written: {e}"),
    }
}

/// What a run on agents does when one is lost (`--on-agent-loss`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum OnAgentLoss {
    #[default]
    Continue,
    Abort,
}

/// How the parts of a plan read its data files (`--data`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum DataMode {
    #[default]
    Whole,
    Split,
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

pub(super) async fn execute(a: RunArgs) -> Result<u8, Error> {
    let watch = crate::watch::Source::parse_all(&a.watch).map_err(|e| Error::Usage(e.to_string()))?;
    a.check_flags()?;
    let exports = Exports::parse(&a.export, a.export_tag.clone())?;
    let mut plan = a.load_plan()?;
    launch::add_goals(&mut plan, &a.thresholds, &a.stop_on)?;
    launch::add_results(&mut plan, &a.jtl, a.delete_results)?;
    if a.segment.is_some() {
        launch::part_goals(&mut plan, &|w| eprintln!("{w}"));
    }
    let mut part = Part::new(
        a.segment.clone(),
        a.start_at,
        a.group.clone(),
        a.data == DataMode::Split,
        time::OffsetDateTime::now_utc(),
    )?;
    part.agents = a.on_agents(&plan)?;
    part.shape(&mut plan, a.data == DataMode::Split, &|w| eprintln!("{w}"));
    let place = launch::place(a.out.clone(), a.replace);
    run_plan(plan, launch(place, a.quiet, part, exports, watch)).await
}

/// A run as the command line asks for it: lines said on stderr, a second Ctrl-C on agents
/// leaving at once.
pub(super) fn launch(
    place: rundir::Place,
    quiet: bool,
    part: Part,
    exports: Exports,
    watch: Vec<crate::watch::Source>,
) -> Launch {
    let argv: Vec<String> = std::env::args().collect();
    Launch {
        place,
        quiet,
        command_line: crate::redact::command_line(&argv),
        part,
        exports,
        watch,
        say: std::sync::Arc::new(|line| eprintln!("{line}")),
        out: std::sync::Arc::new(|line| super::say(&format!("{line}\n"))),
        leave: std::sync::Arc::new(|| std::process::exit(i32::from(exit::INTERRUPTED))),
    }
}

/// Runs a loaded plan as `launch` says ([`launch::run_plan`]) and prints its results; shared
/// by `run`, `sweep` and `demo`. Returns the exit code.
pub(super) async fn run_plan(plan: Plan, launch: Launch) -> Result<u8, Error> {
    Ok(match launch::run_plan(plan, launch).await? {
        Some(finished) => conclude(&finished),
        None => exit::INTERRUPTED,
    })
}

/// Prints the run's results (and its HTML report) and says its exit code.
pub(super) fn conclude(f: &Finished) -> u8 {
    for said in f.conclusion() {
        match said {
            Said::Out(text) => super::say(&text),
            Said::Note(line) => eprintln!("{line}"),
        }
    }
    if f.run_dir_failure().is_none() {
        write_html(&f.dir, super::report::load(&f.dir).map(|run| crate::report::html::document(&run)));
    }
    f.exit_code()
}
