//! [`HttpClient`]: one virtual user's HTTP/1.x connections, and the only place that speaks HTTP.
//! It times connect, first byte and last byte, counts bytes on the wire, and turns every
//! failure into an [`ErrorKind`] instead of an error value.
//!
//! A user keeps one connection per host (scheme, host, port), as a JMeter thread's
//! HttpClient 4 keeps a pool per host: a user alternating two hosts keeps a connection to each.
//!
//! Written on tokio sockets + `httparse` rather than on hyper because a load generator's
//! client is its hot path: the request bytes are rendered once per plan and written with one
//! syscall, the response is parsed in place and its body counted and discarded, and nothing is
//! allocated per request. Reads land in one buffer per worker thread, so a user holds no read
//! buffer while it waits (10,000 users: about 4.6 KiB each). The benchmark in `bench/`
//! measures what this buys against wrk and oha.

use crate::http1::Chunked;
use crate::plan::Target;
use crate::record::ErrorKind;
use std::cell::RefCell;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

mod read;
use read::{read_response, Capture};

/// What one exchange measured.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Exchange {
    pub status: u16,
    /// When the first response byte arrived.
    pub first_byte: Option<Instant>,
    pub end: Option<Instant>,
    pub connect: Duration,
    pub new_connection: bool,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub error: Option<ErrorKind>,
    /// The response sets a cookie.
    pub set_cookie: bool,
    /// The upstream's own time, as the response's headers tell it (see [`Wire::timing`]).
    pub upstream_us: Option<u64>,
    /// How far the exchange got, so a timeout is told apart: connecting or waiting on the server.
    phase: Phase,
    /// Abandoned before any byte of the request was written: not a sample.
    pub abandoned_before_send: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Connect,
    Exchange,
}

enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
    /// A connection under bandwidth emulation (see [`Slow`]).
    Slow(Box<Slow>),
}

/// JMeter's bandwidth emulation (SlowSocket's SlowInputStream and SlowOutputStream, by
/// CPSPauser): before each socket read or write JMeter waits `len * 1000 / cps` ms for the
/// `len` HttpClient 4 asks for. Its first read of a response fills its empty 8 KiB buffer, so
/// that read waits for 8 KiB whatever comes (a 214-byte response at 10,000 cps takes 834 ms in
/// JMeter 5.6.3); later reads of a body ask for what is left of it, up to 8 KiB, about what
/// arrives. So here: the first read after a request waits for 8 KiB, later ones for the bytes
/// they got, before handing them on; writes go in pieces of up to 8 KiB, each after its wait.
struct Slow {
    /// A plain or TLS stream.
    inner: Stream,
    cps: u32,
    /// A request was written and its response not yet read from.
    fresh: bool,
    /// Where reads land: the thread's scratch buffer cannot be held across the wait.
    buf: Box<[u8]>,
}

/// The most one paced read or write moves (HttpClient 4's socket buffer).
const SLOW_CHUNK: usize = 8 * 1024;

impl Slow {
    async fn pause(&self, bytes: usize) {
        let ms = bytes as u64 * 1000 / u64::from(self.cps);
        if ms > 0 {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }

    async fn read_with<T>(&mut self, mut f: impl FnMut(&[u8]) -> T) -> io::Result<T> {
        let fresh = std::mem::take(&mut self.fresh);
        if fresh {
            self.pause(SLOW_CHUNK).await;
        }
        let n = std::future::poll_fn(|cx| {
            let mut buf = ReadBuf::new(&mut self.buf);
            let polled = match &mut self.inner {
                Stream::Plain(s) => Pin::new(s).poll_read(cx, &mut buf),
                Stream::Tls(s) => Pin::new(&mut **s).poll_read(cx, &mut buf),
                Stream::Slow(_) => unreachable!("a slow stream wraps a plain or TLS one"),
            };
            polled.map_ok(|()| buf.filled().len())
        })
        .await?;
        if !fresh {
            self.pause(n).await;
        }
        Ok(f(&self.buf[..n]))
    }

    async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.fresh = true;
        for chunk in buf.chunks(SLOW_CHUNK) {
            self.pause(chunk.len()).await;
            match &mut self.inner {
                Stream::Plain(s) => s.write_all(chunk).await?,
                Stream::Tls(s) => {
                    s.write_all(chunk).await?;
                    s.flush().await?
                }
                Stream::Slow(_) => unreachable!("a slow stream wraps a plain or TLS one"),
            }
        }
        Ok(())
    }
}

