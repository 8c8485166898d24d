//! [`HttpClient`]: one virtual user's HTTP/1.x connection, and the only place that speaks HTTP.
//! It times connect, first byte and last byte, counts bytes on the wire, and turns every
//! failure into an [`ErrorKind`] instead of an error value.
//!
//! Written on tokio sockets + `httparse` rather than on hyper because a load generator's
//! client is its hot path: the request bytes are rendered once per plan and written with one
//! syscall, the response is parsed in place and its body counted and discarded, and nothing is
//! allocated per request. The benchmark in `bench/` measures what this buys against wrk and oha.

use crate::http1::Chunked;
use crate::plan::Target;
use crate::record::ErrorKind;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// What one exchange measured.
#[derive(Debug, Clone, Copy, Default)]
pub struct Exchange {
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
}

impl Stream {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf).await,
            Stream::Tls(s) => s.read(buf).await,
        }
    }

    async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.write_all(buf).await,
            Stream::Tls(s) => {
                s.write_all(buf).await?;
                s.flush().await
            }
        }
    }
}

struct Conn {
    stream: Stream,
    target: Target,
    /// Responses completed on this connection; > 0 means it is being reused.
    served: u64,
}

/// Read buffer size: one read takes a typical API response whole. It grows (up to the
/// response's header size) only for very large headers.
const READ_BUF: usize = 8 * 1024;
const MAX_HEADERS: usize = 96;
const MAX_HEAD_BYTES: usize = 256 * 1024;
/// The most memory a user keeps between responses for the bodies its checks read.
const KEEP_BODY_CAPACITY: usize = 256 * 1024;

/// Where one exchange goes and how its response is read: what may differ between the hops of
/// a redirect chain.
#[derive(Debug, Clone, Copy)]
pub struct Wire<'a> {
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
}

pub struct HttpClient {
    conn: Option<Conn>,
    tls: Arc<rustls::ClientConfig>,
    /// The last target's resolved addresses: a user resolves a host once, as a JVM caches DNS.
    resolved: Option<(Target, Vec<SocketAddr>)>,
    buf: Vec<u8>,
    /// The head of the last response (status line and headers), as received.
    head: Vec<u8>,
    /// The body of the last response, when the request asked to keep it.
    body: Vec<u8>,
}

impl HttpClient {
    pub fn new(tls: Arc<rustls::ClientConfig>) -> HttpClient {
        HttpClient { conn: None, tls, resolved: None, buf: Vec::new(), head: Vec::new(), body: Vec::new() }
    }

    /// The head of the last response: status line and headers as received (empty if none came).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The body of the last response, if the request asked to keep it.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// Sends `bytes` (one whole request) and reads the response, reusing the user's connection
    /// when it can. `start` is when the sample's clock started (now, or when an open-model
    /// arrival was due).
    pub async fn send(&mut self, req: &Wire<'_>, bytes: &[u8], start: Instant) -> Exchange {
        let mut ex = Exchange::default();
        self.head.clear();
        self.body.clear();
        // One large body must not stay resident in every user for the rest of the run.
        self.body.shrink_to(KEEP_BODY_CAPACITY);
        let deadline = start.max(Instant::now()) + req.response_timeout;
        let result = tokio::select! {
            // The stop first: a request must not go out once the run has abandoned its users.
            biased;
            _ = req.abandon.cancelled() => None,
            r = tokio::time::timeout_at(deadline.into(), self.exchange(req, bytes, &mut ex)) => Some(r),
        };
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
                    self.conn = None;
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
            self.conn = None;
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

    /// Returns whether the connection may be kept for the next request.
    async fn exchange(&mut self, req: &Wire<'_>, bytes: &[u8], ex: &mut Exchange) -> Result<bool, ErrorKind> {
        if self.conn.as_ref().is_some_and(|c| c.target != *req.target) {
            self.conn = None;
        }
        if self.conn.is_none() {
            let t0 = Instant::now();
            let stream = self.connect(req).await?;
            ex.connect = t0.elapsed();
            ex.new_connection = true;
            self.conn = Some(Conn { stream, target: req.target.clone(), served: 0 });
        }
        let conn = self.conn.as_mut().expect("connected above");
        let reused = conn.served > 0;
        ex.phase = Phase::Exchange;
        if let Err(e) = conn.stream.write_all(bytes).await {
            return Err(io_kind(&e, reused, false));
        }
        ex.bytes_sent = bytes.len() as u64;
        let mut out = Capture { head: &mut self.head, body: req.keep_body.then_some(&mut self.body) };
        let keep = read_response(&mut conn.stream, &mut self.buf, req, reused, ex, &mut out).await?;
        conn.served += 1;
        Ok(keep && req.keep_alive)
    }

    async fn connect(&mut self, req: &Wire<'_>) -> Result<Stream, ErrorKind> {
        let addrs = self.resolve(req.target).await?;
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
        if !req.target.tls {
            return Ok(Stream::Plain(tcp));
        }
        let name = rustls::pki_types::ServerName::try_from(req.target.host.clone()).map_err(|_| ErrorKind::Tls)?;
        let connector = tokio_rustls::TlsConnector::from(self.tls.clone());
        match tokio::time::timeout(req.connect_timeout, connector.connect(name, tcp)).await {
            Err(_) => Err(ErrorKind::ConnectTimeout),
            Ok(Err(e)) if e.kind() == io::ErrorKind::InvalidData => Err(ErrorKind::Tls),
            Ok(Err(e)) => Err(io_kind(&e, false, true)),
            Ok(Ok(s)) => Ok(Stream::Tls(Box::new(s))),
        }
    }

    async fn resolve(&mut self, target: &Target) -> Result<Vec<SocketAddr>, ErrorKind> {
        if let Some((t, addrs)) = &self.resolved {
            if t == target {
                return Ok(addrs.clone());
            }
        }
        let addrs: Vec<SocketAddr> = match target.host.parse::<std::net::IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, target.port)],
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
fn io_kind(e: &io::Error, reused: bool, connecting: bool) -> ErrorKind {
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

/// How the response body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    None,
    Length(u64),
    Chunked,
    UntilClose,
}

/// Where a response's head is copied, and its body if it is kept.
struct Capture<'a> {
    head: &'a mut Vec<u8>,
    body: Option<&'a mut Vec<u8>>,
}

