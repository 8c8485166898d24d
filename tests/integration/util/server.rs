//! `TestServer`: a loopback HTTP/1.x server that is the tests' independent witness.
//!
//! Tests assert that what stampede reports equals what this server counted, exactly, so this
//! file deliberately shares no code with the `stampede` crate: it is written directly on tokio's
//! `TcpListener` and `httparse`, and it runs on its own OS thread with its own runtime so it
//! never competes with (or hides bugs in) the runtime of the code under test.
//!
//! ```ignore
//! let server = TestServer::builder()
//!     .route("/ok", Route::ok())
//!     .route("/slow", Route::ok().delay(Duration::from_millis(20)))
//!     .route("/hang", Route::hang())
//!     .start();
//! // ... run stampede against server.url("/ok") ...
//! assert_eq!(server.requests_to("/ok"), 42);
//! ```
//!
//! Routes whose answer depends on the request are computed by test code with
//! [`Route::handler`], which gets the request as a [`RecordedRequest`] (with helpers for
//! cookies, the query string and form bodies) and returns a [`Reply`]:
//!
//! ```ignore
//! let server = TestServer::builder()
//!     .route("/login", Route::handler(|r| match r.form("user") {
//!         Some(user) => Reply::ok().header("Set-Cookie", format!("SID={user}; Path=/")),
//!         None => Reply::status(400),
//!     }))
//!     .route("/api", Route::handler(|r| {
//!         if r.cookie("SID").is_some() { Reply::ok().body("data") } else { Reply::status(401) }
//!     }))
//!     .start();
//! ```
//!
//! How a request finds its route:
//! - The route is chosen by the request's path: the target without its query string (and
//!   without a `#fragment`; an absolute-form target `http://host/p?q` has path `/p`). So
//!   `/login?x=1` and `/login` both use the route for `/login`.
//! - Paths are compared exactly as sent: case-sensitive, not percent-decoded, no normalization
//!   (`/login/`, `/Login` and `/login%2F` are other paths). There is no prefix matching.
//! - A path without a route of its own is served by the default route (`404` unless
//!   [`TestServerBuilder::default_route`] says otherwise) and counted under its own path.
//! - [`TestServer::requests_to`] and [`TestServer::recorded`] take such a path (no query).
//!
//! Counting rules (what the tests rely on):
//! - `connections()` counts TCP connections when they are accepted.
//! - `requests()` counts a request the moment it has been read completely (request line,
//!   headers and the body framed by `Content-Length` or chunked encoding), before the route
//!   does anything, so `hang`, `close` and `reset` routes still count what they received.
//! - `responses()` counts responses written completely to the socket. The count is taken as the
//!   write starts (and taken back if the write fails), so a response a client has read is always
//!   already counted.
//! - Counts that depend only on the server's side can lag behind the client by a moment: a
//!   connection the kernel completed may not be accepted yet, a closed one may not be noticed
//!   yet. Use [`TestServer::wait_until`] for those.
//! - A request the server cannot parse is answered `400` and the connection is closed; it is
//!   counted in `bad_requests()` only (neither in `requests()` nor in `responses()`).
//! - Handler routes follow the same rules: the request is counted (and recorded, with
//!   `record`) before the delay and before the handler is called; the reply is counted as any
//!   response. A handler that panics is answered `500` (its message goes to stderr as usual).

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::oneshot;

/// Largest request head (request line + headers) accepted before answering 400.
const MAX_HEAD: usize = 64 * 1024;
/// Most headers in one request.
const MAX_HEADERS: usize = 100;
/// Longest chunk-size or trailer line in a chunked body.
const MAX_LINE: usize = 8 * 1024;
/// Largest request body accepted (the server keeps whole bodies in memory).
const MAX_BODY: u64 = 64 * 1024 * 1024;
/// How long a closing connection keeps draining what the client still sends (see `close_gracefully`).
const LINGER: Duration = Duration::from_secs(1);
/// Listen backlog: large enough that a burst of connects never waits for a SYN retransmit.
const BACKLOG: u32 = 4096;

