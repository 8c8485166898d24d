//! `run --watch`: the system under test's resources, sampled every second beside the load and
//! written to the run directory's `watch.jsonl` ([`crate::rundir::watch`]), where reports and
//! `compare` read them. This module owns the sources (what `--watch` accepts), reading each
//! one, and the [`WatchOutput`] that samples them on a thread of its own during a run.
//!
//! # Layout
//! - this file: [`Source`] (parsing and display, secrets masked), [`Watcher`] (one source's
//!   reading and what it keeps between samples), [`WatchOutput`];
//! - `procfs`: a process's figures from `/proc`;
//! - `exposition`: Prometheus' text format, for `scrape:`;
//! - `promql`: Prometheus' query API, for `promql:`;
//! - `http`: the blocking `GET` both use, with one deadline.
//!
//! A source that cannot be read is written as `error` (or, a process, `gone`) with the reason,
//! never as zeros; reading never touches the load: the sampler is its own thread, a URL's host
//! is resolved once before the run (within [`RESOLVE_TIMEOUT`]), every HTTP exchange ends
//! within [`HTTP_TIMEOUT`], and the run's end waits at most [`FINAL_SAMPLE_TIMEOUT`] for the
//! last sample.

mod exposition;
mod http;
mod procfs;
mod promql;

use crate::run::{End, Output, OutputError, Start};
use crate::rundir::watch::{State, WatchLine, WatchWriter, MAX_SERIES};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest a scrape or a query may take, connection to last byte: well under the sampling
/// interval, so one slow source delays the others' next sample by less than a second.
pub(crate) const HTTP_TIMEOUT: Duration = Duration::from_millis(800);

/// The longest a source's host name may take to resolve, before the run: past it the source
/// is reported failed for the run.
pub(crate) const RESOLVE_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest the run's end waits for the last sample: past it the sampler is left to itself
/// and the watch log says the last sample is missing, and why. A slow source's sample under
/// way when the run ends, then its last one: two timeouts, and a margin for a busy machine.
pub(crate) const FINAL_SAMPLE_TIMEOUT: Duration = Duration::from_millis(2 * HTTP_TIMEOUT.as_millis() as u64 + 500);

/// How often the sources are sampled.
pub(crate) const INTERVAL: Duration = Duration::from_secs(1);

/// The shortest span a CPU figure is measured over.
const MIN_CPU_SPAN: Duration = Duration::from_millis(500);

/// One `--watch` source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Source {
    /// `pid:N`: one process.
    Pid(u32),
    /// `proc:NAME`: every process of that name, summed; found again at every sample.
    Proc(String),
    /// `scrape:URL`: a Prometheus exposition endpoint.
    Scrape(url::Url),
    /// `promql:NAME=QUERY@URL`: a query to a Prometheus server, its value recorded as `NAME`.
    Promql { name: String, query: String, server: url::Url },
}

impl Source {
    /// What the source's URL sends as credentials (`user:password@`), in every form.
    fn credentials(&self) -> crate::redact::Secrets {
        match self {
            Source::Scrape(u) | Source::Promql { server: u, .. } => crate::redact::userinfo_secrets(u),
            Source::Pid(_) | Source::Proc(_) => Default::default(),
        }
    }

