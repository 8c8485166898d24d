//! Running a sweep: its steps one after another, each a run of its own through a [`Runner`] (in
//! this process, or on agents: the caller says how a step is loaded and run), each step's
//! numbers read back from its run directory into the sweep's record. The order of the steps,
//! `--until` and `--refine`, the sweep's directory and its record are this module's; the record
//! and tables are written again after every step, so a sweep cut short keeps its steps.

use super::{Figures, Load, Record, Step};
use crate::plan::threshold::{self, Threshold};
use crate::plan::workload::{Stage, Workload};
use crate::plan::Plan;
use crate::rundir;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What the sweep itself can fail with; a step's run fails with its runner's own error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Settings, or a step's plan, that the sweep cannot run as asked: nothing of it was sent.
    #[error("{0}")]
    Usage(String),
    /// A step's run directory does not read.
    #[error("{0}")]
    RunDir(#[from] rundir::Error),
    /// The sweep's directory or record could not be written.
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
}

/// A sweep as asked: what varies, the loads, each step's length and what ends the sweep.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub load: Load,
    /// The loads in the order asked; [`Settings::check`] makes users whole.
    pub loads: Vec<f64>,
    pub step_duration: Duration,
    /// Closed model: each step starts its users over this time.
    pub ramp_up: Option<Duration>,
    /// Each step's first seconds, left out of its figures.
    pub warmup: Option<Duration>,
    /// `--until` as given, and its conditions (any of which ends the sweep).
    pub until: Option<(String, Vec<Threshold>)>,
    /// Steps after the first that meets `until`, halving the gap to the last that did not.
    pub refine: u32,
    /// Goals judged in every step.
    pub thresholds: Vec<Threshold>,
    /// The sweep's directory, new or empty; when none, a new one named `base` (`-2`, `-3`...).
    pub out: Option<PathBuf>,
    pub base: PathBuf,
}

impl Settings {
    /// The settings as a sweep runs them, or what is wrong with them, said before any step.
    pub(crate) fn check(mut self) -> Result<Settings, Error> {
        let usage = |m: String| Err(Error::Usage(m));
        match self.load {
            // Users are whole: a range's factor may land between them (10..100x1.5).
            Load::Users => {
                self.loads = self.loads.iter().map(|v| v.round().max(1.0)).collect();
                self.loads.dedup();
                if let Some(v) = self.loads.iter().find(|v| **v > f64::from(u32::MAX)) {
                    return usage(format!("--users: {v} users is more than a run takes"));
                }
            }
            Load::Rate => {
                if let Some(p) =
                    self.loads.iter().find_map(|r| crate::plan::workload::rate_problem("--rates: a rate", *r))
                {
                    return usage(p);
                }
                if self.ramp_up.is_some() {
                    return usage("--ramp-up starts users; a --rates step arrives at its rate from its start".into());
                }
            }
        }
        // Said with the sweep's own flag: each step is a run of --step-duration.
        if self.step_duration.is_zero() {
            return usage("--step-duration must be above zero".into());
        }
        self.warmup = self.warmup.filter(|w| !w.is_zero());
        if self.warmup.is_some_and(|w| w >= self.step_duration) {
            return usage("--warmup must be shorter than --step-duration: it is the start of each step".into());
        }
        // A step's log keeps its seconds for its first hour only (rundir::LogFormat): past it, a
        // step's numbers can start on a whole minute only. Said now, not after the step has run.
        let kept = rundir::LogFormat::current();
        let finest = kept.rollups_s.first().copied().unwrap_or(1);
        if self.warmup.is_some_and(|w| {
            w.as_secs_f64() > kept.seconds_kept_s as f64 && (w.as_micros() % (u128::from(finest) * 1_000_000)) != 0
        }) {
            return usage(format!(
                "--warmup past {} s must be a whole multiple of {finest} s: a step keeps its seconds for its first {} s only",
                kept.seconds_kept_s, kept.seconds_kept_s
            ));
        }
        Ok(self)
    }
}