/// What a route does once it has read a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Respond,
    Hang,
    Close,
    Reset,
}

/// Computes the reply of a handler route; see [`Route::handler`].
#[derive(Clone)]
struct Handler(Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync + 'static>);

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<handler>")
    }
}

/// How the server answers requests to one path. Built with [`Route::ok`], [`Route::status`],
/// [`Route::handler`], [`Route::hang`], [`Route::close`] or [`Route::reset`], then refined with
/// the builder methods.
#[derive(Clone, Debug)]
pub struct Route {
    status: u16,
    body: Vec<u8>,
    headers: Vec<(String, String)>,
    /// Computes status, headers and body per request instead of the fields above.
    handler: Option<Handler>,
    /// Inclusive range of the delay before answering; `None` answers at once.
    delay: Option<(Duration, Duration)>,
    action: Action,
    close_after: bool,
    record: bool,
    /// Workers shared by every request of the route: a request waits for one before its delay
    /// (a server of K workers, whose time in queue grows with the load past K).
    pool: Option<Arc<tokio::sync::Semaphore>>,
}

impl Route {
    /// `200` with body `OK`.
    pub fn ok() -> Route {
        Route::status(200).body("OK")
    }

    /// The given status with an empty body.
    pub fn status(code: u16) -> Route {
        Route {
            status: code,
            body: Vec::new(),
            headers: Vec::new(),
            handler: None,
            delay: None,
            action: Action::Respond,
            close_after: false,
            record: false,
            pool: None,
        }
    }

    /// Answers with what `f` returns for the request. The request is read completely, counted
    /// and recorded (with [`Route::record`]) like on any route, then the delay (if any) passes,
    /// then `f` is called and its [`Reply`] written; the server adds `Content-Length` (and
    /// `Connection` when needed) itself. Headers added to the route with [`Route::header`] are
    /// sent after the reply's own. `f` runs on a worker thread of the server, so it should be
    /// quick; if it panics the answer is `500` with the panic message as body.
    pub fn handler(f: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static) -> Route {
        Route { handler: Some(Handler(Arc::new(f))), ..Route::status(200) }
    }

    /// Answers the route's `n`th request (from 1, in the order the server reads them) with what
    /// `f` returns for `n`: a server whose answer changes as the test goes on. See
    /// [`Route::handler`].
    pub fn nth(f: impl Fn(usize) -> Reply + Send + Sync + 'static) -> Route {
        let served = std::sync::atomic::AtomicUsize::new(0);
        Route::handler(move |_| f(served.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1))
    }

    /// Reads the request and never answers; the connection stays open until the client closes
    /// it or the server stops.
    pub fn hang() -> Route {
        Route { action: Action::Hang, ..Route::status(200) }
    }

    /// Reads the request, then closes the connection without answering (a FIN, not a reset).
    pub fn close() -> Route {
        Route { action: Action::Close, ..Route::status(200) }
    }

    /// Reads the request, then resets the connection (`SO_LINGER` 0, then close: an RST).
    pub fn reset() -> Route {
        Route { action: Action::Reset, ..Route::status(200) }
    }

    /// Sets the response body. Not for handler routes, whose [`Reply`] has the body (panics).
    pub fn body(mut self, body: impl AsRef<[u8]>) -> Route {
        assert!(self.handler.is_none(), "Route::body on a handler route: the handler's Reply sets the body");
        self.body = body.as_ref().to_vec();
        self
    }

    /// Adds a response header (sent after `Content-Length`, in the order added).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Route {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Waits this long after reading the request before answering.
    pub fn delay(self, delay: Duration) -> Route {
        self.delay_range(delay, delay)
    }

    /// Waits a uniformly random time in `min..=max` before answering.
    pub fn delay_range(mut self, min: Duration, max: Duration) -> Route {
        assert!(min <= max, "delay_range: min {min:?} > max {max:?}");
        self.delay = Some((min, max));
        self
    }

