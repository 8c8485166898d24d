//! `stampede check PLAN`: reads a YAML or JMX plan without sending anything and prints what it
//! will do; for a JMX, every element with its status.

use super::plan_args::PlanArgs;
use crate::error::{exit, Error};
use crate::plan::describe;
use crate::run::preflight::{self, idle_warnings};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// A YAML or JMX plan.
    pub plan: PathBuf,
    #[command(flatten)]
    pub plan_args: PlanArgs,
    /// `text` (a table for people) or `json` (every element, problem and file needed, for
    /// scripts).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

pub(super) fn execute(a: CheckArgs) -> Result<u8, Error> {
    let found = preflight::inspect(&a.plan, a.plan_args.load_options()?);
    // What functions evaluated while loading logged: a run keeps it in `scripts.log`.
    if let Ok(p) = &found.plan {
        for line in &p.load_log {
            eprintln!("{}", found.secrets.scrub(line));
        }
    }
    let out = match a.format {
        Format::Json => describe::json(&a.plan, &found),
        Format::Text => describe::text(&found, idle_warnings),
    };
    // Values from the environment and secret-named properties, wherever they landed.
    super::say(&found.secrets.scrub(&out));
    if found.plan.is_ok() {
        return Ok(exit::OK);
    }
    if a.format == Format::Text {
        // Every problem, each with its place, as `run` would list them.
        let n = found.problems.len();
        for p in &found.problems {
            eprintln!("error: {}", found.secrets.scrub(&p.to_string()));
        }
        if n > 1 {
            eprintln!("{n} problems: `run` refuses the plan until each is fixed");
        }
    }
    Ok(exit::USAGE)
}
