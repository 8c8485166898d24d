//! Response framing: chunked bodies, close-delimited bodies, HEAD, 204 and an interim 100
//! Continue are all read to their exact end, and the bytes stampede reports received equal the
//! bytes this server wrote, per label.

use crate::util::stampede::run_plan;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

const CHUNKED: &str =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n";
const CLOSE_DELIMITED: &str =
    "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nthe body ends when the connection does";
const HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
const NO_CONTENT: &str = "HTTP/1.1 204 No Content\r\n\r\n";
const CONTINUE: &str = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";

/// Serves canned responses by path; returns the port and the bytes written per path.
fn canned_server() -> (u16, Arc<Mutex<HashMap<String, u64>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let written = Arc::new(Mutex::new(HashMap::new()));
    let w = written.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let w = w.clone();
            std::thread::spawn(move || serve(stream, &w));
        }
    });
    (port, written)
}

fn serve(mut s: TcpStream, written: &Mutex<HashMap<String, u64>>) {
    let mut pending = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let end = loop {
            if let Some(i) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match s.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => pending.extend_from_slice(&buf[..n]),
            }
        };
        let head = String::from_utf8_lossy(&pending[..end]).into_owned();
        pending.drain(..end);
        let path = head.split(' ').nth(1).unwrap_or("").to_string();
        let response = match path.as_str() {
            "/chunked" => CHUNKED,
            "/close" => CLOSE_DELIMITED,
            "/head" => HEAD,
            "/204" => NO_CONTENT,
            _ => CONTINUE,
        };
        if s.write_all(response.as_bytes()).is_err() {
            return;
        }
        *written.lock().unwrap().entry(path.clone()).or_insert(0) += response.len() as u64;
        if path == "/close" {
            return; // dropping the stream ends the body
        }
    }
}

#[test]
fn every_framing_is_read_to_its_exact_end() {
    let (port, written) = canned_server();
    let run = run_plan(
        "framing",
        &format!(
            r#"
defaults: {{base_url: "http://127.0.0.1:{port}"}}
scenarios:
  - workload: {{users: 1, iterations: 3}}
    flow:
      - request: {{label: chunked, url: /chunked}}
      - request: {{label: close, url: /close}}
      - request: {{label: head, method: HEAD, url: /head}}
      - request: {{label: "204", url: /204}}
      - request: {{label: continue, method: POST, url: /continue, body: x}}
"#
        ),
    );
    let written = written.lock().unwrap().clone();
    for (label, path) in
        [("chunked", "/chunked"), ("close", "/close"), ("head", "/head"), ("204", "/204"), ("continue", "/continue")]
    {
        let l = run.label(label);
        assert_eq!(l["samples"], 3, "{label}");
        assert_eq!(l["errors"], 0, "{label}: {l}");
        assert_eq!(l["bytes_received"], written[path], "{label}: bytes on the wire");
    }
    // Each close-delimited response ends its connection; the next request opens another.
    assert_eq!(run.total()["connections_opened"], 1 + 3);
}
