//! The built-in upstream: answers `200 OK` with body `OK` by default (what the seed studies
//! used NGINX for), or per path a configured status, body, headers and fixed or random delay.
//! It counts what it served. Written on tokio + `httparse` with responses rendered once per
//! route, so that it keeps up with nginx and is never the bottleneck of a calibration run.
//!
//! Two things let a run through a proxy tell the proxy from the upstream:
//! - every response carries `Server-Timing: app;dur=<ms>`, the time the mock held the request:
//!   from when its last byte had been read to when its response is rendered, just before this
//!   header is added to the output (the configured delay plus handling). The rest of the
//!   response's copy and its write to the socket come after, and are not in it;
//! - `GET /metrics` answers its counters in Prometheus text format ([`exposition`]), so that
//!   `run --watch scrape:http://…/metrics` records how many connections and requests reached
//!   the upstream. A route configured for exactly `/metrics` takes the path over.

pub(crate) mod flags;

use crate::http1::{reason, Chunked};
use crate::mirror::accept;
use rand::Rng;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// How one path answers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Route {
    pub status: u16,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
    pub delay: Delay,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Delay {
    None,
    Fixed(Duration),
    Uniform(Duration, Duration),
}

impl Default for Route {
    fn default() -> Self {
        Route { status: 200, body: b"OK".to_vec(), headers: Vec::new(), delay: Delay::None }
    }
}

/// Routes by exact path (query ignored), and the route for every other path.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Config {
    pub default: Route,
    pub routes: HashMap<String, Route>,
}

/// What the mock has done so far. Requests to `/metrics` are counted apart (`scrapes`), so
/// that watching the mock does not change what it says it served.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Requests answered, other than `GET /metrics`.
    pub served: AtomicU64,
    /// Connections accepted (scrapes' included).
    pub connections: AtomicU64,
    /// Connections that carried at least one request other than `/metrics`: the upstream
    /// connections a proxy opened for the load.
    pub load_connections: AtomicU64,
    /// Connections open now.
    pub open: AtomicU64,
    /// `GET /metrics` requests answered.
    pub scrapes: AtomicU64,
}

/// The path the counters are served on.
pub(crate) const METRICS_PATH: &str = "/metrics";

/// `counters` in Prometheus' text exposition format (version 0.0.4).
pub(crate) fn exposition(counters: &Counters) -> String {
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let families: [(&str, &str, &str, u64); 5] = [
        (
            "stampede_mock_requests_total",
            "counter",
            "Requests answered, other than GET /metrics.",
            get(&counters.served),
        ),
        (
            "stampede_mock_connections_total",
            "counter",
            "Connections that carried at least one request other than /metrics.",
            get(&counters.load_connections),
        ),
        (
            "stampede_mock_accepted_connections_total",
            "counter",
            "Connections accepted, scrapes' included.",
            get(&counters.connections),
        ),
        ("stampede_mock_open_connections", "gauge", "Connections open now.", get(&counters.open)),
        ("stampede_mock_scrapes_total", "counter", "GET /metrics requests answered.", get(&counters.scrapes)),
    ];
    let mut out = String::with_capacity(1024);
    for (name, kind, help, value) in families {
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n"));
    }
    out
}

/// A route's response bytes, rendered once: as is, and with each `Connection` header a client
/// may need to see.
struct Rendered {
    plain: Vec<u8>,
    close: Vec<u8>,
    keep_alive: Vec<u8>,
    /// Where the body starts in each rendering (a HEAD answer stops there).
    head_len: [usize; 3],
    delay: Delay,
}