/// The run's bandwidth emulation, read as the first connection opens (JMeter reads the
/// properties as its HTTP client's class loads, on the run's first HTTP sample).
#[derive(Debug)]
pub(crate) struct Bandwidth {
    plan: crate::plan::Bandwidth,
    globals: Arc<crate::engine::session::Globals>,
    read: std::sync::OnceLock<[u32; 2]>,
}

impl Bandwidth {
    pub(crate) fn new(plan: &crate::plan::Bandwidth, globals: Arc<crate::engine::session::Globals>) -> Bandwidth {
        Bandwidth { plan: plan.clone(), globals, read: std::sync::OnceLock::new() }
    }

    /// Characters per second for a connection (0: no limit).
    fn cps(&self, tls: bool) -> u32 {
        let both = self.read.get_or_init(|| {
            if !self.plan.scripted {
                return self.plan.loaded;
            }
            let props = self.globals.properties.read().unwrap_or_else(|e| e.into_inner());
            let objects = self.globals.property_objects.read().unwrap_or_else(|e| e.into_inner());
            let mut both = self.plan.loaded;
            for (cps, name) in both.iter_mut().zip(crate::plan::Bandwidth::PROPERTIES) {
                // A value a script stored that is not text is no property to `getProperty`.
                if objects.contains_key(name) {
                    *cps = 0;
                } else if let Some(v) = props.get(name) {
                    *cps = crate::plan::Bandwidth::cps(Some(v));
                }
            }
            both
        });
        both[usize::from(tls)]
    }
}

thread_local! {
    /// Where every read of this thread lands; see [`Stream::read_with`].
    static SCRATCH: RefCell<Box<[u8]>> = RefCell::new(vec![0; READ_CHUNK].into_boxed_slice());
}

impl Stream {
    /// Reads once, into this thread's scratch buffer, and hands what came (nothing at the end of
    /// the stream) to `f`, in the same poll: a user waiting for bytes holds no buffer, so ten
    /// thousand waiting users cost no more than ten. The read itself is tokio's `poll_read`,
    /// readiness handling included.
    async fn read_with<T>(&mut self, mut f: impl FnMut(&[u8]) -> T) -> io::Result<T> {
        if let Stream::Slow(s) = self {
            // Boxed: the wait's timer must not make every user's exchange larger.
            return Box::pin(s.read_with(f)).await;
        }
        std::future::poll_fn(|cx| {
            SCRATCH.with_borrow_mut(|scratch| {
                let mut buf = ReadBuf::new(scratch);
                let polled = match self {
                    Stream::Plain(s) => Pin::new(s).poll_read(cx, &mut buf),
                    Stream::Tls(s) => Pin::new(&mut **s).poll_read(cx, &mut buf),
                    Stream::Slow(_) => unreachable!("read through Slow::read_with"),
                };
                polled.map_ok(|()| f(buf.filled()))
            })
        })
        .await
    }

    async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.write_all(buf).await,
            Stream::Tls(s) => {
                s.write_all(buf).await?;
                s.flush().await
            }
            Stream::Slow(s) => Box::pin(s.write_all(buf)).await,
        }
    }
}

struct Conn {
    stream: Stream,
    target: Target,
    /// Responses completed on this connection; > 0 means it is being reused.
    served: u64,
}

/// The most one read takes: a typical API response whole, a large body in few reads. The
/// buffer is one per worker thread, not one per user.
const READ_CHUNK: usize = 64 * 1024;
const MAX_HEADERS: usize = 96;
const MAX_HEAD_BYTES: usize = 256 * 1024;
/// The most memory a user keeps between responses for the bodies its checks read.
const KEEP_BODY_CAPACITY: usize = 256 * 1024;
/// The most memory a user keeps between responses for the heads it received.
const KEEP_HEAD_CAPACITY: usize = 16 * 1024;

/// Where one exchange goes and how its response is read: what may differ between the hops of
/// a redirect chain.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wire<'a> {
    pub target: &'a Target,
    pub keep_alive: bool,
    pub is_head: bool,
    pub connect_timeout: Duration,
    pub response_timeout: Duration,
    pub max_response_size: u64,
    /// Keep the (de-chunked) body for checks and extractors; otherwise it is only counted.
    pub keep_body: bool,
    /// Cancelled when requests in flight must be abandoned (the grace time is over, or a
    /// second interrupt): the exchange ends at once as [`ErrorKind::Aborted`].
    pub abandon: &'a tokio_util::sync::CancellationToken,
    /// A DNS Cache Manager's static hosts table, consulted before the system resolver.
    pub hosts: Option<&'a crate::plan::managers::DnsSpec>,
    /// Which response headers tell the upstream's time ([`Exchange::upstream_us`]).
    pub timing: &'a crate::plan::timing::TimingHeaders,
    /// Bandwidth emulation, read when a connection opens.
    pub bandwidth: &'a Bandwidth,
}

