//! `stampede jmeter`: JMeter 5.6.3's non-GUI command line (`jmeter -n -t plan.jmx -l out.jtl -e
//! -o report ...`), read by [`crate::jmeter_cli`] into a run (or a report) and carried out as
//! `run` (and `report`) carry theirs out, so that a team's scripts and CI jobs run unchanged
//! with `jmeter` pointing at stampede (a link named `jmeter` to the binary behaves as
//! `stampede jmeter`, see [`super::argv`]).

use super::run::RunArgs;
use crate::error::{exit, Error};
use crate::jmeter_cli::{self, Action, Request};
use crate::rundir::Place;
use std::path::Path;

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true, disable_version_flag = true)]
pub(crate) struct JmeterArgs {
    /// JMeter's options, as `jmeter` takes them (`stampede jmeter -?` lists them), e.g.
    /// `-n -t plan.jmx -l results.jtl -e -o report`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "JMETER OPTIONS")]
    pub args: Vec<String>,
}

/// Runs a JMeter command line.
pub(super) async fn execute(a: JmeterArgs) -> Result<u8, Error> {
    let inv = jmeter_cli::parse(&a.args)?;
    let _log = match &inv.log {
        Some(path) => Some(jmeter_cli::log::Tee::start(path)?),
        None => None,
    };
    let result = execute_parsed(inv).await;
    if let (Err(e), Some(tee)) = (&result, _log) {
        // The error main prints goes to the log too: the tee ends first, and main prints after.
        tee.finish(&format!("error: {e}\n"));
    }
    result
}

async fn execute_parsed(inv: jmeter_cli::Invocation) -> Result<u8, Error> {
    let (Place::Unique(run_base) | Place::Exact { dir: run_base, .. }) = crate::launch::place(None, false);
    match inv.action(&run_base, &mut |w| eprintln!("{w}"))? {
        Action::Say(text) => {
            super::say(&text);
            Ok(exit::OK)
        }
        Action::ReportOnly { results, dir } => {
            let run = super::report::load(&results)?;
            write_report(&run, &dir)?;
            Ok(exit::OK)
        }
        Action::Run(request) => run(request).await,
    }
}

/// Runs the plan as `run` does, then prints JMeter's last summary line and writes the report.
async fn run(r: Request) -> Result<u8, Error> {
    let mut args = RunArgs { plan: Some(r.plan), out: Some(r.out.clone()), ..Default::default() };
    args.plan_args.resolved_properties = r.properties;
    args.plan_args.allow_commands = r.allow_commands;
    args.jtl = r.results.into_iter().collect();
    args.delete_results = r.force;
    if let Some(agents) = r.agents {
        args.dist.token_file = Some(agents.token_file);
        args.dist.agents = agents.addresses;
        args.agent_properties = Some(agents.properties);
    }
    let code = match super::run::execute(args).await {
        Ok(code) => code,
        Err(e) => {
            // Nothing measured: the directory claimed for the run goes (only if still empty).
            let _ = std::fs::remove_dir(&r.out);
            return Err(e);
        }
    };
    // What JMeter's summariser prints last, for the scripts that read it.
    let run = super::report::load(&r.out)?;
    super::say(&format!("{}\n", crate::report::jmeter::Totals::of(&run.meta, &run.summary.total).line()));
    if let Some(dir) = r.report_dir {
        write_report(&run, &dir)?;
    }
    Ok(code)
}

/// Writes the report of `run` into `dir` ([`crate::report::jmeter::write_dashboard`]) and
/// says where.
fn write_report(run: &crate::report::RunData, dir: &Path) -> Result<(), Error> {
    crate::report::jmeter::write_dashboard(run, dir)?;
    eprintln!("the report is in {}", dir.display());
    Ok(())
}
