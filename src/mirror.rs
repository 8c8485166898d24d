//! JMeter's HTTP Mirror Server, as JMeter 5.6.3 has it (`HttpMirrorServer` and
//! `HttpMirrorThread` in org.apache.jmeter.protocol.http.control): one request per connection,
//! answered `HTTP/1.0 200 OK` with `Content-Type: text/plain` and, as the body, the request's own
//! bytes (request line, headers, body), then the connection closes. The request may ask for:
//!
//! - `X-ResponseStatus: 404 Not Found`: the status line (default `200 OK`);
//! - `X-SetHeaders: a: b|c: d`: response headers, `|`-separated;
//! - `X-SetCookie: v`: a `Set-Cookie: v` header;
//! - `X-ResponseLength: n`: the echo of what was read with the head cut to `n` bytes;
//! - `X-Sleep: ms`: a pause after the head is sent;
//! - for a GET, the query parameters `redirect=URL` (`302 Temporary Redirect` and `Location`),
//!   `status=CODE TEXT` (the status line, over the header) and `v` (the request line is printed).
//!
//! Header values are found as JMeter finds them: a case-insensitive `^Name:\s+(.+)` over the
//! head (and what of the body arrived with it). A number that does not parse ends the answer
//! where JMeter's exception does. Concurrency follows the constructor's pool: `max_pool` 0 is a
//! task per connection; otherwise at most `max_pool` at once (half of them before the queue of
//! `max_queue` fills), and a connection beyond both is closed unanswered (JMeter discards it).
//!
//! It listens where it is told; callers bind loopback only (`stampede mock --mirror`, the
//! script class `HttpMirrorServer`). A module of its own, depending on nothing of ours, so the
//! engine (whose scripts start it) does not depend on the mock.

use regex::bytes::Regex;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// What a mirror served, for its caller to report and for tests to witness.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Requests answered.
    pub served: AtomicU64,
    /// Connections accepted.
    pub connections: AtomicU64,
}

/// The next connection, or `None` once `shutdown` is cancelled. The mock's accept loop too.
pub(crate) async fn accept(listener: &TcpListener, shutdown: &CancellationToken) -> Option<TcpStream> {
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => return Some(stream),
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            },
            _ = shutdown.cancelled() => return None,
        }
    }
}

/// Where the request line of a `?v` request goes (JMeter prints it and logs it).
pub(crate) type Verbose = Arc<dyn Fn(&str) + Send + Sync>;

/// The mirror's settings: JMeter's `HttpMirrorServer(port, maxPoolSize, maxQueueSize)`.
#[derive(Clone, Default)]
pub(crate) struct Options {
    /// At most this many requests answered at once; 0: no limit (a task per connection).
    pub max_pool: usize,
    /// Connections waiting for a turn when `max_pool` is set.
    pub max_queue: usize,
    pub verbose: Option<Verbose>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options").field("max_pool", &self.max_pool).field("max_queue", &self.max_queue).finish()
    }
}

/// JMeter's ThreadPoolExecutor(max/2, max, queue) with its discard policy, over tasks.
struct Pool {
    core: usize,
    max: usize,
    queue_cap: usize,
    state: Mutex<(usize, VecDeque<TcpStream>)>,
}

enum Admit {
    Run,
    /// Queued; start a worker for the queue when none runs.
    Queued(bool),
    Discard,
}

impl Pool {
    fn admit(&self, stream: TcpStream) -> (Admit, Option<TcpStream>) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.0 < self.core {
            st.0 += 1;
            (Admit::Run, Some(stream))
        } else if st.1.len() < self.queue_cap {
            st.1.push_back(stream);
            let start = st.0 == 0;
            if start {
                st.0 += 1;
            }
            (Admit::Queued(start), None)
        } else if st.0 < self.max {
            st.0 += 1;
            (Admit::Run, Some(stream))
        } else {
            (Admit::Discard, None)
        }
    }

    /// The next queued connection for a worker that is done, or `None` (the worker ends).
    fn next(&self) -> Option<TcpStream> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let next = st.1.pop_front();
        if next.is_none() {
            st.0 -= 1;
        }
        next
    }
}

