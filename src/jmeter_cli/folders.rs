//! The folders a JMeter command line names: the report's (`-o`, checked and emptied as JMeter
//! does) and the run directory claimed for the run.

use super::Error;
use std::path::{Path, PathBuf};

/// JMeter's check of a report folder: new, or empty; it is made (parents too).
fn report_folder(dir: &Path) -> Result<(), Error> {
    if dir.is_file() {
        return Err(Error(format!("cannot write to '{}' as it is not a folder", dir.display())));
    }
    if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
        return Err(Error(format!(
            "cannot write to '{}' as folder is not empty (give another -o, or -f to delete it first, as JMeter)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error(format!("cannot make the report folder {}: {e}", dir.display())))
}

/// `-f -o DIR`: deletes what is in the report folder, not the folder (as JMeter's
/// `canSafelyWriteToFolder`), and refuses a folder that is or holds the working directory, the
/// runs (the folder of `run_base`, where this run's directory goes), or one of `kept` (the
/// plan, the results file): `-o .` or `-o runs` would delete them.
fn empty_report_folder(dir: &Path, kept: &[&Path], run_base: &Path) -> Result<(), Error> {
    if !dir.is_dir() {
        return Ok(());
    }
    let o = absolute(dir);
    let runs = run_base.parent().map(absolute);
    let cwd = absolute(Path::new("."));
    let held = std::iter::once(("the working directory", cwd.clone()))
        .chain(runs.clone().map(|r| ("the runs directory", r)))
        .chain(kept.iter().map(|k| ("a file of this command line", absolute(k))))
        .find(|(_, p)| p.starts_with(&o))
        .or_else(|| {
            // Inside the runs directory is inside a run: a run never overwrites another.
            runs.filter(|r| !cwd.starts_with(r) && o.starts_with(r)).map(|r| ("the runs directory", r))
        });
    if let Some((what, p)) = held {
        return Err(Error(format!(
            "-f -o {}: not deleting it, it is or holds {what} ({}): give a folder of its own for the report",
            dir.display(),
            p.display()
        )));
    }
    let cannot = |e: std::io::Error| Error(format!("could not delete the report folder {}: {e}", dir.display()));
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let path = entry.path();
        if entry.file_type().map_err(cannot)?.is_dir() {
            std::fs::remove_dir_all(&path).map_err(cannot)?;
        } else {
            std::fs::remove_file(&path).map_err(cannot)?;
        }
    }
    Ok(())
}

/// `p` absolute with its links resolved as far as it exists (a results file yet to be made).
fn absolute(p: &Path) -> PathBuf {
    let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut rest = Vec::new();
    let mut at = p.as_path();
    loop {
        if let Ok(real) = at.canonicalize() {
            return rest.iter().rev().fold(real, |acc, c| acc.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return p,
        }
    }
}

/// A new directory `base` (under `runs/`) for the run, claimed now so that its name is known for `-e`
/// (the same names `run` gives: `runs/<timestamp>`, then `-2`, `-3`...).
pub(super) fn claim_run_dir(base: &Path) -> Result<PathBuf, Error> {
    if let Some(parent) = base.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error(format!("cannot make {}: {e}", parent.display())))?;
    }
    for n in 1..=10_000u32 {
        let dir = if n == 1 { base.to_path_buf() } else { PathBuf::from(format!("{}-{n}", base.display())) };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error(format!("cannot make {}: {e}", dir.display()))),
        }
    }
    Err(Error(format!("no free run directory name after {}", base.display())))
}

/// Makes the report folder ready as JMeter does, before any load: emptied first with `-f`
/// (`kept` are the command line's files), then checked new or empty, and made.
pub(super) fn prepare(dir: &Path, force: bool, kept: &[&Path], run_base: &Path) -> Result<(), Error> {
    if force {
        empty_report_folder(dir, kept, run_base)?;
    }
    report_folder(dir)
}
