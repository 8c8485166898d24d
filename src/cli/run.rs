//! `stampede run`: load a plan (or build one from `--url`), hand it to [`crate::run`] with the
//! run directory, the progress line and the results files as outputs, print the results table
//! at the end and pick the exit code.

use crate::engine;
use crate::error::{exit, Error};
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

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A YAML or JMX plan; leave it out and give --url for quick mode.
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub plan_args: super::plan_args::PlanArgs,
    /// Run directory to write: a new or empty directory (default: runs/<timestamp>, with `-2`,
    /// `-3`... when that name is taken).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// With --out: replace the run already in that directory (its meta.json, plan.yaml,
    /// intervals.jsonl and summary.json; other files stay). Without it, such a directory is
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

    /// Quick mode: the URL to load.
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub url: Option<String>,
    /// HTTP method (default GET, or POST with --body).
    #[arg(long, short = 'X', help_heading = "Quick mode (no plan file)")]
    pub method: Option<String>,
    /// Request body.
    #[arg(long, short = 'd', help_heading = "Quick mode (no plan file)")]
    pub body: Option<String>,
    /// Gzip the body and send `Content-Encoding: gzip`.
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub gzip: bool,
    /// A request header, `Name: value` (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", help_heading = "Quick mode (no plan file)")]
    pub headers: Vec<String>,
    /// Closed model: number of users (each with its own keep-alive connection). With a plan:
    /// replaces every thread group's thread count (setUp and tearDown included); caps an open
    /// scenario's users at once.
    #[arg(long, short = 'u', help_heading = WORKLOAD)]
    pub users: Option<u32>,
    /// Open model: iterations started per second.
    #[arg(long, help_heading = "Quick mode (no plan file)")]
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
        add(self.method.is_some(), "--method");
        add(self.body.is_some(), "--body");
        add(self.gzip, "--gzip");
        add(!self.headers.is_empty(), "--header");
        add(self.rate.is_some(), "--rate");
        add(self.max_users.is_some(), "--max-users");
        add(self.no_keep_alive, "--no-keep-alive");
        add(self.http10, "--http1.0");
        add(self.timeout.is_some(), "--timeout");
        add(self.connect_timeout.is_some(), "--connect-timeout");
        v
    }

    /// The workload flags that also apply to a plan file, to every scenario.
    fn overrides(&self) -> Overrides {
        Overrides { users: self.users, duration: self.duration, iterations: self.iterations, ramp_up: self.ramp_up }
    }

    fn load_plan(&self) -> Result<Plan, Error> {
        match (&self.plan, &self.url) {
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
                }
                for w in super::check::idle_warnings(&loaded.plan) {
                    eprintln!("{w}");
                }
                Ok(loaded.plan)
            }
            (None, Some(url)) => Ok(QuickPlan {
                url: url.clone(),
                method: self.method.clone(),
                body: self.body.clone(),
                headers: self.headers.clone(),
                users: self.users,
                rate: self.rate,
                max_users: self.max_users,
                duration: self.duration,
                iterations: self.iterations,
                ramp_up: self.ramp_up,
                keep_alive: !self.no_keep_alive,
                http_version: self.http10.then_some(HttpVersion::Http10),
                timeout: self.timeout,
                connect_timeout: self.connect_timeout,
                gzip: self.gzip,
            }
            .into_plan()?),
        }
    }
}

fn parse_threshold(s: &str) -> Result<crate::plan::threshold::Threshold, super::ArgError> {
    crate::plan::threshold::parse(s).map_err(|e| super::ArgError::Threshold(e.to_string()))
}

pub(super) async fn execute(a: RunArgs) -> Result<u8, Error> {
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
    for f in &a.jtl {
        if !plan.result_files.contains(f) {
            plan.result_files.push(f.clone());
        }
    }
    let out = run_place(a.out.clone(), a.replace);
    let argv: Vec<String> = std::env::args().collect();
    Ok(run_plan(plan, &out, a.quiet, crate::redact::command_line(&argv)).await?.0)
}

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

/// Runs a loaded plan end to end with the run directory, the progress line and the plan's
/// results files as outputs, and prints the results; shared by `run` and `demo`. Returns the
/// exit code and the run directory it wrote.
pub(super) async fn run_plan(
    plan: Plan,
    out: &Place,
    quiet: bool,
    command_line: Vec<String>,
) -> Result<(u8, PathBuf), Error> {
    let options = RunOptions { engine: engine::Options::default(), command_line };
    let run = Run::new(plan, options);
    let fd_limit = run::raise_fd_limit();
    if let Some((users_at_most, needed)) = run::fd_shortfall(run.plan(), fd_limit) {
        eprintln!(
            "warning: up to {users_at_most} users may each hold a connection, but this process may open only {} files; \
             raise the limit (`ulimit -n {needed}`) or connections will fail as `generator_fds`",
            fd_limit.unwrap_or_default()
        );
    }

    let run_dir = RunDirOutput::create(out, run.meta(), run.plan()).map_err(|e| match e {
        // Nothing was sent: a usage error, as a bad plan is.
        rundir::Error::Occupied { .. } => {
            Error::Usage(format!("{e}: give another --out, or add --replace to replace what is there"))
        }
        e => Error::from(e),
    })?;
    let out = run_dir.dir().to_path_buf();
    if !quiet {
        eprintln!("stampede {} — plan {} → {}", env!("CARGO_PKG_VERSION"), run.plan().name, out.display());
        for s in &run.meta().scenarios {
            eprintln!("  scenario {}: {}", s.name, s.workload);
        }
    }

    let shutdown = CancellationToken::new();
    let abort = CancellationToken::new();
    let signals = tokio::spawn({
        let (shutdown, abort) = (shutdown.clone(), abort.clone());
        let grace = run.plan().scenarios.iter().map(|s| s.workload.graceful_stop()).max().unwrap_or_default();
        async move {
            super::interrupted().await;
            eprintln!(
                "\ninterrupted: no new requests; waiting up to {} for requests in flight (Ctrl-C again to stop now)",
                humantime::format_duration(grace)
            );
            shutdown.cancel();
            super::interrupted().await;
            abort.cancel();
        }
    });
    let jtl = JtlOutput::new(run.plan().result_files.clone());
    let result = run.output(run_dir).output(Progress::new(quiet)).output(jtl).execute(shutdown, abort).await;
    signals.abort();
    let RunResult { summary, outcome, failures, meta } = result?;
    // The results file's failure first, as before the table.
    for f in failures.iter().filter(|f| f.output != RunDirOutput::NAME) {
        eprintln!("error: {f}");
    }

    super::say(&format!("{}\n{}", report::table(&summary), report::facts(&meta, &summary)));
    super::say(&report::thresholds::lines(&summary.thresholds));
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
        return Ok((exit::RUNTIME, out));
    }
    super::say(&format!("Run directory: {}\n", out.display()));
    // An incomplete results file is an incomplete result: exit 3. An interrupted run is
    // partial: its exit code says so before its thresholds do.
    let code = if !failures.is_empty() {
        exit::RUNTIME
    } else if outcome.interrupted {
        exit::INTERRUPTED
    } else if summary.thresholds.iter().any(|t| !t.passed) {
        exit::THRESHOLDS_FAILED
    } else {
        exit::OK
    };
    Ok((code, out))
}