    /// Reads `--watch`'s value. The message says what is wrong and what the forms are.
    pub(crate) fn parse(s: &str) -> Result<Source, SourceError> {
        let (kind, rest) = s.split_once(':').ok_or(SourceError::NoKind)?;
        match kind {
            "pid" => match rest.trim().parse::<u32>() {
                Ok(pid) if pid > 0 => Ok(Source::Pid(pid)),
                _ => Err(SourceError::Pid(rest.to_string())),
            },
            "proc" => {
                let name = rest.trim();
                if name.is_empty() || name.contains('/') {
                    return Err(SourceError::ProcName);
                }
                Ok(Source::Proc(name.to_string()))
            }
            "scrape" => Ok(Source::Scrape(http_url(rest)?)),
            "promql" => {
                let (name, rest) = rest.split_once('=').ok_or(SourceError::PromqlForm)?;
                let name = name.trim();
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                    return Err(SourceError::PromqlName(name.to_string()));
                }
                // A query may hold `@` (PromQL's modifier): the server is after the last `@http`.
                let at = rest.rfind("@http").ok_or(SourceError::PromqlServer)?;
                let query = rest[..at].trim();
                if query.is_empty() {
                    return Err(SourceError::EmptyQuery);
                }
                Ok(Source::Promql { name: name.into(), query: query.into(), server: http_url(&rest[at + 1..])? })
            }
            _ => Err(SourceError::UnknownKind(kind.to_string())),
        }
    }

    /// Every `--watch` value given, in order. The message names the flag and the value masked
    /// (a source's URL may hold a password or a token). The same source given twice is watched
    /// once (twice would only write every line twice and double the load on it).
    pub(crate) fn parse_all(values: &[String]) -> Result<Vec<Source>, InvalidWatch> {
        let mut out: Vec<Source> = Vec::new();
        for v in values {
            let s = Source::parse(v).map_err(|source| InvalidWatch { shown: Source::mask(v), source })?;
            if !out.contains(&s) {
                out.push(s);
            }
        }
        Ok(out)
    }

    /// A `--watch` value as it may be shown, even one that does not parse: the URL (which a
    /// source always ends with) masked as a URL, what comes before it as free text.
    pub(crate) fn mask(raw: &str) -> String {
        let Some(scheme_end) = raw.find("://") else {
            // No scheme: `user:pass@host` would not read as a URL, so all before the last `@`
            // (after the source's kind) is masked.
            return match (raw.split_once(':'), raw.rfind('@')) {
                (Some((kind, _)), Some(at)) => format!("{kind}:***{}", &raw[at..]),
                _ => crate::redact::text(raw).into_owned(),
            };
        };
        let start = raw[..scheme_end].rfind(|c: char| !c.is_ascii_alphanumeric()).map_or(0, |i| i + 1);
        format!("{}{}", crate::redact::text(&raw[..start]), crate::redact::url(&raw[start..]))
    }

    /// The source as reports and `meta.json` name it: credentials in its URL masked.
    pub(crate) fn display(&self) -> String {
        match self {
            Source::Pid(p) => format!("pid:{p}"),
            Source::Proc(n) => format!("proc:{n}"),
            Source::Scrape(u) => format!("scrape:{}", crate::redact::url(u.as_str())),
            Source::Promql { name, query, server } => {
                format!("promql:{name}={}@{}", crate::redact::text(query), crate::redact::url(server.as_str()))
            }
        }
    }
}

/// An `http://` URL (the only scheme the sampler speaks).
fn http_url(s: &str) -> Result<url::Url, SourceError> {
    if !s.contains("://") {
        return Err(SourceError::NoScheme(crate::redact::url(s).into_owned()));
    }
    let u = url::Url::parse(s.trim()).map_err(|e| SourceError::Url(crate::redact::url(s).into_owned(), e))?;
    if u.scheme() != "http" {
        return Err(SourceError::NotHttp(u.scheme().to_string()));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err(SourceError::NoHost);
    }
    Ok(u)
}

/// The forms `--watch` takes, as its errors list them.
const FORMS: &str = "pid:PID, proc:NAME, scrape:URL or promql:NAME=QUERY@URL";

/// A `--watch` value that is not a source. URLs in it are shown masked (they may hold
/// credentials).
#[derive(Debug, PartialEq, thiserror::Error)]
pub(crate) enum SourceError {
    #[error("give one of {FORMS}")]
    NoKind,
    #[error("`{0}` is not a process id (pid:PID, e.g. pid:1234)")]
    Pid(String),
    #[error("give a process name (proc:NAME, e.g. proc:nginx)")]
    ProcName,
    #[error("give promql:NAME=QUERY@URL (e.g. promql:cpu=sum(rate(x[1m]))@http://127.0.0.1:9090)")]
    PromqlForm,
    #[error("`{0}` is not a name for the query's value (letters, digits, `_`, `.`)")]
    PromqlName(String),
    #[error("give the Prometheus server after the query: QUERY@URL")]
    PromqlServer,
    #[error("the query is empty")]
    EmptyQuery,
    #[error("`{0}:` is not a source: give one of {FORMS}")]
    UnknownKind(String),
    #[error("`{0}` is not a URL: give only http:// URLs, e.g. http://127.0.0.1:9113/metrics")]
    NoScheme(String),
    #[error("`{0}` is not a URL: {1}")]
    Url(String, url::ParseError),
    #[error("only http:// URLs can be watched, not {0}://")]
    NotHttp(String),
    #[error("the URL has no host")]
    NoHost,
}

/// A `--watch` value that is not a source, shown masked.
#[derive(Debug, thiserror::Error)]
#[error("invalid value '{shown}' for '--watch <SOURCE>': {source}")]
pub(crate) struct InvalidWatch {
    shown: String,
    source: SourceError,
}

/// One reading: the state, and the values when it is `ok`.
#[derive(Debug, Default)]
struct Reading {
    problem: Option<(State, String)>,
    gauges: BTreeMap<String, f64>,
    counters: BTreeMap<String, f64>,
    /// Series left out past [`MAX_SERIES`].
    dropped: Option<u64>,
}

impl Reading {
    fn failed(state: State, reason: impl Into<String>) -> Reading {
        Reading { problem: Some((state, reason.into())), ..Default::default() }
    }
}