impl Capture<'_> {
    fn body(&mut self, data: &[u8]) {
        if let Some(b) = &mut self.body {
            b.extend_from_slice(data);
        }
    }
}

/// Reads one response. Returns whether the connection can carry another request.
async fn read_response(
    stream: &mut Stream,
    buf: &mut Vec<u8>,
    req: &Wire<'_>,
    reused: bool,
    ex: &mut Exchange,
    out: &mut Capture<'_>,
) -> Result<bool, ErrorKind> {
    if buf.len() < READ_BUF {
        buf.resize(READ_BUF, 0);
    }
    let mut filled = 0usize;
    let mut started = false;
    // Head. Bytes already buffered are parsed before reading more: an interim 1xx response and
    // the final one usually arrive in the same read.
    let (head_len, framing, keep) = loop {
        if filled > 0 {
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut many: Vec<httparse::Header<'_>>;
            let mut resp = httparse::Response::new(&mut headers);
            let mut parsed = resp.parse(&buf[..filled]);
            if parsed == Err(httparse::Error::TooManyHeaders) {
                // A legal response may have any number of fields; only its size is bounded
                // (MAX_HEAD_BYTES). Rare, so the larger array is made only then, and only once
                // the head is whole (a head dripping in line by line is not parsed each time).
                let head = &buf[..filled];
                if memchr::memmem::find(head, b"\r\n\r\n").is_some() || memchr::memmem::find(head, b"\n\n").is_some() {
                    let lines = memchr::memchr_iter(b'\n', head).count();
                    many = vec![httparse::EMPTY_HEADER; lines];
                    resp = httparse::Response::new(&mut many);
                    parsed = resp.parse(head);
                } else {
                    parsed = Ok(httparse::Status::Partial);
                }
            }
            match parsed {
                Ok(httparse::Status::Complete(len)) => {
                    let status = resp.code.unwrap_or(0);
                    // 1xx interim responses (100 Continue) precede the real one: skip them.
                    if (100..200).contains(&status) && status != 101 {
                        buf.copy_within(len..filled, 0);
                        filled -= len;
                        continue;
                    }
                    ex.status = status;
                    ex.set_cookie = resp.headers.iter().any(|h| h.name.eq_ignore_ascii_case("set-cookie"));
                    let (framing, keep) = framing_of(&resp, req)?;
                    out.head.extend_from_slice(&buf[..len]);
                    break (len, framing, keep);
                }
                Ok(httparse::Status::Partial) if filled == buf.len() => {
                    if buf.len() >= MAX_HEAD_BYTES {
                        return Err(ErrorKind::TooLarge);
                    }
                    buf.resize(buf.len() * 2, 0);
                }
                Ok(httparse::Status::Partial) => {}
                Err(_) => return Err(ErrorKind::Protocol),
            }
        }
        let n = match stream.read(&mut buf[filled..]).await {
            Ok(0) => return Err(if !started && reused { ErrorKind::ResetOnReuse } else { ErrorKind::Closed }),
            Ok(n) => n,
            Err(e) => return Err(io_kind(&e, reused && !started, false)),
        };
        if !started {
            started = true;
            ex.first_byte = Some(Instant::now());
        }
        filled += n;
        ex.bytes_received += n as u64;
    };
    check_size(ex, req)?;
    // Body: count it and let it go. Bytes past the body's end mean the server framed its
    // response wrongly; the connection is then not reused, so the next response is not read
    // out of step.
    let buffered = filled - head_len;
    let keep = match framing {
        Framing::None => keep && buffered == 0,
        Framing::Length(len) => {
            let mut surplus = buffered as u64 > len;
            out.body(&buf[head_len..head_len + (len.min(buffered as u64) as usize)]);
            let mut left = len.saturating_sub(buffered as u64);
            while left > 0 {
                let n = read_body(stream, buf, ex, req).await?;
                out.body(&buf[..(n as u64).min(left) as usize]);
                surplus = n as u64 > left;
                left = left.saturating_sub(n as u64);
            }
            keep && !surplus
        }
        Framing::Chunked => {
            let mut dec = Chunked::default();
            let mut consumed =
                dec.feed_with(&buf[head_len..filled], |d| out.body(d)).map_err(|_| ErrorKind::Protocol)?;
            let mut last = buffered;
            while !dec.is_done() {
                last = read_body(stream, buf, ex, req).await?;
                consumed = dec.feed_with(&buf[..last], |d| out.body(d)).map_err(|_| ErrorKind::Protocol)?;
            }
            keep && consumed == last
        }
        Framing::UntilClose => {
            out.body(&buf[head_len..filled]);
            loop {
                match stream.read(&mut buf[..]).await {
                    Ok(0) => break,
                    Ok(n) => {
                        ex.bytes_received += n as u64;
                        check_size(ex, req)?;
                        out.body(&buf[..n]);
                    }
                    // Many TLS servers end a close-delimited body without close_notify; the
                    // body is complete all the same (as browsers and curl accept).
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(io_kind(&e, false, false)),
                }
            }
            false
        }
    };
    ex.end = Some(Instant::now());
    Ok(keep)
}

