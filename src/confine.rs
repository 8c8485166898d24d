//! The one rule for where a plan's files may lead: a path inside the plan's directory stays
//! inside once every symbolic link in it is followed.
//!
//! A plan may name any file outright (a CSV Data Set at `/data/users.csv`, `../shared/x.csv`):
//! that is its author's choice, visible in the plan, and JMeter reads it. What it may not do is
//! reach outside through a link planted in its directory (`users.csv -> ~/.ssh/id_rsa`,
//! `data -> /`), which the plan's text does not show. Scripts, and paths only known at run time,
//! are held tighter: they reach only what resolves under the plan's directory, or the very files
//! the plan's elements name.
//!
//! Paths are resolved here component by component, as the kernel resolves them (a `..` after a
//! link climbs from the link's target), without needing the last components to exist, so a file
//! not yet written under a linked directory (`linkdir/new.csv`) is judged by where it would be
//! created, and a dangling link by where it points. A path this module resolved has no link left
//! in it; [`open`] opens it without following a link put in its place since.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

mod record;
pub(crate) use record::{moved, moved_path, note_read, recording, Reads};

/// More links than this in one path is a loop (Linux's own limit).
const MAX_LINKS: usize = 40;

/// The plan's directory: as the plan was named, and with its links resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PlanDir {
    /// Absolute, not resolved: what paths the plan writes are compared with.
    given: PathBuf,
    /// Every link resolved: what a resolved path must stay under.
    real: PathBuf,
    /// On an agent, the controller's root and where its files were shipped, as the plan loaded
    /// (see [`moved`]): kept here, for a name made while the plan runs is joined long after the
    /// loading's scope has ended.
    moved: Option<record::Move>,
}

/// A path refused: it lies inside the plan's directory as written but leads outside it, or it
/// cannot be resolved at all.
#[derive(Debug, Clone)]
pub(crate) struct Escape {
    pub requested: PathBuf,
    /// Where it leads (`None`: it could not be resolved, and `cause` says why).
    pub leads_to: Option<PathBuf>,
    /// Why it could not be resolved (a loop of links, a `..` after a missing directory, ...).
    pub cause: Option<std::sync::Arc<io::Error>>,
    pub dir: PathBuf,
}

impl fmt::Display for Escape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.leads_to {
            Some(real) => write!(
                f,
                "`{}` leads to {}, outside the plan's directory {} (through a symbolic link or `..`)",
                self.requested.display(),
                real.display(),
                self.dir.display()
            ),
            None => write!(
                f,
                "`{}` cannot be resolved inside the plan's directory {}: {}",
                self.requested.display(),
                self.dir.display(),
                self.cause.as_ref().map_or_else(|| "unknown error".to_string(), |e| e.to_string())
            ),
        }
    }
}

impl std::error::Error for Escape {}

/// Shown (a plan's dump) as the directory it was named by.
impl serde::Serialize for PlanDir {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.given.serialize(s)
    }
}

impl PlanDir {
    /// The directory `dir` (empty: the working directory).
    pub(crate) fn new(dir: &Path) -> PlanDir {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        let given = normalize(&std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
        let real = resolve(&given).unwrap_or_else(|_| given.clone());
        PlanDir { given, real, moved: record::current() }
    }

    /// The directory of the plan file `plan` (as JMeter's FileServer base directory).
    pub(crate) fn of_plan(plan: &Path) -> PlanDir {
        PlanDir::new(plan.parent().unwrap_or(Path::new("")))
    }

    /// The directory, absolute, as given.
    pub(crate) fn path(&self) -> &Path {
        &self.given
    }

    /// `path` (relative to the directory) made absolute, not resolved.
    pub(crate) fn join(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            // On an agent, where the controller's files were shipped (see `record::moved`).
            match &self.moved {
                Some(m) => record::move_by(Some(m), path),
                None => moved_path(path),
            }
        } else {
            self.given.join(path)
        }
    }

    /// A path that must stay inside: the path with every link resolved, which lies under the
    /// resolved directory, or the refusal. For scripts and for paths known only at run time.
    pub(crate) fn confine(&self, path: &Path) -> Result<PathBuf, Escape> {
        let full = self.join(path);
        let escape =
            |leads_to, cause| Escape { requested: path.to_path_buf(), leads_to, cause, dir: self.given.clone() };
        match resolve(&full) {
            Ok(real) if real.starts_with(&self.real) => {
                record::note_named(&normalize(&full), &real);
                Ok(real)
            }
            Ok(real) => Err(escape(Some(real), None)),
            Err(e) => Err(escape(None, Some(std::sync::Arc::new(e)))),
        }
    }

