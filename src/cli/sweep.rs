//! `stampede sweep`: one plan (or `--url`) run step after step at the loads given, back to back
//! in this process, each step a run directory of its own in the sweep's directory (each opens
//! its own connections, as a fresh JMeter run would); after every step the sweep's record and
//! tables are written again ([`crate::sweep`]), so a sweep cut short keeps its steps.

use super::run::{run_place, QuickArgs, RunArgs};
use crate::error::{exit, Error};
use crate::plan::threshold::{self, Threshold};
use crate::plan::workload::{Stage, Workload};
use crate::rundir::{self, Place};
use crate::sweep::{self, Figures, Load, Record, Step};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// A YAML or JMX plan; leave it out and give --url for quick mode. Each step may read its
    /// load as `${__P(sweep.load)}` (and its number as `${__P(sweep.step)}`).
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub plan_args: super::plan_args::PlanArgs,
    /// Closed model: the users of each step, `50,100,250`, `50..2000x2` (×2 up to 2000) or
    /// `100..500+100`. With a plan: every thread group's thread count.
    #[arg(long, value_name = "LOADS", value_parser = parse_loads, conflicts_with = "rates", required_unless_present = "rates")]
    pub users: Option<Loads>,
    /// Open model: the iterations started per second in each step, as --users takes them. With
    /// a plan: every open-model scenario's rate, held for the step.
    #[arg(long, value_name = "LOADS", value_parser = parse_loads)]
    pub rates: Option<Loads>,
    /// How long each step runs.
    #[arg(long, value_parser = super::parse_duration_arg)]
    pub step_duration: Duration,
    /// Closed model: each step starts its users evenly over this time (part of the step).
    #[arg(long, value_parser = super::parse_duration_arg)]
    pub ramp_up: Option<Duration>,
    /// Leave each step's first seconds out of its figures (the step still runs
    /// --step-duration; its run directory keeps every second: `report --from` shows them).
    #[arg(long, value_parser = super::parse_duration_arg)]
    pub warmup: Option<Duration>,
    /// Stop at the first step that meets this condition (`p95>300ms or error_pct>1`: goals'
    /// syntax, joined by `or`); the sweep names the highest load that did not.
    #[arg(long, value_name = "CONDITION")]
    pub until: Option<String>,
    /// With --until: after the first step that meets it, up to N more steps that halve the gap
    /// between the highest load that did not and the lowest that did (users: to one user;
    /// rates: to 1% of the load), so the capacity found is finer than the steps given.
    #[arg(long, value_name = "N", requires = "until", default_value_t = 0)]
    pub refine: u32,
    /// The sweep's directory: new or empty (default: runs/<timestamp>-sweep).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A pass/fail goal judged in every step (repeatable), as `run --threshold`.
    #[arg(long = "threshold", value_name = "GOAL", value_parser = parse_threshold)]
    pub thresholds: Vec<Threshold>,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Sample the system under test into each step's run directory, as `run --watch` does
    /// (repeatable).
    #[arg(long = "watch", value_name = "SOURCE")]
    pub watch: Vec<String>,
    #[command(flatten)]
    pub quick: QuickArgs,
    /// Open model: most users at once in each step.
    #[arg(long, help_heading = "Quick mode (no plan file)")]
    pub max_users: Option<u32>,
}

/// The loads of `--users` or `--rates`, in order.
#[derive(Debug, Clone)]
pub struct Loads(Vec<f64>);

fn parse_loads(s: &str) -> Result<Loads, String> {
    sweep::parse_loads(s).map(Loads)
}

fn parse_threshold(s: &str) -> Result<Threshold, String> {
    threshold::parse(s).map_err(|e| e.to_string())
}

/// `--until`'s conditions: goals joined by `or`, any of which ends the sweep when it holds.
fn parse_until(text: &str) -> Result<Vec<Threshold>, Error> {
    text.split(" or ")
        .map(|c| threshold::parse(c.trim()).map_err(|e| Error::Usage(format!("--until `{}`: {e}", c.trim()))))
        .collect()
}

