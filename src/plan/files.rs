//! The files a loaded plan reads, and the set a distributed run ships to its agents (issue 33).
//!
//! What a plan reads is what its loading opened (CSV Data Sets, bodies and uploads from files,
//! script files, `__CSVRead`/`__FileToString`/`__StringFromFile` of names known at load, TLS
//! files, included plans): [`crate::confine`] notes each file as the loaders name and open it, so
//! this list is the readers' own and cannot drift from them. A file is placed where the plan's
//! text reaches it (`../data/ids.csv` from `plans/` is `data/ids.csv` beside `plans/`), with the
//! contents of the file it resolves to: an agent, which has no links, then reads under the same
//! names what the controller read. Names made while the plan runs (from variables) cannot be
//! known here: a distributed run sends the plan's whole directory besides ([`Folder::PlansOwn`]),
//! as it always did, and `--ship DIR` adds a folder.

use super::Plan;
use crate::confine::{normalize, PlanDir};
use std::path::{Component, Path, PathBuf};

/// A file a plan reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlanFile {
    /// Where the plan's text reaches it: absolute, `.` and `..` applied to the text.
    pub at: PathBuf,
    /// The file it resolves to (every link followed): what is read.
    pub real: PathBuf,
}

impl PlanFile {
    /// The file at `path` as its text reaches it.
    fn at(path: &Path) -> PlanFile {
        let at = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
        let real = crate::confine::resolve(&at).unwrap_or_else(|_| at.clone());
        PlanFile { at, real }
    }
}

impl Plan {
    /// The plan file itself first, then every file its loading read (each once, in the order
    /// read), under each name the plan reaches it by. Files that were not there are left out:
    /// elsewhere they are missing just the same.
    pub(crate) fn files_read(&self) -> Vec<PlanFile> {
        let mut out: Vec<PlanFile> = self.source.iter().map(|s| PlanFile::at(s)).collect();
        let mut add = |f: PlanFile| {
            if !out.iter().any(|o| o.at == f.at) && std::fs::symlink_metadata(&f.real).is_ok() {
                out.push(f);
            }
        };
        let opened = self.reads.opened.iter().map(|p| p.as_path());
        // The plan also records some of what it reads: a reader that did not say so is kept.
        let kept = self.data.iter().map(|d| d.path.as_path());
        let tls = [&self.tls.ca, &self.tls.client_cert, &self.tls.client_key].into_iter().flatten();
        for path in opened.chain(kept).chain(tls.map(|p| p.as_path())) {
            let file = PlanFile::at(path);
            let by_name: Vec<&(PathBuf, PathBuf)> = self.reads.named.iter().filter(|(_, r)| *r == file.real).collect();
            if by_name.is_empty() {
                add(file);
            }
            for (at, real) in by_name {
                add(PlanFile { at: at.clone(), real: real.clone() });
            }
        }
        out
    }
}

/// A file a step opens each time it runs (an HTTP Raw Request's file, a Raw Data Source, an FTP
/// upload's local file), named by constant text: noted as read, for the loading does not open
/// it and a distributed run must still ship it.
pub(crate) fn read_when_run(dir: &PlanDir, name: &super::Template) {
    if let Some(name) = name.as_const().filter(|n| !n.is_empty()) {
        if let Ok(real) = dir.named(Path::new(name)) {
            crate::confine::note_read(&real);
        }
    }
}

/// The deepest directory that holds every path of `paths` (absolute, `..` applied); `/` when
/// they share nothing more.
pub(crate) fn common_root<'a>(paths: impl IntoIterator<Item = &'a Path>) -> PathBuf {
    let mut root: Option<Vec<Component<'a>>> = None;
    for p in paths {
        let parts: Vec<Component<'a>> = p.components().collect();
        root = Some(match root {
            None => parts,
            Some(r) => r.iter().zip(&parts).take_while(|(a, b)| a == b).map(|(a, _)| *a).collect(),
        });
    }
    let root: PathBuf = root.unwrap_or_default().into_iter().collect();
    if root.as_os_str().is_empty() {
        PathBuf::from("/")
    } else {
        root
    }
}

