//! Several run directories written as one, exactly (`stampede merge`), their goals judged on
//! the merged numbers as a run judges its own.

use crate::plan::threshold::{self, Threshold, ThresholdError};
use crate::rundir::{self, merge, RunWriter};
use std::path::{Path, PathBuf};

/// Why runs were not merged.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// The runs are not parts of one whole (the same run twice, overlapping parts...).
    #[error("cannot merge these runs: {0}")]
    Cannot(String),
    /// A goal a run keeps does not read (`origin` names the run).
    #[error("{origin}: {error}")]
    Goal { origin: String, error: ThresholdError },
    #[error(transparent)]
    RunDir(#[from] rundir::Error),
}

/// Merges `dirs` into a run directory at `place`, their thresholds and `more` judged on the
/// merged numbers; returns the merged run and where it was written. That the runs are a share
/// of their plan, not all of it, is said to `warn`.
pub(crate) fn merge_into(
    dirs: &[&Path],
    place: &rundir::Place,
    more: &[Threshold],
    warn: &mut dyn FnMut(&str),
) -> Result<(rundir::reader::Run, PathBuf), Error> {
    let metas = dirs.iter().map(|d| rundir::reader::read_meta(d)).collect::<Result<Vec<_>, _>>()?;
    if let Some(why) = merge::cannot_merge(dirs, &metas) {
        return Err(Error::Cannot(why));
    }
    if let Some(missing) = merge::missing_parts(&metas) {
        warn(&format!(
            "warning: part {missing} of the plan is missing: the merged run is a share of its load, not all of it"
        ));
    }
    // First the merged facts (every label's name, in the order the intervals number them),
    // then the intervals again, written as they come: memory stays flat however long the runs.
    // Every second where the runs (and so the merged run) keep them; past that, their finest
    // roll-up's lines (the merged run's writer rolls them up again). Both passes read the same
    // lines, so labels are met in the same order.
    let layout = merge::layout_for(&metas);
    let grain = merge::grain_for(&layout);
    let first = merge::read_many(dirs, grain, |_, _| {})?;
    let mut writer = RunWriter::create_with(place, &first.meta, &plan_of(dirs), layout)?;
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

/// The plan as the runs ran it: one plan's, or each run's after a comment naming its directory.
fn plan_of(dirs: &[&Path]) -> String {
    let plans: Vec<String> =
        dirs.iter().map(|d| std::fs::read_to_string(d.join(rundir::PLAN)).unwrap_or_default()).collect();
    if plans.iter().all(|p| *p == plans[0]) {
        return plans[0].clone();
    }
    dirs.iter().zip(&plans).map(|(d, p)| format!("# {}\n---\n{p}", d.display())).collect::<Vec<_>>().join("\n")
}

/// The goals a run keeps (`meta.json`'s thresholds), read again; `origin` names the run when
/// one does not read.
pub(crate) fn kept_goals(texts: &[String], origin: &str) -> Result<Vec<Threshold>, Error> {
    texts
        .iter()
        .map(|t| threshold::parse(t).map_err(|error| Error::Goal { origin: origin.to_string(), error }))
        .collect()
}

/// Judges a merged run's goals (its parts', which name `origin` when one does not read) and
/// `more` on its merged numbers.
fn judge(run: &mut rundir::reader::Run, more: &[Threshold], origin: &Path) -> Result<(), Error> {
    let mut goals = kept_goals(&run.meta.thresholds, &origin.display().to_string())?;
    // The same goal with and without `abort` (agents judge none live: the controller does) is
    // one goal, as the plan has it.
    let judged_alike =
        |a: &Threshold, b: &Threshold| Threshold { abort: None, ..a.clone() } == Threshold { abort: None, ..b.clone() };
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
    run.summary.thresholds = super::judge::evaluate(&goals, &run.summary);
    Ok(())
}