/// Writes the `Server-Timing` header line for a request held `held`, in ms with µs decimals.
/// Formatted by hand: `write!` took 100 ns a response against 72 ns (two clock reads are 50 of
/// them), on a mock that spends about 8 µs of CPU per request (bench/runs/2026-11-22-vm).
fn server_timing(out: &mut Vec<u8>, held: Duration) {
    let us = u64::try_from(held.as_micros()).unwrap_or(u64::MAX);
    out.extend_from_slice(b"Server-Timing: app;dur=");
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut ms = us / 1000;
    loop {
        at -= 1;
        digits[at] = b'0' + (ms % 10) as u8;
        ms /= 10;
        if ms == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
    let frac = us % 1000;
    let d = |x: u64| b'0' + (x % 10) as u8;
    out.extend_from_slice(&[b'.', d(frac / 100), d(frac / 10), d(frac), b'\r', b'\n']);
}

impl Rendered {
    fn new(r: &Route) -> Rendered {
        // 1xx, 204 and 304 responses have no body and no Content-Length (RFC 9110 §8.6).
        let bodiless = r.status < 200 || r.status == 204 || r.status == 304;
        let render = |conn: Option<&str>| {
            let mut head = format!("HTTP/1.1 {} {}\r\nServer: stampede-mock\r\n", r.status, reason(r.status));
            if !bodiless {
                head.push_str(&format!("Content-Length: {}\r\n", r.body.len()));
                if !r.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
                    head.push_str("Content-Type: text/plain\r\n");
                }
            }
            for (k, v) in &r.headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            if let Some(c) = conn {
                head.push_str(&format!("Connection: {c}\r\n"));
            }
            head.push_str("\r\n");
            let head_len = head.len();
            let mut bytes = head.into_bytes();
            if !bodiless {
                bytes.extend_from_slice(&r.body);
            }
            (bytes, head_len)
        };
        let (plain, p) = render(None);
        let (close, c) = render(Some("close"));
        let (keep_alive, k) = render(Some("keep-alive"));
        Rendered { plain, close, keep_alive, head_len: [p, c, k], delay: r.delay }
    }

    /// Appends the response, by connection handling and without the body for HEAD, with the
    /// `Server-Timing` of a request held `held` as its last header. The header is the one part
    /// rendered per response: the rest is copied as rendered.
    fn write(&self, out: &mut Vec<u8>, keep: bool, http10: bool, head: bool, held: Duration) {
        let (bytes, i) = match (keep, http10) {
            (false, _) => (&self.close, 1),
            (true, true) => (&self.keep_alive, 2),
            (true, false) => (&self.plain, 0),
        };
        // The head ends with an empty line: the header goes before it.
        let blank = self.head_len[i] - 2;
        out.extend_from_slice(&bytes[..blank]);
        server_timing(out, held);
        out.extend_from_slice(if head { &bytes[blank..self.head_len[i]] } else { &bytes[blank..] });
    }
}

struct Routes {
    default: Rendered,
    by_path: HashMap<String, Rendered>,
    /// Routes whose path ends in `*`: they answer every path that starts with the rest,
    /// longest prefix first.
    by_prefix: Vec<(String, Rendered)>,
    /// No route is configured for exactly [`METRICS_PATH`]: the mock answers it itself.
    metrics: bool,
}

impl Routes {
    fn find(&self, path: &str) -> &Rendered {
        self.by_path
            .get(path)
            .or_else(|| self.by_prefix.iter().find(|(p, _)| path.starts_with(p.as_str())).map(|(_, r)| r))
            .unwrap_or(&self.default)
    }
}

/// Serves on an already-bound `listener` until `shutdown` is cancelled.
pub(crate) async fn run(listener: TcpListener, config: &Config, shutdown: CancellationToken, counters: Arc<Counters>) {
    let mut by_prefix: Vec<(String, Rendered)> = config
        .routes
        .iter()
        .filter_map(|(p, r)| p.strip_suffix('*').map(|p| (p.to_string(), Rendered::new(r))))
        .collect();
    by_prefix.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    let routes = Arc::new(Routes {
        default: Rendered::new(&config.default),
        by_path: config
            .routes
            .iter()
            .filter(|(p, _)| !p.ends_with('*'))
            .map(|(p, r)| (p.clone(), Rendered::new(r)))
            .collect(),
        by_prefix,
        metrics: !config.routes.contains_key(METRICS_PATH),
    });
    loop {
        let Some(stream) = accept(&listener, &shutdown).await else { return };
        counters.connections.fetch_add(1, Ordering::Relaxed);
        counters.open.fetch_add(1, Ordering::Relaxed);
        let (routes, counters, shutdown) = (routes.clone(), counters.clone(), shutdown.clone());
        tokio::spawn(async move {
            let _open = Open(&counters);
            tokio::select! {
                _ = serve(stream, &routes, &counters) => {}
                _ = shutdown.cancelled() => {}
            }
        });
    }
}

