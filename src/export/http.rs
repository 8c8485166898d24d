//! A blocking HTTP/1.1 POST over `std::net::TcpStream`, every step under one deadline. The
//! sinks send one small request a second from a thread of their own; a client crate would
//! bring its own runtime or TLS stack for what is a few writes and one read here.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Where a sink posts: parsed once, when the run starts.
#[derive(Debug, Clone)]
pub(super) struct Endpoint {
    host: String,
    port: u16,
    /// Path and query, as sent on the request line.
    target: String,
    /// `Authorization` from the URL's `user:password@` (Basic), or given by the sink.
    pub(super) authorization: Option<String>,
}

impl Endpoint {
    /// An `http://` URL. Errors name what is wrong, never the URL (it may hold a password).
    pub(super) fn parse(url: &url::Url) -> Result<Endpoint, String> {
        match url.scheme() {
            "http" => {}
            "https" => {
                return Err("https is not supported: give an http:// URL (a local proxy can add TLS)".into());
            }
            other => return Err(format!("the scheme `{other}` is not http://")),
        }
        let host =
            url.host_str().ok_or("the URL has no host")?.trim_start_matches('[').trim_end_matches(']').to_string();
        let port = url.port_or_known_default().unwrap_or(80);
        let mut target = url.path().to_string();
        if let Some(q) = url.query() {
            target.push('?');
            target.push_str(q);
        }
        let authorization = (!url.username().is_empty()).then(|| {
            use base64::Engine as _;
            let user = percent(url.username());
            let pass = url.password().map(percent).unwrap_or_default();
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}")))
        });
        Ok(Endpoint { host, port, target, authorization })
    }

    fn host_header(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    fn addr(&self) -> Result<SocketAddr, String> {
        (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| format!("cannot resolve the host: {e}"))?
            .next()
            .ok_or_else(|| "the host has no address".into())
    }
}

fn percent(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes()).next().map(|(_, v)| v.into_owned()).unwrap_or_default()
}

/// The status and the start of the body of a response.
#[derive(Debug)]
pub(super) struct Response {
    pub(super) status: u16,
    pub(super) body: String,
}

/// Posts `body` with `headers`, all of it (connect, write, read) within `timeout`.
pub(super) fn post(
    ep: &Endpoint,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
) -> Result<Response, String> {
    let deadline = Instant::now() + timeout;
    let left = || deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero());
    let timed_out = || format!("no answer within {}", humantime::format_duration(timeout));
    let addr = ep.addr()?;
    let mut stream = TcpStream::connect_timeout(&addr, left().ok_or_else(timed_out)?).map_err(|e| match e.kind() {
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => timed_out(),
        _ => format!("cannot connect: {e}"),
    })?;
    let _ = stream.set_nodelay(true);
    let mut head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: stampede/{}\r\nContent-Length: {}\r\nConnection: close\r\n",
        ep.target,
        ep.host_header(),
        env!("CARGO_PKG_VERSION"),
        body.len()
    );
    if let Some(a) = &ep.authorization {
        head.push_str(&format!("Authorization: {a}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => timed_out(),
        _ => format!("the connection failed: {e}"),
    };
    for part in [head.as_bytes(), body] {
        let mut rest = part;
        while !rest.is_empty() {
            stream.set_write_timeout(Some(left().ok_or_else(timed_out)?)).map_err(io)?;
            let n = stream.write(rest).map_err(io)?;
            if n == 0 {
                return Err("the connection was closed while sending".into());
            }
            rest = &rest[n..];
        }
    }
    // The response is read to its end (the server closes, as asked) or to what is enough to
    // say what went wrong.
    const MOST: usize = 16 * 1024;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        stream.set_read_timeout(Some(left().ok_or_else(timed_out)?)).map_err(io)?;
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() >= MOST || complete(&buf) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
    let mut hs = [httparse::EMPTY_HEADER; 32];
    let mut resp = httparse::Response::new(&mut hs);
    match resp.parse(&buf) {
        Ok(httparse::Status::Complete(len)) => Ok(Response {
            status: resp.code.unwrap_or(0),
            body: String::from_utf8_lossy(&buf[len..buf.len().min(len + 300)]).trim().to_string(),
        }),
        _ if buf.is_empty() => Err("the server closed the connection without an answer".into()),
        _ => Err("the answer is not HTTP".into()),
    }
}

/// Whether `buf` holds a whole response: its head and as much body as `Content-Length` says
/// (a response without one ends when the server closes).
fn complete(buf: &[u8]) -> bool {
    let mut hs = [httparse::EMPTY_HEADER; 32];
    let mut resp = httparse::Response::new(&mut hs);
    let Ok(httparse::Status::Complete(len)) = resp.parse(buf) else { return false };
    let length = resp
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse::<usize>().ok());
    match (resp.code, length) {
        (Some(204 | 304), _) => true,
        (_, Some(n)) => buf.len() >= len + n,
        _ => false,
    }
}
