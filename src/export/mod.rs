//! Live metrics out (`run --export KIND=TARGET`): each sink is a [`run::Output`](crate::run::Output)
//! that turns every interval into a small owned [`Snapshot`] of the run's cumulative numbers and
//! hands it over without waiting; the network is someone else's problem.
//!
//! This module owns:
//! - what is exported ([`metrics`]: one set of names for every sink, cumulative counters kept
//!   on the run's task so that a snapshot lost on the way loses a point in time, never a count);
//! - the encodings: Prometheus remote write ([`remote_write`], prost + snappy), the text
//!   exposition ([`exposition`]), InfluxDB line protocol ([`influx`]) and OTLP/HTTP metrics
//!   ([`otlp`], `opentelemetry-proto`'s messages);
//! - the sinks: a push sink (remote write, InfluxDB, OTLP) with a bounded queue and a thread of its
//!   own that posts with a deadline, and a `/metrics` endpoint served for the run's lifetime;
//! - what each sink says at the end ([`Report`]): intervals delivered, dropped (queue full),
//!   failed (refused, timed out), never silently.
//!
//! A sink never slows the load: `interval` only copies numbers into a queue that drops its
//! oldest snapshot when full, pushes happen on the sink's thread under [`PUSH_TIMEOUT`], and
//! `finish` waits at most [`GRACE`] for what is still queued.

pub mod exposition;
mod http;
pub mod influx;
pub mod metrics;
pub mod otlp;
pub mod remote_write;

pub use metrics::{Ident, Snapshot};

use crate::record::Interval;
use crate::run::{End, Output, OutputError, Start};
use metrics::Metrics;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long one push may take, connect to answer.
pub const PUSH_TIMEOUT: Duration = Duration::from_secs(2);
/// How long `finish` waits for a sink to send what is queued (or to be scraped once more).
pub const GRACE: Duration = Duration::from_secs(3);
/// Snapshots a push sink holds while its target is slow; past this the oldest is dropped.
pub const QUEUE: usize = 64;

/// The kinds `--export` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `prometheus-rw=URL`: remote write, one push per interval.
    PrometheusRw,
    /// `prometheus=ADDR`: a `/metrics` page served for the run's lifetime.
    Prometheus,
    /// `influxdb=URL`: line protocol to `/write` (1.x) or `/api/v2/write` (2.x).
    Influxdb,
    /// `otlp=URL`: OTLP/HTTP protobuf to a collector's `/v1/metrics`.
    Otlp,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::PrometheusRw => "prometheus-rw",
            Kind::Prometheus => "prometheus",
            Kind::Influxdb => "influxdb",
            Kind::Otlp => "otlp",
        }
    }
}

/// One `--export KIND=TARGET`, checked.
#[derive(Debug, Clone)]
pub struct Spec {
    pub kind: Kind,
    target: Target,
    /// The value as it may be shown (credentials masked).
    shown: String,
}

#[derive(Debug, Clone)]
enum Target {
    Push {
        endpoint: http::Endpoint,
        headers: Vec<(String, String)>,
    },
    /// The address, and the listener once [`Spec::bind`] has bound it.
    Listen(std::net::SocketAddr, Arc<Mutex<Option<std::net::TcpListener>>>),
}