    /// A path the plan names as text: where it is written inside the directory it must stay
    /// inside once resolved ([`PlanDir::confine`]'s path); written outside (absolute, or
    /// climbing out with `..`), it is the author's choice, given back resolved, provided it
    /// leads where its text says: the kernel applies a `..` after following a link, so
    /// `l/../../u/.ssh/id_rsa` with `l -> /home/u/.ssh` reads like a path outside yet climbs
    /// from the link's target, which is an escape through the link.
    pub(crate) fn named(&self, path: &Path) -> Result<PathBuf, Escape> {
        let full = self.join(path);
        let text = normalize(&full);
        if text.starts_with(&self.given) || text.starts_with(&self.real) {
            return self.confine(path);
        }
        let escape =
            |leads_to, cause| Escape { requested: path.to_path_buf(), leads_to, cause, dir: self.given.clone() };
        let real = resolve(&full).map_err(|e| escape(None, Some(std::sync::Arc::new(e))))?;
        match resolve(&text) {
            Ok(as_written) if as_written == real => {
                record::note_named(&text, &real);
                Ok(real)
            }
            _ => Err(escape(Some(real), None)),
        }
    }

    /// Whether a resolved path lies under the resolved directory.
    pub(crate) fn holds(&self, real: &Path) -> bool {
        real.starts_with(&self.real)
    }
}

/// How a resolved path is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    /// Created if missing, written at the end.
    Append,
    /// Created if missing, emptied.
    Write,
}

/// Opens a path [`PlanDir::confine`] resolved. Its last component is not followed if it has
/// become a link since it was resolved (`O_NOFOLLOW`); the directories above it were resolved.
/// Only a regular file is opened: a FIFO or a device would block the open (or every read) for
/// ever, so the open does not wait (`O_NONBLOCK`) and anything else is refused.
pub(crate) fn open(real: &Path, access: Access) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let mut o = std::fs::OpenOptions::new();
    if access == Access::Read {
        note_read(real);
    }
    match access {
        Access::Read => o.read(true),
        Access::Append => o.create(true).append(true),
        Access::Write => o.create(true).write(true).truncate(true),
    };
    let f = o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(real).map_err(|e| {
        // A FIFO with no reader refuses a non-blocking writer with ENXIO: say what it is.
        if e.raw_os_error() == Some(libc::ENXIO) {
            not_regular(real)
        } else {
            e
        }
    })?;
    if !f.metadata()?.file_type().is_file() {
        return Err(not_regular(real));
    }
    // Regular files ignore O_NONBLOCK; cleared all the same so the handle behaves as any other.
    // SAFETY: `f` owns a valid descriptor for the duration of both calls.
    unsafe {
        let fd = f.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(f)
}

fn not_regular(p: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a regular file", p.display()))
}

/// The path `p` names with every symbolic link in it followed and `.`/`..` applied as the
/// kernel applies them (`..` climbs from a link's target). Components that do not exist are
/// kept as written, so a file still to be created resolves. Where the kernel would fail the
/// path, so does this: a loop of links, a `..` after a missing component (`NotFound`), anything
/// after a non-directory (`ENOTDIR`). Applying such a `..` to the text instead would let
/// `nothing/../linkdir/x` resolve to `linkdir/x` unresolved, which a later open follows.
pub(crate) fn resolve(p: &Path) -> io::Result<PathBuf> {
    let p = std::path::absolute(p)?;
    let mut out = PathBuf::from("/");
    // The components still to walk, last first.
    let mut todo: Vec<OsString> = Vec::new();
    push_components(&mut todo, &p);
    let mut links = 0;
    let mut missing = false;
    let mut not_dir = false;
    while let Some(c) = todo.pop() {
        if not_dir {
            let kind = io::Error::from_raw_os_error(libc::ENOTDIR).kind();
            return Err(io::Error::new(kind, format!("`{}` is not a directory", out.display())));
        }
        match c.to_str() {
            Some(".") => continue,
            Some("..") if missing => {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("`..` after `{}`, which does not exist", out.display()),
                ));
            }
            Some("..") => {
                out.pop();
                continue;
            }
            _ => {}
        }
        let next = out.join(&c);
        if missing {
            out = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(io::Error::other("too many levels of symbolic links"));
                }
                let target = std::fs::read_link(&next)?;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_components(&mut todo, &target);
            }
            Ok(m) => {
                not_dir = !m.is_dir();
                out = next;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing = true;
                out = next;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// Pushes `p`'s components so that the first is popped first (`/` and prefixes dropped).
fn push_components(todo: &mut Vec<OsString>, p: &Path) {
    let parts: Vec<OsString> = p
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_os_string()),
            Component::CurDir => Some(".".into()),
            Component::ParentDir => Some("..".into()),
            Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    todo.extend(parts.into_iter().rev());
}