/// One source, and what it keeps between samples (the processes' CPU time at the last one).
pub(crate) struct Watcher {
    source: Source,
    proc_root: PathBuf,
    /// pid → (start ticks, CPU ticks) at the last sample, and when it was.
    last_cpu: HashMap<u32, (u64, u64)>,
    last_at: Option<Instant>,
    /// `pid:`: the process's start time, to tell it from a later process given its pid.
    start_ticks: Option<u64>,
    ticks_per_s: f64,
    /// `scrape:`/`promql:`: the server's addresses, found once before the run (see
    /// [`Watcher::resolve`]), or why there are none (then every sample is that error).
    addrs: Result<Vec<std::net::SocketAddr>, String>,
}

impl Watcher {
    pub(crate) fn new(source: Source) -> Watcher {
        Watcher::with_proc_root(source, Path::new("/proc"))
    }

    /// Looks up the host of every source's URL, all at once, each given up on after
    /// [`RESOLVE_TIMEOUT`]: once, before the run, so a slow resolver never holds up a sample
    /// (the addresses found are used for the whole run).
    fn resolve(watchers: &mut [Watcher]) {
        std::thread::scope(|scope| {
            for w in watchers.iter_mut() {
                let url = match &w.source {
                    Source::Scrape(u) => u.clone(),
                    Source::Promql { server, .. } => server.clone(),
                    Source::Pid(_) | Source::Proc(_) => continue,
                };
                scope.spawn(move || w.addrs = http::resolve(&url, RESOLVE_TIMEOUT));
            }
        });
    }

    fn with_proc_root(source: Source, root: &Path) -> Watcher {
        Watcher {
            source,
            proc_root: root.to_path_buf(),
            last_cpu: HashMap::new(),
            last_at: None,
            start_ticks: None,
            ticks_per_s: procfs::clock_ticks(),
            addrs: Ok(Vec::new()),
        }
    }

    fn read(&mut self) -> Reading {
        match self.source.clone() {
            Source::Pid(pid) => self.read_pid(pid),
            Source::Proc(name) => {
                // A `/proc` that cannot be listed says nothing of the processes: an error, and
                // what is kept of them stays (clearing it would count each one's whole CPU
                // time at the next sample).
                let pids = match procfs::pids_named(&self.proc_root, &name) {
                    Ok(pids) => pids,
                    Err(e) => return Reading::failed(State::Error, format!("cannot list the processes: {e}")),
                };
                if pids.is_empty() {
                    self.last_cpu.clear();
                    return Reading::failed(State::Gone, format!("no process named {name}"));
                }
                self.read_processes(&pids)
            }
            Source::Scrape(url) => match self.addrs.clone().and_then(|a| http::get(&url, &a, HTTP_TIMEOUT)) {
                Err(e) => Reading::failed(State::Error, e),
                Ok(body) => match exposition::parse(&String::from_utf8_lossy(&body)) {
                    Err(e) => Reading::failed(State::Error, format!("not Prometheus' text format: {e}")),
                    Ok(samples) => {
                        let mut r = Reading::default();
                        let total = samples.len();
                        if total > MAX_SERIES {
                            r.dropped = Some((total - MAX_SERIES) as u64);
                        }
                        // The first ones, in the endpoint's order: the same ones every sample.
                        for s in samples.into_iter().take(MAX_SERIES) {
                            let to = match s.kind {
                                exposition::Kind::Counter => &mut r.counters,
                                exposition::Kind::Gauge => &mut r.gauges,
                            };
                            to.insert(s.name, s.value);
                        }
                        r
                    }
                },
            },
            Source::Promql { name, query, server } => {
                let got =
                    self.addrs.clone().and_then(|a| http::get(&promql::query_url(&server, &query), &a, HTTP_TIMEOUT));
                match got.and_then(|b| promql::value(&b)) {
                    Err(e) => Reading::failed(State::Error, e),
                    Ok((v, _)) => {
                        let mut r = Reading::default();
                        r.gauges.insert(name, v);
                        r
                    }
                }
            }
        }
    }

    fn read_pid(&mut self, pid: u32) -> Reading {
        let gone = |why: &str| Reading::failed(State::Gone, format!("process {pid} {why}"));
        match procfs::stat(&self.proc_root, pid) {
            None => gone(if self.start_ticks.is_some() { "exited" } else { "does not exist" }),
            Some(Err(e)) => Reading::failed(State::Error, e),
            Some(Ok(st)) if matches!(st.state, 'Z' | 'X') => gone("exited"),
            Some(Ok(st)) if self.start_ticks.is_some_and(|t| t != st.start_ticks) => {
                gone("exited (its pid is another process's now)")
            }
            Some(Ok(st)) => {
                self.start_ticks = Some(st.start_ticks);
                self.read_processes(&[pid])
            }
        }
    }

