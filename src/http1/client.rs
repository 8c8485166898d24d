//! One small blocking HTTP/1.1 client, for the few requests a second that `export` (pushes to a
//! time-series store) and `watch` (scrapes and PromQL queries) make from threads of their own.
//! The engine's client is async and built for load; a client crate would bring its own runtime
//! or TLS stack for what is a few writes and one read here. `http://` only: neither sends TLS.
//!
//! Every step (connect, write, read) runs under one deadline. Errors never hold the URL (it may
//! carry credentials); each caller words them for its own output.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A request as sent: `Host`, then `headers` in their order, then `Content-Length` (when there
/// is a body or the method is `POST`) and `Connection: close`.
pub(crate) struct Request<'a> {
    pub method: &'a str,
    /// Path and query, as on the request line.
    pub target: &'a str,
    /// The `Host` header's value.
    pub host: &'a str,
    pub headers: &'a [(&'a str, &'a str)],
    pub body: &'a [u8],
}

/// A response's status and body, and whether the body is all the server meant to send.
#[derive(Debug)]
pub(crate) struct Response {
    pub status: u16,
    pub body: Vec<u8>,
    pub end: End,
}

/// How the body ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// By its length, its last chunk, or (with neither) the server closing.
    Whole,
    /// The server closed before the length or the last chunk.
    Closed,
    /// More than the cap came: the body is what came before it.
    Cap,
}

/// Which step of the exchange failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Send,
    Read,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// No address took the connection; each one tried, with why (none when the deadline passed
    /// before the first).
    #[error("cannot connect")]
    Connect(Vec<(SocketAddr, std::io::Error)>),
    #[error("{step:?}: no answer in time")]
    Timeout { step: Step },
    #[error("{step:?}: {source}")]
    Io { step: Step, source: std::io::Error },
    #[error("the connection was closed while sending")]
    ClosedWhileSending,
    #[error("the server closed the connection without answering")]
    NoAnswer,
    /// The connection ended, or the cap was reached, inside the head.
    #[error("the answer's head is cut short")]
    HeadCut,
    #[error("not an HTTP answer: {0}")]
    NotHttp(httparse::Error),
    #[error("a Content-Length that is not a number")]
    BadLength,
    #[error("the chunked body is malformed")]
    BadChunk,
}

/// Sends `req` to the first of `addrs` that takes the connection and reads the answer, at most
/// `cap` bytes of it (head included), all within `timeout`.
pub(crate) fn exchange(addrs: &[SocketAddr], req: &Request, timeout: Duration, cap: usize) -> Result<Response, Error> {
    let deadline = Instant::now() + timeout;
    let left = || deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero());
    let mut stream = None;
    let mut failed = Vec::new();
    for (i, addr) in addrs.iter().enumerate() {
        // Each address left gets an equal share of the time left, so that one that drops
        // packets does not leave none for the next (`localhost`: `::1`, then `127.0.0.1`).
        let Some(left) = left() else { break };
        let share = left / (addrs.len() - i) as u32;
        match TcpStream::connect_timeout(addr, share.max(Duration::from_millis(1))) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => failed.push((*addr, e)),
        }
    }
    let Some(mut stream) = stream else { return Err(Error::Connect(failed)) };
    let _ = stream.set_nodelay(true);
    let mut head = format!("{} {} HTTP/1.1\r\nHost: {}\r\n", req.method, req.target, req.host);
    for (k, v) in req.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !req.body.is_empty() || req.method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", req.body.len()));
    }
    head.push_str("Connection: close\r\n\r\n");
    let io = |step: Step| {
        move |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => Error::Timeout { step },
            _ => Error::Io { step, source: e },
        }
    };
    for part in [head.as_bytes(), req.body] {
        let mut rest = part;
        while !rest.is_empty() {
            let left = left().ok_or(Error::Timeout { step: Step::Send })?;
            stream.set_write_timeout(Some(left)).map_err(io(Step::Send))?;
            match stream.write(rest) {
                Ok(0) => return Err(Error::ClosedWhileSending),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io(Step::Send)(e)),
            }
        }
    }
    let mut answer = Answer::new(cap);
    let mut chunk = [0u8; 16384];
    loop {
        let left = left().ok_or(Error::Timeout { step: Step::Read })?;
        stream.set_read_timeout(Some(left)).map_err(io(Step::Read))?;
        match stream.read(&mut chunk) {
            Ok(0) => return answer.closed(),
            Ok(n) => {
                if let Some(r) = answer.push(&chunk[..n])? {
                    return Ok(r);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(Step::Read)(e)),
        }
    }
}

