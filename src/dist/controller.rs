//! The controller of a run on several agents ([`Agents`], a [`Remote`] of the run layer): sends
//! each agent its part of the plan, starts them together, keeps each agent's run directory as it
//! streams in (the run's `agents/`), and merges their intervals second by second as they arrive,
//! as `merge` would. The merged seconds go to the run ([`crate::run::Run::on`]), whose outputs
//! (the run directory, the progress line, `--watch`, `--export`) and goals take them as they take
//! a local engine's: a controller that dies leaves a run that reads. Nothing here prints: what
//! the user should hear goes to the run as a [`Report::Notice`].

use super::link::{self, AgentLink, Gathering, Heard};
use super::protocol::{self, Job};
use crate::engine::Outcome;
use crate::plan::Plan;
use crate::run::{Failure, Remote, RemoteEnd, Report, Signals};
use crate::rundir::merge::LiveMerge;
use crate::rundir::{self, RunMeta};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// How the controller finds its agents.
pub(crate) enum Reach {
    /// `--agents`: dials each address (over TLS when given).
    Dial { addresses: Vec<String>, tls: Option<tokio_rustls::TlsConnector> },
    /// `--listen-agents`: waits on `listener` for `count` agents to join, at most `wait`.
    Listen { listener: tokio::net::TcpListener, tls: Option<tokio_rustls::TlsAcceptor>, count: usize, wait: Duration },
}