/// Counts a connection out of [`Counters::open`] when its task ends, however it ends.
struct Open<'a>(&'a Counters);

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

enum BodyLen {
    Length(usize),
    Chunked,
}

async fn serve(mut stream: TcpStream, routes: &Routes, counters: &Counters) {
    let _ = stream.set_nodelay(true);
    let mut buf = vec![0u8; 8192];
    let mut filled = 0usize;
    let mut out: Vec<u8> = Vec::with_capacity(8192);
    let mut carried_load = false;
    loop {
        // Answer every complete request in the buffer (pipelining), then write once.
        let mut close = false;
        while filled > 0 {
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut req = httparse::Request::new(&mut headers);
            let head_len = match req.parse(&buf[..filled]) {
                Ok(httparse::Status::Complete(n)) => n,
                Ok(httparse::Status::Partial) => break,
                Err(_) => {
                    let _ = stream
                        .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .await;
                    return;
                }
            };
            let http10 = req.version == Some(0);
            let is_head = req.method == Some("HEAD");
            let (mut keep, mut body) = (!http10, BodyLen::Length(0));
            for h in req.headers.iter() {
                if h.name.eq_ignore_ascii_case("content-length") {
                    match std::str::from_utf8(h.value).ok().and_then(|v| v.trim().parse().ok()) {
                        Some(n) => body = BodyLen::Length(n),
                        None => return,
                    }
                } else if h.name.eq_ignore_ascii_case("transfer-encoding") && h.value.eq_ignore_ascii_case(b"chunked") {
                    body = BodyLen::Chunked;
                } else if h.name.eq_ignore_ascii_case("connection") {
                    if h.value.eq_ignore_ascii_case(b"close") {
                        keep = false;
                    } else if h.value.eq_ignore_ascii_case(b"keep-alive") {
                        keep = true;
                    }
                }
            }
            let path = req.path.unwrap_or("/");
            let path = path.split('?').next().unwrap_or(path);
            let metrics = routes.metrics && path == METRICS_PATH;
            let route = routes.find(path);
            filled = match skip_body(&mut stream, &mut buf, filled, head_len, body).await {
                Some(rest) => rest,
                None => return,
            };
            let held_from = std::time::Instant::now();
            if metrics {
                let body = exposition(counters);
                let connection = match (keep, http10) {
                    (false, _) => "Connection: close\r\n",
                    (true, true) => "Connection: keep-alive\r\n",
                    (true, false) => "",
                };
                out.extend_from_slice(
                    format!(
                        "HTTP/1.1 200 OK\r\nServer: stampede-mock\r\nContent-Length: {}\r\nContent-Type: text/plain; version=0.0.4\r\n{connection}",
                        body.len()
                    )
                    .as_bytes(),
                );
                server_timing(&mut out, held_from.elapsed());
                out.extend_from_slice(b"\r\n");
                if !is_head {
                    out.extend_from_slice(body.as_bytes());
                }
                counters.scrapes.fetch_add(1, Ordering::Relaxed);
                if !keep {
                    close = true;
                    break;
                }
                continue;
            }
            if !carried_load {
                carried_load = true;
                counters.load_connections.fetch_add(1, Ordering::Relaxed);
            }
            match route.delay {
                Delay::None => {}
                Delay::Fixed(d) => tokio::time::sleep(d).await,
                Delay::Uniform(a, b) => {
                    let span = (b - a).as_micros() as u64;
                    let extra = if span == 0 { 0 } else { rand::rng().random_range(0..=span) };
                    tokio::time::sleep(a + Duration::from_micros(extra)).await;
                }
            }
            route.write(&mut out, keep, http10, is_head, held_from.elapsed());
            counters.served.fetch_add(1, Ordering::Relaxed);
            if !keep {
                close = true;
                break;
            }
        }
        if !out.is_empty() {
            if stream.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
        }
        if close {
            let _ = stream.shutdown().await;
            return;
        }
        if filled == buf.len() {
            if buf.len() >= 1 << 20 {
                return; // a request head over 1 MiB: not a client we serve
            }
            buf.resize(buf.len() * 2, 0);
        }
        match stream.read(&mut buf[filled..]).await {
            Ok(0) | Err(_) => return,
            Ok(n) => filled += n,
        }
    }
}