/// The user and password of `url`, percent-decoded (`%2B` is `+`, and `+` stays `+`: this is
/// not a form, where `+` would be a space), with the `Authorization` value they make (Basic);
/// `None` without a user.
pub(crate) fn basic_auth(url: &url::Url) -> Option<(String, String, String)> {
    use base64::Engine as _;
    if url.username().is_empty() {
        return None;
    }
    let percent = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
    let user = percent(url.username());
    let pass = url.password().map(percent).unwrap_or_default();
    let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}")));
    Some((user, pass, basic))
}

/// Path and query of `url`, as on the request line.
pub(crate) fn target(url: &url::Url) -> String {
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    target
}

/// An answer as its bytes come: the head parsed once it is whole, then the body taken as it
/// comes (a chunked body decoded piece by piece, never again from its start).
struct Answer {
    /// The head until it is whole; then the body (a chunked one decoded).
    got: Vec<u8>,
    head: Option<(u16, Framing)>,
    chunked: super::Chunked,
    /// Bytes received, for the cap.
    received: usize,
    cap: usize,
}

enum Framing {
    Length(usize),
    Chunked,
    /// Neither length nor chunks (or a status that has no body): to the close.
    Close,
    None,
}

impl Answer {
    fn new(cap: usize) -> Answer {
        Answer { got: Vec::new(), head: None, chunked: super::Chunked::default(), received: 0, cap }
    }

    /// Takes more bytes: the response once it is whole (by its length or its chunks) or the
    /// cap is passed, `None` while more is to come.
    fn push(&mut self, bytes: &[u8]) -> Result<Option<Response>, Error> {
        self.received += bytes.len();
        let done = if self.head.is_some() {
            self.body_bytes(bytes)?
        } else {
            self.got.extend_from_slice(bytes);
            match head(&self.got)? {
                None => None,
                Some((status, head_len, framing)) => {
                    self.head = Some((status, framing));
                    // What came with the head is body: taken as more would be.
                    let rest = self.got.split_off(head_len);
                    self.got.clear();
                    self.body_bytes(&rest)?
                }
            }
        };
        match done {
            Some(r) => Ok(Some(r)),
            None if self.received > self.cap => match self.head.take() {
                None => Err(Error::HeadCut),
                Some((status, _)) => Ok(Some(self.response(status, End::Cap))),
            },
            None => Ok(None),
        }
    }

    fn body_bytes(&mut self, bytes: &[u8]) -> Result<Option<Response>, Error> {
        let Some((status, framing)) = &self.head else { return Ok(None) };
        let status = *status;
        let whole = match framing {
            Framing::Chunked => {
                let got = &mut self.got;
                self.chunked.feed_with(bytes, |d| got.extend_from_slice(d)).map_err(|_| Error::BadChunk)?;
                self.chunked.is_done()
            }
            Framing::Length(n) => {
                let n = *n;
                self.got.extend_from_slice(bytes);
                self.got.truncate(self.got.len().min(n));
                self.got.len() >= n
            }
            Framing::Close => {
                self.got.extend_from_slice(bytes);
                false
            }
            Framing::None => true,
        };
        Ok(whole.then(|| self.response(status, End::Whole)))
    }

    fn response(&mut self, status: u16, end: End) -> Response {
        Response { status, body: std::mem::take(&mut self.got), end }
    }

    /// The server closed the connection: the response, whole if it ran to the close.
    fn closed(mut self) -> Result<Response, Error> {
        match &self.head {
            None if self.got.is_empty() => Err(Error::NoAnswer),
            None => Err(Error::HeadCut),
            Some((status, framing)) => {
                let (status, end) = (*status, if matches!(framing, Framing::Close) { End::Whole } else { End::Closed });
                Ok(self.response(status, end))
            }
        }
    }
}