    /// The figures of `pids`, summed. CPU is the ticks spent since the last sample over the wall
    /// time since. A process not seen at the last sample (new, or first seen after an error;
    /// told from a seen one by its start time, as pids are used again) counts from this sample
    /// on: what it spent before is its lifetime's, not this span's.
    fn read_processes(&mut self, pids: &[u32]) -> Reading {
        let now = Instant::now();
        let mut r = Reading::default();
        let (mut rss, mut threads, mut fds, mut ticks) = (0u64, 0u64, 0u64, 0u64);
        let mut fds_known = true;
        let mut cpu = HashMap::new();
        // Sockets are counted once however many processes hold them (a forked worker shares
        // its parent's), and each network namespace's tables are read once: a process in
        // another namespace (a container) has its connections in its own tables.
        let mut sockets = std::collections::HashSet::new();
        let mut established = std::collections::HashSet::new();
        let mut namespaces = std::collections::HashSet::new();
        let mut alive = 0u64;
        for &pid in pids {
            let Some(Ok(st)) = procfs::stat(&self.proc_root, pid) else { continue };
            if matches!(st.state, 'Z' | 'X') {
                continue;
            }
            alive += 1;
            rss += st.rss_bytes;
            threads += st.threads;
            ticks += match self.last_cpu.get(&pid) {
                Some((start, before)) if *start == st.start_ticks => st.cpu_ticks.saturating_sub(*before),
                _ => 0,
            };
            cpu.insert(pid, (st.start_ticks, st.cpu_ticks));
            match procfs::fds(&self.proc_root, pid) {
                Ok((n, its)) => {
                    fds += n;
                    if !its.is_empty() {
                        let ns = procfs::net_namespace(&self.proc_root, pid).unwrap_or_else(|| format!("pid {pid}"));
                        if namespaces.insert(ns) {
                            established.extend(procfs::established(&self.proc_root, pid));
                        }
                        sockets.extend(its);
                    }
                }
                Err(_) => fds_known = false,
            }
        }
        // Socket inodes are unique across namespaces: one intersection counts them all.
        let conns = sockets.intersection(&established).count() as u64;
        if alive == 0 {
            self.last_cpu.clear();
            return Reading::failed(State::Gone, "every process exited");
        }
        let span = self.last_at.map(|at| now.duration_since(at));
        match span {
            // CPU time comes in ticks (10 ms): over a short span (the last sample, just after
            // one on the cadence) a tick more or less is a large error, so that span is left to
            // the next sample, and the last sample has no CPU figure.
            Some(span) if span < MIN_CPU_SPAN => {}
            _ => {
                if let Some(span) = span {
                    r.gauges.insert("cpu_cores".into(), ticks as f64 / self.ticks_per_s / span.as_secs_f64());
                }
                self.last_cpu = cpu;
                self.last_at = Some(now);
            }
        }
        r.gauges.insert("rss_bytes".into(), rss as f64);
        r.gauges.insert("threads".into(), threads as f64);
        // Another user's process without the privilege: its files are unknown, not none.
        if fds_known {
            r.gauges.insert("open_fds".into(), fds as f64);
            r.gauges.insert("tcp_established".into(), conns as f64);
        }
        if matches!(self.source, Source::Proc(_)) {
            r.gauges.insert("processes".into(), alive as f64);
        }
        r
    }
}

/// One source's line, before it is stamped: when its reading finished, and the line.
type Read = (Instant, WatchLine);

/// Samples every source now. Each line is stamped with the time its own reading finished, so a
/// slow source does not shift another's time (nor skew its counters' rates).
fn sample(watchers: &mut [Watcher]) -> Vec<Read> {
    watchers
        .iter_mut()
        .map(|w| {
            let r = w.read();
            let done = Instant::now();
            let (state, reason) = match r.problem {
                Some((s, why)) => {
                    // A server may echo the request: its credentials, in whatever form.
                    let why = w.source.credentials().scrub(&why).into_owned();
                    (s, Some(crate::redact::text(&why).into_owned()))
                }
                None => (State::Ok, None),
            };
            let line = WatchLine {
                t_s: 0.0,
                source: w.source.display(),
                state,
                reason,
                gauges: r.gauges,
                counters: r.counters,
                dropped: r.dropped,
            };
            (done, line)
        })
        .collect()
}

/// Seconds from `origin` (when the load began) to `at`, to the µs: a reading finished before
/// the load began (the baseline) is at 0.
fn seconds(origin: Instant, at: Instant) -> f64 {
    (at.saturating_duration_since(origin).as_secs_f64() * 1e6).round() / 1e6
}