    /// Serves at most `workers` requests at once; the others queue for a worker.
    pub fn pool(mut self, workers: usize) -> Route {
        self.pool = Some(Arc::new(tokio::sync::Semaphore::new(workers)));
        self
    }

    /// Answers with `Connection: close` and closes the connection after the response.
    pub fn close_after(mut self) -> Route {
        self.close_after = true;
        self
    }

    /// Records every request to this route (see [`TestServer::recorded`]).
    pub fn record(mut self) -> Route {
        self.record = true;
        self
    }
}

/// A request as the server read it: what a [`Route::handler`] gets, and what routes with
/// [`Route::record`] keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedRequest {
    pub method: String,
    /// The request target as sent: path and query string.
    pub target: String,
    /// Header names and values as sent (values decoded lossily as UTF-8), in order.
    pub headers: Vec<(String, String)>,
    /// The body after removing the chunked framing, if any.
    pub body: Vec<u8>,
    /// `"HTTP/1.0"` or `"HTTP/1.1"`.
    pub http_version: String,
}

impl RecordedRequest {
    /// The value of the first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The value of the first cookie with this name (case-sensitive) in any `Cookie` header
    /// (`Cookie: a=1; b=2`, possibly several such headers), as sent: not decoded, not unquoted.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("cookie"))
            .flat_map(|(_, v)| v.split(';'))
            .filter_map(|pair| pair.split_once('='))
            .find(|(n, _)| n.trim() == name)
            .map(|(_, v)| v.trim().to_string())
    }

    /// The path the route was chosen by: the target without query string (see the module doc).
    pub fn path(&self) -> &str {
        target_path(&self.target)
    }

    /// The first value of query parameter `name` (compared after decoding), percent-decoded
    /// with `+` as a space (as `application/x-www-form-urlencoded`). A parameter without `=`
    /// has the value `""`.
    pub fn query(&self, name: &str) -> Option<String> {
        let query = self.target.split_once('?').map_or("", |(_, q)| q);
        let query = query.split('#').next().unwrap_or("");
        urlencoded_value(query, name)
    }

    /// The first value of field `name` of the body read as `application/x-www-form-urlencoded`
    /// (whatever its `Content-Type` says), decoded like [`RecordedRequest::query`].
    pub fn form(&self, name: &str) -> Option<String> {
        urlencoded_value(&String::from_utf8_lossy(&self.body), name)
    }
}

/// What a handler route answers; see [`Route::handler`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    /// Sent in this order, each as its own header line, after `Content-Length`. Do not add
    /// `Content-Length`, `Transfer-Encoding` or `Connection`: the server writes those.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The given status with no headers and an empty body.
    pub fn status(code: u16) -> Reply {
        Reply { status: code, headers: Vec::new(), body: Vec::new() }
    }

    /// `200` with body `OK`.
    pub fn ok() -> Reply {
        Reply::status(200).body("OK")
    }

    /// `200` with a JSON `body` (`Content-Type: application/json`).
    pub fn json(body: impl AsRef<[u8]>) -> Reply {
        Reply::ok().header("Content-Type", "application/json").body(body)
    }

    /// Adds a header; may be called several times with the same name (say, `Set-Cookie`): each
    /// is sent as its own line, in the order added.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl AsRef<[u8]>) -> Reply {
        self.body = body.as_ref().to_vec();
        self
    }
}

/// The path of a request target: without query string and fragment, and without scheme and
/// authority in absolute form (`http://host/p?q` has path `/p`).
fn target_path(target: &str) -> &str {
    let mut t = target;
    if let Some(rest) = t.strip_prefix("http://").or_else(|| t.strip_prefix("https://")) {
        t = rest.find('/').map_or("/", |i| &rest[i..]);
    }
    t.split(['?', '#']).next().unwrap_or(t)
}

/// The decoded value of the first `name=value` pair named `name` in `a=1&b=2` form.
fn urlencoded_value(pairs: &str, name: &str) -> Option<String> {
    pairs
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .find(|(n, _)| form_decode(n) == name)
        .map(|(_, v)| form_decode(v))
}