/// Serves on an already-bound `listener` until `shutdown` is cancelled.
pub(crate) async fn run(listener: TcpListener, options: Options, shutdown: CancellationToken, counters: Arc<Counters>) {
    let pool = (options.max_pool > 0).then(|| {
        Arc::new(Pool {
            core: options.max_pool / 2,
            max: options.max_pool,
            queue_cap: options.max_queue,
            state: Mutex::new((0, VecDeque::new())),
        })
    });
    let verbose = options.verbose.clone();
    loop {
        let Some(stream) = accept(&listener, &shutdown).await else { return };
        counters.connections.fetch_add(1, Ordering::Relaxed);
        let first = match &pool {
            None => Some(stream),
            Some(p) => match p.admit(stream) {
                (Admit::Run, s) => s,
                (Admit::Queued(true), _) => None,
                (Admit::Queued(false) | Admit::Discard, _) => continue,
            },
        };
        let (pool, counters, shutdown, verbose) = (pool.clone(), counters.clone(), shutdown.clone(), verbose.clone());
        tokio::spawn(async move {
            let work = async {
                let mut next = first;
                loop {
                    if let Some(s) = next {
                        answer(s, &counters, verbose.as_ref()).await;
                    }
                    next = match &pool {
                        Some(p) => match p.next() {
                            Some(s) => Some(s),
                            None => return,
                        },
                        None => return,
                    };
                }
            };
            tokio::select! {
                _ = work => {}
                _ = shutdown.cancelled() => {}
            }
        });
    }
}

/// A mirror running on its own thread (JMeter's is a thread too), until [`Mirror::stop`] or
/// until the `until` future it was started with completes.
pub(crate) struct Mirror {
    shutdown: CancellationToken,
    thread: Option<std::thread::JoinHandle<()>>,
    pub counters: Arc<Counters>,
}