/// What the run tells the sampler.
enum Ctl {
    /// Take the baseline now (the load is about to begin), then say so.
    Baseline,
    /// The load began at this instant: write the baseline, then sample on the cadence.
    Begin(Instant),
}

/// The sampler's file, shared so that the run's end can write the last lines itself when the
/// sampler is too slow: `None` once closed (the sampler then writes nothing more).
type SharedWriter = std::sync::Arc<std::sync::Mutex<Option<WatchWriter>>>;

/// Appends `reads`, stamped from `origin`; `false` when the file was closed under the sampler.
fn write(writer: &SharedWriter, origin: Instant, reads: Vec<Read>) -> Result<bool, crate::rundir::Error> {
    let lines: Vec<WatchLine> =
        reads.into_iter().map(|(at, line)| WatchLine { t_s: seconds(origin, at), ..line }).collect();
    let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
    match w.as_mut() {
        Some(w) => w.append(&lines).map(|()| true),
        None => Ok(false),
    }
}

/// The run output that samples the sources: once just before the load begins (a baseline, so
/// that counters' totals and CPU cover the whole load), every [`INTERVAL`] on a thread of its
/// own, and once more when the run ends, into `watch.jsonl` of the run directory. `t_s` is from
/// when the load began: after a wait for a common start (`--start-at`), the baseline is taken
/// at the end of the wait, and nothing of the wait is written.
pub(crate) struct WatchOutput {
    sources: Vec<Source>,
    dir: PathBuf,
    ctl: Option<mpsc::Sender<Ctl>>,
    ready: Option<mpsc::Receiver<()>>,
    done: Option<mpsc::Receiver<()>>,
    writer: Option<SharedWriter>,
    origin: Option<Instant>,
    thread: Option<JoinHandle<Result<(), crate::rundir::Error>>>,
}

impl WatchOutput {
    /// [`Output::name`] of the watch log.
    pub(crate) const NAME: &'static str = "watch log (watch.jsonl)";

    /// Watches `sources` into the run directory `dir` (already created).
    pub(crate) fn new(sources: Vec<Source>, dir: &Path) -> WatchOutput {
        WatchOutput {
            sources,
            dir: dir.to_path_buf(),
            ctl: None,
            ready: None,
            done: None,
            writer: None,
            origin: None,
            thread: None,
        }
    }

    /// Asks for the baseline and waits for it, at most the time its sources may take; then the
    /// load begins. A baseline still under way past that is stamped when it finishes, after
    /// the load's start, never as if taken before it.
    fn begin(&mut self) {
        if let (Some(ctl), Some(ready)) = (&self.ctl, &self.ready) {
            if ctl.send(Ctl::Baseline).is_ok() {
                let most = RESOLVE_TIMEOUT + HTTP_TIMEOUT * (self.sources.len() as u32 + 1) + Duration::from_secs(1);
                let _ = ready.recv_timeout(most);
            }
            let origin = Instant::now();
            self.origin = Some(origin);
            let _ = ctl.send(Ctl::Begin(origin));
        }
    }
}

/// The sampler thread: looks the sources' hosts up, then does what `ctl` says; its hanging up
/// ends the run (a last sample, then the file is closed). `done` says it has finished.
fn sampler(
    mut watchers: Vec<Watcher>,
    writer: SharedWriter,
    ctl: mpsc::Receiver<Ctl>,
    ready: mpsc::Sender<()>,
    done: mpsc::Sender<()>,
) -> Result<(), crate::rundir::Error> {
    let _done = Finished(done);
    Watcher::resolve(&mut watchers);
    let mut baseline = Vec::new();
    let origin = loop {
        match ctl.recv() {
            Ok(Ctl::Baseline) => {
                baseline = sample(&mut watchers);
                let _ = ready.send(());
            }
            Ok(Ctl::Begin(origin)) => break origin,
            // The run ended before its load began (Ctrl-C during the wait): nothing to write.
            Err(_) => return close(&writer),
        }
    };
    if !write(&writer, origin, baseline)? {
        return Ok(());
    }
    let mut due = origin + INTERVAL;
    while let Err(mpsc::RecvTimeoutError::Timeout) = ctl.recv_timeout(due.saturating_duration_since(Instant::now())) {
        if !write(&writer, origin, sample(&mut watchers))? {
            return Ok(());
        }
        // A sample that took past the next due time skips it, not the cadence.
        let now = Instant::now();
        while due <= now {
            due += INTERVAL;
        }
    }
    if !write(&writer, origin, sample(&mut watchers))? {
        return Ok(());
    }
    close(&writer)
}

/// Closes the file (flushed and synced), unless the run's end already did.
fn close(writer: &SharedWriter) -> Result<(), crate::rundir::Error> {
    let w = writer.lock().unwrap_or_else(|p| p.into_inner()).take();
    w.map_or(Ok(()), WatchWriter::finish)
}