/// Consumes a request body that starts at `head_len` in `buf[..filled]`, reading more as
/// needed, and moves whatever follows it (the next pipelined request) to the front of `buf`.
/// Returns how many bytes of that remain, or `None` if the connection ended or the body is
/// malformed.
async fn skip_body(
    stream: &mut TcpStream,
    buf: &mut [u8],
    filled: usize,
    head_len: usize,
    body: BodyLen,
) -> Option<usize> {
    match body {
        BodyLen::Length(n) => {
            let have = filled - head_len;
            if have >= n {
                buf.copy_within(head_len + n..filled, 0);
                return Some(have - n);
            }
            let mut need = n - have;
            loop {
                let r = match stream.read(buf).await {
                    Ok(0) | Err(_) => return None,
                    Ok(r) => r,
                };
                if r >= need {
                    buf.copy_within(need..r, 0);
                    return Some(r - need);
                }
                need -= r;
            }
        }
        BodyLen::Chunked => {
            let mut dec = Chunked::default();
            let used = dec.feed(&buf[head_len..filled]).ok()?;
            if dec.is_done() {
                buf.copy_within(head_len + used..filled, 0);
                return Some(filled - head_len - used);
            }
            loop {
                let r = match stream.read(buf).await {
                    Ok(0) | Err(_) => return None,
                    Ok(r) => r,
                };
                let used = dec.feed(&buf[..r]).ok()?;
                if dec.is_done() {
                    buf.copy_within(used..r, 0);
                    return Some(r - used);
                }
            }
        }
    }
}

/// A mock configuration that does not hold together.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{0}")]
    Yaml(#[from] serde_norway::Error),
    #[error("`{0}` is not a duration")]
    NotADuration(String),
    #[error("delay `{0}`: the minimum is above the maximum")]
    DelayOrder(String),
    #[error("routes[{0}] has no `path`")]
    NoPath(usize),
    #[error("routes[{index}]: {source}")]
    Route { index: usize, source: Box<ConfigError> },
}

impl PartialEq for ConfigError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

/// The YAML form of a mock configuration (`stampede mock --config FILE`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigDoc {
    #[serde(default)]
    pub default: Option<RouteDoc>,
    #[serde(default)]
    pub routes: Vec<RouteDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RouteDoc {
    pub path: Option<String>,
    pub status: Option<u16>,
    pub body: Option<String>,
    #[serde(default)]
    pub headers: std::collections::BTreeMap<String, String>,
    pub delay: Option<String>,
}

impl RouteDoc {
    pub(crate) fn to_route(&self) -> Result<Route, ConfigError> {
        Ok(Route {
            status: self.status.unwrap_or(200),
            body: self.body.clone().unwrap_or_else(|| "OK".into()).into_bytes(),
            headers: self.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            delay: match &self.delay {
                Some(d) => parse_delay(d)?,
                None => Delay::None,
            },
        })
    }
}

impl ConfigDoc {
    /// Reads and checks a configuration's YAML text.
    pub(crate) fn parse(text: &str) -> Result<Config, ConfigError> {
        serde_norway::from_str::<ConfigDoc>(text)?.to_config()
    }

    pub(crate) fn to_config(&self) -> Result<Config, ConfigError> {
        let mut c = Config::default();
        if let Some(d) = &self.default {
            c.default = d.to_route()?;
        }
        for (i, r) in self.routes.iter().enumerate() {
            let path = r.path.clone().ok_or(ConfigError::NoPath(i))?;
            c.routes.insert(path, r.to_route().map_err(|e| ConfigError::Route { index: i, source: Box::new(e) })?);
        }
        Ok(c)
    }
}

