//! Where a sink posts, and the post itself: [`crate::http1::client`] under one deadline, its
//! failures worded for the sink's report.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where a sink posts: parsed once, when the run starts.
#[derive(Clone)]
pub(super) struct Endpoint {
    host: String,
    port: u16,
    /// Path and query, as sent on the request line.
    target: String,
    /// `Authorization` from the URL's `user:password@` (Basic), or given by the sink.
    pub(super) authorization: Option<String>,
    /// The credential values (user, password, token...), to scrub from what a server answers.
    pub(super) secrets: Vec<String>,
    /// The host's addresses, resolved once (see [`Endpoint::addrs`]).
    resolved: Arc<Mutex<Resolution>>,
}

/// Written by hand: the authorization, the credentials and InfluxDB's `u`/`p` in the query are
/// never printed.
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("target", &crate::redact::export_target(&self.target))
            .field("authorization", &self.authorization.as_ref().map(|_| crate::redact::MASK))
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
enum Resolution {
    #[default]
    None,
    /// A lookup under way on a helper thread: the next push waits for the same one.
    Pending(std::sync::mpsc::Receiver<std::io::Result<Vec<SocketAddr>>>),
    Done(Vec<SocketAddr>),
}

impl Endpoint {
    /// An `http://` URL. Errors name what is wrong, never the URL (it may hold a password).
    pub(super) fn parse(url: &url::Url) -> Result<Endpoint, String> {
        match url.scheme() {
            "http" => {}
            "https" => {
                return Err("https is not supported: give an http:// URL (a local proxy can add TLS)".into());
            }
            // `admin:pw@host/...` parses with the user as its scheme: named, it would show it.
            _ if url.cannot_be_a_base() => return Err("give an http:// URL (the scheme is missing)".into()),
            other => return Err(format!("the scheme `{other}` is not http://")),
        }
        let host =
            url.host_str().ok_or("the URL has no host")?.trim_start_matches('[').trim_end_matches(']').to_string();
        let port = url.port_or_known_default().unwrap_or(80);
        let target = crate::http1::client::target(url);
        let mut secrets = Vec::new();
        let authorization = crate::http1::client::basic_auth(url).map(|(user, pass, basic)| {
            secrets.extend([user, pass]);
            basic
        });
        // A server may echo the request: `user:password` and its Basic credential too.
        secrets.extend(crate::redact::userinfo_secrets(url).values().iter().cloned());
        secrets.retain(|s| !s.is_empty());
        secrets.dedup();
        Ok(Endpoint { host, port, target, authorization, secrets, resolved: Arc::default() })
    }

    fn host_header(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The host's addresses, every one (`localhost` is `::1` and `127.0.0.1`). An address is
    /// taken as it is; a name is looked up once for the run, on a helper thread so that a
    /// resolver that hangs costs this push its deadline, not the sink its thread. A lookup
    /// that fails is tried again at the next push.
    fn addrs(&self, deadline: Instant) -> Result<Vec<SocketAddr>, String> {
        if let Ok(ip) = self.host.parse::<std::net::IpAddr>() {
            return Ok(vec![SocketAddr::new(ip, self.port)]);
        }
        let mut state = self.resolved.lock().unwrap_or_else(|e| e.into_inner());
        if let Resolution::Done(addrs) = &*state {
            return Ok(addrs.clone());
        }
        if matches!(*state, Resolution::None) {
            let (tx, rx) = std::sync::mpsc::channel();
            let (host, port) = (self.host.clone(), self.port);
            std::thread::Builder::new()
                .name("export-resolve".into())
                .spawn(move || {
                    let _ = tx.send((host.as_str(), port).to_socket_addrs().map(Iterator::collect));
                })
                .map_err(|e| format!("cannot resolve {}: no thread for it: {e}", self.host))?;
            *state = Resolution::Pending(rx);
        }
        let Resolution::Pending(rx) = &*state else { unreachable!("set just above") };
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Ok(addrs)) if !addrs.is_empty() => {
                *state = Resolution::Done(addrs.clone());
                Ok(addrs)
            }
            Ok(Ok(_)) => {
                *state = Resolution::None;
                Err(format!("could not resolve {}: it has no address", self.host))
            }
            Ok(Err(e)) => {
                *state = Resolution::None;
                Err(format!("could not resolve {}: {e}", self.host))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                Err(format!("could not resolve {} within the push's deadline", self.host))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                *state = Resolution::None;
                Err(format!("could not resolve {}", self.host))
            }
        }
    }
}