/// `a/./b/../c` → `a/c`, on the text alone.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A plan directory and a directory outside it, both fresh.
    fn dirs(name: &str) -> (PathBuf, PathBuf, PlanDir) {
        // Resolved, so that paths under it compare equal to what `confine` gives.
        let tmp = std::fs::canonicalize(std::env::temp_dir()).unwrap();
        let root = tmp.join(format!("stampede-confine-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (plan, outside) = (root.join("plan"), root.join("outside"));
        std::fs::create_dir_all(plan.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), "secret").unwrap();
        std::fs::write(plan.join("in.txt"), "in").unwrap();
        std::fs::write(plan.join("sub/deep.txt"), "deep").unwrap();
        let d = PlanDir::new(&plan);
        (root, outside, d)
    }

    #[test]
    fn links_that_lead_out_of_the_plans_directory_are_refused() {
        let (root, outside, d) = dirs("out");
        let plan = d.path().to_path_buf();
        symlink(outside.join("secret.txt"), plan.join("file-link")).unwrap();
        symlink(&outside, plan.join("dir-link")).unwrap();
        symlink(outside.join("nothing-yet"), plan.join("dangling")).unwrap();
        symlink("../outside/secret.txt", plan.join("relative-link")).unwrap();
        symlink("sub/..", plan.join("here")).unwrap();
        for p in [
            "file-link",
            "dir-link/secret.txt",
            "dir-link/new.csv",
            "dir-link",
            "dangling",
            "relative-link",
            "../outside/secret.txt",
            "sub/../../outside/secret.txt",
            "here/../outside/secret.txt",
        ] {
            let e = d.confine(Path::new(p)).unwrap_err();
            assert!(e.to_string().contains("outside the plan's directory"), "{p}: {e}");
        }
        let abs = plan.join("file-link");
        assert!(d.confine(&abs).is_err(), "an absolute path through the link");
        assert_eq!(d.confine(Path::new("dangling")).unwrap_err().leads_to, Some(outside.join("nothing-yet")));
        // Named by the plan inside its directory: the same refusal.
        assert!(d.named(Path::new("file-link")).is_err());
        assert!(d.named(Path::new("dir-link/new.csv")).is_err());
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn links_and_dots_that_stay_inside_are_followed() {
        let (root, outside, d) = dirs("in");
        let plan = d.path().to_path_buf();
        symlink(plan.join("sub/deep.txt"), plan.join("to-deep")).unwrap();
        symlink("sub", plan.join("sub-link")).unwrap();
        assert_eq!(d.confine(Path::new("in.txt")).unwrap(), plan.join("in.txt"));
        assert_eq!(d.confine(Path::new("to-deep")).unwrap(), plan.join("sub/deep.txt"));
        assert_eq!(d.confine(Path::new("sub-link/deep.txt")).unwrap(), plan.join("sub/deep.txt"));
        assert_eq!(d.confine(Path::new("sub-link/new.csv")).unwrap(), plan.join("sub/new.csv"));
        assert_eq!(d.confine(Path::new("./sub/../in.txt")).unwrap(), plan.join("in.txt"));
        assert_eq!(d.confine(Path::new("not-yet.csv")).unwrap(), plan.join("not-yet.csv"));
        assert_eq!(d.confine(&plan.join("in.txt")).unwrap(), plan.join("in.txt"));
        // What the plan names outside its directory is its author's choice, as written.
        let there = outside.join("secret.txt");
        assert_eq!(d.named(&there).unwrap(), there);
        assert_eq!(d.named(Path::new("../outside/secret.txt")).unwrap(), there);
        assert!(d.confine(&there).is_err());
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_plan_directory_made_on_an_agent_moves_absolute_names_joined_after_the_load() {
        // The agent's copy of the controller's root `/controller-root`: `root/plan` is its
        // `plan/`. The directory is made while the plan loads; names are joined as it runs.
        let (root, outside, _) = dirs("moved-later");
        let from = Path::new("/nonexistent-controller-root");
        let d = moved(from, &root, || PlanDir::new(&root.join("plan")));
        let name = from.join("plan/sub/deep.txt");
        assert_eq!(d.join(&name), root.join("plan/sub/deep.txt"));
        assert_eq!(d.confine(&name).unwrap(), root.join("plan/sub/deep.txt"));
        assert_eq!(d.named(&name).unwrap(), root.join("plan/sub/deep.txt"));
        // Outside the plan's directory, or climbing out of the root: refused as before.
        assert!(d.confine(&from.join("outside/secret.txt")).is_err());
        assert!(d.confine(&from.join("../etc/passwd")).is_err());
        assert_eq!(d.join(&outside), outside, "a name not under the controller's root stays");
        // Made outside any load: nothing moves.
        assert_eq!(PlanDir::new(&root.join("plan")).join(&name), name);
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_plan_directory_reached_through_a_link_is_still_the_plans() {
        let (root, _outside, d) = dirs("via");
        let via = root.join("via");
        symlink(d.path(), &via).unwrap();
        let v = PlanDir::new(&via);
        assert_eq!(v.confine(Path::new("in.txt")).unwrap(), d.path().join("in.txt"));
        assert!(v.named(Path::new("sub/deep.txt")).is_ok());
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn issue31_a_dotdot_after_a_missing_or_non_directory_component_is_refused() {
        let (root, outside, d) = dirs("missing");
        let plan = d.path().to_path_buf();
        symlink(&outside, plan.join("dir-link")).unwrap();
        for p in ["nothing/../dir-link/secret.txt", "in.txt/x/../../dir-link/secret.txt", "in.txt/x", "in.txt/.."] {
            let e = d.confine(Path::new(p)).unwrap_err();
            assert_eq!(e.leads_to, None, "{p}");
            assert!(!e.to_string().contains("loop"), "{p}: {e}");
            assert!(d.named(Path::new(p)).is_err(), "{p}");
        }
        let e = d.confine(Path::new("nothing/../dir-link/secret.txt")).unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
        let e = d.confine(Path::new("in.txt/x")).unwrap_err().to_string();
        assert!(e.contains("not a directory"), "{e}");
        // A file still to be created under a missing directory still resolves (opening fails).
        assert_eq!(d.confine(Path::new("nothing/new.csv")).unwrap(), plan.join("nothing/new.csv"));
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn issue31_a_dotdot_through_a_link_is_not_taken_for_a_path_written_outside() {
        let (root, outside, d) = dirs("climb");
        let plan = d.path().to_path_buf();
        std::fs::create_dir_all(outside.join("u/.ssh")).unwrap();
        std::fs::write(outside.join("u/.ssh/id_rsa"), "key").unwrap();
        symlink(outside.join("u/.ssh"), plan.join("l")).unwrap();
        // Normalised as text: `plan/../u/.ssh/id_rsa`, i.e. `root/u/.ssh/id_rsa`, "outside";
        // the kernel reads `outside/u/.ssh/id_rsa` through the link.
        let e = d.named(Path::new("l/../../u/.ssh/id_rsa")).unwrap_err();
        assert_eq!(e.leads_to, Some(outside.join("u/.ssh/id_rsa")), "{e}");
        assert!(d.named(Path::new("l/../../../outside/u/.ssh/id_rsa")).is_err());
        // Written outside and leading there: the author's choice, resolved.
        assert_eq!(d.named(Path::new("../outside/u/.ssh/id_rsa")).unwrap(), outside.join("u/.ssh/id_rsa"));
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn issue31_a_fifo_or_device_is_refused_without_blocking() {
        let (root, _outside, d) = dirs("fifo");
        let fifo = d.path().join("users.csv");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for access in [Access::Read, Access::Append, Access::Write] {
            let e = open(&fifo, access).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{access:?}: {e}");
        }
        assert!(open(Path::new("/dev/null"), Access::Read).unwrap_err().to_string().contains("not a regular file"));
        assert!(open(d.path(), Access::Read).is_err(), "a directory");
        assert_eq!(std::io::read_to_string(open(&d.path().join("in.txt"), Access::Read).unwrap()).unwrap(), "in");
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_loop_of_links_is_refused_and_open_does_not_follow_a_last_link() {
        let (root, outside, d) = dirs("loop");
        let plan = d.path().to_path_buf();
        symlink(plan.join("b"), plan.join("a")).unwrap();
        symlink(plan.join("a"), plan.join("b")).unwrap();
        let e = d.confine(Path::new("a")).unwrap_err();
        assert_eq!(e.leads_to, None);
        assert!(e.to_string().contains("too many levels of symbolic links"), "{e}");
        symlink(outside.join("secret.txt"), plan.join("swapped")).unwrap();
        assert!(open(&plan.join("swapped"), Access::Append).is_err());
        assert!(open(&plan.join("swapped"), Access::Read).is_err());
        assert_eq!(std::fs::read_to_string(outside.join("secret.txt")).unwrap(), "secret");
        let mut f = open(&plan.join("new.txt"), Access::Append).unwrap();
        io::Write::write_all(&mut f, b"x").unwrap();
        assert_eq!(std::fs::read_to_string(plan.join("new.txt")).unwrap(), "x");
        let _ = std::fs::remove_dir_all(root);
    }
}