/// `20ms` (fixed) or `10ms..50ms` (uniform).
pub(crate) fn parse_delay(s: &str) -> Result<Delay, ConfigError> {
    let d = |t: &str| parse_duration(t.trim()).ok_or_else(|| ConfigError::NotADuration(t.to_string()));
    match s.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (d(a)?, d(b)?);
            if a > b {
                return Err(ConfigError::DelayOrder(s.to_string()));
            }
            Ok(Delay::Uniform(a, b))
        }
        None => Ok(Delay::Fixed(d(s)?)),
    }
}

/// A delay written as plan durations are (`20ms`, `1s`, `1m30s`, or a bare number of seconds:
/// `0.5`), at most a year; read here so that the mock does not depend on the plan.
fn parse_duration(s: &str) -> Option<Duration> {
    const LONGEST: Duration = Duration::from_secs(365 * 24 * 3600);
    let d = match s.parse::<f64>() {
        Ok(secs) => Duration::try_from_secs_f64(secs).ok()?,
        Err(_) => humantime::parse_duration(s).ok()?,
    };
    (d <= LONGEST).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_parse() {
        assert_eq!(parse_delay("20ms"), Ok(Delay::Fixed(Duration::from_millis(20))));
        assert_eq!(parse_delay("1ms..5ms"), Ok(Delay::Uniform(Duration::from_millis(1), Duration::from_millis(5))));
        assert!(parse_delay("5ms..1ms").is_err());
        assert!(parse_delay("soon").is_err());
    }

    /// Every form `plan::parse_duration` (which the mock used) accepts still reads, and no more.
    #[test]
    fn delays_read_as_plan_durations_do() {
        let ms = Duration::from_millis;
        for (text, want) in [("20ms", ms(20)), ("1s", ms(1000)), ("0.5s", ms(500)), ("0.5", ms(500)), ("2", ms(2000))] {
            assert_eq!(parse_delay(text), Ok(Delay::Fixed(want)), "{text}");
        }
        assert_eq!(parse_delay(" 1m30s "), Ok(Delay::Fixed(ms(90_000))));
        for bad in ["-1", "-1s", "400days", "NaN", "inf", ""] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn rendered_response_is_exact() {
        let r = Rendered::new(&Route::default());
        assert_eq!(
            r.plain,
            b"HTTP/1.1 200 OK\r\nServer: stampede-mock\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nOK"
        );
        assert!(String::from_utf8(r.close.clone()).unwrap().contains("Connection: close\r\n"));
        let mut out = Vec::new();
        r.write(&mut out, true, false, false, Duration::from_micros(20_345));
        assert_eq!(
            out,
            b"HTTP/1.1 200 OK\r\nServer: stampede-mock\r\nContent-Length: 2\r\nContent-Type: text/plain\r\nServer-Timing: app;dur=20.345\r\n\r\nOK"
        );
        out.clear();
        r.write(&mut out, false, false, true, Duration::from_micros(7));
        assert!(out.ends_with(b"Connection: close\r\nServer-Timing: app;dur=0.007\r\n\r\n"), "{out:?}");
        for (us, text) in
            [(0, "0.000"), (1_000, "1.000"), (1_234_567_890, "1234567.890"), (u64::MAX, "18446744073709551.615")]
        {
            out.clear();
            server_timing(&mut out, Duration::from_micros(us));
            assert_eq!(String::from_utf8_lossy(&out), format!("Server-Timing: app;dur={text}\r\n"));
        }
    }

    #[test]
    fn exposition_lists_every_counter_once() {
        let c = Counters::default();
        c.served.store(150_378, Ordering::Relaxed);
        c.load_connections.store(150_378, Ordering::Relaxed);
        let text = exposition(&c);
        assert!(text.contains("# TYPE stampede_mock_requests_total counter\nstampede_mock_requests_total 150378\n"));
        assert!(text.contains("\nstampede_mock_connections_total 150378\n"));
        assert!(text.contains("# TYPE stampede_mock_open_connections gauge\n"));
        assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 5);
    }
}
