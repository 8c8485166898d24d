//! The run a `--replace` on agents replaces, set aside in a hidden folder of its directory
//! until every agent has accepted the job: then it goes; an agent that refuses the job (a
//! wrong token, a plan it cannot load) puts it back, as if nothing had been asked.

use super::Say;
use crate::dist::controller::Ready;
use crate::error::Error;
use crate::rundir;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where the old run waits, in its own directory (hidden: never shipped, never read as a run).
const ASIDE: &str = ".stampede-replaced";

/// The old run's files, moved out of the way of the new one.
pub(super) struct Aside {
    dir: PathBuf,
    moved: Vec<String>,
}

/// An aside the run and the agents' ready point share: whichever comes first takes it.
pub(super) type Held = Arc<Mutex<Option<Aside>>>;

impl Aside {
    /// Moves the run files of `dir` (and its agents' copies) aside. A folder left by a
    /// controller that died in between may hold the only copy of a run (the new one never
    /// started): refused, for the user to say which run to keep.
    pub(super) fn take(dir: &Path) -> Result<Held, Error> {
        let kept = dir.join(ASIDE);
        let io = |what: String| move |source| Error::Io { what, source };
        if std::fs::symlink_metadata(&kept).is_ok() {
            let why = format!(
                "it holds a run an earlier `--replace` set aside and did not finish with: move its files back into {} to keep that run, or delete it, then run again",
                dir.display()
            );
            return Err(io(format!("{} is left over", kept.display()))(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                why,
            )));
        }
        let mut aside = Aside { dir: dir.to_path_buf(), moved: Vec::new() };
        for name in rundir::run_files().into_iter().chain(["agents".to_string()]) {
            let from = dir.join(&name);
            if std::fs::symlink_metadata(&from).is_err() {
                continue;
            }
            if aside.moved.is_empty() {
                std::fs::create_dir(&kept).map_err(io(format!("cannot make {}", kept.display())))?;
            }
            if let Err(e) = std::fs::rename(&from, kept.join(&name)) {
                aside.put_back();
                return Err(io(format!("cannot move {} aside", from.display()))(e));
            }
            aside.moved.push(name);
        }
        Ok(Arc::new(Mutex::new(Some(aside))))
    }

    /// Moves the old run back where it was; what cannot be is left in the hidden folder.
    fn put_back(&self) -> Vec<String> {
        let kept = self.dir.join(ASIDE);
        let mut left = Vec::new();
        for name in &self.moved {
            let to = self.dir.join(name);
            if std::fs::symlink_metadata(&to).is_ok() || std::fs::rename(kept.join(name), &to).is_err() {
                left.push(name.clone());
            }
        }
        if left.is_empty() {
            let _ = std::fs::remove_dir(&kept);
        }
        left
    }

    /// The old run goes: renamed out of the way at once (a later `--replace` finds no leftover),
    /// deleted on a thread of its own (gigabytes of a long run must not hold up the start).
    fn discard(self) {
        let kept = self.dir.join(ASIDE);
        let gone = self.dir.join(format!("{ASIDE}.gone-{}", std::process::id()));
        let doomed = if std::fs::rename(&kept, &gone).is_ok() { gone } else { kept };
        std::thread::spawn(move || {
            let _ = std::fs::remove_dir_all(doomed);
        });
    }
}

fn take(held: &Option<Held>) -> Option<Aside> {
    held.as_ref().and_then(|h| h.lock().unwrap_or_else(|e| e.into_inner()).take())
}

/// Whether the old run is still set aside (the agents have not all accepted the job).
pub(super) fn held(held: &Option<Held>) -> bool {
    held.as_ref().is_some_and(|h| h.lock().unwrap_or_else(|e| e.into_inner()).is_some())
}

/// The old run goes once every agent has accepted the job (the controller's ready point).
pub(super) fn when_ready(held: &Option<Held>) -> Option<Ready> {
    let held = held.clone()?;
    Some(Box::new(move || {
        if let Some(aside) = take(&Some(held)) {
            aside.discard();
        }
        Ok(())
    }))
}

/// The new run did not start (its directory already taken back): the old one returns, unless
/// the agents accepted the job and it is gone already.
pub(super) fn restore(held: &Option<Held>, say: Option<&Say>) {
    let Some(aside) = take(held) else { return };
    let left = aside.put_back();
    if let (false, Some(say)) = (left.is_empty(), say) {
        say(&format!(
            "warning: the run replaced could not be put back whole: {} are in {}",
            left.join(", "),
            aside.dir.join(ASIDE).display()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stampede-aside-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("agents/1-a")).unwrap();
        std::fs::write(dir.join(rundir::META), "old").unwrap();
        std::fs::write(dir.join("agents/1-a").join(rundir::META), "old part").unwrap();
        std::fs::write(dir.join("notes.txt"), "the user's").unwrap();
        dir
    }

    #[test]
    fn a_run_set_aside_comes_back_whole_when_the_new_one_does_not_start() {
        let dir = scratch("back");
        let held = Some(Aside::take(&dir).unwrap());
        assert!(!dir.join(rundir::META).exists() && !dir.join("agents").exists());
        assert!(dir.join("notes.txt").exists());
        restore(&held, None);
        assert_eq!(std::fs::read_to_string(dir.join(rundir::META)).unwrap(), "old");
        assert_eq!(std::fs::read_to_string(dir.join("agents/1-a").join(rundir::META)).unwrap(), "old part");
        assert!(!dir.join(ASIDE).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_run_set_aside_goes_once_the_agents_are_ready_and_is_not_restored() {
        let dir = scratch("gone");
        let held = Some(Aside::take(&dir).unwrap());
        (when_ready(&held).unwrap())().unwrap();
        assert!(!dir.join(ASIDE).exists());
        restore(&held, None);
        assert!(!dir.join(rundir::META).exists() && dir.join("notes.txt").exists());
        // Deleted on a thread of its own: gone soon after.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let left = || std::fs::read_dir(&dir).unwrap().flatten().any(|e| e.file_name() != "notes.txt");
        while left() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!left(), "the old run is deleted");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_run_left_aside_by_a_controller_that_died_is_kept_and_the_replace_refused_naming_it() {
        let dir = scratch("left");
        // A controller SIGKILLed after it set the old run aside: the only copy of that run.
        std::fs::create_dir(dir.join(ASIDE)).unwrap();
        std::fs::rename(dir.join(rundir::META), dir.join(ASIDE).join(rundir::META)).unwrap();
        let e = Aside::take(&dir).err().expect("refused").to_string();
        assert!(e.contains(ASIDE) && e.contains("move its files back") && e.contains("delete it"), "{e}");
        assert_eq!(std::fs::read_to_string(dir.join(ASIDE).join(rundir::META)).unwrap(), "old");
        assert!(dir.join("agents/1-a").join(rundir::META).exists(), "nothing moved");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