/// The files a distributed run sends: the plan and what it reads, under the deepest directory
/// that holds them all, each at its place relative to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shipment {
    /// The common root on this machine (absolute): an agent reads an absolute name under it
    /// from its copy (see [`crate::confine::moved`]).
    pub root: PathBuf,
    /// The plan, relative to the root, `/`-separated.
    pub plan: String,
    pub files: Vec<Shipped>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shipped {
    /// Relative to the root, `/`-separated.
    pub path: String,
    /// What is read.
    pub real: PathBuf,
    pub len: u64,
}

impl Shipment {
    /// The plan's files and `extra` ones (the folders of `--ship`), but not those of `never`
    /// (the agents' token). Every file that cannot be read, or is over `cap` bytes, is named in
    /// the refusal, all at once; so are all of them when together they weigh more than `cap`.
    pub(crate) fn new(plan: &Plan, extra: Vec<PlanFile>, never: &[PathBuf], cap: u64) -> Result<Shipment, ShipError> {
        let files: Vec<PlanFile> = plan.files_read().into_iter().chain(extra).collect();
        let Some(source) = files.first().filter(|_| plan.source.is_some()) else {
            return Err(ShipError::NoPlanFile);
        };
        let dir = source.at.parent().unwrap_or(Path::new("/")).to_path_buf();
        let root =
            common_root(std::iter::once(dir.as_path()).chain(files.iter().map(|f| f.at.parent().unwrap_or(&f.at))));
        let plan_path = relative(&root, &source.at).ok_or_else(|| ShipError::NotUtf8(source.at.clone()))?;
        let never: Vec<PathBuf> =
            never.iter().map(|p| crate::confine::resolve(p).unwrap_or_else(|_| p.clone())).collect();
        let mut refused = Vec::new();
        let mut shipped: Vec<Shipped> = Vec::new();
        for f in files {
            if never.contains(&f.real) || shipped.iter().any(|s| root.join(&s.path) == f.at) {
                continue;
            }
            let Some(path) = relative(&root, &f.at) else {
                refused.push(format!("{}: its name is not UTF-8", f.at.display()));
                continue;
            };
            let len = crate::confine::open(&f.real, crate::confine::Access::Read).and_then(|h| h.metadata());
            match len {
                Ok(m) if m.len() > cap => {
                    refused.push(format!("{}: {}, over the {} a run may send", f.at.display(), mib(m.len()), mib(cap)))
                }
                Ok(m) => shipped.push(Shipped { path, real: f.real, len: m.len() }),
                Err(e) => refused.push(format!("{}: cannot be read: {e}", f.at.display())),
            }
        }
        let total: u64 = shipped.iter().map(|s| s.len).sum();
        if refused.is_empty() && total > cap {
            let mut big: Vec<&Shipped> = shipped.iter().collect();
            big.sort_by_key(|s| std::cmp::Reverse(s.len));
            for s in big.iter().take_while(|s| s.len * 20 >= cap).take(10) {
                refused.push(format!("{}: {}", root.join(&s.path).display(), mib(s.len)));
            }
            refused.insert(
                0,
                format!("together {} files weigh {}, over the {} a run may send", shipped.len(), mib(total), mib(cap)),
            );
        }
        if !refused.is_empty() {
            return Err(ShipError::Refused(refused));
        }
        Ok(Shipment { root, plan: plan_path, files: shipped })
    }
}

/// Why a plan's files cannot be sent to agents.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ShipError {
    #[error("a plan read from a file is needed to send it to agents")]
    NoPlanFile,
    #[error("{}: not a UTF-8 name", .0.display())]
    NotUtf8(PathBuf),
    /// Every file refused, each with its path and why, all at once.
    #[error("cannot send the plan's files to the agents:\n  {}", .0.join("\n  "))]
    Refused(Vec<String>),
}

/// A folder whose files are sent: one `--ship` names, or the plan's own directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Folder {
    /// `--ship DIR`: what the user chose to send, so a link leading out of it, or a file that
    /// is no regular file, is refused.
    Chosen,
    /// The plan's directory, sent whole for the names a plan makes only while it runs
    /// (`bodies/${id}.json`). What the plan could not read there anyway stays behind: a link
    /// leading out of it ([`crate::confine`] refuses it when the plan reads), and what is no
    /// regular file (a FIFO, a socket).
    PlansOwn,
}