impl Mirror {
    /// Serves on `listener` from a new thread.
    pub(crate) fn start(
        listener: std::net::TcpListener,
        options: Options,
        until: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<Mirror> {
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let (shutdown, counters) = (CancellationToken::new(), Arc::new(Counters::default()));
        let thread = std::thread::Builder::new().name("HttpMirrorServer".into()).spawn({
            let (shutdown, counters) = (shutdown.clone(), counters.clone());
            move || {
                runtime.block_on(async move {
                    let Ok(listener) = TcpListener::from_std(listener) else { return };
                    tokio::select! {
                        _ = run(listener, options, shutdown.clone(), counters) => {}
                        _ = until => shutdown.cancel(),
                    }
                });
            }
        })?;
        Ok(Mirror { shutdown, thread: Some(thread), counters })
    }

    /// Whether it still serves.
    pub(crate) fn is_alive(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Lets it run on without this handle: it stops when its `until` future completes.
    pub(crate) fn detach(mut self) {
        self.thread = None;
        self.shutdown = CancellationToken::new();
    }

    /// Stops listening and answering, and waits until the port is released.
    pub(crate) fn stop(&mut self) {
        self.shutdown.cancel();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Java's `BufferedOutputStream` of 8192 bytes: what is sent when.
struct Out<'a> {
    stream: &'a mut TcpStream,
    buf: Vec<u8>,
    wrote: bool,
}

impl Out<'_> {
    const SIZE: usize = 8192;

    async fn write(&mut self, data: &[u8]) -> std::io::Result<()> {
        if data.len() >= Self::SIZE {
            self.flush().await?;
            self.wrote = true;
            return self.stream.write_all(data).await;
        }
        if self.buf.len() + data.len() > Self::SIZE {
            self.flush().await?;
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            self.wrote = true;
            self.stream.write_all(&self.buf).await?;
            self.buf.clear();
        }
        Ok(())
    }
}

/// One connection: one request read and mirrored (`HttpMirrorThread.run`), then closed.
async fn answer(mut stream: TcpStream, counters: &Counters, verbose: Option<&Verbose>) {
    let _ = stream.set_nodelay(true);
    let mut echo = Vec::new();
    let Some((position_of_body, first_line)) = read_head(&mut stream, &mut echo).await else {
        return; // JMeter logs "Invalid request received" and closes
    };
    let mut out = Out { stream: &mut stream, buf: Vec::new(), wrote: false };
    let _ = mirror(&mut out, &echo, position_of_body, &first_line, verbose).await;
    let _ = out.flush().await;
    if out.wrote {
        counters.served.fetch_add(1, Ordering::Relaxed);
    }
    let _ = stream.shutdown().await;
}

/// Reads 1024 bytes at a time until the blank line that ends the head (or the end of the
/// stream). Returns where the blank line starts and the request line, or `None` for what JMeter
/// calls an invalid request (nothing, or no CR).
async fn read_head(stream: &mut TcpStream, echo: &mut Vec<u8>) -> Option<(usize, String)> {
    let mut buffer = [0u8; 1024];
    let mut position_of_body = 0;
    while position_of_body == 0 {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => echo.extend_from_slice(&buffer[..n]),
        }
        position_of_body = position_of_body_in(echo).unwrap_or(0);
    }
    let cr = echo.iter().position(|&b| b == b'\r')?;
    Some((position_of_body, latin1(&echo[..cr])))
}

/// JMeter's (ORO) `^\r$`, multi-line: a CR at a line's start, before LF or the end.
fn position_of_body_in(text: &[u8]) -> Option<usize> {
    (0..text.len()).find(|&i| {
        text[i] == b'\r' && (i == 0 || text[i - 1] == b'\n') && (i + 1 == text.len() || text[i + 1] == b'\n')
    })
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

/// A text as Java's `getBytes(ISO_8859_1)`: a character beyond it is `?`.
fn to_latin1(s: &str) -> Vec<u8> {
    s.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect()
}

/// JMeter's `getRequestHeaderValue`: `^Name:\s+([^\r\n]+)`, case-insensitive, multi-line, over
/// the whole head as read.
fn header_value<'t>(head: &'t [u8], name: &str) -> Option<&'t [u8]> {
    static CACHE: OnceLock<Mutex<HashMap<String, Regex>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let re = cache.entry(name.to_string()).or_insert_with(|| {
        Regex::new(&format!(r"(?mi-u)^{}:[ \t\n\r\x0C]+([^\r\n]+)", regex::escape(name))).expect("a valid pattern")
    });
    re.captures(head).and_then(|c| c.get(1)).map(|m| m.as_bytes())
}