/// The most connections a user keeps open, to as many hosts (HttpClient 4's default for a
/// connection pool's total; JMeter also closes a thread's connections as each iteration starts).
const MAX_CONNS: usize = 20;

pub(super) struct HttpClient {
    /// One connection per target, the most recently used first (almost every plan has one
    /// target); at most [`MAX_CONNS`].
    conns: Vec<Conn>,
    tls: Arc<rustls::ClientConfig>,
    /// The last target's resolved addresses: a user resolves a host once, as a JVM caches DNS.
    resolved: Option<(Target, Vec<SocketAddr>)>,
    /// The head of the last response (status line and headers), as received.
    head: Vec<u8>,
    /// The body of the last response, when the request asked to keep it.
    body: Vec<u8>,
    /// The response timeout, kept from one request to the next: moving a waiting timer's
    /// deadline later is one atomic operation, where a timer per request is an insertion and a
    /// removal in the runtime's timer wheel, under its lock.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl HttpClient {
    pub(super) fn new(tls: Arc<rustls::ClientConfig>) -> HttpClient {
        HttpClient { conns: Vec::new(), tls, resolved: None, head: Vec::new(), body: Vec::new(), timer: None }
    }

    /// Forgets the addresses resolved so far (a DNS Cache Manager cleared each iteration).
    pub(super) fn forget_resolved(&mut self) {
        self.resolved = None;
    }

    /// Closes the connection to `target`, if there is one.
    fn drop_conn(&mut self, target: &Target) {
        if let Some(i) = self.conns.iter().position(|c| c.target == *target) {
            self.conns.remove(i);
        }
    }

    /// The head of the last response: status line and headers as received (empty if none came).
    pub(super) fn head(&self) -> &[u8] {
        &self.head
    }

    /// The body of the last response, if the request asked to keep it.
    pub(super) fn body(&self) -> &[u8] {
        &self.body
    }

    /// Sends `bytes` (one whole request) and reads the response, reusing the user's connection
    /// when it can. `start` is when the sample's clock started (now, or when an open-model
    /// arrival was due).
    pub(super) async fn send(&mut self, req: &Wire<'_>, bytes: &[u8], start: Instant) -> Exchange {
        let mut ex = Exchange::default();
        self.head.clear();
        self.body.clear();
        // One large body (or head) must not stay resident in every user for the rest of the run.
        self.body.shrink_to(KEEP_BODY_CAPACITY);
        self.head.shrink_to(KEEP_HEAD_CAPACITY);
        let deadline = (start.max(Instant::now()) + req.response_timeout).into();
        let mut timer = match self.timer.take() {
            Some(mut t) => {
                t.as_mut().reset(deadline);
                t
            }
            None => Box::pin(tokio::time::sleep_until(deadline)),
        };
        let result = tokio::select! {
            // The stop first: a request must not go out once the run has abandoned its users.
            // Then the exchange, then its deadline (as `tokio::time::timeout` polls them).
            biased;
            _ = req.abandon.cancelled() => None,
            r = self.exchange(req, bytes, &mut ex) => Some(Ok(r)),
            () = &mut timer => Some(Err(())),
        };
        self.timer = Some(timer);
        let failed = match result {
            // Abandoned while connecting: no request reached the wire, so there is no sample.
            None if ex.phase == Phase::Connect => {
                ex.abandoned_before_send = true;
                ex.error = Some(ErrorKind::Aborted);
                true
            }
            // Abandoned with the request written (or being written): the server may have seen
            // it, so it is a sample, failed with its own kind.
            None => {
                ex.bytes_sent = ex.bytes_sent.max(bytes.len() as u64);
                ex.error = Some(ErrorKind::Aborted);
                true
            }
            Some(Ok(Ok(keep))) => {
                if !keep {
                    self.drop_conn(req.target);
                }
                false
            }
            Some(Ok(Err(kind))) => {
                ex.error = Some(kind);
                true
            }
            // The response timeout ran out. While the connection was still being opened, that
            // is a connect that did not complete: `connect_timeout`, whichever limit struck.
            Some(Err(_elapsed)) => {
                ex.error =
                    Some(if ex.phase == Phase::Connect { ErrorKind::ConnectTimeout } else { ErrorKind::Timeout });
                true
            }
        };
        if failed {
            // The connection is in an unknown state after any failure: never reuse it.
            self.drop_conn(req.target);
        }
        if ex.end.is_none() {
            ex.end = Some(Instant::now());
        }
        // A status outside 100–599 is no HTTP status at all: a failure, whatever its value.
        if ex.error.is_none() && (ex.status >= 400 || !crate::record::error_kind::valid_status(ex.status)) {
            ex.error = Some(ErrorKind::Status(ex.status));
        }
        ex
    }