/// Percent-decodes with `+` as a space; an invalid escape is kept as it is, and bytes that are
/// not UTF-8 become U+FFFD.
fn form_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
                (Some(high), Some(low)) => {
                    out.push(high * 16 + low);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    char::from(b).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// Builds a [`TestServer`]; see [`TestServer::builder`].
#[derive(Debug)]
pub struct TestServerBuilder {
    routes: HashMap<String, Route>,
    default_route: Route,
    worker_threads: usize,
    record_all: bool,
}

impl TestServerBuilder {
    /// Serves `path` (compared without the query string) with `route`.
    pub fn route(mut self, path: &str, route: Route) -> Self {
        self.routes.insert(path.to_string(), route);
        self
    }

    /// Serves every path without its own route with `route` (default: `404`, empty body).
    pub fn default_route(mut self, route: Route) -> Self {
        self.default_route = route;
        self
    }

    /// Records every request, whatever its route says (see [`TestServer::recorded_all`]).
    pub fn record_all(mut self) -> Self {
        self.record_all = true;
        self
    }

    /// Worker threads of the server's runtime (default 2).
    pub fn worker_threads(mut self, n: usize) -> Self {
        self.worker_threads = n.max(1);
        self
    }

    /// Binds `127.0.0.1:0` and starts serving on a thread of its own. Panics if it cannot.
    pub fn start(self) -> TestServer {
        let shared = Arc::new(Shared {
            routes: self
                .routes
                .into_iter()
                .map(|(path, route)| (path, RouteEntry { route, requests: AtomicU64::new(0) }))
                .collect(),
            default_route: self.default_route,
            record_all: self.record_all,
            requests: AtomicU64::new(0),
            responses: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            open_connections: AtomicU64::new(0),
            max_concurrent_connections: AtomicU64::new(0),
            bad_requests: AtomicU64::new(0),
            other_paths: Mutex::new(HashMap::new()),
            recorded: Mutex::new(Vec::new()),
            held: Mutex::new(Vec::new()),
        });
        let (addr_tx, addr_rx) = mpsc::channel::<io::Result<SocketAddr>>();
        let (shutdown_tx, shutdown_rx) = oneshot::channel::<()>();
        let workers = self.worker_threads;
        let state = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name("test-server".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(workers)
                    .thread_name("test-server-worker")
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = addr_tx.send(Err(e));
                        return;
                    }
                };
                runtime.block_on(async move {
                    // The listener is created inside the runtime: registering it needs the reactor.
                    let listener = match bind_loopback() {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = addr_tx.send(Err(e));
                            return;
                        }
                    };
                    let _ = addr_tx.send(listener.local_addr());
                    tokio::select! {
                        () = accept_loop(listener, state) => {}
                        _ = shutdown_rx => {}
                    }
                });
                // Dropping the runtime cancels every connection task, which closes their
                // sockets; that is how hanging connections end when the server stops.
                drop(runtime);
            })
            .expect("spawn the test server thread");
        let addr = match addr_rx.recv() {
            Ok(Ok(addr)) => addr,
            Ok(Err(e)) => panic!("test server: cannot start: {e}"),
            Err(_) => panic!("test server: the server thread died while starting"),
        };
        TestServer { addr, shared, shutdown: Some(shutdown_tx), thread: Some(thread) }
    }
}