/// Reaches the agents, each proving `token`; `heard` hears of each that joins (and of what came
/// to nothing). `None` when `stop` (Ctrl-C) came while agents were awaited.
pub(crate) async fn reach(
    reach: Reach,
    token: &str,
    stop: &CancellationToken,
    heard: impl Fn(Gathering<'_>),
) -> Result<Option<Vec<AgentLink>>, protocol::Error> {
    match reach {
        Reach::Dial { addresses, tls } => {
            let mut links = Vec::new();
            for address in &addresses {
                links.push(dial(address, token, tls.as_ref()).await?);
            }
            Ok(Some(links))
        }
        Reach::Listen { listener, tls, count, wait } => {
            match link::gather(listener, token, tls, count, wait, stop, heard).await {
                Err(_) if stop.is_cancelled() => Ok(None),
                other => other.map(Some),
            }
        }
    }
}

/// Connects to one agent; one flooded with connections may drop a greeting: a few more tries.
async fn dial(
    address: &str,
    token: &str,
    tls: Option<&tokio_rustls::TlsConnector>,
) -> Result<AgentLink, protocol::Error> {
    let mut tries = 0;
    loop {
        match link::connect(address, token, tls).await {
            Err(protocol::Error::Closed(_)) if tries < 3 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(prefixed(e)),
            other => return other,
        }
    }
}

/// An agent's error as the user reads it: "agent ADDRESS: ...".
fn prefixed(e: protocol::Error) -> protocol::Error {
    match e {
        protocol::Error::Refused(m) => protocol::Error::Refused(format!("agent {m}")),
        protocol::Error::Protocol(m) => protocol::Error::Protocol(format!("agent {m}")),
        protocol::Error::Unreachable(m) => protocol::Error::Unreachable(format!("agent {m}")),
        protocol::Error::Closed(m) => protocol::Error::Closed(format!("agent {m}")),
        e => e,
    }
}

/// A run's agents, reached and about to be sent their job: the [`Remote`] that carries the run
/// out. The run directory is the run's own; each agent's directory is kept under its `agents/`.
pub(crate) struct Agents {
    links: Vec<AgentLink>,
    job: Job,
    dir: PathBuf,
    abort_on_loss: bool,
    samples: SampleFiles,
    ready: Option<Ready>,
}

/// Called once every agent has accepted the job, before the start: an error stops them all.
pub(crate) type Ready = Box<dyn FnOnce() -> Result<(), String> + Send>;

impl Agents {
    /// The agents of `links`, to run `job` into the run directory `dir`; with `abort_on_loss`,
    /// one lost stops the others. `samples` are the results files written from the rows the
    /// agents send back ([`SampleFiles::open`], before any agent is reached).
    pub(crate) fn new(
        links: Vec<AgentLink>,
        job: Job,
        dir: &Path,
        abort_on_loss: bool,
        samples: SampleFiles,
    ) -> Agents {
        Agents { links, job, dir: dir.to_path_buf(), abort_on_loss, samples, ready: None }
    }

    /// Calls `ready` once every agent has accepted the job (a `--replace` then clears the old run).
    pub(crate) fn when_ready(self, ready: Ready) -> Agents {
        Agents { ready: Some(ready), ..self }
    }

    /// Each agent's directory name under the run's `agents/`: `I-HOST`.
    fn names(&self) -> Vec<String> {
        let name = |l: &AgentLink| safe(if l.host.is_empty() { &l.address } else { &l.host }).to_string();
        self.links.iter().enumerate().map(|(i, l)| format!("{}-{}", i + 1, name(l))).collect()
    }

    async fn run(
        self,
        plan: Arc<Plan>,
        meta: RunMeta,
        signals: Signals,
        reports: UnboundedSender<Report>,
    ) -> Result<RemoteEnd, String> {
        let n = self.links.len();
        let names = self.names();
        let kept = self.dir.join("agents");
        let dirs: Vec<PathBuf> = names.iter().map(|name| kept.join(name)).collect();
        let live = Arc::new(Mutex::new(Live::new(&meta, names.clone(), reports.clone())));
        let samples = Arc::new(Mutex::new(self.samples));
        let stops = link::Stops { interrupt: signals.shutdown.child_token(), finish: signals.stop.clone() };
        let claim = {
            let (dirs, ready) = (dirs.clone(), self.ready);
            move || -> Result<Vec<PathBuf>, String> {
                // The folder first: one that cannot be made leaves the old run where it was.
                std::fs::create_dir_all(&kept).map_err(|e| format!("cannot make {}: {e}", kept.display()))?;
                super::agent::private(&kept);
                ready.map_or(Ok(()), |ready| ready())?;
                Ok(dirs)
            }
        };
        let progress: link::Progress = {
            let (live, samples) = (live.clone(), samples.clone());
            Arc::new(move |i, heard: Heard<'_>| match heard {
                Heard::Samples(rows) => lock(&samples).write(rows),
                heard => lock(&live).hear(i, heard),
            })
        };
        let rows_asked = self.job.samples;
        let once = link::Once::of(&plan, self.job.data_split);
        if self.job.data_split && link::Once::reads_split_data(&plan) {
            let _ = reports.send(Report::Notice(
                "note: setUp reads data files split across agents: it runs on every agent, on its own rows".into(),
            ));
        }
        let ends = link::control(self.links, self.job, claim, stops, self.abort_on_loss, progress, once)
            .await
            .map_err(|e| e.to_string())?;
        let mut failures = Vec::new();
        for e in ends.iter().filter(|e| e.lost.is_some()) {
            let why = e.lost.as_deref().unwrap_or_default();
            // Lost after its summary came, its part is whole (the lost record says so too), but
            // for the results rows it may still have been sending.
            if whole_though_lost(&e.dir, rows_asked) {
                let _ = reports.send(Report::Notice(format!(
                    "warning: agent {} was lost after its part ended ({why}): its part is whole",
                    e.address
                )));
                continue;
            }
            let lost = format!("agent {} was lost: {why}; what it sent until then is kept and counted", e.address);
            let _ = reports.send(Report::Notice(format!("warning: {lost}")));
            failures.push(Failure { output: "run on agents".into(), error: lost.into() });
            mark_lost(&e.dir, &e.address, why);
        }
        let merge = lock(&live).drain();
        // What the figures miss of the agents lost, kept beside them (every report reads it).
        let lost =
            merge.lost_record(|i| (ends[i].address.clone(), Path::new("agents").join(&names[i]).display().to_string()));
        if let Some(lost) = &lost {
            if let Err(e) = rundir::lost::write(&self.dir, lost) {
                let _ = reports
                    .send(Report::Notice(format!("warning: the record of the lost agents was not written: {e}")));
            }
        }
        let parts = parts(&dirs, &names, &ends, &reports);
        if parts.is_empty() {
            return Err("no agent sent anything".into());
        }
        let complete = parts.len() == n && dirs.iter().all(|d| d.join(rundir::SUMMARY).exists());
        let mut merged = merge.finish(&parts, complete);
        for (p, (i, _, _)) in merged.meta.parts.iter_mut().zip(&parts) {
            p.agent = Some(ends[*i].address.clone());
        }
        if let Some(why) = lock(&samples).finish() {
            failures.push(Failure { output: crate::run::JtlOutput::NAME.into(), error: why.into() });
        }
        let outcome = Outcome {
            interrupted: signals.shutdown.is_cancelled(),
            elapsed_us: merged.meta.duration_s.map_or(0, |s| (s * 1e6) as u64),
            // A goal that stopped the run says so itself (the run's); a part's reason otherwise.
            stopped_by: merged.meta.stopped_by.clone().filter(|_| !signals.stop.is_cancelled()),
            warnings: Vec::new(),
        };
        Ok(RemoteEnd { outcome, merged, failures })
    }
}