    /// Writes a request JMeter's HttpClient abandons part-way (a file to upload it cannot open
    /// once the parts before it are out): the bytes go out, no answer is read, and the
    /// connection is closed. Not on the path of any other request.
    pub(super) async fn send_only(&mut self, req: &Wire<'_>, bytes: &[u8]) -> Exchange {
        let mut ex = Exchange::default();
        let written = tokio::select! {
            biased;
            _ = req.abandon.cancelled() => None,
            r = tokio::time::timeout(req.response_timeout, self.write_only(req, bytes, &mut ex)) => Some(r),
        };
        match written {
            None if ex.phase == Phase::Connect => {
                ex.abandoned_before_send = true;
                ex.error = Some(ErrorKind::Aborted);
            }
            None => ex.error = Some(ErrorKind::Aborted),
            Some(Ok(Ok(()))) => {}
            Some(Ok(Err(kind))) => ex.error = Some(kind),
            Some(Err(_elapsed)) => {
                ex.error =
                    Some(if ex.phase == Phase::Connect { ErrorKind::ConnectTimeout } else { ErrorKind::Timeout });
            }
        }
        self.drop_conn(req.target);
        ex.end = Some(Instant::now());
        ex
    }

    async fn write_only(&mut self, req: &Wire<'_>, bytes: &[u8], ex: &mut Exchange) -> Result<(), ErrorKind> {
        self.conn_to(req, ex).await?;
        let conn = &mut self.conns[0];
        ex.phase = Phase::Exchange;
        if let Err(e) = conn.stream.write_all(bytes).await {
            return Err(io_kind(&e, conn.served > 0, false));
        }
        ex.bytes_sent = bytes.len() as u64;
        Ok(())
    }

    /// Returns whether the connection may be kept for the next request.
    async fn exchange(&mut self, req: &Wire<'_>, bytes: &[u8], ex: &mut Exchange) -> Result<bool, ErrorKind> {
        self.conn_to(req, ex).await?;
        let conn = &mut self.conns[0];
        let reused = conn.served > 0;
        ex.phase = Phase::Exchange;
        if let Err(e) = conn.stream.write_all(bytes).await {
            return Err(io_kind(&e, reused, false));
        }
        ex.bytes_sent = bytes.len() as u64;
        let mut out = Capture { head: &mut self.head, body: req.keep_body.then_some(&mut self.body) };
        let keep = read_response(&mut conn.stream, req, reused, ex, &mut out).await?;
        conn.served += 1;
        Ok(keep && req.keep_alive)
    }

    /// Puts the connection to the request's target first, opening it if there is none.
    async fn conn_to(&mut self, req: &Wire<'_>, ex: &mut Exchange) -> Result<(), ErrorKind> {
        // The connection to this target, moved to the front (the others stay in the order
        // they were last used): the next request most likely goes there too.
        match self.conns.iter().position(|c| c.target == *req.target) {
            Some(0) => {}
            Some(i) => self.conns[..=i].rotate_right(1),
            None => {
                let t0 = Instant::now();
                // Boxed: connecting (a TLS handshake's state above all) is the largest thing a
                // user waits on, and it happens once per connection; inline, every user's task
                // would be that large for the whole run.
                let stream = Box::pin(self.connect(req)).await?;
                ex.connect = t0.elapsed();
                ex.new_connection = true;
                // Room for this one only: a first push would make room for four, and almost
                // every user only ever has one connection.
                self.conns.reserve_exact(1);
                self.conns.insert(0, Conn { stream, target: req.target.clone(), served: 0 });
                // The least recently used goes past the limit: a user visiting ever new hosts
                // (read from a data file, say) must not keep a socket open to each.
                self.conns.truncate(MAX_CONNS);
            }
        }
        Ok(())
    }