impl Spec {
    /// Parses `KIND=TARGET`. `influx_token` is `INFLUX_TOKEN` from the environment, for
    /// InfluxDB 2. The error names the flag and the value, credentials masked.
    pub fn parse(value: &str, influx_token: Option<&str>) -> Result<Spec, String> {
        let shown = crate::redact::export_target(value);
        let bad = |why: &str| format!("--export {shown}: {why}");
        let (kind, target) = value.split_once('=').ok_or_else(|| {
            bad("give KIND=TARGET: prometheus-rw=URL, prometheus=HOST:PORT, influxdb=URL or otlp=URL")
        })?;
        let kind = match kind.trim() {
            "prometheus-rw" => Kind::PrometheusRw,
            "prometheus" => Kind::Prometheus,
            "influxdb" => Kind::Influxdb,
            "otlp" => Kind::Otlp,
            other => {
                return Err(bad(&format!("unknown kind `{other}`: give prometheus-rw, prometheus, influxdb or otlp")));
            }
        };
        let target = target.trim();
        if target.is_empty() {
            return Err(bad("the target is empty"));
        }
        let target = match kind {
            Kind::Prometheus => {
                use std::net::ToSocketAddrs as _;
                let addr =
                    target.to_socket_addrs().ok().and_then(|mut a| a.next()).ok_or_else(|| {
                        bad("give the address to serve /metrics on as HOST:PORT (e.g. 127.0.0.1:9464)")
                    })?;
                Target::Listen(addr, Arc::default())
            }
            Kind::PrometheusRw | Kind::Otlp => {
                let url = url::Url::parse(target).map_err(|e| bad(&format!("not a URL: {e}")))?;
                let endpoint = http::Endpoint::parse(&url).map_err(|e| bad(&e))?;
                let headers = if kind == Kind::Otlp { otlp::HEADERS } else { remote_write::HEADERS };
                let headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
                Target::Push { endpoint, headers }
            }
            Kind::Influxdb => influx_target(target, influx_token).map_err(|e| bad(&e))?,
        };
        Ok(Spec { kind, target, shown })
    }

    /// Binds a `prometheus=ADDR` sink's address (nothing for the others), so that an address
    /// in use is said before the run starts.
    pub fn bind(&self) -> Result<(), String> {
        let Target::Listen(addr, slot) = &self.target else { return Ok(()) };
        let listener = std::net::TcpListener::bind(addr)
            .and_then(|l| l.set_nonblocking(true).map(|_| l))
            .map_err(|e| format!("--export {}: cannot listen on {addr}: {e}", self.shown))?;
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(listener);
        Ok(())
    }

    /// `KIND=TARGET` as it may be shown.
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

/// An InfluxDB write URL: `/write?db=NAME` (1.x, user and password as `u`/`p` or in the URL)
/// or `/api/v2/write?org=..&bucket=..` (2.x, the token from `INFLUX_TOKEN` or the URL's
/// `token=`, sent as `Authorization: Token`). Timestamps are sent in ms.
fn influx_target(target: &str, env_token: Option<&str>) -> Result<Target, String> {
    let mut url = url::Url::parse(target).map_err(|e| format!("not a URL: {e}"))?;
    let pairs: Vec<(String, String)> = url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    let has = |k: &str| pairs.iter().any(|(n, v)| n == k && !v.is_empty());
    let path = url.path().trim_end_matches('/').to_string();
    let v2 = if path.ends_with("/api/v2/write") {
        if !has("bucket") || !(has("org") || has("orgID")) {
            return Err("an InfluxDB 2 URL needs ?org=ORG&bucket=BUCKET".into());
        }
        true
    } else if path.ends_with("/write") {
        if !has("db") {
            return Err("an InfluxDB 1 URL needs ?db=DATABASE".into());
        }
        false
    } else {
        return Err("give InfluxDB's write URL: http://HOST:8086/write?db=NAME (1.x) or http://HOST:8086/api/v2/write?org=ORG&bucket=BUCKET (2.x)".into());
    };
    let url_token = pairs.iter().find(|(k, _)| k == "token").map(|(_, v)| v.clone());
    url.query_pairs_mut().clear().extend_pairs(
        pairs
            .iter()
            .filter(|(k, _)| k != "precision" && k != "token")
            .chain([&("precision".to_string(), "ms".to_string())]),
    );
    let mut endpoint = http::Endpoint::parse(&url)?;
    let mut headers = vec![("Content-Type".to_string(), "text/plain; charset=utf-8".to_string())];
    match url_token.or_else(|| env_token.map(str::to_string)).filter(|t| !t.trim().is_empty()) {
        Some(token) => {
            // The token is InfluxDB's own scheme; userinfo would be ignored beside it.
            endpoint.authorization = None;
            headers.push(("Authorization".to_string(), format!("Token {}", token.trim())));
        }
        None if v2 && endpoint.authorization.is_none() => {
            return Err("InfluxDB 2 needs a token: set INFLUX_TOKEN in the environment".into());
        }
        None => {}
    }
    Ok(Target::Push { endpoint, headers })
}

/// What one sink did, said at the end of the run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub kind: &'static str,
    /// The target as it may be shown.
    pub target: String,
    /// Intervals handed to the sink.
    pub intervals: u64,
    /// Pushed and accepted (push sinks), or pages served (`prometheus`).
    pub delivered: u64,
    /// Dropped while the queue was full: the sink was slower than the run.
    pub dropped: u64,
    /// Pushes that failed (refused, timed out, an error status).
    pub failed: u64,
    /// Still queued when the grace after the run ran out.
    pub unsent: u64,
    /// The last failure, in words (no credentials).
    pub last_error: Option<String>,
    /// Whether the run's final numbers reached the target.
    pub final_delivered: bool,
}

