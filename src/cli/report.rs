//! `stampede report RUN...`: a run directory (finished or interrupted) or a JMeter results file
//! (or several of either, reported as one), as Markdown, a self-contained HTML page, JSON, CSV
//! or JUnit XML; made by [`crate::report::compose`].

use crate::error::{exit, Error};
use crate::plan::threshold::{self, Threshold};
use crate::report::compose::{self, By, Format, Read};
use crate::report::RunData;
use crate::run::merge;
use crate::rundir;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// A run directory (as written by `stampede run --out DIR`), or a JMeter results file
    /// (JTL/CSV with JMeter's default columns, with or without its header line). Several run
    /// directories, or several results files, are reported as one run: exactly, from the runs'
    /// histograms or from the files' rows.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A pass/fail goal judged with the run's own, `[LABEL:] METRIC OP VALUE` (e.g. `p95<300ms`);
    /// exits 1 when one fails (repeatable).
    #[arg(long = "threshold", value_name = "GOAL", value_parser = threshold::parse)]
    pub thresholds: Vec<Threshold>,
    /// After the whole, a table for each run given (`--by run`), for each part of a merged run
    /// (`--by agent`: each agent of a run on agents, each part given to `merge`), or for each
    /// group of those parts (`--by group`: as `agent --group`/`run --group` named them).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<By>,
    /// With several runs: after the whole, a table for this group of them,
    /// `NAME=RUN,RUN...` (e.g. `AWS=part-1,part-2`), each group's runs read as one (repeatable).
    #[arg(long = "group", value_name = "NAME=RUN,...", value_parser = compose::parse_group)]
    pub groups: Vec<(String, Vec<PathBuf>)>,
    /// Only the seconds from this time since the run's start on (e.g. `--from 5m` leaves the
    /// warm-up out): the numbers and charts of that window, from the interval log.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration_arg)]
    pub from: Option<std::time::Duration>,
    /// Only the seconds before this time since the run's start (with or without --from).
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration_arg)]
    pub to: Option<std::time::Duration>,
    /// After the whole, tables over time: the Total and each label, a row per window of this
    /// length (e.g. `--every 1h` for a soak), from the interval log.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration_arg, conflicts_with = "windows")]
    pub every: Option<std::time::Duration>,
    /// As --every, with at most this many equal windows (whole seconds each; whole minutes on a
    /// run longer than the hour of seconds it keeps) over the run or
    /// the --from/--to window.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub windows: Option<u32>,
}

impl ReportArgs {
    fn request(&self) -> compose::Request<'_> {
        compose::Request {
            runs: &self.runs,
            format: self.format,
            by: self.by,
            groups: &self.groups,
            from: self.from,
            to: self.to,
            every: self.every,
            windows: self.windows,
        }
    }
}

pub(super) fn execute(a: ReportArgs) -> Result<u8, Error> {
    let request = a.request();
    let warn = &mut |w: &str| eprintln!("{w}");
    let mut loaded = match request.read(warn)? {
        Read::Sweep(text) => {
            write(a.output.as_deref(), &text)?;
            return Ok(exit::OK);
        }
        Read::Run(loaded) => loaded,
    };
    // The run's thresholds are judged again: a killed run has none judged yet, and the same
    // rule then holds for every source.
    let source = a.runs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    let run = &mut loaded.run;
    let mut goals = merge::kept_goals(&run.meta.thresholds, &source).map_err(|e| Error::Usage(e.to_string()))?;
    goals.extend(a.thresholds.iter().cloned());
    run.summary.thresholds = crate::run::judge::evaluate(&goals, &run.summary);
    write(a.output.as_deref(), &request.render(&loaded, warn)?)?;
    let failed = loaded.run.summary.thresholds.iter().filter(|t| !t.passed).count();
    if failed > 0 {
        eprintln!("{failed} threshold(s) failed");
    }
    Ok(super::read_exit(loaded.damaged, failed > 0))
}

/// Reads a run for a report; a results file that cannot be read is bad input (exit 2), as a bad
/// plan is, while a run directory that cannot be read is a runtime failure.
pub(super) fn load(path: &Path) -> Result<RunData, Error> {
    Ok(compose::load(path)?)
}

/// Writes a report to a file, or to standard output.
pub(super) fn write(output: Option<&Path>, text: &str) -> Result<(), Error> {
    match output {
        Some(path) => std::fs::write(path, text.as_bytes())
            .map_err(|source| Error::from(rundir::Error::Io { path: path.to_path_buf(), source })),
        None => {
            super::say(text.trim_end_matches('\n'));
            super::say("\n");
            Ok(())
        }
    }
}
