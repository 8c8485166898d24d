//! `stampede run`: load a plan (or build one from `--url`), run it, write the run directory as
//! it goes, show progress, and print the results table at the end.

use crate::engine;
use crate::error::{exit, Error};
use crate::plan::{self, HttpVersion, Plan, QuickPlan};
use crate::progress::Progress;
use crate::record::Tally;
use crate::report;
use crate::rundir::{self, RunMeta, RunWriter, ScenarioMeta, Summary};
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A YAML or JMX plan; leave it out and give --url for quick mode.
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub plan_args: super::plan_args::PlanArgs,
    /// Run directory to write (default: runs/<timestamp>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write every sample to FILE in JMeter's CSV results format (JTL), appending.
    #[arg(long, value_name = "FILE")]
    pub jtl: Vec<PathBuf>,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// A pass/fail goal, `[LABEL:] METRIC OP VALUE` (e.g. `p95<300ms`, `Login: error_pct<1`),
    /// added to the plan's; the run exits 1 when one fails (repeatable).
    #[arg(long = "threshold", value_name = "GOAL", value_parser = parse_threshold)]
    pub thresholds: Vec<crate::threshold::Threshold>,

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
    /// Closed model: number of users (each with its own keep-alive connection).
    #[arg(long, short = 'u', help_heading = "Quick mode (no plan file)")]
    pub users: Option<u32>,
    /// Open model: iterations started per second.
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub rate: Option<f64>,
    /// Open model: most users at once (arrivals finding none free are dropped and counted).
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub max_users: Option<u32>,
    /// How long to run (e.g. 30s, 5m).
    #[arg(long, value_parser = super::parse_duration_arg, help_heading = "Quick mode (no plan file)")]
    pub duration: Option<Duration>,
    /// Closed model: iterations per user (instead of, or with, --duration).
    #[arg(long, short = 'n', help_heading = "Quick mode (no plan file)")]
    pub iterations: Option<u64>,
    /// Closed model: start the users evenly over this time.
    #[arg(long, value_parser = super::parse_duration_arg, help_heading = "Quick mode (no plan file)")]
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
        add(self.users.is_some(), "--users");
        add(self.rate.is_some(), "--rate");
        add(self.max_users.is_some(), "--max-users");
        add(self.duration.is_some(), "--duration");
        add(self.iterations.is_some(), "--iterations");
        add(self.ramp_up.is_some(), "--ramp-up");
        add(self.no_keep_alive, "--no-keep-alive");
        add(self.http10, "--http1.0");
        add(self.timeout.is_some(), "--timeout");
        add(self.connect_timeout.is_some(), "--connect-timeout");
        v
    }

    fn load_plan(&self) -> Result<Plan, Error> {
        match (&self.plan, &self.url) {
            (Some(_), Some(_)) => Err(Error::Usage("give a plan file or --url, not both".into())),
            (None, None) => Err(Error::Usage("give a plan file (stampede run plan.yaml) or --url (quick mode)".into())),
            (Some(path), None) => {
                let flags = self.quick_flags_given();
                if !flags.is_empty() {
                    return Err(Error::Usage(format!(
                        "{} apply to quick mode (--url); a plan sets its workload itself (use ${{__P(name,default)}} and -J name=value to vary it)",
                        flags.join(", ")
                    )));
                }
                let opts = self.plan_args.load_options()?;
                let loaded = Plan::load_with(path, &opts)?;
                if let Some(elements) = &loaded.elements {
                    for r in elements.iter().filter(|r| r.status == plan::jmx::Status::Skipped) {
                        eprintln!("warning: line {}: {} \"{}\" skipped: {}", r.line, r.class, r.name, r.note);
                    }
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

fn parse_threshold(s: &str) -> Result<crate::threshold::Threshold, String> {
    crate::threshold::parse(s)
}

pub async fn execute(a: RunArgs) -> Result<u8, Error> {
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
    let out = a.out.clone().unwrap_or_else(default_run_dir);
    let argv: Vec<String> = std::env::args().collect();
    run_plan(plan, &out, a.quiet, redact_args(&argv)).await
}

/// `runs/<UTC timestamp>` under the current directory.
pub fn default_run_dir() -> PathBuf {
    let now = time::OffsetDateTime::now_utc();
    let fmt = time::macros::format_description!("[year]-[month]-[day]T[hour]-[minute]-[second]");
    PathBuf::from("runs").join(now.format(&fmt).unwrap_or_else(|_| "run".into()))
}

/// Runs a loaded plan end to end; shared by `run` and `demo`.
pub async fn run_plan(plan: Plan, out: &Path, quiet: bool, command_line: Vec<String>) -> Result<u8, Error> {
    let scenarios: Vec<ScenarioMeta> = plan
        .scenarios
        .iter()
        .map(|s| ScenarioMeta {
            name: s.name.clone(),
            model: s.workload.model().into(),
            workload: s.workload.describe(),
        })
        .collect();
    let mut meta = RunMeta {
        tool: "stampede".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line,
        plan_path: plan.source.as_ref().map(|p| p.display().to_string()),
        plan_name: plan.name.clone(),
        host: hostname(),
        started_at: now_rfc3339(),
        ended_at: None,
        duration_s: None,
        status: "running".into(),
        interval_s: 1.0,
        scenarios: scenarios.clone(),
        // Past the label cap, the rows end with the overflow row.
        labels: crate::record::row_names(&plan.labels),
        checks: plan.checks.clone(),
        generator: None,
        thresholds: plan.thresholds.iter().map(|t| t.to_string()).collect(),
    };
    let mut writer = Some(RunWriter::create(out, &meta, &plan.to_resolved_yaml())?);
    let planned = plan
        .scenarios
        .iter()
        .map(|s| s.workload.planned_duration())
        .try_fold(Duration::ZERO, |acc, d| d.map(|d| acc.max(d)));
    let mut progress = Progress::new(planned, quiet);
    if !quiet {
        eprintln!("stampede {} — plan {} → {}", env!("CARGO_PKG_VERSION"), plan.name, out.display());
        for s in &scenarios {
            eprintln!("  scenario {}: {}", s.name, s.workload);
        }
    }

    let shutdown = CancellationToken::new();
    let abort = CancellationToken::new();
    let signals = tokio::spawn({
        let (shutdown, abort) = (shutdown.clone(), abort.clone());
        let grace = plan.scenarios.iter().map(|s| s.workload.graceful_stop()).max().unwrap_or_default();
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

    let (tx, mut rx) = mpsc::unbounded_channel();
    let scenario_count = plan.scenarios.len();
    let mut options = engine::Options::default();
    let jtl_writer = if plan.result_files.is_empty() {
        None
    } else {
        let (log_tx, log_rx) = std::sync::mpsc::channel();
        let names = rundir::jtl::Names {
            labels: plan.labels.clone(),
            checks: plan.checks.clone(),
            scenarios: plan.scenarios.iter().map(|s| s.name.clone()).collect(),
        };
        options.sample_log = Some(log_tx);
        Some(rundir::jtl::spawn(plan.result_files.clone(), names, log_rx).map_err(Error::Runtime)?)
    };
    let plan = Arc::new(plan);
    let engine = tokio::spawn({
        let (plan, shutdown, abort) = (plan.clone(), shutdown.clone(), abort.clone());
        async move { engine::run(&plan, options, shutdown, abort, tx).await }
    });
    let mut totals = Tally::new(meta.labels.len(), scenario_count);
    let mut write_error: Option<rundir::Error> = None;
    let mut folding = false;
    while let Some(iv) = rx.recv().await {
        totals.add_interval(&iv);
        if !folding && iv.labels.iter().any(|(id, _)| id.index() == plan.labels.len()) {
            folding = true;
            progress.notice(&format!(
                "warning: more than {} labels have samples; the samples of the others are counted in the row `{}`",
                crate::record::LABEL_CAP,
                crate::record::OVERFLOW_LABEL
            ));
        }
        if let Some(w) = writer.as_mut() {
            if let Err(e) = w.append(&iv) {
                // Keep measuring and still print the results; the exit code reports the failure.
                progress.notice(&format!("cannot write the interval log: {e}"));
                write_error = Some(e);
                writer = None;
            }
        }
        progress.update(&iv);
    }
    progress.finish();
    signals.abort();
    let outcome = engine
        .await
        .map_err(|e| Error::Runtime(format!("the engine failed: {e}")))?
        .map_err(|e| Error::Runtime(format!("cannot start the run: {e}")))?;
    // The engine has dropped its end of the sample log: the writer finishes the file.
    if let Some(w) = jtl_writer {
        match w.join() {
            Ok(Ok(_rows)) => {}
            Ok(Err(e)) => eprintln!("error: the results file is incomplete: {e}"),
            Err(_) => eprintln!("error: the results file writer failed"),
        }
    }

    let wall_s = outcome.elapsed_us as f64 / 1e6;
    let mut summary = Summary::from_tally(&totals, &meta.labels, &plan.checks, &scenarios, true);
    summary.generator = Some(rundir::summary::generator_usage(wall_s));
    meta.generator = summary.generator;
    meta.ended_at = Some(now_rfc3339());
    meta.duration_s = Some(wall_s);
    meta.status = if outcome.interrupted { "interrupted" } else { "completed" }.into();
    summary.thresholds = report::thresholds::evaluate(&plan.thresholds, &summary);
    if let Some(w) = writer {
        if let Err(e) = w.finish(&meta, &summary) {
            write_error = Some(e);
        }
    }
    super::say(&format!("{}\n{}", report::table(&summary), report::facts(&meta, &summary)));
    super::say(&report::thresholds::lines(&summary.thresholds));
    if let Some(e) = write_error {
        eprintln!("error: the run directory is incomplete: {e}");
        return Ok(exit::RUNTIME);
    }
    super::say(&format!("Run directory: {}\n", out.display()));
    // An interrupted run is partial: its exit code says so first, whatever its thresholds say.
    Ok(if outcome.interrupted {
        exit::INTERRUPTED
    } else if summary.thresholds.iter().any(|t| !t.passed) {
        exit::THRESHOLDS_FAILED
    } else {
        exit::OK
    })
}

fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The command line as recorded in `meta.json`: values of secret headers and secret-looking
/// properties are replaced by `***`.
pub fn redact_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut next_is: Option<&str> = None;
    for a in args {
        if let Some(kind) = next_is.take() {
            out.push(redact_value(kind, a));
            continue;
        }
        match a.as_str() {
            "-H" | "--header" => next_is = Some("header"),
            "-J" => next_is = Some("prop"),
            _ => {}
        }
        if let Some(v) = a.strip_prefix("--header=") {
            out.push(format!("--header={}", redact_value("header", v)));
        } else if let Some(v) = a.strip_prefix("-H").filter(|v| !v.is_empty()) {
            let v = v.strip_prefix('=').unwrap_or(v);
            out.push(format!("-H{}", redact_value("header", v)));
        } else if let Some(v) = a.strip_prefix("-J").filter(|v| !v.is_empty()) {
            out.push(format!("-J{}", redact_value("prop", v)));
        } else {
            out.push(plan::redact_userinfo(a));
        }
    }
    out
}

fn redact_value(kind: &str, v: &str) -> String {
    let sep = if kind == "header" { ':' } else { '=' };
    match v.split_once(sep) {
        Some((k, _)) if plan::request::is_secret_header(k.trim()) => format!("{k}{sep}***"),
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_from_the_command_line() {
        let args: Vec<String> = [
            "stampede",
            "run",
            "--url",
            "http://127.0.0.1/",
            "-H",
            "Authorization: Bearer abc",
            "--header=X-Api-Key: k",
            "-J",
            "password=p",
            "-Jtoken=t",
            "-J",
            "users=5",
            "-H",
            "Accept: */*",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let r = redact_args(&args).join(" ");
        assert!(!r.contains("abc") && !r.contains("X-Api-Key: k") && !r.contains("=p") && !r.contains("=t"), "{r}");
        assert!(!r.contains("c00kie") && !r.contains("pw@"), "{r}");
        assert!(r.contains("users=5") && r.contains("Accept: */*"), "{r}");
    }
}
