//! A sweep's steps as runs (`stampede sweep`): each step's plan loaded as the command line
//! says ([`Command`]), its load applied, and run as a [`Launch`] into its directory in the
//! sweep's, in this process or on agents; the sweep itself is [`crate::sweep::driver`]'s.

use super::agents::OnAgents;
use super::{interrupted, Exports, Finished, Launch, Part, Say};
use crate::error::{exit, Error};
use crate::plan::Plan;
use crate::rundir::Place;
use crate::sweep::driver::{self, Ended, Outcome, Runner, Settings, StepAt};
use crate::sweep::{self, Load};
use crate::watch::Source;
use std::path::Path;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What the command line says of each step's run.
pub(crate) trait Command {
    /// Step `at`'s plan as loaded for a run (`sweep.load` and `sweep.step` among its
    /// properties), its load not applied yet.
    fn plan(&mut self, at: &StepAt) -> Result<Plan, Error>;
    /// Step `at`'s run on agents, `None` in this process.
    fn agents(&mut self, at: &StepAt, plan: &Plan) -> Result<Option<OnAgents>, Error>;
    /// The step's run as the command line launches one.
    fn launch(&self, place: Place, quiet: bool, part: Part, exports: Exports, watch: Vec<Source>) -> Launch;
    /// Says the step's results at its end; its exit code.
    fn conclude(&self, finished: &Finished) -> u8;
}

/// How a step of a sweep is loaded and run.
pub(crate) struct Steps<C> {
    pub command: C,
    /// Users or rates: what each step's load is.
    pub load: Load,
    /// Quick mode (`--url`): a rate is the quick plan's own, not held on a plan's scenarios.
    pub quick: bool,
    /// How many loads were given, and `--refine`'s steps at most.
    pub loads: usize,
    pub refine: u32,
    pub step_duration: Duration,
    pub quiet: bool,
    pub watch: Vec<Source>,
    /// The first step's exports, bound before the sweep started.
    pub exports: Option<Exports>,
    /// `--export` and `--export-tag`, bound again for each later step.
    pub export: (Vec<String>, Option<String>),
    pub say: Say,
}

impl<C: Command> Steps<C> {
    /// Drives the sweep of `settings` through these steps; Ctrl-C between steps ends it too
    /// (during a step, the step's run hears it first).
    pub(crate) async fn drive(mut self, settings: &Settings) -> Result<Outcome, Error> {
        let stop = CancellationToken::new();
        let signals = tokio::spawn({
            let stop = stop.clone();
            async move {
                interrupted().await;
                stop.cancel();
            }
        });
        let outcome = driver::drive(settings, &mut self, &stop).await;
        signals.abort();
        outcome
    }

    /// The step's exports, its series labelled `SWEEP/STEP`. A `prometheus=` address, freed by
    /// the step before, is bound again (tried for a moment: its last client may still hold it).
    async fn exports(&mut self, dir: &Path) -> Result<Exports, Error> {
        let mut exports = match self.exports.take() {
            Some(e) => e,
            None => Exports::parse_again(&self.export.0, self.export.1.clone()).await?,
        };
        let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        exports.run_id = Some(format!("{}/{}", dir.parent().map(name).unwrap_or_default(), name(dir)));
        Ok(exports)
    }
}

impl<C: Command> Runner for Steps<C> {
    type Error = Error;

    fn plan(&mut self, at: &StepAt) -> Result<Plan, Error> {
        if !self.quiet {
            let of = if at.refining > 0 {
                format!("refine {}/{}", at.refining, self.refine)
            } else {
                format!("{}/{}", at.number, self.loads)
            };
            (self.say)(&format!("\n== step {of}: {} {}", sweep::show_load(at.load), self.load.title().to_lowercase()));
        }
        let mut plan = self.command.plan(at)?;
        match (self.load, self.quick) {
            (Load::Users, _) => driver::runs_users(&plan, at.load as usize)?,
            (Load::Rate, false) => driver::hold_rate(&mut plan, at.load, self.step_duration)?,
            (Load::Rate, true) => {}
        }
        Ok(plan)
    }

    async fn run(&mut self, plan: Plan, at: &StepAt, dir: &Path) -> Result<Ended, Error> {
        // On agents, the same run: the controller's merged seconds feed the step's outputs
        // (its directory, --watch, --export) as this process's engine does.
        let part = Part { agents: self.command.agents(at, &plan)?, ..Part::default() };
        let exports = self.exports(dir).await?;
        let place = Place::Exact { dir: dir.to_path_buf(), replace: false };
        let launch = self.command.launch(place, self.quiet, part, exports, self.watch.clone());
        let code = match super::run_plan(plan, launch).await? {
            Some(finished) => self.command.conclude(&finished),
            None => exit::INTERRUPTED,
        };
        Ok(match code {
            exit::INTERRUPTED => Ended::Interrupted,
            exit::RUNTIME => Ended::Incomplete,
            _ => Ended::Whole,
        })
    }
}

/// The exit code of a sweep that ended.
pub(crate) fn exit_code(outcome: &Outcome) -> u8 {
    match outcome.ended {
        Ended::Interrupted => exit::INTERRUPTED,
        Ended::Incomplete => exit::RUNTIME,
        Ended::Whole if outcome.goals_failed => exit::THRESHOLDS_FAILED,
        Ended::Whole => exit::OK,
    }
}