/// `--until`'s conditions: goals joined by `or`, any of which ends the sweep when it holds.
pub(crate) fn parse_until(text: &str) -> Result<Vec<Threshold>, Error> {
    text.split(" or ")
        .map(|c| threshold::parse(c.trim()).map_err(|e| Error::Usage(format!("--until `{}`: {e}", c.trim()))))
        .collect()
}

/// The step the driver asks a [`Runner`] for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StepAt {
    /// 1, 2, ... in the order run: what the plan reads as `${__P(sweep.step)}`.
    pub number: usize,
    /// Its users, or arrivals per second: `${__P(sweep.load)}`.
    pub load: f64,
    /// Its run directory's name in the sweep's, e.g. `step-02-100-users`.
    pub name: String,
    /// Of a `--refine` search: 1 for the first refining step, 2 for the next; 0 for a planned one.
    pub refining: u32,
}

/// How a step ended, as far as the sweep goes on or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// It ran its course and its results are written (its goals may have failed).
    Whole,
    /// Stopped by Ctrl-C or SIGTERM: the sweep stops after recording it.
    Interrupted,
    /// Its results could not all be written, or an agent was lost: the sweep stops there.
    Incomplete,
}

/// How one step is loaded and run: in this process, or on agents.
pub(crate) trait Runner {
    type Error: From<Error>;
    /// Step `at`'s plan with its load applied (its users, or its rate held for the step):
    /// nothing is sent yet.
    fn plan(&mut self, at: &StepAt) -> Result<Plan, Self::Error>;
    /// Runs `plan` as step `at` into `dir`, a new run directory in the sweep's.
    fn run(&mut self, plan: Plan, at: &StepAt, dir: &Path) -> impl Future<Output = Result<Ended, Self::Error>>;
}

/// What a sweep did: its directory (none when no step's plan loaded), its record as written
/// last, and how it ended.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub dir: Option<PathBuf>,
    pub record: Record,
    /// [`Ended::Whole`] when every step it ran did (it may have stopped at `--until`).
    pub ended: Ended,
    /// A step failed one of the goals.
    pub goals_failed: bool,
}

/// Runs the sweep of `settings` step by step through `runner`; `stop` (Ctrl-C) ends it between
/// steps, as a step's own run hears it during one.
pub(crate) async fn drive<R: Runner>(
    settings: &Settings,
    runner: &mut R,
    stop: &CancellationToken,
) -> Result<Outcome, R::Error> {
    let mut sweep = Driver::new(settings);
    let mut ended = Ended::Whole;
    while let Some(at) = sweep.next.take() {
        if stop.is_cancelled() {
            ended = Ended::Interrupted;
            break;
        }
        match sweep.step(runner, &at).await {
            Ok(Ended::Whole) => sweep.advance(),
            Ok(other) => {
                ended = other;
                break;
            }
            Err(e) => {
                sweep.abandon();
                return Err(e);
            }
        }
    }
    sweep.record.finished = ended == Ended::Whole;
    if let Some(dir) = &sweep.claimed {
        write_record(dir, &sweep.record)?;
    }
    let goals_failed = sweep.record.steps.iter().any(|s| !s.failed.is_empty());
    Ok(Outcome { dir: sweep.claimed, record: sweep.record, ended, goals_failed })
}

/// A sweep under way.
struct Driver<'a> {
    settings: &'a Settings,
    record: Record,
    /// Claimed once the first step's plan has loaded: a plan that does not leaves nothing.
    claimed: Option<PathBuf>,
    next: Option<StepAt>,
    /// Planned steps run so far.
    planned_run: usize,
    /// Steps run so far.
    run: usize,
    refining: u32,
    /// The last step met `until`.
    broke: bool,
}