pub(super) async fn execute(a: SweepArgs) -> Result<u8, Error> {
    let watch = super::parse_watch(&a.watch)?;
    let (load, loads) = match (&a.users, &a.rates) {
        (Some(u), None) => (Load::Users, u.0.clone()),
        (None, Some(r)) => (Load::Rate, r.0.clone()),
        _ => return Err(Error::Usage("give --users or --rates".into())),
    };
    let loads = match load {
        // Users are whole: a range's factor may land between them (10..100x1.5).
        Load::Users => {
            let mut whole: Vec<f64> = loads.iter().map(|v| v.round().max(1.0)).collect();
            whole.dedup();
            if let Some(v) = whole.iter().find(|v| **v > f64::from(u32::MAX)) {
                return Err(Error::Usage(format!("--users: {v} users is more than a run takes")));
            }
            whole
        }
        Load::Rate => {
            if let Some(problem) = loads.iter().find_map(|r| crate::plan::workload::rate_problem("--rates: a rate", *r))
            {
                return Err(Error::Usage(problem));
            }
            loads
        }
    };
    // Said with the sweep's own flag: each step is a run of --step-duration.
    if a.step_duration.is_zero() {
        return Err(Error::Usage("--step-duration must be above zero".into()));
    }
    if load == Load::Rate && a.ramp_up.is_some() {
        return Err(Error::Usage("--ramp-up starts users; a --rates step arrives at its rate from its start".into()));
    }
    let until = a.until.as_deref().map(parse_until).transpose()?;
    let warmup = a.warmup.filter(|w| !w.is_zero());
    if warmup.is_some_and(|w| w >= a.step_duration) {
        return Err(Error::Usage("--warmup must be shorter than --step-duration: it is the start of each step".into()));
    }
    // A step's log keeps its seconds for its first hour only (rundir::LogFormat): past it, a
    // step's numbers can start on a whole minute only. Said now, not after the step has run.
    let kept = crate::rundir::LogFormat::current();
    let finest = kept.rollups_s.first().copied().unwrap_or(1);
    if warmup.is_some_and(|w| {
        w.as_secs_f64() > kept.seconds_kept_s as f64 && (w.as_micros() % (u128::from(finest) * 1_000_000)) != 0
    }) {
        return Err(Error::Usage(format!(
            "--warmup past {} s must be a whole multiple of {finest} s: a step keeps its seconds for its first {} s only",
            kept.seconds_kept_s, kept.seconds_kept_s
        )));
    }
    // Ctrl-C between steps ends the sweep too (during a step, the step's run hears it first).
    let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let signals = tokio::spawn({
        let interrupted = interrupted.clone();
        async move {
            super::interrupted().await;
            interrupted.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    });
    // Claimed once the first step's plan has loaded: a plan that does not leaves nothing.
    let mut claimed: Option<PathBuf> = None;
    let mut goals_failed = false;
    let mut record = Record {
        format: sweep::FORMAT,
        tool: rundir::TOOL.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        plan_name: String::new(),
        load,
        planned: loads.clone(),
        step_duration_s: a.step_duration.as_secs_f64(),
        warmup_s: warmup.map(|w| w.as_secs_f64()),
        until: a.until.clone(),
        steps: Vec::new(),
        knee: None,
        usl: None,
        highest_good: None,
        finished: false,
    };
    let argv: Vec<String> = std::env::args().collect();
    let mut code = exit::OK;
    let mut next = loads.first().copied();
    let mut refining = 0u32;
    let mut i = 0usize;
    while let Some(value_now) = next.take() {
        let value = &value_now;
        if interrupted.load(std::sync::atomic::Ordering::SeqCst) {
            code = exit::INTERRUPTED;
            break;
        }
        let name = format!(
            "step-{:02}-{}-{}",
            i + 1,
            sweep::show_load(*value),
            if load == Load::Users { "users" } else { "rps" }
        );
        if !a.quiet {
            let of = if refining > 0 {
                format!("refine {refining}/{}", a.refine)
            } else {
                format!("{}/{}", i + 1, loads.len())
            };
            eprintln!("\n== step {of}: {} {}", sweep::show_load(*value), load.title().to_lowercase());
        }
        let mut run = RunArgs {
            plan: a.plan.clone(),
            plan_args: a.plan_args.clone(),
            quick: a.quick.clone(),
            max_users: a.max_users,
            duration: Some(a.step_duration),
            ramp_up: a.ramp_up,
            quiet: a.quiet,
            ..RunArgs::default()
        };
        run.plan_args.properties.push(("sweep.load".into(), sweep::show_load(*value)));
        run.plan_args.properties.push(("sweep.step".into(), (i + 1).to_string()));
        match load {
            Load::Users => run.users = Some(*value as u32),
            Load::Rate if a.plan.is_none() => run.rate = Some(*value),
            Load::Rate => {}
        }
        let mut plan = run.load_plan()?;
        match load {
            Load::Rate if a.plan.is_some() => hold_rate(&mut plan, *value, a.step_duration)?,
            Load::Rate => {}
            Load::Users => runs_users(&plan, *value as usize)?,
        }
        for t in a.thresholds.iter().chain(until.iter().flatten()) {
            if let Some(l) = t.label.as_ref().filter(|l| !plan.labels.contains(l)) {
                return Err(Error::Usage(format!(
                    "`{t}`: the plan has no request or group labelled `{l}` (labels: {})",
                    plan.labels.join(", ")
                )));
            }
        }
        plan.thresholds.extend(a.thresholds.iter().cloned());
        if record.plan_name.is_empty() {
            record.plan_name = plan.name.clone();
        }
        let dir = match &claimed {
            Some(d) => d.clone(),
            None => claimed.insert(claim(a.out.clone())?).clone(),
        };
        let place = Place::Exact { dir: dir.join(&name), replace: false };
        let (step_code, step_dir) = super::run::run_plan(
            plan,
            &place,
            a.quiet,
            crate::redact::command_line(&argv),
            Default::default(),
            Default::default(),
            &watch,
        )
        .await?;
        let step = read_step(&step_dir, &name, *value, until.as_deref(), warmup)?;
        let broke = step.broke.is_some();
        goals_failed |= !step.failed.is_empty();
        // Steps in order of load: a refining step falls between two others.
        let at = record.steps.iter().position(|s| s.load > step.load).unwrap_or(record.steps.len());
        record.steps.insert(at, Step { refine: refining > 0, ..step });
        record.analyse();
        write_record(&dir, &record)?;
        if step_code == exit::INTERRUPTED || step_code == exit::RUNTIME {
            code = step_code;
            break;
        }
        i += 1;
        next = if !broke && refining == 0 {
            loads.get(i).copied()
        } else if refining < a.refine {
            // Halve the gap between the highest good load and the lowest bad one.
            let bad = record.steps.iter().filter(|s| s.broke.is_some()).map(|s| s.load).reduce(f64::min);
            let good = record.steps.iter().filter(|s| s.broke.is_none()).map(|s| s.load).reduce(f64::max);
            match (good, bad) {
                (Some(g), Some(b)) => {
                    let mid = if load == Load::Users { ((g + b) / 2.0).floor() } else { (g + b) / 2.0 };
                    let fine = if load == Load::Users { b - g <= 1.0 } else { b - g <= 0.01 * b };
                    (!fine && mid > g && mid < b).then_some(mid)
                }
                _ => None,
            }
        } else {
            None
        };
        if next.is_some() && (broke || refining > 0) {
            refining += 1;
        }
    }
    signals.abort();
    let Some(dir) = claimed else { return Ok(code) };
    record.finished = code == exit::OK;
    if code == exit::OK && goals_failed {
        code = exit::THRESHOLDS_FAILED;
    }
    write_record(&dir, &record)?;
    super::say(&format!("\n{}", sweep::markdown(&record)));
    super::say(&format!("Sweep directory: {}\n", dir.display()));
    let html = dir.join(rundir::REPORT_HTML);
    match super::report::write(
        Some(&html),
        &crate::report::sweep_html::document(&[(record.plan_name.clone(), &record)]),
    ) {
        Ok(()) => super::say(&format!("HTML report: {}\n", html.display())),
        Err(e) => eprintln!("warning: the HTML report was not written: {e}"),
    }
    Ok(code)
}

/// A step's numbers from its run directory (after its `warmup`, when given); `broke` when one
/// of `until` holds for it.
fn read_step(
    dir: &Path,
    name: &str,
    load: f64,
    until: Option<&[Threshold]>,
    warmup: Option<Duration>,
) -> Result<Step, Error> {
    let run = rundir::read_run(dir)?;
    let whole = &run.summary;
    let windowed = match warmup {
        None => None,
        Some(w) => {
            let from = u64::try_from(w.as_micros()).unwrap_or(u64::MAX);
            let mut s = crate::report::load_runs_window(&[dir], Some(from..u64::MAX))?.summary;
            // The step's goals, judged on the measured part; its arrivals and generator load
            // are the whole step's (the log keeps no scenario counts per window).
            let mut goals = Vec::new();
            for text in &run.meta.thresholds {
                goals.push(threshold::parse(text).map_err(|e| Error::Usage(format!("{}: {e}", dir.display())))?);
            }
            s.thresholds = crate::run::judge::evaluate(&goals, &s);
            s.scenarios = whole.scenarios.clone();
            s.generator = whole.generator;
            s.total.dropped_iterations = whole.total.dropped_iterations;
            Some(s)
        }
    };
    let s = windowed.as_ref().unwrap_or(whole);
    // A step with nothing measured (after its warm-up) met no goal and held no load.
    let empty = until.is_some() && s.total.samples == 0;
    let broke = until.filter(|_| !empty).and_then(|goals| {
        let judged = crate::run::judge::evaluate(goals, s);
        let met = judged.iter().find(|t| t.passed).map(|t| match t.actual {
            Some(v) => format!("{}: {v:.2}", t.threshold),
            None => t.threshold.clone(),
        });
        // Arrivals dropped (every user busy): the step's rate was not delivered.
        let (dropped, arrivals) = s
            .scenarios
            .iter()
            .filter(|c| c.model == rundir::Model::Open)
            .fold((0, 0), |(d, n), c| (d + c.dropped_iterations, n + c.iterations + c.dropped_iterations));
        met.or_else(|| {
            (dropped as f64 > arrivals as f64 * DROPPED_BREAKS).then(|| {
                format!(
                    "{dropped} of {arrivals} arrivals dropped ({:.1}%): the rate was not delivered",
                    dropped as f64 * 100.0 / arrivals as f64
                )
            })
        })
    });
    let broke = if empty { Some("no sample measured in the step".to_string()) } else { broke };
    let failed = s.thresholds.iter().filter(|t| !t.passed).map(|t| t.threshold.clone()).collect();
    Ok(Step {
        load,
        dir: name.to_string(),
        status: run.meta.status.as_str().to_string(),
        total: Figures::of(&s.total),
        labels: s.labels.iter().map(Figures::of).collect(),
        cpu_pct: s.generator.map(|g| g.cpu_pct_of_cores),
        concurrency: s.total.throughput_rps * s.total.mean_ms / 1000.0,
        broke,
        failed,
        refine: false,
    })
}

/// The share of its arrivals a `--rates` step may drop before it meets `--until`.
const DROPPED_BREAKS: f64 = 0.01;

/// Refuses a `--users` step the plan would not run as asked: an open-model scenario (its users
/// only cap arrivals) or a thread group of set user starts with fewer than `users`.
fn runs_users(plan: &crate::plan::Plan, users: usize) -> Result<(), Error> {
    for s in &plan.scenarios {
        match &s.workload {
            Workload::Open(_) => {
                return Err(Error::Usage(format!(
                    "scenario `{}` arrives at a rate: --users would only cap it; sweep it with --rates",
                    s.name
                )))
            }
            Workload::Shaped(w) if w.starts.len() < users => {
                return Err(Error::Usage(format!(
                    "scenario `{}` starts {} users on a schedule of its own, not {users}: sweep it up to {}, or make its thread count a property (-J) and sweep that",
                    s.name,
                    w.starts.len(),
                    w.starts.len()
                )))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every open-model scenario of `plan` arrives at `rate` per second for `step`.
fn hold_rate(plan: &mut crate::plan::Plan, rate: f64, step: Duration) -> Result<(), Error> {
    let mut open = 0;
    for s in &mut plan.scenarios {
        if let Workload::Open(w) = &mut s.workload {
            w.start_rate = rate;
            w.stages = vec![Stage { target: rate, duration: step }];
            open += 1;
        }
    }
    if open == 0 {
        return Err(Error::Usage(
            "--rates sets open-model scenarios' arrivals, and this plan has none: sweep its users with --users".into(),
        ));
    }
    Ok(())
}

/// The sweep's directory: `out` when it is new or empty, else `runs/<timestamp>-sweep` (`-2`,
/// `-3`... when taken).
fn claim(out: Option<PathBuf>) -> Result<PathBuf, Error> {
    let io = |dir: &Path| {
        let dir = dir.to_path_buf();
        move |source| Error::Io { what: format!("cannot make {}", dir.display()), source }
    };
    match out {
        Some(dir) => {
            if std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some()) {
                return Err(Error::Usage(format!(
                    "{} already exists and is not empty: give another --out",
                    dir.display()
                )));
            }
            std::fs::create_dir_all(&dir).map_err(io(&dir))?;
            Ok(dir)
        }
        None => {
            let (Place::Unique(base) | Place::Exact { dir: base, .. }) = run_place(None, false);
            let base = PathBuf::from(format!("{}-sweep", base.display()));
            if let Some(parent) = base.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            for n in 1..=1000 {
                let dir = if n == 1 { base.clone() } else { PathBuf::from(format!("{}-{n}", base.display())) };
                match std::fs::create_dir(&dir) {
                    Ok(()) => return Ok(dir),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io(&dir)(e)),
                }
            }
            Err(Error::Usage(format!("{} and 1000 names after it are taken", base.display())))
        }
    }
}

fn write_record(dir: &Path, record: &Record) -> Result<(), Error> {
    rundir::writer::write_json(&dir.join(sweep::RECORD), record)?;
    let md = dir.join(sweep::TABLES);
    std::fs::write(&md, sweep::markdown(record))
        .map_err(|source| Error::Io { what: format!("cannot write {}", md.display()), source })
}
