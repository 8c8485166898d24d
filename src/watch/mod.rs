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
//! never as zeros; reading never touches the load: the sampler is its own thread, and every
//! HTTP exchange ends within [`HTTP_TIMEOUT`].

mod exposition;
mod http;
mod procfs;
mod promql;

use crate::run::{End, Output, OutputError, Start};
use crate::rundir::watch::{State, WatchLine, WatchWriter};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest a scrape or a query may take, connection to last byte: well under the sampling
/// interval, so one slow source delays the others' next sample by less than a second.
pub const HTTP_TIMEOUT: Duration = Duration::from_millis(800);

/// How often the sources are sampled.
pub const INTERVAL: Duration = Duration::from_secs(1);

/// The shortest span a CPU figure is measured over.
const MIN_CPU_SPAN: Duration = Duration::from_millis(500);

/// One `--watch` source.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
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
    /// Reads `--watch`'s value. The message says what is wrong and what the forms are.
    pub fn parse(s: &str) -> Result<Source, String> {
        const FORMS: &str = "pid:PID, proc:NAME, scrape:URL or promql:NAME=QUERY@URL";
        let (kind, rest) = s.split_once(':').ok_or_else(|| format!("give one of {FORMS}"))?;
        match kind {
            "pid" => match rest.trim().parse::<u32>() {
                Ok(pid) if pid > 0 => Ok(Source::Pid(pid)),
                _ => Err(format!("`{rest}` is not a process id (pid:PID, e.g. pid:1234)")),
            },
            "proc" => {
                let name = rest.trim();
                if name.is_empty() || name.contains('/') {
                    return Err("give a process name (proc:NAME, e.g. proc:nginx)".into());
                }
                Ok(Source::Proc(name.to_string()))
            }
            "scrape" => Ok(Source::Scrape(http_url(rest)?)),
            "promql" => {
                let (name, rest) = rest
                    .split_once('=')
                    .ok_or("give promql:NAME=QUERY@URL (e.g. promql:cpu=sum(rate(x[1m]))@http://127.0.0.1:9090)")?;
                let name = name.trim();
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                    return Err(format!("`{name}` is not a name for the query's value (letters, digits, `_`, `.`)"));
                }
                // A query may hold `@` (PromQL's modifier): the server is after the last `@http`.
                let at = rest.rfind("@http").ok_or("give the Prometheus server after the query: QUERY@URL")?;
                let query = rest[..at].trim();
                if query.is_empty() {
                    return Err("the query is empty".into());
                }
                Ok(Source::Promql { name: name.into(), query: query.into(), server: http_url(&rest[at + 1..])? })
            }
            _ => Err(format!("`{kind}:` is not a source: give one of {FORMS}")),
        }
    }

    /// The source as reports and `meta.json` name it: credentials in its URL masked.
    pub fn display(&self) -> String {
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
fn http_url(s: &str) -> Result<url::Url, String> {
    if !s.contains("://") {
        return Err(format!(
            "`{}` is not a URL: give only http:// URLs, e.g. http://127.0.0.1:9113/metrics",
            crate::redact::url(s)
        ));
    }
    let u = url::Url::parse(s.trim()).map_err(|e| format!("`{}` is not a URL: {e}", crate::redact::url(s)))?;
    if u.scheme() != "http" {
        return Err(format!("only http:// URLs can be watched, not {}://", u.scheme()));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err("the URL has no host".into());
    }
    Ok(u)
}

/// One reading: the state, and the values when it is `ok`.
#[derive(Debug, Default)]
struct Reading {
    problem: Option<(State, String)>,
    gauges: BTreeMap<String, f64>,
    counters: BTreeMap<String, f64>,
}

impl Reading {
    fn failed(state: State, reason: impl Into<String>) -> Reading {
        Reading { problem: Some((state, reason.into())), ..Default::default() }
    }
}

/// One source, and what it keeps between samples (the processes' CPU time at the last one).
pub struct Watcher {
    source: Source,
    proc_root: PathBuf,
    /// pid → (start ticks, CPU ticks) at the last sample, and when it was.
    last_cpu: HashMap<u32, (u64, u64)>,
    last_at: Option<Instant>,
    /// `pid:`: the process's start time, to tell it from a later process given its pid.
    start_ticks: Option<u64>,
    ticks_per_s: f64,
}

impl Watcher {
    pub fn new(source: Source) -> Watcher {
        Watcher::with_proc_root(source, Path::new("/proc"))
    }

    fn with_proc_root(source: Source, root: &Path) -> Watcher {
        Watcher {
            source,
            proc_root: root.to_path_buf(),
            last_cpu: HashMap::new(),
            last_at: None,
            start_ticks: None,
            ticks_per_s: procfs::clock_ticks(),
        }
    }

    fn read(&mut self) -> Reading {
        match self.source.clone() {
            Source::Pid(pid) => self.read_pid(pid),
            Source::Proc(name) => {
                let pids = procfs::pids_named(&self.proc_root, &name);
                if pids.is_empty() {
                    self.last_cpu.clear();
                    return Reading::failed(State::Gone, format!("no process named {name}"));
                }
                self.read_processes(&pids)
            }
            Source::Scrape(url) => match http::get(&url, HTTP_TIMEOUT) {
                Err(e) => Reading::failed(State::Error, e),
                Ok(body) => match exposition::parse(&String::from_utf8_lossy(&body)) {
                    Err(e) => Reading::failed(State::Error, format!("not Prometheus' text format: {e}")),
                    Ok(samples) => {
                        let mut r = Reading::default();
                        for s in samples {
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
                match http::get(&promql::query_url(&server, &query), HTTP_TIMEOUT).and_then(|b| promql::value(&b)) {
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
    /// time since: a process new since then counts all it spent.
    fn read_processes(&mut self, pids: &[u32]) -> Reading {
        let now = Instant::now();
        let mut r = Reading::default();
        let (mut rss, mut threads, mut fds, mut conns, mut ticks) = (0u64, 0u64, 0u64, 0u64, 0u64);
        let mut fds_known = true;
        let mut cpu = HashMap::new();
        let mut established = None;
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
                _ => st.cpu_ticks,
            };
            cpu.insert(pid, (st.start_ticks, st.cpu_ticks));
            match procfs::fds(&self.proc_root, pid) {
                Ok((n, sockets)) => {
                    fds += n;
                    if !sockets.is_empty() {
                        let est = established.get_or_insert_with(|| procfs::established(&self.proc_root, pid));
                        conns += sockets.iter().filter(|i| est.contains(i)).count() as u64;
                    }
                }
                Err(_) => fds_known = false,
            }
        }
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

/// Samples every source now, as lines at `t_s`.
fn sample(watchers: &mut [Watcher], t_s: f64) -> Vec<WatchLine> {
    watchers
        .iter_mut()
        .map(|w| {
            let r = w.read();
            let (state, reason) = match r.problem {
                Some((s, why)) => (s, Some(crate::redact::text(&why).into_owned())),
                None => (State::Ok, None),
            };
            // Milliseconds are all a chart or a rate needs.
            let t_s = (t_s * 1e3).round() / 1e3;
            WatchLine { t_s, source: w.source.display(), state, reason, gauges: r.gauges, counters: r.counters }
        })
        .collect()
}

/// The run output that samples the sources: once before the load starts (a baseline, so that
/// counters' totals and CPU cover the whole load), every [`INTERVAL`] on a thread of its own,
/// and once more when the run ends, into `watch.jsonl` of the run directory.
pub struct WatchOutput {
    sources: Vec<Source>,
    dir: PathBuf,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<Result<(), crate::rundir::Error>>>,
}

impl WatchOutput {
    /// [`Output::name`] of the watch log.
    pub const NAME: &'static str = "watch log (watch.jsonl)";

    /// Watches `sources` into the run directory `dir` (already created).
    pub fn new(sources: Vec<Source>, dir: &Path) -> WatchOutput {
        WatchOutput { sources, dir: dir.to_path_buf(), stop: None, thread: None }
    }
}

impl Output for WatchOutput {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn start(&mut self, _: &Start<'_>) -> Result<(), OutputError> {
        let mut writer = WatchWriter::create(&self.dir)?;
        let mut watchers: Vec<Watcher> = self.sources.iter().cloned().map(Watcher::new).collect();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let (ready_tx, ready_rx) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new().name("watch".into()).spawn(move || {
            let origin = Instant::now();
            let first = writer.append(&sample(&mut watchers, 0.0));
            let _ = ready_tx.send(());
            first?;
            let mut due = origin + INTERVAL;
            // Until the run ends: the sender dropped (or a message) ends the wait.
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                stop_rx.recv_timeout(due.saturating_duration_since(Instant::now()))
            {
                writer.append(&sample(&mut watchers, origin.elapsed().as_secs_f64()))?;
                // A sample that took past the next due time skips it, not the cadence.
                let now = Instant::now();
                while due <= now {
                    due += INTERVAL;
                }
            }
            writer.append(&sample(&mut watchers, origin.elapsed().as_secs_f64()))?;
            writer.finish()
        })?;
        // The baseline is taken before the load starts: at most each source's timeout.
        let _ = ready_rx.recv_timeout(HTTP_TIMEOUT * (self.sources.len() as u32 + 1) + Duration::from_secs(1));
        self.stop = Some(stop_tx);
        self.thread = Some(thread);
        Ok(())
    }

    fn interval(&mut self, _: &crate::record::Interval) -> Result<(), OutputError> {
        Ok(())
    }

    /// Takes the last sample (after the last response) and closes the file.
    fn finish(&mut self, _: &End<'_>) -> Result<(), OutputError> {
        drop(self.stop.take());
        match self.thread.take().map(JoinHandle::join) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(e.into()),
            Some(Err(_)) => Err("its sampler failed".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let e = Source::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn credentials_are_never_shown() {
        let s = Source::parse("scrape:http://user:s3cret@127.0.0.1:9113/metrics?token=abc").unwrap();
        let shown = s.display();
        assert!(!shown.contains("s3cret") && !shown.contains("abc"), "{shown}");
        let q = Source::parse("promql:up=up@http://u:s3cret@127.0.0.1:9090").unwrap();
        assert!(!q.display().contains("s3cret"), "{}", q.display());
        let e = Source::parse("scrape:http://u:s3cret@[::1").unwrap_err();
        assert!(!e.contains("s3cret"), "{e}");
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
