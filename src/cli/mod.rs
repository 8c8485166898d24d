//! The command line: argument definitions and one file per subcommand. It parses arguments,
//! picks outputs, prints and maps outcomes to exit codes; a run as a command asks for it is
//! composed and carried out by `crate::launch`, a library.

mod agent;
mod check;
mod compare;
mod demo;
mod dist;
mod jmeter;
mod merge;
mod mock;
mod plan_args;
mod report;
mod run;
mod sweep;

use crate::error::Error;
use crate::launch::interrupted;
use clap::{Parser, Subcommand};

/// The command line: a subcommand and its arguments (`Cli::parse_from(argv())`, then [`run`]).
#[derive(Debug, Parser)]
#[command(name = "stampede", version, about = "Load testing and API benchmarking with JMeter-grade numbers", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run a load test: a YAML or JMeter (.jmx) plan, or one URL (quick mode).
    Run(run::RunArgs),
    /// Read a plan without sending anything and print what it will do.
    Check(check::CheckArgs),
    /// Report a run directory (finished or interrupted) or a JMeter results file: Markdown,
    /// HTML, JSON, CSV or JUnit.
    Report(report::ReportArgs),
    /// Compare runs side by side, with differences weighed against the runs' own noise.
    Compare(compare::CompareArgs),
    /// Run a plan (or --url) step after step at growing load (--users 50,100,250 or --rates),
    /// each step a run; tabulate the steps, find the knee, fit the Universal Scalability Law.
    Sweep(sweep::SweepArgs),
    /// Merge run directories into one, exactly: the parts several generators ran
    /// (`run --segment I/N`), or any runs made side by side.
    Merge(merge::MergeArgs),
    /// Serve a fast built-in upstream (200 'OK' by default) for calibration.
    Mock(mock::MockArgs),
    /// Start the mock, run a bundled plan against it for about 10 s, print the report.
    Demo(demo::DemoArgs),
    /// Serve as a load generator for `stampede run --agents`: run the parts of plans a
    /// controller sends, streaming their results back.
    Agent(agent::AgentArgs),
    /// JMeter 5.6.3's non-GUI command line (`-n -t PLAN -l RESULTS.jtl -J name=value -e -o DIR
    /// -R host,...`): runs the plan as `run` does; a link named `jmeter` to stampede is the same.
    Jmeter(jmeter::JmeterArgs),
}

/// Runs a parsed command line; returns the exit code.
pub async fn run(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Command::Run(a) => run::execute(a).await,
        Command::Check(a) => check::execute(a),
        Command::Report(a) => report::execute(a),
        Command::Compare(a) => compare::execute(a),
        Command::Merge(a) => merge::execute(a),
        Command::Sweep(a) => sweep::execute(a).await,
        Command::Mock(a) => mock::execute(a).await,
        Command::Demo(a) => demo::execute(a).await,
        Command::Agent(a) => agent::execute(a).await,
        Command::Jmeter(a) => jmeter::execute(a).await,
    }
}

/// The process's arguments, with `jmeter` put first when the binary was started as `jmeter`
/// (a link of that name): a team's scripts then run `stampede jmeter` unchanged.
pub fn argv() -> Vec<std::ffi::OsString> {
    crate::jmeter_cli::as_called(std::env::args_os().collect())
}

/// Writes to stdout. A closed pipe (`stampede report DIR | head`) is not an error worth a
/// panic: the results are already on disk.
fn say(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
}

/// The exit code of a command that read runs: a damaged one (a lower bound) first, as for a
/// corrupt line, then a failed goal.
fn read_exit(damaged: bool, goals_failed: bool) -> u8 {
    use crate::error::exit;
    if damaged {
        exit::RUNTIME
    } else if goals_failed {
        exit::THRESHOLDS_FAILED
    } else {
        exit::OK
    }
}

/// An argument's value that does not parse (clap shows it after the argument's name).
#[derive(Debug, thiserror::Error)]
enum ArgError {
    #[error("`{0}` is not name=value")]
    NotKeyValue(String),
    #[error("`{0}` has an empty name")]
    EmptyName(String),
    #[error("`{0}` is not a duration (e.g. 30s, 5m, 250ms; at most 365 days)")]
    NotADuration(String),
    #[error("`{0}` is not a segment: give I/N, the I-th of N equal parts (e.g. 2/3)")]
    NotASegment(String),
    #[error("`{0}` is not an instant: give RFC 3339 with a time zone, e.g. 2026-12-01T10:00:00Z")]
    NotAnInstant(String),
}

/// Parses `name=value` (for `-J`).
fn parse_key_value(s: &str) -> Result<(String, String), ArgError> {
    let (k, v) = s.split_once('=').ok_or_else(|| ArgError::NotKeyValue(s.to_string()))?;
    if k.trim().is_empty() {
        return Err(ArgError::EmptyName(s.to_string()));
    }
    Ok((k.trim().to_string(), v.to_string()))
}

fn parse_duration_arg(s: &str) -> Result<std::time::Duration, ArgError> {
    crate::plan::parse_duration(s).ok_or_else(|| ArgError::NotADuration(s.to_string()))
}