impl Report {
    /// Whether the target has everything: the final numbers and no gap.
    pub fn complete(&self) -> bool {
        self.final_delivered && self.dropped == 0 && self.failed == 0 && self.unsent == 0
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "export {}: ", self.target)?;
        if self.kind == Kind::Prometheus.name() {
            write!(f, "{} scrapes served", self.delivered)?;
            if !self.final_delivered {
                write!(f, "; the final numbers were not scraped within {}", humantime::format_duration(GRACE))?;
            }
            return Ok(());
        }
        write!(f, "{} of {} intervals delivered", self.delivered, self.intervals)?;
        if self.dropped > 0 {
            write!(f, ", {} dropped (queue full: the sink is slower than the run)", self.dropped)?;
        }
        if self.failed > 0 {
            write!(f, ", {} failed", self.failed)?;
        }
        if self.unsent > 0 {
            write!(f, ", {} not sent within {} after the run", self.unsent, humantime::format_duration(GRACE))?;
        }
        if let Some(e) = &self.last_error {
            write!(f, " (last error: {e})")?;
        }
        if !self.final_delivered {
            write!(f, "; the run's final totals did not reach it")?;
        }
        Ok(())
    }
}

/// Where the sinks leave their [`Report`]s, in the order they finish.
pub type Reports = Arc<Mutex<Vec<Report>>>;

/// The sinks of `specs`, as outputs. A `prometheus=ADDR` sink uses the listener [`Spec::bind`]
/// bound, or binds its address now.
pub fn outputs(specs: &[Spec], ident: &Ident, reports: &Reports) -> Result<Vec<Box<dyn Output>>, String> {
    let ident = Arc::new(ident.clone());
    specs
        .iter()
        .map(|s| -> Result<Box<dyn Output>, String> {
            let common = Common {
                kind: s.kind,
                shown: s.shown.clone(),
                ident: ident.clone(),
                metrics: None,
                reports: reports.clone(),
            };
            Ok(match &s.target {
                Target::Push { endpoint, headers } => Box::new(PushSink {
                    common,
                    endpoint: endpoint.clone(),
                    headers: headers.clone(),
                    queue: Arc::new(Queue::default()),
                    counts: Arc::new(Counts::default()),
                    thread: None,
                    done: None,
                    intervals: 0,
                }),
                Target::Listen(_, slot) => {
                    if slot.lock().unwrap_or_else(|e| e.into_inner()).is_none() {
                        s.bind()?;
                    }
                    let listener = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                    Box::new(ServeSink { common, listener, page: Arc::new(Page::default()), thread: None })
                }
            })
        })
        .collect()
}

/// What every sink has: its name, who the numbers belong to, the cumulative state.
struct Common {
    kind: Kind,
    shown: String,
    ident: Arc<Ident>,
    metrics: Option<Metrics>,
    reports: Reports,
}