/// The status, the head's length and the body's framing, once the head is complete.
fn head(got: &[u8]) -> Result<Option<(u16, usize, Framing)>, Error> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut res = httparse::Response::new(&mut headers);
    let head_len = match res.parse(got) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(Error::NotHttp(e)),
    };
    let status = res.code.unwrap_or(0);
    if matches!(status, 204 | 304) {
        return Ok(Some((status, head_len, Framing::None)));
    }
    let mut framing = Framing::Close;
    for h in res.headers.iter() {
        if h.name.eq_ignore_ascii_case("transfer-encoding") && h.value.eq_ignore_ascii_case(b"chunked") {
            framing = Framing::Chunked;
        } else if h.name.eq_ignore_ascii_case("content-length") && !matches!(framing, Framing::Chunked) {
            let n = std::str::from_utf8(h.value).ok().and_then(|v| v.trim().parse().ok());
            framing = Framing::Length(n.ok_or(Error::BadLength)?);
        }
    }
    Ok(Some((status, head_len, framing)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// The response to `bytes`, given all at once.
    fn parse(bytes: &[u8]) -> Result<Option<Response>, Error> {
        Answer::new(usize::MAX).push(bytes)
    }

    /// A server on 127.0.0.1 that reads one request's head, then writes `reply` (each piece
    /// apart, then closes); what it read.
    fn serve(reply: Vec<&'static [u8]>) -> (SocketAddr, std::thread::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                }
            }
            for piece in reply {
                let _ = s.write_all(piece);
                let _ = s.flush();
                std::thread::sleep(Duration::from_millis(20));
            }
            String::from_utf8_lossy(&got).into_owned()
        });
        (addr, server)
    }

    fn get(addr: SocketAddr, timeout: Duration) -> Result<Response, Error> {
        let req = Request { method: "GET", target: "/m?a=1", host: "h:1", headers: &[("Accept", "x")], body: b"" };
        exchange(&[addr], &req, timeout, 1 << 20)
    }

    #[test]
    fn bodies_by_length_by_chunks_and_to_the_close() {
        let by_length = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcEXTRA";
        let r = parse(by_length).unwrap().unwrap();
        assert_eq!((r.status, r.body.as_slice(), r.end), (200, &b"abc"[..], End::Whole));
        assert!(parse(&by_length[..by_length.len() - 6]).unwrap().is_none());
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert_eq!(parse(chunked).unwrap().unwrap().body, b"abcde");
        assert!(parse(&chunked[..chunked.len() - 3]).unwrap().is_none());
        assert_eq!(parse(b"HTTP/1.1 204 No Content\r\n\r\n").unwrap().unwrap().status, 204);
        assert!(matches!(parse(b"SSH-2.0-OpenSSH\r\n\r\n"), Err(Error::NotHttp(_))));
        assert!(matches!(parse(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"), Err(Error::BadLength)));
        let bad = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        assert!(matches!(parse(bad), Err(Error::BadChunk)));
    }

    #[test]
    fn a_big_chunked_body_in_small_reads_is_decoded_once() {
        let mut wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        let piece = [b'x'; 64];
        for _ in 0..(4 << 20) / 64 {
            wire.extend_from_slice(b"40\r\n");
            wire.extend_from_slice(&piece);
            wire.extend_from_slice(b"\r\n");
        }
        wire.extend_from_slice(b"0\r\n\r\n");
        let started = Instant::now();
        let mut answer = Answer::new(usize::MAX);
        let mut done = None;
        for read in wire.chunks(1000) {
            assert!(done.is_none(), "more after the end");
            done = answer.push(read).unwrap();
        }
        assert_eq!(done.unwrap().body.len(), 4 << 20);
        // Decoding from the start at every read took minutes here (a debug build).
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn past_the_cap_the_body_so_far_is_given_and_a_head_that_long_is_cut() {
        let mut a = Answer::new(50);
        let r = a.push(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc").unwrap();
        assert!(r.is_none());
        let r = a.push(&[b'x'; 10]).unwrap().unwrap();
        assert_eq!((r.status, r.end, r.body.len()), (200, End::Cap, 13));
        assert!(matches!(Answer::new(10).push(b"HTTP/1.1 200 OK\r\nX: y"), Err(Error::HeadCut)));
    }

    #[test]
    fn a_request_is_framed_and_a_response_read_over_a_socket_in_pieces() {
        let (addr, server) =
            serve(vec![b"HTTP/1.1 200 OK\r\nTransfer-", b"Encoding: chunked\r\n\r\n2\r\nok", b"\r\n0\r\n\r\n"]);
        let r = get(addr, Duration::from_secs(5)).unwrap();
        assert_eq!((r.status, r.body.as_slice(), r.end), (200, &b"ok"[..], End::Whole));
        let sent = server.join().unwrap();
        assert_eq!(sent, "GET /m?a=1 HTTP/1.1\r\nHost: h:1\r\nAccept: x\r\nConnection: close\r\n\r\n");
        // A POST says its length, even of an empty body.
        let (addr, server) = serve(vec![b"HTTP/1.1 204 No Content\r\n\r\n"]);
        let req = Request { method: "POST", target: "/w", host: "h", headers: &[], body: b"" };
        assert_eq!(exchange(&[addr], &req, Duration::from_secs(5), 100).unwrap().status, 204);
        assert!(server.join().unwrap().contains("\r\nContent-Length: 0\r\n"));
    }

    #[test]
    fn a_server_that_closes_early_is_told_apart_from_one_that_answered_to_the_close() {
        let (addr, server) = serve(vec![]);
        assert!(matches!(get(addr, Duration::from_secs(5)), Err(Error::NoAnswer)));
        server.join().unwrap();
        let (addr, server) = serve(vec![b"HTTP/1.1 200 OK\r\nContent-Le"]);
        assert!(matches!(get(addr, Duration::from_secs(5)), Err(Error::HeadCut)));
        server.join().unwrap();
        let (addr, server) = serve(vec![b"HTTP/1.1 500 Oops\r\nContent-Length: 10\r\n\r\nabc"]);
        let r = get(addr, Duration::from_secs(5)).unwrap();
        assert_eq!((r.status, r.body.as_slice(), r.end), (500, &b"abc"[..], End::Closed));
        server.join().unwrap();
        let (addr, server) = serve(vec![b"HTTP/1.1 200 OK\r\n\r\nall ", b"of it"]);
        let r = get(addr, Duration::from_secs(5)).unwrap();
        assert_eq!((r.body.as_slice(), r.end), (&b"all of it"[..], End::Whole));
        server.join().unwrap();
    }

    #[test]
    fn a_server_that_never_answers_costs_the_deadline_and_no_more() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let started = Instant::now();
        let e = get(addr, Duration::from_millis(300)).unwrap_err();
        assert!(matches!(e, Error::Timeout { step: Step::Read }), "{e:?}");
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(290) && took < Duration::from_secs(3), "{took:?}");
        drop(listener);
        // Nothing listening: the connect fails, with why, per address.
        let e = get(addr, Duration::from_secs(1)).unwrap_err();
        assert!(matches!(&e, Error::Connect(f) if f.len() == 1), "{e:?}");
    }

    #[test]
    fn userinfo_is_percent_decoded_not_form_decoded() {
        let url = url::Url::parse("http://a+b%2Bc%20d%40:p%40ss+word@127.0.0.1/").unwrap();
        let (user, pass, basic) = basic_auth(&url).unwrap();
        assert_eq!((user.as_str(), pass.as_str()), ("a+b+c d@", "p@ss+word"));
        use base64::Engine as _;
        assert_eq!(basic, format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("a+b+c d@:p@ss+word")));
        assert!(basic_auth(&url::Url::parse("http://127.0.0.1/").unwrap()).is_none());
        assert_eq!(target(&url::Url::parse("http://h/a/b?x=1&y").unwrap()), "/a/b?x=1&y");
    }
}
