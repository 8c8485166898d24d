//! A blocking HTTP/1.1 `GET` over a plain TCP stream with one deadline for the whole exchange:
//! all a scrape or a PromQL query needs, without an HTTP client crate (the engine's client is
//! async and built for load, not for one request a second). `http://` only.
//!
//! Messages never hold the URL: it may carry credentials.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The most a response may be: an exposition of a big JVM is a few hundred KB.
const MOST_BYTES: usize = 16 << 20;

/// The addresses of `url`'s host, found once before the run (a name's lookup has no time limit
/// of its own, so it runs on a helper thread that is given up on past `timeout`). An IP literal
/// (`127.0.0.1`, `[::1]`) needs no lookup.
pub(super) fn resolve(url: &url::Url, timeout: Duration) -> Result<Vec<SocketAddr>, String> {
    let port = url.port_or_known_default().unwrap_or(80);
    let name = match url.host() {
        Some(url::Host::Ipv4(a)) => return Ok(vec![SocketAddr::new(a.into(), port)]),
        Some(url::Host::Ipv6(a)) => return Ok(vec![SocketAddr::new(a.into(), port)]),
        Some(url::Host::Domain(d)) => d.to_string(),
        None => return Err("the URL has no host".into()),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("watch-resolve".into())
        .spawn(move || {
            let _ = tx.send((name.as_str(), port).to_socket_addrs().map(Iterator::collect::<Vec<_>>));
        })
        .map_err(|e| format!("cannot resolve the host: {e}"))?;
    match rx.recv_timeout(timeout) {
        Ok(Ok(addrs)) if !addrs.is_empty() => Ok(addrs),
        Ok(Ok(_)) => Err("the host has no address".into()),
        Ok(Err(e)) => Err(format!("cannot resolve the host: {e}")),
        Err(_) => Err(format!("cannot resolve the host: no answer within {} ms", timeout.as_millis())),
    }
}

/// The body of a `200` answer to `GET url` from one of `addrs` (its host's, see [`resolve`]), or
/// why there is none.
pub(super) fn get(url: &url::Url, addrs: &[SocketAddr], timeout: Duration) -> Result<Vec<u8>, String> {
    let deadline = Instant::now() + timeout;
    // `[::1]` for an IPv6 literal: as the Host header wants it.
    let host = url.host_str().ok_or("the URL has no host")?;
    let mut last = String::from("the host has no address");
    let mut stream = None;
    for &a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        match TcpStream::connect_timeout(&a, left) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = format!("connect: {e}"),
        }
    }
    let mut stream = stream.ok_or(last)?;
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    let host_header = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let mut request = format!(
        "GET {target} HTTP/1.1\r\nHost: {host_header}\r\nUser-Agent: stampede-watch\r\nAccept: text/plain, application/json\r\nConnection: close\r\n"
    );
    if !url.username().is_empty() {
        use base64::Engine as _;
        let user = percent(url.username());
        let pass = percent(url.password().unwrap_or(""));
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
        request.push_str(&format!("Authorization: Basic {token}\r\n"));
    }
    request.push_str("\r\n");
    let timed_out = |what: &str| format!("{what}: no answer within {} ms", timeout.as_millis());
    stream
        .set_write_timeout(Some(deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1))))
        .map_err(|e| format!("socket: {e}"))?;
    stream.write_all(request.as_bytes()).map_err(|e| format!("send: {e}"))?;
    let mut answer = Answer::default();
    let mut chunk = [0u8; 16384];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out("read"));
        }
        stream.set_read_timeout(Some(left)).map_err(|e| format!("socket: {e}"))?;
        match stream.read(&mut chunk) {
            Ok(0) => return answer.closed(),
            Ok(n) => {
                if let Some(body) = answer.push(&chunk[..n])? {
                    return body;
                }
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return Err(timed_out("read"));
            }
            Err(e) => return Err(format!("read: {e}")),
        }
    }
}

/// An answer as its bytes come: the head parsed once it is whole, then the body taken as it
/// comes (a chunked body decoded piece by piece, never again from its start).
#[derive(Default)]
struct Answer {
    /// The head until it is whole; then the body (of a length, or to the close).
    got: Vec<u8>,
    head: Option<(u16, Framing)>,
    chunked: crate::http1::Chunked,
    /// A chunked body's data.
    body: Vec<u8>,
    /// Bytes received, for the cap.
    received: usize,
}

impl Answer {
    /// Takes more bytes: the body once the whole answer is in (by its length or its chunks),
    /// `None` while more is to come.
    #[allow(clippy::type_complexity)]
    fn push(&mut self, bytes: &[u8]) -> Result<Option<Result<Vec<u8>, String>>, String> {
        self.received += bytes.len();
        if self.received > MOST_BYTES {
            return Err(format!("the answer is over {} MB", MOST_BYTES >> 20));
        }
        let bytes = match &self.head {
            Some(_) => bytes,
            None => {
                self.got.extend_from_slice(bytes);
                let Some((status, head_len, framing)) = head(&self.got)? else { return Ok(None) };
                self.head = Some((status, framing));
                // What came with the head is body: taken as more would be.
                let rest = self.got.split_off(head_len);
                self.got.clear();
                return self.body_bytes(&rest);
            }
        };
        self.body_bytes(bytes)
    }