impl Common {
    fn start(&mut self, start: &Start<'_>) {
        self.metrics = Some(Metrics::new(
            start.meta.labels.clone(),
            start.plan.scenarios.iter().map(|s| s.name.clone()).collect(),
            start.plan.checks.clone(),
            self.kind == Kind::Influxdb,
        ));
    }

    fn snapshot(&mut self, iv: &Interval) -> Snapshot {
        self.metrics.get_or_insert_with(Metrics::default).update(iv)
    }

    fn report(&self, r: Report) {
        self.reports.lock().unwrap_or_else(|e| e.into_inner()).push(r);
    }
}

/// A bounded queue that drops its oldest snapshot when full: the newest carries the latest
/// totals, so it is the one worth keeping.
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
}

#[derive(Default)]
struct QueueState {
    items: VecDeque<Snapshot>,
    closed: bool,
}

impl Queue {
    /// Adds `snap`; true when an older one had to be dropped for it.
    fn push(&self, snap: Snapshot) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let dropped = s.items.len() >= QUEUE && s.items.pop_front().is_some();
        s.items.push_back(snap);
        drop(s);
        self.ready.notify_one();
        dropped
    }

    fn close(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.ready.notify_all();
    }

    /// The next snapshot, or `None` once closed and empty.
    fn pop(&self) -> Option<Snapshot> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(x) = s.items.pop_front() {
                return Some(x);
            }
            if s.closed {
                return None;
            }
            s = self.ready.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[derive(Default)]
struct Counts {
    delivered: AtomicU64,
    dropped: AtomicU64,
    failed: AtomicU64,
    final_delivered: AtomicBool,
    /// Set when the grace ran out: the thread sends nothing more.
    stop: AtomicBool,
    last_error: Mutex<Option<String>>,
}

/// Remote write or InfluxDB: one POST per snapshot, from a thread of its own.
struct PushSink {
    common: Common,
    endpoint: http::Endpoint,
    headers: Vec<(String, String)>,
    queue: Arc<Queue>,
    counts: Arc<Counts>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Hangs up when the thread has sent everything it was given.
    done: Option<std::sync::mpsc::Receiver<()>>,
    intervals: u64,
}

impl PushSink {
    fn spawn(&mut self) -> std::io::Result<()> {
        let (queue, counts, endpoint) = (self.queue.clone(), self.counts.clone(), self.endpoint.clone());
        let (kind, ident, headers) = (self.common.kind, self.common.ident.clone(), self.headers.clone());
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new().name(format!("export-{}", kind.name())).spawn(move || {
            let _done = done;
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            while let Some(snap) = queue.pop() {
                if counts.stop.load(Ordering::Relaxed) {
                    break;
                }
                let body = match kind {
                    Kind::Influxdb => Ok(influx::lines(&snap, &ident).into_bytes()),
                    Kind::Otlp => Ok(otlp::body(&snap, &ident)),
                    _ => remote_write::body(&snap, &ident),
                };
                let result = body.and_then(|b| http::post(&endpoint, &headers, &b, PUSH_TIMEOUT)).and_then(|r| {
                    if (200..300).contains(&r.status) {
                        Ok(())
                    } else {
                        Err(format!("HTTP {}: {}", r.status, r.body))
                    }
                });
                match result {
                    Ok(()) => {
                        counts.delivered.fetch_add(1, Ordering::Relaxed);
                        if snap.last {
                            counts.final_delivered.store(true, Ordering::Relaxed);
                        }
                    }
                    Err(e) => {
                        counts.failed.fetch_add(1, Ordering::Relaxed);
                        *counts.last_error.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(crate::redact::text(&e).into_owned());
                    }
                }
            }
        })?;
        self.thread = Some(thread);
        self.done = Some(finished);
        Ok(())
    }
}

impl Output for PushSink {
    fn name(&self) -> &str {
        self.common.kind.name()
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        self.common.start(start);
        self.spawn().map_err(|e| format!("export {}: cannot start its thread: {e}", self.common.shown).into())
    }