/// One read of body bytes into `buf`, counted and checked against the size limit; the
/// connection closing before the body's end is an error here.
async fn read_body(stream: &mut Stream, buf: &mut [u8], ex: &mut Exchange, req: &Wire<'_>) -> Result<usize, ErrorKind> {
    match stream.read(buf).await {
        Ok(0) => Err(ErrorKind::Closed),
        Ok(n) => {
            ex.bytes_received += n as u64;
            check_size(ex, req)?;
            Ok(n)
        }
        Err(e) => Err(io_kind(&e, false, false)),
    }
}

fn check_size(ex: &Exchange, req: &Wire<'_>) -> Result<(), ErrorKind> {
    if ex.bytes_received > req.max_response_size {
        Err(ErrorKind::TooLarge)
    } else {
        Ok(())
    }
}

/// Reads body framing and connection persistence from the response head (RFC 9112 §6.3).
fn framing_of(resp: &httparse::Response<'_, '_>, req: &Wire<'_>) -> Result<(Framing, bool), ErrorKind> {
    let status = resp.code.unwrap_or(0);
    let http11 = resp.version == Some(1);
    let mut keep = http11;
    let mut length = None;
    let mut chunked = false;
    for h in resp.headers.iter() {
        if h.name.eq_ignore_ascii_case("content-length") {
            let v = std::str::from_utf8(h.value)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or(ErrorKind::Protocol)?;
            if length.is_some_and(|l| l != v) {
                return Err(ErrorKind::Protocol);
            }
            length = Some(v);
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = h
                .value
                .split(|b| *b == b',')
                .next_back()
                .is_some_and(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if h.name.eq_ignore_ascii_case("connection") {
            for token in h.value.split(|b| *b == b',') {
                let t = token.trim_ascii();
                if t.eq_ignore_ascii_case(b"close") {
                    keep = false;
                } else if t.eq_ignore_ascii_case(b"keep-alive") {
                    keep = true;
                }
            }
        }
    }
    let framing = if req.is_head || status == 204 || status == 304 || (100..200).contains(&status) {
        Framing::None
    } else if chunked {
        Framing::Chunked
    } else if let Some(l) = length {
        Framing::Length(l)
    } else {
        Framing::UntilClose
    };
    Ok((framing, keep))
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