impl<'a> Driver<'a> {
    fn new(settings: &'a Settings) -> Driver<'a> {
        let record = Record {
            format: super::FORMAT,
            tool: rundir::TOOL.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            plan_name: String::new(),
            load: settings.load,
            planned: settings.loads.clone(),
            step_duration_s: settings.step_duration.as_secs_f64(),
            warmup_s: settings.warmup.map(|w| w.as_secs_f64()),
            until: settings.until.as_ref().map(|(text, _)| text.clone()),
            steps: Vec::new(),
            knee: None,
            usl: None,
            highest_good: None,
            finished: false,
        };
        let mut d =
            Driver { settings, record, claimed: None, next: None, planned_run: 0, run: 0, refining: 0, broke: false };
        d.next = settings.loads.first().map(|v| d.at(*v));
        d
    }

    fn at(&self, load: f64) -> StepAt {
        let unit = if self.settings.load == Load::Users { "users" } else { "rps" };
        StepAt {
            number: self.run + 1,
            load,
            name: format!("step-{:02}-{}-{unit}", self.run + 1, super::show_load(load)),
            refining: self.refining,
        }
    }

    /// Loads, runs and records step `at`.
    async fn step<R: Runner>(&mut self, runner: &mut R, at: &StepAt) -> Result<Ended, R::Error> {
        let mut plan = runner.plan(at)?;
        let until = self.settings.until.as_ref().map(|(_, goals)| goals.as_slice());
        for t in self.settings.thresholds.iter().chain(until.into_iter().flatten()) {
            if let Some(l) = t.label.as_ref().filter(|l| !plan.labels.contains(l)) {
                return Err(Error::Usage(format!(
                    "`{t}`: the plan has no request or group labelled `{l}` (labels: {})",
                    plan.labels.join(", ")
                ))
                .into());
            }
        }
        plan.thresholds.extend(self.settings.thresholds.iter().cloned());
        if self.record.plan_name.is_empty() {
            self.record.plan_name = plan.name.clone();
        }
        let dir = match &self.claimed {
            Some(d) => d.clone(),
            None => self.claimed.insert(claim(self.settings.out.as_deref(), &self.settings.base)?).clone(),
        };
        let step_dir = dir.join(&at.name);
        let ended = runner.run(plan, at, &step_dir).await?;
        // A step stopped before it claimed its run directory (Ctrl-C while agents were awaited)
        // has nothing to record.
        if ended != Ended::Whole && !step_dir.join(rundir::META).exists() {
            return Ok(ended);
        }
        let step = read_step(&step_dir, at, until, self.settings.warmup)?;
        self.broke = step.broke.is_some();
        // Steps in order of load: a refining step falls between two others.
        let i = self.record.steps.iter().position(|s| s.load > step.load).unwrap_or(self.record.steps.len());
        self.record.steps.insert(i, Step { refine: at.refining > 0, ..step });
        self.record.analyse();
        write_record(&dir, &self.record)?;
        Ok(ended)
    }

    /// After a whole step: the next planned load, or with `--refine` one between the highest
    /// load that met `until` and the lowest that did not.
    fn advance(&mut self) {
        self.run += 1;
        if self.refining == 0 {
            self.planned_run += 1;
        }
        let load = if !self.broke && self.refining == 0 {
            self.settings.loads.get(self.planned_run).copied()
        } else if self.refining < self.settings.refine {
            self.between()
        } else {
            None
        };
        if load.is_some() && (self.broke || self.refining > 0) {
            self.refining += 1;
        }
        self.next = load.map(|v| self.at(v));
    }

    /// Halfway between the highest good load and the lowest bad one, while the gap is wider
    /// than one user, or 1% of the load.
    fn between(&self) -> Option<f64> {
        let steps = &self.record.steps;
        let bad = steps.iter().filter(|s| s.broke.is_some()).map(|s| s.load).reduce(f64::min)?;
        let good = steps.iter().filter(|s| s.broke.is_none()).map(|s| s.load).reduce(f64::max)?;
        let users = self.settings.load == Load::Users;
        let mid = if users { ((good + bad) / 2.0).floor() } else { (good + bad) / 2.0 };
        let fine = if users { bad - good <= 1.0 } else { bad - good <= 0.01 * bad };
        (!fine && mid > good && mid < bad).then_some(mid)
    }

    /// After an error: a directory this sweep named and left empty goes.
    fn abandon(&self) {
        if let (Some(dir), None) = (&self.claimed, &self.settings.out) {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// A step's numbers from its run directory (after `warmup`, when given); `broke` when one of
/// `until` holds for it.
fn read_step(dir: &Path, at: &StepAt, until: Option<&[Threshold]>, warmup: Option<Duration>) -> Result<Step, Error> {
    let run = rundir::read_run(dir)?;
    let whole = &run.summary;
    let windowed = match warmup {
        None => None,
        Some(w) => Some(after_warmup(dir, &run, w)?),
    };
    let s = windowed.as_ref().unwrap_or(whole);
    // A step with nothing measured (after its warm-up) met no goal and held no load.
    let empty = until.is_some() && s.total.samples == 0;
    let broke = if empty {
        Some("no sample measured in the step".to_string())
    } else {
        until.and_then(|goals| broken(goals, s))
    };
    let failed = s.thresholds.iter().filter(|t| !t.passed).map(|t| t.threshold.clone()).collect();
    Ok(Step {
        load: at.load,
        dir: at.name.clone(),
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

/// A step's summary of its seconds after `warmup`, its goals judged on them; its arrivals and
/// generator load are the whole step's (the log keeps no scenario counts per window).
fn after_warmup(dir: &Path, run: &rundir::reader::Run, warmup: Duration) -> Result<rundir::Summary, Error> {
    let from = u64::try_from(warmup.as_micros()).unwrap_or(u64::MAX);
    let mut s = crate::report::load_runs_window(&[dir], Some(from..u64::MAX))?.summary;
    let mut goals = Vec::new();
    for text in &run.meta.thresholds {
        goals.push(threshold::parse(text).map_err(|e| Error::Usage(format!("{}: {e}", dir.display())))?);
    }
    s.thresholds = crate::run::judge::evaluate(&goals, &s);
    s.scenarios = run.summary.scenarios.clone();
    s.generator = run.summary.generator;
    s.total.dropped_iterations = run.summary.total.dropped_iterations;
    Ok(s)
}

/// Which of `until` holds for `s`, said with its value; or the arrivals it dropped, past
/// [`DROPPED_BREAKS`] of them: the step's rate was not delivered.
fn broken(until: &[Threshold], s: &rundir::Summary) -> Option<String> {
    let judged = crate::run::judge::evaluate(until, s);
    let met = judged.iter().find(|t| t.passed).map(|t| match t.actual {
        Some(v) => format!("{}: {v:.2}", t.threshold),
        None => t.threshold.clone(),
    });
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
}

/// The share of its arrivals a `--rates` step may drop before it meets `--until`.
const DROPPED_BREAKS: f64 = 0.01;

/// Refuses a `--users` step the plan would not run as asked: an open-model scenario (its users
/// only cap arrivals) or a thread group of set user starts with fewer than `users`.
pub(crate) fn runs_users(plan: &Plan, users: usize) -> Result<(), Error> {
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
pub(crate) fn hold_rate(plan: &mut Plan, rate: f64, step: Duration) -> Result<(), Error> {
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

/// The sweep's directory: `out` when it is new or empty, else `base` (`-2`, `-3`... when taken).
fn claim(out: Option<&Path>, base: &Path) -> Result<PathBuf, Error> {
    let io = |dir: &Path| {
        let dir = dir.to_path_buf();
        move |source| Error::Io { what: format!("cannot make {}", dir.display()), source }
    };
    if let Some(dir) = out {
        if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
            return Err(Error::Usage(format!("{} already exists and is not empty: give another --out", dir.display())));
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        return Ok(dir.to_path_buf());
    }
    if let Some(parent) = base.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    for n in 1..=1000 {
        let dir = if n == 1 { base.to_path_buf() } else { PathBuf::from(format!("{}-{n}", base.display())) };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&dir)(e)),
        }
    }
    Err(Error::Usage(format!("{} and 1000 names after it are taken", base.display())))
}

fn write_record(dir: &Path, record: &Record) -> Result<(), Error> {
    rundir::writer::write_json(&dir.join(super::RECORD), record)?;
    let md = dir.join(super::TABLES);
    std::fs::write(&md, super::markdown(record))
        .map_err(|source| Error::Io { what: format!("cannot write {}", md.display()), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A runner that loads a plan for every step and ends each as `ends` says, writing nothing;
    /// it keeps the steps it was asked for.
    struct Fake {
        ends: Ended,
        loads: bool,
        asked: Vec<StepAt>,
    }

    impl Runner for Fake {
        type Error = Error;

        fn plan(&mut self, at: &StepAt) -> Result<Plan, Error> {
            self.asked.push(at.clone());
            if !self.loads {
                return Err(Error::Usage(format!("no plan for {}", at.name)));
            }
            let yaml = "name: p\nscenarios:\n  - name: s\n    workload: {users: 1, iterations: 1}\n    flow:\n      - request: {url: \"http://127.0.0.1:1/\"}\n";
            Ok(Plan::from_yaml_str(yaml, Path::new("p.yaml"), &Default::default()).unwrap())
        }

        async fn run(&mut self, _: Plan, _: &StepAt, _: &Path) -> Result<Ended, Error> {
            Ok(self.ends)
        }
    }

    fn settings(base: &Path) -> Settings {
        Settings {
            load: Load::Users,
            loads: vec![1.0, 2.4, 2.0, 8.0],
            step_duration: Duration::from_secs(1),
            ramp_up: None,
            warmup: None,
            until: None,
            refine: 0,
            thresholds: Vec::new(),
            out: None,
            base: base.join("sweep"),
        }
    }

    #[tokio::test]
    async fn a_first_step_whose_plan_does_not_load_leaves_no_directory() {
        let tmp = std::env::temp_dir().join(format!("stampede-driver-{}-a", std::process::id()));
        let s = settings(&tmp).check().unwrap();
        // Whole users, each once.
        assert_eq!(s.loads, [1.0, 2.0, 8.0]);
        let mut fake = Fake { ends: Ended::Whole, loads: false, asked: Vec::new() };
        let e = drive(&s, &mut fake, &CancellationToken::new()).await.unwrap_err();
        assert_eq!(e.to_string(), "no plan for step-01-1-users");
        assert!(!tmp.join("sweep").exists());
        let _ = std::fs::remove_dir_all(&tmp);
    }

    #[tokio::test]
    async fn a_step_stopped_before_its_run_directory_ends_the_sweep_with_nothing_recorded() {
        let tmp = std::env::temp_dir().join(format!("stampede-driver-{}-b", std::process::id()));
        let s = settings(&tmp).check().unwrap();
        let mut fake = Fake { ends: Ended::Interrupted, loads: true, asked: Vec::new() };
        let outcome = drive(&s, &mut fake, &CancellationToken::new()).await.unwrap();
        assert_eq!(outcome.ended, Ended::Interrupted);
        assert_eq!(fake.asked.len(), 1);
        assert!(outcome.record.steps.is_empty() && !outcome.record.finished);
        let written: Record =
            serde_json::from_slice(&std::fs::read(tmp.join("sweep").join(super::super::RECORD)).unwrap()).unwrap();
        assert!(!written.finished && written.plan_name == "p");
        // Stopped before it began: no step is asked for.
        let stop = CancellationToken::new();
        stop.cancel();
        let mut fake = Fake { ends: Ended::Whole, loads: true, asked: Vec::new() };
        let outcome = drive(&s, &mut fake, &stop).await.unwrap();
        assert!(fake.asked.is_empty() && outcome.dir.is_none() && outcome.ended == Ended::Interrupted);
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