    fn interval(&mut self, iv: &Interval) -> Result<(), OutputError> {
        self.intervals += 1;
        let snap = self.common.snapshot(iv);
        if self.queue.push(snap) {
            self.counts.dropped.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    fn finish(&mut self, _: &End<'_>) -> Result<(), OutputError> {
        self.queue.close();
        // The thread drops its sender when it ends; past the grace it is left to end by itself
        // (within one push's deadline), sending nothing more.
        let finished = self
            .done
            .take()
            .is_none_or(|d| matches!(d.recv_timeout(GRACE), Err(std::sync::mpsc::RecvTimeoutError::Disconnected)));
        self.counts.stop.store(true, Ordering::Relaxed);
        if finished {
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
        let c = &self.counts;
        let (delivered, dropped, failed) =
            (c.delivered.load(Ordering::Relaxed), c.dropped.load(Ordering::Relaxed), c.failed.load(Ordering::Relaxed));
        self.common.report(Report {
            kind: self.common.kind.name(),
            target: self.common.shown.clone(),
            intervals: self.intervals,
            delivered,
            dropped,
            failed,
            // One push may still be under way past the grace: it is counted as not sent.
            unsent: self.intervals.saturating_sub(delivered + dropped + failed),
            last_error: c.last_error.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            final_delivered: c.final_delivered.load(Ordering::Relaxed),
        });
        Ok(())
    }
}

/// The `/metrics` page's state, shared with the serving thread.
#[derive(Default)]
struct Page {
    snapshot: Mutex<Option<Arc<Snapshot>>>,
    scrapes: AtomicU64,
    /// Whether the run's final numbers have been served, and its signal.
    final_scraped: Mutex<bool>,
    scraped: Condvar,
    stop: AtomicBool,
}

/// `prometheus=ADDR`: serves `/metrics` from the run's start until its final numbers have been
/// scraped once, or [`GRACE`] after its end.
struct ServeSink {
    common: Common,
    listener: Option<std::net::TcpListener>,
    page: Arc<Page>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Output for ServeSink {
    fn name(&self) -> &str {
        self.common.kind.name()
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        self.common.start(start);
        let Some(listener) = self.listener.take() else { return Ok(()) };
        let (page, ident) = (self.page.clone(), self.common.ident.clone());
        let thread = std::thread::Builder::new()
            .name("export-prometheus".into())
            .spawn(move || serve(listener, &page, &ident))
            .map_err(|e| format!("export {}: cannot start its thread: {e}", self.common.shown))?;
        self.thread = Some(thread);
        Ok(())
    }

    fn interval(&mut self, iv: &Interval) -> Result<(), OutputError> {
        let snap = Arc::new(self.common.snapshot(iv));
        *self.page.snapshot.lock().unwrap_or_else(|e| e.into_inner()) = Some(snap);
        Ok(())
    }

    fn finish(&mut self, _: &End<'_>) -> Result<(), OutputError> {
        let scraped = self.page.final_scraped.lock().unwrap_or_else(|e| e.into_inner());
        let (scraped, _) =
            self.page.scraped.wait_timeout_while(scraped, GRACE, |s| !*s).unwrap_or_else(|e| e.into_inner());
        let final_delivered = *scraped;
        drop(scraped);
        self.page.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let scrapes = self.page.scrapes.load(Ordering::Relaxed);
        self.common.report(Report {
            kind: self.common.kind.name(),
            target: self.common.shown.clone(),
            intervals: 0,
            delivered: scrapes,
            dropped: 0,
            failed: 0,
            unsent: 0,
            last_error: None,
            final_delivered,
        });
        Ok(())
    }
}

/// Answers one request at a time until told to stop; a client gets [`PUSH_TIMEOUT`] to send its
/// request, so none can hold the page for long.
fn serve(listener: std::net::TcpListener, page: &Page, ident: &Ident) {
    use std::io::{Read, Write};
    while !page.stop.load(Ordering::Acquire) {
        let mut stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            Err(_) => {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(PUSH_TIMEOUT));
        let _ = stream.set_write_timeout(Some(PUSH_TIMEOUT));
        let mut head = Vec::new();
        let mut buf = [0u8; 2048];
        while head.len() < 16 * 1024 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        let line = String::from_utf8_lossy(&head);
        let path = line.split_whitespace().nth(1).unwrap_or("");
        if path == "/metrics" || path.starts_with("/metrics?") {
            let snap = page.snapshot.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let body = exposition::render(snap.as_deref(), ident);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            if stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes())).is_ok() {
                page.scrapes.fetch_add(1, Ordering::Relaxed);
                if snap.is_some_and(|s| s.last) {
                    *page.final_scraped.lock().unwrap_or_else(|e| e.into_inner()) = true;
                    page.scraped.notify_all();
                }
            }
        } else {
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 20\r\nConnection: close\r\n\r\nonly /metrics here.\n",
            );
        }
    }
}

#[cfg(test)]
mod dashboard_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_named_with_their_credentials_masked() {
        let err = |v: &str, token: Option<&str>| Spec::parse(v, token).unwrap_err();
        assert_eq!(
            err("prometheus-rw", None),
            "--export prometheus-rw: give KIND=TARGET: prometheus-rw=URL, prometheus=HOST:PORT, influxdb=URL or otlp=URL"
        );
        let e = err("graphite=http://u:pw@127.0.0.1:2003/", None);
        assert!(e.starts_with("--export graphite=http://***@127.0.0.1:2003/: unknown kind `graphite`"), "{e}");
        let e = err("prometheus-rw=https://bob:s3cret@127.0.0.1/api/v1/write", None);
        assert!(e.contains("https is not supported") && !e.contains("s3cret"), "{e}");
        let e = err("influxdb=http://127.0.0.1:8086/query?db=x&p=hunter2", None);
        assert!(e.contains("give InfluxDB's write URL") && !e.contains("hunter2"), "{e}");
        assert!(err("influxdb=http://127.0.0.1:8086/api/v2/write?org=o&bucket=b", None).contains("INFLUX_TOKEN"));
        assert!(err("influxdb=http://127.0.0.1:8086/write", None).contains("?db=DATABASE"));
        assert!(err("prometheus=nowhere", None).contains("HOST:PORT"));
        let e = err("otlp=ftp://127.0.0.1:4318/v1/metrics", None);
        assert!(e.contains("is not http://"), "{e}");
    }