impl Remote for Agents {
    fn execute(
        self: Box<Self>,
        plan: Arc<Plan>,
        meta: RunMeta,
        signals: Signals,
        reports: UnboundedSender<Report>,
    ) -> Pin<Box<dyn Future<Output = Result<RemoteEnd, String>> + Send>> {
        Box::pin(self.run(plan, meta, signals, reports))
    }
}

/// A lost agent's run directory says so, and so does the merged run's list of parts.
fn mark_lost(dir: &Path, address: &str, why: &str) {
    if let Ok(mut meta) = rundir::reader::read_meta(dir) {
        meta.status = rundir::Status::Interrupted;
        meta.stopped_by = Some(format!("agent {address} lost: {why}"));
        let _ = rundir::writer::write_json(&dir.join(rundir::META), &meta);
    }
}

/// The parts that sent their facts: index, directory (as the merged run names it), final meta.
fn parts(
    dirs: &[PathBuf],
    names: &[String],
    ends: &[link::AgentEnd],
    reports: &UnboundedSender<Report>,
) -> Vec<(usize, String, RunMeta)> {
    let mut parts = Vec::new();
    for (i, (d, name)) in dirs.iter().zip(names).enumerate() {
        match rundir::reader::read_meta(d) {
            Ok(meta) => parts.push((i, Path::new("agents").join(name).display().to_string(), meta)),
            Err(rundir::Error::NotARun(_)) => {}
            // Its lines are in the totals; only its facts are missing from the list of parts.
            Err(e) => {
                let _ = reports.send(Report::Notice(format!("warning: agent {}: {e}", ends[i].address)));
            }
        }
    }
    parts
}

/// What the agents have streamed so far, merged as it comes; each merged second goes to the
/// run as soon as every part has passed it.
struct Live {
    merge: LiveMerge,
    /// The run's facts at the start, for the empty merge left behind by [`Live::drain`].
    meta: RunMeta,
    parts: usize,
    /// Each part's directory name under `agents/`, as its own intervals are reported.
    names: Vec<String>,
    reports: UnboundedSender<Report>,
    /// The common start was reported.
    began: bool,
    /// A lagging agent was said.
    said_lag: bool,
    /// Which parts have ended, and whether the run was told they all have.
    ended: Vec<bool>,
    said_ended: bool,
}

impl Live {
    fn new(meta: &RunMeta, names: Vec<String>, reports: UnboundedSender<Report>) -> Live {
        let parts = names.len();
        let merge = LiveMerge::new(meta, parts);
        let _ = reports.send(Report::Generators { of: parts, lost: 0 });
        let ended = vec![false; parts];
        Live {
            merge,
            meta: meta.clone(),
            parts,
            names,
            reports,
            began: false,
            said_lag: false,
            ended,
            said_ended: false,
        }
    }