/// A running loopback HTTP/1.x server; stops (closing every connection) when dropped.
#[derive(Debug)]
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl TestServer {
    /// A builder with no routes, whose default route answers `404`.
    pub fn builder() -> TestServerBuilder {
        TestServerBuilder {
            routes: HashMap::new(),
            default_route: Route::status(404),
            worker_threads: 2,
            record_all: false,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` followed by `path` (which should start with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Requests read completely, on every path.
    pub fn requests(&self) -> u64 {
        self.shared.requests.load(SeqCst)
    }

    /// Requests read completely whose path (without query string) is `path`.
    pub fn requests_to(&self, path: &str) -> u64 {
        match self.shared.routes.get(path) {
            Some(entry) => entry.requests.load(SeqCst),
            None => lock(&self.shared.other_paths).get(path).copied().unwrap_or(0),
        }
    }

    /// How long the server really held each delayed request (the route's delay, plus however
    /// late the machine's timer fired), in the order the delays ended.
    pub fn held(&self) -> Vec<Duration> {
        lock(&self.shared.held).clone()
    }

    /// Responses written completely.
    pub fn responses(&self) -> u64 {
        self.shared.responses.load(SeqCst)
    }

    /// TCP connections accepted.
    pub fn connections(&self) -> u64 {
        self.shared.connections.load(SeqCst)
    }

    /// TCP connections open right now (accepted and not yet closed by the server).
    pub fn open_connections(&self) -> u64 {
        self.shared.open_connections.load(SeqCst)
    }

    /// The most connections that were open at the same time.
    pub fn max_concurrent_connections(&self) -> u64 {
        self.shared.max_concurrent_connections.load(SeqCst)
    }

    /// Requests that could not be parsed (answered `400`, connection closed).
    pub fn bad_requests(&self) -> u64 {
        self.shared.bad_requests.load(SeqCst)
    }

    /// Polls `condition` every 5 ms until it holds (true) or `timeout` passes (false).
    pub fn wait_until(&self, timeout: Duration, condition: impl Fn(&TestServer) -> bool) -> bool {
        let until = std::time::Instant::now() + timeout;
        loop {
            if condition(self) {
                return true;
            }
            if std::time::Instant::now() >= until {
                return false;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Requests recorded for `path` (routes with [`Route::record`]), in the order read.
    pub fn recorded(&self, path: &str) -> Vec<RecordedRequest> {
        lock(&self.shared.recorded).iter().filter(|(p, _)| p == path).map(|(_, r)| r.clone()).collect()
    }

    /// Every request recorded, on any path, in the order read (see
    /// [`TestServerBuilder::record_all`]).
    pub fn recorded_all(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.recorded).iter().map(|(_, r)| r.clone()).collect()
    }

    /// The bodies of the requests recorded for `path`, in the order read.
    pub fn bodies(&self, path: &str) -> Vec<Vec<u8>> {
        self.recorded(path).into_iter().map(|r| r.body).collect()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// State shared by the connection tasks and the test thread.
#[derive(Debug)]
struct Shared {
    routes: HashMap<String, RouteEntry>,
    default_route: Route,
    record_all: bool,
    requests: AtomicU64,
    responses: AtomicU64,
    connections: AtomicU64,
    open_connections: AtomicU64,
    max_concurrent_connections: AtomicU64,
    bad_requests: AtomicU64,
    /// Request counts of paths served by the default route.
    other_paths: Mutex<HashMap<String, u64>>,
    /// Recorded requests with their paths, in the order read.
    recorded: Mutex<Vec<(String, RecordedRequest)>>,
    /// How long each delayed request was really held: a timer fires late by however much the
    /// machine's scheduling adds, and tests compare stampede with what happened, not the plan.
    held: Mutex<Vec<Duration>>,
}

#[derive(Debug)]
struct RouteEntry {
    route: Route,
    requests: AtomicU64,
}

/// Locks a mutex, ignoring poisoning: a panicking test thread must not hide the counts.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn bind_loopback() -> io::Result<TcpListener> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    socket.listen(BACKLOG)
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                shared.connections.fetch_add(1, SeqCst);
                // Counted here, before the task runs, so the maximum is exact.
                let guard = OpenConnection::new(Arc::clone(&shared));
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve_connection(stream, guard));
            }
            // Typically EMFILE under a heavy test; back off and keep serving.
            Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
}

/// Keeps `open_connections` right however a connection task ends (including cancellation).
struct OpenConnection(Arc<Shared>);

impl OpenConnection {
    fn new(shared: Arc<Shared>) -> OpenConnection {
        let open = shared.open_connections.fetch_add(1, SeqCst) + 1;
        shared.max_concurrent_connections.fetch_max(open, SeqCst);
        OpenConnection(shared)
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.open_connections.fetch_sub(1, SeqCst);
    }
}

/// A request read completely.
struct Request {
    method: String,
    target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    minor_version: u8,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    /// The path the route is chosen by (see [`target_path`]).
    fn path(&self) -> &str {
        target_path(&self.target)
    }

    /// Whether the connection persists after this exchange (RFC 9112 §9.3).
    fn keep_alive(&self) -> bool {
        let tokens = connection_tokens(&self.headers);
        if tokens.iter().any(|t| t.eq_ignore_ascii_case("close")) {
            false
        } else if self.minor_version == 0 {
            tokens.iter().any(|t| t.eq_ignore_ascii_case("keep-alive"))
        } else {
            true
        }
    }
}

fn connection_tokens(headers: &[(String, String)]) -> Vec<&str> {
    headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("connection"))
        .flat_map(|(_, v)| v.split(','))
        .map(str::trim)
        .collect()
}

/// Why no request could be read.
enum ReadError {
    /// The connection closed or failed (including mid-request): just end the connection.
    Gone,
    /// The bytes are not a request this server accepts: answer 400 and close.
    Malformed,
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> ReadError {
        ReadError::Gone
    }
}

async fn serve_connection(mut stream: TcpStream, guard: OpenConnection) {
    let shared = &guard.0;
    // Bytes read but not consumed yet: with pipelining they belong to the next request.
    let mut buf: Vec<u8> = Vec::with_capacity(8 * 1024);
    loop {
        let request = match read_request(&mut stream, &mut buf).await {
            Ok(Some(r)) => r,
            Ok(None) | Err(ReadError::Gone) => return,
            Err(ReadError::Malformed) => {
                shared.bad_requests.fetch_add(1, SeqCst);
                let answer = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                if stream.write_all(answer).await.is_ok() {
                    close_gracefully(stream).await;
                }
                return;
            }
        };

        let path = request.path().to_string();
        let route = match shared.routes.get(&path) {
            Some(entry) => {
                entry.requests.fetch_add(1, SeqCst);
                &entry.route
            }
            None => {
                *lock(&shared.other_paths).entry(path.clone()).or_insert(0) += 1;
                &shared.default_route
            }
        };
        shared.requests.fetch_add(1, SeqCst);
        let keep_alive = request.keep_alive() && !route.close_after;
        let is_head = request.method == "HEAD";
        let minor_version = request.minor_version;
        let request = RecordedRequest {
            method: request.method,
            target: request.target,
            headers: request.headers,
            body: request.body,
            http_version: format!("HTTP/1.{minor_version}"),
        };
        if route.record || shared.record_all {
            lock(&shared.recorded).push((path, request.clone()));
        }

        match route.action {
            Action::Hang => {
                discard_until_eof(&mut stream).await;
                return;
            }
            Action::Close => {
                close_gracefully(stream).await;
                return;
            }
            Action::Reset => {
                // SO_LINGER 0 makes the close below send an RST instead of a FIN. If it cannot
                // be set the test will notice a FIN; nothing better to do here.
                let _ = stream.set_zero_linger();
                drop(stream);
                return;
            }
            Action::Respond => {}
        }

        let _worker = match &route.pool {
            Some(pool) => pool.clone().acquire_owned().await.ok(),
            None => None,
        };
        if let Some((min, max)) = route.delay {
            let started = std::time::Instant::now();
            tokio::time::sleep(random_between(min, max)).await;
            lock(&shared.held).push(started.elapsed());
        }
        let reply;
        let (status, reply_headers, body) = match &route.handler {
            Some(handler) => {
                reply = call_handler(handler, &request);
                (reply.status, reply.headers.as_slice(), reply.body.as_slice())
            }
            None => (route.status, &[][..], route.body.as_slice()),
        };
        let headers = reply_headers.iter().chain(&route.headers);
        let response = render_response(status, headers, body, minor_version, keep_alive, is_head);
        // Counted before the write, not after: a client can read the response before this task
        // runs again after `write_all`, and must never observe a response it has that is not
        // counted yet. A failed write takes the count back.
        shared.responses.fetch_add(1, SeqCst);
        if stream.write_all(&response).await.is_err() {
            shared.responses.fetch_sub(1, SeqCst);
            return;
        }
        if !keep_alive {
            close_gracefully(stream).await;
            return;
        }
    }
}

fn random_between(min: Duration, max: Duration) -> Duration {
    if min == max {
        return min;
    }
    let lo = u64::try_from(min.as_nanos()).unwrap_or(u64::MAX);
    let hi = u64::try_from(max.as_nanos()).unwrap_or(u64::MAX);
    Duration::from_nanos(rand::random_range(lo..=hi))
}

/// Calls a route's handler; a panic becomes a `500` whose body is the panic message.
fn call_handler(handler: &Handler, request: &RecordedRequest) -> Reply {
    panic::catch_unwind(AssertUnwindSafe(|| (handler.0)(request))).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|m| m.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Reply::status(500).body(format!("handler panicked: {message}"))
    })
}

/// The response bytes. A HEAD response has no body, but `Content-Length` still gives the
/// length of the body a GET would get.
fn render_response<'a>(
    status: u16,
    headers: impl Iterator<Item = &'a (String, String)>,
    body: &[u8],
    minor_version: u8,
    keep_alive: bool,
    is_head: bool,
) -> Vec<u8> {
    let mut head =
        format!("HTTP/1.{minor_version} {status} {}\r\nContent-Length: {}\r\n", reason_phrase(status), body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !keep_alive {
        head.push_str("Connection: close\r\n");
    } else if minor_version == 0 {
        // An HTTP/1.0 client only keeps the connection if told so.
        head.push_str("Connection: keep-alive\r\n");
    }
    head.push_str("\r\n");
    let mut response = head.into_bytes();
    if !is_head {
        response.extend_from_slice(body);
    }
    response
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// Reads more bytes into `buf`; returns how many (0 at end of stream).
async fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<usize> {
    let mut chunk = [0u8; 8 * 1024];
    let n = stream.read(&mut chunk).await?;
    buf.extend_from_slice(&chunk[..n]);
    Ok(n)
}

/// Reads one complete request, leaving any bytes after it in `buf`. `Ok(None)` means the client
/// closed the connection cleanly between requests.
async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<Option<Request>, ReadError> {
    let (head_len, mut request) = loop {
        if !buf.is_empty() {
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut parsed = httparse::Request::new(&mut headers);
            match parsed.parse(buf) {
                Ok(httparse::Status::Complete(n)) => break (n, owned_request(&parsed)),
                Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD => return Err(ReadError::Malformed),
                Ok(httparse::Status::Partial) => {}
                Err(_) => return Err(ReadError::Malformed),
            }
        }
        if fill(stream, buf).await? == 0 {
            return if buf.is_empty() { Ok(None) } else { Err(ReadError::Gone) };
        }
    };
    buf.drain(..head_len);

    let framing = body_framing(&request.headers)?;
    let has_body = match framing {
        Framing::Chunked => true,
        Framing::Length(n) => n > 0,
    };
    if has_body && request.minor_version == 1 && expects_continue(&request.headers) {
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
    }
    request.body = match framing {
        Framing::Length(n) => read_exact(stream, buf, n).await?,
        Framing::Chunked => read_chunked(stream, buf).await?,
    };
    Ok(Some(request))
}

fn owned_request(parsed: &httparse::Request<'_, '_>) -> Request {
    Request {
        method: parsed.method.unwrap_or_default().to_string(),
        target: parsed.path.unwrap_or_default().to_string(),
        minor_version: parsed.version.unwrap_or(1),
        headers: parsed
            .headers
            .iter()
            .map(|h| (h.name.to_string(), String::from_utf8_lossy(h.value).into_owned()))
            .collect(),
        body: Vec::new(),
    }
}

enum Framing {
    Length(u64),
    Chunked,
}

/// How the request body is delimited (RFC 9112 §6.3); a request without either header has none.
fn body_framing(headers: &[(String, String)]) -> Result<Framing, ReadError> {
    let header_values =
        |name: &'static str| headers.iter().filter(move |(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
    let codings: Vec<&str> = header_values("transfer-encoding")
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    if let Some(last) = codings.last() {
        // Transfer-Encoding overrides Content-Length; any final coding but chunked leaves the
        // length of a request undeterminable, which is an error.
        return if last.eq_ignore_ascii_case("chunked") { Ok(Framing::Chunked) } else { Err(ReadError::Malformed) };
    }
    let mut length = None;
    for value in header_values("content-length").flat_map(|v| v.split(',')) {
        let n: u64 = value.trim().parse().map_err(|_| ReadError::Malformed)?;
        if length.is_some_and(|l| l != n) {
            return Err(ReadError::Malformed);
        }
        length = Some(n);
    }
    match length {
        Some(n) if n > MAX_BODY => Err(ReadError::Malformed),
        Some(n) => Ok(Framing::Length(n)),
        None => Ok(Framing::Length(0)),
    }
}

fn expects_continue(headers: &[(String, String)]) -> bool {
    headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("expect") && v.trim().eq_ignore_ascii_case("100-continue"))
}

/// Takes exactly `n` bytes from `buf`, reading more as needed.
async fn read_exact(stream: &mut TcpStream, buf: &mut Vec<u8>, n: u64) -> Result<Vec<u8>, ReadError> {
    let n = usize::try_from(n).map_err(|_| ReadError::Malformed)?;
    while buf.len() < n {
        if fill(stream, buf).await? == 0 {
            return Err(ReadError::Gone);
        }
    }
    Ok(buf.drain(..n).collect())
}

/// Takes one line (without its line ending; a bare LF is tolerated) from `buf`.
async fn read_line(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<Vec<u8>, ReadError> {
    loop {
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = buf.drain(..=i).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(line);
        }
        if buf.len() > MAX_LINE {
            return Err(ReadError::Malformed);
        }
        if fill(stream, buf).await? == 0 {
            return Err(ReadError::Gone);
        }
    }
}

/// Decodes a chunked body (RFC 9112 §7.1): chunk extensions and trailers are read and ignored.
async fn read_chunked(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<Vec<u8>, ReadError> {
    let mut body = Vec::new();
    loop {
        let line = read_line(stream, buf).await?;
        let line = std::str::from_utf8(&line).map_err(|_| ReadError::Malformed)?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = u64::from_str_radix(size, 16).map_err(|_| ReadError::Malformed)?;
        if size == 0 {
            // Trailer section, up to the empty line.
            while !read_line(stream, buf).await?.is_empty() {}
            return Ok(body);
        }
        if body.len() as u64 + size > MAX_BODY {
            return Err(ReadError::Malformed);
        }
        body.extend(read_exact(stream, buf, size).await?);
        if !read_line(stream, buf).await?.is_empty() {
            return Err(ReadError::Malformed);
        }
    }
}

/// Reads and throws away everything until the client closes (or the connection fails).
async fn discard_until_eof(stream: &mut TcpStream) {
    let mut scratch = [0u8; 8 * 1024];
    while let Ok(n) = stream.read(&mut scratch).await {
        if n == 0 {
            break;
        }
    }
}

/// Closes with a FIN, never an RST. Closing a socket with unread received data makes the kernel
/// send an RST, which can destroy a response the client has not read yet; so this sends the FIN
/// first (shutdown of the write side) and drains what the client still sends until it closes
/// too, for at most `LINGER`.
async fn close_gracefully(mut stream: TcpStream) {
    let _ = stream.shutdown().await;
    let _ = tokio::time::timeout(LINGER, discard_until_eof(&mut stream)).await;
}