    #[allow(clippy::type_complexity)]
    fn body_bytes(&mut self, bytes: &[u8]) -> Result<Option<Result<Vec<u8>, String>>, String> {
        let Some((status, framing)) = &self.head else { return Ok(None) };
        match framing {
            Framing::Chunked => {
                let body = &mut self.body;
                self.chunked
                    .feed_with(bytes, |d| body.extend_from_slice(d))
                    .map_err(|_| "the chunked body is malformed".to_string())?;
                Ok(self.chunked.is_done().then(|| ok(*status, std::mem::take(&mut self.body))))
            }
            Framing::Length(n) => {
                self.got.extend_from_slice(bytes);
                Ok((self.got.len() >= *n).then(|| {
                    self.got.truncate(*n);
                    ok(*status, std::mem::take(&mut self.got))
                }))
            }
            Framing::Close => {
                self.got.extend_from_slice(bytes);
                Ok(None)
            }
        }
    }

    /// The server closed the connection: the body, if the answer is whole.
    fn closed(mut self) -> Result<Vec<u8>, String> {
        match self.head.take() {
            None if self.got.is_empty() => Err("the server closed the connection without answering".into()),
            None => Err("the answer's head is cut short".into()),
            // Neither length nor chunks: the body ran to the close.
            Some((status, Framing::Close)) => ok(status, self.got),
            Some(_) => Err("the server closed the connection before the whole answer".into()),
        }
    }
}

enum Framing {
    Length(usize),
    Chunked,
    Close,
}

/// The status, the head's length and the body's framing, once the head is complete.
fn head(got: &[u8]) -> Result<Option<(u16, usize, Framing)>, String> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut res = httparse::Response::new(&mut headers);
    let head_len = match res.parse(got) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(format!("not an HTTP answer: {e}")),
    };
    let status = res.code.unwrap_or(0);
    let mut framing = Framing::Close;
    for h in res.headers.iter() {
        if h.name.eq_ignore_ascii_case("transfer-encoding") && h.value.eq_ignore_ascii_case(b"chunked") {
            framing = Framing::Chunked;
        } else if h.name.eq_ignore_ascii_case("content-length") && !matches!(framing, Framing::Chunked) {
            let n = std::str::from_utf8(h.value).ok().and_then(|v| v.trim().parse().ok());
            framing = Framing::Length(n.ok_or("a Content-Length that is not a number")?);
        }
    }
    Ok(Some((status, head_len, framing)))
}

fn ok(status: u16, body: Vec<u8>) -> Result<Vec<u8>, String> {
    if status == 200 {
        Ok(body)
    } else {
        let text = String::from_utf8_lossy(&body[..body.len().min(200)]).trim().to_string();
        Err(format!("HTTP {status}{}", if text.is_empty() { String::new() } else { format!(": {text}") }))
    }
}

/// A percent-encoded URL part, decoded.
fn percent(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of `bytes`, given all at once.
    #[allow(clippy::type_complexity)]
    fn complete(bytes: &[u8]) -> Result<Option<Result<Vec<u8>, String>>, String> {
        Answer::default().push(bytes)
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
        let mut answer = Answer::default();
        let mut body = None;
        for read in wire.chunks(1000) {
            assert!(body.is_none(), "more after the end");
            body = answer.push(read).unwrap();
        }
        assert_eq!(body.unwrap().unwrap().len(), 4 << 20);
        // Decoding from the start at every read took minutes here (a debug build).
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn answers_cut_short_and_to_the_close() {
        let mut a = Answer::default();
        assert!(a.push(b"HTTP/1.1 200 OK\r\n\r\nall ").unwrap().is_none());
        assert!(a.push(b"of it").unwrap().is_none());
        assert_eq!(a.closed().unwrap(), b"all of it");
        let mut a = Answer::default();
        assert!(a.push(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc").unwrap().is_none());
        assert!(a.closed().is_err());
        assert!(Answer::default().closed().is_err());
        let mut a = Answer::default();
        assert!(a.push(&[b'x'; 1024]).is_err() || a.closed().is_err());
    }

    #[test]
    fn bodies_by_length_by_chunks_and_to_the_close() {
        let by_length = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
        assert_eq!(complete(by_length).unwrap().unwrap().unwrap(), b"abc");
        assert!(complete(&by_length[..by_length.len() - 1]).unwrap().is_none());
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert_eq!(complete(chunked).unwrap().unwrap().unwrap(), b"abcde");
        assert!(complete(&chunked[..chunked.len() - 3]).unwrap().is_none());
        let failed = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy";
        assert_eq!(complete(failed).unwrap().unwrap().unwrap_err(), "HTTP 503: busy");
        assert!(complete(b"SSH-2.0-OpenSSH\r\n\r\n").is_err());
    }

    #[test]
    fn ip_literals_need_no_lookup() {
        let v6 = url::Url::parse("http://[::1]:9100/metrics").unwrap();
        assert_eq!(resolve(&v6, Duration::from_millis(10)).unwrap(), vec!["[::1]:9100".parse().unwrap()]);
        let v4 = url::Url::parse("http://127.0.0.1/metrics").unwrap();
        assert_eq!(resolve(&v4, Duration::from_millis(10)).unwrap(), vec!["127.0.0.1:80".parse().unwrap()]);
    }

    #[test]
    fn an_ipv6_literal_is_scraped() {
        // No IPv6 loopback here (a container without it): nothing to test.
        let Ok(listener) = std::net::TcpListener::bind("[::1]:0") else { return };
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 1024];
            let n = s.read(&mut buf).unwrap();
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nup").unwrap();
            req
        });
        let u = url::Url::parse(&format!("http://[::1]:{port}/metrics")).unwrap();
        let addrs = resolve(&u, Duration::from_secs(1)).unwrap();
        assert_eq!(get(&u, &addrs, Duration::from_secs(2)).unwrap(), b"up");
        assert!(server.join().unwrap().contains(&format!("Host: [::1]:{port}")));
    }

    #[test]
    fn credentials_decode() {
        assert_eq!(percent("p%40ss+word"), "p@ss+word");
    }
}