    fn hear(&mut self, i: usize, heard: Heard<'_>) {
        match heard {
            Heard::Meta(meta) => self.merge.meta(i, meta),
            Heard::Line(line) => match self.merge.add(i, line) {
                Ok(part) => {
                    let (name, interval) = (self.names[i].clone(), Box::new(part));
                    let _ = self.reports.send(Report::Part { agent: i, name, interval });
                }
                Err(e) => self.notice(format!("warning: agent {}: an interval that does not read: {e}", i + 1)),
            },
            Heard::Ended => {
                self.merge.end(i);
                self.ended[i] = true;
            }
            Heard::Lost(why) => {
                self.merge.lost(i, why);
                let lost = self.merge.lost_count();
                let _ = self.reports.send(Report::Generators { of: self.parts, lost });
            }
            Heard::Samples(_) => {}
        }
        self.pass_on();
    }

    /// Reports the common start once known, and the seconds merged so far.
    fn pass_on(&mut self) {
        if let Some(origin) = self.merge.origin().filter(|_| !self.began) {
            self.began = true;
            let _ = self.reports.send(Report::Began(std::time::SystemTime::from(origin)));
        }
        // Before the seconds it releases: those merged once every part has ended end the run.
        if !self.said_ended && self.ended.iter().all(|e| *e) {
            self.said_ended = true;
            let _ = self.reports.send(Report::Ended);
        }
        for iv in self.merge.ready() {
            let _ = self.reports.send(Report::Interval(Box::new(iv)));
        }
        if let Some(i) = self.merge.lagging.filter(|_| !self.said_lag) {
            self.said_lag = true;
            self.notice(format!(
                "warning: agent {} is far behind the others (its clock, or a stall): the run's log goes on without it, its late seconds counted in later ones",
                i + 1
            ));
        }
    }

    fn notice(&self, text: String) {
        let _ = self.reports.send(Report::Notice(text));
    }

    /// Every part has ended: the last seconds, and the merge to finish.
    fn drain(&mut self) -> LiveMerge {
        for i in 0..self.parts {
            self.merge.end(i);
            self.ended[i] = true;
        }
        self.pass_on();
        std::mem::replace(&mut self.merge, LiveMerge::new(&self.meta, 0))
    }
}

/// The results files of a run on agents, written from the rows they send back, as JMeter's
/// master writes its listeners' files.
pub(crate) struct SampleFiles {
    files: Vec<(PathBuf, std::io::BufWriter<std::fs::File>)>,
    failed: Option<String>,
}

impl SampleFiles {
    /// Opens each file to append to it, with JMeter's header when it is new or empty: before
    /// any agent is reached, so a path that cannot be written is said before anything is sent
    /// or claimed.
    pub(crate) fn open(paths: &[PathBuf]) -> Result<SampleFiles, SampleFileError> {
        use std::io::Write as _;
        let mut files = Vec::new();
        for p in paths {
            let cannot = |source| SampleFileError { path: p.clone(), source };
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(cannot)?;
            }
            let f = std::fs::OpenOptions::new().create(true).append(true).open(p).map_err(cannot)?;
            let empty = f.metadata().map(|m| m.len() == 0).unwrap_or(true);
            let mut w = std::io::BufWriter::new(f);
            if empty {
                writeln!(w, "{}", rundir::jtl::HEADER).map_err(cannot)?;
            }
            files.push((p.clone(), w));
        }
        Ok(SampleFiles { files, failed: None })
    }

    fn write(&mut self, rows: &str) {
        use std::io::Write as _;
        for (p, w) in &mut self.files {
            if let Err(e) = w.write_all(rows.as_bytes()) {
                self.failed.get_or_insert(format!("cannot write {}: {e}", p.display()));
            }
        }
    }

    /// Flushes the files; why one is incomplete, if it is.
    fn finish(&mut self) -> Option<String> {
        use std::io::Write as _;
        for (p, w) in &mut self.files {
            if let Err(e) = w.flush() {
                self.failed.get_or_insert(format!("cannot write {}: {e}", p.display()));
            }
        }
        self.failed.take()
    }
}

