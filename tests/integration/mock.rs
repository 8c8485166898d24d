//! The built-in mock: correct HTTP/1.1 framing for pipelined requests with bodies, HEAD and
//! bodiless statuses, and an exact count of what it served when stopped.

use crate::util::stampede::{OutputExt, Stampede};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// `stampede mock --listen 127.0.0.1:0 EXTRA...` and the address it says it listens on.
pub(crate) fn start_mock(extra: &[&str]) -> (crate::util::stampede::Running, String) {
    let mut mock = Stampede::new().args(["mock", "--listen", "127.0.0.1:0"]).args(extra).spawn();
    let addr = mock.printed_address("http://");
    (mock, addr)
}

#[test]
fn pipelined_requests_with_bodies_are_all_answered_in_order() {
    let (mock, addr) = start_mock(&["--route", "/empty:204"]);
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    // Four requests in one write: a body by length, a chunked body, HEAD, and a 204 route.
    s.write_all(
        b"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello\
          POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n\
          HEAD /c HTTP/1.1\r\nHost: x\r\n\r\n\
          GET /empty HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let mut got = String::new();
    s.read_to_string(&mut got).unwrap();
    // Each response says how long the mock held it; the figure varies, its form does not.
    let timing = regex::Regex::new(r"Server-Timing: app;dur=\d+\.\d{3}\r\n").unwrap();
    assert_eq!(timing.find_iter(&got).count(), 4, "{got}");
    let got = timing.replace_all(&got, "").into_owned();
    let want = [
        "HTTP/1.1 200 OK\r\nServer: stampede-mock\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nOK",
        "HTTP/1.1 200 OK\r\nServer: stampede-mock\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nOK",
        "HTTP/1.1 200 OK\r\nServer: stampede-mock\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\n",
        "HTTP/1.1 204 No Content\r\nServer: stampede-mock\r\nConnection: close\r\n\r\n",
    ]
    .concat();
    assert_eq!(got, want);
    mock.interrupt();
    let out = mock.wait(Duration::from_secs(10));
    out.assert_exit(0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("served 4 requests on 1 connections"));
}

#[test]
fn the_mock_counts_exactly_what_stampede_reports() {
    let (mock, addr) = start_mock(&["--delay", "1ms..3ms"]);
    let run = crate::util::stampede::run_quick(
        "mock-count",
        &format!("http://{addr}/x"),
        &["--users", "8", "--duration", "2s"],
    );
    mock.interrupt();
    let out = mock.wait(Duration::from_secs(10));
    let samples = run.total()["samples"].as_u64().unwrap();
    assert!(samples > 100);
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("served {samples} requests on 8 connections")));
}