/// Says the sampler has finished when it returns, whichever way (an error, a panic).
struct Finished(mpsc::Sender<()>);

impl Drop for Finished {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

impl Output for WatchOutput {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        let writer: SharedWriter = std::sync::Arc::new(std::sync::Mutex::new(Some(WatchWriter::create(&self.dir)?)));
        let watchers: Vec<Watcher> = self.sources.iter().cloned().map(Watcher::new).collect();
        let (ctl_tx, ctl_rx) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel();
        let shared = writer.clone();
        let thread = std::thread::Builder::new()
            .name("watch".into())
            .spawn(move || sampler(watchers, shared, ctl_rx, ready_tx, done_tx))?;
        self.ctl = Some(ctl_tx);
        self.ready = Some(ready_rx);
        self.done = Some(done_rx);
        self.writer = Some(writer);
        self.thread = Some(thread);
        // A run that waits for a common start begins in `begins`: the wait is not sampled.
        if start.meta.part.as_ref().is_none_or(|p| p.start_at.is_none()) {
            self.begin();
        }
        Ok(())
    }

    fn begins(&mut self, _: &crate::rundir::RunMeta) -> Result<(), OutputError> {
        self.begin();
        Ok(())
    }

    fn interval(&mut self, _: &crate::record::Interval) -> Result<(), OutputError> {
        Ok(())
    }

