//! A blocking HTTP/1.1 `GET` over a plain TCP stream with one deadline for the whole exchange:
//! all a scrape or a PromQL query needs, without an HTTP client crate (the engine's client is
//! async and built for load, not for one request a second). `http://` only.
//!
//! Messages never hold the URL: it may carry credentials.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The most a response may be: an exposition of a big JVM is a few hundred KB.
const MOST_BYTES: usize = 16 << 20;

/// The body of a `200` answer to `GET url`, or why there is none.
pub(super) fn get(url: &url::Url, timeout: Duration) -> Result<Vec<u8>, String> {
    let deadline = Instant::now() + timeout;
    let host = url.host_str().ok_or("the URL has no host")?;
    let port = url.port_or_known_default().unwrap_or(80);
    let addrs: Vec<_> = (host, port).to_socket_addrs().map_err(|e| format!("cannot resolve the host: {e}"))?.collect();
    let mut last = String::from("the host has no address");
    let mut stream = None;
    for a in addrs {
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
    let mut got = Vec::with_capacity(8192);
    let mut chunk = [0u8; 16384];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out("read"));
        }
        stream.set_read_timeout(Some(left)).map_err(|e| format!("socket: {e}"))?;
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                got.extend_from_slice(&chunk[..n]);
                if got.len() > MOST_BYTES {
                    return Err(format!("the answer is over {} MB", MOST_BYTES >> 20));
                }
                if let Some(body) = complete(&got)? {
                    return body;
                }
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return Err(timed_out("read"));
            }
            Err(e) => return Err(format!("read: {e}")),
        }
    }
    match complete(&got)? {
        Some(body) => body,
        None if got.is_empty() => Err("the server closed the connection without answering".into()),
        None => {
            // Neither length nor chunks: the body ran to the close.
            let (status, head_len, _) = head(&got)?.ok_or("the answer's head is cut short")?;
            ok(status, got[head_len..].to_vec())
        }
    }
}

/// The body once the whole answer is in `got` (by its length or its chunks), `None` while more
/// is to come.
#[allow(clippy::type_complexity)]
fn complete(got: &[u8]) -> Result<Option<Result<Vec<u8>, String>>, String> {
    let Some((status, head_len, framing)) = head(got)? else { return Ok(None) };
    let rest = &got[head_len..];
    match framing {
        Framing::Length(n) if rest.len() >= n => Ok(Some(ok(status, rest[..n].to_vec()))),
        Framing::Chunked => {
            let mut dec = crate::http1::Chunked::default();
            let mut body = Vec::new();
            dec.feed_with(rest, |d| body.extend_from_slice(d))
                .map_err(|_| "the chunked body is malformed".to_string())?;
            Ok(dec.is_done().then(|| ok(status, body)))
        }
        _ => Ok(None),
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
    fn credentials_decode() {
        assert_eq!(percent("p%40ss+word"), "p@ss+word");
    }
}
