//! What loading a plan reads, and where a distributed run's shipped files stand for the
//! controller's.
//!
//! Every file a plan reads while it loads is opened through [`super::open`] or named through
//! [`super::PlanDir`]; noting it there, for the loading thread only, is what lets the controller
//! of a distributed run ship exactly those files (`Plan::files_read`) without a second reader of
//! plans that would drift from the first. A plan loads on one thread, without awaiting, so a
//! thread-local scope holds all of it and nothing of another thread's load.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The controller's root and where it stands on this agent (see [`moved`]).
pub(super) type Move = Arc<(PathBuf, PathBuf)>;

thread_local! {
    static READS: RefCell<Option<Reads>> = const { RefCell::new(None) };
    static MOVED: RefCell<Option<Move>> = const { RefCell::new(None) };
}

/// The files one load named and read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Reads {
    /// Each name resolved: where its text leads (absolute, `.` and `..` applied to the text),
    /// and the file it resolved to (no link left).
    pub named: Vec<(PathBuf, PathBuf)>,
    /// Each path opened to read, as it was opened.
    pub opened: Vec<PathBuf>,
}

/// Puts back what was there when it was made, however the scope ends.
struct Restore<T: 'static> {
    key: &'static std::thread::LocalKey<RefCell<Option<T>>>,
    old: Option<Option<T>>,
}

impl<T> Drop for Restore<T> {
    fn drop(&mut self) {
        let old = self.old.take().flatten();
        self.key.with(|c| *c.borrow_mut() = old);
    }
}

/// Runs `f` (a plan's loading) and gives what it read besides its result. A scope inside
/// another notes into its own, not the outer one's.
pub(crate) fn recording<T>(f: impl FnOnce() -> T) -> (T, Reads) {
    let old = READS.with(|c| c.borrow_mut().replace(Reads::default()));
    let restore = Restore { key: &READS, old: Some(old) };
    let out = f();
    let reads = READS.with(|c| c.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    (out, reads)
}

/// Notes that `path` was opened to read (a reader that does not open through [`super::open`]
/// says so itself).
pub(crate) fn note_read(path: &Path) {
    READS.with(|c| {
        if let Some(r) = c.borrow_mut().as_mut() {
            r.opened.push(path.to_path_buf());
        }
    });
}

pub(super) fn note_named(written: &Path, real: &Path) {
    READS.with(|c| {
        if let Some(r) = c.borrow_mut().as_mut() {
            r.named.push((written.to_path_buf(), real.to_path_buf()));
        }
    });
}

/// Runs `f` (an agent loading a plan it was sent) with the controller's root `from` standing at
/// `to`: an absolute path the plan names under `from` is read under `to`, where the controller
/// shipped it, never from the agent machine's own `from`. Each [`super::PlanDir`] made meanwhile
/// keeps the move, so that names made while the plan runs, long after this scope, move too.
pub(crate) fn moved<T>(from: &Path, to: &Path, f: impl FnOnce() -> T) -> T {
    let old = MOVED.with(|c| c.borrow_mut().replace(Arc::new((from.to_path_buf(), to.to_path_buf()))));
    let _restore = Restore { key: &MOVED, old: Some(old) };
    f()
}

/// The move of the loading under way, if any.
pub(super) fn current() -> Option<Move> {
    MOVED.with(|c| c.borrow().clone())
}

/// An absolute `path` as the loading under way reads it (see [`moved`]).
pub(crate) fn moved_path(path: &Path) -> PathBuf {
    MOVED.with(|c| move_by(c.borrow().as_deref(), path))
}

/// An absolute `path` with the move `by` applied: its text made whole (`.` and `..` applied)
/// first, so that `/root/../etc/x` is not taken for a path under `/root`; one already under the
/// new place stays.
pub(super) fn move_by(by: Option<&(PathBuf, PathBuf)>, path: &Path) -> PathBuf {
    let Some((from, to)) = by.filter(|(from, _)| path.is_absolute() && from.is_absolute()) else {
        return path.to_path_buf();
    };
    let text = super::normalize(path);
    // Already there: the agent's own directory may lie under the controller's root (both on
    // one machine).
    if text.starts_with(to) {
        return path.to_path_buf();
    }
    match text.strip_prefix(from) {
        Ok(rest) => to.join(rest),
        Err(_) => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_holds_what_its_scope_read_and_nothing_outside_it() {
        note_read(Path::new("/before"));
        let ((), outer) = recording(|| {
            note_read(Path::new("/a"));
            let ((), inner) = recording(|| note_read(Path::new("/b")));
            assert_eq!(inner.opened, [PathBuf::from("/b")]);
            note_named(Path::new("/c"), Path::new("/real/c"));
        });
        note_read(Path::new("/after"));
        assert_eq!(outer.opened, [PathBuf::from("/a")]);
        assert_eq!(outer.named, [(PathBuf::from("/c"), PathBuf::from("/real/c"))]);
        let other = std::thread::spawn(|| recording(|| ()).1).join().unwrap();
        assert_eq!(other, Reads::default());
    }

    #[test]
    fn only_absolute_paths_under_the_moved_root_move() {
        let to = Path::new("/job/files");
        moved(Path::new("/repo"), to, || {
            assert_eq!(moved_path(Path::new("/repo/data/ids.csv")), to.join("data/ids.csv"));
            assert_eq!(moved_path(Path::new("/repo/x/../data/ids.csv")), to.join("data/ids.csv"));
            assert_eq!(moved_path(Path::new("/repo/../etc/passwd")), Path::new("/repo/../etc/passwd"));
            assert_eq!(moved_path(Path::new("/repository/x")), Path::new("/repository/x"));
            assert_eq!(moved_path(Path::new("data/ids.csv")), Path::new("data/ids.csv"));
        });
        assert_eq!(moved_path(Path::new("/repo/data/ids.csv")), Path::new("/repo/data/ids.csv"));
        let to = Path::new("/repo/agent/job-1/files");
        moved(Path::new("/repo"), to, || {
            assert_eq!(moved_path(&to.join("plans/x.csv")), to.join("plans/x.csv"));
            assert_eq!(moved_path(Path::new("/repo/plans/x.csv")), to.join("plans/x.csv"));
        });
    }
}
