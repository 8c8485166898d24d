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
//! `finish` only closes the queue: [`Reports::settle`] then waits at most [`GRACE`] in all, for
//! every sink at once, and a second Ctrl-C ends that wait.

pub(crate) mod exposition;
mod http;
pub(crate) mod influx;
pub(crate) mod metrics;
pub(crate) mod otlp;
pub(crate) mod remote_write;

pub(crate) use metrics::{Ident, Snapshot};

use crate::record::Interval;
use crate::run::{End, Output, OutputError, Start};
use metrics::Metrics;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long one push may take, connect to answer.
pub(crate) const PUSH_TIMEOUT: Duration = Duration::from_secs(2);
/// How long [`Reports::settle`] waits, for all the sinks together, for what is queued to be sent
/// (or the final page to be scraped once more).
pub(crate) const GRACE: Duration = Duration::from_secs(3);
/// Snapshots a push sink holds while its target is slow; past this the oldest is dropped.
pub(crate) const QUEUE: usize = 64;

/// The kinds `--export` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
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
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::PrometheusRw => "prometheus-rw",
            Kind::Prometheus => "prometheus",
            Kind::Influxdb => "influxdb",
            Kind::Otlp => "otlp",
        }
    }
}

/// One `--export KIND=TARGET`, checked. `Debug` shows only what may be shown.
#[derive(Clone)]
pub(crate) struct Spec {
    pub kind: Kind,
    target: Target,
    /// The value as it may be shown (credentials masked).
    shown: String,
}

impl std::fmt::Debug for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spec").field("kind", &self.kind).field("shown", &self.shown).finish_non_exhaustive()
    }
}

#[derive(Clone)]
enum Target {
    Push {
        endpoint: http::Endpoint,
        headers: Vec<(String, String)>,
        /// InfluxDB 2's write API: its line protocol reads `\\` in a tag as `\`, 1.x's does not.
        influx2: bool,
    },
    /// The address, and the listener once [`Spec::bind`] has bound it.
    Listen(std::net::SocketAddr, Arc<Mutex<Option<std::net::TcpListener>>>),
}

/// Written by hand: headers may hold a token (InfluxDB 2); the endpoint masks its own.
impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Push { endpoint, headers, .. } => {
                let names: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
                f.debug_struct("Push").field("endpoint", endpoint).field("headers", &names).finish()
            }
            Target::Listen(addr, _) => f.debug_tuple("Listen").field(addr).finish(),
        }
    }
}

impl Spec {
    /// Parses `KIND=TARGET`. `influx_token` is `INFLUX_TOKEN` from the environment, for
    /// InfluxDB 2. The error names the flag and the value, credentials masked.
    pub(crate) fn parse(value: &str, influx_token: Option<&str>) -> Result<Spec, SpecError> {
        let shown = crate::redact::export_target(value);
        let bad = |why: &str| SpecError::Invalid { shown: shown.clone(), why: why.to_string() };
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
                // `:9464` is loopback, not every interface: the page is for a Prometheus on this
                // machine unless an address says otherwise (`0.0.0.0:9464`).
                let with_host;
                let target = if target.starts_with(':') {
                    with_host = format!("127.0.0.1{target}");
                    with_host.as_str()
                } else {
                    target
                };
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
                Target::Push { endpoint, headers, influx2: false }
            }
            Kind::Influxdb => influx_target(target, influx_token).map_err(|e| bad(&e))?,
        };
        Ok(Spec { kind, target, shown })
    }

    /// Binds a `prometheus=ADDR` sink's address (nothing for the others), so that an address
    /// in use is said before the run starts.
    pub(crate) fn bind(&self) -> Result<(), SpecError> {
        let Target::Listen(addr, slot) = &self.target else { return Ok(()) };
        let listener = std::net::TcpListener::bind(addr)
            .and_then(|l| l.set_nonblocking(true).map(|_| l))
            .map_err(|source| SpecError::Listen { shown: self.shown.clone(), addr: *addr, source })?;
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(listener);
        Ok(())
    }

    /// `KIND=TARGET` as it may be shown.
    #[cfg(test)]
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }
}

