//! `stampede merge`: several run directories written as one run directory, exactly: the parts
//! of a plan that generators ran apart (`run --segment I/N`), or any runs made side by side.
//! Their histograms, counters, bytes and error kinds add up interval by interval, so the merged
//! percentiles are those of one histogram holding every sample; each part stays listed with its
//! host, start skew, samples and CPU.

use crate::error::Error;
use crate::report;
use crate::run::merge;
use crate::rundir;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The run directories to merge (e.g. the ones `run --segment 1/3`, `2/3` and `3/3` wrote),
    /// finished or interrupted.
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<PathBuf>,
    /// The run directory to write: a new or empty directory.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace the run already in the --out directory.
    #[arg(long)]
    pub replace: bool,
}

pub(super) fn execute(a: MergeArgs) -> Result<u8, Error> {
    let out_abs = std::fs::canonicalize(&a.out).ok();
    for r in &a.runs {
        if out_abs.is_some() && std::fs::canonicalize(r).ok() == out_abs {
            return Err(Error::Usage(format!("--out {} is one of the runs to merge", a.out.display())));
        }
    }
    let given: Vec<&Path> = a.runs.iter().map(PathBuf::as_path).collect();
    // A run on agents given with an agent's own run directory: its parts, that one in place of
    // the run's copy, and its record of lost agents carried over, reconciled.
    let expanded = rundir::lost::expand(&given)?;
    let dirs: Vec<&Path> = match &expanded {
        Some(e) => e.dirs.iter().map(PathBuf::as_path).collect(),
        None => given,
    };
    let place = crate::launch::place(Some(a.out.clone()), a.replace);
    let (run, dir) = merge::merge_into(&dirs, &place, &[], &mut |w| eprintln!("{w}")).map_err(refused)?;
    super::say(&format!("{}\n{}", report::table(&run.summary), report::facts(&run.meta, &run.summary)));
    super::say(&report::thresholds::lines(&run.summary.thresholds));
    if let Some(e) = expanded {
        let lost = e.lost.map(|mut lost| {
            rundir::lost::reconcile(&mut lost, &run.meta.parts, &e.copies, &run.meta.started_at);
            lost
        });
        keep_lost(&dir, lost.as_ref());
    }
    super::say(&format!("Run directory: {}\n", dir.display()));
    // A damaged part merged is a lower bound: written, said, and exit 3 as for a corrupt line.
    for w in &run.summary.damage {
        eprintln!("warning: the run directory is damaged: {w}");
    }
    Ok(super::read_exit(!run.summary.damage.is_empty(), run.summary.thresholds.iter().any(|t| !t.passed)))
}

/// Keeps the record of the agents a run lost in its directory `dir` and says it under the
/// run's table (the HTML report, written after, reads it there).
pub(super) fn keep_lost(dir: &Path, lost: Option<&rundir::lost::Lost>) {
    let Some(lost) = lost else { return };
    super::say(&report::lost::terminal(lost));
    if let Err(e) = rundir::lost::write(dir, lost) {
        eprintln!("warning: the record of the lost agents was not written: {e}");
    }
}

/// A merge refused is bad input, as a bad command line is; a run already where `--out` points
/// says how to go on.
fn refused(e: merge::Error) -> Error {
    match e {
        merge::Error::RunDir(e @ rundir::Error::Occupied { .. }) => {
            Error::Usage(format!("{e}: give another --out, or add --replace to replace what is there"))
        }
        merge::Error::RunDir(e) => Error::from(e),
        e => Error::Usage(e.to_string()),
    }
}