/// Whether `dir` is the user's home directory: never sent whole.
pub(crate) fn is_home(dir: &Path) -> bool {
    let resolve = crate::confine::resolve;
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .is_some_and(|home| resolve(Path::new(&home)).ok() == resolve(PlanDir::new(dir).path()).ok())
}

/// The files under `dir`, each at its place: hidden files and folders, and folders `skip`
/// names (run directories), stay behind. For [`Folder::Chosen`], a link leading out of `dir`
/// is refused, as the plan's own links are ([`crate::confine`]), and so is the home directory.
pub(crate) fn files_under(
    dir: &Path,
    folder: Folder,
    skip: impl Fn(&Path) -> bool,
) -> Result<Vec<PlanFile>, Vec<String>> {
    let base = PlanDir::new(dir);
    if folder == Folder::Chosen && is_home(dir) {
        return Err(vec![format!(
            "--ship {}: your home directory, all of which would be sent to the agents: name the folder the plan needs",
            dir.display()
        )]);
    }
    let (mut files, mut refused) = (Vec::new(), Vec::new());
    let mut stack = vec![base.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) => {
                refused.push(format!("{}: cannot be read: {e}", d.display()));
                continue;
            }
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let at = e.path();
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let real = match (base.confine(&at), folder) {
                (Ok(r), _) => r,
                (Err(_), Folder::PlansOwn) => continue,
                (Err(err), Folder::Chosen) => {
                    refused.push(format!("--ship {}: {err}", dir.display()));
                    continue;
                }
            };
            match std::fs::metadata(&real) {
                Ok(m) if m.is_dir() => {
                    if !skip(&real) {
                        stack.push(at);
                    }
                }
                Ok(m) if folder == Folder::PlansOwn && !m.is_file() => {}
                _ => files.push(PlanFile { at, real }),
            }
        }
    }
    if refused.is_empty() {
        Ok(files)
    } else {
        Err(refused)
    }
}