/// A results file that cannot be opened to append the agents' rows to.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the results file {}: {source}", path.display())]
pub(crate) struct SampleFileError {
    path: PathBuf,
    source: std::io::Error,
}

/// Takes back a run directory a run on agents claimed but measured nothing into (the agents
/// failed before the start, or none sent anything): its run files and its agents' empty copies
/// (a user's own files in an `--out` stay). A run whose agents sent something keeps it: false.
pub(crate) fn abandon(dir: &Path) -> bool {
    let kept = dir.join("agents");
    let copies = std::fs::read_dir(&kept).into_iter().flatten().flatten();
    if copies.map(|c| c.path()).any(|c| sent_anything(&c)) {
        return false;
    }
    for f in rundir::run_files() {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let _ = std::fs::remove_dir_all(kept);
    let _ = std::fs::remove_dir(dir);
    true
}

/// Whether an agent's copy holds what it sent: its facts, or a line of its log. Its copy is
/// made (empty log files) as the run starts, before the agent has sent anything.
fn sent_anything(copy: &Path) -> bool {
    copy.join(rundir::META).exists()
        || std::fs::read_dir(copy)
            .into_iter()
            .flatten()
            .flatten()
            .any(|f| f.metadata().is_ok_and(|m| m.is_file() && m.len() > 0))
}

/// Whether an agent lost is a part whole all the same: its summary came (its load ended and
/// every line before it), and no results rows were asked of it, which it may still have been
/// sending.
fn whole_though_lost(copy: &Path, rows_asked: bool) -> bool {
    !rows_asked && copy.join(rundir::SUMMARY).exists()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A name safe as a directory name.
fn safe(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A results file under something that is no directory: a typed error naming it (#34).
    #[test]
    fn a_results_file_that_cannot_be_opened_is_named() {
        let Err(e) = SampleFiles::open(&[PathBuf::from("/dev/null/out.jtl")]) else { panic!("opened") };
        let SampleFileError { path, .. } = &e;
        assert_eq!(path, Path::new("/dev/null/out.jtl"));
        assert!(e.to_string().starts_with("cannot open the results file /dev/null/out.jtl: "), "{e}");
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stampede-controller-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_run_whose_agents_sent_nothing_is_taken_back_though_their_copies_were_made() {
        let dir = scratch("abandon-empty");
        std::fs::write(dir.join(rundir::META), "{}").unwrap();
        // Each copy as the run's start makes it: empty log files, no facts.
        for copy in ["1-a", "2-b"] {
            std::fs::create_dir_all(dir.join("agents").join(copy)).unwrap();
            std::fs::write(dir.join("agents").join(copy).join(rundir::INTERVALS), "").unwrap();
        }
        assert!(abandon(&dir));
        assert!(!dir.exists());
    }

    #[test]
    fn a_run_whose_agent_sent_a_line_or_its_facts_is_kept() {
        for (name, file, text) in [("abandon-line", rundir::INTERVALS, "{}\n"), ("abandon-meta", rundir::META, "{}")] {
            let dir = scratch(name);
            std::fs::write(dir.join(rundir::META), "{}").unwrap();
            std::fs::create_dir_all(dir.join("agents/1-a")).unwrap();
            std::fs::create_dir_all(dir.join("agents/2-b")).unwrap();
            std::fs::write(dir.join("agents/2-b").join(file), text).unwrap();
            assert!(!abandon(&dir), "{name}");
            assert!(dir.join("agents/2-b").join(file).exists(), "{name}");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn an_agent_lost_after_its_summary_is_whole_unless_rows_were_asked() {
        let dir = scratch("lost-whole");
        assert!(!whole_though_lost(&dir, false));
        std::fs::write(dir.join(rundir::SUMMARY), "{}").unwrap();
        assert!(whole_though_lost(&dir, false));
        assert!(!whole_though_lost(&dir, true));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
