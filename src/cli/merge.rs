//! `stampede merge`: several run directories written as one run directory, exactly: the parts
//! of a plan that generators ran apart (`run --segment I/N`), or any runs made side by side.
//! Their histograms, counters, bytes and error kinds add up interval by interval, so the merged
//! percentiles are those of one histogram holding every sample; each part stays listed with its
//! host, start skew, samples and CPU.

use crate::error::{exit, Error};
use crate::plan::threshold;
use crate::report;
use crate::rundir::{self, merge, RunWriter};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct MergeArgs {
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
    let place = super::run::run_place(Some(a.out.clone()), a.replace);
    let (run, dir) = merge_into(&dirs, &place, &[])?;
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
    Ok(if !run.summary.damage.is_empty() {
        exit::RUNTIME
    } else if run.summary.thresholds.iter().any(|t| !t.passed) {
        exit::THRESHOLDS_FAILED
    } else {
        exit::OK
    })
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

/// Merges `dirs` into a run directory at `place`, their thresholds and `more` judged on the
/// merged numbers; returns the merged run and where it was written.
pub(super) fn merge_into(
    dirs: &[&Path],
    place: &rundir::Place,
    more: &[threshold::Threshold],
) -> Result<(rundir::reader::Run, PathBuf), Error> {
    let metas = dirs.iter().map(|d| rundir::reader::read_meta(d)).collect::<Result<Vec<_>, _>>()?;
    if let Some(why) = merge::cannot_merge(dirs, &metas) {
        return Err(Error::Usage(format!("cannot merge these runs: {why}")));
    }
    if let Some(missing) = merge::missing_parts(&metas) {
        eprintln!(
            "warning: part {missing} of the plan is missing: the merged run is a share of its load, not all of it"
        );
    }
    // First the merged facts (every label's name, in the order the intervals number them),
    // then the intervals again, written as they come: memory stays flat however long the runs.
    // Every second where the runs (and so the merged run) keep them; past that, their finest
    // roll-up's lines (the merged run's writer rolls them up again). Both passes read the same
    // lines, so labels are met in the same order.
    let layout = merge::layout_for(&metas);
    let grain = merge::grain_for(&layout);
    let first = merge::read_many(dirs, grain, |_, _| {})?;
    // The plan as it ran: one plan's, or each run's after a comment naming its directory.
    let plans: Vec<String> =
        dirs.iter().map(|d| std::fs::read_to_string(d.join(rundir::PLAN)).unwrap_or_default()).collect();
    let plan = if plans.iter().all(|p| *p == plans[0]) {
        plans[0].clone()
    } else {
        dirs.iter()
            .zip(&plans)
            .map(|(d, p)| {
                format!(
                    "# {}
---
{p}",
                    d.display()
                )
            })
            .collect::<Vec<_>>()
            .join(
                "
",
            )
    };
    let mut writer = RunWriter::create_with(place, &first.meta, &plan, layout).map_err(|e| match e {
        rundir::Error::Occupied { .. } => {
            Error::Usage(format!("{e}: give another --out, or add --replace to replace what is there"))
        }
        e => Error::from(e),
    })?;
    let mut index = 0;
    let mut failed = None;
    let known = first.meta.labels.len();
    let mut run = merge::read_many(dirs, grain, |iv, side| {
        // A run still being written may have grown a label since the first pass.
        if iv.labels.iter().any(|(i, _)| *i >= known) {
            failed.get_or_insert(rundir::Error::Merge(
                "a run changed while it was being merged (it is still running?)".into(),
            ));
            return;
        }
        let interval = merge::as_interval(index, iv, side, Vec::new());
        index += 1;
        if failed.is_none() {
            failed = writer.append(&interval).err();
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    judge(&mut run, more, dirs[0])?;
    let dir = writer.dir().to_path_buf();
    writer.finish(&run.meta, &run.summary)?;
    Ok((run, dir))
}

/// Judges a merged run's goals (its parts', which name `origin` when one does not read) and
/// `more` on its merged numbers.
pub(super) fn judge(run: &mut rundir::reader::Run, more: &[threshold::Threshold], origin: &Path) -> Result<(), Error> {
    let mut goals = Vec::new();
    for text in &run.meta.thresholds {
        goals.push(threshold::parse(text).map_err(|e| Error::Usage(format!("{}: {e}", origin.display())))?);
    }
    // The same goal with and without `abort` (agents judge none live: the controller does) is
    // one goal, as the plan has it.
    let judged_alike = |a: &threshold::Threshold, b: &threshold::Threshold| {
        threshold::Threshold { abort: None, ..a.clone() } == threshold::Threshold { abort: None, ..b.clone() }
    };
    for t in more {
        match goals.iter().position(|g| judged_alike(g, t)) {
            Some(i) => {
                goals[i] = t.clone();
                run.meta.thresholds[i] = t.to_string();
            }
            None => {
                run.meta.thresholds.push(t.to_string());
                goals.push(t.clone());
            }
        }
    }
    run.summary.thresholds = crate::run::judge::evaluate(&goals, &run.summary);
    Ok(())
}