    /// Takes the last sample (after the last response) and closes the file. A source slower
    /// than [`FINAL_SAMPLE_TIMEOUT`] does not hold the run's end (nor Ctrl-C): the sampler is
    /// left to itself, and the log gets a line per source saying the last sample is missing.
    fn finish(&mut self, _: &End<'_>) -> Result<(), OutputError> {
        drop(self.ctl.take());
        let Some(thread) = self.thread.take() else { return Ok(()) };
        let finished = self.done.take().is_some_and(|d| d.recv_timeout(FINAL_SAMPLE_TIMEOUT).is_ok());
        if finished {
            return match thread.join() {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(e.into()),
                Err(_) => Err("its sampler failed".into()),
            };
        }
        let Some(writer) = self.writer.take() else { return Ok(()) };
        let Some(mut w) = writer.lock().unwrap_or_else(|p| p.into_inner()).take() else { return Ok(()) };
        let t_s = self.origin.map_or(0.0, |o| seconds(o, Instant::now()));
        let why = format!(
            "the last sample is missing: the sources were not read within {} ms of the run's end",
            FINAL_SAMPLE_TIMEOUT.as_millis()
        );
        let lines: Vec<WatchLine> = self
            .sources
            .iter()
            .map(|s| WatchLine {
                t_s,
                source: s.display(),
                state: State::Error,
                reason: Some(why.clone()),
                gauges: BTreeMap::new(),
                counters: BTreeMap::new(),
                dropped: None,
            })
            .collect();
        w.append(&lines)?;
        w.finish()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_source_twice_is_watched_once() {
        let given: Vec<String> = ["pid:1", "proc:nginx", "pid:1"].map(String::from).to_vec();
        assert_eq!(Source::parse_all(&given).unwrap().len(), 2);
        let e = Source::parse_all(&["scrape:https://u:s3cret@h/m".to_string()]).unwrap_err().to_string();
        assert!(e.contains("--watch") && !e.contains("s3cret"), "{e}");
    }

    #[test]
    fn sources_parse() {
        assert_eq!(Source::parse("pid:1234"), Ok(Source::Pid(1234)));
        assert_eq!(Source::parse("proc:nginx"), Ok(Source::Proc("nginx".into())));
        let s = Source::parse("scrape:http://127.0.0.1:9113/metrics").unwrap();
        assert_eq!(s.display(), "scrape:http://127.0.0.1:9113/metrics");
        let q = Source::parse("promql:cpu=sum(rate(x[1m] @ 1609746000))@http://127.0.0.1:9090").unwrap();
        assert_eq!(
            q,
            Source::Promql {
                name: "cpu".into(),
                query: "sum(rate(x[1m] @ 1609746000))".into(),
                server: url::Url::parse("http://127.0.0.1:9090").unwrap(),
            }
        );
    }

    #[test]
    fn bad_sources_say_what_is_wrong() {
        for (bad, says) in [
            ("1234", "give one of pid:PID"),
            ("pid:abc", "`abc` is not a process id"),
            ("pid:0", "is not a process id"),
            ("proc:", "give a process name"),
            ("scrape:127.0.0.1:9113", "only http://"),
            ("scrape:https://h/metrics", "only http://"),
            ("scrape:not a url", "is not a URL"),
            ("promql:cpu", "give promql:NAME=QUERY@URL"),
            ("promql:cpu=up", "give the Prometheus server"),
            ("promql:=up@http://h:9090", "is not a name"),
            ("promql:cpu=@http://h:9090", "the query is empty"),
            ("top:1", "`top:` is not a source"),
        ] {
            let e = Source::parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn source_errors_are_typed_and_read_as_before() {
        assert_eq!(Source::parse("pid:0"), Err(SourceError::Pid("0".into())));
        assert_eq!(Source::parse("top:1"), Err(SourceError::UnknownKind("top".into())));
        assert_eq!(
            Source::parse("top:1").unwrap_err().to_string(),
            "`top:` is not a source: give one of pid:PID, proc:NAME, scrape:URL or promql:NAME=QUERY@URL"
        );
        assert_eq!(
            Source::parse("scrape:h:1/m?token=t").unwrap_err().to_string(),
            "`h:1/m?token=***` is not a URL: give only http:// URLs, e.g. http://127.0.0.1:9113/metrics"
        );
        assert_eq!(Source::parse("scrape:ftp://h/").unwrap_err(), SourceError::NotHttp("ftp".into()));
        let e = Source::parse_all(&["pid:x".to_string()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value 'pid:x' for '--watch <SOURCE>': `x` is not a process id (pid:PID, e.g. pid:1234)"
        );
    }

    #[test]
    fn credentials_are_never_shown() {
        let s = Source::parse("scrape:http://user:s3cret@127.0.0.1:9113/metrics?token=abc").unwrap();
        let shown = s.display();
        assert!(!shown.contains("s3cret") && !shown.contains("abc"), "{shown}");
        let q = Source::parse("promql:up=up@http://u:s3cret@127.0.0.1:9090").unwrap();
        assert!(!q.display().contains("s3cret"), "{}", q.display());
        let e = Source::parse("scrape:http://u:s3cret@[::1").unwrap_err().to_string();
        assert!(!e.contains("s3cret"), "{e}");
        for raw in [
            "promql:x=up@https://u:s3cret@h:9090/?token=t0ken",
            "scrape:https://u:s3cret@h/m?token=t0ken",
            "u:s3cret@h",
        ] {
            let m = Source::mask(raw);
            assert!(!m.contains("s3cret") && !m.contains("t0ken"), "{m}");
        }
    }

    /// A `/proc` of its own: `procs` are (pid, CPU ticks, start ticks), all named `worker`.
    fn fake_proc(root: &Path, procs: &[(u32, u64, u64)]) {
        let _ = std::fs::remove_dir_all(root);
        for &(pid, cpu, start) in procs {
            let dir = root.join(pid.to_string());
            std::fs::create_dir_all(dir.join("fd")).unwrap();
            std::fs::write(dir.join("comm"), "worker\n").unwrap();
            let stat =
                format!("{pid} (worker) S 1 {pid} {pid} 0 -1 0 0 0 0 0 {cpu} 0 0 0 20 0 3 0 {start} 1000 25 0\n");
            std::fs::write(dir.join("stat"), stat).unwrap();
        }
    }

    #[test]
    fn proc_new_processes_count_from_their_first_sight_and_an_unlistable_proc_is_an_error() {
        let root = std::env::temp_dir().join(format!("stampede-watch-proc-{}", std::process::id()));
        fake_proc(&root, &[(100, 1000, 5)]);
        let mut w = Watcher::with_proc_root(Source::Proc("worker".into()), &root);
        let r = w.read();
        assert!(r.problem.is_none(), "{:?}", r.problem);
        // A second process, a long life behind it: none of that life counts.
        std::thread::sleep(MIN_CPU_SPAN);
        fake_proc(&root, &[(100, 1010, 5), (200, 50_000, 7)]);
        let r = w.read();
        assert_eq!(r.gauges["processes"], 2.0);
        let ticks = r.gauges["cpu_cores"] * w.ticks_per_s * MIN_CPU_SPAN.as_secs_f64();
        assert!(ticks <= 10.5, "only pid 100's 10 ticks count: {ticks}");
        // `/proc` cannot be listed: an error, not gone, and nothing forgotten.
        let hidden = root.with_extension("hidden");
        std::fs::rename(&root, &hidden).unwrap();
        let r = w.read();
        assert_eq!(r.problem.as_ref().map(|p| p.0), Some(State::Error), "{:?}", r.problem);
        std::fs::rename(&hidden, &root).unwrap();
        std::thread::sleep(MIN_CPU_SPAN);
        fake_proc(&root, &[(100, 1020, 5), (200, 50_010, 7), (300, 9_000, 9)]);
        let r = w.read();
        let ticks =
            r.gauges["cpu_cores"] * w.ticks_per_s * w.last_at.unwrap().elapsed().max(MIN_CPU_SPAN).as_secs_f64();
        assert!(r.gauges["cpu_cores"] > 0.0 && ticks <= 40.0, "20 ticks since, not lifetimes: {ticks}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn proc_counts_a_shared_socket_once_and_reads_every_network_namespace() {
        let root = std::env::temp_dir().join(format!("stampede-watch-netns-{}", std::process::id()));
        // 100 and its fork 101 share socket 2222 in one namespace; 102 is in another with 3333
        // and 4444 (once, the namespace's first process's tables were read for all, and 2222
        // was counted twice: 2).
        fake_proc(&root, &[(100, 0, 1), (101, 0, 2), (102, 0, 3)]);
        let header =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";
        let row = |inode: u64| {
            format!("   1: 0100007F:1F90 0100007F:D2B4 01 00000000:00000000 00:00000000 00000000     0        0 {inode} 1 0 20 4 30 10 -1\n")
        };
        for (pid, ns, sockets) in [(100, 1, &[2222][..]), (101, 1, &[2222]), (102, 2, &[3333, 4444])] {
            let dir = root.join(pid.to_string());
            std::fs::create_dir_all(dir.join("ns")).unwrap();
            std::fs::create_dir_all(dir.join("net")).unwrap();
            std::os::unix::fs::symlink(format!("net:[{ns}]"), dir.join("ns/net")).unwrap();
            let mut table = header.to_string();
            for (fd, &socket) in sockets.iter().enumerate() {
                std::os::unix::fs::symlink(format!("socket:[{socket}]"), dir.join(format!("fd/{}", fd + 3))).unwrap();
                table.push_str(&row(socket));
            }
            std::fs::write(dir.join("net/tcp"), table).unwrap();
        }
        let r = Watcher::with_proc_root(Source::Proc("worker".into()), &root).read();
        assert_eq!(r.gauges["tcp_established"], 3.0, "{:?}", r.gauges);
        assert_eq!(r.gauges["open_fds"], 4.0);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_scrape_keeps_the_first_series_and_counts_the_rest() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            use std::io::{Read as _, Write as _};
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf).unwrap();
            let body: String = (0..MAX_SERIES + 100).map(|i| format!("# TYPE m{i} gauge\nm{i} {i}\n")).collect();
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
            s.write_all(head.as_bytes()).unwrap();
            s.write_all(body.as_bytes()).unwrap();
        });
        let mut watchers = vec![Watcher::new(Source::parse(&format!("scrape:http://{addr}/metrics")).unwrap())];
        Watcher::resolve(&mut watchers);
        let (_, line) = sample(&mut watchers).pop().unwrap();
        server.join().unwrap();
        assert_eq!(line.state, State::Ok, "{:?}", line.reason);
        assert_eq!((line.gauges.len(), line.dropped), (MAX_SERIES, Some(100)));
        assert!(line.gauges.contains_key("m0") && !line.gauges.contains_key(&format!("m{MAX_SERIES}")));
    }

    #[test]
    fn each_line_is_stamped_when_its_own_reading_finished() {
        // Answers nothing: its reading takes the whole HTTP timeout.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let slow = Source::parse(&format!("scrape:http://{}/metrics", silent.local_addr().unwrap())).unwrap();
        let mut watchers = vec![Watcher::new(Source::Pid(std::process::id())), Watcher::new(slow)];
        Watcher::resolve(&mut watchers);
        let origin = Instant::now();
        let reads = sample(&mut watchers);
        let t: Vec<f64> = reads.iter().map(|(at, _)| seconds(origin, *at)).collect();
        assert!(t[0] < 0.2 && t[1] >= 0.7, "{t:?}");
        assert_eq!(reads[1].1.state, State::Error);
        assert_eq!(seconds(Instant::now(), origin), 0.0, "a reading before the origin is at 0");
    }

    #[test]
    fn this_process_is_watched_and_a_missing_one_is_gone() {
        let mut w = Watcher::new(Source::Pid(std::process::id()));
        let first = w.read();
        assert!(first.problem.is_none());
        assert!(!first.gauges.contains_key("cpu_cores"), "no CPU figure without a span");
        std::thread::sleep(Duration::from_millis(20));
        assert!(!w.read().gauges.contains_key("cpu_cores"), "no CPU figure over 20 ms");
        std::thread::sleep(MIN_CPU_SPAN);
        let second = w.read();
        assert!(second.gauges["cpu_cores"] >= 0.0 && second.gauges["threads"] >= 1.0);
        // Pids stop well below this (pid_max is at most 2^22).
        let mut missing = Watcher::new(Source::Pid(u32::MAX - 7));
        let r = missing.read();
        assert_eq!(r.problem.map(|p| p.0), Some(State::Gone));
        assert!(r.gauges.is_empty());
    }
}