/// The status and the start of the body of a response.
#[derive(Debug)]
pub(super) struct Response {
    pub(super) status: u16,
    pub(super) body: String,
}

/// The most of an answer read: enough to say what went wrong.
const MOST: usize = 16 * 1024;

/// Posts `body` with `headers`, all of it (connect, write, read) within `timeout`.
pub(super) fn post(
    ep: &Endpoint,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
) -> Result<Response, String> {
    use crate::http1::client::{self, Error};
    let deadline = Instant::now() + timeout;
    let timed_out = || format!("no answer within {}", humantime::format_duration(timeout));
    let addrs = ep.addrs(deadline)?;
    let agent = format!("stampede/{}", env!("CARGO_PKG_VERSION"));
    let mut all = vec![("User-Agent", agent.as_str())];
    if let Some(a) = &ep.authorization {
        all.push(("Authorization", a));
    }
    all.extend_from_slice(headers);
    let host = ep.host_header();
    let req = client::Request { method: "POST", target: &ep.target, host: &host, headers: &all, body };
    let left = deadline.saturating_duration_since(Instant::now());
    match client::exchange(&addrs, &req, left, MOST) {
        // A body cut short still tells the status: what a push needs.
        Ok(r) => Ok(Response {
            status: r.status,
            body: String::from_utf8_lossy(&r.body[..r.body.len().min(300)]).trim().to_string(),
        }),
        Err(Error::Connect(failed)) if failed.is_empty() => Err(timed_out()),
        Err(Error::Connect(failed)) => {
            let failed: Vec<String> = failed
                .iter()
                .map(|(addr, e)| match e.kind() {
                    std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => format!("{addr}: no answer"),
                    _ => format!("{addr}: {e}"),
                })
                .collect();
            Err(format!("cannot connect within {} ({})", humantime::format_duration(timeout), failed.join("; ")))
        }
        Err(Error::Timeout { .. }) => Err(timed_out()),
        Err(Error::Io { source, .. }) => Err(format!("the connection failed: {source}")),
        Err(Error::NoAnswer) => Err("the server closed the connection without an answer".into()),
        Err(e @ Error::ClosedWhileSending) => Err(e.to_string()),
        Err(Error::HeadCut | Error::NotHttp(_) | Error::BadLength | Error::BadChunk) => {
            Err("the answer is not HTTP".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_is_percent_decoded_not_form_decoded() {
        let url = url::Url::parse("http://bo%2Bb:p+w%2B1@127.0.0.1:8086/write?db=x&p=hunter2").unwrap();
        let ep = Endpoint::parse(&url).unwrap();
        use base64::Engine as _;
        let basic = base64::engine::general_purpose::STANDARD.encode("bo+b:p+w+1");
        assert_eq!(ep.authorization.as_deref(), Some(format!("Basic {basic}").as_str()));
        assert!(ep.secrets.starts_with(&["bo+b".to_string(), "p+w+1".to_string()]), "{:?}", ep.secrets);
        // As a server may echo them: `user:password` and its Basic credential.
        assert!(ep.secrets.contains(&basic) && ep.secrets.contains(&"bo+b:p+w+1".to_string()), "{:?}", ep.secrets);
        // Debug shows neither the authorization nor InfluxDB's `p=`.
        let shown = format!("{ep:?}");
        assert!(!shown.contains(&basic) && !shown.contains("hunter2") && shown.contains("db=x"), "{shown}");
    }

    #[test]
    fn every_address_of_a_name_is_tried_within_the_deadline() {
        // `localhost` may be `::1` then `127.0.0.1`: a server on 127.0.0.1 only is still reached.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut s, _) = listener.accept().unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut buf = [0u8; 4096];
            let mut got = Vec::new();
            while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                }
            }
            let _ = s.write_all(b"HTTP/1.1 204 No Content\r\n\r\n");
        });
        let ep = Endpoint::parse(&url::Url::parse(&format!("http://localhost:{port}/w")).unwrap()).unwrap();
        let r = post(&ep, &[], b"x", Duration::from_secs(2)).unwrap();
        assert_eq!(r.status, 204);
        server.join().unwrap();
        // A name that does not resolve says so, not "no answer".
        let ep = Endpoint::parse(&url::Url::parse("http://no-such-host.invalid:1/w").unwrap()).unwrap();
        let e = post(&ep, &[], b"x", Duration::from_secs(2)).unwrap_err();
        assert!(e.starts_with("could not resolve no-such-host.invalid"), "{e}");
    }
}