    async fn connect(&mut self, req: &Wire<'_>) -> Result<Stream, ErrorKind> {
        let addrs = self.resolve(req.target, req.hosts).await?;
        let connect = async {
            let mut last = io::Error::from(io::ErrorKind::AddrNotAvailable);
            for addr in &addrs {
                match TcpStream::connect(addr).await {
                    Ok(s) => return Ok(s),
                    Err(e) => last = e,
                }
            }
            Err(last)
        };
        let tcp = match tokio::time::timeout(req.connect_timeout, connect).await {
            Err(_) => return Err(ErrorKind::ConnectTimeout),
            Ok(Err(e)) => return Err(io_kind(&e, false, true)),
            Ok(Ok(s)) => s,
        };
        // Requests are written whole; Nagle would only add delay (as JMeter and wrk also set).
        let _ = tcp.set_nodelay(true);
        let cps = req.bandwidth.cps(req.target.tls);
        let slow = |inner: Stream| match cps {
            0 => inner,
            cps => {
                Stream::Slow(Box::new(Slow { inner, cps, fresh: false, buf: vec![0; SLOW_CHUNK].into_boxed_slice() }))
            }
        };
        if !req.target.tls {
            return Ok(slow(Stream::Plain(tcp)));
        }
        let name = rustls::pki_types::ServerName::try_from(req.target.host.clone()).map_err(|_| ErrorKind::Tls)?;
        let connector = tokio_rustls::TlsConnector::from(self.tls.clone());
        match tokio::time::timeout(req.connect_timeout, connector.connect(name, tcp)).await {
            Err(_) => Err(ErrorKind::ConnectTimeout),
            Ok(Err(e)) if e.kind() == io::ErrorKind::InvalidData => Err(ErrorKind::Tls),
            Ok(Err(e)) => Err(io_kind(&e, false, true)),
            // JMeter slows the TLS socket itself (SlowSSLSocket): the pace counts TLS bytes there,
            // plain text here.
            Ok(Ok(s)) => Ok(slow(Stream::Tls(Box::new(s)))),
        }
    }

    async fn resolve(
        &mut self,
        target: &Target,
        hosts: Option<&crate::plan::managers::DnsSpec>,
    ) -> Result<Vec<SocketAddr>, ErrorKind> {
        if let Some((t, addrs)) = &self.resolved {
            if t == target {
                return Ok(addrs.clone());
            }
        }
        let table = hosts.and_then(|h| h.lookup(&target.host));
        let addrs: Vec<SocketAddr> = match target.host.parse::<std::net::IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, target.port)],
            // A DNS Cache Manager's static host: its addresses, whatever the system says.
            Err(_) if table.is_some() => {
                table.unwrap_or_default().iter().map(|ip| SocketAddr::new(*ip, target.port)).collect()
            }
            Err(_) => match tokio::net::lookup_host((target.host.as_str(), target.port)).await {
                Ok(a) => a.collect(),
                Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => {
                    return Err(ErrorKind::GeneratorFds)
                }
                Err(_) => return Err(ErrorKind::Dns),
            },
        };
        if addrs.is_empty() {
            return Err(ErrorKind::Dns);
        }
        self.resolved = Some((target.clone(), addrs.clone()));
        Ok(addrs)
    }
}

/// Maps an I/O failure to an error kind. A reset or an early close on a connection that had
/// already served a response is the keep-alive race, and is told apart.
pub(super) fn io_kind(e: &io::Error, reused: bool, connecting: bool) -> ErrorKind {
    use io::ErrorKind as K;
    match e.kind() {
        K::ConnectionRefused => ErrorKind::Refused,
        K::ConnectionReset | K::BrokenPipe | K::ConnectionAborted | K::UnexpectedEof if reused => {
            ErrorKind::ResetOnReuse
        }
        K::ConnectionReset | K::BrokenPipe | K::ConnectionAborted => ErrorKind::Reset,
        K::UnexpectedEof => ErrorKind::Closed,
        K::TimedOut if connecting => ErrorKind::ConnectTimeout,
        K::TimedOut => ErrorKind::Timeout,
        // The generator's own limit: its file descriptors ran out (`ulimit -n`).
        _ if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => ErrorKind::GeneratorFds,
        _ if e.raw_os_error() == Some(libc::EHOSTUNREACH) || e.raw_os_error() == Some(libc::ENETUNREACH) => {
            ErrorKind::Refused
        }
        _ => ErrorKind::Io,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_kinds() {
        let e = |k| io::Error::from(k);
        assert_eq!(io_kind(&e(io::ErrorKind::ConnectionRefused), false, true), ErrorKind::Refused);
        assert_eq!(io_kind(&e(io::ErrorKind::ConnectionReset), false, false), ErrorKind::Reset);
        assert_eq!(io_kind(&e(io::ErrorKind::ConnectionReset), true, false), ErrorKind::ResetOnReuse);
        assert_eq!(io_kind(&e(io::ErrorKind::UnexpectedEof), false, false), ErrorKind::Closed);
        assert_eq!(io_kind(&io::Error::from_raw_os_error(libc::EMFILE), false, true), ErrorKind::GeneratorFds);
        assert_eq!(io_kind(&io::Error::from_raw_os_error(libc::ENFILE), false, true), ErrorKind::GeneratorFds);
    }
}