    #[test]
    fn influxdb_tokens_go_in_a_header_and_timestamps_in_ms() {
        let s =
            Spec::parse("influxdb=http://127.0.0.1:8086/api/v2/write?org=o&bucket=b&precision=s", Some("tk")).unwrap();
        let Target::Push { endpoint, headers } = &s.target else { panic!("not a push target") };
        assert!(headers.contains(&("Authorization".into(), "Token tk".into())));
        let shown = format!("{endpoint:?}");
        assert!(shown.contains("precision=ms") && !shown.contains("precision=s&"), "{shown}");
        let s = Spec::parse("influxdb=http://127.0.0.1:8086/api/v2/write?org=o&bucket=b&token=t2", None).unwrap();
        assert_eq!(s.shown(), "influxdb=http://127.0.0.1:8086/api/v2/write?org=o&bucket=b&token=***");
        let Target::Push { endpoint, headers } = &s.target else { panic!("not a push target") };
        assert!(headers.contains(&("Authorization".into(), "Token t2".into())));
        assert!(!format!("{endpoint:?}").contains("t2"));
    }

    #[test]
    fn a_full_queue_drops_its_oldest_snapshot() {
        let q = Queue::default();
        for i in 0..QUEUE as u64 {
            assert!(!q.push(Snapshot { index: i, ..Default::default() }));
        }
        assert!(q.push(Snapshot { index: 999, ..Default::default() }));
        q.close();
        let got: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|s| s.index).collect();
        assert_eq!(got.len(), QUEUE);
        assert_eq!(got[0], 1);
        assert_eq!(got[QUEUE - 1], 999);
    }
}