/// Java's `Integer.parseInt` of a header value.
fn java_int(v: &[u8]) -> Option<i32> {
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// Java's `String.split(regex)`: trailing empty strings removed.
fn java_split(s: &str, sep: char) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split(sep).collect();
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// Java's `split("\\s+")`: runs of whitespace separate, a leading run leaves an empty first
/// part, trailing empty parts are dropped.
fn java_split_whitespace(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s
        .split([' ', '\t', '\n', '\x0B', '\x0C', '\r'])
        .enumerate()
        .filter(|(i, p)| *i == 0 || !p.is_empty())
        .map(|(_, p)| p)
        .collect();
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// The query parameters JMeter reads (GET only): `new URI(path).getQuery()` (percent-decoded),
/// or the raw text after `?` when the path is not a valid URI.
fn parameters(method: &str, path: &str) -> HashMap<String, String> {
    let mut params = HashMap::new();
    if method != "GET" {
        return params;
    }
    let Some(q) = path.find('?') else { return params };
    let query = match uri_query(path) {
        Ok(q) => q,
        Err(()) => Some(path[q + 1..].to_string()),
    };
    let Some(query) = query else { return params };
    let parts = java_split(&query, '&');
    for param in if query.is_empty() { vec![""] } else { parts } {
        match param.split_once('=') {
            Some((k, v)) => params.insert(k.to_string(), v.to_string()),
            None => params.insert(param.to_string(), String::new()),
        };
    }
    params
}

/// `java.net.URI`'s query of `path`, decoded; `Err` where `new URI` throws; `Ok(None)` for an
/// opaque URI (`mailto:x?y`), which has none.
fn uri_query(path: &str) -> Result<Option<String>, ()> {
    const ALLOWED: &str = "-_.!~*'();/?:@&=+$,[]";
    let (reference, fragment) = match path.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (path, None),
    };
    let valid = |s: &str| {
        let b = s.as_bytes();
        let mut i = 0;
        for c in s.chars() {
            let ok = match c {
                '%' => {
                    b.get(i + 1).is_some_and(u8::is_ascii_hexdigit) && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
                }
                c if c.is_ascii_alphanumeric() || ALLOWED.contains(c) => true,
                // Java's "other" characters: not ASCII, not a control, not a space.
                c => !c.is_ascii() && !c.is_control() && !c.is_whitespace() && c != '\u{a0}',
            };
            if !ok {
                return false;
            }
            i += c.len_utf8();
        }
        true
    };
    if !valid(reference) || fragment.is_some_and(|f| !valid(f)) {
        return Err(());
    }
    let scheme_end = reference.find(':').filter(|&i| {
        i > 0
            && reference[..i].starts_with(|c: char| c.is_ascii_alphabetic())
            && reference[..i].chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if let Some(i) = scheme_end {
        if !reference[i + 1..].starts_with('/') {
            return Ok(None);
        }
    }
    Ok(reference.split_once('?').map(|(_, q)| percent_decode(q)))
}

/// `URI.decode`: `%XX` runs as UTF-8 (malformed: U+FFFD), everything else as it is.
fn percent_decode(s: &str) -> String {
    let (b, mut out, mut run) = (s.as_bytes(), String::new(), Vec::new());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(byte) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                run.push(byte);
                i += 3;
                continue;
            }
        }
        if !run.is_empty() {
            out.push_str(&String::from_utf8_lossy(&run));
            run.clear();
        }
        let c = s[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(c);
        i += c.len_utf8();
    }
    out.push_str(&String::from_utf8_lossy(&run));
    out
}

/// Writes the answer; an `Err` is where JMeter's thread stops (an I/O error, or a number that
/// does not parse), after which what was buffered is still sent.
async fn mirror(
    out: &mut Out<'_>,
    echo: &[u8],
    position_of_body: usize,
    first_line: &str,
    verbose: Option<&Verbose>,
) -> Result<(), ()> {
    const CRLF: &[u8] = b"\r\n";
    let parts = java_split_whitespace(first_line);
    let (Some(method), Some(path)) = (parts.first(), parts.get(1)) else { return Err(()) };
    let params = parameters(method, path);
    let verbose = params.contains_key("v").then_some(verbose).flatten();
    if let Some(v) = verbose {
        v(first_line);
    }
    let mut status = header_value(echo, "X-ResponseStatus").map_or_else(|| b"200 OK".to_vec(), <[u8]>::to_vec);
    if params.contains_key("redirect") {
        status = b"302 Temporary Redirect".to_vec();
    }
    if let Some(s) = params.get("status") {
        status = to_latin1(s);
    }
    let io = |_| ();
    out.write(b"HTTP/1.0 ").await.map_err(io)?;
    out.write(&status).await.map_err(io)?;
    out.write(CRLF).await.map_err(io)?;
    out.write(b"Content-Type: text/plain\r\n").await.map_err(io)?;
    if let Some(location) = params.get("redirect") {
        let line = format!("Location: {location}");
        if let Some(v) = verbose {
            v(&line);
        }
        out.write(&to_latin1(&line)).await.map_err(io)?;
        out.write(CRLF).await.map_err(io)?;
    }
    if let Some(h) = header_value(echo, "X-SetHeaders") {
        for one in java_split(&latin1(h), '|') {
            out.write(&to_latin1(one)).await.map_err(io)?;
            out.write(CRLF).await.map_err(io)?;
        }
    }
    let response_length = match header_value(echo, "X-ResponseLength") {
        Some(v) => java_int(v).ok_or(())?,
        None => -1,
    };
    if let Some(c) = header_value(echo, "X-SetCookie") {
        out.write(b"Set-Cookie: ").await.map_err(io)?;
        out.write(c).await.map_err(io)?;
        out.write(CRLF).await.map_err(io)?;
    }
    out.write(CRLF).await.map_err(io)?;
    out.flush().await.map_err(io)?;
    match usize::try_from(response_length) {
        Ok(n) => out.write(&echo[..n.min(echo.len())]).await.map_err(io)?,
        Err(_) => out.write(echo).await.map_err(io)?,
    }
    let content_length = match header_value(echo, "Content-Length") {
        Some(v) => java_int(v).ok_or(())?,
        None => -1,
    };
    if let Some(ms) = header_value(echo, "X-Sleep") {
        let ms = java_int(ms).ok_or(())?;
        tokio::time::sleep(Duration::from_millis(ms.max(0) as u64)).await;
    }
    let mut buffer = [0u8; 1024];
    if content_length > 0 {
        // The body bytes read with the head: after the blank line's CRLF.
        let mut total = echo.len() as i64 - position_of_body as i64 - 2;
        while total < i64::from(content_length) {
            let n = match out.stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            out.write(&buffer[..n]).await.map_err(io)?;
            total += n as i64;
        }
    } else {
        // Chunked or no body: whatever is already there, without waiting (JMeter's
        // `available() > 0`).
        while let Ok(n) = out.stream.try_read(&mut buffer) {
            if n == 0 {
                break;
            }
            out.write(&buffer[..n]).await.map_err(io)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A mirror on a free loopback port; what it answers to `request`, and its counters.
    fn exchange(mirror: &Mirror, addr: std::net::SocketAddr, request: &[u8]) -> Vec<u8> {
        let _ = mirror;
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(request).unwrap();
        let mut got = Vec::new();
        s.read_to_end(&mut got).unwrap();
        got
    }

    fn start(options: Options) -> (Mirror, std::net::SocketAddr) {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        (Mirror::start(l, options, std::future::pending()).unwrap(), addr)
    }

    fn text(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    #[test]
    fn the_request_is_echoed_with_jmeters_head() {
        let (mut m, addr) = start(Options::default());
        let req = b"POST /p?status=500 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
        let got = exchange(&m, addr, req);
        // Query parameters count for GET only.
        assert_eq!(text(&got), format!("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n{}", text(req)));
        let req = b"GET /x HTTP/1.1\r\nHost: x\r\nX-ResponseStatus: 404 Gone\r\nX-SetHeaders: A: 1|B: two\r\nX-SetCookie: c=1\r\n\r\n";
        let got = exchange(&m, addr, req);
        assert_eq!(
            text(&got),
            format!(
                "HTTP/1.0 404 Gone\r\nContent-Type: text/plain\r\nA: 1\r\nB: two\r\nSet-Cookie: c=1\r\n\r\n{}",
                text(req)
            )
        );
        m.stop();
        assert_eq!(m.counters.served.load(Ordering::Relaxed), 2);
        assert_eq!(m.counters.connections.load(Ordering::Relaxed), 2);
        assert!(!m.is_alive());
        assert!(std::net::TcpStream::connect(addr).is_err(), "stopped, the port is released");
    }

    #[test]
    fn query_parameters_of_a_get() {
        let (m, addr) = start(Options::default());
        let req = b"GET /r?redirect=/there&status=301%20Moved HTTP/1.1\r\nX-ResponseStatus: 500 X\r\n\r\n";
        let got = text(&exchange(&m, addr, req));
        assert!(got.starts_with("HTTP/1.0 301 Moved\r\nContent-Type: text/plain\r\nLocation: /there\r\n\r\n"), "{got}");
        let req = b"GET /r?redirect=/a HTTP/1.1\r\n\r\n";
        let got = text(&exchange(&m, addr, req));
        assert!(got.starts_with("HTTP/1.0 302 Temporary Redirect\r\n"), "{got}");
        // Not a valid URI (`|` is not allowed in one): the raw query, undecoded.
        assert_eq!(parameters("GET", "/a?status=2%30|1"), HashMap::from([("status".into(), "2%30|1".into())]));
        assert_eq!(
            parameters("GET", "/a?status=2%30&v"),
            HashMap::from([("status".into(), "20".into()), ("v".into(), String::new())])
        );
        assert!(parameters("POST", "/a?v").is_empty());
    }

    #[test]
    fn verbose_prints_the_request_line() {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = seen.clone();
        let verbose: Verbose = Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string()));
        let (m, addr) = start(Options { verbose: Some(verbose), ..Default::default() });
        exchange(&m, addr, b"GET /q?v&redirect=/b HTTP/1.1\r\n\r\n");
        assert_eq!(*seen.lock().unwrap(), ["GET /q?v&redirect=/b HTTP/1.1", "Location: /b"]);
    }

    #[test]
    fn response_length_and_bad_numbers() {
        let (m, addr) = start(Options::default());
        let got = text(&exchange(&m, addr, b"GET / HTTP/1.1\r\nX-ResponseLength: 3\r\n\r\n"));
        assert_eq!(got, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nGET");
        // JMeter's NumberFormatException: what was buffered goes out, then the socket closes.
        let got = text(&exchange(&m, addr, b"GET / HTTP/1.1\r\nX-ResponseLength: x\r\n\r\n"));
        assert_eq!(got, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n");
        // No CR at all: read until the client's end, then an invalid request, closed
        // unanswered and not counted.
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(b"\n\n").unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut got = Vec::new();
        s.read_to_end(&mut got).unwrap();
        assert!(got.is_empty());
        assert_eq!(m.counters.served.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn x_sleep_delays_the_body() {
        let (m, addr) = start(Options::default());
        let t = std::time::Instant::now();
        let got = text(&exchange(&m, addr, b"GET / HTTP/1.1\r\nX-Sleep: 150\r\n\r\n"));
        let took = t.elapsed();
        assert!(got.ends_with("X-Sleep: 150\r\n\r\n"), "{got}");
        assert!(took >= Duration::from_millis(150) && took < Duration::from_secs(5), "{took:?}");
    }

    #[test]
    fn a_body_that_arrives_later_is_echoed_to_its_length() {
        let (_mirror, addr) = start(Options::default());
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(b"PUT /b HTTP/1.1\r\nContent-Length: 6\r\n\r\nab").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        s.write_all(b"cdef").unwrap();
        let mut got = Vec::new();
        s.read_to_end(&mut got).unwrap();
        assert!(text(&got).ends_with("\r\n\r\nabcdef"), "{}", text(&got));
    }

    #[test]
    fn a_full_pool_and_queue_discard() {
        // Pool of 2 (1 before the queue fills), queue of 1: the 4th waiting connection is closed.
        let (m, addr) = start(Options { max_pool: 2, max_queue: 1, verbose: None });
        let hold = |_: usize| {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            s.write_all(b"GET / HTTP/1.1\r\nX-Sleep: 300\r\n\r\n").unwrap();
            s
        };
        let held: Vec<_> = (0..3).map(hold).collect();
        std::thread::sleep(Duration::from_millis(100));
        let mut late = std::net::TcpStream::connect(addr).unwrap();
        late.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        late.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        let mut got = Vec::new();
        let _ = late.read_to_end(&mut got);
        assert!(got.is_empty());
        for mut s in held {
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut got = Vec::new();
            s.read_to_end(&mut got).unwrap();
            assert!(text(&got).starts_with("HTTP/1.0 200 OK"));
        }
        assert_eq!(m.counters.served.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn the_run_bound_future_stops_it() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let m = Mirror::start(l, Options::default(), async { tokio::time::sleep(Duration::from_millis(20)).await })
            .unwrap();
        let t = std::time::Instant::now();
        while m.is_alive() && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!m.is_alive());
    }
}
