//! A scrape's or a PromQL query's `GET`: [`crate::http1::client`] with one deadline for the
//! whole exchange, its failures worded for the watch report.
//!
//! Messages never hold the URL: it may carry credentials.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

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
    use crate::http1::client::{self, End, Error, Step};
    // `[::1]` for an IPv6 literal: as the Host header wants it.
    let host = url.host_str().ok_or("the URL has no host")?;
    let host = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let auth = client::basic_auth(url).map(|(_, _, basic)| basic);
    let mut headers = vec![("User-Agent", "stampede-watch"), ("Accept", "text/plain, application/json")];
    if let Some(a) = &auth {
        headers.push(("Authorization", a));
    }
    let target = client::target(url);
    let req = client::Request { method: "GET", target: &target, host: &host, headers: &headers, body: b"" };
    let timed_out = |what: &str| format!("{what}: no answer within {} ms", timeout.as_millis());
    let step = |s: Step| if s == Step::Send { "send" } else { "read" };
    match client::exchange(addrs, &req, timeout, MOST_BYTES) {
        Ok(r) => match r.end {
            End::Whole => ok(r.status, r.body),
            End::Closed => Err("the server closed the connection before the whole answer".into()),
            End::Cap => Err(format!("the answer is over {} MB", MOST_BYTES >> 20)),
        },
        Err(Error::Connect(failed)) => Err(match failed.last() {
            Some((_, e)) => format!("connect: {e}"),
            None => "the host has no address".into(),
        }),
        Err(Error::Timeout { step: s }) => Err(timed_out(step(s))),
        Err(Error::Io { step: s, source }) => Err(format!("{}: {source}", step(s))),
        Err(Error::NotHttp(e)) => Err(format!("not an HTTP answer: {e}")),
        Err(e) => Err(e.to_string()),
    }
}

fn ok(status: u16, body: Vec<u8>) -> Result<Vec<u8>, String> {
    if status == 200 {
        Ok(body)
    } else {
        let text = String::from_utf8_lossy(&body[..body.len().min(200)]).trim().to_string();
        Err(format!("HTTP {status}{}", if text.is_empty() { String::new() } else { format!(": {text}") }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            use std::io::{Read, Write};
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
}
