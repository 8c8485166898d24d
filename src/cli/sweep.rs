//! `stampede sweep`: one plan (or `--url`) run step after step at the loads given, back to back,
//! each step a run directory of its own in the sweep's directory (each opens its own
//! connections, as a fresh JMeter run would), in this process or on agents. The steps are
//! driven by [`crate::sweep::driver`] through [`crate::launch::steps`]; this file reads the
//! arguments, says how a step is loaded as `run` loads a plan ([`StepRuns`]) and prints.

use super::run::{DataMode, OnAgentLoss, QuickArgs, RunArgs};
use crate::error::Error;
use crate::launch::agents::OnAgents;
use crate::launch::steps::{self, Command, Steps};
use crate::launch::{self, Exports, Finished, Launch, Part};
use crate::plan::threshold::{self, Threshold};
use crate::plan::Plan;
use crate::rundir::Place;
use crate::sweep::driver::{self, Settings, StepAt};
use crate::sweep::{self, Load};
use crate::watch::Source;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Args)]
pub(crate) struct SweepArgs {
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
    #[arg(long = "threshold", value_name = "GOAL", value_parser = threshold::parse)]
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
    /// Each step on agents (the flags of `run`): the step's directory is its merged run.
    #[command(flatten)]
    pub agents: super::dist::AgentFlags,
    /// With agents: how the parts read data files, `whole` (each reads every row) or `split`
    /// (each row used once in the step).
    #[arg(long, value_enum, value_name = "MODE", default_value = "whole", help_heading = "Several generators")]
    pub data: DataMode,
    /// Send each step's live metrics out, as `run --export` does (repeatable): every series
    /// labelled `run_id` SWEEP/STEP (the sweep's directory's name and the step's), so a
    /// dashboard tells the steps apart. A `prometheus=` page is served during each step.
    #[arg(long = "export", value_name = "KIND=TARGET", help_heading = "Live metrics")]
    pub export: Vec<String>,
    /// With --export: a `tag` label on every exported series, to tell sweeps apart.
    #[arg(long, value_name = "TEXT", requires = "export", help_heading = "Live metrics")]
    pub export_tag: Option<String>,
}

/// The loads of `--users` or `--rates`, in order.
#[derive(Debug, Clone)]
pub(crate) struct Loads(Vec<f64>);

fn parse_loads(s: &str) -> Result<Loads, String> {
    sweep::parse_loads(s).map(Loads)
}

pub(super) async fn execute(a: SweepArgs) -> Result<u8, Error> {
    let watch = crate::watch::Source::parse_all(&a.watch).map_err(|e| Error::Usage(e.to_string()))?;
    let settings = settings(&a)?.check()?;
    check_agent_flags(&a)?;
    // An address in use is said now, before any step; each later step binds it again.
    let exports = Exports::parse(&a.export, a.export_tag.clone())?;
    let steps = Steps {
        command: StepRuns(&a),
        load: settings.load,
        quick: a.plan.is_none(),
        loads: a.users.as_ref().or(a.rates.as_ref()).map_or(0, |l| l.0.len()),
        refine: a.refine,
        step_duration: a.step_duration,
        quiet: a.quiet,
        watch,
        exports: Some(exports),
        export: (a.export.clone(), a.export_tag.clone()),
        say: Arc::new(|line| eprintln!("{line}")),
    };
    let outcome = steps.drive(&settings).await?;
    let Some(dir) = &outcome.dir else { return Ok(steps::exit_code(&outcome)) };
    let record = &outcome.record;
    super::say(&format!("\n{}", sweep::markdown(record)));
    super::say(&format!("Sweep directory: {}\n", dir.display()));
    let html = crate::report::sweep_html::document(&[(record.plan_name.clone(), record)]);
    super::run::write_html(dir, Ok(html));
    Ok(steps::exit_code(&outcome))
}

/// The sweep's settings as given; [`Settings::check`] says what is wrong with them.
fn settings(a: &SweepArgs) -> Result<Settings, Error> {
    let (load, loads) = match (&a.users, &a.rates) {
        (Some(u), None) => (Load::Users, u.0.clone()),
        (None, Some(r)) => (Load::Rate, r.0.clone()),
        _ => return Err(Error::Usage("give --users or --rates".into())),
    };
    let until = match &a.until {
        Some(text) => Some((text.clone(), driver::parse_until(text)?)),
        None => None,
    };
    let (Place::Unique(base) | Place::Exact { dir: base, .. }) = launch::place(None, false);
    Ok(Settings {
        load,
        loads,
        step_duration: a.step_duration,
        ramp_up: a.ramp_up,
        warmup: a.warmup,
        until,
        refine: a.refine,
        thresholds: a.thresholds.clone(),
        out: a.out.clone(),
        base: PathBuf::from(format!("{}-sweep", base.display())),
    })
}

/// The agents' flags, checked as `run` checks them, and what a sweep cannot do on agents yet.
fn check_agent_flags(a: &SweepArgs) -> Result<(), Error> {
    let on = a.agents.on();
    if a.data == DataMode::Split && !on {
        return Err(Error::Usage("--data split deals rows to parts: give --agents or --listen-agents".into()));
    }
    if !on && (a.agents.token_file.is_some() || a.agents.on_agent_loss != OnAgentLoss::Continue) {
        return Err(Error::Usage("--token-file and --on-agent-loss go with --agents or --listen-agents".into()));
    }
    if !on {
        return Ok(());
    }
    if a.plan.is_none() {
        return Err(Error::Usage("--agents and --listen-agents run a plan file, not --url".into()));
    }
    if a.rates.is_some() {
        // The agents load the plan themselves: a rate held here would not reach them.
        return Err(Error::Usage(
            "sweep --rates with a plan holds its open-model rate in this process: on agents, sweep --users".into(),
        ));
    }
    Ok(())
}

/// How the command line loads and runs a step: as `run` would.
struct StepRuns<'a>(&'a SweepArgs);

/// The step's run as `run` would take it: its load as `sweep.load` and its users or rate.
fn run_args(a: &SweepArgs, at: &StepAt) -> RunArgs {
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
    run.dist = a.agents.clone();
    run.data = a.data;
    run.plan_args.properties.push(("sweep.load".into(), sweep::show_load(at.load)));
    run.plan_args.properties.push(("sweep.step".into(), at.number.to_string()));
    match (&a.users, a.plan.is_none()) {
        (Some(_), _) => run.users = Some(at.load as u32),
        (None, true) => run.rate = Some(at.load),
        (None, false) => {}
    }
    run
}

impl Command for StepRuns<'_> {
    fn plan(&mut self, at: &StepAt) -> Result<Plan, Error> {
        run_args(self.0, at).load_plan()
    }

    fn agents(&mut self, at: &StepAt, plan: &Plan) -> Result<Option<OnAgents>, Error> {
        run_args(self.0, at).on_agents(plan)
    }

    fn launch(&self, place: Place, quiet: bool, part: Part, exports: Exports, watch: Vec<Source>) -> Launch {
        super::run::launch(place, quiet, part, exports, watch)
    }

    fn conclude(&self, finished: &Finished) -> u8 {
        super::run::conclude(finished)
    }
}