/// An `--export` value that is not a sink, or a sink's address that cannot be listened on:
/// named with the flag and the value, credentials masked.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpecError {
    /// `why` says what to give instead.
    #[error("--export {shown}: {why}")]
    Invalid { shown: String, why: String },
    #[error("--export {shown}: cannot listen on {addr}: {source}")]
    Listen { shown: String, addr: std::net::SocketAddr, source: std::io::Error },
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
    // What a server may echo back in an error (a proxy's page): scrubbed from the report.
    let query_secrets: Vec<String> = pairs
        .iter()
        .filter(|(k, v)| matches!(k.as_str(), "u" | "p" | "token") && !v.is_empty())
        .map(|(_, v)| v.clone())
        .collect();
    url.query_pairs_mut().clear().extend_pairs(
        pairs
            .iter()
            .filter(|(k, _)| k != "precision" && k != "token")
            .chain([&("precision".to_string(), "ms".to_string())]),
    );
    let mut endpoint = http::Endpoint::parse(&url)?;
    endpoint.secrets.extend(query_secrets);
    let mut headers = vec![("Content-Type".to_string(), "text/plain; charset=utf-8".to_string())];
    // INFLUX_TOKEN is for InfluxDB 2 only: a 1.x URL says its own credentials (userinfo, u/p),
    // which an unrelated variable in the environment must not silently replace. A `token=` in
    // the URL is explicit, for either.
    let env_token = if v2 { env_token } else { None };
    match url_token.or_else(|| env_token.map(str::to_string)).filter(|t| !t.trim().is_empty()) {
        Some(token) => {
            // The token is InfluxDB's own scheme; userinfo would be ignored beside it.
            endpoint.authorization = None;
            endpoint.secrets.push(token.trim().to_string());
            headers.push(("Authorization".to_string(), format!("Token {}", token.trim())));
        }
        None if v2 && endpoint.authorization.is_none() => {
            return Err("InfluxDB 2 needs a token: set INFLUX_TOKEN in the environment".into());
        }
        None => {}
    }
    Ok(Target::Push { endpoint, headers, influx2: v2 })
}

/// An error (with the start of what the server answered) as it may be shown: the target's own
/// credential values masked wherever they appear (a proxy may echo the request line, `p=...`
/// and all), then what [`redact::text`](crate::redact::text) masks by name.
/// The shortest credential looked for in a server's error text.
const SCRUB_MIN_LEN: usize = 3;

fn scrub(error: &str, secrets: &[String]) -> String {
    let mut e = error.to_string();
    // A value of a few letters (a user `u`) would mask every such letter of the server's words;
    // where it could appear as itself (the URL) it is masked by its place.
    for s in secrets.iter().filter(|s| s.chars().count() >= SCRUB_MIN_LEN) {
        e = e.replace(s.as_str(), crate::redact::MASK);
        // Also as it travels in a URL, percent-encoded.
        let encoded: String = url::form_urlencoded::byte_serialize(s.as_bytes()).collect();
        e = e.replace(&encoded, crate::redact::MASK);
    }
    crate::redact::text(&e).into_owned()
}

/// What one sink did, said at the end of the run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Report {
    pub kind: &'static str,
    /// The target as it may be shown.
    pub target: String,
    /// Intervals handed to the sink.
    pub intervals: u64,
    /// Pushed and accepted (push sinks), or pages served (`prometheus`).
    pub delivered: u64,
    /// Dropped while the queue was full: the sink was slower than the run.
    pub dropped: u64,
    /// Cumulative sinks: older snapshots still queued when the run ended, skipped for the newest
    /// (which carries their totals; the target would refuse them after it as out of order).
    pub superseded: u64,
    /// Pushes that failed (refused, timed out, an error status).
    pub failed: u64,
    /// Still queued when the grace after the run ran out.
    pub unsent: u64,
    /// The intervals (by index, from 0, inclusive ranges) that did not reach the target:
    /// dropped, superseded, failed or not sent. For InfluxDB, which stores each interval's
    /// point, these are the missing points.
    pub missed: Vec<(u64, u64)>,
    /// The last failure, in words (no credentials).
    pub last_error: Option<String>,
    /// Whether the run's final numbers reached the target.
    pub final_delivered: bool,
}