/// `path` relative to `root`, `/`-separated; `None` when a name is not UTF-8.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Option<Vec<&str>> =
        rel.components().filter(|c| matches!(c, Component::Normal(_))).map(|c| c.as_os_str().to_str()).collect();
    parts.map(|p| p.join("/"))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn root(names: &[&str]) -> PathBuf {
        common_root(names.iter().map(Path::new))
    }

    #[test]
    fn the_common_root_is_the_deepest_directory_holding_them_all() {
        assert_eq!(root(&["/repo/scenarios", "/repo/testdata"]), Path::new("/repo"));
        assert_eq!(root(&["/repo/scenarios", "/repo/scenarios/sub"]), Path::new("/repo/scenarios"));
        assert_eq!(root(&["/repo/scenarios"]), Path::new("/repo/scenarios"));
        // An absolute path elsewhere: only `/` holds both.
        assert_eq!(root(&["/home/u/repo/plans", "/data"]), Path::new("/"));
        // Components, not text: `/repo` does not hold `/repository`.
        assert_eq!(root(&["/repo/a", "/repository/b"]), Path::new("/"));
    }

    /// A plan in `plans/` of a fresh directory, and a data directory beside it.
    fn tree(name: &str) -> PathBuf {
        let tmp = std::fs::canonicalize(std::env::temp_dir()).unwrap();
        let dir = tmp.join(format!("stampede-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("plans/sub")).unwrap();
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("data/ids.csv"), "id\n1\n2\n").unwrap();
        std::fs::write(dir.join("plans/sub/body.json"), "{}").unwrap();
        std::fs::write(dir.join("plans/sub/more.csv"), "id\n3\n").unwrap();
        dir
    }

    fn yaml(dir: &Path, plan: &str, data: &str) -> Plan {
        let text = format!(
            "name: p\ndata:\n  - file: {data}\nscenarios:\n  - name: s\n    workload: {{users: 1, iterations: 1}}\n    flow:\n      - request: {{url: \"http://127.0.0.1:1/${{id}}\", body_file: sub/body.json}}\n"
        );
        std::fs::write(dir.join(plan), text).unwrap();
        Plan::load(&dir.join(plan), &Default::default()).unwrap()
    }

    fn placed(s: &Shipment) -> Vec<&str> {
        let mut p: Vec<&str> = s.files.iter().map(|f| f.path.as_str()).collect();
        p.sort();
        p
    }

    #[test]
    fn a_file_reached_by_dotdot_is_shipped_beside_the_plans_directory() {
        let dir = tree("dotdot");
        let plan = yaml(&dir, "plans/p.yaml", "../data/ids.csv");
        let s = Shipment::new(&plan, Vec::new(), &[], 1 << 20).unwrap();
        assert_eq!(s.root, dir);
        assert_eq!(s.plan, "plans/p.yaml");
        assert_eq!(placed(&s), ["data/ids.csv", "plans/p.yaml", "plans/sub/body.json"]);
        // Named absolute, the same file at the same place.
        let plan = yaml(&dir, "plans/p.yaml", &dir.join("data/ids.csv").display().to_string());
        assert_eq!(placed(&Shipment::new(&plan, Vec::new(), &[], 1 << 20).unwrap())[0], "data/ids.csv");
        // Alone in its directory, the plan's directory is the root.
        let plan = yaml(&dir, "plans/q.yaml", "sub/more.csv");
        let s = Shipment::new(&plan, Vec::new(), &[], 1 << 20).unwrap();
        assert_eq!((s.root.as_path(), s.plan.as_str()), (dir.join("plans").as_path(), "q.yaml"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn links_place_a_file_where_the_plan_names_it_and_ship_what_it_leads_to() {
        let dir = tree("links");
        // A link inside the plan's directory to a file inside it: at the link's name.
        symlink(dir.join("plans/sub/body.json"), dir.join("plans/linked.csv")).unwrap();
        std::fs::write(dir.join("plans/sub/body.json"), "id\n7\n").unwrap();
        let plan = yaml(&dir, "plans/p.yaml", "linked.csv");
        let s = Shipment::new(&plan, Vec::new(), &[], 1 << 20).unwrap();
        // Every file is in the plan's directory, which is the root.
        assert_eq!(placed(&s), ["linked.csv", "p.yaml", "sub/body.json"]);
        let linked = s.files.iter().find(|f| f.path == "linked.csv").unwrap();
        assert_eq!(linked.real, dir.join("plans/sub/body.json"));
        // The plan's directory reached through a link: placed as named, read where it leads.
        symlink(dir.join("plans"), dir.join("via")).unwrap();
        let plan = Plan::load(&dir.join("via/p.yaml"), &Default::default()).unwrap();
        let s = Shipment::new(&plan, Vec::new(), &[], 1 << 20).unwrap();
        assert_eq!(s.plan, "p.yaml");
        assert_eq!(s.root, dir.join("via"));
        assert_eq!(s.files[0].real, dir.join("plans/p.yaml"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_agent_reads_an_absolute_name_under_the_controllers_root_from_its_copy() {
        // The agent's copy: `dir`; the controller's root, which this machine does not have.
        let dir = tree("moved");
        let from = Path::new("/nonexistent-controller-root");
        let abs = from.join("data/ids.csv").display().to_string();
        let plan = crate::confine::moved(from, &dir, || yaml(&dir, "plans/p.yaml", &abs));
        assert_eq!(plan.data[0].path, dir.join("data/ids.csv"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_file_a_sampler_opens_as_it_runs_is_read_by_the_plan() {
        let dir = tree("runs");
        std::fs::write(dir.join("data/raw.txt"), "GET / HTTP/1.0\r\n\r\n").unwrap();
        let jmx = r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3"><hashTree>
<TestPlan testclass="TestPlan" testname="p" enabled="true"/><hashTree>
<ThreadGroup testclass="ThreadGroup" testname="g" enabled="true">
  <elementProp name="ThreadGroup.main_controller" elementType="LoopController"><stringProp name="LoopController.loops">1</stringProp></elementProp>
  <stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>
<kg.apc.jmeter.samplers.HTTPRawSampler testclass="kg.apc.jmeter.samplers.HTTPRawSampler" testname="raw" enabled="true">
  <stringProp name="hostname">127.0.0.1</stringProp><stringProp name="port">1</stringProp>
  <stringProp name="fileName">../data/raw.txt</stringProp>
</kg.apc.jmeter.samplers.HTTPRawSampler><hashTree/>
</hashTree></hashTree></hashTree></jmeterTestPlan>"#;
        std::fs::write(dir.join("plans/raw.jmx"), jmx).unwrap();
        let plan = Plan::load(&dir.join("plans/raw.jmx"), &Default::default()).unwrap();
        let s = Shipment::new(&plan, Vec::new(), &[], 1 << 20).unwrap();
        assert_eq!(placed(&s), ["data/raw.txt", "plans/raw.jmx"]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn every_file_over_the_cap_or_unreadable_is_named_at_once() {
        let dir = tree("refused");
        let plan = yaml(&dir, "plans/p.yaml", "../data/ids.csv");
        std::fs::write(dir.join("data/big"), vec![b'x'; 300]).unwrap();
        let c = std::ffi::CString::new(dir.join("data/fifo").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let extra = files_under(&dir.join("data"), Folder::Chosen, |_| false).unwrap();
        let e = Shipment::new(&plan, extra.clone(), &[], 200).unwrap_err();
        assert!(matches!(&e, ShipError::Refused(r) if r.len() == 2), "{e}");
        let e = e.to_string();
        assert!(e.contains("data/big: 0.0 MiB, over the 0.0 MiB"), "{e}");
        assert!(e.contains("data/fifo: cannot be read") && e.contains("not a regular file"), "{e}");
        // Each small enough, too many together: the biggest are named.
        let e = Shipment::new(&plan, extra[..1].to_vec(), &[], 301).unwrap_err().to_string();
        assert!(e.contains("over the") && e.contains("data/big"), "{e}");
        // The token stays behind.
        let s = Shipment::new(&plan, Vec::new(), &[dir.join("data/ids.csv")], 1 << 20).unwrap();
        assert_eq!(placed(&s), ["plans/p.yaml", "plans/sub/body.json"]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_plans_own_directory_is_sent_whole_but_links_leading_out_and_fifos_stay_behind() {
        let dir = tree("own");
        std::fs::write(dir.join("plans/.secret"), "s").unwrap();
        std::fs::create_dir_all(dir.join("plans/run/x")).unwrap();
        std::fs::write(dir.join("plans/run/x").join(crate::rundir::META), "{}").unwrap();
        symlink(dir.join("data/ids.csv"), dir.join("plans/out.csv")).unwrap();
        symlink(dir.join("plans/sub/more.csv"), dir.join("plans/in.csv")).unwrap();
        let c = std::ffi::CString::new(dir.join("plans/fifo").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let own = files_under(&dir.join("plans"), Folder::PlansOwn, |d| d.join(crate::rundir::META).exists()).unwrap();
        let plan = yaml(&dir, "plans/p.yaml", "../data/ids.csv");
        let s = Shipment::new(&plan, own, &[], 1 << 20).unwrap();
        // `sub/more.csv` is read by no step: sent for a name made while the plan runs.
        assert_eq!(
            placed(&s),
            ["data/ids.csv", "plans/in.csv", "plans/p.yaml", "plans/sub/body.json", "plans/sub/more.csv"]
        );
        // The same folder chosen with --ship: the link leading out is refused.
        assert!(files_under(&dir.join("plans"), Folder::Chosen, |_| false).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_shipped_folder_leaves_hidden_files_and_refuses_links_leading_out() {
        let dir = tree("folder");
        std::fs::write(dir.join("plans/.secret"), "s").unwrap();
        let mut got: Vec<PathBuf> =
            files_under(&dir.join("plans"), Folder::Chosen, |_| false).unwrap().into_iter().map(|f| f.at).collect();
        got.sort();
        assert_eq!(got, [dir.join("plans/sub/body.json"), dir.join("plans/sub/more.csv")]);
        assert!(files_under(&dir.join("plans"), Folder::Chosen, |d| d.ends_with("sub")).unwrap().is_empty());
        symlink(dir.join("data/ids.csv"), dir.join("plans/out.csv")).unwrap();
        let e = files_under(&dir.join("plans"), Folder::Chosen, |_| false).unwrap_err();
        assert!(e[0].contains("outside the plan's directory"), "{e:?}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