impl Report {
    /// Whether the target has everything: the final numbers and no gap.
    pub(crate) fn complete(&self) -> bool {
        self.final_delivered && self.dropped == 0 && self.superseded == 0 && self.failed == 0 && self.unsent == 0
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
        if self.superseded > 0 {
            write!(f, ", {} skipped at the end for the newest totals", self.superseded)?;
        }
        if self.failed > 0 {
            write!(f, ", {} failed", self.failed)?;
        }
        if self.unsent > 0 {
            write!(f, ", {} not sent within {} after the run", self.unsent, humantime::format_duration(GRACE))?;
        }
        if !self.missed.is_empty() {
            let ranges: Vec<String> =
                self.missed.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
            write!(f, "; intervals missing: {}", ranges.join(", "))?;
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

/// Where the sinks leave what they still have to do when the run ends, and then their
/// [`Report`]s. `finish` only closes a sink's queue and leaves it here; [`Reports::settle`] then
/// waits for all of them at once, against one deadline, so that the wait after a run is
/// [`GRACE`] whatever the number of sinks.
#[derive(Clone, Default)]
pub(crate) struct Reports(Arc<Board>);

#[derive(Default)]
struct Board {
    pending: Mutex<Vec<Waiting>>,
    done: Mutex<Vec<Report>>,
}

impl Reports {
    /// Waits at most [`GRACE`] in all for every finished sink to send what it holds (or to be
    /// scraped once more), or until `cut` says to stop (a second Ctrl-C), then writes their
    /// reports. Blocks: call it off the async workers (`spawn_blocking`).
    pub(crate) fn settle(&self, cut: &dyn Fn() -> bool) {
        let mut pending = std::mem::take(&mut *self.0.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if pending.is_empty() {
            return;
        }
        let deadline = std::time::Instant::now() + GRACE;
        // Polled rather than waited on one condition: the sinks are of two kinds and the cut is a
        // token of the async side. Bounded by the deadline (at most GRACE / 20 ms rounds).
        loop {
            let all = pending.iter_mut().all(|w| w.is_done());
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if all || left.is_zero() || cut() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(20)));
        }
        // Every sink told to stop first, then one bound for all the serving threads to return.
        for w in &pending {
            w.stop();
        }
        let close_by = std::time::Instant::now() + CLOSE;
        let reports: Vec<Report> = pending.into_iter().map(|w| w.report(close_by)).collect();
        self.0.done.lock().unwrap_or_else(|e| e.into_inner()).extend(reports);
    }

    /// The reports, in the order of the sinks.
    pub(crate) fn list(&self) -> Vec<Report> {
        self.0.done.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn wait_for(&self, w: Waiting) {
        self.0.pending.lock().unwrap_or_else(|e| e.into_inner()).push(w);
    }
}

/// A finished sink that may still be sending (or serving its final page).
enum Waiting {
    Push {
        kind: Kind,
        shown: String,
        intervals: u64,
        superseded: u64,
        counts: Arc<Counts>,
        /// Hangs up when the thread has sent everything it was given.
        done: Option<std::sync::mpsc::Receiver<()>>,
        finished: bool,
        thread: Option<std::thread::JoinHandle<()>>,
    },
    Serve {
        shown: String,
        page: Arc<Page>,
        thread: Option<std::thread::JoinHandle<()>>,
        /// Hangs up when the serving thread has returned.
        stopped: Option<std::sync::mpsc::Receiver<()>>,
    },
}

/// How long a `/metrics` sink's thread gets to return once told to stop (it may be answering a
/// client, under [`CONNECTION_DEADLINE`]); past it the thread is left behind, detached.
const CLOSE: Duration = Duration::from_millis(1_100);
/// All the time one `/metrics` client gets, request to answer: a slow client holds the page
/// (answered one client at a time) at most this long.
const CONNECTION_DEADLINE: Duration = Duration::from_secs(1);

impl Waiting {
    fn is_done(&mut self) -> bool {
        match self {
            Waiting::Push { done, finished, .. } => {
                if !*finished {
                    *finished = done
                        .as_ref()
                        .is_none_or(|d| matches!(d.try_recv(), Err(std::sync::mpsc::TryRecvError::Disconnected)));
                }
                *finished
            }
            Waiting::Serve { page, .. } => *page.final_scraped.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Tells the sink's thread to stop: a push thread sends nothing more, a page closes.
    fn stop(&self) {
        match self {
            Waiting::Push { counts, .. } => counts.stop.store(true, Ordering::Relaxed),
            Waiting::Serve { page, .. } => page.stop.store(true, Ordering::Release),
        }
    }

    /// The sink's report, once told to [`stop`](Self::stop); a serving thread is waited for
    /// until `close_by` at most.
    fn report(mut self, close_by: std::time::Instant) -> Report {
        let done = self.is_done();
        self.stop();
        match self {
            Waiting::Push { kind, shown, intervals, superseded, counts: c, thread, .. } => {
                // Past the grace the thread is left to end by itself (within one push's deadline),
                // sending nothing more.
                if done {
                    if let Some(t) = thread {
                        let _ = t.join();
                    }
                }
                let (delivered, dropped, failed) = (
                    c.delivered.load(Ordering::Relaxed),
                    c.dropped.load(Ordering::Relaxed),
                    c.failed.load(Ordering::Relaxed),
                );
                let sent = c.sent.lock().unwrap_or_else(|e| e.into_inner()).clone();
                Report {
                    kind: kind.name(),
                    target: shown,
                    intervals,
                    delivered,
                    dropped,
                    superseded,
                    failed,
                    // One push may still be under way past the grace: it is counted as not sent.
                    unsent: intervals.saturating_sub(delivered + dropped + superseded + failed),
                    missed: missed(intervals, &sent),
                    last_error: c.last_error.lock().unwrap_or_else(|e| e.into_inner()).clone(),
                    final_delivered: c.final_delivered.load(Ordering::Relaxed),
                }
            }
            Waiting::Serve { shown, page, thread, stopped } => {
                // Bounded: a thread still in a client's exchange is detached, not waited for.
                let left = close_by.saturating_duration_since(std::time::Instant::now());
                let returned = stopped.is_none_or(|s| {
                    matches!(s.recv_timeout(left), Err(std::sync::mpsc::RecvTimeoutError::Disconnected))
                });
                if returned {
                    if let Some(t) = thread {
                        let _ = t.join();
                    }
                }
                Report {
                    kind: Kind::Prometheus.name(),
                    target: shown,
                    intervals: 0,
                    delivered: page.scrapes.load(Ordering::Relaxed),
                    dropped: 0,
                    superseded: 0,
                    failed: 0,
                    unsent: 0,
                    missed: Vec::new(),
                    last_error: None,
                    final_delivered: done,
                }
            }
        }
    }
}

/// The intervals (by index) of `0..intervals` not in `sent` (ranges of delivered indexes, in
/// order), as inclusive ranges.
fn missed(intervals: u64, sent: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut next = 0;
    for &(a, b) in sent {
        if a > next {
            out.push((next, a - 1));
        }
        next = next.max(b + 1);
    }
    if next < intervals {
        out.push((next, intervals - 1));
    }
    out
}

/// The sinks of `specs`, as outputs. A `prometheus=ADDR` sink uses the listener [`Spec::bind`]
/// bound, or binds its address now.
pub(crate) fn outputs(specs: &[Spec], ident: &Ident, reports: &Reports) -> Result<Vec<Box<dyn Output>>, SpecError> {
    let ident = Arc::new(ident.clone());
    specs
        .iter()
        .map(|s| -> Result<Box<dyn Output>, SpecError> {
            let common = Common {
                kind: s.kind,
                shown: s.shown.clone(),
                ident: ident.clone(),
                metrics: None,
                reports: reports.clone(),
            };
            Ok(match &s.target {
                Target::Push { endpoint, headers, influx2 } => Box::new(PushSink {
                    common,
                    endpoint: endpoint.clone(),
                    headers: headers.clone(),
                    influx2: *influx2,
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
                    Box::new(ServeSink {
                        common,
                        listener,
                        page: Arc::new(Page::default()),
                        thread: None,
                        stopped: None,
                    })
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
        self.metrics = Some(
            Metrics::new(
                start.meta.labels.clone(),
                start.plan.scenarios.iter().map(|s| s.name.clone()).collect(),
                start.plan.checks.clone(),
                self.kind == Kind::Influxdb,
            )
            .with_label_scenarios(start.plan.label_scenarios()),
        );
    }

    fn snapshot(&mut self, iv: &Interval) -> Snapshot {
        self.metrics.get_or_insert_with(Metrics::default).update(iv)
    }

    fn part(&mut self, agent: usize, name: &str, iv: &Interval) {
        self.metrics.get_or_insert_with(Metrics::default).part(agent, name, iv);
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

    /// Closes the queue; with `newest_only`, keeps only its newest snapshot and returns how many
    /// older ones were skipped. A cumulative sink behind a backlog would otherwise send the
    /// run's final totals last, after the grace has run out.
    fn close(&self, newest_only: bool) -> u64 {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.closed = true;
        let mut skipped = 0;
        if newest_only && s.items.len() > 1 {
            let newest = s.items.pop_back();
            skipped = s.items.len() as u64;
            s.items.clear();
            s.items.extend(newest);
        }
        drop(s);
        self.ready.notify_all();
        skipped
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
    /// The indexes of the intervals delivered, as inclusive ranges in order.
    sent: Mutex<Vec<(u64, u64)>>,
    last_error: Mutex<Option<String>>,
}

/// Remote write or InfluxDB: one POST per snapshot, from a thread of its own.
struct PushSink {
    common: Common,
    endpoint: http::Endpoint,
    headers: Vec<(String, String)>,
    influx2: bool,
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
        let influx2 = self.influx2;
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new().name(format!("export-{}", kind.name())).spawn(move || {
            let _done = done;
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            while let Some(snap) = queue.pop() {
                if counts.stop.load(Ordering::Relaxed) {
                    break;
                }
                let body = match kind {
                    Kind::Influxdb => Ok(influx::lines(&snap, &ident, influx2).into_bytes()),
                    Kind::Otlp => Ok(otlp::body(&snap, &ident)),
                    _ => remote_write::body(&snap, &ident).map_err(|e| e.to_string()),
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
                        let mut sent = counts.sent.lock().unwrap_or_else(|e| e.into_inner());
                        match sent.last_mut() {
                            Some((_, b)) if *b + 1 == snap.index => *b = snap.index,
                            _ => sent.push((snap.index, snap.index)),
                        }
                        drop(sent);
                        if snap.last {
                            counts.final_delivered.store(true, Ordering::Relaxed);
                        }
                    }
                    Err(e) => {
                        counts.failed.fetch_add(1, Ordering::Relaxed);
                        *counts.last_error.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(scrub(&e, &endpoint.secrets));
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

    fn part_interval(&mut self, agent: usize, name: &str, iv: &Interval) {
        self.common.part(agent, name, iv);
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
        // InfluxDB stores each interval's point: every one is worth sending, oldest first. The
        // others are cumulative: the newest snapshot says everything the older ones did.
        let superseded = self.queue.close(self.common.kind != Kind::Influxdb);
        // Not waited for here: `Reports::settle` waits for every sink at once.
        self.common.reports.wait_for(Waiting::Push {
            kind: self.common.kind,
            shown: self.common.shown.clone(),
            intervals: self.intervals,
            superseded,
            counts: self.counts.clone(),
            done: self.done.take(),
            finished: false,
            thread: self.thread.take(),
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
    stopped: Option<std::sync::mpsc::Receiver<()>>,
}

impl Output for ServeSink {
    fn name(&self) -> &str {
        self.common.kind.name()
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        self.common.start(start);
        let Some(listener) = self.listener.take() else { return Ok(()) };
        let (page, ident) = (self.page.clone(), self.common.ident.clone());
        let (stopped, returned) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("export-prometheus".into())
            .spawn(move || {
                let _stopped = stopped;
                serve(listener, &page, &ident)
            })
            .map_err(|e| format!("export {}: cannot start its thread: {e}", self.common.shown))?;
        self.thread = Some(thread);
        self.stopped = Some(returned);
        Ok(())
    }

    fn part_interval(&mut self, agent: usize, name: &str, iv: &Interval) {
        self.common.part(agent, name, iv);
    }

    fn interval(&mut self, iv: &Interval) -> Result<(), OutputError> {
        let snap = Arc::new(self.common.snapshot(iv));
        *self.page.snapshot.lock().unwrap_or_else(|e| e.into_inner()) = Some(snap);
        Ok(())
    }

    fn finish(&mut self, _: &End<'_>) -> Result<(), OutputError> {
        // Served on until its final numbers are scraped or `Reports::settle`'s deadline.
        self.common.reports.wait_for(Waiting::Serve {
            shown: self.common.shown.clone(),
            page: self.page.clone(),
            thread: self.thread.take(),
            stopped: self.stopped.take(),
        });
        Ok(())
    }
}

/// Answers one request at a time until told to stop; a client gets [`CONNECTION_DEADLINE`] for
/// its whole exchange, so none can hold the page, or the end of the run, for long.
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
        // One deadline for the whole exchange, not one per read: a client trickling a byte at a
        // time would otherwise hold the page (and the end of the run) without bound.
        let deadline = std::time::Instant::now() + CONNECTION_DEADLINE;
        let left = || deadline.checked_duration_since(std::time::Instant::now()).filter(|d| !d.is_zero());
        let mut head = Vec::new();
        let mut buf = [0u8; 2048];
        while head.len() < 16 * 1024 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let Some(left) = left() else { break };
            let _ = stream.set_read_timeout(Some(left));
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        if !head.windows(4).any(|w| w == b"\r\n\r\n") {
            continue;
        }
        // The page is small (a few kB per label): written whole within what is left.
        let _ = stream.set_write_timeout(Some(left().unwrap_or(Duration::from_millis(1))));
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
        let err = |v: &str, token: Option<&str>| Spec::parse(v, token).unwrap_err().to_string();
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

    /// An address in use is a typed error naming the flag, the value and the address (#34).
    #[test]
    fn an_address_in_use_is_said_with_the_flag() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let e = Spec::parse(&format!("prometheus={addr}"), None).unwrap().bind().unwrap_err();
        assert!(matches!(&e, SpecError::Listen { addr: a, .. } if *a == addr), "{e}");
        assert!(e.to_string().starts_with(&format!("--export prometheus={addr}: cannot listen on {addr}: ")), "{e}");
    }

    #[test]
    fn a_target_without_scheme_does_not_show_its_password() {
        let e = Spec::parse("influxdb=admin:pw4567@127.0.0.1:8086/write?db=x", None).unwrap_err();
        assert!(matches!(&e, SpecError::Invalid { shown, .. } if shown == "influxdb=***@127.0.0.1:8086/write?db=x"));
        assert_eq!(
            e.to_string(),
            "--export influxdb=***@127.0.0.1:8086/write?db=x: give an http:// URL (the scheme is missing)"
        );
        let s = Spec::parse("influxdb=http://u:pw4567@127.0.0.1:8086/write?db=x&p=hunter2", Some("tk9999")).unwrap();
        let shown = format!("{s:?}");
        assert!(!shown.contains("pw4567") && !shown.contains("hunter2") && !shown.contains("tk9999"), "{shown}");
    }

    #[test]
    fn a_metrics_port_alone_is_served_on_loopback() {
        let s = Spec::parse("prometheus=:9464", None).unwrap();
        let Target::Listen(addr, _) = &s.target else { panic!("not a listen target") };
        assert_eq!(addr.to_string(), "127.0.0.1:9464");
    }

    #[test]
    fn influx_token_from_the_environment_is_for_influxdb_2_only() {
        let s = Spec::parse("influxdb=http://bob:pw@127.0.0.1:8086/write?db=x", Some("tk")).unwrap();
        let Target::Push { endpoint, headers, .. } = &s.target else { panic!("not a push target") };
        assert!(endpoint.authorization.as_deref().is_some_and(|a| a.starts_with("Basic ")));
        assert!(!headers.iter().any(|(k, _)| k == "Authorization"));
    }

    #[test]
    fn an_echoed_credential_is_scrubbed_from_errors() {
        let secrets = vec!["s3cr+t".to_string(), "bob".to_string()];
        let e = scrub("HTTP 502: bad gateway for /write?db=x&u=bob&p=s3cr%2Bt (raw s3cr+t)", &secrets);
        assert!(!e.contains("s3cr") && !e.contains("bob"), "{e}");
        // A one-letter user does not garble the server's words.
        let e = scrub("HTTP 401: unauthorized", &["u".to_string(), "s3cr+t".to_string()]);
        assert_eq!(e, "HTTP 401: unauthorized");
    }

    #[test]
    fn influxdb_tokens_go_in_a_header_and_timestamps_in_ms() {
        let s =
            Spec::parse("influxdb=http://127.0.0.1:8086/api/v2/write?org=o&bucket=b&precision=s", Some("tk")).unwrap();
        let Target::Push { endpoint, headers, .. } = &s.target else { panic!("not a push target") };
        assert!(headers.contains(&("Authorization".into(), "Token tk".into())));
        let shown = format!("{endpoint:?}");
        assert!(shown.contains("precision=ms") && !shown.contains("precision=s&"), "{shown}");
        let s = Spec::parse("influxdb=http://127.0.0.1:8086/api/v2/write?org=o&bucket=b&token=t2", None).unwrap();
        assert_eq!(s.shown(), "influxdb=http://127.0.0.1:8086/api/v2/write?org=o&bucket=b&token=***");
        let Target::Push { endpoint, headers, .. } = &s.target else { panic!("not a push target") };
        assert!(headers.contains(&("Authorization".into(), "Token t2".into())));
        assert!(!format!("{endpoint:?}").contains("t2"));
    }

    #[test]
    fn a_closing_cumulative_queue_keeps_only_its_newest_snapshot() {
        let q = Queue::default();
        for i in 0..5 {
            q.push(Snapshot { index: i, last: i == 4, ..Default::default() });
        }
        assert_eq!(q.close(true), 4);
        let got: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|s| s.index).collect();
        assert_eq!(got, [4]);
    }

    #[test]
    fn missed_intervals_are_the_gaps_between_what_was_sent() {
        assert_eq!(missed(0, &[]), []);
        assert_eq!(missed(3, &[]), [(0, 2)]);
        assert_eq!(missed(10, &[(0, 2), (5, 5), (7, 9)]), [(3, 4), (6, 6)]);
        assert_eq!(missed(10, &[(2, 8)]), [(0, 1), (9, 9)]);
        let r = Report {
            kind: "influxdb",
            target: "influxdb=x".into(),
            intervals: 10,
            delivered: 6,
            dropped: 0,
            superseded: 0,
            failed: 2,
            unsent: 2,
            missed: vec![(3, 4), (8, 9)],
            last_error: None,
            final_delivered: false,
        };
        assert!(r.to_string().contains("intervals missing: 3-4, 8-9"), "{r}");
    }

    /// A push sink whose thread never ends (its sender kept), as a target that never answers.
    fn stuck(keep: &mut Vec<std::sync::mpsc::Sender<()>>) -> Waiting {
        let (tx, rx) = std::sync::mpsc::channel();
        keep.push(tx);
        Waiting::Push {
            kind: Kind::PrometheusRw,
            shown: "prometheus-rw=x".into(),
            intervals: 1,
            superseded: 0,
            counts: Arc::default(),
            done: Some(rx),
            finished: false,
            thread: None,
        }
    }

    #[test]
    fn the_grace_is_shared_by_every_sink_and_a_cut_ends_it() {
        let mut keep = Vec::new();
        let reports = Reports::default();
        for _ in 0..4 {
            reports.wait_for(stuck(&mut keep));
        }
        let t = std::time::Instant::now();
        reports.settle(&|| false);
        let took = t.elapsed();
        assert!(took >= GRACE && took < GRACE + Duration::from_millis(900), "{took:?}");
        assert_eq!(reports.list().len(), 4);
        assert!(reports.list().iter().all(|r| r.unsent == 1 && !r.final_delivered));
        // A second Ctrl-C: the wait ends at once.
        let reports = Reports::default();
        reports.wait_for(stuck(&mut keep));
        let t = std::time::Instant::now();
        reports.settle(&|| true);
        assert!(t.elapsed() < Duration::from_millis(500), "{:?}", t.elapsed());
        assert_eq!(reports.list().len(), 1);
    }

    #[test]
    fn a_slow_metrics_client_neither_holds_scrapes_nor_the_end_of_the_run() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let page = Arc::new(Page::default());
        let (stopped, returned) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn({
            let page = page.clone();
            move || {
                let _stopped = stopped;
                serve(listener, &page, &Ident::default());
            }
        });
        // A client that sends a byte every 100 ms, for longer than the connection's deadline.
        let trickle = std::thread::spawn(move || {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            for _ in 0..40 {
                if s.write_all(b"G").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        std::thread::sleep(Duration::from_millis(200));
        let t = std::time::Instant::now();
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").unwrap();
        let mut page_text = String::new();
        let _ = s.read_to_string(&mut page_text);
        assert!(page_text.starts_with("HTTP/1.1 200"), "{page_text}");
        assert!(t.elapsed() < CONNECTION_DEADLINE + Duration::from_millis(500), "{:?}", t.elapsed());
        // The end: bounded even with a client in the middle of an exchange.
        let t = std::time::Instant::now();
        let r = Waiting::Serve { shown: "prometheus=x".into(), page, thread: Some(thread), stopped: Some(returned) }
            .report(std::time::Instant::now() + CLOSE);
        assert!(t.elapsed() <= CLOSE + Duration::from_millis(200), "{:?}", t.elapsed());
        assert_eq!(r.delivered, 1);
        trickle.join().unwrap();
    }

    #[test]
    fn a_full_queue_drops_its_oldest_snapshot() {
        let q = Queue::default();
        for i in 0..QUEUE as u64 {
            assert!(!q.push(Snapshot { index: i, ..Default::default() }));
        }
        assert!(q.push(Snapshot { index: 999, ..Default::default() }));
        assert_eq!(q.close(false), 0);
        let got: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|s| s.index).collect();
        assert_eq!(got.len(), QUEUE);
        assert_eq!(got[0], 1);
        assert_eq!(got[QUEUE - 1], 999);
    }
}
